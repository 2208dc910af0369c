"""axe-core (vendored through npm, web/package-lock.json) finds no serious or critical
violation on any page, in light and in dark mode."""

from __future__ import annotations

import pytest

from .._reader import _load
from ..conftest import PAGES, ROOT

pytestmark = pytest.mark.browser

AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_no_serious_violations(browser, visits, name, scheme):
    assert AXE.is_file(), f"{AXE} missing: run `make vendor` (npm ci in web/)"
    visits(name)
    ctx, page, _ = _load(browser, visits.base_url, name, color_scheme=scheme)
    try:
        assert page.evaluate("() => document.documentElement.dataset.theme") == scheme
        # colours are checked once the theme's CSS transitions (e.g. on the search button) end
        page.evaluate(
            "() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => "
            "null)))"
            ".then(() => true)"
        )
        page.add_script_tag(content=AXE.read_text(encoding="utf8"))
        found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
          .violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.length} element(s), e.g. ${v.nodes[0].target.join(' ')}`)""")
        assert not found, f"{name} ({scheme}): axe-core violations:\n  " + "\n  ".join(found)
    finally:
        ctx.close()
