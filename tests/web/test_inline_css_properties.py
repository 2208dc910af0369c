"""web/inline-css.mjs over generated stylesheets and sites, against oracles written here:

- ``rebaseUrls``: the stylesheet is read by tinycss2 (a CSS Syntax Level 3 tokenizer, apart
  from the script's scanner). Every url (``url(x)`` in any letter case, quoted or bare, with
  CSS escapes) must point, resolved from the page's folder, at the file it named from the
  stylesheet's folder (query and fragment kept); data:, absolute and fragment URLs stay as
  they were; and every other token (strings that say "url(x)", other functions, comments
  aside) is unchanged;
- ``inlineStyles`` over a site written to a temporary folder (pages one and two folders deep,
  hrefs with queries, percent-encoding and character references, media-specific links): the
  page ends up with ONE <style> where the links stood and no stylesheet link, every rule's url
  resolves from the page to the file the stylesheet meant, a media="print" link's rules stay
  inside @media print, running it again changes nothing, and a missing stylesheet is an error
  naming the page and the file.
"""

from __future__ import annotations

import posixpath
import re
from html.parser import HTMLParser

import pytest
import tinycss2
from _depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PROPS = settings(
    derandomize=True,
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

EXTERNAL = re.compile(r"^(data:|[a-z][a-z0-9+.-]*:|#|/)", re.I)


def _walk(tokens, urls, skeleton):
    for t in tokens:
        if t.type == "url":
            urls.append(t.value)
            skeleton.append("URL")
        elif t.type == "function" and t.lower_name == "url":
            args = [a for a in t.arguments if a.type not in ("whitespace", "comment")]
            if len(args) == 1 and args[0].type == "string":
                urls.append(args[0].value)
                skeleton.append("URL")
            else:
                skeleton.append(t.serialize())
        elif t.type == "function":
            skeleton.append(f"{t.name}(")
            _walk(t.arguments, urls, skeleton)
            skeleton.append(")")
        elif t.type in ("() block", "[] block", "{} block"):
            skeleton.append(t.type[0])
            _walk(t.content, urls, skeleton)
            skeleton.append(t.type[1])
        elif t.type == "whitespace":
            skeleton.append(" ")
        else:
            skeleton.append(t.serialize())


def read_urls(css: str) -> tuple[list[str], list[str]]:
    """(the urls, in order, decoded; every other token, urls as placeholders)."""
    urls: list[str] = []
    skeleton: list[str] = []
    _walk(tinycss2.parse_component_value_list(css, skip_comments=True), urls, skeleton)
    # whitespace next to a url is the script's to drop
    text = re.sub(r" *URL *", "URL", "".join(skeleton))
    return urls, text


def split_url(u: str) -> tuple[str, str]:
    m = re.match(r"^([^?#]*)(.*)$", u, re.S)
    return m.group(1), m.group(2)


def same_target(before: str, after: str, sheet_dir: str, page_dir: str) -> bool:
    if EXTERNAL.match(before) or before == "":
        return after == before
    path0, rest0 = split_url(before)
    path1, rest1 = split_url(after)
    want = posixpath.normpath(posixpath.join(sheet_dir, path0))
    got = posixpath.normpath(posixpath.join(page_dir, path1))
    return want == got and rest0 == rest1


# ----------------------------------------------------------------------------- stylesheets

_segment = st.sampled_from(["fonts", "img", "..", ".", "a b", "x-1", "lib", "p(q)", "é", "a'b"])
_name = st.sampled_from(["f.woff2", "i.png", "s.svg", "x", 'q".png', "a)b.png", "f.woff2?#iefix"])
_relative = st.builds(
    lambda parts, n: "/".join([*parts, n]), st.lists(_segment, max_size=3), _name
)
_other = st.sampled_from(
    [
        "data:image/svg+xml,<svg marker-end='url(%23a)'/>",
        'data:image/svg+xml,<svg a="url(b)"/>',
        "data:image/png;base64,AAAA",
        "https://example.org/x.png",
        "/abs/x.png",
        "#frag",
    ]
)


def css_string(value: str, quote: str) -> str:
    body = value.replace("\\", "\\\\").replace(quote, "\\" + quote).replace("\n", "\\a ")
    return f"{quote}{body}{quote}"


def bare(value: str) -> str | None:
    """value as an unquoted url's body, escaping what must be; None when it cannot be."""
    out = ""
    for c in value:
        if c in "()'\"\\ ":
            out += "\\" + c
        elif c in "\t\n":
            return None
        else:
            out += c
    return out


@st.composite
def url_decl(draw, url):
    fn = draw(st.sampled_from(["url", "url", "URL", "Url"]))
    sp = draw(st.sampled_from(["", " ", "\n"]))
    quote = draw(st.sampled_from(['"', "'", ""]))
    if quote == "" and (b := bare(url)) is not None and not url.startswith("data:"):
        return f"{fn}({sp}{b}{sp})"
    body = css_string(url, quote or '"')
    return f"{fn}({sp}{body}{sp})"


NOISE = st.sampled_from(
    [
        "",
        "/* url(c.png) */",
        'a::before{content:"see url(x.png)"}',
        "b::after{content:'url(\"y.png\")'}",
        "c{background:myurl(k.png)}",
        "d{grid-area:a\\(b}",
        "@font-face{font-family:'F url(z)'}",
    ]
)


@st.composite
def stylesheets(draw):
    parts = []
    for k, url in enumerate(draw(st.lists(st.one_of(_relative, _other), min_size=1, max_size=4))):
        parts.append(draw(NOISE))
        parts.append(f"s{k}{{background:{draw(url_decl(url))}}}")
    parts.append(draw(NOISE))
    sheet_dir = draw(st.sampled_from(["/s/_static", "/s/_static/lib", "/s/_static/lib/math"]))
    page_dir = draw(st.sampled_from(["/s", "/s/chapters", "/s/a/b"]))
    return {"css": "\n".join(parts), "from": f"{sheet_dir}/x.css", "to": page_dir}


@PROPS
@given(stylesheets())
def test_rebased_urls_point_at_the_same_files(node, case):
    got = node({"op": "rebase", **case})
    assert "error" not in got, got
    urls0, rest0 = read_urls(case["css"])
    urls1, rest1 = read_urls(got["css"])
    sheet = case["from"]
    assert rest1 == rest0, (
        f"{sheet}: more than url()s changed:\n in  {case['css']}\n out {got['css']}"
    )
    assert len(urls1) == len(urls0), f"{sheet}: url()s {urls0} became {urls1}"
    for u0, u1 in zip(urls0, urls1):
        assert same_target(u0, u1, posixpath.dirname(sheet), case["to"]), (
            f"{sheet} inlined in {case['to']}: url {u0!r} became {u1!r}\n in  {case['css']}\n"
            f" out {got['css']}"
        )


@pytest.mark.parametrize(
    "css",
    [
        'a::before{content:"see url(x.png)"}',  # a string is not a url
        "b{background:URL(i.png)}",  # the function name in any case
        'c{background:url("a\\"b.png")}',  # an escaped quote in a quoted url
        "d{background:url(d\\).png)}",  # an escaped ")" in a bare url
    ],
)
def test_rebase_named_corners(node, css):
    """The corners the generator covers, named, so a regression on one reads plainly."""
    test_rebased_urls_point_at_the_same_files.hypothesis.inner_test(
        node, {"css": css, "from": "/s/_static/x.css", "to": "/s/chapters"}
    )


# ----------------------------------------------------------------------------- whole pages


class Head(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.styles, self.marks = [], [], 0
        self._style = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "link" and a.get("rel") == "stylesheet":
            self.links.append(a)
        if tag == "meta" and a.get("name") == "inlined-css":
            self.marks += 1
        if tag == "style":
            self._style = ""

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_data(self, data):
        if self._style is not None:
            self._style += data

    def handle_endtag(self, tag):
        if tag == "style" and self._style is not None:
            self.styles.append(self._style)
            self._style = None


def read_head(html: str) -> Head:
    h = Head()
    h.feed(html)
    h.close()
    return h


def inside_media(style: str, pos: int) -> bool:
    """Whether ``pos`` in a stylesheet lies inside an @media block."""
    for m in re.finditer(r"@media[^{]*\{", style[:pos]):
        depth = 1
        for c in style[m.end() : pos]:
            depth += (c == "{") - (c == "}")
            if depth == 0:
                break
        if depth > 0:
            return True
    return False


SHEET_NAMES = st.sampled_from(["a.css", "b c.css", "d&e.css", "lib/m.css", "lib/n%o.css"])


def href_of(rel: str) -> str:
    """How a page's link writes the path ``rel``: percent-encoded and HTML-escaped."""
    from urllib.parse import quote

    return quote(rel, safe="/").replace("&", "&amp;")


@st.composite
def sites(draw):
    page = draw(st.sampled_from(["index.html", "chapters/p.html", "a/b/q.html"]))
    sheets = draw(st.lists(SHEET_NAMES, min_size=1, max_size=3, unique=True))
    media = [
        draw(st.sampled_from([None, None, "all", "print", "screen and (min-width: 9px)"]))
        for _ in sheets
    ]
    missing = draw(st.sampled_from([None] * 4 + sheets))
    query = draw(st.sampled_from(["", "?v=1a2b", "?v=1&amp;x=2", "#f"]))
    return page, sheets, media, missing, query


@PROPS
@given(sites())
def test_inlined_page_keeps_every_rule_where_it_points(node, tmp_path_factory, site_case):
    """(The stylesheet names hold a space, "&" and "%": the links write them percent-encoded
    and HTML-escaped, as a URL in an attribute is written.)"""
    page, sheets, media, missing, query = site_case
    root = tmp_path_factory.mktemp("site")
    depth = page.count("/")
    up = "../" * depth
    links = []
    for k, (name, m) in enumerate(zip(sheets, media)):
        f = root / "_static" / name
        f.parent.mkdir(parents=True, exist_ok=True)
        if name != missing:
            f.write_text(f".r{k}{{background:url(img/i{k}.png)}}\n", encoding="utf8")
        attr = f' media="{m}"' if m else ""
        links.append(
            f'    <link rel="stylesheet" type="text/css" href="{up}_static/{href_of(name)}{query}"'
            f"{attr} />\n"
        )
    head = "".join(links)
    html = f"<!DOCTYPE html>\n<html>\n  <head>\n{head}  </head>\n<body><p>x</p></body></html>\n"
    (root / page).parent.mkdir(parents=True, exist_ok=True)
    file = str(root / page)
    got = node({"op": "inline", "html": html, "file": file, "site": str(root)})
    if missing:
        assert "error" in got, f"{page}: a missing stylesheet ({missing}) was not reported"
        assert page in got["error"] and missing.split("/")[-1].split("%")[0] in got["error"], got
        return
    assert "error" not in got, f"{page}: {got['error']}"
    out = got["html"]
    h = read_head(out)
    assert not h.links and h.marks == 1 and len(h.styles) == 1, f"{page}: head is\n{out}"
    style = h.styles[0]
    page_dir = posixpath.dirname(page)
    for k, (name, m) in enumerate(zip(sheets, media)):
        rule = re.search(rf"\.r{k}\{{background:url\(([^)]*)\)\}}", style)
        assert rule, f"{page}: the rule of _static/{name} is lost from\n{style}"
        url = rule.group(1).strip("\"'")
        want = posixpath.normpath(
            posixpath.join("_static", posixpath.dirname(name), f"img/i{k}.png")
        )
        assert posixpath.normpath(posixpath.join(page_dir, url)) == want, (
            f"{page}: _static/{name}'s url now {url}"
        )
        if m and m != "all":
            assert inside_media(style, rule.start()), (
                f"{page}: a media={m!r} stylesheet's rule is outside @media:\n{style}"
            )
    again = node({"op": "inline", "html": out, "file": file, "site": str(root)})
    assert again == {"html": out}, f"{page}: a second run changed the page"
