"""Writes _build/html/404.html: a "page not found" page in the book's own look.

Made from the built landing page (same header, navigation, styles and scripts), with its
article replaced by a short message and a link back to the start, and a <base href> so its
relative links work from whatever missing URL the server answers: the path of `html.baseurl`
in _config.yml when that is set (e.g. https://user.github.io/book/ -> /book/), else "/".
Static hosts (GitHub Pages, Netlify, `python -m http.server` does not) serve 404.html for
missing pages.

Usage: python web/make_404.py _build/html   (`make book` runs it)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[1]

MESSAGE = """
  <section id="page-not-found">
<h1>Page not found</h1>
<p>There is no page at this address. It may have moved when the chapters were renumbered,
or the link may have a typo.</p>
<p>Start again from <a href="intro.html">the first page of the book</a>, pick a chapter from
the navigation, or use the search.</p>
</section>
"""


def main(site: str) -> int:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf8"))
    baseurl = ((config.get("html") or {}).get("baseurl") or "").strip()
    base = urlsplit(baseurl).path if baseurl else "/"
    base = base if base.endswith("/") else base + "/"
    html = Path(site, "intro.html").read_text(encoding="utf8")
    html, n = re.subn(
        r'(<article class="bd-article">).*?(</article>)',
        lambda m: m.group(1) + MESSAGE + m.group(2),
        html,
        count=1,
        flags=re.S,
    )
    if n != 1:
        raise SystemExit('make_404: no <article class="bd-article"> in intro.html')
    html = re.sub(
        r"<title>.*?</title>",
        "<title>Page not found &#8212; Attention Scoring Functions</title>",
        html,
        count=1,
        flags=re.S,
    )
    # the landing page's explorer preview: its saved state and loader are not needed here
    html = re.sub(
        r'\s*<script type="application/vnd.jupyter.widget-state\+json">.*?</script>',
        "",
        html,
        flags=re.S,
    )
    html = re.sub(r'\s*<script type="module" src="[^"]*explorer-boot.js[^"]*"></script>', "", html)
    html = re.sub(r'\s*<link rel="stylesheet" href="[^"]*explorer\.css[^"]*" />', "", html)
    html = re.sub(r'\s*<link rel="canonical"[^>]*>', "", html)
    html = html.replace("<head>", f'<head>\n    <base href="{base}">', 1)
    Path(site, "404.html").write_text(html, encoding="utf8")
    print(f"make_404: wrote {Path(site, '404.html')} (base {base})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "_build/html"))
