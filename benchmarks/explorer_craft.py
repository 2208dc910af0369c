"""The explorers on a reader's screen: one row per explorer of the built book.

Serves _build/html on 127.0.0.1 (devtools/_serve.py) and drives Debian's Chromium
(/usr/bin/chromium-headless-shell) through Playwright, at 1280 x 900 (mouse) and at 390 x 844 (touch, 3x).
Methods: devtools/_craft.py (the browser tests assert the same numbers).

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

Then every number the craft tests hold to a limit (devtools/_craft.py), per explorer the
one nearest its limit for each measure, with its headroom (how far inside the limit, as a
share of it); "near" marks those within 5 % (issue 25: move the design away from the edge).

Usage: .venv/bin/python benchmarks/explorer_craft.py [--pages intro.html ...] [--json FILE]
(`make book` first).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "devtools")]

import _craft  # noqa: E402
from _chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from _craft import (  # noqa: E402
    DESKTOP,
    PHONE,
    colours,
    layout,
    n_explorers,
    open_page,
    swipe,
    text_sizes,
)
from _pages import SITE, book_pages  # noqa: E402
from _serve import serve  # noqa: E402


def measure(browser, url: str, name: str) -> list[dict]:
    rows: list[dict] = []
    ctx, page = open_page(browser, url, name, **DESKTOP)
    try:
        for k in range(n_explorers(page)):
            rows.append({"page": name, "k": k, "desktop": layout(page, k)})
            rows[k]["text desktop"] = text_sizes(page, k)
            rows[k]["light"] = colours(page, k)
    finally:
        ctx.close()
    ctx, page = open_page(browser, url, name, **PHONE)
    try:
        for k in range(n_explorers(page)):
            rows[k]["phone"] = layout(page, k)
            rows[k]["text phone"] = text_sizes(page, k)
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


def limits(r: dict) -> list[tuple[str, float, float, bool]]:
    """(measure, value, limit, at least) for every number of explorer row ``r`` that the craft
    tests hold to a limit, the one nearest its limit per measure."""
    out = []

    def worst(measure, values, limit, at_least=True):
        values = [v for v in values if v is not None]
        if values:
            out.append((measure, min(values) if at_least else max(values), limit, at_least))

    for size in ("desktop", "phone"):
        worst(f"height, {size} (windows)", [r[size]["height"]], _craft.HEIGHT[size], False)
        worst(f"share in view, {size}", [c["share"] for c in r[size]["controls"]], _craft.SHARE)
        worst(f"smallest text, {size} (px)", [r[f"text {size}"]["smallest"]["px"]], _craft.TEXT_PX)
    worst("field text, phone (px)", [f["px"] for f in r["text phone"]["fields"]], _craft.FIELD_PX)
    worst("swipe scrolls (px)", [s["scrolled"] for s in r["swipe"]], _craft.SWIPE_PX)
    worst(
        "swipe from the handle (px)",
        [s["distance"] for s in r["swipe"] if s["handle"]],
        _craft.HANDLE_PX,
    )
    maps = r["dark"]["heatmaps"]
    worst(
        "0.05 weight, dark (contrast)",
        [h["at005"]["contrast"] for h in maps if h["at005"]],
        _craft.DARK_005,
    )
    worst(
        "zero weight, dark (contrast)",
        [h["at0"]["contrast"] for h in maps if h["at0"]],
        _craft.ZERO_VS_BG,
    )
    for scheme in ("light", "dark"):
        worst(
            f"series, {scheme} (contrast)",
            [x["contrast"] for x in r[scheme]["series"]],
            _craft.SERIES,
        )
    return out


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
    print("\n| explorer | measure | value | limit | headroom |")
    print("| --- | --- | --- | --- | --- |")
    near = 0
    for r in rows:
        where = (
            "landing"
            if r["page"].startswith("intro")
            else "ch" + r["page"].split("/")[-1][:2].lstrip("0")
        )
        for what, value, limit, at_least in limits(r):
            h = (value / limit - 1) if at_least else (1 - value / limit)
            near += h < 0.05
            print(
                f"| {where} {r['desktop']['name']} | {what} | {value:.3f} | "
                f"{'>=' if at_least else '<='} {limit:g} | {h:+.1%}{' near' if h < 0.05 else ''} |"
            )
    print(f"\n{near} numbers within 5 % of their limits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
