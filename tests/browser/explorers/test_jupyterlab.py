"""Chapter 1's soft-lookup explorer in a live JupyterLab: the page and the Python kernel
share one state.

A JupyterLab server (the venv's, on 127.0.0.1, with a random token, its settings,
workspaces and runtime files in a temporary directory, and nothing that fetches news or
checks for updates) opens a small notebook that builds the explorer and displays it. Chromium
runs every cell through the Run menu, as a reader would; later cells are added to the
notebook and run with JupyterLab's own run-cell command (what Shift+Enter runs). Checked:
the explorer renders inside the output area; dragging the query (mouse, arrow keys) reaches
the kernel (``ex.params``); ``ex.set(...)`` in Python moves the query on the page and the
page redraws attnlib's weights (``scoringbook.compute``); JupyterLab's dark theme
recolours it. Screenshots go to _build/screenshots/jupyterlab-*.png.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from _chromium import unavailable
from _wait import wait_until

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[3]
SCREENSHOTS = ROOT / "_build" / "screenshots"
NOTEBOOK = "soft_lookup_live.ipynb"
CELLS = [
    "import scoringbook.ch01_queries_keys_values as E",
    "ex = E.soft_lookup_explorer()",
    "ex",
]
NAME = "soft_lookup"
TOL = 1e-4  # the page's weights against attnlib's
PIXEL_TOL = 0.2  # drawn coordinates are rounded to 0.1 px
START_S = 90  # generous: the machine may be slow and busy
WAIT_MS = 90_000

EXPLORER = f'.jp-OutputArea-output .attn-explorer[data-explorer="{NAME}"]'
HANDLE = f'{EXPLORER}[data-ready="true"] .attn-handle[role="slider"]'
KEYS_SVG = f'{EXPLORER} svg.attn-lines[data-panel="keys"]'
VALUETEXT = re.compile(r"^query at x = (-?\d+(?:\.\d+)?), y = (-?\d+(?:\.\d+)?)$")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Lab:
    """The running JupyterLab server: its address, token, root directory and log."""

    url: str
    token: str
    root: Path
    log: Path
    proc: subprocess.Popen

    def api(self, path: str, method: str = "GET"):
        req = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=5) as r:
            body = r.read()
        return json.loads(body) if body else None

    def log_tail(self, n: int = 40) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(
                self.log.read_text(encoding="utf8", errors="replace").splitlines()[-n:]
            )
        return ""


@pytest.fixture(scope="module")
def lab(chromium, tmp_path_factory):
    """JupyterLab from the venv on a free 127.0.0.1 port, serving a temporary directory that
    holds the notebook; shut down (kernels first) when the module's tests are done."""
    if importlib.util.find_spec("jupyterlab") is None:
        unavailable(
            f"jupyterlab is not installed in {sys.prefix} (pip install -r requirements.txt)"
        )
    import nbformat

    tmp = tmp_path_factory.mktemp("jupyterlab")
    root = tmp / "root"
    root.mkdir()
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(c) for c in CELLS],
        metadata={
            "kernelspec": {
                "name": "python3",
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
            }
        },
    )
    nbformat.write(nb, root / NOTEBOOK)
    token, port = secrets.token_hex(24), _free_port()
    venv_bin = Path(sys.executable).parent
    # As the Makefile does: the "python3" kernelspec starts plain `python`, so the venv comes
    # first on PATH. Every Jupyter directory that gets written to is a temporary one.
    env = {
        **os.environ,
        "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        "JUPYTER_CONFIG_DIR": str(tmp / "config"),
        "JUPYTER_DATA_DIR": str(tmp / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
        "IPYTHONDIR": str(tmp / "ipython"),
        "JUPYTERLAB_SETTINGS_DIR": str(tmp / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces"),
        # quiet: no jupyter_core deprecation notice, no debugpy "frozen modules" warning
        "JUPYTER_PLATFORM_DIRS": "1",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    # No "Would you like to get notified about official Jupyter news?" toast over the notebook
    # (the server fetches nothing anyway: news_url=None, NeverCheckForUpdate).
    notification = (
        tmp
        / "settings"
        / "@jupyterlab"
        / "apputils-extension"
        / "notification.jupyterlab-settings"
    )
    notification.parent.mkdir(parents=True)
    notification.write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf8"
    )
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.user_settings_dir={tmp / 'settings'}",
        f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        "--ServerApp.terminals_enabled=False",
        "--LabApp.expose_app_in_browser=True",
    ]  # window.jupyterapp: add and run cells
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = tmp / "jupyterlab.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    server = Lab(url=f"http://127.0.0.1:{port}", token=token, root=root, log=log, proc=proc)
    try:

        def answers() -> bool:
            try:
                server.api("/api/status")
                return True
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(
                        f"JupyterLab exited ({proc.poll()}) before answering /api/status; its "
                        f"log:\n{server.log_tail()}"
                    ) from None
                return False

        try:
            wait_until(answers, START_S, f"JupyterLab answering /api/status on {server.url}")
        except TimeoutError as e:
            raise RuntimeError(f"{e}; its log:\n{server.log_tail()}") from None
        yield server
    finally:
        with contextlib.suppress(Exception):
            for k in server.api("/api/kernels"):
                server.api(f"/api/kernels/{k['id']}", method="DELETE")
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=15)
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)


# The notebook panel showing NOTEBOOK, through the app JupyterLab exposes (expose_app_in_browser).
PANEL_JS = f"""
const panel = () => {{
  const app = window.jupyterapp;
  if (!app || !app.shell) return null;
  for (const w of app.shell.widgets('main')) if (w.context && w.context.path === {json.dumps(NOTEBOOK)}) return w;
  return null;
}};
"""
KERNEL_IDLE_JS = (
    "() => {"
    + PANEL_JS
    + """
  const p = panel(), s = p && p.sessionContext, k = s && s.session && s.session.kernel;
  return !!(k && k.status === 'idle' && k.connectionStatus === 'connected' && p.content.widgets.length > 0);
}
"""
)
# Appends a code cell, runs it with JupyterLab's run-cell command (what Shift+Enter runs) and
# returns its outputs once the kernel has answered.
RUN_JS = (
    "async (code) => {"
    + PANEL_JS
    + """
  const app = window.jupyterapp, p = panel(), nb = p.content;
  app.shell.activateById(p.id);
  const n = nb.model.cells.length;
  nb.model.sharedModel.insertCell(n, {cell_type: 'code', source: code});
  nb.activeCellIndex = n;
  const ok = await app.commands.execute('notebook:run-cell');
  return {ok, outputs: nb.widgets[n].model.outputs.toJSON()};
}
"""
)
ACTIVE_CELL_JS = "() => {" + PANEL_JS + "return panel().content.activeCellIndex; }"
# What the page shows: the explorer's parameters, the query's announced and drawn position,
# the keys' drawn positions, the weights in the heatmap, the controls and the live sentence.
STATE_JS = """
() => {
  const exs = document.querySelectorAll('.jp-OutputArea-output .attn-explorer[data-explorer="soft_lookup"]');
  const ex = exs[0];
  if (!ex || ex.dataset.ready !== 'true') return null;
  const knob = ex.querySelector('.attn-handle');
  const t = /translate\\(([-\\d.]+),([-\\d.]+)\\)/.exec(knob.getAttribute('transform') || '');
  const keys = ex.querySelector('svg.attn-lines[data-panel="keys"] .attn-fixed[data-series="keys"]');
  const stop = ex.querySelector('svg.attn-colorbar-svg stop');
  return {
    count: exs.length,
    params: JSON.parse(ex.dataset.params),
    valuetext: knob.getAttribute('aria-valuetext'),
    knob: t ? [+t[1], +t[2]] : null,
    keys: [...keys.children].map((c) => [+c.getAttribute('cx'), +c.getAttribute('cy')]),
    weights: Array.from(ex.querySelector('svg.attn-heatmap').attnValues),
    cells: ex.querySelector('svg.attn-heatmap image.attn-cells').getAttribute('href'),
    controls: Object.fromEntries([...ex.querySelectorAll('[data-param]:is(input, select)')].map((c) => {
      const out = ex.querySelector(`output[data-param="${c.dataset.param}"]`);
      return [c.dataset.param, [+c.value, out ? out.textContent : null]];
    })),
    live: ex.querySelector('.attn-live').textContent,
    rampStart: stop.getAttribute('stop-color'),
    background: getComputedStyle(ex).backgroundColor,
    themeLight: document.body.dataset.jpThemeLight,
  };
}
"""
# Whether the explorer shows the given parameters.
SHOWS_JS = """
(want) => {
  const ex = document.querySelector('.jp-OutputArea-output .attn-explorer[data-explorer="soft_lookup"]');
  if (!ex || !ex.dataset.params) return false;
  const got = JSON.parse(ex.dataset.params);
  return Object.keys(want).every((k) => got[k] === want[k]);
}
"""
# Where key j's dot is on screen.
KEY_JS = """
(j) => {
  const ex = document.querySelector('.jp-OutputArea-output .attn-explorer[data-explorer="soft_lookup"]');
  const b = ex.querySelector('svg.attn-lines[data-panel="keys"] .attn-fixed[data-series="keys"]').children[j]
    .getBoundingClientRect();
  return [b.left + b.width / 2, b.top + b.height / 2];
}
"""


@dataclass
class Notebook:
    """The notebook open in Chromium, every cell run; console messages are recorded."""

    page: object
    lab: Lab
    console: list = field(default_factory=list)
    requests: list = field(default_factory=list)

    def run(self, code: str) -> str:
        """Run ``code`` in a new cell; its printed output (an error fails the test)."""
        got = self.page.evaluate(RUN_JS, code)
        errors = [o for o in got["outputs"] if o.get("output_type") == "error"]
        assert not errors, f"cell {code!r} raised {errors[0]['ename']}: {errors[0]['evalue']}"
        assert got["ok"], f"cell {code!r} did not run"
        return "".join(
            "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
            for o in got["outputs"]
            if o.get("output_type") == "stream"
        )

    def kernel_params(self) -> dict:
        """``ex.params`` in the kernel."""
        return json.loads(self.run("import json; print(json.dumps(ex.params))"))

    def state(self) -> dict:
        s = self.page.evaluate(STATE_JS)
        assert s is not None, "the explorer is no longer drawn in the notebook"
        return s

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"jupyterlab-{name}.png"
        self.page.screenshot(path=str(path))
        return path

    def errors(self) -> list:
        return [c for c in self.console if c[0] in ("error", "pageerror")]


@pytest.fixture(scope="module")
def notebook(chromium, lab):
    """The notebook in Chromium, run with Run > Run All Cells, once its explorer has drawn."""
    ctx = chromium.new_context(viewport={"width": 1280, "height": 1000}, service_workers="block")
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    nb = Notebook(page=page, lab=lab)
    page.on("console", lambda m: nb.console.append((m.type, m.text, json.dumps(m.location))))
    page.on("pageerror", lambda e: nb.console.append(("pageerror", str(e), "")))
    page.on("request", lambda r: nb.requests.append(r.url))
    try:
        page.goto(f"{lab.url}/lab/tree/{NOTEBOOK}?token={lab.token}", wait_until="load")
        page.wait_for_function(KERNEL_IDLE_JS, timeout=WAIT_MS, polling=100)
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        page.locator(HANDLE).wait_for(state="attached", timeout=WAIT_MS)
        page.locator(KEYS_SVG).scroll_into_view_if_needed()
        nb.screenshot("rendered")
    except Exception as e:
        with contextlib.suppress(Exception):
            nb.screenshot("failed-to-render")
        ctx.close()
        raise AssertionError(
            f"the explorer did not render in JupyterLab: {type(e).__name__}: {e}\n"
            f"console: {nb.console[-20:]}\nserver log:\n{lab.log_tail()}"
        ) from None
    yield nb
    ctx.close()


def _position(valuetext: str) -> tuple[float, float]:
    m = VALUETEXT.match(valuetext or "")
    assert m, f"the query's aria-valuetext is {valuetext!r}"
    return float(m[1]), float(m[2])


def _grid(name: str) -> list:
    from scoringbook.ch01_queries_keys_values import soft_lookup_declaration

    return list(next(p for p in soft_lookup_declaration().params if p.name == name).values)


def _check_weights(s: dict, params: dict, where: str) -> None:
    from scoringbook.registry import compute

    want = np.asarray(compute(NAME, **params)["weights"]).reshape(-1)
    got = np.asarray(s["weights"])
    assert got.shape == want.shape, (
        f"{where}: the heatmap shows {got.size} weights, attnlib has {want.size}"
    )
    err = np.abs(got - want).max()
    assert err <= TOL, (
        f"{where}: the page's weights differ from attnlib's by {err:.2e} at {params}"
    )


def _kernel_agrees(nb: Notebook, where: str) -> dict:
    """The kernel's ``ex.params`` once it matches the page's (ipywidgets may hold back the last
    of a burst of updates until the kernel has answered the one before): fails when it never
    does. Returns the kernel's parameters."""
    s = nb.state()
    x, y = _position(s["valuetext"])

    def caught_up() -> dict | None:
        k = nb.kernel_params()
        return k if (k["query_x"], k["query_y"]) == (x, y) else None

    try:
        k = wait_until(caught_up, 20, f"{where}: the kernel catching up with the page")
    except TimeoutError:  # the assertion below says what the kernel holds
        k = nb.kernel_params()
    assert (k["query_x"], k["query_y"]) == (x, y), (
        f"{where}: the page shows {s['valuetext']!r}; the kernel's ex.params is {k}"
    )
    assert k == s["params"], f"{where}: the page's parameters {s['params']}, the kernel's {k}"
    return k


def test_the_explorer_renders_in_the_notebook_from_the_venvs_kernel(notebook, margin):
    """Run All Cells draws one explorer in the output area, at its defaults, with the query a
    focusable slider; the kernel is the venv's Python; nothing is logged as an error."""
    out = notebook.run("import sys, attnlib; print(sys.prefix); print(attnlib.__file__)")
    prefix, attnlib_file = out.split()
    assert Path(prefix).resolve() == Path(sys.prefix).resolve(), (
        f"the kernel runs {prefix}, not {sys.prefix}"
    )
    assert Path(attnlib_file).resolve().is_relative_to(ROOT), (
        f"the kernel imports attnlib from {attnlib_file}"
    )
    s = notebook.state()
    assert s["count"] == 1, f"{s['count']} explorers drawn for one displayed widget"
    assert s["valuetext"] == "query at x = 0.5, y = -0.5", s["valuetext"]
    assert s["params"] == notebook.kernel_params(), (
        "the page and the kernel start at different positions"
    )
    _check_weights(s, s["params"], "at the start")
    knob = notebook.page.locator(HANDLE)
    assert knob.get_attribute("tabindex") == "0" and knob.is_visible()
    box = knob.bounding_box()
    if box:
        margin("JupyterLab: the query's target px wide", box["width"], 30)
    assert box and box["width"] >= 30, f"the query's target is {box} (expected a 44 px circle)"
    local = (
        f"{notebook.lab.url}/",
        notebook.lab.url.replace("http:", "ws:", 1) + "/",
        "data:",
        "blob:",
    )
    away = [u for u in notebook.requests if not u.startswith(local)]
    assert not away, f"the notebook asked for something beyond the local JupyterLab: {away}"
    assert not notebook.errors(), f"console errors: {notebook.errors()}"


def test_the_kernel_sees_where_the_query_was_dragged(notebook):
    """Dragging the query onto a key with the mouse, then moving it with the arrow keys:
    after each move, the kernel's ``ex.params`` is the position the page announces, and the
    heatmap shows attnlib's weights there; the arrow keys do not move the notebook's
    selection to another cell."""
    page = notebook.page
    knob = page.locator(HANDLE)
    for j in (3, 0):
        # running a cell scrolls the notebook to it: bring the plot back into view first
        page.locator(KEYS_SVG).scroll_into_view_if_needed()
        before = notebook.state()
        box = knob.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        tx, ty = page.evaluate(KEY_JS, j)
        page.mouse.move(tx, ty, steps=8)
        page.mouse.up()
        s = notebook.state()
        assert s["valuetext"] != before["valuetext"], (
            f"dragged onto key {j}: the query did not move"
        )
        assert int(np.argmax(s["weights"])) == j, (
            f"dragged onto key {j}: weights {np.round(s['weights'], 3)}"
        )
        k = _kernel_agrees(notebook, f"dragged onto key {j}")
        _check_weights(s, k, f"dragged onto key {j}")

    x0, y0 = _position(notebook.state()["valuetext"])
    xs, ys = _grid("query_x"), _grid("query_y")
    page.locator(KEYS_SVG).scroll_into_view_if_needed()
    knob.focus()
    cell = page.evaluate(ACTIVE_CELL_JS)  # focusing the query selects the cell showing it
    assert cell == CELLS.index("ex"), f"the query has focus, yet cell {cell} is selected"
    for key in ("ArrowRight", "ArrowRight", "ArrowUp"):
        page.keyboard.press(key)
    s = notebook.state()
    want = (xs[xs.index(x0) + 2], ys[ys.index(y0) + 1])
    assert _position(s["valuetext"]) == want, (
        f"from ({x0}, {y0}), right, right, up: {s['valuetext']!r}"
    )
    assert page.evaluate(ACTIVE_CELL_JS) == cell, "the arrow keys moved the notebook's selection"
    assert page.evaluate("() => document.activeElement.classList.contains('attn-handle')"), (
        "the arrow keys took the focus away from the query"
    )
    k = _kernel_agrees(notebook, "after the arrow keys")
    _check_weights(s, k, "after the arrow keys")
    assert not notebook.errors(), f"console errors: {notebook.errors()}"


def test_set_in_python_moves_the_query_on_the_page(notebook):
    """``ex.set(...)`` in the kernel moves the page's controls and the query: the slider
    positions and their values, the announced position, the drawn position (where the keys'
    axes put those values), the sentence under the explorer, and the heatmap's weights
    (attnlib's there)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    xs, ys, temps = _grid("query_x"), _grid("query_y"), _grid("temperature")
    for target in (
        {"score": "scaled_dot", "temperature": 0.5, "query_x": xs[26], "query_y": ys[67]},
        {"score": "gaussian", "temperature": 1, "query_x": xs[90], "query_y": ys[9]},
    ):
        assert target["temperature"] in temps
        before = notebook.state()
        notebook.run("ex.set(" + ", ".join(f"{k}={v!r}" for k, v in target.items()) + ")")
        with contextlib.suppress(PlaywrightTimeout):  # the checks below say what the page shows
            notebook.page.wait_for_function(SHOWS_JS, arg=target, timeout=30_000, polling=50)
        s = notebook.state()
        x, y = target["query_x"], target["query_y"]
        where = f"after ex.set({target})"
        assert s["params"] == target, f"{where}: the page's parameters are {s['params']}"
        assert s["valuetext"] == f"query at x = {x:g}, y = {y:g}", f"{where}: {s['valuetext']!r}"
        assert s["controls"]["query_x"] == [xs.index(x), f"{x:.2f}"], f"{where}: {s['controls']}"
        assert s["controls"]["query_y"] == [ys.index(y), f"{y:.2f}"], f"{where}: {s['controls']}"
        assert s["controls"]["temperature"][0] == temps.index(target["temperature"]), (
            f"{where}: {s['controls']}"
        )
        assert s["controls"]["score"][0] == ["gaussian", "scaled_dot"].index(target["score"]), s[
            "controls"
        ]
        assert f"query x {x:.2f}, query y {y:.2f}" in s["live"], (
            f"{where}: the sentence reads {s['live']!r}"
        )
        assert s["cells"] != before["cells"], f"{where}: the heatmap was not repainted"
        _check_weights(s, target, where)
        # drawn where the keys' axes put (x, y): one affine map per axis, fitted on the keys
        from scoringbook.ch01_queries_keys_values import soft_lookup_declaration

        keys = np.asarray(soft_lookup_declaration().meta["keys"])
        pix = np.asarray(s["keys"])
        for axis, v in ((0, x), (1, y)):
            a, b = np.polyfit(keys[:, axis], pix[:, axis], 1)
            err = abs(a * v + b - s["knob"][axis])
            assert err <= PIXEL_TOL + 1e-9, (
                f"{where}: the query is drawn {err:.2f} px off its position ({'xy'[axis]})"
            )
    notebook.screenshot("after-set")
    assert not notebook.errors(), f"console errors: {notebook.errors()}"


def test_jupyterlabs_dark_theme_recolours_the_explorer(notebook):
    """Switching JupyterLab to its dark theme repaints the explorer: a dark background, the
    dark colour scale (from inferno's deep purple, a step away from the dark background, so
    small weights stay visible), the same weights."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = notebook.page
    before = notebook.state()
    assert before["themeLight"] == "true" and before["rampStart"] == "#ffede5", before["rampStart"]
    try:
        page.evaluate(
            "() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: "
            "'JupyterLab Dark'})"
        )
        with contextlib.suppress(PlaywrightTimeout):  # the checks below say what the page shows
            page.wait_for_function(
                "() => document.body.dataset.jpThemeLight === 'false' && "
                "!document.getElementById('jupyterlab-splash')"
                " && document.querySelector('.jp-OutputArea-output .attn-colorbar-svg stop')"
                ".getAttribute('stop-color') === '#420a68'",
                timeout=30_000,
                polling=100,
            )
        s = notebook.state()
        assert s["themeLight"] == "false", "JupyterLab did not switch to its dark theme"
        assert s["rampStart"] == "#420a68", (
            f"dark theme: the colour scale starts at {s['rampStart']}"
        )
        assert s["background"] == "rgb(27, 27, 31)", (
            f"dark theme: the explorer's background is {s['background']}"
        )
        assert s["cells"] != before["cells"], "dark theme: the heatmap was not repainted"
        assert s["weights"] == before["weights"] and s["params"] == before["params"]
        page.locator(KEYS_SVG).scroll_into_view_if_needed()
        notebook.screenshot("dark")
    finally:
        with contextlib.suppress(Exception):
            page.evaluate(
                "() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: "
                "'JupyterLab Light'})"
            )
            page.wait_for_function(
                "() => document.body.dataset.jpThemeLight === 'true' "
                "&& !document.getElementById('jupyterlab-splash')",
                timeout=30_000,
            )
    assert not notebook.errors(), f"console errors: {notebook.errors()}"
