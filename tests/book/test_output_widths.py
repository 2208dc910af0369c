"""Printed tables fit a phone's code column (issue 39, "code outputs that the prose cites wrap,
or are reshaped so that they fit").

At 390 px a code output shows about 40 characters a line; a longer line wraps, and a table
printed in aligned columns then loses its columns (the cold read of chapters 1-6: chapter
4's "n_q ... | MLP / additive" and "batch ... | features (MiB)" tables, chapter 3's token
table and chapter 5's "Var(q.k/sqrt d) =" lines ended with their last value alone on the next
line). Prose-like lines (a checker's message) may wrap at any word; a line laid out in
columns (two or more spaces inside it, or a " | ") may not. Torch's own tensor repr is left
to torch. Checked on the executed notebooks, the outputs the book shows.

Every chapter (chapters 7-10 were added after their cold read: chapter 7's sample dates and
chapter 8's sample numbers printed "source  ->  target" on one line, 44 characters and more,
and the target wrapped inside itself, "2075-" | "02-13").
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"
#: characters a phone's code column shows on one line (390 px, the book's code font)
PHONE_CHARS = 40
#: a line laid out in columns: a run of two or more spaces after its first non-space
#: character, or a " | " column rule
COLUMNS = re.compile(r"\S {2,}\S| \| ")
#: torch's tensor repr (its rows are aligned by torch, not by the chapter)
TENSOR = re.compile(r"^\s*(tensor\(|\[)")


def _outputs(notebook: Path):
    """(cell number, text) of each text output of each code cell."""
    cells = json.loads(notebook.read_text(encoding="utf8"))["cells"]
    for n, cell in enumerate(cells):
        for out in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            if out["output_type"] == "stream":
                yield n, "".join(out["text"])
            elif "text/plain" in out.get("data", {}) and "text/html" not in out["data"]:
                yield n, "".join(out["data"]["text/plain"])


def table_lines_too_wide(text: str, width: int = PHONE_CHARS) -> list[str]:
    """The lines of ``text`` laid out in columns that are longer than ``width``."""
    return [
        line
        for line in text.splitlines()
        if len(line) > width and COLUMNS.search(line) and not TENSOR.match(line)
    ]


def test_the_rule_sees_a_table_and_lets_prose_wrap():
    assert table_lines_too_wide("  n_q   n_k  d_q  d_k    h | MLP / additive") == [
        "  n_q   n_k  d_q  d_k    h | MLP / additive"
    ]
    assert table_lines_too_wide("d =   2: Var(q·k) =    2.0, Var(q·k/√d) = 1.0")
    assert not table_lines_too_wide("n_q  n_k  d_q  d_k    h   MLP/additive")  # 38 characters
    prose = "Not yet: your scores have shape (2, 4, 3) = (batch, n_keys, n_queries), " * 2
    assert not table_lines_too_wide(prose)
    tensor_row = "         [  nan,   nan,   nan,   nan]]], dtype=torch.float16)"
    assert not table_lines_too_wide(tensor_row)


@pytest.mark.parametrize(
    "notebook", sorted(CHAPTERS.glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem[:2]
)
def test_printed_tables_fit_a_phone(notebook):
    wide = [
        f"cell {n}: {line!r} ({len(line)} characters)"
        for n, text in _outputs(notebook)
        for line in table_lines_too_wide(text)
    ]
    assert not wide, (
        f"{notebook.name}: output lines in columns wider than {PHONE_CHARS} characters wrap on "
        "a phone and lose their columns; print them narrower or one item a line:\n"
        + "\n".join(wide)
    )
