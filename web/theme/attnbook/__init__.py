"""attnbook: the book's own Sphinx theme, the page shell every page of the book is drawn in.

Registered by this extension (``_config.yml``: ``sphinx.local_extensions`` puts ``web/theme`` on
the path, ``html_theme: attnbook`` picks it). The templates, CSS and JavaScript are in this
folder; ``web/theme/CONTRACT.md`` lists the markup the explorers and the tests rely on, and
``tests/book/test_theme_contract.py`` checks the built pages carry it.

What the extension adds to each page's template context (``html-page-context``):

- ``attn_nav``: the chapter list (Sphinx's ``toctree()``, one level), the reader's page marked
  ``aria-current="page"``;
- ``attn_page_toc``: "on this page", the page's sections below its title (two levels), or "";
- ``attn_launch``: plain links that open the chapter's notebook on Binder and Colab (nothing is
  fetched from them until a reader clicks), for pages built from a notebook;
- ``attn_download``: the page's source file (``_sources/...``: the notebook for a chapter);
- ``attn_author``: the book's author (``_config.yml``), for the footer;
- ``attn_base``: the site's path ("/" or html_baseurl's path), for the 404 page's ``<base>``.

At the end of the build it writes ``_static/pygments.css`` with the code colours of both modes,
each scoped to ``html[data-theme=...]`` (Sphinx writes one style there; the page's mode picks):
a11y-light and a11y-dark (accessible-pygments), both designed for WCAG AA contrast.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from sphinx.application import Sphinx

THEME_DIR = Path(__file__).resolve().parent
LIGHT_CODE, DARK_CODE = "a11y-light", "a11y-dark"

_CURRENT_LINK = re.compile(r'(<a class="current reference internal")')


def _github_repo(url: str) -> str | None:
    """'https://github.com/org/repo(.git)' -> 'org/repo'; None for anything else."""
    parts = urlsplit(url or "")
    if parts.netloc != "github.com":
        return None
    path = parts.path.strip("/").removesuffix(".git")
    return path if path.count("/") == 1 else None


def launch_links(options: dict, source: str) -> list[dict]:
    """Binder and Colab links for the notebook ``source`` (its path in the book's folder).

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
    branch = options.get("repository_branch") or "main"
    docs = (options.get("path_to_docs") or "").strip("/")
    path = f"{docs}/{source}" if docs else source
    links = []
    binder = (buttons.get("binderhub_url") or "").rstrip("/")
    if binder:
        ui = "lab/tree" if buttons.get("notebook_interface") == "jupyterlab" else "tree"
        links.append(
            {
                "label": "Binder",
                "title": "Open this chapter's notebook on Binder (mybinder.org)",
                "href": f"{binder}/v2/gh/{repo}/{branch}?urlpath={ui}/{path}",
            }
        )
    colab = (buttons.get("colab_url") or "").rstrip("/")
    if colab:
        links.append(
            {
                "label": "Colab",
                "title": "Open this chapter's notebook on Google Colab",
                "href": f"{colab}/github/{repo}/blob/{branch}/{path}",
            }
        )
    return links


def page_toc(toc: str) -> str:
    """The page's sections without the page title: Sphinx's local toc is one <li> (the title)
    holding a <ul> of the sections; this returns that inner <ul>, or "" when there is none.

    >>> page_toc('<ul><li><a href="#">T</a><ul><li><a href="#a">A</a></li></ul></li></ul>')
    '<ul><li><a href="#a">A</a></li></ul>'
    >>> page_toc('<ul><li><a href="#">T</a></li></ul>')
    ''
    """
    start = toc.find("<ul", toc.find("</a>"))
    end = toc.rfind("</li>")
    if start < 0 or end < start:
        return ""
    return toc[start:end].strip()


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
        {"href": f"_sources/{source}", "label": Path(source).suffix or "source"}
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
