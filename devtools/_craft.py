"""How an explorer meets a reader's screen, measured in the built book (Chromium): shared by
``tests/browser/explorers/test_explorer_craft.py`` (which asserts the targets of the book's layout
issue) and ``benchmarks/explorer_craft.py`` (which prints one row per explorer).

Every number comes from what the page lays out and paints, never from the explorer's spec:

- **height**: the explorer's box over the viewport's height (``window.innerHeight``), without
  its list of things to try (``tour``, reported apart): since issue 39 that list sits above
  the controls, a visible list read before the explorer, not a row inside it.
- **share in view** of a control: the control is operated the way a reader would, after
  arriving at the explorer in two ways (its top at the top of the visible page, below the
  theme's sticky header; or its bottom at the bottom of the window) and bringing the control
  into view with the smallest scroll (``scrollIntoView({block: "nearest"})``). The pictures
  it changes are found by comparing every picture before and after; the share is the part of
  those pictures' area that is on screen and not covered (hit-tested on a 24 x 24 grid of
  points per picture with ``document.elementFromPoint``), the smaller of the two arrivals.
  A control that is itself not on screen or covered when operated scores 0.
- **swipe-safe**: a vertical finger swipe (CDP ``Input.dispatchTouchEvent``) that starts on
  a picture, away from its handle, scrolls the page and leaves ``data-params`` unchanged.
- **contrast**: WCAG contrast ratios of painted colours against the explorer's background.
"""

from __future__ import annotations

from _pages import wake_explorers
from _wait import wait_still

# Helpers installed in the page (window.__craft), used by the snippets below.
HELPERS_JS = r"""
() => {
  if (window.__craft) return true;
  const rgbOf = (s) => {
    const m = String(s).match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const contrast = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  // the colour behind an element: the first ancestor with an opaque background
  const bgOf = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgbOf(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0.99) return c;
    }
    return {r: 255, g: 255, b: 255, a: 1};
  };
  const pictures = (ex) => [...ex.querySelectorAll('svg.attn-lines, svg.attn-heatmap')];
  const signature = (svg) => {
    if (svg.classList.contains('attn-heatmap')) {
      const img = svg.querySelector('image.attn-cells');
      return (img && img.getAttribute('href')) + '|' + [...svg.querySelectorAll('.attn-tick')].map((t) => t.textContent).join(',');
    }
    // everything drawn, without the reader's focus rings (linked views)
    return svg.innerHTML.replace(/ class="attn-linked"/g, '');
  };
  // The page's sticky header (#book-header, web/theme/CONTRACT.md): how far down the visible
  // page starts when the page is scrolled.
  const topCover = () => {
    let bottom = 0;
    for (const e of document.querySelectorAll('#book-header')) {
      const s = getComputedStyle(e), b = e.getBoundingClientRect();
      if ((s.position === 'sticky' || s.position === 'fixed') && b.top <= 0.5 && b.height > 0 && s.display !== 'none') bottom = Math.max(bottom, b.bottom);
    }
    return bottom;
  };
  const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  // the theme scrolls smoothly; measurements need the page where it was sent
  const scrollTo = (y) => window.scrollTo({top: y, left: 0, behavior: 'instant'});
  // arrive at the explorer: 'top' (its top just below the sticky header; the top of what
  // follows its list of things to try, which is read before it as the text above it is) or
  // 'bottom' (its bottom at the bottom of the window)
  const arrive = async (ex, how) => {
    const b = ex.getBoundingClientRect();
    const tour = ex.querySelector(':scope > .attn-presets');
    if (how === 'top') {
      scrollTo(scrollY + (tour ? tour.getBoundingClientRect().bottom : b.top));
      await frames();
      scrollTo(scrollY - topCover());
    } else scrollTo(scrollY + b.bottom - innerHeight);
    await frames();
  };
  // the share of the elements' area that is on screen and not covered by anything else
  const share = (els, n = 24) => {
    let seen = 0, all = 0;
    for (const el of els) {
      const b = el.getBoundingClientRect();
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
        const x = b.left + (i + 0.5) * b.width / n, y = b.top + (j + 0.5) * b.height / n;
        all++;
        if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
        const hit = document.elementFromPoint(x, y);
        if (hit && (hit === el || el.contains(hit))) seen++;
      }
    }
    return all ? seen / all : 0;
  };
  // is the control on screen and not covered (its centre, or a handle's dot, hit-tests to it)?
  const reachable = (el) => {
    const target = el.querySelector && el.querySelector('.attn-handle-dot') || el;
    const b = target.getBoundingClientRect();
    const x = b.left + b.width / 2, y = b.top + b.height / 2;
    if (b.width === 0 || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
    const hit = document.elementFromPoint(x, y);
    return !!hit && (hit === el || el.contains(hit) || !!(el.labels && [...el.labels].some((l) => l.contains(hit))));
  };
  // The controls a reader operates: sliders, choices, text fields, dragged points, Play.
  const controls = (ex) => {
    const out = [];
    for (const c of ex.querySelectorAll('.attn-slider, .attn-choice, .attn-text, .attn-handle, .attn-play-button')) {
      if (c.closest('[hidden]') || getComputedStyle(c).display === 'none' || c.getClientRects().length === 0) continue;
      const kind = c.classList.contains('attn-handle') ? 'handle' : c.classList.contains('attn-play-button') ? 'play'
        : c.classList.contains('attn-text') ? 'text' : c.tagName === 'SELECT' ? 'choice' : 'slider';
      const name = kind === 'handle' ? `handle (${c.dataset.handle})` : kind === 'play' ? `Play (${c.dataset.param})`
        : c.dataset.param;
      out.push({kind, name, el: c});
    }
    return out;
  };
  // Operate a control once (a small change, as a reader would) and let the page redraw.
  const operate = async (c) => {
    const el = c.el;
    if (c.kind === 'slider') {
      const v = +el.value, max = +el.max;
      el.value = String(v + Math.max(1, Math.round(max / 5)) <= max ? v + Math.max(1, Math.round(max / 5)) : Math.max(0, v - Math.max(1, Math.round(max / 5))));
      el.dispatchEvent(new Event('input', {bubbles: true}));
    } else if (c.kind === 'choice') {
      el.value = String((+el.value + 1) % el.options.length);
      el.dispatchEvent(new Event('change', {bubbles: true}));
    } else if (c.kind === 'text') {
      el.value = el.value === 'the cat sat on the mat' ? 'a a a' : 'the cat sat on the mat';
      el.dispatchEvent(new Event('input', {bubbles: true}));
    } else if (c.kind === 'handle') {
      const ex = el.closest('.attn-explorer'), before = ex.dataset.params;
      for (const key of ['ArrowRight', 'ArrowUp', 'ArrowLeft', 'ArrowDown']) {
        for (let t = 0; t < 5; t++) el.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true, cancelable: true}));
        if (ex.dataset.params !== before) break;
      }
    } else if (c.kind === 'play') {
      const ex = el.closest('.attn-explorer'), f0 = ex.dataset.frame;
      el.click();
      // played until the picture has moved on a frame (or 5 s have passed), then paused
      for (let t0 = performance.now(); ex.dataset.frame === f0 && performance.now() - t0 < 5000;)
        await new Promise((r) => requestAnimationFrame(r));
      if (/pause/i.test(el.textContent)) el.click();
    }
    await frames();
  };
  window.__craft = {rgbOf, lum, contrast, bgOf, pictures, signature, topCover, frames, scrollTo, arrive, share, reachable,
                    controls, operate};
  return true;
}
"""

# Explorer k: its height over the window's, and, for each control, the share of the pictures
# it changes that is in view while it is operated (the smaller of the two arrivals).
LAYOUT_JS = r"""
async (k) => {
  const C = window.__craft;
  const ex = document.querySelectorAll('.attn-explorer')[k];
  C.scrollTo(0);
  await C.frames();
  // the list of things to try above the controls (issue 39: a visible list, read before the
  // explorer as the sentence introducing it is) is not counted in the explorer's height
  const tour = ex.querySelector(':scope > .attn-presets');
  const tourH = tour ? tour.getBoundingClientRect().height + parseFloat(getComputedStyle(tour).marginBottom) : 0;
  const height = (ex.getBoundingClientRect().height - tourH) / innerHeight;
  const result = {name: ex.dataset.explorer, height, tour: tourH / innerHeight, controls: []};
  const ctls = C.controls(ex);
  for (let i = 0; i < ctls.length; i++) {
    const c = C.controls(ex)[i];
    const row = {name: c.name, kind: c.kind, arrivals: {}};
    for (const how of ['top', 'bottom']) {
      await C.arrive(ex, how);
      c.el.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'});
      await C.frames();
      const reachable = C.reachable(c.el);
      const pics = C.pictures(ex), before = pics.map(C.signature);
      const params = ex.dataset.params;
      // measured while the control is being operated, before the page moves on
      const y = scrollY;
      await C.operate(c);
      const changed = pics.filter((p, j) => C.signature(p) !== before[j]);
      const moved = Math.abs(scrollY - y);
      row.arrivals[how] = {reachable, changed: changed.map((p) => p.dataset.panel),
                           share: reachable ? (changed.length ? C.share(changed) : 0) : 0,
                           paramsChanged: ex.dataset.params !== params, scrolled: moved};
      // back to the starting positions, so each control is measured from the same picture
      const reset = ex.querySelector('.attn-reset');
      if (reset) { reset.click(); await C.frames(); }
    }
    row.share = Math.min(...Object.values(row.arrivals).map((a) => a.share));
    row.changed = [...new Set(Object.values(row.arrivals).flatMap((a) => a.changed))];
    result.controls.push(row);
  }
  return result;
}
"""

# Where a vertical swipe can start on each picture of explorer k: a point inside the picture's
# plot area, as far from its handle (if any) as the picture allows, and at least 48 px away.
SWIPE_POINTS_JS = r"""
(k) => {
  const ex = document.querySelectorAll('.attn-explorer')[k];
  return window.__craft.pictures(ex).map((svg) => {
    const b = svg.getBoundingClientRect();
    const area = svg.querySelector('.attn-drag-area, image.attn-cells, rect.attn-frame') || svg;
    const a = area.getBoundingClientRect();
    const dot = svg.querySelector('.attn-handle-dot');
    const h = dot ? dot.getBoundingClientRect() : null;
    const hc = h ? [h.left + h.width / 2, h.top + h.height / 2] : null;
    let best = null;
    for (const fx of [0.2, 0.5, 0.8]) for (const fy of [0.25, 0.5, 0.75]) {
      const p = [a.left + fx * a.width, a.top + fy * a.height];
      const d = hc ? Math.hypot(p[0] - hc[0], p[1] - hc[1]) : 1e9;
      if (!best || d > best.d) best = {p, d};
    }
    return {panel: svg.dataset.panel, kind: svg.classList.contains('attn-heatmap') ? 'heatmap' : 'lines',
            hasHandle: !!dot, top: b.top + scrollY, point: best.p, distance: best.d};
  });
}
"""

# Dark (or light) mode colours of explorer k: for each heatmap, the explorer's background, the
# painted colour of the smallest shown weight of at least 0.05, and the colour the page paints
# for a weight of exactly 0.05 and of 0 (svg.attnColour, checked against the painted cells);
# for each drawn series, its colour.
COLOURS_JS = r"""
async (k) => {
  const C = window.__craft;
  const ex = document.querySelectorAll('.attn-explorer')[k];
  const bg = C.bgOf(ex);
  const out = {name: ex.dataset.explorer, bg, heatmaps: [], series: []};
  for (const svg of ex.querySelectorAll('svg.attn-heatmap')) {
    const R = +svg.dataset.rows, Cn = +svg.dataset.cols, values = Array.from(svg.attnValues || []);
    const img = svg.querySelector('image.attn-cells');
    const im = new Image();
    im.src = img.getAttribute('href');
    await im.decode();
    const cv = document.createElement('canvas');
    cv.width = Cn; cv.height = R;
    const ctx = cv.getContext('2d');
    ctx.drawImage(im, 0, 0);
    const px = ctx.getImageData(0, 0, Cn, R).data;
    const painted = (i) => ({r: px[4 * i], g: px[4 * i + 1], b: px[4 * i + 2], a: 1});
    let small = -1, zero = -1;
    values.forEach((v, i) => {
      if (v >= 0.05 && (small < 0 || v < values[small])) small = i;
      if (v === 0 && zero < 0) zero = i;
    });
    const mapped = typeof svg.attnColour === 'function';
    const at = (v) => { if (!mapped) return null; const c = svg.attnColour(v); return {r: c[0], g: c[1], b: c[2], a: 1}; };
    // the mapping the page reports must be the one it paints
    let mismatch = 0;
    // (an empty cell, svg.attnEmpty: beyond a stored frame's labels, is painted off the scale)
    const nCols = +svg.dataset.cols, off = (i) => !!svg.attnEmpty && svg.attnEmpty(Math.floor(i / nCols), i % nCols);
    if (mapped) values.forEach((v, i) => { if (off(i)) return; const c = at(v), p = painted(i); mismatch = Math.max(mismatch, Math.abs(c.r - p.r), Math.abs(c.g - p.g), Math.abs(c.b - p.b)); });
    const frame = svg.querySelector('.attn-frame');
    out.heatmaps.push({
      panel: svg.dataset.panel,
      smallest: small < 0 ? null : {value: values[small], colour: painted(small), contrast: C.contrast(painted(small), bg)},
      zeroCell: zero < 0 ? null : {colour: painted(zero), contrast: C.contrast(painted(zero), bg)},
      at005: mapped ? {colour: at(0.05), contrast: C.contrast(at(0.05), bg)} : null,
      at0: mapped ? {colour: at(0), contrast: C.contrast(at(0), bg)} : null,
      frame: frame ? C.rgbOf(getComputedStyle(frame).stroke) : null,
      mapped, mismatch,
    });
  }
  // every drawn series, fixed or changing, the dragged point, and their legend swatches
  const seen = new Set();
  for (const e of ex.querySelectorAll('svg .attn-series, svg .attn-handle-dot, .attn-legend [data-swatch]')) {
    const s = getComputedStyle(e);
    // the paint that carries the series colour: the stroke of a line (class attn-s), the fill
    // of a point (attn-f); without those classes, the stroke if any (a group of points: its fill)
    const paint = e.classList.contains('attn-f') ? s.fill : e.classList.contains('attn-s') ? s.stroke
      : s.stroke && s.stroke !== 'none' && e.tagName !== 'g' ? s.stroke : s.fill;
    const c = C.rgbOf(paint);
    if (!c || c.a === 0) continue;
    const what = e.dataset.series || e.dataset.swatch || (e.classList.contains('attn-handle-dot') ? 'dragged point' : e.tagName);
    const key = what + paint;
    if (seen.has(key)) continue;
    seen.add(key);
    out.series.push({what, colour: c, contrast: C.contrast(c, bg), where: e.closest('svg') ? e.closest('svg').dataset.panel : 'legend'});
  }
  return out;
}
"""

# The smallest text of explorer k as drawn (CSS px after the SVG's scaling), and the font
# size of its inputs and menus.
TEXT_JS = r"""
(k) => {
  const ex = document.querySelectorAll('.attn-explorer')[k];
  let smallest = null;
  const visible = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  for (const t of ex.querySelectorAll('svg text')) {
    if (!visible(t) || !t.textContent.trim()) continue;
    const m = t.getScreenCTM();
    const scale = m ? Math.hypot(m.a, m.b) : 1;
    const px = parseFloat(getComputedStyle(t).fontSize) * scale;
    if (!smallest || px < smallest.px) smallest = {px, text: t.textContent, where: 'svg'};
  }
  const walker = document.createTreeWalker(ex, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement;
    if (!n.textContent.trim() || e.closest('svg') || !visible(e)) continue;
    const px = parseFloat(getComputedStyle(e).fontSize);
    if (!smallest || px < smallest.px) smallest = {px, text: n.textContent.trim().slice(0, 40), where: e.tagName};
  }
  // labels drawn on top of each other or touching, less than 1 px apart side by side (upright
  // text only: a rotated label's box is not its ink)
  const overlaps = [];
  for (const svg of ex.querySelectorAll('svg')) {
    const boxes = [...svg.querySelectorAll('text')]
      .filter((t) => visible(t) && t.textContent.trim() && !/rotate/.test(t.getAttribute('transform') || ''))
      .map((t) => ({text: t.textContent.trim().slice(0, 20), r: t.getBoundingClientRect()}));
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].r, b = boxes[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > -1 && h > 0.5) overlaps.push([boxes[i].text, boxes[j].text, +w.toFixed(1)]);
    }
  }
  const fields = [...ex.querySelectorAll('input, select, textarea, button')].filter(visible).map((e) => ({
    tag: e.tagName, type: e.type, cls: e.className, px: parseFloat(getComputedStyle(e).fontSize)}));
  return {name: ex.dataset.explorer, smallest, overlaps, fields, coarse: matchMedia('(pointer: coarse)').matches};
}
"""

# The targets of the book's layout issue (tests/browser/explorers/test_explorer_craft.py asserts them,
# benchmarks/explorer_craft.py prints each explorer's numbers next to them).
HEIGHT = {"desktop": 1.0, "phone": 1.25}  # the explorer's height over the window's, at most
SHARE = 0.5  # of what a control changes, on screen while it is operated
SWIPE_PX = 40  # a 180 px vertical swipe on a picture scrolls the page at least this far
HANDLE_PX = 48  # ... starting this far from the picture's handle
DARK_005 = 1.5  # contrast of a 0.05 weight against the background, dark mode
ZERO_VS_BG = 1.1  # a zero cell against the background (the map's extent stays visible)
ZERO_VS_FRAME = 1.5  # a zero cell against the map's frame
SERIES = 3.0  # contrast of every series colour against the background
# The two sizes below are met exactly, by construction: explorer.css draws the smallest text at
# 12 px (and heatmap.js lays labels out for it) and sets phone fields to 16 px. They are CSS
# sizes, not measurements that move between machines; the margins summary lists them at +0 %.
TEXT_PX = 12.0  # explorer text, CSS px as drawn
FIELD_PX = 16.0  # inputs and menus where the pointer is coarse (a phone zooms into smaller)
PRINT_PX = 930  # an explorer in print: a printed page (A4 or Letter, default margins) ~ 9.7 in

DESKTOP = {"viewport": {"width": 1280, "height": 900}}
# One device pixel per CSS pixel: every number measured here is in CSS px (boxes, text sizes,
# scrolled distances) or read from a picture's own cells (colours), none from rendered device
# pixels, and the fit walks redraw each explorer dozens of times: at a real phone's 3 device
# pixels per px Chromium rasterises 9x the pixels for the same numbers (issue 36: the phone
# checks' CPU-s; the numbers were the same at 3).
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 1,
}

READY_JS = (
    "() => document.querySelectorAll('script[type=\"application/vnd.jupyter.widget-view+json\"]').length"
    " <= document.querySelectorAll('.attn-explorer[data-ready=true]').length"
)


def open_page(browser, base_url: str, name: str, **context):
    """``name`` in a new context (``context``: Playwright's new_context options), every explorer
    drawn and the craft helpers installed. Returns (context, page)."""
    ctx = browser.new_context(**{**DESKTOP, "service_workers": "block", **context})
    page = ctx.new_page()
    page.goto(f"{base_url}/{name}", wait_until="load")
    # explorers wake as they near the viewport (web/explorer-boot.js): scroll to each as a reader
    # would, wait until it is drawn, and come back to the top
    wake_explorers(page)
    page.wait_for_function(READY_JS)
    page.evaluate("() => document.fonts.ready.then(() => true)")
    page.evaluate(HELPERS_JS)
    return ctx, page


def n_explorers(page) -> int:
    return page.evaluate("() => document.querySelectorAll('.attn-explorer').length")


def layout(page, k: int) -> dict:
    """Height and, per control, the share of what it changes in view (LAYOUT_JS)."""
    return page.evaluate(LAYOUT_JS, k)


def swipe(page, k: int) -> list[dict]:
    """A vertical finger swipe on each picture of explorer k, away from its handle: for each,
    whether the page scrolled and whether the explorer's parameters stayed the same."""
    out = []
    cdp = page.context.new_cdp_session(page)
    try:
        n = len(page.evaluate(SWIPE_POINTS_JS, k))
        for j in range(n):
            pts = page.evaluate(SWIPE_POINTS_JS, k)
            target = pts[j]
            # the picture in the middle of the window, so the page can scroll either way
            page.evaluate(
                "(y) => window.__craft.scrollTo(y - innerHeight / 2 + 60)", target["top"]
            )
            page.evaluate("() => window.__craft.frames()")
            target = page.evaluate(SWIPE_POINTS_JS, k)[j]
            x, y = target["point"]
            before = page.evaluate(
                "(k) => document.querySelectorAll('.attn-explorer')[k].dataset.params", k
            )
            scroll0 = page.evaluate("() => window.scrollY")
            cdp.send(
                "Input.dispatchTouchEvent",
                {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]},
            )
            for t in range(1, 13):
                cdp.send(
                    "Input.dispatchTouchEvent",
                    {"type": "touchMove", "touchPoints": [{"x": x + t * 0.5, "y": y - 15 * t}]},
                )
            cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
            wait_still(page)  # the swipe's scroll (and any fling) has ended
            after = page.evaluate(
                "(k) => document.querySelectorAll('.attn-explorer')[k].dataset.params", k
            )
            scrolled = page.evaluate("() => window.scrollY") - scroll0
            out.append(
                {
                    "panel": target["panel"],
                    "kind": target["kind"],
                    "handle": target["hasHandle"],
                    "distance": target["distance"],
                    "scrolled": scrolled,
                    "params_kept": after == before,
                    "before": before,
                    "after": after,
                }
            )
    finally:
        cdp.detach()
    return out


def colours(page, k: int) -> dict:
    return page.evaluate(COLOURS_JS, k)


def text_sizes(page, k: int) -> dict:
    return page.evaluate(TEXT_JS, k)
