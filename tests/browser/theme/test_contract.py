"""The page shell's contract (web/theme/CONTRACT.md): every built page carries the markup that
the explorers, the build steps, Sphinx's search and the browser tests rely on.

No browser: the table's selectors are matched on the HTML of `_build/html` (BeautifulSoup with
soupsieve, which takes the CSS selectors `querySelectorAll` does). Marked `browser` because it
needs the built book, as the browser tests do (`make test-browser` builds it first).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from ..conftest import CHAPTERS, EXPLORER_CHAPTERS, PAGES, ROOT, SITE

pytestmark = pytest.mark.browser

CONTRACT = ROOT / "web" / "theme" / "CONTRACT.md"
ROW = re.compile(r"^\| `(?P<selector>[^`]+)` \| (?P<pages>[a-z0-9]+) \| (?P<count>\d\+?) \| .+\|$")


def contract_rows(text: str) -> list[tuple[str, str, str]]:
    """(selector, pages, count) of every row of the contract's tables."""
    rows = []
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            rows.append((m["selector"], m["pages"], m["count"]))
        elif line.startswith("| `"):
            raise AssertionError(f"a contract row that does not parse: {line}")
    return rows


ROWS = contract_rows(CONTRACT.read_text(encoding="utf8"))


def pages_of(kind: str) -> list[str]:
    every = sorted(
        str(p.relative_to(SITE))
        for p in SITE.rglob("*.html")
        if not str(p.relative_to(SITE)).startswith(("_", "index.html"))
    )
    groups = {
        "every": every,
        "book": PAGES,
        "chapters": CHAPTERS,
        "explorers": EXPLORER_CHAPTERS,
        "search": ["search.html"],
        "404": ["404.html"],
        "other": [p for p in every if p != "search.html"],
    }
    if kind not in groups:
        raise AssertionError(f"unknown page group {kind!r} in {CONTRACT.name}")
    return groups[kind]


@cache
def soup(name: str) -> BeautifulSoup:
    return BeautifulSoup((Path(SITE) / name).read_text(encoding="utf8"), "html.parser")


def test_the_contract_is_read_whole():
    """Every row parses (a typo would drop a row silently), and it has the rows it had."""
    assert len(ROWS) >= 30, f"only {len(ROWS)} rows read from {CONTRACT}"
    assert {kind for _, kind, _ in ROWS} <= {
        "every",
        "book",
        "chapters",
        "explorers",
        "search",
        "404",
        "other",
    }


@pytest.mark.parametrize(("selector", "kind", "count"), ROWS, ids=[r[0][:60] for r in ROWS])
def test_built_pages_carry_the_contract(site, selector, kind, count):
    names = pages_of(kind)
    assert names, f"no pages in group {kind!r}"
    wrong = []
    for name in names:
        n = len(soup(name).select(selector))
        ok = n >= 1 if count == "1+" else n == int(count)
        if not ok:
            wrong.append(f"{name}: {n}")
    assert not wrong, f"{selector!r} should match {count} time(s) on {kind} pages: {wrong}"
