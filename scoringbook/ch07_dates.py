"""Chapter 7's task: rewrite a date, ``"22 Nov 2026"`` -> ``"2026-11-22"``.

Generated in code (no download), in three input styles; the ISO output's characters each
copy or translate known input characters, so the alignment a model should learn is known
(:func:`implied_alignment`) and not monotone. :class:`DateModel` is
:class:`scoringbook.seq2seq.EncoderDecoder` with the date vocabularies
(:mod:`scoringbook._date_vocab`, re-exported here); :func:`translate` and :func:`accuracy`
read its greedy output; :func:`permuted_rows` shuffles a row's weights (a causal test).

Nothing here seeds the global generator: every random draw takes a ``torch.Generator``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
from collections.abc import Iterable, Iterator

import torch
from torch import Tensor

from attnlib.domains import (
    Anything,
    Choice,
    Generator,
    Instance,
    Int,
    Seq,
    Str,
    StrList,
    as_int,
    check_generator,
    declare,
    describe,
)
from scoringbook._date_vocab import (
    MONTHS,
    N_OUT,
    SRC_CHARS,
    SRC_INDEX,
    STYLES,
    TGT_CHARS,
    TGT_INDEX,
    WEEKDAYS,
)
from scoringbook._seq2seq_inputs import (
    DATE,
    DATES,
    SOURCES,
    TARGETS,
    check_batch,
    check_date,
    check_dates,
    check_source_texts,
    check_target_texts,
    source_fields,
)
from scoringbook.seq2seq import (
    BOS,
    DROPOUT,
    LAYERS,
    PAD,
    SIZE,
    EncoderDecoder,
    _replaced_rows,
)

__all__ = [
    "MONTHS",
    "WEEKDAYS",
    "STYLES",
    "SRC_CHARS",
    "TGT_CHARS",
    "PAD",
    "BOS",
    "N_OUT",
    "random_dates",
    "format_source",
    "format_target",
    "random_sources",
    "held_out_examples",
    "encode_sources",
    "encode_targets",
    "implied_alignment",
    "DateModel",
    "translate",
    "accuracy",
    "permuted_rows",
]

assert SRC_CHARS[PAD] == TGT_CHARS[PAD] == "<pad>" and SRC_CHARS[BOS] == TGT_CHARS[BOS] == "<bos>"


# ----------------------------------------------------------------------------- the task
@declare(n=Int(ge=0, le=10**7), generator=Generator())
def random_dates(n: int, generator: torch.Generator) -> list[_dt.date]:
    """``n`` dates drawn uniformly from 1 Jan 1900 to 31 Dec 2099 with ``generator``."""
    fn = "random_dates"
    n = as_int(n, "n", fn, min=0)
    check_generator(generator, "generator", fn)
    first, last = _dt.date(1900, 1, 1).toordinal(), _dt.date(2099, 12, 31).toordinal()
    days = torch.randint(first, last + 1, (n,), generator=generator).tolist()
    return [_dt.date.fromordinal(d) for d in days]


@declare(date=DATE, style=Choice(*STYLES))
def format_source(date: _dt.date, style: str = "short") -> str:
    """An input: ``short`` "5 Nov 2026", ``long`` "Thursday, 5 November 2026" or ``us``
    "November 5, 2026" (the day never has a leading zero).

    ``date`` is a :class:`datetime.date` with a four-digit year (1000 to 9999); a
    ``datetime.datetime`` is formatted as its date (the time of day plays no part)."""
    fn = "format_source"
    date = check_date(date, "date", fn)
    if not isinstance(style, str):
        raise TypeError(f"{fn}: style must be one of {STYLES}; got {describe(style)}")
    month = MONTHS[date.month - 1]
    if style == "short":
        return f"{date.day} {month[:3]} {date.year}"
    if style == "long":
        return f"{WEEKDAYS[date.weekday()]}, {date.day} {month} {date.year}"
    if style == "us":
        return f"{month} {date.day}, {date.year}"
    raise ValueError(f"{fn}: style must be one of {STYLES}; got {style!r}")


@declare(date=DATE)
def format_target(date: _dt.date) -> str:
    """The output format, ISO 8601: ``"2026-11-05"`` (a datetime gives its date's)."""
    return check_date(date, "date", "format_target").isoformat()


@declare(dates=DATES, generator=Generator())
def random_sources(dates: list[_dt.date], generator: torch.Generator) -> list[str]:
    """Each date in a style drawn uniformly from :data:`STYLES` with ``generator``."""
    fn = "random_sources"
    dates = check_dates(dates, "dates", fn)
    check_generator(generator, "generator", fn)
    styles = torch.randint(0, len(STYLES), (len(dates),), generator=generator).tolist()
    return [format_source(d, STYLES[s]) for d, s in zip(dates, styles)]


@declare(n=Int(ge=0, le=10**6), generator=Generator(), seen_sources=StrList())
def held_out_examples(
    n: int, generator: torch.Generator, seen_sources: list[str]
) -> tuple[list[_dt.date], list[str]]:
    """``n`` test examples, ``(dates, sources)``, none of whose source texts is in
    ``seen_sources`` (the training inputs): dates and styles drawn as :func:`random_dates` and
    :func:`random_sources` do, ``n`` at a time, the examples seen in training dropped, until
    ``n`` remain. The same date may occur in training written in another style; the same
    input never does."""
    fn = "held_out_examples"
    n = as_int(n, "n", fn, min=0)
    check_generator(generator, "generator", fn)
    seen = set(check_source_texts(seen_sources, "seen_sources", fn))
    dates: list[_dt.date] = []
    sources: list[str] = []
    while len(dates) < n:
        batch = random_dates(n, generator)
        for d, src in zip(batch, random_sources(batch, generator)):
            if src not in seen and len(dates) < n:
                dates.append(d)
                sources.append(src)
    return dates, sources


@declare(texts=SOURCES)
def encode_sources(texts: list[str]) -> tuple[Tensor, Tensor]:
    """Character ids ``(batch, n_in)`` padded with ``PAD``, and lengths ``(batch,)``.

    ``texts`` is a list of at least one non-empty string made of :data:`SRC_CHARS` (a bare
    string is refused: it would be one text per character)."""
    texts = check_source_texts(texts, "texts", "encode_sources")
    n_in = max(len(t) for t in texts)
    ids = torch.full((len(texts), n_in), PAD, dtype=torch.long)
    for b, t in enumerate(texts):
        ids[b, : len(t)] = torch.tensor([SRC_INDEX[c] for c in t])
    return ids, torch.tensor([len(t) for t in texts])


@declare(texts=TARGETS)
def encode_targets(texts: list[str]) -> Tensor:
    """Character ids ``(batch, N_OUT)`` of ISO dates (``texts``: at least one ``YYYY-MM-DD``
    string naming a real date, as :func:`format_target` writes them)."""
    texts = check_target_texts(texts, "texts", "encode_targets")
    return torch.tensor([[TGT_INDEX[c] for c in t] for t in texts], dtype=torch.long)


@declare(source=Str(), fn=Str(nonempty=True))
def implied_alignment(source: str, *, fn: str = "implied_alignment") -> Tensor:
    """Which input characters each output character copies or translates: ``(N_OUT, n_in)``.

    Year digits point at the year digits; the month digits at the letters of the month's
    name, spread evenly; the day digits at the day digits (both at the single digit when
    the day has one: the leading ``0`` follows from it). The dashes copy nothing and get an
    all-zero row, and so do weekday names in the input: no output character needs them.
    Rows are output characters, columns input characters, like every weight matrix in
    attnlib.

    ``source`` must name a real date in one of the three styles. Decisions: a day with a
    leading zero (``"05 Nov 2026"``), either form of the month's name in any style
    (``"Nov 5, 2026"``) and any weekday name (it is not checked against the date: the
    alignment does not depend on it) are accepted; a month's name must be capitalised, the
    digits ASCII, and the spacing exactly one space (``ValueError`` otherwise). ``fn`` names
    the function in error messages (a checker calling this passes its own name).
    """
    (d0, d1), (m0, m1), (y0, y1) = source_fields(source, fn)
    A = torch.zeros(N_OUT, len(source))
    for i in range(4):
        A[i, y0 + i] = 1.0  # "YYYY" <- the year
    A[5:7, m0:m1] = 1.0 / (m1 - m0)  # "MM" <- the month's name
    if d1 - d0 == 2:
        A[8, d0] = A[9, d0 + 1] = 1.0  # "DD" <- the day's two digits
    else:
        A[8, d0] = A[9, d0] = 1.0  # "0D" <- the day's one digit
    return A


class DateModel(EncoderDecoder):
    """:class:`EncoderDecoder` for the date task: date characters in, ``N_OUT`` ISO
    characters out (``attention`` as there)."""

    @declare(
        attention=Anything("True, False, 'uniform' or a callable: checked by EncoderDecoder"),
        embed_size=SIZE,
        num_hiddens=SIZE,
        num_layers=LAYERS,
        dropout=DROPOUT,
    )
    def __init__(
        self,
        *,
        attention=True,
        embed_size: int = 16,
        num_hiddens: int = 32,
        num_layers: int = 1,
        dropout: float = 0.0,
    ) -> None:
        super().__init__(
            len(SRC_CHARS),
            len(TGT_CHARS),
            attention=attention,
            embed_size=embed_size,
            num_hiddens=num_hiddens,
            num_layers=num_layers,
            dropout=dropout,
            n_out=N_OUT,
        )

    def forward(self, src: Tensor, src_lens: Tensor, tgt: Tensor | None = None):
        """Logits ``(batch, N_OUT, vocab)`` and weights ``(batch, N_OUT, n_in)`` (or None).

        ``src`` ``(batch, n_in)`` integer ids of :data:`SRC_CHARS`, ``src_lens`` ``(batch,)``
        lengths in ``1 .. n_in`` (at least one sequence; see :func:`encode_sources`). With
        ``tgt`` (``(batch, N_OUT)`` ids of :data:`TGT_CHARS`) the decoder reads the true
        previous character (teacher forcing); without, its own greedy prediction.
        """
        src, src_lens, tgt = check_batch(src, src_lens, tgt, "DateModel")
        return self._run(src, src_lens, tgt)

    def _check_batch(self, src, src_lens, tgt, fn: str, need_tgt: bool = False):
        return check_batch(src, src_lens, tgt, fn, need_tgt)


@declare(model=Instance(DateModel, what="a DateModel"), texts=SOURCES)
def translate(model: DateModel, texts: list[str]) -> tuple[list[str], Tensor | None]:
    """Greedy decoding: the predicted ISO dates and the weights ``(batch, N_OUT, n_in)``.

    ``texts`` as for :func:`encode_sources`. The model is run in eval mode and left in the
    mode it was in. A predicted padding or begin symbol shows as ``<pad>`` / ``<bos>``.
    """
    fn = "translate"
    if not isinstance(model, DateModel):
        raise TypeError(f"{fn}: model must be a DateModel; got {describe(model)}")
    texts = check_source_texts(texts, "texts", fn)
    src, lens = encode_sources(texts)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            logits, w = model._run(src, lens, None)
    finally:
        model.train(was_training)
    ids = logits.argmax(dim=-1).tolist()  # (batch, N_OUT)
    return ["".join(TGT_CHARS[i] for i in row) for row in ids], w


@declare(model=Instance(DateModel, what="a DateModel"), sources=SOURCES, dates=DATES)
def accuracy(model: DateModel, sources: list[str], dates: list[_dt.date]) -> float:
    """Exact-sequence accuracy: the share of dates rewritten without a single wrong character.

    ``sources[i]`` is the input for ``dates[i]``: both lists hold the same number (>= 1)."""
    fn = "accuracy"
    sources = check_source_texts(sources, "sources", fn)
    dates = check_dates(dates, "dates", fn)
    if len(sources) != len(dates):
        raise ValueError(
            f"{fn}: sources and dates must be paired, one date per source; got "
            f"{len(sources)} sources and {len(dates)} dates"
        )
    predicted, _ = translate(model, sources)
    return sum(p == format_target(d) for p, d in zip(predicted, dates)) / len(dates)


@declare(
    model=Instance(EncoderDecoder, what="an EncoderDecoder"),
    rows=Seq(Int(ge=0)),
    generator=Generator(),
)
@contextlib.contextmanager
def permuted_rows(
    model: EncoderDecoder, rows: Iterable[int], generator: torch.Generator
) -> Iterator[EncoderDecoder]:
    """Jain and Wallace's (2019) permutation test, the companion of
    :func:`scoringbook.seq2seq.uniform_rows`: inside the ``with`` block, the model's attention
    weights for the output positions ``rows`` (0-based) are its own weights shuffled at random
    over the valid inputs, as concentrated as before but on other characters. Every other row
    is the model's own; each decoding draws new permutations from ``generator``.

    Example::

        with permuted_rows(model, [8], torch.Generator().manual_seed(0)):
            acc = accuracy(model, sources, dates)
    """
    yield from _replaced_rows(model, rows, "permuted_rows", generator)
