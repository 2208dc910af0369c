"""How many examples the property tests draw, by depth: ``TEST_DEPTH=check`` (what `make check`
sets: a quick pass after each edit), ``full`` (the default: what `make test` runs, the counts
each suite chose) or ``deep`` (a deliberate long run, 10x: ``TEST_DEPTH=deep .venv/bin/python -m
pytest -q tests -m "not browser"``). The examples are derandomised, so each depth draws the
same examples every run, and a smaller depth draws a prefix of a larger one's."""

from __future__ import annotations

import os

FACTORS = {"check": 0.25, "full": 1.0, "deep": 10.0}


def depth() -> str:
    """The depth ``TEST_DEPTH`` names (default ``full``); anything else is refused by name."""
    name = os.environ.get("TEST_DEPTH", "full") or "full"
    if name not in FACTORS:
        raise ValueError(f"TEST_DEPTH: expected one of {sorted(FACTORS)}; got {name!r}")
    return name


def examples(n: int) -> int:
    """``n`` examples at the ``full`` depth, scaled to the current one (at least 5)."""
    return max(5, round(n * FACTORS[depth()]))
