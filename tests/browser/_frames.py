"""An explorer's frame as the page shows it, checked against attnlib: shared by the explorer
tests (tests/browser/explorers/).

``SNAPSHOT_JS`` reads what explorer k draws (its parameters, controls, heatmap cells with their
painted colours, line series, readouts); ``MOVE_JS`` moves one of its controls; ``_check_frame``
checks a snapshot against ``scoringbook.compute`` (a trained explorer: against the frames its
committed notebook saved) and that the colours follow the weights; ``_check_affine`` checks that
drawn coordinates are one affine image of attnlib's numbers.
"""

from __future__ import annotations

import functools
import json
import re

import numpy as np
from _heatmap_js import CELLS, as_json
from _tolerance import page_tolerance

from attnlib.plotting._theme import GAMMA
from scoringbook import manifest

TOL = 1e-4  # the weights a heatmap shows (svg.attnValues) vs attnlib (see page_tolerance)
TITLE_TOL = 1e-3  # hover text shows 3-4 decimals
PIXEL_TOL = (
    0.1  # line coordinates are written with one decimal: +-0.05 a point, plus the fit's own error
)

SNAPSHOT_JS = (
    """
async (k) => {
  const readCells = """
    + CELLS
    + """;
  const ex = document.querySelectorAll('.attn-explorer')[k];
  const text = (e) => (e ? e.textContent : null);
  return {
    name: ex.dataset.explorer, params: ex.dataset.params, frame: ex.dataset.frame, ready: ex.dataset.ready,
    dark: document.documentElement.dataset.theme === 'dark',
    controls: [...ex.querySelectorAll('.attn-slider, .attn-choice')].map((c) => ({
      param: c.dataset.param, kind: c.tagName === 'SELECT' ? 'choice' : 'slider',
      n: c.tagName === 'SELECT' ? c.options.length : +c.max + 1, index: +c.value,
      shown: c.tagName === 'SELECT' ? c.options[c.selectedIndex].textContent
                                    : text(ex.querySelector(`output.attn-value[data-param="${c.dataset.param}"]`)),
    })),
    heatmaps: await Promise.all([...ex.querySelectorAll('svg.attn-heatmap')].map(async (svg) => {
      const readout = svg.parentElement.querySelector('.attn-readout');
      return {
        panel: svg.dataset.panel,
        // the explorer's colour bar for this map's range (one per range, under the last map of it)
        colorbarLabel: text([...ex.querySelectorAll('svg.attn-colorbar-svg')].find((b) =>
          b.dataset.vmin === svg.dataset.vmin && b.dataset.vmax === svg.dataset.vmax)?.querySelector('text.attn-colorbar-label')),
        // the words under it that say the scale is a power law, and its spoken name
        colorbarNote: [...([...ex.querySelectorAll('svg.attn-colorbar-svg')].find((b) =>
          b.dataset.vmin === svg.dataset.vmin && b.dataset.vmax === svg.dataset.vmax)
          ?.querySelectorAll('text.attn-colorbar-note') || [])].map((t) => t.textContent).join(' '),
        colorbarSpoken: [...ex.querySelectorAll('svg.attn-colorbar-svg')].find((b) =>
          b.dataset.vmin === svg.dataset.vmin && b.dataset.vmax === svg.dataset.vmax)?.getAttribute('aria-label'),
        vmin: +svg.dataset.vmin, vmax: +svg.dataset.vmax,
        cells: await readCells(svg),
        // cells painted off the scale: empty (beyond a stored frame's labels), no weight
        empty: Array.from(svg.attnValues || [], (_, k) => k).filter((k) => svg.attnEmpty &&
          svg.attnEmpty(Math.floor(k / +svg.dataset.cols), k % +svg.dataset.cols)),
        // the cell being read (hover, tap or keys) and what the readout and the tooltip say of it
        read: readout.dataset.row === undefined ? null
          : [+readout.dataset.row, +readout.dataset.col, readout.textContent, text(svg.querySelector('image.attn-cells title'))],
      };
    })),
    // text panels (attnlib.widgets.Caption): what a model wrote, for example
    texts: [...ex.querySelectorAll('.attn-text-body')].map((t) => t.textContent),
    lines: [...ex.querySelectorAll('svg.attn-lines')].map((svg) => ({
      panel: svg.dataset.panel,
      handle: svg.querySelector('.attn-handle') && svg.querySelector('.attn-handle').getAttribute('transform'),
      series: [...svg.querySelectorAll('.attn-series:not(.attn-fixed)')].map((s) => ({
        name: s.dataset.series, d: s.getAttribute('d'),
        points: [...s.querySelectorAll('circle')].map((c) => [+c.getAttribute('cx'), +c.getAttribute('cy')]),
      })),
    })),
  };
}
"""
)

# SNAPSHOT_JS's reading as one JSON string (_heatmap_js.as_json: what crosses from the page
# costs Playwright's Python side CPU per value, and a snapshot holds every cell of every map)
SNAPSHOT_JSON_JS = as_json(SNAPSHOT_JS)

# The parameters explorer k shows (what a wait for a move polls, without reading the cells).
PARAMS_JS = "(k) => document.querySelectorAll('.attn-explorer')[k].dataset.params"


def snapshot(page, k: int) -> dict:
    """``page.evaluate(SNAPSHOT_JS, k)``, read as one JSON string (SNAPSHOT_JSON_JS)."""
    return json.loads(page.evaluate(SNAPSHOT_JSON_JS, k))


MOVE_JS = """
([k, param, i]) => {
  const ex = document.querySelectorAll('.attn-explorer')[k];
  const c = ex.querySelector(`.attn-slider[data-param="${param}"], .attn-choice[data-param="${param}"]`);
  c.value = String(i);
  c.dispatchEvent(new Event(c.tagName === 'SELECT' ? 'change' : 'input', {bubbles: true}));
}
"""


def _path_points(d: str) -> np.ndarray:
    """The points of a drawn path: M/L x y pairs; "V y" (a bar: M foot V top) moves the last
    point to its top."""
    num = r"-?\d+(?:\.\d+)?(?:e-?\d+)?"
    pts: list[list[float]] = []
    for cmd, a, b in re.findall(rf"([MLV])\s*({num})(?:[ ,]({num}))?", d or ""):
        if cmd == "V":
            pts[-1][1] = float(a)
        else:
            pts.append([float(a), float(b)])
    return np.array(pts, dtype=float).reshape(-1, 2)


def _check_affine(pix: list[float], data: list[float], what: str, tol: float = TOL) -> None:
    """Pixel coordinates must be one affine function of attnlib's values (shared axes), the
    values being within ``tol`` of attnlib's."""
    pix, data = np.asarray(pix, float), np.asarray(data, float)
    assert pix.shape == data.shape, f"{what}: {pix.size} points drawn, attnlib has {data.size}"
    if np.ptp(data) < 1e-9:
        assert np.ptp(pix) <= 2 * PIXEL_TOL, f"{what}: constant data drawn at varying heights"
        return
    a, b = np.polyfit(data, pix, 1)
    resid = np.abs(a * data + b - pix).max()
    # rounding to 0.1 px, plus the page's values being within tol of attnlib's
    assert resid <= PIXEL_TOL + abs(a) * tol, (
        f"{what}: drawn coordinates are not attnlib's values (max deviation {resid:.3f} px "
        "from the "
        f"best affine fit)"
    )


def _luminance(rgb: str) -> float:
    r, g, b = (int(t) for t in re.findall(r"\d+", rgb)[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def _check_colours(cells: list, dark: bool, what: str, vmax: float = 1.0) -> float | None:
    """The painted pixels follow the weights: a larger weight is never lighter on a light page
    (never darker on a dark one), and weights 0.2 of the colour range or more apart are not
    painted alike. Weights above the range's top (a saturating map) take its top colour.
    Slack: each colour channel is rounded to a byte (1/255 of luminance)."""
    sign = -1.0 if dark else 1.0  # light page: luminance falls as the weight grows
    cells = [[i, j, min(v, vmax), c] for i, j, v, c in cells]
    by_value = sorted(cells, key=lambda c: c[2])
    lum = [sign * _luminance(c[3]) for c in by_value]
    for (a, la), (b, lb) in zip(zip(by_value, lum), zip(by_value[1:], lum[1:])):
        assert lb <= la + 1 / 255 + 1e-9, (
            f"{what}: cell {b[:2]} (weight {b[2]:.4f}) is painted {b[3]}, against {a[3]} for "
            f"cell {a[:2]} "
            f"(weight {a[2]:.4f}): the colour does not follow the weight"
        )
    if by_value[-1][2] - by_value[0][2] > 0.2 * vmax:
        rgb = [[int(t) for t in re.findall(r"\d+", c[3])[:3]] for c in (by_value[0], by_value[-1])]
        far = sum((a - b) ** 2 for a, b in zip(*rgb)) ** 0.5
        assert far > 40, (
            f"{what}: weights from {by_value[0][2]:.2f} to {by_value[-1][2]:.2f} painted alike"
        )
        return far
    return None


# Explorers of trained models: the page shows the run its committed notebook saved, which
# another processor would not reproduce (training is chaotic), so their pages are compared with
# the frames the notebook saved (tests/_saved_state.py), not with a fresh training run.
# {explorer: its chapter's notebook}, from the chapter manifest.
TRAINED = {
    e.name: manifest.chapter_of(e.name).notebook for e in manifest.explorers(manifest.TRAINED)
}


def expected_frame(snap: dict) -> dict:
    """attnlib's frame for the parameters a snapshot shows (a trained explorer: its saved one).
    Kept per (explorer, parameters) in the process: a walk asks for each frame up to five
    times, and a frame is a pure function of them (its callers only read it)."""
    return _expected(snap["name"], snap["params"])


@functools.lru_cache(maxsize=256)
def _expected(name: str, params_json: str) -> dict:
    from _saved_state import saved_explorers, saved_frame

    from scoringbook.registry import compute

    params = json.loads(params_json)
    if name in TRAINED:
        return saved_frame(saved_explorers(TRAINED[name])[name], params)
    return compute(name, **params)


def frames_differ(a: dict, b: dict, atol: float = 0.02) -> bool:
    """Whether two of attnlib's frames differ visibly anywhere (panels of arrays, or of
    series): by more than ``atol``, two percent of a weight's range, about what one step of
    the colour scale or a pixel of a plot shows."""

    def flat(x):
        if isinstance(x, dict):
            return [v for k in sorted(x) for v in flat(x[k])]
        try:
            return [np.asarray(x, dtype=float).ravel()]
        except (TypeError, ValueError):
            return [np.asarray([hash(str(x))], dtype=float)]

    fa, fb = flat(a), flat(b)
    return len(fa) != len(fb) or any(
        x.shape != y.shape or not np.allclose(x, y, rtol=0.0, atol=atol, equal_nan=True)
        for x, y in zip(fa, fb)
    )


def _check_frame(snap: dict, where: str) -> float | None:
    """Checks one frame of an explorer against attnlib (a trained one: against its saved
    frames); returns the smallest colour distance between the extreme weights of its maps
    (None: no map spans enough)."""
    assert snap["ready"] == "true", f"{where}: data-ready is {snap['ready']!r}"
    params = json.loads(snap["params"])
    expected = expected_frame(snap)
    # a stored frame is a committed number: devtools/_tolerance.py's policy (TRAINED: the page and
    # the test decode the same saved frames)
    tol = page_tolerance(snap["name"], TOL, trained=snap["name"] in TRAINED).atol
    fars = []
    for h in snap["heatmaps"]:
        what = f"{where}, heatmap {h['panel']!r} at {params}"
        assert h["colorbarLabel"] and h["colorbarLabel"].strip(), (
            f"{what}: colour bar has no label"
        )
        # the colours follow value^GAMMA (not a linear scale): the bar says so, in words and
        # in its spoken name, as the static figures' colour bars do (issue 39)
        power = f"value^{GAMMA:g}"
        assert power in h["colorbarNote"] and "small values stand out" in h["colorbarNote"], (
            f"{what}: the colour bar does not say its scale is {power}: {h['colorbarNote']!r}"
        )
        assert power in (h["colorbarSpoken"] or ""), (
            f"{what}: the colour bar's spoken name omits {power}: {h['colorbarSpoken']!r}"
        )
        want = np.asarray(expected[h["panel"]], dtype=float)
        assert want.ndim == 2, f"{what}: attnlib returned shape {want.shape}"
        got = np.full(want.shape, np.nan)
        assert h["cells"] and len(h["cells"][0]) == 4, (
            f"{what}: the cells' image is missing or misshapen: {h['cells'][:1]}"
        )
        for i, j, value, _colour in h["cells"]:
            got[i, j] = float(value)
        assert len(h["cells"]) == want.size and not np.isnan(got).any(), (
            f"{what}: {len(h['cells'])} cells drawn for a {want.shape} matrix"
        )
        C = want.shape[1]
        weighed = [c for c in h["cells"] if c[0] * C + c[1] not in set(h["empty"])]
        fars.append(_check_colours(weighed, snap["dark"], what, h["vmax"]))
        if h["read"] is not None and h["read"][0] * C + h["read"][1] in set(h["empty"]):
            # the cell being read is empty in this frame (beyond this input and output)
            i, j, readout, tip = h["read"]
            for said in (readout, tip):
                assert said is None or "empty" in said, (
                    f"{what}: the empty cell ({i}, {j}) is read as {said!r}"
                )
        elif (
            h["read"] is not None
        ):  # a cell is being read: the readout and tooltip give its weight
            i, j, readout, tip = h["read"]
            for said in (readout, tip):
                nums = re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", said or "")
                assert nums and abs(float(nums[-1]) - got[i, j]) <= TITLE_TOL, (
                    f"{what}: the cell ({i}, {j}) is read as {said!r}, its weight is {got[i, j]}"
                )
        err = np.abs(got - want).max()
        assert err <= tol, (
            f"{what}: page shows weights differing from attnlib by "
            f"{err:.2e}\npage:\n{got}\nattnlib:\n{want}"
        )
    for ln in snap["lines"]:
        what = f"{where}, lines {ln['panel']!r} at {params}"
        want = expected[ln["panel"]]
        drawn = {s["name"]: s for s in ln["series"]}
        assert set(drawn) == set(want), (
            f"{what}: series drawn {sorted(drawn)} vs attnlib {sorted(want)}"
        )
        xs_pix, xs_dat, ys_pix, ys_dat = [], [], [], []
        for sname, s in drawn.items():
            w = np.asarray(want[sname], dtype=float)
            pts = (
                _path_points(s["d"])
                if s["d"]
                else np.asarray(s["points"], dtype=float).reshape(-1, 2)
            )
            if w.ndim == 2:  # (2, n): its own x and y
                xs_pix += list(pts[:, 0])
                xs_dat += list(w[0])
                ys_pix += list(pts[:, 1])
                ys_dat += list(w[1])
            else:
                assert len(pts) == w.size, (
                    f"{what}: series {sname!r} has {len(pts)} points, attnlib {w.size}"
                )
                ys_pix += list(pts[:, 1])
                ys_dat += list(w)
        if not ys_dat:  # a panel of fixed series only (e.g. the keys a dragged query moves among)
            continue
        _check_affine(ys_pix, ys_dat, f"{what} (y)", tol)
        if xs_dat:
            _check_affine(xs_pix, xs_dat, f"{what} (x)", tol)
    fars = [f for f in fars if f is not None]
    return min(fars) if fars else None
