"""The theme extension (web/theme/attnbook/__init__.py) over generated tables of contents, file
paths and configurations, against oracles written here:

- ``page_toc``: a local toc generated as a tree (one or more top-level headings, sections nested
  three deep, titles holding escapes, markup and maths) and written the way Sphinx writes it;
  the result, read back with html.parser, must be the tree's sections below the page title:
  the first heading's sections, then the other top-level headings with theirs, nothing lost,
  nothing added, one well-formed <ul> (or "" when there is nothing);
- ``launch_links``: for any notebook path and branch (spaces, "#", "?", "&", "%", quotes,
  non-ASCII), the Binder link's ``urlpath`` query parameter, decoded by urllib, is the
  notebook's path in the interface, and the Colab link's path, decoded, ends with it; no
  fragment, one query parameter;
- ``_github_repo``: "owner/name" for a github.com URL in any letter case, with or without a
  port, ".git" or a trailing slash; None for anything else;
- the page context: the download link, decoded, is ``_sources/<source>``; ``attn_base`` is the
  path of html_baseurl ending in "/".

A failure names the generated input (the page's toc, the file path).
"""

from __future__ import annotations

import importlib.util
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from _depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "attnbook_theme", ROOT / "web" / "theme" / "attnbook" / "__init__.py"
)
theme = importlib.util.module_from_spec(_spec)
sys.modules["attnbook_theme"] = theme
_spec.loader.exec_module(theme)

PROPS = settings(
    derandomize=True,
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# ----------------------------------------------------------------------------- tables of contents

TITLE = st.sampled_from(
    [
        "Scores",
        "a &amp; b",
        "x &lt; y",
        '<code class="docutils literal"><span class="pre">&lt;/ul&gt;</span></code>',
        '<span class="math notranslate nohighlight">\\(q^\\top k\\)</span>',
        "<math><mi>x</mi></math>",
        "&lt;/li&gt;&lt;/ul&gt;",
        "\u00e9t\u00e9 \u2192",
        "",
    ]
)


def _toc_tree(depth: int):
    if depth == 0:
        return st.just([])
    return st.lists(st.tuples(TITLE, _toc_tree(depth - 1)), max_size=3)


@st.composite
def tocs(draw):
    """(toc html, the tree) where the tree is [(title, href, children)]."""
    counter = iter(range(1000))

    def label(entries):
        return [(t, f"#s{next(counter)}", label(kids)) for t, kids in entries]

    top = draw(st.lists(st.tuples(TITLE, _toc_tree(3)), min_size=1, max_size=3))
    tree = label(top)
    nl = draw(st.sampled_from(["\n", "", "\n  "]))

    def write(entries, outer=False):
        items = "".join(
            f'<li><a class="reference internal" href="{"#" if outer and k == 0 else href}">'
            f"{title}</a>{write(kids) if kids else ''}</li>{nl}"
            for k, (title, href, kids) in enumerate(entries)
        )
        return f"<ul>{nl}{items}</ul>{nl}"

    return write(tree, outer=True), tree


class TocReader(HTMLParser):
    """A toc's <ul>/<li>/<a> structure: [(title html-text, href, children)]."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.root: list = []
        self.stack = [self.root]
        self.uls = 0
        self.top_uls = 0
        self.in_a = None
        self.other = []

    def handle_starttag(self, tag, attrs):
        if tag == "ul":
            if self.uls == 0:
                self.top_uls += 1
            self.uls += 1
            if self.stack[-1] is not self.root or self.uls > 1:
                entry = self.stack[-1][-1] if self.stack[-1] else None
                if entry is None:
                    self.other.append("a <ul> with no <li> to hold it")
                    return
                self.stack.append(entry[2])
        elif tag == "li":
            self.stack[-1].append(["", None, []])
        elif tag == "a" and self.in_a is None and dict(attrs).get("class") == "reference internal":
            self.in_a = self.stack[-1][-1]
            self.in_a[1] = dict(attrs)["href"]
        elif self.in_a is not None:
            self.in_a[0] += self.get_starttag_text()

    def handle_endtag(self, tag):
        if tag == "ul":
            self.uls -= 1
            if self.uls > 0:
                self.stack.pop()
        elif tag == "a" and self.in_a is not None and tag == "a":
            self.in_a = None
        elif self.in_a is not None:
            self.in_a[0] += f"</{tag}>"

    def handle_data(self, data):
        if self.in_a is not None:
            self.in_a[0] += data
        elif data.strip():
            self.other.append(data)

    def handle_entityref(self, name):
        self.handle_data(f"&{name};")

    def handle_charref(self, name):
        self.handle_data(f"&#{name};")


def read_toc(html: str):
    r = TocReader()
    r.feed(html)
    r.close()
    assert r.uls == 0, f"unbalanced <ul>s in {html!r}"
    return r


def as_lists(entries):
    return [[t, h, as_lists(k)] for t, h, k in entries]


@PROPS
@given(tocs())
def test_page_toc_is_the_sections_below_the_title(case):
    toc, tree = case
    got = theme.page_toc(toc)
    first, *rest = tree
    want = as_lists(first[2] + rest)
    if not want:
        assert got == "", f"page toc {got!r} for a page with no sections; toc {toc!r}"
        return
    r = read_toc(got)
    assert r.top_uls == 1 and not r.other, f"not one <ul> of sections: {got!r}"
    assert r.root == want, f"sections differ for the toc\n {toc!r}\n got {got!r}"


@pytest.mark.parametrize(
    "toc",
    [
        '<ul><li><a class="reference internal" href="#">T</a><ul><li><a class="reference internal"'
        ' href="#a">A</a></li></ul></li><li><a class="reference internal" href="#u">U</a>'
        '<ul><li><a class="reference internal" href="#b">B</a></li></ul></li></ul>',
        '<ul><li><a class="reference internal" href="#">T</a></li><li>'
        '<a class="reference internal" href="#u">U</a></li></ul>',
    ],
)
def test_page_toc_keeps_a_second_top_level_heading(toc):
    """Named corners: a page with two top-level headings (MyST allows it)."""
    got = read_toc(theme.page_toc(toc))
    assert got.top_uls == 1 and "#u" in [e[1] for e in got.root], theme.page_toc(toc)


def test_page_toc_of_nothing():
    assert theme.page_toc("") == ""


# ----------------------------------------------------------------------------- file paths

PATH_CHAR = st.sampled_from(list("ab_-. #?&%=+'\"<>\u00e9\u2192") + ["%20", "/"])
SEGMENT = (
    st.lists(PATH_CHAR, min_size=1, max_size=6)
    .map("".join)
    .filter(lambda s: s.strip("/") and s not in (".", ".."))
)


@st.composite
def notebook_paths(draw):
    parts = draw(st.lists(SEGMENT, min_size=1, max_size=3))
    path = "/".join(p.strip("/") for p in parts if p.strip("/"))
    return path + ".ipynb"


BRANCH = st.sampled_from(["main", "gh-pages", "feat/x", "a#b", "a&b", "v1.0"])


@PROPS
@given(notebook_paths(), BRANCH, st.sampled_from(["", "book", "/docs/"]), st.booleans())
def test_launch_links_carry_the_path_whatever_it_holds(source, branch, docs, lab):
    opts = {
        "repository_url": "https://github.com/o/r",
        "repository_branch": branch,
        "path_to_docs": docs,
        "launch_buttons": {
            "binderhub_url": "https://mybinder.org/",
            "colab_url": "https://colab.research.google.com",
            "notebook_interface": "jupyterlab" if lab else "classic",
        },
    }
    path = f"{docs.strip('/')}/{source}" if docs.strip("/") else source
    links = {link["label"]: link["href"] for link in theme.launch_links(opts, source)}
    assert set(links) == {"Binder", "Colab"}, (source, links)
    binder = urlsplit(links["Binder"])
    assert binder.fragment == "", f"{source}: the Binder link has a fragment: {links['Binder']}"
    query = parse_qs(binder.query, keep_blank_values=True)
    ui = "lab/tree" if lab else "tree"
    assert query == {"urlpath": [f"{ui}/{path}"]}, f"{source}: Binder urlpath {query}"
    assert unquote(binder.path) == f"/v2/gh/o/r/{branch}", f"{source}: {binder.path}"
    colab = urlsplit(links["Colab"])
    assert colab.query == "" and colab.fragment == "", f"{source}: {links['Colab']}"
    assert unquote(colab.path) == f"/github/o/r/blob/{branch}/{path}", f"{source}: {colab.path}"
    for href in links.values():
        assert not any(c in href for c in ' "<>'), f"{source}: unencoded character in {href}"


@pytest.mark.parametrize(
    ("url", "repo"),
    [
        ("https://github.com/o/r", "o/r"),
        ("https://GitHub.com/o/r/", "o/r"),
        ("https://github.com:443/o/r.git", "o/r"),
        ("http://github.com/o/r", "o/r"),
        ("https://github.com/o", None),
        ("https://github.com/o/r/tree/main", None),
        ("https://gitlab.com/o/r", None),
        ("https://github.com.evil.org/o/r", None),
        ("", None),
    ],
)
def test_github_repo(url, repo):
    assert theme._github_repo(url) == repo, url


def _context(source: str, baseurl: str) -> dict:
    app = SimpleNamespace(config=SimpleNamespace(author="A", html_baseurl=baseurl))
    context = {"sourcename": source, "toc": "", "theme_repository_url": ""}
    theme._page_context(app, "page", "page.html", context, doctree=object())
    return context


@PROPS
@given(notebook_paths(), st.sampled_from(["", "https://x.org", "https://x.org/b", "/b/c/"]))
def test_page_context_paths(source, baseurl):
    ctx = _context(source, baseurl)
    href = ctx["attn_download"]["href"]
    parts = urlsplit(href)
    assert parts.query == "" and parts.fragment == "", f"{source}: download link {href}"
    assert unquote(parts.path) == f"_sources/{source}", f"{source}: download link {href}"
    assert ctx["attn_download"]["label"] == ".ipynb"
    base = ctx["attn_base"]
    want = urlsplit(baseurl).path if baseurl else "/"
    assert base.startswith("/") or not want, base
    assert base == (want if want.endswith("/") else want + "/"), (baseurl, base)
