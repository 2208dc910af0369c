"""What chapters 7 and 8's functions accept: dates, source texts, ISO targets, batches of ids.

Each check raises ``TypeError`` (wrong kind of object) or ``ValueError`` (wrong content),
naming the function, the argument (``texts[1]``), what was expected and what was received.
The vocabularies are :mod:`scoringbook._date_vocab`'s (imported downward: the task,
:mod:`scoringbook.ch07_dates`, and the model, :mod:`scoringbook.seq2seq`, import this module,
never the other way).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Sequence

import torch
from torch import Tensor

from attnlib.domains import Checked, as_str_list, describe, fmt_shape
from scoringbook import _date_vocab

__all__ = [
    "check_date",
    "check_dates",
    "check_source_texts",
    "check_target_texts",
    "source_fields",
    "check_batch",
]

_FORMATS = "'5 Nov 2026', 'Thursday, 5 November 2026' or 'November 5, 2026'"
_DAY_FIRST = re.compile(r"(?:([A-Za-z]+), )?([0-9]{1,2}) ([A-Za-z]+) ([0-9]{4})", re.ASCII)
_MONTH_FIRST = re.compile(r"([A-Za-z]+) ([0-9]{1,2}), ([0-9]{4})", re.ASCII)
_ISO = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


def check_date(date: object, name: str, fn: str) -> _dt.date:
    """A :class:`datetime.date` with a four-digit year; a datetime gives its date."""
    if not isinstance(date, _dt.date):
        raise TypeError(f"{fn}: {name} must be a datetime.date; got {describe(date)}")
    if isinstance(date, _dt.datetime):
        date = date.date()
    if not 1000 <= date.year <= 9999:
        raise ValueError(
            f"{fn}: {name} must have a four-digit year (1000 to 9999), as 'YYYY-MM-DD' "
            f"needs; got {date.year} ({date!r})"
        )
    return date


def check_dates(dates: object, name: str, fn: str) -> list[_dt.date]:
    """A list (any sequence, not a string) of dates."""
    if isinstance(dates, (str, bytes, _dt.date)) or not isinstance(dates, Sequence):
        raise TypeError(f"{fn}: {name} must be a list of datetime.date; got {describe(dates)}")
    return [check_date(d, f"{name}[{i}]", fn) for i, d in enumerate(dates)]


def check_source_texts(texts: object, name: str, fn: str) -> tuple[str, ...]:
    """At least one non-empty string, each made of the source vocabulary's characters."""
    texts = as_str_list(texts, name, fn, nonempty=True)
    index = _date_vocab.SRC_INDEX
    for b, text in enumerate(texts):
        if not text:
            raise ValueError(
                f"{fn}: {name}[{b}] is empty; every text needs at least one character"
            )
        for j, ch in enumerate(text):
            if ch not in index:
                raise ValueError(
                    f"{fn}: {name}[{b}] = {text!r} has {ch!r} at position {j}, which is not in "
                    f"the source vocabulary (digits, space, comma and the letters of the month "
                    f"and weekday names, see SRC_CHARS)"
                )
    return texts


def check_target_texts(texts: object, name: str, fn: str) -> tuple[str, ...]:
    """At least one ISO date ``YYYY-MM-DD`` (ASCII digits) naming a real date."""
    texts = as_str_list(texts, name, fn, nonempty=True)
    for b, text in enumerate(texts):
        ok = _ISO.fullmatch(text) is not None
        if ok:
            try:
                _dt.date.fromisoformat(text)
            except ValueError:
                ok = False
        if not ok:
            raise ValueError(
                f"{fn}: {name}[{b}] must be a date written YYYY-MM-DD (as format_target "
                f"writes it, e.g. '2026-11-05'); got {text!r}"
            )
    return texts


#: the domains of chapter 7's dates and texts (attnlib.domains.declare), checked by the above
DATE = Checked(check_date)
DATES = Checked(check_dates)
SOURCES = Checked(check_source_texts)
TARGETS = Checked(check_target_texts)


def source_fields(source: object, fn: str):
    """(start, end) of the day digits, the month's name and the year digits in ``source``,
    which must name a real date (see :func:`scoringbook.ch07_dates.implied_alignment`)."""
    m = _date_vocab
    if not isinstance(source, str):
        raise TypeError(
            f"{fn}: source must be a string such as {_FORMATS}; got {describe(source)}"
        )
    match = _DAY_FIRST.fullmatch(source)
    if match is not None:
        weekday, (day, month, year) = match.group(1), (2, 3, 4)
    else:
        match = _MONTH_FIRST.fullmatch(source)
        if match is None:
            raise ValueError(f"{fn}: source must look like {_FORMATS}; got {source!r}")
        weekday, (month, day, year) = None, (1, 2, 3)
    where = f"{fn}: source {source!r}"
    if weekday is not None and weekday not in m.WEEKDAYS:
        raise ValueError(
            f"{where} starts with {weekday!r}, which is not a weekday ({', '.join(m.WEEKDAYS)})"
        )
    numbers = {name: i + 1 for i, full in enumerate(m.MONTHS) for name in (full, full[:3])}
    name = match.group(month)
    if name not in numbers:
        raise ValueError(
            f"{where} has {name!r} where the month goes; expected a month's name or its "
            f"first three letters, capitalised (November or Nov)"
        )
    try:
        _dt.date(int(match.group(year)), numbers[name], int(match.group(day)))
    except ValueError as err:
        raise ValueError(f"{where} is not a date ({err})") from None
    return match.span(day), match.span(month), match.span(year)


def _ids(x: object, name: str, fn: str, vocab: int, layout: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: {name} must be a tensor of shape {layout}; got {describe(x)}")
    if x.dtype == torch.bool or x.is_floating_point() or x.is_complex():
        raise TypeError(
            f"{fn}: {name} must be an integer tensor of character ids; got dtype {x.dtype}"
        )
    if x.dim() != 2:
        raise ValueError(f"{fn}: {name} must have shape {layout}; got {fmt_shape(x.shape)}")
    if x.numel() and (int(x.min()) < 0 or int(x.max()) >= vocab):
        raise ValueError(
            f"{fn}: {name} holds character ids, 0 .. {vocab - 1}; got values from "
            f"{int(x.min())} to {int(x.max())}"
        )
    return x.long()


def check_batch(src: object, src_lens: object, tgt: object, fn: str, need_tgt: bool = False):
    """``src`` ``(batch, n_in)`` source ids, ``src_lens`` ``(batch,)`` lengths in
    ``1 .. n_in``, ``tgt`` ``None`` or ``(batch, N_OUT)`` target ids; batch >= 1."""
    m = _date_vocab
    src = _ids(src, "src", fn, len(m.SRC_CHARS), "(batch, n_in)")
    batch, n_in = src.shape
    if batch == 0 or n_in == 0:
        raise ValueError(
            f"{fn}: src must hold at least one sequence of at least one character; got shape "
            f"{fmt_shape(src.shape)}"
        )
    if not isinstance(src_lens, Tensor):
        raise TypeError(
            f"{fn}: src_lens must be a tensor of shape (batch,); got {describe(src_lens)}"
        )
    if src_lens.dtype == torch.bool or src_lens.is_floating_point() or src_lens.is_complex():
        raise TypeError(
            f"{fn}: src_lens must be an integer tensor of lengths; got dtype {src_lens.dtype}"
        )
    if tuple(src_lens.shape) != (batch,):
        raise ValueError(
            f"{fn}: src_lens must have shape (batch,) = ({batch},), one length per row of src; "
            f"got {fmt_shape(src_lens.shape)}"
        )
    lo, hi = int(src_lens.min()), int(src_lens.max())
    if lo < 1 or hi > n_in:
        raise ValueError(
            f"{fn}: src_lens must hold lengths >= 1 and <= n_in = {n_in}; got values from {lo} "
            f"to {hi}"
        )
    if tgt is None:
        if need_tgt:
            raise TypeError(f"{fn}: tgt must be a tensor of shape (batch, {m.N_OUT}); got None")
        return src, src_lens.long(), None
    tgt = _ids(tgt, "tgt", fn, len(m.TGT_CHARS), f"(batch, {m.N_OUT})")
    if tuple(tgt.shape) != (batch, m.N_OUT):
        raise ValueError(
            f"{fn}: tgt must have shape (batch, {m.N_OUT}) = ({batch}, {m.N_OUT}), one target "
            f"per row of src; got {fmt_shape(tgt.shape)}"
        )
    return src, src_lens.long(), tgt
