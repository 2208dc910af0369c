"""Core Web Vitals of a page of the built book on Lighthouse's mobile profile.

Shared by benchmarks/bench_browser.py (the table) and tests/browser/speed/test_page_weight.py (the
budgets). One load = a fresh browser context (empty cache) emulating Lighthouse's mobile
device (412 x 823 CSS px, device pixel ratio 1.75, touch), with Lighthouse's mobile
throttling applied through the DevTools protocol before navigation:

* network: ``Network.emulateNetworkConditions`` with 150 ms latency (round-trip time) and
  1.6 Mbit/s down, 750 kbit/s up;
* CPU: ``Emulation.setCPUThrottlingRate`` 4 (a mid-range phone).

The page is served compressed (devtools/_serve.py: gzip, as a host would). Measured in the page
with the browser's own performance entries, observed from before the first byte:

* LCP: the last ``largest-contentful-paint`` entry before the first input;
* TBT: total blocking time, Lighthouse's definition: for each long task (``longtask``
  entries, > 50 ms of main thread) after the first contentful paint and up to time to
  interactive, the part over 50 ms. Time to interactive is the end of the last long task
  before 5 s with none (the load waits for that quiet window, or 25 s);
* CLS: the largest session window of ``layout-shift`` entries without recent input (gaps
  under 1 s, windows of at most 5 s), counted over the load AND the reader's scroll to the
  end of the page (figures and explorers arriving must not push the text);
* INP: the slowest interaction (``event`` entries grouped by ``interactionId``) of a fixed
  script of reader actions, still at 4x CPU: open and close the navigation (the ☰ button),
  switch the colour mode, open a hidden code cell, and on the first explorer press the right
  arrow on its first slider three times; each target is brought into view 0.4 s before it is
  pressed, as a reader scrolls to it first;
* bytes: what crossed the (emulated) link, ``encodedDataLength`` of every response (gzip
  bodies plus headers): at load (once the page is quiet, before any scroll) and after
  reading to the end (scrolled down a screen at a time, every lazy figure and explorer
  fetched).
"""

from __future__ import annotations

import contextlib
import statistics

from _wait import wait_page_quiet, wait_still

DEVICE = {
    "viewport": {"width": 412, "height": 823},
    "device_scale_factor": 1.75,
    "is_mobile": True,
    "has_touch": True,
}
RTT_MS = 150
DOWN_BPS = 1.6e6 / 8  # bytes per second
UP_BPS = 750e3 / 8
CPU = 4
QUIET_MS = 5000  # Lighthouse's TTI: a 5 s window without long tasks
MAX_WAIT_MS = 25000

OBSERVE_JS = """
(() => {
  const v = {lcp: [], shifts: [], long: [], events: [], fcp: null, input: null};
  window.__vitals = v;
  const obs = (type, f, opts = {}) => {
    try { new PerformanceObserver((l) => l.getEntries().forEach(f)).observe({type, buffered: true, ...opts}); }
    catch (e) { v.errors = (v.errors || []).concat(`${type}: ${e}`); }
  };
  obs('largest-contentful-paint', (e) => v.lcp.push({t: e.startTime, size: e.size,
    el: e.element ? (e.element.tagName + '.' + String(e.element.className).split(' ')[0] + ' ' +
                     (e.element.textContent || '').trim().slice(0, 40)) : e.url}));
  obs('layout-shift', (e) => v.shifts.push({t: e.startTime, value: e.value, input: e.hadRecentInput}));
  obs('longtask', (e) => v.long.push({t: e.startTime, d: e.duration}));
  obs('paint', (e) => { if (e.name === 'first-contentful-paint') v.fcp = e.startTime; });
  obs('event', (e) => v.events.push({id: e.interactionId, t: e.startTime, d: e.duration, name: e.name}),
      {durationThreshold: 16});
  obs('first-input', (e) => { v.input = e.startTime; v.events.push({id: e.interactionId, t: e.startTime, d: e.duration, name: e.name}); });
})();
"""

# From the top, scrolls down one screen at a time to the end, letting lazy figures and explorers arrive.
READ_JS = """
async (pause) => {
  const step = Math.round(innerHeight * 0.9);
  scrollTo(0, 0);
  await new Promise((r) => setTimeout(r, pause));  // a reader's pace, not a wait
  let last = -1;
  while (scrollY !== last) {
    last = scrollY;
    scrollBy(0, step);
    await new Promise((r) => setTimeout(r, pause));  // a reader's pace, not a wait
  }
  return scrollY;
}
"""


def cls(shifts: list[dict]) -> float:
    """The largest session window (gap < 1 s, span <= 5 s) of shifts without recent input."""
    best = cur = 0.0
    start = prev = None
    for s in sorted((s for s in shifts if not s["input"]), key=lambda s: s["t"]):
        if prev is None or s["t"] - prev >= 1000 or s["t"] - start > 5000:
            cur, start = 0.0, s["t"]
        cur += s["value"]
        prev = s["t"]
        best = max(best, cur)
    return best


def tbt(long_tasks: list[dict], fcp: float) -> tuple[float, float]:
    """(total blocking time, time to interactive) in ms, Lighthouse's definitions."""
    tasks = sorted((t for t in long_tasks if t["t"] + t["d"] > fcp), key=lambda t: t["t"])
    tti = fcp
    for k, t in enumerate(tasks):
        nxt = tasks[k + 1]["t"] if k + 1 < len(tasks) else float("inf")
        tti = t["t"] + t["d"]
        if nxt - tti >= QUIET_MS:
            break
    total = 0.0
    for t in tasks:
        if t["t"] >= tti:
            break
        start = max(t["t"], fcp)
        total += (
            max(0.0, t["t"] + t["d"] - start - 50.0)
            if start == t["t"]
            else max(0.0, t["t"] + t["d"] - fcp - 50.0)
        )
    return total, tti


def inp(events: list[dict]) -> float:
    """The slowest interaction (fewer than 50 interactions: the worst one counts)."""
    by_id: dict[int, float] = {}
    for e in events:
        if e.get("id"):
            by_id[e["id"]] = max(by_id.get(e["id"], 0.0), e["d"])
    return max(by_id.values(), default=0.0)


def slow_network(cdp) -> None:
    """Lighthouse's mobile network on a DevTools session: RTT_MS round trips, DOWN_BPS down,
    UP_BPS up."""
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": RTT_MS,
            "downloadThroughput": DOWN_BPS,
            "uploadThroughput": UP_BPS,
        },
    )


# True once every image the page shows has arrived or failed (``complete``).
SHOWN_IMAGES_DONE_JS = (
    "() => [...document.images].filter((i) => i.checkVisibility()).every((i) => i.complete)"
)


class Load:
    """One throttled load of ``url`` in a fresh context of ``browser``; see the module doc.

    With ``defer=True`` the constructor only starts the navigation and returns; ``finish()``
    then waits for the load and measures it (``loads_together`` uses this to let several
    pages load at once, each in its own context: what is measured per page does not change)."""

    def __init__(
        self,
        browser,
        url: str,
        *,
        cpu: float = CPU,
        network: bool = True,
        interact: bool = True,
        read: bool = True,
        color_scheme: str = "light",
        quiet_ms: float = QUIET_MS,
        read_pause_ms: int = 250,
        defer: bool = False,
    ):
        self.url = url
        self.quiet_ms = quiet_ms
        self._interacts, self._reads, self._read_pause_ms = interact, read, read_pause_ms
        self.ctx = browser.new_context(
            service_workers="block", color_scheme=color_scheme, **DEVICE
        )
        self.ctx.add_init_script(OBSERVE_JS)
        self.page = page = self.ctx.new_page()
        self.cdp = cdp = self.ctx.new_cdp_session(page)
        self.bytes: dict[str, int] = {}
        self.urls: dict[str, str] = {}
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        cdp.on(
            "Network.responseReceived",
            lambda e: self.urls.__setitem__(e["requestId"], e["response"]["url"]),
        )
        cdp.on(
            "Network.loadingFinished",
            lambda e: self.bytes.__setitem__(e["requestId"], int(e["encodedDataLength"])),
        )
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        if network:
            slow_network(cdp)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": cpu})
        try:
            page.goto(url, wait_until="commit" if defer else "load", timeout=120_000)
        except BaseException:
            self.ctx.close()
            raise
        if not defer:
            self.finish()

    def finish(self) -> Load:
        """Waits for the load, measures it (then interacts and reads, as asked) and closes the
        context."""
        page = self.page
        try:
            page.wait_for_load_state("load", timeout=120_000)
            self._quiet()
            v = page.evaluate("() => window.__vitals")
            self.fcp = v["fcp"] or 0.0
            self.lcp = v["lcp"][-1]["t"] if v["lcp"] else float("nan")
            self.lcp_element = v["lcp"][-1]["el"] if v["lcp"] else None
            self.tbt, self.tti = tbt(v["long"], self.fcp)
            self.long_tasks = sorted(t["d"] for t in v["long"])
            self.load_bytes = sum(self.bytes.values())
            self.load_files = len(self.bytes)
            self.load_by_url = {self.urls.get(k, k): b for k, b in self.bytes.items()}
            if self._interacts:
                self._interact()
            if self._reads:
                page.evaluate(READ_JS, self._read_pause_ms)
                page.wait_for_load_state("networkidle")
                wait_still(page)
                # every image the reading brought into view has arrived (or failed), so its
                # bytes are counted; one that never does is reported below as unloaded
                with contextlib.suppress(Exception):
                    page.wait_for_function(SHOWN_IMAGES_DONE_JS, timeout=30_000)
            # images shown on the page that the reading left unfetched (their bytes would be
            # missing from read_bytes); variants hidden in this mode or width are not fetched
            self.unloaded = page.evaluate(
                "() => [...document.images].filter((i) => i.checkVisibility() && "
                "!(i.complete && i.naturalWidth > 0)).map((i) => i.currentSrc || i.src)"
            )
            v = page.evaluate("() => window.__vitals")
            self.cls = cls(v["shifts"])
            self.inp = inp(v["events"])
            self.events = v["events"]
            self.vitals = v
            self.read_bytes = sum(self.bytes.values())
            self.read_by_url = {self.urls.get(k, k): b for k, b in self.bytes.items()}
        finally:
            self.ctx.close()
        return self

    def _quiet(self) -> None:
        """Wait until the network is idle and no long task ended for quiet_ms (page time), or
        MAX_WAIT_MS has passed (a page that never settles is measured as it is)."""
        page = self.page
        page.wait_for_load_state("networkidle", timeout=120_000)
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        with contextlib.suppress(PlaywrightTimeout):
            wait_page_quiet(page, self.quiet_ms, timeout_ms=MAX_WAIT_MS)

    def _mark(self, what: str) -> None:
        self.marks.append((what, self.page.evaluate("() => performance.now()")))

    def _tap(self, selector: str) -> bool:
        loc = self.page.locator(selector)
        for k in range(loc.count()):
            el = loc.nth(k)
            if el.is_visible():
                # in view first, as a reader's finger finds it: a tap that has to scroll to its
                # target (Playwright's tap does) counted the rendering of that scroll jump, which no
                # reader's tap contains, in the tap's INP
                el.scroll_into_view_if_needed()
                wait_still(self.page)
                self._mark(selector)
                el.tap()
                wait_still(self.page)
                return True
        return False

    def _interact(self) -> None:
        page = self.page
        self.marks = []
        # the chapter list's toggle and the colour-mode switch (the book's own shell, or, to
        # measure a build from before it, the old theme's)
        if self._tap("#book-nav-toggle, .primary-toggle"):
            self._mark("Escape")
            page.keyboard.press("Escape")
            wait_still(page)
        self._tap("#book-mode, .theme-switch-button")
        self._tap("details.hide > summary")
        # the first slider a reader can see (sliders bound to a dragged point are hidden: the
        # point is the control); disabled while its picture is static
        slider = ".attn-slider:visible"
        if page.locator(slider).count():
            # in the middle of the screen, the explorer's picture with it, as a reader who moves a
            # slider to watch the weights holds it (scrolled only "into view", the landing page's
            # slider sat on the screen's bottom edge, its picture below it)
            page.locator(slider).first.evaluate("(s) => s.scrollIntoView({block: 'center'})")
            page.wait_for_function(
                "() => [...document.querySelectorAll('.attn-explorer[data-ready=true] .attn-slider')]"
                ".some((s) => s.offsetParent !== null)",
                timeout=60_000,
            )
            wait_still(page)
            page.locator(f".attn-explorer[data-ready=true] {slider}").first.focus()
            for _ in range(3):
                self._mark("ArrowRight")
                page.keyboard.press("ArrowRight")
                wait_still(page)
        self._mark("end")

    def interactions(self) -> list[tuple[str, float]]:
        """(action, its slowest event's duration in ms) for each scripted action."""
        out = []
        for (what, t0), (_n, t1) in zip(self.marks, self.marks[1:]):
            ds = [e["d"] for e in self.events if e.get("id") and t0 <= e["t"] < t1]
            out.append((what, max(ds, default=0.0)))
        return out


def loads_together(browser, urls: list[str], **kwargs) -> list[Load]:
    """``Load(browser, url, **kwargs)`` for every url, the pages loading at the same time (each
    in its own context, its bytes counted on its own), measured one after the other: the
    waits for a quiet network and main thread overlap instead of adding up. For measures that
    do not depend on time (bytes, what was fetched, errors); the timed vitals load one page at
    a time (benchmarks/bench_browser.py)."""
    started: list[Load] = []
    try:
        for url in urls:
            started.append(Load(browser, url, defer=True, **kwargs))
    except BaseException:
        for load in started:
            with contextlib.suppress(Exception):
                load.ctx.close()
        raise
    out = []
    for k, load in enumerate(started):
        try:
            out.append(load.finish())
        except BaseException:
            for rest in started[k + 1 :]:
                with contextlib.suppress(Exception):
                    rest.ctx.close()
            raise
    return out


def median_load(loads: list[Load]) -> dict:
    """The median of each measure over loads (bytes from the first load: they do not vary)."""
    med = lambda f: statistics.median(f(x) for x in loads)  # noqa: E731
    return {
        "lcp": med(lambda x: x.lcp),
        "tbt": med(lambda x: x.tbt),
        "inp": med(lambda x: x.inp),
        "cls": med(lambda x: x.cls),
        "load_kb": loads[0].load_bytes / 1e3,
        "read_kb": loads[0].read_bytes / 1e3,
        "files": loads[0].load_files,
        "longest": med(lambda x: x.long_tasks[-1] if x.long_tasks else 0.0),
        "n_long": med(lambda x: len(x.long_tasks)),
        "lcp_element": loads[0].lcp_element,
        "errors": sum((x.errors for x in loads), []),
    }


# ------------------------------------------------------------------ blocking work, from CPU time

TRACE_CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "loading",
    "blink.user_timing",
]


def main_thread_tasks(
    trace: dict | list, url: str
) -> tuple[list[tuple[float, float, float]], float | None]:
    """From a Chromium trace of the load of ``url``: its renderer main thread's tasks as
    (start ms, wall ms, CPU ms), start relative to the page's navigation, and the page's first
    contentful paint (ms), or None."""
    ev = trace["traceEvents"] if isinstance(trace, dict) else trace
    navs = [
        e
        for e in ev
        if e.get("name") == "navigationStart"
        and (e.get("args", {}).get("data") or {}).get("documentLoaderURL") == url
    ]
    if not navs:
        raise RuntimeError(f"no navigation to {url} in the trace")
    nav = navs[-1]
    pid, frame, t0 = nav["pid"], nav["args"].get("frame"), nav["ts"]
    mains = {
        e["tid"]
        for e in ev
        if e.get("name") == "thread_name"
        and e.get("pid") == pid
        and e["args"].get("name") == "CrRendererMain"
    }
    fcps = [
        e["ts"]
        for e in ev
        if e.get("name") == "firstContentfulPaint"
        and e.get("pid") == pid
        and e.get("args", {}).get("frame") == frame
        and e["ts"] >= t0
    ]
    tasks = sorted(
        ((e["ts"] - t0) / 1e3, e.get("dur", 0) / 1e3, e.get("tdur", 0) / 1e3)
        for e in ev
        if e.get("name") == "RunTask"
        and e.get("pid") == pid
        and e.get("tid") in mains
        and e["ts"] >= t0
    )
    return tasks, ((min(fcps) - t0) / 1e3 if fcps else None)


def blocking_from_cpu(
    tasks: list[tuple[float, float, float]], fcp: float, rate: float = CPU
) -> tuple[float, int]:
    """Total blocking time at ``rate``x CPU slow-down estimated from the CPU time of tasks run
    unthrottled: each task after the first contentful paint counts rate x its CPU time, less
    50 ms. CPU (thread) time hardly moves when other processes compete for the cores, where wall
    time doubles: a budget on it can fail on a real regression without flaking on a busy machine.
    Returns (estimated blocking ms, number of tasks estimated over 50 ms)."""
    total, n = 0.0, 0
    for start, _wall, cpu in tasks:
        if start + _wall < fcp:
            continue
        est = rate * cpu
        if est > 50:
            total += est - 50
            n += 1
    return total, n


# ------------------------------------------------------- an interaction's work, from CPU time

INPUT_EVENTS = {
    "pointerover",
    "pointerdown",
    "touchstart",
    "pointerup",
    "touchend",
    "mousedown",
    "mouseup",
    "click",
    "keydown",
    "keyup",
    "input",
    "change",
    "focusin",
}


def interaction_cpu(trace: dict | list, pid: int | None = None) -> dict:
    """From a Chromium trace of ONE interaction (tracing started on a quiet page just before the
    input): the CPU time of the renderer main thread from the first task that dispatches an
    input event to the end of the first task after the last ``click`` / ``keydown`` /
    ``keyup`` dispatch that commits a frame (the frame that shows the result: what INP waits
    for, less the raster and display). Returns {"cpu": ms, "tasks": [(name of the heaviest
    step, CPU ms), ...]}."""
    ev = trace["traceEvents"] if isinstance(trace, dict) else trace
    mains = {
        (e["pid"], e["tid"])
        for e in ev
        if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    on_main = [e for e in ev if (e.get("pid"), e.get("tid")) in mains and e.get("ph") == "X"]
    dispatches = sorted(
        (
            e
            for e in on_main
            if e.get("name") == "EventDispatch"
            and ((e.get("args") or {}).get("data") or {}).get("type") in INPUT_EVENTS
        ),
        key=lambda e: e["ts"],
    )
    if not dispatches:
        raise RuntimeError("no input event in the trace")
    if pid is None:
        pid = dispatches[0]["pid"]
    main = [e for e in on_main if e["pid"] == pid]
    tasks = sorted((e for e in main if e["name"] == "RunTask"), key=lambda e: e["ts"])

    def task_of(e):
        for t in tasks:
            if t["ts"] <= e["ts"] <= t["ts"] + t.get("dur", 0):
                return t
        raise RuntimeError(f"{e['name']} outside any task")

    first = task_of(dispatches[0])
    finals = [
        d
        for d in dispatches
        if d["pid"] == pid and d["args"]["data"]["type"] in ("click", "keydown", "keyup")
    ]
    last = task_of(finals[-1] if finals else dispatches[-1])
    commits = sorted(
        (e for e in main if e["name"] == "Commit" and e["ts"] >= last["ts"]), key=lambda e: e["ts"]
    )
    end = task_of(commits[0]) if commits else last
    chosen = [t for t in tasks if first["ts"] <= t["ts"] <= end["ts"]]
    steps = []
    for t in chosen:
        inside = [
            e
            for e in main
            if e is not t
            and t["ts"] <= e["ts"] < t["ts"] + t.get("dur", 0)
            and e["name"] not in ("RunTask", "ThreadControllerImpl::RunTask")
        ]
        top = max(inside, key=lambda e: e.get("dur", 0), default=None)
        steps.append((top["name"] if top else "-", t.get("tdur", 0) / 1e3))
    return {"cpu": sum(c for _n, c in steps), "tasks": steps}
