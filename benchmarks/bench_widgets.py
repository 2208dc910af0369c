"""Explorer update cost vs the naive way, measured in one run; and each explorer's state size.

Claim checked: in a live kernel, moving an explorer's slider is at least 5x faster than
the same update done the naive way, ``ipywidgets.interact`` re-plotting a matplotlib
figure.

- naive, per update: recompute the frame with attnlib (the explorer's own update
  function) and redraw every panel with attnlib.plotting (matplotlib), rendered to PNG
  exactly as the inline backend does (IPython's ``print_figure(fig, "png",
  bbox_inches="tight")``). Not counted, in the naive way's favour: the kernel round trip,
  sending the PNG to the browser, decoding and painting it.
- ours, per update: in headless Chromium, on a page running the real ES module
  (attnlib/static/explorer.js) with a minimal anywidget model stand-in, set a slider and
  dispatch its ``input`` event (frame selection + SVG redraw, synchronous), then force
  style and layout (``getBoundingClientRect``). Also reported: the time until the next
  animation frame has run (includes waiting for vsync, so it is an upper bound).
  ``save_changes`` (telling the kernel where the slider is) is asynchronous and not on
  the redraw path.

Run: ``.venv/bin/python benchmarks/bench_widgets.py`` (needs
/usr/bin/chromium-headless-shell for the browser half; without it, the naive timings and sizes
are still printed).
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from IPython.core.pylabtools import print_figure  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from attnlib import plotting  # noqa: E402
from scoringbook.registry import EXPLORERS  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "devtools"))
from _chromium import CHROMIUM as _CHROMIUM  # noqa: E402
from _chromium import CHROMIUM_ARGS  # noqa: E402

from attnlib.widgets import Explorer, Heatmap, standalone_html  # noqa: E402

CHROMIUM = str(_CHROMIUM)
ARGS = CHROMIUM_ARGS
N_UPDATES = 20


def naive_update(ex: Explorer, params: dict) -> list[Figure]:
    """What an interact callback would do: recompute with attnlib, redraw with matplotlib."""
    decl = ex.declaration
    frame = decl.compute(**params)  # defaults filled in (a typed text has no grid)
    figs = []
    for p in decl.panels:
        data = frame[p.name]
        if isinstance(p, Heatmap):
            figs.append(
                plotting.show_heatmaps(
                    data,
                    p.xlabel,
                    p.ylabel,
                    titles=[p.title] if p.title else None,
                    vmin=p.vmin,
                    vmax=p.vmax,
                    colorbar_label=p.colorbar_label,
                )
            )
        else:
            ys, scatter = {}, None
            for f in p.fixed:
                if f.style == "points" and scatter is None:
                    scatter = (f.x, f.y, f.name)
                else:
                    ys[f.name] = (f.x, f.y)
            for s in p.series:
                v = data[s.name]
                v = v.detach().numpy() if hasattr(v, "detach") else v
                ys[s.name] = (v[0], v[1]) if s.xy else (p.x, v)
            figs.append(
                plotting.plot_lines(
                    None, ys, xlabel=p.xlabel, ylabel=p.ylabel, title=p.title, scatter=scatter
                )
            )
    return figs


def time_naive(ex: Explorer, grid: list[dict]) -> list[float]:
    times = []
    for params in grid:
        t0 = time.perf_counter()
        for fig in naive_update(ex, params):
            print_figure(fig, "png", bbox_inches="tight")  # what the inline backend sends
        times.append(time.perf_counter() - t0)
    return times


MEASURE = """async ([moves]) => {
  const root = document.querySelector('.attn-explorer');
  const sync = [], frame = [];
  for (const [param, kind, value] of moves) {
    const tag = kind === 'choice' ? 'select' : 'input';
    const el = root.querySelector(tag + `[data-param="${param}"]`);
    const t0 = performance.now();
    el.value = String(value);
    el.dispatchEvent(new Event(kind === 'choice' ? 'change' : 'input'));
    root.getBoundingClientRect();               // force style + layout of the redrawn SVG
    const t1 = performance.now();
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const t2 = performance.now();
    sync.push(t1 - t0); frame.push(t2 - t0);
  }
  return [sync, frame];
}"""


def random_moves(ex: Explorer, n: int, rng: random.Random) -> list:
    moves, idx = [], list(ex.indices)
    params = ex.declaration.params
    while len(moves) < n:
        k = rng.randrange(len(params))
        p = params[k]
        if len(p.values) < 2:
            continue
        i = rng.choice([j for j in range(len(p.values)) if j != idx[k]])
        idx[k] = i
        moves.append([p.name, p.kind, i])
    return moves


def main() -> int:
    rng = random.Random(0)
    have_chromium = os.path.exists(CHROMIUM)
    results = {}
    for name, build in EXPLORERS.items():
        t0 = time.perf_counter()
        ex = build()
        build_s = time.perf_counter() - t0
        grid = [p for _, p in ex.declaration.grid()]
        sample = [rng.choice(grid) for _ in range(N_UPDATES)]
        time_naive(ex, sample[:2])  # warm-up (fonts, caches)
        naive = time_naive(ex, sample)
        raw, gz = ex.state_size()
        results[name] = {
            "ex": ex,
            "naive": naive,
            "raw": raw,
            "gz": gz,
            "build": build_s,
            "frames": len(ex.frames),
        }

    if have_chromium:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for r in results.values():
                page = browser.new_page()
                page.set_content(standalone_html(r["ex"]))
                page.wait_for_selector(".attn-explorer[data-ready=true]")
                page.evaluate(MEASURE, [random_moves(r["ex"], 5, rng)])  # warm-up
                sync, frame = page.evaluate(MEASURE, [random_moves(r["ex"], N_UPDATES, rng)])
                r["sync"], r["frame"] = sync, frame
                page.close()
            browser.close()
    else:
        print(
            f"NOTE: {CHROMIUM} not found: the browser-side cost is not measured "
            "(apt-get install -y chromium-headless-shell); only naive timings and sizes are "
            "printed."
        )

    med = statistics.median
    print(
        f"\nExplorer update cost, median of {N_UPDATES} random slider moves "
        f"(naive = attnlib + matplotlib PNG; ours = JS frame switch + SVG redraw)\n"
    )
    hdr = (
        f"{'explorer':22} {'frames':>6} {'naive ms':>9} {'ours ms':>8} {'ratio':>7} "
        f"{'to-frame ms':>11} {'ratio':>6}"
    )
    print(hdr)
    print("-" * len(hdr))
    ok = True
    for name, r in results.items():
        n_ms = med(r["naive"]) * 1e3
        if "sync" in r:
            s_ms, f_ms = med(r["sync"]), med(r["frame"])
            ratio, ratio_f = n_ms / max(s_ms, 1e-3), n_ms / max(f_ms, 1e-3)
            ok &= ratio >= 5
            print(
                f"{name:22} {r['frames']:6d} {n_ms:9.1f} {s_ms:8.2f} {ratio:6.0f}x "
                f"{f_ms:11.1f} {ratio_f:5.1f}x"
            )
        else:
            print(f"{name:22} {r['frames']:6d} {n_ms:9.1f} {'n/a':>8} {'n/a':>7}")
    print(
        "\n'ratio' = naive / ours (event + redraw + style/layout); 'to-frame' also waits for "
        "the next animation frame (vsync, ~16.7 ms), an upper bound on ours.\n"
    )
    print(f"{'explorer':22} {'state raw KB':>12} {'state gzip KB':>13} {'build s':>8}")
    total_gz = 0
    for name, r in results.items():
        total_gz += r["gz"]
        print(f"{name:22} {r['raw'] / 1e3:12.1f} {r['gz'] / 1e3:13.1f} {r['build']:8.2f}")
    print(f"{'all five':22} {'':12} {total_gz / 1e3:13.1f}")
    if have_chromium:
        print(
            f"\nclaim 'explorer update >= 5x faster than interact + matplotlib': "
            f"{'HOLDS' if ok else 'FAILS'} for every explorer"
            if ok
            else "\nclaim FAILS for at least one explorer"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
