"""Issue 39: the landing page's table of chapters names every column (its first header cell
was empty), and the closing page's road links each numbered stop to its chapter, as the
landing page's table does."""

from __future__ import annotations

import pytest

from .._reader import _load
from ..conftest import CHAPTERS

pytestmark = pytest.mark.browser


def test_the_landing_pages_table_names_every_column(browser, base_url):
    ctx, page, _ = _load(browser, base_url, "intro.html")
    try:
        tables = page.evaluate(
            """() => [...document.querySelectorAll('.book-article table')].map((t) =>
              [...t.querySelectorAll('thead th')].map((th) =>
                (th.getAttribute('aria-label') || th.innerText).trim()))"""
        )
    finally:
        ctx.close()
    chapters = [t for t in tables if "chapter" in t]
    assert len(chapters) == 1, f"intro.html: tables {tables}"
    assert all(chapters[0]), f"intro.html: a header cell with no name: {chapters[0]}"


def test_the_closing_road_links_every_stop_to_its_chapter(browser, base_url):
    ctx, page, _ = _load(browser, base_url, "closing.html")
    try:
        stops = page.evaluate(
            """() => [...document.querySelectorAll('.attn-road svg a')].map((a) => ({
              n: a.querySelector('.attn-road-n').textContent.trim(),
              href: new URL(a.getAttribute('href'), location.href).pathname,
              name: a.textContent.trim()}))"""
        )
        codes = [
            page.request.get(f"{base_url}{s['href']}").status for s in stops
        ]  # each target is served
    finally:
        ctx.close()
    assert [s["n"] for s in stops] == [str(k) for k in range(1, len(CHAPTERS) + 1)], stops
    for s, chapter, code in zip(stops, CHAPTERS, codes):
        assert s["href"] == f"/{chapter}", f"stop {s['n']} links to {s['href']}, not {chapter}"
        assert code == 200, f"stop {s['n']}: {s['href']} answers {code}"
        assert len(s["name"]) > 3, f"stop {s['n']}: no words in the link"
