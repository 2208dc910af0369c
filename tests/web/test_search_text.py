"""web/search-text.mjs, the search page's text copies, and how Sphinx's own searchtools.js
finds them.

- Sphinx's searchtools.js, unchanged, fetches a hit's snippet text from
  ``data-content_root + docName + FILE_SUFFIX``; the theme's search page points that root at
  _search/ (web/theme/attnbook/search.html). The first test checks the installed Sphinx still
  builds the URL that way: if a newer Sphinx does not, the snippets would read whole pages.
- The text copy of a page keeps every text node of [role=main] in order and only the elements
  with an id, so the text of the whole and of each anchor is unchanged; on HTML with the
  parser's corner cases (a <pre>'s first newline, <template>, entities, MathML, nested ids,
  script/style/.headerlink removed) the copy, parsed again, gives the expected text.

tests/browser/theme/test_search.py checks the same on the built pages, in Chromium, with
Sphinx's own htmlToText and makeSearchSummary. Locally these skip when Node or
web/node_modules is missing (``make test`` installs them); with CI=true they fail instead.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import sphinx
from _chromium import unavailable

ROOT = Path(__file__).resolve().parents[2]
SEARCHTOOLS = Path(sphinx.__file__).parent / "themes" / "basic" / "static" / "searchtools.js"


def _node(script: str, stdin: str) -> subprocess.CompletedProcess:
    node = shutil.which("node")
    if node is None:
        unavailable("node is not installed")
    if not (ROOT / "web" / "node_modules" / "parse5").is_dir():
        unavailable("web/node_modules/parse5 is missing (cd web && npm ci)")
    return subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=stdin,
        cwd=ROOT / "web",
        capture_output=True,
        text=True,
    )


def test_sphinx_fetches_snippets_from_the_content_root():
    js = SEARCHTOOLS.read_text(encoding="utf8")
    assert "const contentRoot = document.documentElement.dataset.content_root;" in js
    assert js.count("requestUrl = contentRoot + docName + docFileSuffix;") == 1
    theme = (ROOT / "web" / "theme" / "attnbook" / "search.html").read_text(encoding="utf8")
    assert '{%- set attn_search_root = "_search/" %}' in theme
    layout = (ROOT / "web" / "theme" / "attnbook" / "layout.html").read_text(encoding="utf8")
    assert "data-content_root=\"{{ content_root }}{{ attn_search_root|default('') }}\"" in layout


REDUCE = """
import { searchText } from "./search-text.mjs";
let html = "";
for await (const c of process.stdin) html += c;
try { process.stdout.write(searchText(html, "test.html")); }
catch (e) { console.error(e.message); process.exit(3); }
"""

PAGE = """<!DOCTYPE html><html><head><title>T</title><style>p{}</style></head><body>
<nav>outside</nav>
<main id="main-content" role="main"><h1 id="top">Title<a class="headerlink" href="#top">#</a></h1>
<section id="s1"><p>a &amp; b &lt; c<script>var x = "<p>";</script></p>
<pre>
first line</pre><template><p>in a template</p></template>
<math><mi>x</mi><annotation encoding="application/x-tex">x</annotation></math>
<section id="s2"><p>inner <b>bold</b></p></section></section></main>
<footer>after</footer></body></html>"""


def test_text_copy_keeps_text_and_anchors():
    r = _node(REDUCE, PAGE)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert '<div role="main">' in out and "outside" not in out and "after" not in out
    # the ids of [role=main]'s descendants stay, nested (not main's own); nothing else does
    assert out.count("<div id=") == 3 and '<div id="s1">' in out and '<div id="s2">' in out
    for gone in (
        "<p>",
        "<section",
        "<b>",
        "<math",
        "<pre",
        "headerlink",
        "var x",
        "in a template",
        "#</",
    ):
        assert gone not in out, gone
    main = out[out.index('<div role="main">') :]
    # what textContent gives (entities decoded, <pre>'s first newline dropped by the parser)
    assert "a &amp; b &lt; c" in main  # escaped again in the copy
    assert ">Title</div>" in main and "c\nfirst line" in main and "c\n\nfirst line" not in main
    assert "inner bold" in main and "xx" in main


def test_text_copy_fails_without_main():
    r = _node(REDUCE, "<html><body><div>no main here</div></body></html>")
    assert r.returncode == 3 and 'no [role="main"] element' in r.stderr, r.stderr


def test_text_copy_keeps_characters_that_need_care():
    text = "<b> & &amp; \u00a0 \u2192 x<y"
    escaped = text.replace("&", "&amp;").replace("<", "&lt;")
    page = f'<html><body><div role="main"><p id="p">{escaped}</p></div></body></html>'
    r = _node(REDUCE, page)
    assert r.returncode == 0, r.stderr
    assert '<div id="p">&lt;b> &amp; &amp;amp; \u00a0 \u2192 x&lt;y</div>' in r.stdout
