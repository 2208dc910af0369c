"""Chapter 7's date task's vocabularies: month and weekday names, the input styles, the
characters of inputs and outputs.

Its own module so that both the task (:mod:`scoringbook.ch07_dates`) and the checks of what
the task's functions accept (:mod:`scoringbook._seq2seq_inputs`) import it downward. Ids 0
and 1 are ``<pad>`` and ``<bos>`` in both vocabularies, as :data:`scoringbook.seq2seq.PAD`
and ``BOS`` say.
"""

from __future__ import annotations

__all__ = ["MONTHS", "WEEKDAYS", "STYLES", "SRC_CHARS", "TGT_CHARS", "N_OUT"]


MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: The input formats: ``short`` "5 Nov 2026", ``long`` "Thursday, 5 November 2026",
#: ``us`` "November 5, 2026".
STYLES = ("short", "long", "us")
#: Source vocabulary: padding, digits, space, comma and the letters of month and day names.
SRC_CHARS = (
    ["<pad>", "<bos>", " ", ","] + list("0123456789") + sorted(set("".join(MONTHS + WEEKDAYS)))
)
#: Target vocabulary: padding, begin-of-sequence, digits and the dash.
TGT_CHARS = ["<pad>", "<bos>", "-"] + list("0123456789")
N_OUT = 10  # "YYYY-MM-DD"
SRC_INDEX = {c: i for i, c in enumerate(SRC_CHARS)}
TGT_INDEX = {c: i for i, c in enumerate(TGT_CHARS)}
