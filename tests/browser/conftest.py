"""Fixtures for the browser tests: the built book (_build/html) served on 127.0.0.1 and
driven by Debian's Chromium through Playwright.

Locally the tests skip, with a message saying what is missing, when /usr/bin/chromium-headless-shell,
Playwright or the built book is missing. With CI=true they never skip: a missing piece
fails them. Every test module here sets ``pytestmark = pytest.mark.browser``
(`make test-browser` selects the marker; the first `make test` line deselects it).

Each page is loaded once per session (`visit`): the load records every request, failed
request, HTTP error and console message, brings every explorer into view (they wake near the
viewport) and waits until each has drawn; reading/test_published_pages.py saves a full-page
screenshot of it under _build/screenshots/ (``_shoot``).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import selectors
import socket
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from _chromium import CHROMIUM, unavailable
from _craft import open_page
from _pages import book_pages, wake_explorers  # noqa: F401  (the tests import it from here)
from _serve import serve

from scoringbook import manifest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
SCREENSHOTS = ROOT / "_build" / "screenshots"
LOAD_TIMEOUT_MS = 60_000


PAGES = book_pages()
LANDING = PAGES[0]
# the chapters' pages, from the chapter manifest (tests/book/test_manifest.py holds _toc.yml to it)
CHAPTERS = [c.page for c in manifest.CHAPTERS]
assert CHAPTERS == [p for p in PAGES[1:] if p.startswith("chapters/")], "_toc.yml != manifest"
# Chapters drawn with static figures only, by design: the explorer tests leave them out.
# test_chapters_without_explorers_are_the_declared_ones (explorers/test_explorers_match_attnlib.py)
# checks this list against the notebooks, so an explorer that goes missing from another chapter
# still fails.
CHAPTERS_WITHOUT_EXPLORERS = [c.page for c in manifest.CHAPTERS if not c.explorers]
EXPLORER_CHAPTERS = [p for p in CHAPTERS if p not in CHAPTERS_WITHOUT_EXPLORERS]


def chapter_page(stem: str) -> str:
    """A chapter's page by its stem (``"03_masked_softmax"``): never by position, so a new
    chapter cannot shift what a test opens (an unknown stem fails, naming the chapters)."""
    return manifest.chapter(stem).page


def page_of(explorer: str) -> str:
    """The page of the chapter that shows ``explorer``."""
    return manifest.chapter_of(explorer).page


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def site() -> Path:
    """The built book; skips (fails with CI=true) when it is missing."""
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} not found (apt-get install chromium-headless-shell)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        unavailable("playwright is not installed (pip install -r requirements.txt)")
    missing = [p for p in PAGES if not (SITE / p).is_file()]
    if missing:
        unavailable(
            f"the book is not built (missing {', '.join(missing)} in {SITE}; run `make book`)"
        )
    return SITE


@pytest.fixture(scope="session")
def base_url(site: Path):
    """`python -m http.server --bind 127.0.0.1` on a free port, serving the built book."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-u",
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            "--directory",
            str(site),
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    # http.server prints "Serving HTTP on ..." once its socket listens: wait for that line
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        ready = sel.select(timeout=30) and proc.stdout.readline().startswith("Serving HTTP")
    if not ready:
        proc.kill()
        raise RuntimeError(f"http.server did not start on {url}")
    with urllib.request.urlopen(f"{url}/{LANDING}", timeout=10) as r:
        r.read()
    yield url
    proc.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    if proc.poll() is None:
        proc.kill()


@pytest.fixture(scope="session")
def browser(site: Path, chromium):
    """The session's Chromium (tests/conftest.py), once the built book is known to exist."""
    return chromium


# Waits until the page is interactive: every widget view rendered as an explorer that has
# drawn (data-ready; each is brought into view, which wakes it), fonts loaded.
READY_JS = """
async (timeoutMs) => {
  const t0 = performance.now();
  const views = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length;
  const ready = () => document.querySelectorAll('.attn-explorer[data-ready="true"]').length;
  if (ready() < views) throw new Error(`only ${ready()} of ${views} explorers drawn after waking them`);
  await document.fonts.ready;
  return {views, explorers: document.querySelectorAll('.attn-explorer').length};
}
"""


# What every explorer on the page draws (its parameters, heatmap cells, plotted paths, height):
# ``Visit.start`` holds it as the page came up, before any test could touch the page; with
# ``.attn-static .attn-explorer`` it reads the pictures drawn at build time instead
# (explorers/test_explorers_without_javascript.py).
EXPLORERS_JS = """
() => [...document.querySelectorAll('.attn-explorer')].map((ex) => ({
  name: ex.dataset.explorer, params: ex.dataset.params,
  cells: [...ex.querySelectorAll('svg.attn-heatmap image.attn-cells')].map((i) => i.getAttribute('href')),
  paths: [...ex.querySelectorAll('.attn-series:not(.attn-fixed)')].map((s) =>
    s.getAttribute('d') || [...s.querySelectorAll('circle')].map((c) => c.getAttribute('cx') + ',' + c.getAttribute('cy')).join(' ')),
  box: ex.getBoundingClientRect().height,
}))
"""


@dataclass
class Visit:
    """One page of the book, loaded once; everything it did while loading is recorded."""

    name: str
    url: str
    page: object
    requests: list = field(default_factory=list)  # (url, resource type)
    failed: list = field(default_factory=list)  # (url, reason)
    console: list = field(default_factory=list)  # (type, text, location)
    info: dict = field(default_factory=dict)
    load_error: str | None = None
    screenshot: Path | None = None
    screenshotting: bool = False  # requests while the screenshot is taken are not recorded
    start: list = field(default_factory=list)  # EXPLORERS_JS once the page is ready

    def console_errors(self) -> list:
        return [c for c in self.console if c[0] in ("error", "pageerror")]


def _open(browser, base_url: str, name: str) -> Visit:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    page = context.new_page()
    v = Visit(name=name, url=f"{base_url}/{name}", page=page)
    # A full-page screenshot briefly lays the page out at another size, which can fetch (and
    # abort) the other layout's figure variants: what it causes is not the reader's page.
    by_screenshot: set = set()

    def on_request(r):
        if v.screenshotting:
            by_screenshot.add(r)
        else:
            v.requests.append((r.url, r.resource_type))

    page.on("request", on_request)
    page.on(
        "requestfailed",
        lambda r: r not in by_screenshot and v.failed.append((r.url, r.failure)),
    )
    page.on(
        "response",
        lambda r: (
            r.status >= 400
            and r.request not in by_screenshot
            and v.failed.append((r.url, f"HTTP {r.status}"))
        ),
    )
    page.on("console", lambda m: v.console.append((m.type, m.text, json.dumps(m.location))))
    page.on("pageerror", lambda e: v.console.append(("pageerror", str(e), "")))
    try:
        page.goto(v.url, wait_until="load", timeout=LOAD_TIMEOUT_MS)
        wake_explorers(page)
        v.info = page.evaluate(READY_JS, LOAD_TIMEOUT_MS)
        page.wait_for_load_state("networkidle", timeout=LOAD_TIMEOUT_MS)
        v.start = page.evaluate(EXPLORERS_JS)
    except Exception as e:  # recorded; every test of the page reports it
        v.load_error = f"{type(e).__name__}: {e}"
    return v


def _shoot(v: Visit) -> Path | None:
    """A full-page screenshot of the visit's page under _build/screenshots/ (once; for a person
    to look at, nothing compares it): taken when a test asks for it
    (reading/test_published_pages.py), not at every load, so each page's is taken once per run
    rather than once per worker that visits it. What the screenshot fetches is not recorded."""
    if v.screenshot is not None:
        return v.screenshot
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / (v.name.replace("/", "__").removesuffix(".html") + ".png")
    page = v.page
    with contextlib.suppress(Exception):
        v.screenshotting = True
        # at CSS resolution (scale="css"), here and in every full-page screenshot of the
        # tests: for a person to look at; at a phone's 3 device pixels per px, one took 5x the
        # CPU (2.6 s against 0.5 s for chapter 2) for nothing a test reads
        page.screenshot(path=str(shot), full_page=True, scale="css")
        v.screenshot = shot
        page.wait_for_load_state("networkidle", timeout=LOAD_TIMEOUT_MS)
    v.screenshotting = False
    return v.screenshot


@pytest.fixture(scope="session")
def visits(browser, base_url):
    cache: dict[str, Visit] = {}

    def get(name: str) -> Visit:
        if name not in cache:
            cache[name] = _open(browser, base_url, name)
        v = cache[name]
        assert v.load_error is None, f"{name} did not become ready: {v.load_error}"
        return v

    get.base_url = base_url
    yield get
    for v in cache.values():
        with contextlib.suppress(Exception):
            v.page.context.close()


@contextlib.contextmanager
def fresh_page(browser, url: str, **context_args):
    """``url`` loaded in a fresh browser context (``context_args`` as Browser.new_context takes
    them), its fonts ready; on leaving, the context is closed and no page error was raised."""
    context = browser.new_context(service_workers="block", **context_args)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="load")
    page.evaluate("document.fonts.ready")
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"{url}: page errors {errors}"


@contextlib.contextmanager
def opened_explorer(browser, visits, page_name: str, name: str, **context):
    """``page_name`` in a fresh browser context (1280 x 900 unless ``context`` says otherwise),
    once explorer ``name`` is drawn and ready; on leaving, no console error was logged."""
    visits(page_name)
    ctx = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **context})
    page = ctx.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{visits.base_url}/{page_name}", wait_until="load")
        woken = wake_explorers(page, only=name)
        assert woken["woken"] == 1, f"{page_name}: explorer {name!r} not found ({woken})"
        yield page
        assert not errors, f"{page_name}: console errors: {errors}"
    finally:
        ctx.close()


# Virtual time (Playwright's clock): installed before a page loads, it replaces the page's Date,
# setTimeout, setInterval, requestAnimationFrame, requestIdleCallback and performance.now; time
# flows as the wall clock's until it is paused, then moves only when a test advances it
# (page.clock.run_for fires every timer due on the way, in order). A playback's pace, or what it
# has done after so many milliseconds, is then exact however busy the machine is.
CLOCK_START = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def install_clock(page) -> None:
    """Fake timers in ``page`` (before its goto); time flows until pause_clock."""
    page.clock.install(time=CLOCK_START)


def pause_clock(page) -> None:
    """Stop the page's time (an hour after CLOCK_START: later than any page load); from now on
    it moves only by ``page.clock.run_for(ms)``."""
    page.clock.pause_at(CLOCK_START + datetime.timedelta(hours=1))


@pytest.fixture(scope="session")
def reading(browser, base_url):
    """reading(name, scheme) -> the page's desktop ``Reading`` (tests/browser/_reader.py): the
    page at 1280 x 900 in that colour mode, loaded once per session and worker and read through
    its stages by every reader registered for it, then closed. The files that share it run on
    one worker (tests/conftest.py's SHARED_LOADS)."""
    from ._reader import DESKTOP_READERS, Reading

    cache: dict = {}

    def get(name: str, scheme: str) -> Reading:
        if (name, scheme) not in cache:
            cache[name, scheme] = Reading(browser, base_url, name, scheme, DESKTOP_READERS)
        return cache[name, scheme]

    return get


@pytest.fixture(scope="session")
def phone(browser, base_url):
    """phone(name, scheme) -> the page's PhoneReading (reading/test_on_a_phone.py: the page at
    390 x 844, touch, in that colour mode, taken through its stages), one open page at a time:
    when a check asks for another page or mode, the open one is taken through its remaining
    stages and closed, its readings kept for the checks of any file that read it later (the
    files run on one worker: tests/conftest.py's SHARED_LOADS)."""
    from .reading.test_on_a_phone import PhoneReading

    cache: dict = {}

    def get(name: str, scheme: str) -> PhoneReading:
        key = (name, scheme)
        if key not in cache:
            for r in cache.values():
                r.finish()
            cache[key] = PhoneReading(browser, base_url, name, scheme)
        return cache[key]

    yield get
    for r in cache.values():
        r.close()


@pytest.fixture(scope="module")
def gzip_url(site):
    """The built book served gzip-compressed, as a host would (devtools/_serve.py), per module."""
    with serve(site, gzip=True) as url:
        yield url


@pytest.fixture
def opened(browser, visits):
    """opened(name, **context) -> page with every explorer drawn; closed after the test."""
    contexts = []

    def get(name, **context):
        visits(name)
        ctx, page = open_page(browser, visits.base_url, name, **context)
        contexts.append(ctx)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors
        return page

    yield get
    for ctx in contexts:
        ctx.close()
