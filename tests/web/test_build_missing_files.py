"""The build steps on sites with a file missing or broken: each must stop (non-zero exit) with a
message naming the page and the file, never exit 0 having skipped it, never a bare stack trace
that names neither. The sites are written to a temporary folder; Node runs offline on them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _node_script(script: str, site: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("node")
    if exe is None or not (ROOT / "web" / "node_modules" / "parse5").is_dir():
        from _chromium import unavailable

        unavailable("node or web/node_modules is missing (cd web && npm ci)")
    return subprocess.run(
        [exe, script, str(site)], cwd=ROOT / "web", capture_output=True, text=True, timeout=120
    )


def _write(site: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text, encoding="utf8")


MAIN = '<html><head></head><body><div role="main"><p>x</p></div></body></html>'


def test_search_text_names_a_page_the_index_lists_but_the_site_lacks(tmp_path):
    _write(
        tmp_path,
        {
            "searchindex.js": 'Search.setIndex({"docnames": ["intro", "chapters/gone"]})',
            "intro.html": MAIN,
        },
    )
    r = _node_script("search-text.mjs", tmp_path)
    assert r.returncode != 0 and "chapters/gone.html" in r.stderr, r.stderr


def test_search_text_names_a_missing_index(tmp_path):
    _write(tmp_path, {"intro.html": MAIN})
    r = _node_script("search-text.mjs", tmp_path)
    assert r.returncode != 0 and "searchindex.js" in r.stderr, r.stderr


STATE = (
    '<script type="application/vnd.jupyter.widget-state+json">{state}</script>'
    "</head><body>"
    '<script type="application/vnd.jupyter.widget-view+json">{{"model_id": "m1"}}</script>'
)


def test_explorer_preview_names_the_page_and_the_missing_chapter(tmp_path):
    _write(
        tmp_path,
        {
            "index.html": '<html><head></head><body><div class="attn-preview" '
            'data-page="chapters/gone.html" data-explorer="x"></div></body></html>',
        },
    )
    r = _node_script("prerender-explorers.mjs", tmp_path)
    assert r.returncode != 0, r.stdout
    assert "index.html" in r.stderr and "chapters/gone.html" in r.stderr, r.stderr


def test_explorer_state_that_is_not_json_names_the_page(tmp_path):
    page = "<html><head>" + STATE.format(state='{"state": {') + "</body></html>"
    _write(tmp_path, {"chapters/p.html": page})
    r = _node_script("prerender-explorers.mjs", tmp_path)
    assert r.returncode != 0 and "chapters/p.html" in r.stderr, r.stderr


def test_math_font_names_the_missing_stylesheet(tmp_path):
    _write(tmp_path, {"index.html": "<math><mi>x</mi></math>"})
    r = subprocess.run(
        [sys.executable, str(ROOT / "web" / "subset_math_font.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode != 0 and "math.css" in r.stderr, r.stderr


@pytest.mark.parametrize("script", ["prerender-math.mjs", "table-cards.mjs", "inline-css.mjs"])
def test_a_missing_site_is_named(script, tmp_path):
    r = _node_script(script, tmp_path / "no site")
    assert r.returncode != 0 and "no site" in r.stderr, (script, r.stderr)
