"""The chapters' static figures as readers see them: legible on a phone, dark on a dark page,
and each reader fetches only the one picture shown; on every page every image loads, and
every figure has alt text that says something and is drawn at twice its CSS size.

attnlib's figures come as a light and a dark ``<picture>`` (web/book_ext.py), each with a
narrow ``<source>`` for phones when the figure is wider than 3.6 in (attnlib.plotting's
NARROW_WIDTH, drawn for a 390-px phone's 358-px column); every PNG carries
``data-label-scale``, its smallest text's size in CSS px per CSS px of width, computed by
attnlib from what the renderer drew (attnlib.plotting.variants). Here, in Chromium, each
figure is scrolled into view as a reader would; then its smallest text is that scale times
the width the picture is shown at (at least 9 CSS px; 10.5 on a 390-px phone), and its
painted pixels tell light from dark.
"""

from __future__ import annotations

import contextlib
import re

import pytest

from .._reader import reads
from ..conftest import CHAPTERS, PAGES, SCREENSHOTS

# the 1280 px cases read the desktop ``reading`` (tests/browser/_reader.py): one load per page
# and mode serves them and the other files' checks of that view
pytestmark = pytest.mark.browser

MIN_LABEL_PX = 9.0  # issue 16: every static figure's labels >= 9 CSS px
#: On a 390-px phone, where a figure shows its narrow variant across the 358-px column
#: (issue 39: 9.2-9.9 px when the variants were drawn 4.2 in wide and shown at 342 px).
PHONE_LABEL_PX = 10.5

FIGURES_JS = """
async () => {
  // a figure: attnlib's light <picture> (its dark twin is the same figure), or a bare image
  const figures = [...document.querySelectorAll('.book-article .cell_output img')]
    .filter(i => !i.closest('picture.only-dark')).length;
  const shown = [];
  for (const out of document.querySelectorAll('.book-article .cell_output')) {
    const imgs = [...out.querySelectorAll('img')].filter(i => i.checkVisibility());
    for (const img of imgs) {
      img.scrollIntoView({block: 'center'});
      if (!img.complete || !img.naturalWidth) {
        await Promise.race([new Promise((r) => { img.addEventListener('load', r, {once: true});
                                                 img.addEventListener('error', r, {once: true}); }),
                            new Promise((r) => setTimeout(r, 10000))]);  // a bound, not a wait
      }
      const pic = img.closest('picture');
      const src = img.currentSrc, abs = (u) => new URL(u, location.href).href;
      let scale = null, layout = null;
      if (pic) {
        for (const s of pic.querySelectorAll('source')) {
          if (abs(s.getAttribute('srcset')) === src) { scale = +s.dataset.labelScale; layout = 'narrow'; }
        }
      }
      if (layout === null && abs(img.getAttribute('src')) === src) { scale = +img.dataset.labelScale || null; layout = 'wide'; }
      // the mean luminance (0 black .. 1 white) of the picture's edge, its background
      let lum = null;
      if (img.naturalWidth) {
        const c = document.createElement('canvas');
        c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d');
        g.drawImage(img, 0, 0);
        const d = g.getImageData(0, 0, c.width, c.height).data;
        let s = 0, n = 0;
        for (let y = 0; y < c.height; y++) {
          for (let x = 0; x < c.width; x++) {
            if (x > 2 && y > 2 && x < c.width - 3 && y < c.height - 3) continue;
            const k = 4 * (y * c.width + x);
            s += (0.2126 * d[k] + 0.7152 * d[k + 1] + 0.0722 * d[k + 2]) / 255; n++;
          }
        }
        lum = s / n;
      }
      // what the page paints around the picture: the image's own background (a card?)
      const card = getComputedStyle(img).backgroundColor;
      shown.push({src, layout, scale, width: img.getBoundingClientRect().width, lum, card,
                  loaded: img.complete && img.naturalWidth > 0,
                  picture: pic ? [...pic.classList] : null, narrowAvailable: !!(pic && pic.querySelector('source')),
                  alt: img.getAttribute('alt')});
    }
  }
  window.scrollTo(0, 0);
  return {figures, shown};
}
"""

# The phone cases (390 px, light and dark) are checked in test_on_a_phone.py, on the load that
# serves every phone check of a page (one load per page and colour mode, issue 36).
CASES = [(768, "light"), (1280, "light"), (1280, "dark")]


@contextlib.contextmanager
def _reader(browser, url, width, scheme):
    mobile = width < 600
    ctx = browser.new_context(
        viewport={"width": width, "height": 844 if mobile else 900},
        is_mobile=mobile,
        has_touch=mobile,
        color_scheme=scheme,
        service_workers="block",
    )
    page = ctx.new_page()
    pngs = []
    page.on("request", lambda r: "/_images/" in r.url and pngs.append(r.url))
    try:
        page.goto(url, wait_until="load")
        yield page, pngs
    finally:
        ctx.close()


def read_figures(page, pngs: list, name: str, width: int, scheme: str) -> tuple[dict, list]:
    """FIGURES_JS on ``page`` (each figure scrolled into view as a reader would), and the figure
    PNGs fetched so far (``pngs``: every /_images/ request since the load); at 390 px in light
    mode a full-page screenshot, taken after the PNGs are counted (it lays the page out at
    other sizes; the dark phone view's is explorers/test_explorers_match_attnlib.py's)."""
    got = page.evaluate(FIGURES_JS)
    fetched = sorted(set(pngs))
    if width == 390 and scheme == "light":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(
            path=str(
                SCREENSHOTS
                / f"{name.replace('/', '__').removesuffix('.html')}--figures-{width}-{scheme}.png"
            ),
            full_page=True,
            scale="css",
        )
    return got, fetched


def check_figures(got: dict, fetched: list, margin, name: str, width: int, scheme: str) -> None:
    """Every figure shown is legible in the mode, and only the pictures shown were fetched."""
    where = f"{name} at {width} px, {scheme}"
    shown = got["shown"]
    assert got["figures"] > 0, f"{where}: no figure at all?"
    assert len(shown) == got["figures"], (
        f"{where}: {got['figures']} figures but {len(shown)} pictures shown (each figure shows exactly one)"
    )
    problems = []
    for k, f in enumerate(shown):
        what = f"{where}, figure {k + 1} ({(f['alt'] or '')[:50]!r})"
        if not f["loaded"]:
            problems.append(f"{what}: did not load ({f['src']})")
            continue
        if not f["picture"] or "attn-figure" not in f["picture"] or f["scale"] is None:
            problems.append(
                f"{what}: not an attnlib figure with variants and a label scale: {f['src']}"
            )
            continue
        label = f["scale"] * f["width"]
        least = PHONE_LABEL_PX if width == 390 else MIN_LABEL_PX
        margin(f"{what}: smallest text px", label, least)
        if scheme == "dark":
            margin(f"{what}: background luminance, dark", f["lum"], 0.2, at_least=False)
        else:
            margin(f"{what}: background luminance, light", f["lum"], 0.9)
        if label < least:
            problems.append(
                f"{what}: smallest text {label:.2f} CSS px (< {least}) in the {f['layout']} "
                f"picture shown {f['width']:.0f} px wide"
            )
        if f"only-{scheme}" not in f["picture"]:
            problems.append(f"{what}: shows the {f['picture']} picture on a {scheme} page")
        if scheme == "dark" and not f["lum"] < 0.2:  # sRGB luma: the dark card #1b1b1f is 0.11
            problems.append(
                f"{what}: its background has luminance {f['lum']:.2f} on a dark page (glares)"
            )
        if scheme == "dark":
            rgba = [float(t) for t in re.findall(r"[\d.]+", f["card"])]
            alpha = rgba[3] if len(rgba) > 3 else 1.0
            luma = (0.2126 * rgba[0] + 0.7152 * rgba[1] + 0.0722 * rgba[2]) / 255
            if alpha > 0 and luma > 0.2:
                problems.append(f"{what}: shown on a light card ({f['card']}) on a dark page")
        if scheme == "light" and not f["lum"] > 0.9:
            problems.append(f"{what}: its background has luminance {f['lum']:.2f} on a light page")
        if width == 390 and f["narrowAvailable"] and f["layout"] != "narrow":
            problems.append(f"{what}: a phone shows the wide picture though a narrow one exists")
    assert not problems, "\n".join(problems)
    # Only what is shown was fetched: neither the other mode's pictures nor the other layout's.
    wanted = sorted({f["src"] for f in shown})
    extra = [u for u in fetched if u not in wanted]
    assert not extra, f"{where}: fetched {len(extra)} figure PNGs it never shows: {extra[:4]}"


@reads("figures", "figures")
def _figures(page, reading) -> tuple[dict, list]:
    return read_figures(page, reading.pngs, reading.name, 1280, reading.scheme)


@pytest.mark.parametrize("width, scheme", CASES, ids=[f"{w}-{s}" for w, s in CASES])
@pytest.mark.parametrize("name", CHAPTERS)
def test_figures_are_legible_in_the_mode_and_fetched_once(
    browser, base_url, reading, margin, name, width, scheme
):
    if width == 1280:  # the desktop reading's load, shared with the other checks of that view
        got, fetched = reading(name, scheme).get("figures")
    else:
        with _reader(browser, f"{base_url}/{name}", width, scheme) as (page, pngs):
            got, fetched = read_figures(page, pngs, name, width, scheme)
    check_figures(got, fetched, margin, name, width, scheme)


# ----------------------------------------------------------------------------- every image, alt text

# Figures load lazily (loading="lazy"): bring each into view, as a reader scrolling would,
# and wait until it has loaded or failed; then back to the top. Only the images the page
# renders: each figure also has a variant for the other colour mode, display: none and so
# never fetched (test_figures_are_legible_in_the_mode_and_fetched_once checks those).
SCROLL_IMAGES_JS = """
async () => {
  const shown = [...document.images].filter((i) => i.checkVisibility());
  for (const i of shown) {
    i.scrollIntoView({block: 'center'});
    if (!i.complete) {
      await Promise.race([new Promise((r) => { i.addEventListener('load', r, {once: true});
                                               i.addEventListener('error', r, {once: true}); }),
                          new Promise((r) => setTimeout(r, 10000))]);  // a bound, not a wait
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


@pytest.mark.parametrize("name", CHAPTERS)
def test_figures_have_alt_text_and_are_sharp(visits, margin, name):
    imgs = [
        i for i in visits(name).page.evaluate(SCROLL_IMAGES_JS) if "_images/" in (i["src"] or "")
    ]
    assert imgs, f"{name}: no figures"
    for i in imgs:
        assert i["lazy"] and i["sized"], (
            f"{name}: figure {i['src']} is not lazy with a reserved size"
        )
        alt = (i["alt"] or "").strip()
        assert (
            len(alt) >= 40 and not re.search(r"\.(png|svg|jpe?g)$", alt) and "_images" not in alt
        ), f"{name}: figure {i['src']} has alt text {alt!r}"
        if i["shown"]:
            margin(
                f"{name}: figure {i['src'].rsplit('/', 1)[-1][:12]}, pixels per CSS px",
                i["natural"] / i["shown"],
                1.9,
            )
        assert i["shown"] and i["natural"] >= 1.9 * i["shown"], (
            f"{name}: figure {i['src']} is {i['natural']} px wide shown at {i['shown']} px "
            "(not 2x)"
        )
