"""Masked self-attention over sentences the reader types: :class:`LiveMasking` (chapter 3).

The page computes each frame (``maskingFrame`` in ``attnlib/static/src/primitives.js``); the
rules, which this module is the reference for, are in :mod:`attnlib.widgets.live`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import torch

from attnlib import _validate
from attnlib import domains as D
from attnlib.widgets.controls import OPTIONAL_TEXT, Choice, ExplorerError, _declared, record
from attnlib.widgets.panels import Heatmap

__all__ = ["LiveMasking", "PAD", "MODES", "tokens", "fold", "word_vector"]


# ----------------------------------------------------------------------------- typed sentences

PAD = "<pad>"
#: The masking modes, by option value: one valid length per sentence, shape (batch,) (the
#: <pad> queries still attend to the sentence's words); one per query, (batch, n_queries)
#: (a <pad> query gets 0, an all-zero row); none (a plain softmax over every token).
MODES = ("sentence_lengths", "query_lengths", "none")
_M32 = 0xFFFFFFFF


@D.declare(text=D.Str(), max_tokens=D.Int(ge=0))
def tokens(text: str, max_tokens: int) -> list[str]:
    """The text's tokens: split at ASCII whitespace (space, tab, form feed; a no-break space
    stays inside a word), the first ``max_tokens`` (an int >= 0)."""
    _validate.as_str(text, "text", "tokens")
    max_tokens = _validate.as_int(max_tokens, "max_tokens", "tokens", min=0)
    return [t for t in re.split(r"[ \t\n\r\f\v]+", text) if t][:max_tokens]


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@D.declare(word=D.Str())
def fold(word: str) -> str:
    """``word`` with A-Z lower-cased and nothing else changed: the same in every Python and
    every browser (full Unicode lower-casing depends on each one's Unicode version)."""
    _validate.as_str(word, "word", "fold")
    return word.translate(_ASCII_LOWER)


@D.declare(word=D.Str(), d=D.Int(ge=1, le=2**16))
def word_vector(word: str, d: int) -> list[float]:
    """``d`` numbers in [-1, 1), the same for the same string, and the same in the page.

    The seed is the 32-bit FNV-1a hash of the string's UTF-8 bytes; the numbers come from
    the mulberry32 generator (both are a few integer operations, written again in
    static/src/primitives.js with ``Math.imul``; here every value is kept modulo 2**32).
    ``word`` is valid Unicode text (no lone surrogate: the page could not encode it), ``d``
    >= 1.
    """
    fn = "word_vector"
    _validate.as_str(word, "word", fn)
    d = _validate.as_int(d, "d", fn, min=1, max=2**16)  # a word vector, not a table
    try:
        data = word.encode("utf8")
    except UnicodeEncodeError:
        raise ValueError(
            f"{fn}: word must be valid Unicode text; got {word!r}, which holds a lone surrogate"
        ) from None
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & _M32
    out = []
    for _ in range(d):
        h = (h + 0x6D2B79F5) & _M32
        t = h
        t = ((t ^ (t >> 15)) * (t | 1)) & _M32
        t ^= (t + ((t ^ (t >> 7)) * (t | 61))) & _M32
        out.append(2.0 * (((t ^ (t >> 14)) & _M32) / 4294967296.0) - 1.0)
    return out


@record(
    sentences=D.StrList(nonempty=True, what="a list of names (of Text fields)"),
    weights=D.StrList(nonempty=True, what="a list of names (of Heatmap panels)"),
    max_tokens=D.Int(ge=1),
    d=D.Int(ge=1),
    masking=OPTIONAL_TEXT,
)
@dataclass(frozen=True)
class LiveMasking:
    """What the browser computes for masked self-attention over sentences the reader types
    (see the module docs).

    Args:
        sentences: names of the :class:`~attnlib.widgets.Text` fields, one per sentence.
        weights: names of the :class:`~attnlib.widgets.Heatmap` panels, one per sentence,
            ``(max_tokens, max_tokens)`` each (queries are rows); the tokens label them.
        max_tokens: every sentence is cut or padded to this many tokens.
        d: length of the word vectors.
        masking: optional name of a :class:`~attnlib.widgets.Choice` whose options are
            among :data:`MODES`: ``"sentence_lengths"`` (one valid length per sentence,
            ``(batch,)``: the ``<pad>`` queries still attend), ``"query_lengths"`` (one per
            query, ``(batch, n_queries)``: a ``<pad>`` query gets an all-zero row) and
            ``"none"`` (a plain softmax, the mistake masking prevents). Without it, the
            page masks by query lengths.
    """

    sentences: tuple[str, ...]
    weights: tuple[str, ...]
    max_tokens: int = 6
    d: int = 8
    masking: str | None = None

    def __post_init__(self) -> None:
        where = "LiveMasking"
        for attr in ("sentences", "weights"):
            value = getattr(self, attr)
            if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
                raise ExplorerError(
                    f"{where}: {attr} must be a list of names; got a {type(value).__name__} "
                    f"({value!r})"
                )
            bad = [v for v in value if not isinstance(v, str)]
            if bad:
                raise ExplorerError(f"{where}: {attr} must be names (str); got {bad[0]!r}")
            object.__setattr__(self, attr, tuple(value))
        if self.masking is not None and not isinstance(self.masking, str):
            raise ExplorerError(
                f"{where}: masking must be the name of a Choice (str) or None; got "
                f"{self.masking!r}"
            )
        for attr in ("max_tokens", "d"):
            object.__setattr__(
                self, attr, _declared(_validate.as_int, getattr(self, attr), attr, where, min=1)
            )
        if not self.sentences or len(self.sentences) != len(self.weights):
            raise ExplorerError(
                "LiveMasking: give one weights heatmap per sentence; got "
                f"{len(self.sentences)} "
                f"sentences and {len(self.weights)} heatmaps"
            )

    def frame(self, texts: list[str], mode: str = "query_lengths") -> list[tuple[list[str], Any]]:
        """For each text: (its padded tokens, weights ``(max_tokens, max_tokens)``), by attnlib.

        ``texts``: a list of strings, each one line of valid Unicode (what a text field
        holds; any length: only the first ``max_tokens`` tokens count); ``mode`` one of
        :data:`MODES` (valid lengths per sentence, per query, or no masking)."""
        from attnlib.masking import masked_softmax

        fn = "LiveMasking.frame"
        texts = _validate.as_str_list(texts, "texts", fn)
        for i, t in enumerate(texts):
            if "\n" in t or "\r" in t:
                raise ValueError(
                    f"{fn}: texts[{i}] is one line of text; got a line break in {t!r}"
                )
        if not isinstance(mode, str):
            raise TypeError(f"{fn}: mode must be a str, one of {MODES}; got {mode!r}")
        if mode not in MODES:
            raise ValueError(f"{fn}: mode must be one of {MODES}; got {mode!r}")
        n, out = self.max_tokens, []
        toks = [tokens(t, n) for t in texts]
        padded = [t + [PAD] * (n - len(t)) for t in toks]
        q = torch.tensor(
            [[word_vector("q " + fold(w), self.d) for w in p] for p in padded], dtype=torch.float64
        )  # (batch, n, d)
        k = torch.tensor(
            [[word_vector("k " + fold(w), self.d) for w in p] for p in padded], dtype=torch.float64
        )  # (batch, n, d)
        scores = q @ k.transpose(1, 2) / self.d**0.5  # (batch, n_queries, n_keys)
        if mode == "sentence_lengths":
            lens = torch.tensor([len(t) for t in toks])  # (batch,)
        elif mode == "query_lengths":
            lens = torch.tensor(
                [[len(t) if i < len(t) else 0 for i in range(n)] for t in toks]
            )  # (batch, n_queries)
        else:
            lens = None
        weights = masked_softmax(scores, lens)  # (batch, n, n)
        for b, p in enumerate(padded):
            out.append((p, weights[b].numpy()))
        return out

    def check(self, decl: Any) -> None:
        where = f"explorer {decl.name!r} (live masking)"
        texts = {t.name for t in decl.texts}
        panels = {p.name: p for p in decl.panels}
        for s in self.sentences:
            if s not in texts:
                raise ExplorerError(
                    f"{where}: sentence {s!r} is not a Text field; fields: {sorted(texts)}"
                )
        for w in self.weights:
            if not isinstance(panels.get(w), Heatmap):
                raise ExplorerError(f"{where}: weights {w!r} is not a Heatmap panel")
        extra = sorted(set(panels) - set(self.weights))
        if extra:
            raise ExplorerError(
                f"{where}: the browser computes only the sentences' heatmaps; panels "
                f"{extra} would stay empty"
            )
        if self.masking is not None:
            c = {p.name: p for p in decl.params}.get(self.masking)
            if not isinstance(c, Choice) or not set(c.options) <= set(MODES):
                raise ExplorerError(
                    f"{where}: masking {self.masking!r} must be a Choice whose options are "
                    f"among {MODES}"
                )

    def check_frame(self, frame: dict, where: str) -> None:
        """Each sentence's reference weights are ``(max_tokens, max_tokens)``, as the page's."""
        want = (self.max_tokens, self.max_tokens)
        for w in self.weights:
            got = tuple(frame[w].shape)
            if got != want:
                raise ExplorerError(
                    f"{where} (live masking): weights {w!r} must be {want} (queries x keys, "
                    f"max_tokens={self.max_tokens}); update returned {got}"
                )

    def spec(self) -> dict:
        return {
            "kind": "masking",
            "sentences": list(self.sentences),
            "weights": list(self.weights),
            "max_tokens": self.max_tokens,
            "d": self.d,
            "masking": self.masking,
            "pad": PAD,
        }
