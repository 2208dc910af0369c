"""The published book in a real browser (headless Chromium, no kernel, no network): the
landing page and every page listed in _toc.yml talk to no host but the local server, nothing
fails to load, the console shows no error, a screenshot is saved; index.html leads to the
landing page."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from ..conftest import LANDING, PAGES, _shoot

pytestmark = pytest.mark.browser


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


@pytest.mark.parametrize("name", PAGES)
def test_screenshot_saved(visits, name):
    v = visits(name)
    shot = _shoot(v)
    assert shot is not None and shot.stat().st_size > 10_000, f"{name}: no screenshot"


def test_index_redirects_to_landing_page(visits):
    v = visits(LANDING)
    page = v.page.context.new_page()
    try:
        page.goto(f"{visits.base_url}/index.html", wait_until="load")
        page.wait_for_url(f"**/{LANDING}", timeout=10_000)
    finally:
        page.close()
