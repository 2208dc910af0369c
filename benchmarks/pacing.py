"""How each page of the built book is paced on a phone (390 x 844): one row per page.

Columns, in phone screens (devtools/_pacing.py says how each is measured): the page's length
(the article, exercises included), where its first picture starts, its longest run without a
picture, and the number of pictures; then every run over 2.5 screens with its section. Rows
marked "miss" are over a target of issue 39 (length <= 20, first picture <= 1.5, run <= 4);
`tests/browser/reading/test_pacing.py` holds the chapters to them.

Usage: .venv/bin/python benchmarks/pacing.py [--pages chapters/01_queries_keys_values.html ...]
[--json FILE] (`make book` first).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "devtools")]

from _chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from _pacing import PHONE, failures, pacing  # noqa: E402
from _pages import SITE, book_pages, wake_explorers  # noqa: E402
from _serve import serve  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", nargs="*", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    pages = args.pages or book_pages()
    rows = {}
    with serve(SITE) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for name in pages:
            ctx = browser.new_context(service_workers="block", **PHONE)
            page = ctx.new_page()
            page.goto(f"{base}/{name}", wait_until="load")
            wake_explorers(page)
            rows[name] = pacing(page)
            ctx.close()
        browser.close()
    print(f"{'page':44} {'length':>7} {'first':>6} {'run':>5} {'pics':>5}")
    for name, p in rows.items():
        fp = "-" if p["first_picture"] is None else f"{p['first_picture']:.1f}"
        miss = " miss" if failures(name, p) else ""
        run, n = p["longest_run"], p["pictures"]
        print(f"{name:44} {p['screens']:7.1f} {fp:>6} {run:5.1f} {n:5d}{miss}")
        for r in p["runs"]:
            print(f"{'':46}run {r['screens']:.1f} from {r['from']:.1f} in {r['section']!r}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
