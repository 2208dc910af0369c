"""The built book in headless Chromium: redraw latency, page weight, time to interactive.

Serves _build/html with `python -m http.server --bind 127.0.0.1` and drives Debian's
Chromium (/usr/bin/chromium) through Playwright. Measured in one run, on this machine:

* redraw: per explorer and per slider / choice / text field, the time from setting the
  control's value and dispatching its 'input' / 'change' event until the redrawn panels are laid out
  (performance.now() around the move plus a forced layout), median over MOVES moves.
  Target: median <= 16 ms (one frame at 60 Hz).
  Measured at 1x and again at 4x CPU throttling (DevTools Emulation.setCPUThrottlingRate,
  a phone-class CPU). Target: median <= 16 ms at both.
* weight: per page, the gzip-compressed size (level 6, as a web server would send it) of
  every response the page loads, fresh browser context, no cache. Target: <= 400 kB.
  Figures are loading="lazy", so this is the weight at load; the "read" column adds what
  the page fetches once the reader has scrolled to the end (every figure).
* TTI: per page, from navigation start until the first explorer has data-ready="true" (its
  sliders redraw; polled every millisecond, also while the page is still being parsed), as
  a ratio to the landing page's load time (navigation start to the end of its load event),
  both medians of --runs loads in this run. Target: ratio <= 2.

Usage: .venv/bin/python benchmarks/bench_browser.py [--moves 50] [--runs 3] [--strict]
(`make book` first). Prints a table with PASS/FAIL; --strict exits 1 when a target fails.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-extensions",
]

REDRAW_TARGET_MS = 16.0
WEIGHT_TARGET_BYTES = 400e3
TTI_TARGET_RATIO = 2.0
THROTTLE = 4  # CPU slow-down factor for the second redraw measurement

# Installed before any page script: records when the page became interactive.
TTI_INIT = """
(() => {
  const t = {};
  window.__bench = t;
  // the first explorer whose sliders redraw (possibly while the rest of the page is parsed):
  // a MutationObserver's callback runs right after the script that set data-ready on an
  // explorer in the page, or inserted an explorer drawn (and ready) before it was attached
  const ready = (n) => n.nodeType === 1 && (n.getAttribute('data-ready') === 'true' ||
    !!(n.querySelector && n.querySelector('.attn-explorer[data-ready="true"]')));
  new MutationObserver((records, obs) => {
    if (records.some((r) => (r.type === 'attributes' ? ready(r.target) : [...r.addedNodes].some(ready)))) {
      t.slider = performance.now(); obs.disconnect();
    }
  }).observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ['data-ready']});
  const tick = () => {
    if (document.readyState === 'loading') return setTimeout(tick, 2);
    if (t.slider === undefined && !document.querySelector('script[type="application/vnd.jupyter.widget-view+json"]')) t.slider = performance.now();
    const views = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length;
    const ready = document.querySelectorAll('.attn-explorer[data-ready="true"]').length;
    if (t.explorers === undefined && ready >= views) { t.explorers = performance.now(); t.views = views; }
    const usesMathJax = !!document.querySelector('script[src*="mathjax"]');
    if (t.mathjax === undefined) {
      if (!usesMathJax) t.mathjax = 0;
      else if (window.MathJax && MathJax.startup && MathJax.startup.promise && !t.mjWaiting) {
        t.mjWaiting = true;
        MathJax.startup.promise.then(() => { t.mathjax = performance.now(); });
      }
    }
    if (t.fonts === undefined && !t.fontsWaiting) {
      t.fontsWaiting = true;
      document.fonts.ready.then(() => { t.fonts = performance.now(); });
    }
    if (t.explorers === undefined || t.mathjax === undefined || t.fonts === undefined) setTimeout(tick, 2);
  };
  tick();
})();
"""

REDRAW_JS = """
async ([moves]) => {
  const out = [];
  const explorers = [...document.querySelectorAll('.attn-explorer')];
  for (const [k, ex] of explorers.entries()) {
    for (const c of ex.querySelectorAll('.attn-slider, .attn-choice')) {
      const isSelect = c.tagName === 'SELECT';
      const n = isSelect ? c.options.length : +c.max + 1;
      const start = +c.value;
      const panels = ex.querySelector('.attn-panels');
      const times = [];
      for (let m = 0; m < moves; m++) {
        let i = (start + 1 + (m * 7) % (n - 1)) % n;   // a spread of positions, never the current one
        if (i === +c.value) i = (i + 1) % n;
        const t0 = performance.now();
        c.value = String(i);
        c.dispatchEvent(new Event(isSelect ? 'change' : 'input', {bubbles: true}));
        panels.getBoundingClientRect();            // force style + layout of the redrawn SVG
        void document.body.offsetHeight;
        times.push(performance.now() - t0);
        if (m % 10 === 9) await new Promise((r) => requestAnimationFrame(() => r()));
      }
      c.value = String(start);
      c.dispatchEvent(new Event(isSelect ? 'change' : 'input', {bubbles: true}));
      out.push({explorer: ex.dataset.explorer, index: k, param: c.dataset.param, n, times});
    }
    // a text field (a typed sentence): one word more or less per move, as a reader types
    const words = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'again'];
    for (const c of ex.querySelectorAll('.attn-text')) {
      const start = c.value, panels = ex.querySelector('.attn-panels'), times = [];
      for (let m = 0; m < moves; m++) {
        const t0 = performance.now();
        c.value = words.slice(0, 1 + (m % words.length)).join(' ');
        c.dispatchEvent(new Event('input', {bubbles: true}));
        panels.getBoundingClientRect();
        void document.body.offsetHeight;
        times.push(performance.now() - t0);
        if (m % 10 === 9) await new Promise((r) => requestAnimationFrame(() => r()));
      }
      c.value = start;
      c.dispatchEvent(new Event('input', {bubbles: true}));
      out.push({explorer: ex.dataset.explorer, index: k, param: c.dataset.param + ' (typed)', n: 0, times});
    }
  }
  return out;
}
"""


def pages() -> list[str]:
    sys.path.insert(0, str(ROOT / "tests"))
    from browser.conftest import PAGES  # the same page list the browser tests use

    return PAGES


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(site: Path):
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            "--directory",
            str(site),
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                urllib.request.urlopen(url + "/", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=5)


SCROLL_ALL_JS = """async () => {
  for (const img of [...document.querySelectorAll('img')].filter(i => i.checkVisibility())) {
    img.scrollIntoView({block: 'center'});
    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 30)));
  }
  // only the images the page renders (a figure's other-mode variant is display: none, never fetched)
  await Promise.all([...document.images].filter(i => i.checkVisibility()).map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })));
}"""


def load(browser, url: str):
    """Open url in a fresh context; return (page, responses, interactive timings)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    ctx.add_init_script(TTI_INIT)
    page = ctx.new_page()
    responses = []
    page.on("response", lambda r: responses.append(r))
    page.goto(url, wait_until="load")
    page.wait_for_function(
        "() => window.__bench && __bench.explorers !== undefined && __bench.mathjax !== "
        "undefined"
        " && __bench.fonts !== undefined",
        timeout=60_000,
        polling=50,
    )
    page.wait_for_load_state("networkidle")
    timing = page.evaluate("() => window.__bench")
    timing["load"] = page.evaluate(
        "() => performance.getEntriesByType('navigation')[0].loadEventEnd"
    )
    return page, responses, timing


def weigh(responses) -> tuple[int, int, int]:
    raw = gz = n = 0
    for r in responses:
        if not r.url.startswith("http"):
            continue
        with contextlib.suppress(Exception):
            body = r.body()
            raw += len(body)
            gz += len(gzip.compress(body, compresslevel=6))
            n += 1
    return n, raw, gz


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=50, help="moves per control (default 50)")
    ap.add_argument(
        "--runs", type=int, default=3, help="loads per page for TTI; the median is reported"
    )
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} not found: apt-get install chromium", file=sys.stderr)
        return 2
    names = pages()
    missing = [p for p in names if not (SITE / p).exists()]
    if missing:
        print(f"the book is not built (missing {missing}): run `make book`", file=sys.stderr)
        return 2

    from playwright.sync_api import sync_playwright

    failures = 0
    page_rows, redraw_rows = [], []
    with serve(SITE) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # Warm the server and the OS file cache once, so the first page is not penalised.
        warm, _, _ = load(browser, f"{base}/{names[-1]}")
        warm.context.close()
        for name in names:
            ttis, loads = [], []
            for run in range(args.runs):
                page, responses, t = load(browser, f"{base}/{name}")
                ttis.append(t["slider"])
                loads.append(t["load"])
                if run == 0:
                    n, raw, gz = weigh(responses)
                    seen = len(responses)
                    page.evaluate(SCROLL_ALL_JS)
                    page.wait_for_load_state("networkidle")
                    _, _, gz_more = weigh(responses[seen:])
                    gz_read = gz + gz_more
                    page.evaluate("window.scrollTo(0, 0)")
                    if page.evaluate("document.querySelectorAll('.attn-explorer').length"):
                        fast = page.evaluate(REDRAW_JS, [args.moves])
                        cdp = page.context.new_cdp_session(page)
                        cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
                        slow = page.evaluate(REDRAW_JS, [max(10, args.moves // 2)])
                        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
                        for a, b in zip(fast, slow):
                            redraw_rows.append((name, a, b))
                page.context.close()
            page_rows.append(
                (name, n, raw, gz, gz_read, statistics.median(ttis), statistics.median(loads))
            )
        browser.close()

    landing_load = page_rows[0][6]
    print(
        f"\nPage weight (gzip, level 6) and time to a working slider (median of {args.runs} "
        "loads) "
        f"as a ratio to the landing page's load time ({landing_load:.0f} ms), local server, "
        "headless Chromium"
    )
    print(
        f"{'page':<50}{'files':>6}{'raw MB':>9}{'gzip kB':>9}{'read kB':>9}{'weight':>8}{'TTI ms':>9}{'ratio':>7}{'TTI':>6}"
    )
    for name, n, raw, gz, gz_read, tti, _load in page_rows:
        ratio = tti / landing_load
        w_ok, t_ok = gz <= WEIGHT_TARGET_BYTES, ratio <= TTI_TARGET_RATIO
        failures += (not w_ok) + (not t_ok)
        print(
            f"{name:<50}{n:>6}{raw / 1e6:>9.3f}{gz / 1e3:>9.0f}{gz_read / 1e3:>9.0f}{'PASS' if w_ok else 'FAIL':>8}"
            f"{tti:>9.0f}{ratio:>7.2f}{'PASS' if t_ok else 'FAIL':>6}"
        )
    print(
        f"targets: gzip <= {WEIGHT_TARGET_BYTES / 1e3:.0f} kB, time to a working slider <= "
        f"{TTI_TARGET_RATIO:g}x the landing page's load time"
    )

    print(
        f"\nRedraw latency: move + 'input'/'change' + forced layout, {args.moves} moves per "
        "control "
        f"(at {THROTTLE}x CPU throttling: {max(10, args.moves // 2)} moves)"
    )
    print(
        f"{'page':<50}{'explorer':<22}{'control':<14}{'median ms':>10}{'p90 ms':>8}"
        f"{f'{THROTTLE}x median':>12}{f'{THROTTLE}x p90':>9}{'':>6}"
    )
    for name, row, slow in redraw_rows:
        ts, tslow = sorted(row["times"]), sorted(slow["times"])
        med, smed = statistics.median(ts), statistics.median(tslow)
        p90, sp90 = ts[int(0.9 * (len(ts) - 1))], tslow[int(0.9 * (len(tslow) - 1))]
        ok = med <= REDRAW_TARGET_MS and smed <= REDRAW_TARGET_MS
        failures += not ok
        print(
            f"{name:<50}{row['explorer']:<22}{row['param']:<14}{med:>10.2f}{p90:>8.2f}{smed:>12.2f}{sp90:>9.2f}"
            f"{'PASS' if ok else 'FAIL':>6}"
        )
    print(
        f"target: median <= {REDRAW_TARGET_MS:.0f} ms, unthrottled and at {THROTTLE}x throttling"
    )
    print(f"\n{'all targets met' if not failures else f'{failures} target(s) missed'}")
    return 1 if (failures and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
