"""How a chapter is paced on a phone, measured in the built book (issue 39, item 2).

Shared by ``tests/browser/reading/test_pacing.py`` (which holds every chapter to the targets)
and ``benchmarks/pacing.py`` (which prints one row per page). All lengths are in **phone
screens**: CSS pixels over the window's height, at 390 x 844 (touch, mobile viewport), with
the page laid out as a reader meets it: every explorer drawn, every figure loaded (lazy images
are made eager first, so a picture below the fold has its real height), folded solutions
closed.

A **picture** is what the reader looks at rather than reads: an explorer (the whole
``.attn-explorer``, its controls sitting next to what they change), a figure image (``img``),
a drawing (a top-level ``svg``, e.g. a diagram), a ``canvas`` or ``video``, at least
``MIN_W`` x ``MIN_H`` CSS px on screen (icons and inline glyphs are not pictures). Pictures
that overlap vertically are merged into one stretch.

- **length**: the bottom of the article (``.book-article``: the chapter with its exercises,
  not the footer's navigation), from the top of the page;
- **first picture**: the top of the first picture, from the top of the page;
- **longest run**: the longest vertical stretch of the article with no picture in it,
  counting the stretch before the first picture (from the article's top) and the one after the
  last (to the article's bottom); ``runs`` lists every stretch over ``RUN_REPORT`` screens with
  the section it starts in, so a failure says where to add a picture or cut.

Targets (issue 39's "done when"): length <= ``MAX_SCREENS``, first picture <= ``FIRST_PICTURE``,
longest run <= ``MAX_RUN``.
"""

from __future__ import annotations

MAX_SCREENS = 20.0
FIRST_PICTURE = 1.5
MAX_RUN = 4.0
RUN_REPORT = 2.5
MIN_W, MIN_H = 80, 60

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
}

# Makes every lazy image eager and waits until each has loaded (or failed) and decoded, so the
# layout below is the one a reader who scrolled there would see.
LOAD_IMAGES_JS = """
async (timeoutMs) => {
  const imgs = [...document.querySelectorAll('.book-article img')];
  for (const i of imgs) if (i.loading === 'lazy') i.loading = 'eager';
  const one = (i) => i.complete ? Promise.resolve() :
    new Promise((r) => { i.addEventListener('load', r, {once: true}); i.addEventListener('error', r, {once: true}); });
  await Promise.race([
    Promise.all(imgs.map(one)),
    new Promise((_, no) => setTimeout(() => no(new Error(`images not loaded in ${timeoutMs} ms`)), timeoutMs)),  // a bound, not a wait
  ]);
  await Promise.all(imgs.map((i) => i.decode().catch(() => null)));
  return imgs.length;
}
"""

PACING_JS = """
([minW, minH, report]) => {
  const H = window.innerHeight;
  const article = document.querySelector('.book-article');
  const top0 = (r) => r.top + scrollY;
  const a = article.getBoundingClientRect();
  const aTop = top0(a), aBottom = aTop + a.height;
  const sel = '.attn-explorer, img, svg, canvas, video';
  const spans = [];
  for (const e of article.querySelectorAll(sel)) {
    if (e.matches('svg') && e.parentElement.closest('svg')) continue;
    if (!e.matches('.attn-explorer') && e.closest('.attn-explorer')) continue;  // counted whole
    if (e.closest('button, summary, a.headerlink')) continue;
    if (!e.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    const r = e.getBoundingClientRect();
    if (r.width < minW || r.height < minH) continue;
    spans.push([top0(r), top0(r) + r.height, e]);
  }
  spans.sort((x, y) => x[0] - y[0]);
  const merged = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
    else merged.push([s[0], s[1]]);
  }
  // the section a point of the page lies in (its nearest heading above)
  const heads = [...article.querySelectorAll('h1, h2, h3')].map((h) => [top0(h.getBoundingClientRect()), h.textContent.replace(/[#¶]/g, '').trim()]);
  const sectionAt = (y) => { let s = '(top)'; for (const [t, name] of heads) if (t <= y + 1) s = name; return s; };
  const runs = [];
  let from = aTop;
  for (const [t, b] of merged) {
    if (t > from) runs.push([from, t]);
    from = Math.max(from, b);
  }
  if (aBottom > from) runs.push([from, aBottom]);
  const longest = runs.reduce((m, [t, b]) => Math.max(m, b - t), 0);
  return {
    screens: aBottom / H,
    page_screens: document.scrollingElement.scrollHeight / H,
    first_picture: merged.length ? merged[0][0] / H : null,
    pictures: spans.length,
    longest_run: longest / H,
    runs: runs.filter(([t, b]) => (b - t) / H > report).map(([t, b]) => ({
      from: t / H, screens: (b - t) / H, section: sectionAt(t),
    })),
  };
}
"""


def pacing(page, timeout_ms: int = 30_000) -> dict:
    """The pacing of ``page`` (already loaded at phone size, explorers woken) in phone screens:
    {"screens", "page_screens", "first_picture", "pictures", "longest_run", "runs": [{"from",
    "screens", "section"}, ...]}."""
    page.evaluate(LOAD_IMAGES_JS, timeout_ms)
    return page.evaluate(PACING_JS, [MIN_W, MIN_H, RUN_REPORT])


def failures(name: str, p: dict) -> list[str]:
    """What of ``p`` (from ``pacing``) misses the targets, one sentence each, naming ``name``."""
    out = []
    if p["screens"] > MAX_SCREENS:
        out.append(f"{name}: {p['screens']:.1f} phone screens long (at most {MAX_SCREENS:g})")
    if p["first_picture"] is None or p["first_picture"] > FIRST_PICTURE:
        fp = "none" if p["first_picture"] is None else f"{p['first_picture']:.1f} screens down"
        out.append(f"{name}: first picture {fp} (at most {FIRST_PICTURE:g})")
    for r in p["runs"]:
        if r["screens"] > MAX_RUN:
            out.append(
                f"{name}: {r['screens']:.1f} screens without a picture from screen "
                f"{r['from']:.1f}, in section {r['section']!r} (at most {MAX_RUN:g})"
            )
    return out
