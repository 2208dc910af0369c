"""The pages around the chapters open on a picture a phone can read (issue 39, item 7).

The landing page (intro.md: attention in one picture) and the closing page (closing.md: the
road through the book), every page of scoringbook.manifest.OTHER_PAGES but the notation
(a page to look things up in), each draw an inline SVG in the page's own colours. At 390 x 844, in
light and in dark mode:

- the page's first picture starts within 1.5 phone screens, and no stretch of it runs more
  than 4 screens without a picture (devtools/_pacing.py's measure, as for the chapters);
- the drawing is an image with a name and a description (role="img", <title>, <desc>), or,
  where its parts link to chapters, a group with them (role="group");
- every piece of its text is at least 0.8 of the body's font size as shown, lies inside the
  drawing (nothing cut off), and has 4.5:1 contrast on the page; every line and outline has
  3:1 (WCAG 1.4.11), so the figure reads in both modes.
"""

from __future__ import annotations

import pytest
from _pacing import FIRST_PICTURE, MAX_RUN, PHONE, pacing

from scoringbook import manifest

from ..conftest import fresh_page

pytestmark = pytest.mark.browser

# The book's pages other than chapters (the manifest's), but for the ones a reader looks things
# up in rather than reads through.
REFERENCE_PAGES = ("notation",)
PAGES = [f"{p}.html" for p in manifest.OTHER_PAGES if p not in REFERENCE_PAGES]

SVG_JS = """
() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const contrast = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const bg = rgb(getComputedStyle(document.body).backgroundColor);
  const body = parseFloat(getComputedStyle(document.querySelector('.book-article p')).fontSize);
  return [...document.querySelectorAll('.book-article figure svg')].map((svg) => {
    const box = svg.getBoundingClientRect();
    const scale = box.width / svg.viewBox.baseVal.width;
    const ids = [svg.getAttribute('aria-labelledby'), svg.getAttribute('aria-describedby')]
      .join(' ').split(/\\s+/).filter(Boolean);
    const named = ids.map((i) => document.getElementById(i)?.textContent.trim() || '');
    const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim()).map((t) => {
      const r = t.getBoundingClientRect(), cs = getComputedStyle(t);
      return {text: t.textContent.trim(), px: parseFloat(cs.fontSize) * scale,
              inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5,
              contrast: contrast(rgb(cs.fill), bg)};
    });
    const lines = [...svg.querySelectorAll('path, circle, rect, line')].filter((e) => {
      const cs = getComputedStyle(e); return cs.stroke !== 'none' && parseFloat(cs.strokeWidth) > 0;
    }).map((e) => ({cls: e.getAttribute('class') || e.parentElement.getAttribute('class'),
                    contrast: contrast(rgb(getComputedStyle(e).stroke), bg)}));
    return {role: svg.getAttribute('role'), named, width: box.width, body, texts, lines,
            links: svg.querySelectorAll('a[href]').length};
  });
}
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGES)
def test_the_page_opens_on_a_picture_a_phone_reads(browser, base_url, name, scheme):
    with fresh_page(browser, f"{base_url}/{name}", color_scheme=scheme, **PHONE) as page:
        assert page.evaluate("() => document.documentElement.dataset.theme") == scheme
        p = pacing(page)
        svgs = page.evaluate(SVG_JS)
    assert p["pictures"] >= 1 and p["first_picture"] is not None, f"{name}: no picture: {p}"
    assert p["first_picture"] <= FIRST_PICTURE, f"{name}: first picture at {p['first_picture']}"
    assert p["longest_run"] <= MAX_RUN, (
        f"{name}: {p['longest_run']:.2f} phone screens without a picture (at most {MAX_RUN:g}): "
        f"{p['runs']}"
    )
    assert svgs, f"{name}: no drawing in a <figure>"
    for svg in svgs:
        where = f"{name} ({scheme}, drawn {svg['width']:.0f} px wide)"
        # a drawing is an image; one whose parts are links (the closing page's road) is a
        # group, so its links stay links for a screen reader
        want = "group" if svg["links"] else "img"
        assert svg["role"] == want, f"{where}: role={svg['role']!r} with {svg['links']} links"
        assert len(svg["named"]) == 2 and svg["named"][0] and len(svg["named"][1]) >= 80, (
            f"{where}: title and description {svg['named']}"
        )
        small = [t for t in svg["texts"] if t["px"] < 0.8 * svg["body"] - 0.05]
        assert not small, f"{where}: text under 0.8 x {svg['body']} px: {small}"
        cut = [t["text"] for t in svg["texts"] if not t["inside"]]
        assert not cut, f"{where}: text cut off at the drawing's edge: {cut}"
        faint = [t for t in svg["texts"] if t["contrast"] < 4.5]
        assert not faint, f"{where}: text under 4.5:1: {faint}"
        weak = [x for x in svg["lines"] if x["contrast"] < 3]
        assert not weak, f"{where}: lines and outlines under 3:1: {weak}"
