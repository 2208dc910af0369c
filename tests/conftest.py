"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# the helpers tests and benchmarks share (a browser, a server, the book's pages, web vitals,
# explorer craft) live in devtools/: benchmarks never import tests
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "devtools"))

import pytest  # noqa: E402
from _chromium import CHROMIUM, CHROMIUM_ARGS, unavailable  # noqa: E402


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the whole session (Playwright's sync API allows only one
    driver at a time). Skips locally, fails with CI=true, when it cannot start."""
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} not found (apt-get install -y chromium-headless-shell)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install -r requirements.txt)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        if os.environ.get("PAGE_LOADS"):
            _count_page_loads(b, Path(os.environ["PAGE_LOADS"]))
        yield b
        b.close()


# ----------------------------------------------------------------------------- page loads

# PAGE_LOADS=FILE: every page load (a top frame's `load` event: a goto, a reload, a navigation)
# in the session's Chromium is appended to FILE as one line, "<test id>\t<url>", for counting
# what the browser tests cost (`sort | uniq -c`). Off unless asked for.
_current_test = [""]


def _count_page_loads(browser, path: Path) -> None:
    new_context = browser.new_context

    def counted(*args, **kwargs):
        ctx = new_context(*args, **kwargs)

        def on_page(page):
            def on_load(p=page):
                with path.open("a", encoding="utf8") as f:
                    f.write(f"{_current_test[0]}\t{p.url}\n")

            page.on("load", on_load)

        ctx.on("page", on_page)
        return ctx

    browser.new_context = counted


# ----------------------------------------------------------------------------- workers

# `make test-browser` runs on pytest-xdist workers with --dist loadfile: a test file is one unit
# of work (its tests on one worker, in order, so a page a file loads serves the file's checks).
# Files that share loads across files are one unit together: the files whose checks read the
# desktop Reading (tests/browser/_reader.py; the `reading` fixture) run on one worker, so one
# load per page and colour mode serves them all; so do those that read a page's phone load
# (the `phone` fixture). (pytest-xdist's own grouping, --dist loadgroup, tags test ids, which
# pytest 9.2 no longer lets it do: its groups are silently ignored.)
SHARED_LOADS = {
    "tests/browser/theme/test_axe.py": "desktop-reading",
    "tests/browser/theme/test_colour_mode.py": "desktop-reading",
    "tests/browser/reading/test_figures.py": "desktop-reading",
    "tests/browser/explorers/test_explorer_access.py": "desktop-reading",
    "tests/browser/explorers/test_explorer_craft.py": "desktop-reading",
    # the phone's PhoneReading (tests/browser/reading/test_on_a_phone.py; the `phone` fixture)
    "tests/browser/reading/test_on_a_phone.py": "phone-reading",
    "tests/browser/reading/test_folded_code.py": "phone-reading",
    "tests/browser/reading/test_pacing.py": "phone-reading",
    # the explorers built once per process (tests/widgets/_built.py), chapter 2's trained one
    # among them: about 10 CPU-s each time it is built
    "tests/widgets/test_explorers.py": "built-explorers",
    "tests/widgets/test_presets.py": "built-explorers",
}


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile, with the files of SHARED_LOADS grouped into one unit each."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedLoadsScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return SHARED_LOADS.get(path, path)

    return SharedLoadsScheduling(config, log)


@pytest.fixture(autouse=True)
def _name_the_test(request):
    _current_test[0] = request.node.nodeid
    yield


@pytest.fixture(autouse=True)
def _close_pyplot_figures():
    """attnlib draws on pyplot (as d2l does): close each test's figures afterwards."""
    yield
    import sys

    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


# ----------------------------------------------------------------------------- limits' margins

# Issue 25: no assertion should pass within 5 % of its limit on a reader's or CI's machine, where
# fonts, wrapping and timing differ a little. A test notes each value it holds to a limit
# (`margin`); the run ends with the values nearest their limits, so a design drifting towards
# an edge shows long before it fails. Move the design away from the edge, not the limit.
NEAR = 0.05


def headroom(value: float, limit: float, at_least: bool) -> float:
    """How far ``value`` is inside its limit, as a share of the limit (negative: outside)."""
    if limit == 0:
        return float("inf") if (value >= 0) == at_least else float("-inf")
    return (value / limit - 1) if at_least else (1 - value / limit)


@pytest.fixture
def margin(record_property):
    """margin(what, value, limit, at_least=True) -> value: records a measured value and the limit
    the test holds it to (``value >= limit``, or ``value <= limit`` with at_least=False), for the
    run's summary of the values nearest their limits."""

    def note(what: str, value: float, limit: float, *, at_least: bool = True) -> float:
        record_property("margin", [what, float(value), float(limit), bool(at_least)])
        return value

    return note


def pytest_terminal_summary(terminalreporter):
    rows = {}
    for rep in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", []):
        if getattr(rep, "when", "call") != "call":
            continue
        for key, v in getattr(rep, "user_properties", ()):
            if key == "margin":
                what, value, limit, at_least = v
                h = headroom(value, limit, at_least)
                if what not in rows or h < rows[what][0]:
                    rows[what] = (h, value, limit, at_least)
    if not rows:
        return
    # grouped by what is measured (the text after the last ": "), the nearest first
    groups: dict[str, list] = {}
    for what, row in rows.items():
        where, _, measure = what.rpartition(": ")
        if row[0] < NEAR:
            groups.setdefault(measure, []).append((row, where))
    tr = terminalreporter
    tr.section("values nearest their limits")
    near = sum(len(g) for g in groups.values())
    tr.write_line(
        f"{len(rows)} measured values held to a limit; {near} within {NEAR:.0%} of it "
        "(issue 25: move the design away from the edge, not the limit)"
    )
    for measure, items in sorted(groups.items(), key=lambda kv: min(kv[1])[0][0]):
        items.sort()
        (h, value, limit, at_least), where = items[0]
        more = f" and {len(items) - 1} more" if len(items) > 1 else ""
        tr.write_line(
            f"  {h:+7.1%}  {measure}: {value:.4g} ({'>=' if at_least else '<='} {limit:.4g}) "
            f"at {where}{more}"
        )
    if not groups:
        ranked = sorted(rows.items(), key=lambda kv: kv[1][0])[:3]
        for what, (h, value, limit, at_least) in ranked:
            tr.write_line(
                f"  {h:+7.1%}  {what}: {value:.4g} ({'>=' if at_least else '<='} {limit:.4g})"
            )
