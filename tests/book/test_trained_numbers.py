"""Trained numbers are measurements (issue 25): the chapters that train glue them into the prose
from their own run and never type them, and nbval never compares them exactly.

- No decimal number is typed in the prose of a section about training (chapter 2's learned
  bandwidth, chapters 6-9's runs) or about timings (chapter 5's speed section), except the
  few constants the chapter manifest lists with their reason.
- Every ``{glue}`name``` the prose uses is glued by a cell of the committed notebook, and
  every cell that glues is one nbval does not compare (``nbval-ignore-output``): the glued
  text is a measurement.
- Every notebook that glues trained numbers also checks its claims (``claims.check``) in a
  cell nbval runs (timings have no claim: a verdict on the wall clock depends on the load).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scoringbook import manifest

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"
GLUE_MIME = "application/papermill.record/text/plain"

# from the chapter manifest (scoringbook/manifest.py): {stem: (the heading where training
# starts, the heading where it ends; None: the end)}
TRAINED = {
    c.stem: (c.trained.start, c.trained.end) for c in manifest.CHAPTERS if c.trained is not None
}
# chapters that glue measurements which are not trained (timings): glued and never typed like
# the trained ones, but no claim is checked in the notebook (a verdict on the wall clock would
# depend on the machine's load; speed targets live in benchmarks/)
MEASURED = {c.stem: (c.timed.start, c.timed.end) for c in manifest.CHAPTERS if c.timed is not None}
# numbers the prose of those sections may type: not measurements of a run (the manifest says why)
ALLOWED = {c.stem: set(c.typed) for c in manifest.CHAPTERS if c.typed}
NUMBER = re.compile(r"(?<![\w.`])\d+\.\d+(?![\w.])")


def _prose(text: str) -> str:
    """Markdown with code cells, fenced blocks, display maths, inline code and roles removed."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)  # code cells, literal blocks
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)  # display maths (inline maths stays:
    # a number typed as $\sigma = 0.25$ is typed all the same)
    text = re.sub(r"\{[\w:]+\}`[^`]*`", " ", text)  # {glue}`name`, {ref}`...`
    return re.sub(r"`[^`]*`", " ", text)


def _section(name: str) -> str:
    """The chapter's sections about training and timings, one after the other."""
    text = (CHAPTERS / f"{name}.md").read_text()
    parts = []
    for bounds in (TRAINED, MEASURED):
        if name in bounds:
            start, end = bounds[name]
            a = text.index(f"\n{start}\n")
            b = text.index(f"\n{end}\n", a) if end else len(text)
            parts.append(text[a:b])
    return "\n".join(parts)


@pytest.mark.parametrize("name", sorted({**TRAINED, **MEASURED}))
def test_prose_types_no_trained_number(name):
    typed = sorted(set(NUMBER.findall(_prose(_section(name)))) - ALLOWED.get(name, set()))
    assert not typed, (
        f"{name}: the prose about training types {typed}; glue them from the run "
        "(scoringbook.glue) and check the conclusion (scoringbook.claims)"
    )


def test_the_number_finder_finds_typed_numbers():
    # the check above can fail: a typed measurement in prose is found, glued text and maths not
    prose = _prose("It wrote 0.71 ({glue}`share` here), $\\sigma = 0.25$, `lr=0.01`, $$x = 1.5$$.")
    assert NUMBER.findall(prose) == ["0.71", "0.25"]


def _cells(name: str) -> list[dict]:
    return json.loads((CHAPTERS / f"{name}.ipynb").read_text())["cells"]


@pytest.mark.parametrize("name", sorted({**TRAINED, **MEASURED}))
def test_every_glued_name_is_glued_by_an_uncompared_cell(name):
    glued = {}
    for cell in _cells(name):
        for out in cell.get("outputs", []):
            if GLUE_MIME in out.get("data", {}):
                key = out["metadata"]["scrapbook"]["name"]
                glued[key] = cell
    used = set(re.findall(r"\{glue\}`([\w]+)`", (CHAPTERS / f"{name}.md").read_text()))
    assert used, f"{name}: its prose glues nothing"
    assert not used - set(glued), f"{name}: prose uses unglued names {sorted(used - set(glued))}"
    compared = sorted(
        k for k, c in glued.items() if "nbval-ignore-output" not in c["metadata"].get("tags", [])
    )
    assert not compared, f"{name}: nbval would compare the glued measurements {compared}"


@pytest.mark.parametrize("name", sorted(TRAINED))
def test_the_claims_are_checked_in_the_notebook(name):
    sources = ["".join(c["source"]) for c in _cells(name) if c["cell_type"] == "code"]
    assert any("claims.check(" in s for s in sources), f"{name}: no cell checks its claims"
