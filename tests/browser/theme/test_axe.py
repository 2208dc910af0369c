"""axe-core (vendored through npm, web/package-lock.json) finds no serious or critical
violation on any page, in light and in dark mode.

Each page and mode is the desktop ``reading`` (tests/browser/_reader.py): one load at
1280 x 900 serves this check and the other checks of that page and view (figures, colour mode,
dark explorers); axe runs once every explorer has drawn."""

from __future__ import annotations

import pytest

from .._reader import reads
from ..conftest import PAGES, ROOT

pytestmark = pytest.mark.browser

AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"


@reads("woken", "axe")
def _axe(page, reading) -> dict:
    """The page's theme and axe-core's serious and critical violations, once the theme's CSS
    transitions (e.g. on the search button) have ended."""
    theme = page.evaluate("() => document.documentElement.dataset.theme")
    assert AXE.is_file(), f"{AXE} missing: run `make vendor` (npm ci in web/)"
    page.evaluate(
        # (animations in time only: a scroll-driven one, the fold of "on this page", never
        # finishes while the page stands still)
        "() => Promise.all(document.getAnimations().filter((a) => a.timeline === "
        "document.timeline).map((a) => a.finished.catch(() => null))).then(() => true)"
    )
    page.add_script_tag(content=AXE.read_text(encoding="utf8"))
    found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
      .violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.length} element(s), e.g. ${v.nodes[0].target.join(' ')}`)""")
    return {"theme": theme, "found": found}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_no_serious_violations(visits, reading, name, scheme):
    assert AXE.is_file(), f"{AXE} missing: run `make vendor` (npm ci in web/)"
    visits(name)
    got = reading(name, scheme).get("axe")
    assert got["theme"] == scheme
    found = got["found"]
    assert not found, f"{name} ({scheme}): axe-core violations:\n  " + "\n  ".join(found)
