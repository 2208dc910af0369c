"""Pages opened as a reader would, shared by tests in more than one folder: ``_load`` (a fresh
browser context, the page loaded, its explorers woken and its fonts ready, optionally a
full-page screenshot) and ``_shot`` (a screenshot of the window under _build/screenshots/)."""

from __future__ import annotations

from .conftest import SCREENSHOTS, wake_explorers


def _load(browser, base_url, name, shot=None, **context):
    ctx = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **context})
    page = ctx.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base_url}/{name}", wait_until="load")
    if context.get("java_script_enabled", True):
        wake_explorers(page)
    page.evaluate("() => document.fonts.ready.then(() => true)")
    if shot:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(
            path=str(
                SCREENSHOTS / (name.replace("/", "__").removesuffix(".html") + f"__{shot}.png")
            ),
            full_page=True,
            scale="css",
        )
    return ctx, page, errors


def _shot(page, name, mode):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(
        path=str(SCREENSHOTS / f"{name.replace('/', '__').removesuffix('.html')}--{mode}.png")
    )


# ----------------------------------------------------------------------------- one load, many checks

STAGES = ("loaded", "figures", "woken")


class Reading:
    """One page in one view (1280 x 900 unless told otherwise, light or dark), loaded once in a
    fresh context and taken through STAGES in order, the same whichever test asks first:
    *loaded* (fonts ready, nothing scrolled), *figures* (each figure scrolled into view, as
    a reader would), *woken* (every explorer drawn). At each stage every reader registered for
    it (``readers``: stage -> [(key, function(page, reading))]) reads what its checks need;
    then the page is closed and the checks assert on what was read (``get(key)``), so a load
    serves every check of that page and view, in any file, each still its own test.
    What a reader raised is kept and raised to the check that asks for its reading; page
    errors are kept per stage (``errors(stage)``: those raised before that stage ended)."""

    def __init__(self, browser, base_url: str, name: str, scheme: str, readers: dict, **context):
        self.name, self.scheme = name, scheme
        self.read: dict = {}
        self._errors: dict = {}
        ctx = browser.new_context(
            **{
                "viewport": {"width": 1280, "height": 900},
                "service_workers": "block",
                "color_scheme": scheme,
                **context,
            }
        )
        try:
            page = ctx.new_page()
            errors: list = []
            self.pngs: list = []  # every figure PNG requested since the load
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: "/_images/" in r.url and self.pngs.append(r.url))
            page.goto(f"{base_url}/{name}", wait_until="load")
            page.evaluate("document.fonts.ready")
            for stage in STAGES:
                if stage == "woken":
                    wake_explorers(page)
                for key, read in readers.get(stage, ()):
                    try:
                        self.read[key] = read(page, self)
                    except Exception as e:  # noqa: BLE001  (raised to the check that reads it)
                        self.read[key] = e
                self._errors[stage] = list(errors)
        finally:
            ctx.close()

    def get(self, key: str):
        """What the reader ``key`` read (its exception raised again, if it raised one)."""
        if key not in self.read:
            raise KeyError(f"{self.name} ({self.scheme}): nothing read as {key!r}")
        got = self.read[key]
        if isinstance(got, Exception):
            raise got
        return got

    def errors(self, stage: str) -> list:
        return self._errors[stage]


#: stage -> [(key, reader)]: what each page's desktop Reading reads (the test modules that use
#: it register their readers at import, before any test runs)
DESKTOP_READERS: dict = {stage: [] for stage in STAGES}


def reads(stage: str, key: str):
    """Registers a function (page, reading) -> value as a reader of ``stage`` of every desktop
    Reading, under ``key``."""

    def register(fn):
        assert stage in STAGES, stage
        if key not in [k for k, _ in DESKTOP_READERS[stage]]:
            DESKTOP_READERS[stage].append((key, fn))
        return fn

    return register
