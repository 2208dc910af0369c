"""The prose as a reader sees it, with each ``{glue}`name``` replaced by the text the committed
notebook glued under that name, reads naturally whatever the run measured.

Issue 37 (left over): chapter 8 said "between digit {glue}`first_lo` and digit
{glue}`first_hi`" and printed "between digit 8 and digit 8" when the two medians came out
equal. A range whose bounds are measurements is glued as one phrase ("at digit 8", or
"between digit 7 and digit 9"), and no chapter's rendered prose holds a range with equal
bounds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scoringbook import manifest

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"
GLUE_MIME = "application/papermill.record/text/plain"
ROLE = re.compile(r"\{glue(?::text)?\}`([A-Za-z_][A-Za-z0-9_]*)(?::[^`]*)?`")
# "between digit 8 and digit 8", "from 3 to 3", "between 0.95 and 0.95": equal bounds
EQUAL_RANGE = re.compile(
    r"\b(?:between|from)\s+((?:[A-Za-z]+\s+)?)(\d+(?:\.\d+)?)\s+(?:and|to)\s+\1\2(?![\d.]*\d)"
)


def _glued(stem: str) -> dict[str, str]:
    cells = json.loads((CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf8"))["cells"]
    out = {}
    for cell in cells:
        for o in cell.get("outputs", []):
            text = o.get("data", {}).get(GLUE_MIME)
            if text is not None:
                out[o["metadata"]["scrapbook"]["name"]] = "".join(text).strip("'\"")
    return out


def rendered(text: str, glued: dict[str, str]) -> str:
    """``text`` with each glue role replaced by its glued text, whitespace normalised."""
    return " ".join(ROLE.sub(lambda m: glued.get(m.group(1), m.group(0)), text).split())


def equal_ranges(prose: str) -> list[str]:
    return [m.group(0) for m in EQUAL_RANGE.finditer(prose)]


def test_the_finder_finds_equal_bounds_and_only_those():
    glued = {"lo": "8", "hi": "8", "a": "7", "b": "9"}
    said = rendered("falls between digit {glue}`lo` and digit {glue}`hi`, whatever", glued)
    assert said == "falls between digit 8 and digit 8, whatever"
    assert equal_ranges(said) == ["between digit 8 and digit 8"]
    assert equal_ranges("from 3 to 3 steps") == ["from 3 to 3"]
    for fine in (
        rendered("between digit {glue}`a` and digit {glue}`b`", glued),
        "between 8 and 80",
        "from 0.9 to 0.95",
        "between digit 8 and position 8",
        "at digit 8",
    ):
        assert equal_ranges(fine) == [], fine


@pytest.mark.parametrize("stem", [c.stem for c in manifest.CHAPTERS])
def test_no_glued_range_reads_with_equal_bounds(stem):
    prose = rendered((CHAPTERS / f"{stem}.md").read_text(encoding="utf8"), _glued(stem))
    found = equal_ranges(prose)
    assert not found, (
        f"{stem}: the prose, with this run's glued numbers, reads {found}: glue the range as "
        "one phrase that says 'at X' when the bounds are equal"
    )
