"""No test waits a fixed time (issue 36): a fixed sleep is slow on a quiet machine and flaky on a
busy one. Tests wait on conditions (devtools/_wait.py: ``wait_until``, ``wait_still``,
``wait_page_quiet``, the in-page ``attnUntil``/``attnStill``; Playwright's ``expect`` and
``wait_for_function``). The one pause allowed is ``wait_until``'s poll between two checks. A
JavaScript timer that is not a wait (a reader's pace, an emulated slow network, a bound in a
``Promise.race``) says so on its line: ``// ..., not a wait``."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
PYTHON_SLEEP = re.compile(
    r"\b(?:time\.sleep|asyncio\.sleep|wait_for_timeout)\s*\(|\bfrom\s+time\s+import\s+[^\n]*\bsleep\b"
)
JS_TIMER = re.compile(r"\bsetTimeout\s*\(\s*(?:[A-Za-z_$][\w$.]*\s*,|\(|function\b|async\b)")
ALLOWED = {("_wait.py", "time.sleep(POLL_S)")}  # wait_until's poll


def fixed_sleeps(text: str, name: str) -> list[str]:
    """``name:line: text`` of every fixed sleep in ``text`` (a Python file of tests/)."""
    found = []
    for i, line in enumerate(text.splitlines(), 1):
        if any(name == f and allowed in line for f, allowed in ALLOWED):
            continue
        if PYTHON_SLEEP.search(line) or (JS_TIMER.search(line) and "not a wait" not in line):
            found.append(f"{name}:{i}: {line.strip()}")
    return found


def test_no_fixed_sleeps_in_tests():
    """tests/ and devtools/ (the page helpers the browser tests call: _craft, _pages, _vitals,
    _wait)."""
    found = []
    for root in (TESTS, TESTS.parent / "devtools"):
        for path in sorted(root.rglob("*.py")):
            if path == Path(__file__).resolve():
                continue  # the rule's own examples
            found += fixed_sleeps(path.read_text(encoding="utf8"), str(path.relative_to(root)))
    assert not found, "fixed sleeps (wait on a condition, devtools/_wait.py):\n" + "\n".join(found)


def test_the_scan_finds_every_kind_of_fixed_sleep():
    for snippet in [
        "time.sleep(0.2)",
        "        page.wait_for_timeout(300)  # the slide",
        "await asyncio.sleep(1)",
        "from time import monotonic, sleep",
        "  await new Promise((r) => setTimeout(r, 300));",
        "setTimeout (done, 50)",
        "setTimeout(() => r(), 100)",
    ]:
        assert fixed_sleeps(f"x = 1\n{snippet}\n", "t.py") == [f"t.py:2: {snippet.strip()}"]
    for fine in [
        "page.wait_for_function('() => ok')",
        "wait_until(check, 5, 'server')",
        "  await new Promise((r) => setTimeout(r, pause));  // a reader's pace, not a wait",
        "self.sleepy = True",
        "A playback steps on setTimeout (attnlib/static/src/render.js).",
    ]:
        assert fixed_sleeps(fine, "t.py") == [], fine
    assert fixed_sleeps("        time.sleep(POLL_S)  # the poll", "_wait.py") == []
    assert fixed_sleeps("        time.sleep(POLL_S)", "elsewhere.py") != []
