"""web/prerender-explorers.mjs's pictures, escaping and paths, and the build scripts' entry points:

- ``scriptJson``: any saved state (text holding "</script>", "<!--", "&", U+2028, quotes,
  non-ASCII), written inside <script type="application/vnd.jupyter.widget-state+json">, is read
  back by html.parser as that script's whole text, and json.loads of it is the state;
- ``prerender`` on pages holding chapter 1's saved widget state (read from its notebook) and
  views of its explorers, its layout models and an unknown model: each explorer's view gets,
  just before it, a static picture (every control disabled, no tab stop, nothing live) and a
  state script of its own model holding only spec, data, indices, texts and name; the state
  leaves <head>; the loader is called after each drawn view when the page loads it; the
  stylesheet is linked once when something was drawn; every other part of the page is as it
  was;
- ``staticDir``: for a page at any depth (folder names with spaces, "#", "%", non-ASCII), the
  href it returns, resolved from the page's folder, is the site's _static folder;
- the scripts run their build step when started from a folder whose path holds a space (they
  compared import.meta.url with "file://" + the path, which never matched there, and exited 0
  having done nothing): with a site that does not exist they must fail.
"""

from __future__ import annotations

import json
import os
import posixpath
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
PROPS = settings(
    derandomize=True,
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

TEXT = st.lists(
    st.sampled_from([*"ab <>&\"'/!-\\\u2028\u2029\u00e9\U0001d465\n", "</script>", "<!--"]),
    max_size=12,
).map("".join)
STATE = st.recursive(
    TEXT | st.integers(-(2**53), 2**53) | st.booleans() | st.none(),  # JSON numbers JS keeps
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


class Scripts(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self._in = False

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self._in = True
            self.texts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in = False

    def handle_data(self, data):
        if self._in:
            self.texts[-1] += data


@PROPS
@given(STATE)
def test_state_json_survives_the_html_parser(node, state):
    value = {"version_major": 2, "version_minor": 0, "state": {"m": {"state": {"t": state}}}}
    text = node({"op": "scriptJson", "value": value})["json"]
    page = (
        '<html><head><script type="application/vnd.jupyter.widget-state+json">'
        f"{text}</script></head><body><p>after</p></body></html>"
    )
    p = Scripts()
    p.feed(page)
    p.close()
    assert p.texts == [text], f"the state script ends early: {text!r}"
    assert json.loads(p.texts[0]) == value


FOLDER = st.sampled_from(["chapters", "a b", "x#y", "p%20q", "\u00e9", "_sub", "deep"])


@PROPS
@given(st.lists(FOLDER, max_size=3), st.sampled_from(["/srv/site", "/srv/my site"]))
def test_static_dir_points_at_the_site_static(node, folders, site):
    file = posixpath.join(site, *folders, "page.html")
    got = node({"op": "staticDir", "site": site, "file": file})["dir"]
    assert posixpath.normpath(posixpath.join(posixpath.dirname(file), got)) == posixpath.join(
        site, "_static"
    ), f"{file}: _static as {got!r}"


@pytest.mark.parametrize("script", ["search-text.mjs", "inline-css.mjs", "table-cards.mjs"])
def test_scripts_run_from_a_path_with_a_space(script, tmp_path):
    exe = shutil.which("node")
    if exe is None or not (ROOT / "web" / "node_modules" / "parse5").is_dir():
        from _chromium import unavailable

        unavailable("node or web/node_modules is missing (cd web && npm ci)")
    folder = tmp_path / "a folder"
    folder.mkdir()
    shutil.copy(ROOT / "web" / script, folder / script)
    os.symlink(ROOT / "web" / "node_modules", folder / "node_modules")
    r = subprocess.run(
        [exe, script, str(tmp_path / "no such site")],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode != 0, f"web/{script} run from {folder} did nothing: {r.stdout!r}"


# ----------------------------------------------------------------------------- prerender()

VIEW = "application/vnd.jupyter.widget-view+json"
STATE_TYPE = "application/vnd.jupyter.widget-state+json"
KEEP = ("spec", "data", "indices", "texts", "name")  # what the script's header says it keeps
BOOT = '<script type="module" async="async" src="../_static/lib/explorer-boot.js"></script>'


def _saved_state() -> dict:
    """The widget state chapter 1's notebook saved (two explorers and their layout models):
    read-only, as myst-nb writes it into the page."""
    nb = json.loads((ROOT / "chapters" / "01_queries_keys_values.ipynb").read_text())
    return nb["metadata"]["widgets"][STATE_TYPE]


SAVED = _saved_state()
IDS = sorted(SAVED["state"])
EXPLORERS = {i for i in IDS if "spec" in SAVED["state"][i]["state"]}


def _json_in_script(value) -> str:
    return (
        json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    )


class Events(HTMLParser):
    """The page's events, with what prerender() adds set apart: each static picture's
    elements, each state script (parsed) and each call to the loader."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.events: list = []
        self.pictures: list[list] = []
        self.states: list = []
        self.links: list[str] = []
        self._pic = 0  # depth inside a picture
        self._script: list | None = None
        self.in_head = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "head":
            self.in_head = True
        if self._pic:
            self.pictures[-1].append((tag, a))
            if tag not in ("input", "br", "img", "link", "meta", "hr"):
                self._pic += 1
            return
        if tag == "div" and a.get("class") == "attn-static":
            self.pictures.append([])
            self._pic = 1
            return
        if tag == "link" and a.get("rel") == "stylesheet" and "explorer.css" in a.get("href", ""):
            self.links.append(a["href"])
            return
        if tag == "script":
            self._script = [a.get("type"), "", self.in_head]
            return
        self.events.append(("start", tag, sorted(a.items())))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self._pic and tag not in ("input", "br", "img", "link", "meta", "hr"):
            self._pic -= 1

    def handle_endtag(self, tag):
        if tag == "head":
            self.in_head = False
        if self._pic:
            self._pic -= 1
            return
        if tag == "script" and self._script is not None:
            kind, text, head = self._script
            self._script = None
            if kind == STATE_TYPE:
                self.states.append((json.loads(text), head))
                self.events.append(("state",))
            elif text == "window.attnExplorers && window.attnExplorers.render();":
                self.events.append(("early",))
            else:
                self.events.append(("script", kind, text))
            return
        self.events.append(("end", tag))

    def handle_data(self, data):
        if self._script is not None:
            self._script[1] += data
        elif not self._pic and not (self.in_head and not data.strip()):
            # (the stylesheet link comes with its own indent and newline in <head>)
            self.events.append(("data", data))


def _read(html: str) -> Events:
    p = Events()
    p.feed(html)
    p.close()
    return p


@st.composite
def explorer_pages(draw):
    views = draw(st.lists(st.sampled_from([*IDS, "not-a-model"]), max_size=4))
    boot = draw(st.sampled_from(["", BOOT]))
    between = st.sampled_from(["", "<p>text &amp; more</p>", "\n", "<div class='cell'>x</div>"])
    body = "".join(
        draw(between) + f'<script type="{VIEW}">{json.dumps({"model_id": v})}</script>'
        for v in views
    )
    head = f'<script type="{STATE_TYPE}">{_json_in_script(SAVED)}</script>{boot}'
    page = f"<!DOCTYPE html><html><head>{head}</head><body>{body}{draw(between)}</body></html>"
    return page, views, bool(boot)


CSS = "../_static/lib/explorer.css"


@settings(
    derandomize=True,
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(explorer_pages())
def test_prerender_draws_each_explorer_before_its_view(node, case):
    page, views, boot = case
    got = node({"op": "prerender", "html": page, "css": CSS})
    assert "error" not in got, got
    before, after = _read(page), _read(got["html"])
    drawn = [v for v in views if v in EXPLORERS]
    assert got["views"] == len(drawn)
    # the state leaves <head>; each drawn view gets its own model's state, slimmed
    assert not any(head for _, head in after.states), "a widget state is left in <head>"
    assert len(after.states) == len(drawn)
    for (state, _), v in zip(after.states, drawn):
        model = SAVED["state"][v]
        want = {k: model["state"][k] for k in KEEP if k in model["state"]}
        assert state == {
            "version_major": 2,
            "version_minor": 0,
            "state": {v: {"model_name": model["model_name"], "state": want}},
        }, f"model {v}: state script differs"
    assert len(after.pictures) == len(drawn)
    for pic in after.pictures:
        assert pic, "an empty picture"
        for tag, a in pic:
            if tag in ("input", "select", "button"):
                assert "disabled" in a, f"a live control in the static picture: <{tag} {a}>"
            for gone in ("tabindex", "aria-live", "data-value", "data-ready"):
                assert gone not in a, f"<{tag}> keeps {gone} in the static picture"
    assert after.links == ([CSS] if drawn else []), after.links
    # everything else is the page as it was, less the state in <head>
    want_events = []
    for e in before.events:
        if e == ("state",):
            continue
        if e[0] == "script" and e[1] == VIEW and json.loads(e[2])["model_id"] in EXPLORERS:
            want_events += [("state",), e] + ([("early",)] if boot else [])
            continue
        want_events.append(e)
    assert after.events == want_events
