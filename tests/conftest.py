"""Fixtures shared by every test folder."""

from __future__ import annotations

import pytest
from _chromium import CHROMIUM, CHROMIUM_ARGS, unavailable


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the whole session (Playwright's sync API allows only one
    driver at a time). Skips locally, fails with CI=true, when it cannot start."""
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} not found (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install -r requirements.txt)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(autouse=True)
def _close_pyplot_figures():
    """attnlib draws on pyplot (as d2l does): close each test's figures afterwards."""
    yield
    import sys

    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
