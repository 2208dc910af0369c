"""attnbook: the book's own Sphinx theme, the page shell every page of the book is drawn in.

Registered by this extension (``_config.yml``: ``sphinx.local_extensions`` puts ``web/theme`` on
the path, ``html_theme: attnbook`` picks it). The templates, CSS and JavaScript are in this
folder; ``web/theme/CONTRACT.md`` lists the markup the explorers and the tests rely on, and
``tests/book/test_theme_contract.py`` checks the built pages carry it.

What the extension adds to each page's template context (``html-page-context``):

- ``attn_nav``: the chapter list (Sphinx's ``toctree()``, one level), the reader's page marked
  ``aria-current="page"``;
- ``attn_page_toc``: "on this page", the page's sections below its title (two levels), then any
  other top-level heading with its sections, or "";
- ``attn_launch``: plain links (paths percent-encoded) that open the chapter's notebook on
  Binder and Colab (nothing is fetched from them until a reader clicks), for pages built from
  a notebook;
- ``attn_download``: the page's source file (``_sources/...``: the notebook for a chapter);
- ``attn_author``: the book's author (``_config.yml``), for the footer;
- ``attn_base``: the site's path ("/" or html_baseurl's path), for the 404 page's ``<base>``.

At the end of the build it writes ``_static/pygments.css`` with the code colours of both modes,
each scoped to ``html[data-theme=...]`` (Sphinx writes one style there; the page's mode picks):
a11y-light and a11y-dark (accessible-pygments), both designed for WCAG AA contrast.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urlsplit

from sphinx.application import Sphinx

THEME_DIR = Path(__file__).resolve().parent
LIGHT_CODE, DARK_CODE = "a11y-light", "a11y-dark"

_CURRENT_LINK = re.compile(r'(<a class="current reference internal")')


def _github_repo(url: str) -> str | None:
    """'https://github.com/org/repo(.git)' -> 'org/repo'; None for anything else."""
    parts = urlsplit(url or "")
    if parts.hostname != "github.com":
        return None
    path = parts.path.strip("/").removesuffix(".git")
    return path if path.count("/") == 1 else None


def launch_links(options: dict, source: str) -> list[dict]:
    """Binder and Colab links for the notebook ``source`` (its path in the book's folder).
    The path and the branch are percent-encoded: a file name may hold a space, "#", "?" or "&".

    >>> opts = {"repository_url": "https://github.com/o/r", "repository_branch": "main",
    ...         "path_to_docs": "", "launch_buttons": {"binderhub_url": "https://mybinder.org",
    ...         "colab_url": "https://colab.research.google.com",
    ...         "notebook_interface": "jupyterlab"}}
    >>> for link in launch_links(opts, "chapters/01.ipynb"):
    ...     print(link["href"])
    https://mybinder.org/v2/gh/o/r/main?urlpath=lab/tree/chapters/01.ipynb
    https://colab.research.google.com/github/o/r/blob/main/chapters/01.ipynb
    >>> launch_links(opts, "intro.md")
    []
    """
    repo = _github_repo(options.get("repository_url", ""))
    buttons = options.get("launch_buttons") or {}
    if not repo or not source.endswith(".ipynb") or not isinstance(buttons, dict):
        return []
    branch = quote(options.get("repository_branch") or "main", safe="")
    docs = (options.get("path_to_docs") or "").strip("/")
    path = f"{docs}/{source}" if docs else source
    links = []
    binder = (buttons.get("binderhub_url") or "").rstrip("/")
    if binder:
        ui = "lab/tree" if buttons.get("notebook_interface") == "jupyterlab" else "tree"
        urlpath = quote(f"{ui}/{path}", safe="/")
        links.append(
            {
                "label": "Binder",
                "title": "Open this chapter's notebook on Binder (mybinder.org)",
                "href": f"{binder}/v2/gh/{repo}/{branch}?urlpath={urlpath}",
            }
        )
    colab = (buttons.get("colab_url") or "").rstrip("/")
    if colab:
        links.append(
            {
                "label": "Colab",
                "title": "Open this chapter's notebook on Google Colab",
                "href": f"{colab}/github/{repo}/blob/{branch}/{quote(path, safe='/')}",
            }
        )
    return links


class _TopItems(HTMLParser):
    """The spans of the top-level <li>s of a toc's outer <ul>, and of the <ul> inside the
    first one (offsets into the source; Sphinx writes the toc well formed)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.text = text
        self.lines = [0]
        for line in text.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.depth = 0  # open <ul>/<li> elements
        self.items: list[list[int]] = []  # [start, end] of each top-level <li>
        self.first_inner: list[int] = []  # [start, end] of the first <li>'s own <ul>

    def _at(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def handle_starttag(self, tag, attrs):
        if tag not in ("ul", "li"):
            return
        if tag == "li" and self.depth == 1:
            self.items.append([self._at(), -1])
        if tag == "ul" and self.depth == 2 and len(self.items) == 1 and not self.first_inner:
            self.first_inner = [self._at(), -1]
        self.depth += 1

    def handle_endtag(self, tag):
        if tag not in ("ul", "li"):
            return
        self.depth -= 1
        end = self._at() + len(f"</{tag}>")
        if tag == "li" and self.depth == 1:
            self.items[-1][1] = end
        if tag == "ul" and self.depth == 2 and len(self.items) == 1 and self.first_inner:
            self.first_inner[1] = end if self.first_inner[1] < 0 else self.first_inner[1]


def page_toc(toc: str) -> str:
    """The page's sections without the page title: Sphinx's local toc is a <ul> whose first <li>
    is the title, holding a <ul> of the sections; a page with more than one top-level heading
    has more <li>s after it. This returns one <ul> of the title's sections and then those
    other headings (each with its own sections), or "" when there are none.

    >>> page_toc('<ul><li><a href="#">T</a><ul><li><a href="#a">A</a></li></ul></li></ul>')
    '<ul><li><a href="#a">A</a></li></ul>'
    >>> page_toc('<ul><li><a href="#">T</a></li></ul>')
    ''
    >>> page_toc('<ul><li><a href="#">T</a></li><li><a href="#u">U</a></li></ul>')
    '<ul><li><a href="#u">U</a></li></ul>'
    """
    p = _TopItems(toc)
    p.feed(toc)
    p.close()
    if not p.items or any(end < 0 for _, end in p.items):
        return ""
    if len(p.items) == 1:  # the usual page: the title's own <ul>, as Sphinx wrote it
        return toc[p.first_inner[0] : p.first_inner[1]].strip() if p.first_inner else ""
    parts = []
    if p.first_inner and p.first_inner[1] > 0:
        inner = toc[p.first_inner[0] : p.first_inner[1]]
        parts.append(inner[inner.index(">") + 1 : inner.rindex("</ul>")].strip())
    parts += [toc[a:b] for a, b in p.items[1:]]
    body = "\n".join(part for part in parts if part)
    return f"<ul>{body}</ul>" if body else ""


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    toctree = context.get("toctree")
    if toctree is not None:
        nav = toctree(maxdepth=1, collapse=False, includehidden=True, titles_only=True)
        context["attn_nav"] = _CURRENT_LINK.sub(r'\1 aria-current="page"', nav, count=1)
    else:
        context["attn_nav"] = ""
    context["attn_page_toc"] = page_toc(context.get("toc") or "") if doctree else ""
    source = context.get("sourcename") or ""  # e.g. "chapters/03_masked_softmax.ipynb"
    options = {
        key.removeprefix("theme_"): value
        for key, value in context.items()
        if key.startswith("theme_")
    }
    context["attn_launch"] = launch_links(options, source)  # [] unless a notebook
    context["attn_download"] = (
        {"href": f"_sources/{quote(source, safe='/')}", "label": Path(source).suffix or "source"}
        if source and doctree
        else None
    )
    context["attn_author"] = app.config.author or ""
    baseurl = app.config.html_baseurl or ""
    base = urlsplit(baseurl).path if baseurl else "/"
    context["attn_base"] = base if base.endswith("/") else base + "/"


def _write_code_colours(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    from pygments.formatters import HtmlFormatter

    css = ["/* Code colours of both modes (web/theme/attnbook/__init__.py). */"]
    for mode, style in (("light", LIGHT_CODE), ("dark", DARK_CODE)):
        scope = f'html[data-theme="{mode}"] .highlight'
        css.append(HtmlFormatter(style=style).get_style_defs(scope))
    Path(app.outdir, "_static", "pygments.css").write_text("\n".join(css) + "\n", encoding="utf8")


def setup(app: Sphinx) -> dict:
    app.add_html_theme("attnbook", str(THEME_DIR))
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _write_code_colours)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
