"""Property-based tests of the book's build scripts over generated HTML (hypothesis drives one
Node process; the oracles are in web/test-build-props.mjs, written apart from the scripts):

- web/search-text.mjs: the text copy of a page gives, read as Sphinx's search reads it
  (htmlToText: DOMParser, .headerlink/script/style removed, textContent of [role=main] and of
  each anchor), the same text as the page itself, or the script refuses the page (never a
  different text);
- web/inline-css.mjs: a stylesheet's url()s, rebased for the page it is inlined into, point
  at the same files from the page's folder as they did from the stylesheet's (a data: or
  absolute URL, which may hold url(...) and quotes of its own, is left as it was).

The pages mix nested SVG and MathML (foreignObject, annotation-xml), <script>/<style> in the
HTML, SVG and MathML namespaces, entities, odd attribute spacing and quoting, <template>,
<pre>'s first newline, comments, quirks mode (no doctype) and empty pages. Runs in the unit
step of ``make test``; with CI=true a missing Node or web/node_modules fails instead of skipping.
"""

from __future__ import annotations

import pytest
from _depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# ----------------------------------------------------------------------------- generated HTML

CLASS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,6}", fullmatch=True) | st.sampled_from(
    ["headerlink", "HeaderLink", "a:b", "x/y", "n1", "é", "math"]
)
WORD = st.sampled_from(
    [
        "attention",
        "q·k",
        "&amp;",
        "&lt;b&gt;",
        "&nbsp;",
        "&#x41;",
        "&copy",
        "a&b",
        "<",
        "2 > 1",
        "]]>",
        "--",
        "\u00a0",
        "x\ty",
        "\r\n",
        "\n",
        " ",
        "",
        "é",
        "&notit;",
        "$x$",
    ]
)
SP = st.sampled_from([" ", "  ", "\n", "\t", " \n "])


@st.composite
def attrs(draw, classes=True):
    out = []
    if classes and draw(st.booleans()):
        cls = draw(st.lists(CLASS, min_size=1, max_size=3))
        sep = draw(st.sampled_from([" ", "\t", "\n", "  ", "&#32;", "&#x9;"]))
        value = sep.join(cls)
        name = draw(st.sampled_from(["class", "CLASS", "Class"]))
        eq = draw(st.sampled_from(["=", " = ", "=\n", "\t=\t"]))
        quote = draw(st.sampled_from(['"', "'", ""])) if " " not in value else '"'
        if quote == "" and any(ch in value for ch in " \t\n&'\"=<>`"):
            quote = '"'
        out.append(f"{name}{eq}{quote}{value}{quote}")
    if draw(st.booleans()):
        out.append(f'id="{draw(st.sampled_from(["s1", "s2", "x", "sec-a"]))}"')
    if draw(st.booleans()):
        out.append(draw(st.sampled_from(["hidden", 'data-x=">"', "title='a>b'", "role=note"])))
    if not out:
        return ""
    glue = draw(st.sampled_from([" ", "\n", "\t", "  "]))
    return draw(SP) + glue.join(out)


TAGS = ["p", "div", "span", "em", "a", "section", "h2", "code", "pre", "table", "li", "template"]


def tree(depth: int):
    leaf = WORD
    if depth == 0:
        return leaf
    sub = tree(depth - 1)

    @st.composite
    def node(draw):
        kind = draw(st.sampled_from(["html", "html", "svg", "math", "script", "style", "comment"]))
        body = "".join(draw(st.lists(sub, max_size=3)))
        a = draw(attrs())
        if kind == "html":
            t = draw(st.sampled_from(TAGS))
            if t == "pre":
                body = draw(st.sampled_from(["\n", "", "\n\n"])) + body
            return f"<{t}{a}>{body}</{t}>"
        if kind == "svg":
            inner = draw(
                st.sampled_from(
                    [
                        f"<text{a}>{body}</text>",
                        f"<script{a}>var s = 'svg script'; {body}</script>",
                        f"<style{a}>.c{{fill:red}} {body}</style>",
                        f"<foreignObject><p{a}>{body}</p></foreignObject>",
                        f"<g{a}><title>t</title>{body}</g>",
                        f"<desc>{body}</desc>",
                    ]
                )
            )
            return f"<svg{draw(attrs())}>{inner}</svg>"
        if kind == "math":
            inner = draw(
                st.sampled_from(
                    [
                        f"<mi{a}>{body}</mi>",
                        f"<script{a}>math script {body}</script>",
                        f"<style{a}>math style</style>",
                        f'<semantics><mrow{a}>{body}</mrow><annotation-xml encoding="text/html">'
                        f"<span{a}>{body}</span></annotation-xml></semantics>",
                        f"<mtext><b{a}>{body}</b></mtext>",
                    ]
                )
            )
            return f"<math{draw(attrs())}>{inner}</math>"
        if kind == "script":
            typ = draw(st.sampled_from(["", ' type="text/x-data"', " type='module'"]))
            return f"<script{typ}{a}>var x = '{body.replace('</', '')}';</script>"
        if kind == "style":
            return f"<style{a}>.k {{ color: red }}</style>"
        return f"<!-- {body.replace('--', '')} -->"

    return node() | leaf


@st.composite
def pages(draw):
    doctype = draw(st.sampled_from(["<!DOCTYPE html>", "<!doctype html>", ""]))
    if draw(st.integers(0, 9)) == 0:  # an empty page, or one without a main text
        return doctype + draw(st.sampled_from(["", "<p>no main</p>", "<html></html>"]))
    parts = "".join(draw(st.lists(tree(2), max_size=4)))
    main_tag = draw(st.sampled_from(["main", "div", "article"]))
    main = f'<{main_tag} role="main"{draw(attrs())}>{parts}</{main_tag}>'
    before = "".join(draw(st.lists(tree(1), max_size=2)))
    head = draw(st.sampled_from(["", "<head><title>t</title><style>.h{}</style></head>"]))
    return f"{doctype}<html>{head}<body{draw(attrs())}>{before}{main}</body></html>"


PROPS = settings(
    derandomize=True,
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@PROPS
@given(pages())
def test_search_text_reads_as_the_page(node, html):
    r = node(html)["search"]
    if r.get("refused"):
        # refusing is allowed only for a page the search could not read either
        assert not r["has_main"], f"refused a page with a main text: {r['error']}"
        return
    assert r.get("bad") is None, r
    assert r["main_equal"], f"text differs:\n want {r['want']!r}\n got  {r['got']!r}"
    assert not r["anchors_differ"], f"anchors' text differs: {r['anchors_differ']}"


# url()s as stylesheets write them: relative paths up and down, quoted or bare, and data: and
# absolute URLs that hold url(...) and quotes of the other kind
_segment = st.sampled_from(["fonts", "img", "..", ".", "a b", "x-1", "lib"])
_relative = st.builds(
    lambda parts, name: "/".join([*parts, name]),
    st.lists(_segment, max_size=3),
    st.sampled_from(["f.woff2", "i.png", "s.svg", "x"]),
)
_data = st.sampled_from(
    [
        "data:image/svg+xml,<svg marker-end='url(%23a)'/>",
        "data:image/png;base64,AAAA",
        "https://example.org/x.png",
        "/abs/x.png",
        "#frag",
    ]
)


@st.composite
def stylesheets(draw):
    decls = []
    for url in draw(st.lists(st.one_of(_relative, _data), min_size=1, max_size=5)):
        quote = draw(st.sampled_from(['"', "'", ""]))
        if quote == "" and any(c in url for c in " '\"()"):
            quote = '"' if '"' not in url else "'"
        if quote and quote in url:
            quote = '"' if quote == "'" else "'"
        space = draw(st.sampled_from(["", " "]))
        decls.append(f"a{len(decls)}{{background:url({space}{quote}{url}{quote}{space})}}")
    sheet_dir = draw(st.sampled_from(["/s/_static", "/s/_static/lib", "/s/_static/lib/math"]))
    page_dir = draw(st.sampled_from(["/s", "/s/chapters", "/s/a/b"]))
    return {"css": "\n".join(decls), "from": f"{sheet_dir}/x.css", "to": page_dir}


@PROPS
@given(stylesheets())
def test_inlined_css_points_at_the_same_files(node, case):
    r = node(case)
    assert "count" not in r, f"url() count changed: {r}"
    assert not r["wrong"], f"url()s that point elsewhere after inlining: {r['wrong']}"


@pytest.mark.parametrize(
    "html",
    [
        "",
        '<div role="main"></div>',
        '<div role="main"><svg><script>svg</script><style>s</style></svg>t</div>',
        '<div role="main"><math><script>m</script><mi>x</mi></math></div>',
        '<p   CLASS = "a\tb"  id=x>p</p><p id="y"class="c">q</p><div role="main">z</div>',
        '<div role="main"><p class="a&#32;b">x</p><span class=\'c&amp;d\'>y</span></div>',
    ],
)
def test_named_corner_cases(node, html):
    """The corners the generator covers, named, so a regression on one reads plainly."""
    test_search_text_reads_as_the_page.hypothesis.inner_test(node, html)
