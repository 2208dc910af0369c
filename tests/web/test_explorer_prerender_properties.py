"""web/prerender-explorers.mjs's escaping and paths, and every build script's entry point:

- ``scriptJson``: any saved state (text holding "</script>", "<!--", "&", U+2028, quotes,
  non-ASCII), written inside <script type="application/vnd.jupyter.widget-state+json">, is read
  back by html.parser as that script's whole text, and json.loads of it is the state;
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
