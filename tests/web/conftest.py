"""The Node process the build scripts' property tests share (web/test-build-props.mjs: one line of
JSON in, one line out, per case). Node runs offline: the scripts read only their arguments and
web/node_modules. Locally the tests skip when Node or web/node_modules is missing; with CI=true
they fail instead."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from _chromium import unavailable

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "web" / "test-build-props.mjs"


@pytest.fixture(scope="session")
def node():
    """run(case) -> answer: ``case`` is a page (str) for the search-text check, or a dict
    ({"css": ...} for the url() check, {"op": name, ...} for one script's function)."""
    exe = shutil.which("node")
    if exe is None:
        unavailable("node is not installed")
    for pkg in ("parse5", "lightningcss", "temml"):
        if not (ROOT / "web" / "node_modules" / pkg).is_dir():
            unavailable(f"web/node_modules/{pkg} is missing (cd web && npm ci)")
    proc = subprocess.Popen(
        [exe, str(RUNNER)],
        cwd=ROOT / "web",
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf8",
    )

    def run(html: str | dict) -> dict:
        case = html if isinstance(html, dict) else {"html": html}
        proc.stdin.write(json.dumps(case) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        assert line, "the Node runner died (see stderr)"
        return json.loads(line)

    yield run
    proc.stdin.close()
    proc.wait(timeout=10)
