"""Each chapter's MyST Markdown twin (what maintainers edit) matches its executed notebook.

``chapters/NN_name.md`` is the source of a chapter; ``chapters/NN_name.ipynb`` holds the
same cells plus the outputs that nbval compares and the book shows. If someone edits the
.md and forgets ``make chapters``, the book and nbval would silently use the old text:
this test fails instead, naming the chapter, the cell and the command that fixes it.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat
import pytest

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"
MARKDOWN = sorted(CHAPTERS.glob("*.md"))


def _cells(nb) -> list[tuple[str, str, tuple[str, ...]]]:
    return [
        (c.cell_type, c.source.strip(), tuple(c.get("metadata", {}).get("tags", [])))
        for c in nb.cells
    ]


def test_every_chapter_has_both_twins():
    notebooks = sorted(CHAPTERS.glob("*.ipynb"))
    assert MARKDOWN, "no chapters/*.md found"
    assert [p.stem for p in MARKDOWN] == [p.stem for p in notebooks], (
        "every chapter needs chapters/NN_name.md and chapters/NN_name.ipynb; pair a new "
        "notebook with: jupytext --set-formats ipynb,md:myst chapters/NN_name.ipynb"
    )


@pytest.mark.parametrize("md", MARKDOWN, ids=[p.stem for p in MARKDOWN])
def test_markdown_and_notebook_twins_hold_the_same_cells(md: Path):
    text = jupytext.read(md)
    notebook = nbformat.read(md.with_suffix(".ipynb"), as_version=4)
    fix = f"run `make chapters CH={md.stem[:2]}` to sync {md.name} into {md.stem}.ipynb"
    a, b = _cells(text), _cells(notebook)
    for i, (x, y) in enumerate(zip(a, b)):
        assert x == y, (
            f"{md.stem}: cell {i} differs between the .md and the .ipynb "
            f"(.md: {x[0]} {x[1][:60]!r} tags {x[2]}; .ipynb: {y[0]} "
            f"{y[1][:60]!r} tags {y[2]}); {fix}"
        )
    assert len(a) == len(b), f"{md.stem}: {len(a)} cells in the .md, {len(b)} in the .ipynb; {fix}"
    formats = notebook.metadata.get("jupytext", {}).get("formats", "")
    assert "md:myst" in formats, f"{md.stem}.ipynb is not paired with its .md ({formats!r})"


@pytest.mark.parametrize("md", MARKDOWN, ids=[p.stem for p in MARKDOWN])
def test_notebook_twin_is_executed(md: Path):
    """nbval compares stored outputs: a notebook without them would check nothing."""
    notebook = nbformat.read(md.with_suffix(".ipynb"), as_version=4)
    code = [
        c
        for c in notebook.cells
        if c.cell_type == "code" and "remove-cell" not in c.get("metadata", {}).get("tags", [])
    ]
    assert code and all(c.get("execution_count") for c in code), (
        f"{md.stem}.ipynb has unexecuted code cells: run `make chapters CH={md.stem[:2]}`"
    )
