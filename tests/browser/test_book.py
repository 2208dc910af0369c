"""The published book in a real browser (headless Chromium, no kernel, no network).

For the landing page and every chapter listed in _toc.yml: the page talks to no host but
the local server, nothing fails to load, the console shows no error, the maths is typeset,
every image loads, and every explorer works: each slider / choice, moved to several
positions, redraws the picture, and the weights the page shows equal what
``attnlib.book.compute`` returns for the parameters the page reports.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
from _heatmap_js import CELLS

from .conftest import (
    CHAPTERS,
    CHAPTERS_WITHOUT_EXPLORERS,
    EXPLORER_CHAPTERS,
    LANDING,
    PAGES,
    ROOT,
    SCREENSHOTS,
    wake_explorers,
)

pytestmark = pytest.mark.browser

TOL = 1e-4  # the weights a heatmap shows (svg.attnValues) vs attnlib
TITLE_TOL = 1e-3  # hover text shows 3-4 decimals
PIXEL_TOL = (
    0.1  # line coordinates are written with one decimal: +-0.05 a point, plus the fit's own error
)


def _local(url: str, base_url: str) -> bool:
    origin = urlsplit(base_url)
    parts = urlsplit(url)
    if parts.scheme == "data":
        return True
    if parts.scheme == "blob":  # blob:http://127.0.0.1:PORT/uuid, made by the page itself
        inner = urlsplit(url[len("blob:") :])
        return (inner.scheme, inner.netloc) == (origin.scheme, origin.netloc)
    return (
        parts.scheme in ("http", "https")
        and parts.hostname == "127.0.0.1"
        and parts.port == origin.port
    )


# ----------------------------------------------------------------------------- every page


@pytest.mark.parametrize("name", PAGES)
def test_only_local_requests(visits, name):
    v = visits(name)
    assert v.requests, f"{name}: no request recorded at all"
    outside = sorted({u for u, _ in v.requests if not _local(u, visits.base_url)})
    assert not outside, f"{name} asked hosts other than 127.0.0.1 for:\n  " + "\n  ".join(outside)


@pytest.mark.parametrize("name", PAGES)
def test_nothing_fails_to_load(visits, name):
    v = visits(name)
    assert not v.failed, f"{name}: failed requests:\n  " + "\n  ".join(
        f"{u} ({why})" for u, why in v.failed
    )


@pytest.mark.parametrize("name", PAGES)
def test_no_console_errors(visits, name):
    v = visits(name)
    errors = v.console_errors()
    assert not errors, f"{name}: console errors:\n  " + "\n  ".join(
        f"[{t}] {m} {loc}" for t, m, loc in errors
    )


MATH_JS = """
() => {
  const main = document.querySelector('main') || document.body;
  const holders = [...main.querySelectorAll('.math')];
  return {
    mathNodes: holders.length,
    // each maths element holds exactly one native <math> (web/prerender-math.mjs), nothing else
    holding: holders.map((h) => [...h.children].filter((c) => c.localName !== 'span' || !c.classList.contains('eqno'))
                                 .map((c) => c.localName).join(' ')),
    // a second copy of any formula (MathJax's CHTML and its hidden MathML) is gone
    copies: document.querySelectorAll('mjx-container, mjx-assistive-mml, [aria-hidden="true"] math').length,
    errors: [...main.querySelectorAll('merror, .temml-error')].map((e) => e.textContent),
    // formulas drawn: a rendered <math> has a box with a width and a height (answers to the
    // exercises are shown only when opened: visibility hidden until then)
    empty: [...main.querySelectorAll('math')].filter((m) => m.checkVisibility({visibilityProperty: true}))
             .filter((m) => { const r = m.getBoundingClientRect(); return !(r.width > 0 && r.height > 0); }).length,
    visible: [...main.querySelectorAll('math')].filter((m) => m.checkVisibility({visibilityProperty: true})).length,
    font: (() => { const m = main.querySelector('math'); return m ? getComputedStyle(m).fontFamily : null; })(),
    fontLoaded: [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'STIX Two Math subset' && f.status === 'loaded'),
    text: main.innerText,
    mathText: [...main.querySelectorAll('math')].map((m) => m.textContent).join(' '),
  };
}
"""

BOLD = {chr(c): chr(0x1D400 + c - ord("A")) for c in range(ord("A"), ord("Z") + 1)}
BOLD.update({chr(c): chr(0x1D41A + c - ord("a")) for c in range(ord("a"), ord("z") + 1)})


def _bold_letters(name: str) -> set[str]:
    """The letters the chapter's source sets in bold (\\mathbf X, \\mathbf{X}, \\mathbf{XY})."""
    md = ROOT / "chapters" / (Path(name).stem + ".md")
    if not md.is_file():
        return set()
    found = set()
    for braced, single in re.findall(
        r"\\mathbf\s*(?:\{([A-Za-z]+)\}|([A-Za-z]))", md.read_text(encoding="utf8")
    ):
        found.update(braced or single)
    return found


@pytest.mark.parametrize("name", PAGES)
def test_maths_is_typeset(visits, name):
    """Every formula is native MathML, once: drawn with the book's maths font, bold where the
    source says \\mathbf, and in the accessibility tree for screen readers."""
    v = visits(name)
    m = v.page.evaluate(MATH_JS)
    if name in CHAPTERS:
        assert m["mathNodes"] > 0, f"{name}: a chapter with no maths at all?"
    wrong = [h for h in m["holding"] if h != "math"]
    assert not wrong, f"{name}: maths elements holding {wrong[:5]} instead of one <math>"
    assert m["copies"] == 0, (
        f"{name}: {m['copies']} second copies of formulas (MathJax CHTML or hidden MathML)"
    )
    assert not m["errors"], f"{name}: TeX errors: {m['errors']}"
    assert m["empty"] == 0, f"{name}: {m['empty']} formulas drawn with no width or height"
    for raw in ("$$", "\\[", "\\(", "\\frac", "\\begin{"):
        assert raw not in m["text"], f"{name}: raw TeX {raw!r} visible in the page text"
    # An inline dollar pair left over by the parser, e.g. "$x$" shown as text.
    left = re.findall(r"\$[^$\s][^$\n]{0,80}\$", m["text"])
    assert not left, f"{name}: untypeset inline maths visible: {left[:5]}"
    if m["mathNodes"]:
        assert m["font"] and m["font"].startswith('"STIX Two Math subset"'), (
            f"{name}: maths font is {m['font']!r}"
        )
        assert m["fontLoaded"], (
            f"{name}: the maths font (_static/lib/math/STIXTwoMath-subset.woff2) did not load"
        )
        missing = sorted(c for c in _bold_letters(name) if BOLD[c] not in m["mathText"])
        assert not missing, (
            f"{name}: \\mathbf letters {missing} are not bold (no {[BOLD[c] for c in missing]}) in the maths"
        )
        # Screen readers: each formula shown is a MathML maths node of the accessibility tree,
        # with its identifiers and operators below it.
        cdp = v.page.context.new_cdp_session(v.page)
        try:
            tree = cdp.send("Accessibility.getFullAXTree")["nodes"]
        finally:
            cdp.detach()
        roles = [n.get("role", {}).get("value") for n in tree if not n.get("ignored")]
        assert roles.count("MathMLMath") >= m["visible"], (
            f"{name}: {m['visible']} formulas shown, {roles.count('MathMLMath')} in the accessibility tree"
        )
        assert roles.count("MathMLIdentifier") + roles.count("MathMLNumber") >= m["visible"], (
            f"{name}: formulas without identifiers or numbers in the accessibility tree"
        )


# Figures load lazily (loading="lazy"): bring each into view, as a reader scrolling would,
# and wait until it has loaded or failed; then back to the top. Only the images the page
# renders: each figure also has a variant for the other colour mode, display: none and so
# never fetched (tests/browser/test_figures.py checks those).
SCROLL_IMAGES_JS = """
async () => {
  const shown = [...document.images].filter((i) => i.checkVisibility());
  for (const i of shown) {
    i.scrollIntoView({block: 'center'});
    if (!i.complete) {
      await Promise.race([new Promise((r) => { i.addEventListener('load', r, {once: true});
                                               i.addEventListener('error', r, {once: true}); }),
                          new Promise((r) => setTimeout(r, 10000))]);
    }
  }
  window.scrollTo(0, 0);
  return shown.map(i => ({src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0,
                                         alt: i.getAttribute('alt'), natural: i.naturalWidth, shown: i.width,
                                         lazy: i.loading === 'lazy', sized: i.hasAttribute('width') && i.hasAttribute('height')}));
}
"""


@pytest.mark.parametrize("name", PAGES)
def test_images_load(visits, name):
    v = visits(name)
    imgs = v.page.evaluate(SCROLL_IMAGES_JS)
    bad = [i["src"] for i in imgs if not i["ok"]]
    assert not bad, f"{name}: images that did not load: {bad}"


@pytest.mark.parametrize("name", PAGES)
def test_screenshot_saved(visits, name):
    v = visits(name)
    assert v.screenshot is not None and v.screenshot.stat().st_size > 10_000, (
        f"{name}: no screenshot"
    )


def test_index_redirects_to_landing_page(visits):
    v = visits(LANDING)
    page = v.page.context.new_page()
    try:
        page.goto(f"{visits.base_url}/index.html", wait_until="load")
        page.wait_for_url(f"**/{LANDING}", timeout=10_000)
    finally:
        page.close()


@pytest.mark.parametrize("name", CHAPTERS)
def test_launch_buttons_are_plain_links(visits, name):
    """Binder and Colab open the chapter's notebook; nothing is loaded until a click."""
    v = visits(name)
    hrefs = v.page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
    nb = name.removesuffix(".html") + ".ipynb"
    binder = [h for h in hrefs if h.startswith("https://mybinder.org/v2/gh/") and nb in h]
    colab = [
        h
        for h in hrefs
        if h.startswith("https://colab.research.google.com/github/") and h.endswith(nb)
    ]
    assert binder, f"{name}: no Binder launch link for {nb}"
    assert colab, f"{name}: no Colab launch link for {nb}"


# ----------------------------------------------------------------------------- explorers

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

MOVE_JS = """
([k, param, i]) => {
  const ex = document.querySelectorAll('.attn-explorer')[k];
  const c = ex.querySelector(`.attn-slider[data-param="${param}"], .attn-choice[data-param="${param}"]`);
  c.value = String(i);
  c.dispatchEvent(new Event(c.tagName === 'SELECT' ? 'change' : 'input', {bubbles: true}));
}
"""


def _picture(snap: dict) -> str:
    """Everything drawn that depends on the parameters: cell fills, paths, points, a dragged
    point, text panels (two one-digit numbers have the same one-column attention map, but
    the models wrote different digits)."""
    return json.dumps(
        [[c[3] for c in h["cells"]] for h in snap["heatmaps"]]
        + [[(s["d"], s["points"]) for s in ln["series"]] + [ln["handle"]] for ln in snap["lines"]]
        + [snap.get("texts", [])]
    )


def _positions(n: int, start: int) -> list[int]:
    picks = sorted({0, n // 4, n // 2, (3 * n) // 4, n - 1}) if n > 6 else list(range(n))
    return [i for i in picks if i != start] + [start]


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


def _check_affine(pix: list[float], data: list[float], what: str) -> None:
    """Pixel coordinates must be one affine function of attnlib's values (shared axes)."""
    pix, data = np.asarray(pix, float), np.asarray(data, float)
    assert pix.shape == data.shape, f"{what}: {pix.size} points drawn, attnlib has {data.size}"
    if np.ptp(data) < 1e-9:
        assert np.ptp(pix) <= 2 * PIXEL_TOL, f"{what}: constant data drawn at varying heights"
        return
    a, b = np.polyfit(data, pix, 1)
    resid = np.abs(a * data + b - pix).max()
    # rounding to 0.1 px, plus the page's values being within TOL of attnlib's
    assert resid <= PIXEL_TOL + abs(a) * TOL, (
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
TRAINED = {
    "alignment_playback": "07_bahdanau_attention.ipynb",
    "length_experiment": "08_attention_and_length.ipynb",
    "heads_playback": "09_multi_head_attention.ipynb",
    "heads": "09_multi_head_attention.ipynb",
    "ablation": "09_multi_head_attention.ipynb",
}


def _check_frame(snap: dict, where: str) -> float | None:
    """Checks one frame of an explorer against attnlib (a trained one: against its saved
    frames); returns the smallest colour distance between the extreme weights of its maps
    (None: no map spans enough)."""
    from _saved_state import saved_explorers, saved_frame

    from attnlib.book.registry import compute

    assert snap["ready"] == "true", f"{where}: data-ready is {snap['ready']!r}"
    params = json.loads(snap["params"])
    if snap["name"] in TRAINED:
        expected = saved_frame(saved_explorers(TRAINED[snap["name"]])[snap["name"]], params)
    else:
        expected = compute(snap["name"], **params)
    fars = []
    for h in snap["heatmaps"]:
        what = f"{where}, heatmap {h['panel']!r} at {params}"
        assert h["colorbarLabel"] and h["colorbarLabel"].strip(), (
            f"{what}: colour bar has no label"
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
        if h["read"] is not None:  # a cell is being read: the readout and tooltip give its weight
            i, j, readout, tip = h["read"]
            for said in (readout, tip):
                nums = re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", said or "")
                assert nums and abs(float(nums[-1]) - got[i, j]) <= TITLE_TOL, (
                    f"{what}: the cell ({i}, {j}) is read as {said!r}, its weight is {got[i, j]}"
                )
        err = np.abs(got - want).max()
        assert err <= TOL, (
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
        _check_affine(ys_pix, ys_dat, f"{what} (y)")
        if xs_dat:
            _check_affine(xs_pix, xs_dat, f"{what} (x)")
    fars = [f for f in fars if f is not None]
    return min(fars) if fars else None


def _walk_every_control(page, name: str, views: int, mode: str, margin) -> None:
    """Every control of every explorer on the page, moved to several positions: the picture
    redraws and shows attnlib's weights (and colours that follow them) each time."""
    n = page.evaluate("() => document.querySelectorAll('.attn-explorer').length")
    assert n >= 1, f"{name}: no explorer on the page"
    assert n == views, f"{name}: {views} widget views but {n} explorers rendered"
    for k in range(n):
        snap = page.evaluate(SNAPSHOT_JS, k)
        where = f"{name} explorer #{k} ({snap['name']}, {mode})"
        assert snap["controls"], f"{where}: no slider or choice"
        assert snap["heatmaps"] or snap["lines"], f"{where}: no panel drawn"
        fars = [_check_frame(snap, where)]
        for ctl in snap["controls"]:
            assert ctl["n"] >= 2, f"{where}: control {ctl['param']!r} has {ctl['n']} positions"
            before = snap
            for i in _positions(ctl["n"], ctl["index"]):
                page.evaluate(MOVE_JS, [k, ctl["param"], i])
                after = page.evaluate(SNAPSHOT_JS, k)
                w = f"{where}, {ctl['param']} -> position {i}"
                moved = next(c for c in after["controls"] if c["param"] == ctl["param"])
                assert moved["index"] == i, f"{w}: control did not move"
                assert moved["shown"] and moved["shown"].strip(), (
                    f"{w}: the value shown next to the control is empty"
                )
                assert after["params"] != before["params"], f"{w}: data-params did not change"
                assert _picture(after) != _picture(before), f"{w}: the picture did not change"
                fars.append(_check_frame(after, w))
                before = after
        fars = [f for f in fars if f is not None]
        if fars:
            margin(f"{where}: colour distance of the extreme weights", min(fars), 40)


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS)
def test_explorers_redraw_and_match_attnlib(visits, margin, name):
    v = visits(name)
    seen_requests, seen_failed, seen_console = (
        len(v.requests),
        len(v.failed),
        len(v.console_errors()),
    )
    _walk_every_control(v.page, name, v.info.get("views", 0), "desktop, light", margin)
    # Moving the controls asked for nothing and logged nothing.
    assert len(v.requests) == seen_requests, (
        f"{name}: requests while moving sliders: {v.requests[seen_requests:]}"
    )
    assert len(v.failed) == seen_failed, (
        f"{name}: failures while moving sliders: {v.failed[seen_failed:]}"
    )
    assert len(v.console_errors()) == seen_console, (
        f"{name}: console errors while moving sliders: {v.console_errors()[seen_console:]}"
    )


@pytest.mark.parametrize("name", PAGES)
def test_explorers_redraw_and_match_attnlib_on_a_phone_in_dark_mode(browser, visits, margin, name):
    """The same walk at 390 x 844 (touch, mobile viewport) with the OS in dark mode, on every
    page with explorers; every page is dark, no wider than the phone, and saved as a
    screenshot (_build/screenshots/*__phone-dark.png)."""
    v = visits(name)
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
        color_scheme="dark",
        service_workers="block",
    )
    page = ctx.new_page()
    errors, requests = [], []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{visits.base_url}/{name}", wait_until="load")
        wake_explorers(page)
        assert page.evaluate("() => document.documentElement.dataset.theme") == "dark", (
            f"{name}: not dark"
        )
        page.evaluate("() => document.fonts.ready.then(() => true)")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        stem = name.replace("/", "__").removesuffix(".html")
        page.screenshot(path=str(SCREENSHOTS / f"{stem}__phone-dark.png"), full_page=True)
        page.wait_for_load_state("networkidle")  # what the screenshot fetched, before listening
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= 390, f"{name}: page is {wide} px wide on a 390 px phone in dark mode"
        page.on("request", lambda r: requests.append(r.url))
        if v.info.get("views", 0):
            _walk_every_control(page, name, v.info["views"], "390 px, dark", margin)
        else:
            assert name not in EXPLORER_CHAPTERS, f"{name}: a chapter without an explorer"
        assert not requests, f"{name}: requests while moving sliders on a phone: {requests}"
        assert not errors, f"{name}: console errors on a phone in dark mode: {errors}"
    finally:
        ctx.close()


def test_chapters_without_explorers_are_the_declared_ones():
    """The explorer tests leave out CHAPTERS_WITHOUT_EXPLORERS: exactly the chapters whose
    committed notebook saves no explorer (a widget view), so none drops out unnoticed."""
    import json

    view = "application/vnd.jupyter.widget-view+json"
    without = []
    for page in CHAPTERS:
        nb = json.loads((ROOT / page.replace(".html", ".ipynb")).read_text(encoding="utf8"))
        outputs = [o for c in nb["cells"] for o in c.get("outputs", [])]
        if not any(view in o.get("data", {}) for o in outputs):
            without.append(page)
    assert without == CHAPTERS_WITHOUT_EXPLORERS
