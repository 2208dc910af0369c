"""The explorers on a reader's screen: one row per explorer of the built book.

Serves _build/html on 127.0.0.1 (tests/_serve.py) and drives Debian's Chromium
(/usr/bin/chromium) through Playwright, at 1280 x 900 (mouse) and at 390 x 844 (touch, 3x).
Methods: tests/browser/_craft.py (the browser tests assert the same numbers).

Columns:
* height: the explorer's height over the window's, desktop / phone (targets <= 1 and <= 1.25);
* in view: per control, the share of the pictures it changes that is on screen (and not
  covered) while the reader operates it, desktop / phone, the smaller of two arrivals
  (target >= 0.5);
* swipe-safe: a vertical finger swipe starting on every picture, away from the handle,
  scrolls the page and leaves the explorer's parameters unchanged;
* 0.05 dark: WCAG contrast of the colour painted for a weight of 0.05 against the explorer's
  background in dark mode (target >= 1.5); where the page does not report its colour map, the
  smallest painted weight of at least 0.05 instead (marked ~).

Usage: .venv/bin/python benchmarks/explorer_craft.py [--pages intro.html ...] [--json FILE]
(`make book` first).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "browser")]

from _chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from _craft import DESKTOP, PHONE, colours, layout, n_explorers, open_page, swipe  # noqa: E402
from _pages import SITE, book_pages  # noqa: E402
from _serve import serve  # noqa: E402


def measure(browser, url: str, name: str) -> list[dict]:
    rows: list[dict] = []
    ctx, page = open_page(browser, url, name, **DESKTOP)
    try:
        for k in range(n_explorers(page)):
            rows.append({"page": name, "k": k, "desktop": layout(page, k)})
    finally:
        ctx.close()
    ctx, page = open_page(browser, url, name, **PHONE)
    try:
        for k in range(n_explorers(page)):
            rows[k]["phone"] = layout(page, k)
    finally:
        ctx.close()
    ctx, page = open_page(browser, url, name, **PHONE)
    try:
        for k in range(n_explorers(page)):
            rows[k]["swipe"] = swipe(page, k)
    finally:
        ctx.close()
    ctx, page = open_page(browser, url, name, **DESKTOP, color_scheme="dark")
    try:
        for k in range(n_explorers(page)):
            rows[k]["dark"] = colours(page, k)
    finally:
        ctx.close()
    return rows


def shots(browser, url: str, name: str, folder: Path) -> None:
    """Each explorer as the reader meets it: the element whole, and the window after arriving
    at its top (what is on screen without scrolling)."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = "landing" if name.startswith("intro") else "ch" + name.split("/")[-1][:2]
    for size, ctx_opts in (("1280", DESKTOP), ("390", PHONE)):
        for scheme in ("light", "dark"):
            ctx, page = open_page(browser, url, name, **ctx_opts, color_scheme=scheme)
            try:
                for k in range(n_explorers(page)):
                    ex = page.locator(".attn-explorer").nth(k)
                    ex_name = ex.get_attribute("data-explorer")
                    base = folder / f"{stem}-{ex_name}-{size}-{scheme}"
                    ex.screenshot(path=f"{base}.png")
                    page.evaluate(
                        "async (k) => window.__craft.arrive(document.querySelectorAll('.attn-explorer')[k], 'top')",
                        k,
                    )
                    page.screenshot(path=f"{base}-window.png")
                    print(f"{base}.png")
            finally:
                ctx.close()


def dark_005(d: dict) -> str:
    vals = []
    for h in d["heatmaps"]:
        if h["at005"]:
            vals.append(f"{h['at005']['contrast']:.2f}")
        elif h["smallest"]:
            vals.append(f"~{h['smallest']['contrast']:.2f}")
    return " / ".join(vals) or "no map"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", nargs="*", default=None)
    ap.add_argument("--json", default=None, help="also write the raw measurements here")
    ap.add_argument(
        "--shots",
        default=None,
        help="only save screenshots of every explorer (1280 and 390 px, "
        "light and dark) into this folder",
    )
    args = ap.parse_args()
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} not found")
        return 1
    from playwright.sync_api import sync_playwright

    rows: list[dict] = []
    with serve(SITE, gzip=False) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for name in args.pages or book_pages():
                if args.shots:
                    shots(browser, url, name, Path(args.shots))
                else:
                    rows += measure(browser, url, name)
        finally:
            browser.close()
    if args.shots:
        return 0
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf8")
    print(
        "| explorer | height desktop / phone | in view per control, desktop / phone | swipe-safe | 0.05 dark |"
    )
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        d, ph = r["desktop"], r["phone"]
        ctl = []
        for cd, cp in zip(d["controls"], ph["controls"]):
            ctl.append(f"{cd['name']} {cd['share']:.2f} / {cp['share']:.2f}")
        safe = all(s["params_kept"] and s["scrolled"] > 20 for s in r["swipe"])
        bad = [s["panel"] for s in r["swipe"] if not (s["params_kept"] and s["scrolled"] > 20)]
        where = (
            "landing"
            if r["page"].startswith("intro")
            else "ch" + r["page"].split("/")[-1][:2].lstrip("0")
        )
        print(
            f"| {where} {d['name']} | {d['height']:.2f} / {ph['height']:.2f} | {'; '.join(ctl)} | "
            f"{'yes' if safe else 'no (' + ', '.join(bad) + ')'} | {dark_005(r['dark'])} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
