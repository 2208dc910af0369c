"""Waiting on conditions, never for a fixed time (issue 36): a fixed sleep is slow on a quiet
machine and flaky on a busy one. tests/book/test_no_fixed_sleeps.py fails on any
``time.sleep`` or ``wait_for_timeout`` in tests/ outside this file.

- :func:`wait_until`: polls a Python condition (a server answering, a kernel catching up) and
  returns its first truthy value; the poll interval is the only sleep in tests/.
- :func:`wait_still`: waits until a page is still: no finite animation or transition running
  in time (a drawer's slide, a smooth scroll; not a scroll-driven one) and the scroll position
  and page height unchanged over a few animation frames.
- :func:`wait_page_quiet`: waits until no long task has ended for ``quiet_ms`` of page time
  (the page's main thread has settled after load; tests/_vitals.py records the long tasks).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: the pause between two checks of wait_until's condition
POLL_S = 0.05


def wait_until(check: Callable[[], T], timeout_s: float, what: str) -> T:
    """Calls ``check`` until it returns a truthy value, which is returned; raises TimeoutError
    naming ``what`` after ``timeout_s`` seconds. Exceptions of ``check`` propagate."""
    if not (isinstance(timeout_s, (int, float)) and timeout_s > 0):
        raise ValueError(f"wait_until: timeout_s must be a number > 0; got {timeout_s!r}")
    deadline = time.monotonic() + timeout_s
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout_s:g} s")
        time.sleep(POLL_S)  # the poll between two checks, not a wait for something to happen


# True once the page has been still (no finite animation running, same scroll position, size
# and height) for `frames` animation frames in a row; polled on every frame. Only animations in
# time count: a scroll-driven one (attnbook.css's fold of "on this page") moves only with the
# scroll position, which the key already holds, and stays "running" for good.
STILL_JS = """
(frames) => {
  const s = window.__attnStill || (window.__attnStill = {key: null, n: 0});
  const moving = document.getAnimations().some((a) => a.timeline === document.timeline &&
    a.playState === 'running' && a.effect && a.effect.getComputedTiming().endTime !== Infinity);
  const key = [scrollX, scrollY, innerWidth, innerHeight,
               document.documentElement.scrollHeight].join();
  if (moving || key !== s.key) { s.key = key; s.n = 0; return false; }
  if (++s.n < frames) return false;
  delete window.__attnStill;
  return true;
}
"""


def wait_still(page, frames: int = 3, timeout_ms: int = 10_000) -> None:
    """Waits until ``page`` is still for ``frames`` animation frames (see STILL_JS)."""
    page.evaluate("() => { delete window.__attnStill; }")
    page.wait_for_function(STILL_JS, arg=frames, polling="raf", timeout=timeout_ms)


# True once no long task recorded by _vitals.py's observer (window.__vitals.long: start t,
# duration d) has ended within `quiet` ms of page time.
QUIET_JS = """
(quiet) => {
  const long = (window.__vitals && window.__vitals.long) || [];
  return performance.now() - Math.max(0, ...long.map((t) => t.t + t.d)) >= quiet;
}
"""


def wait_page_quiet(page, quiet_ms: float, timeout_ms: int = 60_000) -> None:
    """Waits until no long task (as tests/_vitals.py records them) has ended within the last
    ``quiet_ms`` of page time."""
    page.wait_for_function(QUIET_JS, arg=quiet_ms, polling=50, timeout=timeout_ms)


# In-page waits, for scripts that wait inside the page (with_page_waits puts them in):
# attnFrame() resolves at the next animation frame; attnUntil(cond, ms) awaits frames until
# cond() holds (false after ms); attnStill(frames, ms) until the page is still, as STILL_JS.
PAGE_WAITS_JS = """
  const attnFrame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const attnUntil = async (cond, ms = 10000) => {
    const t0 = performance.now();
    while (!cond()) { if (performance.now() - t0 > ms) return false; await attnFrame(); }
    return true;
  };
  const attnStill = (frames = 3, ms = 10000) => {
    let key = null, n = 0;
    return attnUntil(() => {
      const moving = document.getAnimations().some((a) => a.timeline === document.timeline &&
        a.playState === 'running' && a.effect &&
        a.effect.getComputedTiming().endTime !== Infinity);
      const k = [scrollX, scrollY, innerWidth, innerHeight,
                 document.documentElement.scrollHeight].join();
      if (moving || k !== key) { key = k; n = 0; return false; }
      return ++n >= frames;
    }, ms);
  };
"""


def with_page_waits(js: str) -> str:
    """``js`` (``async (...) => { ... }``) with PAGE_WAITS_JS at the top of its body."""
    head, brace, body = js.partition("{")
    if not brace or "=>" not in head:
        raise ValueError(
            f"with_page_waits: expected an arrow function with a body; got {js[:60]!r}"
        )
    return head + brace + PAGE_WAITS_JS + body
