"""The encoder-decoder that chapters 7 and 8 both train: encoder, decoders, training.

The model follows d2l's Bahdanau encoder-decoder (Zhang et al., *Dive into Deep Learning*,
https://d2l.ai, section 11.4) with the bidirectional encoder of Bahdanau, Cho and Bengio
(2015): a GRU encoder that reads both ways, and a GRU decoder whose state before each step
is the **query** of :class:`attnlib.AdditiveAttention`, with the encoder's states as **keys
and values**. The same model without attention (:class:`ContextDecoder`, one fixed
context) and with query-blind attention (:class:`UniformAttention`, the same weight on
every input) are the baselines.

Chapters 7 and 8 train it on two tasks generated in code (no download): rewrite a date,
``"22 Nov 2026"`` -> ``"2026-11-22"`` (:mod:`scoringbook.ch07_dates`), whose alignment is
known and not monotone; and write down a number read aloud, ``"three one four"`` ->
``"314"`` (:mod:`scoringbook.ch08_numbers`), whose inputs run to several times that length.
Every vocabulary starts with ``<pad>`` (:data:`PAD`) and ``<bos>`` (:data:`BOS`).

Shapes (one vocabulary with the rest of attnlib):

- source tokens ``(batch, n_in)``, padded with ``PAD``; ``src_lens`` ``(batch,)``;
- encoder states ``(batch, n_in, h)``: the keys and the values;
- decoder query at one step ``(batch, 1, h)``; its weights ``(batch, 1, n_in)``;
- all weights of a decoded output ``(batch, n_out, n_in)``: output characters are rows
  (queries), input characters are columns (keys).

Nothing here seeds the global generator: every random draw takes a ``torch.Generator``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

from attnlib.attention import AdditiveAttention, check_dropout
from attnlib.domains import (
    Anything,
    Instance,
    Int,
    Real,
    Seq,
    Tup,
    as_int,
    as_real,
    check_generator,
    declare,
    describe,
    isolated_global_rng,
    seed_from,
)
from attnlib.masking import masked_softmax
from attnlib.tensor_domains import FloatTensor

__all__ = [
    "PAD",
    "BOS",
    "Encoder",
    "AttentionDecoder",
    "ContextDecoder",
    "UniformAttention",
    "EncoderDecoder",
    "TrainLog",
    "train",
    "uniform_rows",
]

#: Ids of padding and begin-of-sequence in every vocabulary the model reads or writes.
PAD, BOS = 0, 1

#: the book's models are small: larger sizes are a mistake (minutes, then out of memory), refused
VOCAB = Int(ge=1, le=2**16)
SIZE = Int(ge=1, le=4096)
LAYERS = Int(ge=1, le=16)
DROPOUT = Real(ge=0, le=1)


# ----------------------------------------------------------------------------- the model
class Encoder(nn.Module):
    """Embedding + bidirectional GRU over the source characters, as in Bahdanau et al.

    d2l's ``Seq2SeqEncoder`` reads left to right only, so the state at a character knows
    nothing of what follows it; reading both ways (``h / 2`` units per direction, joined)
    gives every character a state that describes it in its whole context, which is what an
    alignment needs. Padding never reaches a state: the sequences are packed.

    Returns the states ``(batch, n_in, h)`` (keys and values) and the final hidden state
    ``(num_layers, batch, h)`` (both directions' last states, joined), the decoder's start.
    """

    @declare(vocab_size=VOCAB, embed_size=SIZE, num_hiddens=SIZE, num_layers=LAYERS)
    def __init__(
        self, vocab_size: int, embed_size: int, num_hiddens: int, num_layers: int = 1
    ) -> None:
        super().__init__()
        embed_size, num_hiddens, num_layers = _sizes(
            "Encoder", embed_size, num_hiddens, num_layers, even=True
        )
        self.embedding = nn.Embedding(vocab_size, embed_size, padding_idx=PAD)
        self.rnn = nn.GRU(
            embed_size, num_hiddens // 2, num_layers, batch_first=True, bidirectional=True
        )

    def forward(self, src: Tensor, src_lens: Tensor) -> tuple[Tensor, Tensor]:
        packed = nn.utils.rnn.pack_padded_sequence(
            self.embedding(src), src_lens.cpu(), batch_first=True, enforce_sorted=False
        )
        out, hidden = self.rnn(packed)  # hidden: (2 * num_layers, batch, h / 2)
        states, _ = nn.utils.rnn.pad_packed_sequence(
            out, batch_first=True, total_length=src.shape[1]
        )  # (batch, n_in, h)
        layers = hidden.shape[0] // 2
        hidden = hidden.view(layers, 2, *hidden.shape[1:])  # (num_layers, 2, batch, h / 2)
        hidden = torch.cat([hidden[:, 0], hidden[:, 1]], dim=-1)  # (num_layers, batch, h)
        return states, hidden


class AttentionDecoder(nn.Module):
    """d2l's ``Seq2SeqAttentionDecoder``: at every step the decoder's top hidden state is
    the query ``(batch, 1, h)``; the encoder states ``(batch, n_in, h)`` are the keys and
    the values; the context ``(batch, 1, h)`` joins the previous output character."""

    @declare(
        vocab_size=VOCAB,
        embed_size=SIZE,
        num_hiddens=SIZE,
        num_layers=LAYERS,
        dropout=DROPOUT,
        attention=Instance(nn.Module, what="an nn.Module (or None)", optional=True),
    )
    def __init__(
        self,
        vocab_size: int,
        embed_size: int,
        num_hiddens: int,
        num_layers: int = 1,
        dropout: float = 0.0,
        attention: nn.Module | None = None,
    ) -> None:
        super().__init__()
        embed_size, num_hiddens, num_layers = _sizes(
            "AttentionDecoder", embed_size, num_hiddens, num_layers
        )
        dropout = check_dropout(dropout, "AttentionDecoder")
        # d2l's constructor; any module with the same forward and .attention_weights works
        self.attention = (
            AdditiveAttention(num_hiddens, dropout) if attention is None else attention
        )
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, batch_first=True)
        self.dense = nn.Linear(num_hiddens, vocab_size)

    def step(self, token: Tensor, hidden: Tensor, states: Tensor, src_lens: Tensor):
        """Decoder step t' (one output character): from the previous character y_{t'-1}
        (``token``, ``(batch,)``) and state s_{t'-1} (``hidden``), the logits of y_{t'}
        ``(batch, vocab)``, the new state s_{t'} and the weights ``(batch, 1, n_in)``."""
        query = hidden[-1].unsqueeze(1)  # s_{t'-1}: (num_layers, batch, h) -> (batch, 1, h)
        context = self.attention(query, states, states, src_lens)  # c_{t'}: (batch, 1, h)
        embedded = self.embedding(token).unsqueeze(1)  # e(y_{t'-1}): (batch, 1, e)
        x = torch.cat([embedded, context], dim=-1)  # [e(y_{t'-1}); c_{t'}]: (batch, 1, e + h)
        out, hidden = self.rnn(x, hidden)  # s_{t'}: (batch, 1, h)
        logits = self.dense(out.squeeze(1))  # W_o s_{t'} + b_o: (batch, vocab)
        return logits, hidden, self.attention.attention_weights


class ContextDecoder(nn.Module):
    """The same decoder without attention: one fixed context, the encoder's final states
    (d2l's ``Seq2SeqDecoder``), joins every previous output character."""

    @declare(
        vocab_size=VOCAB, embed_size=SIZE, num_hiddens=SIZE, num_layers=LAYERS, dropout=DROPOUT
    )
    def __init__(
        self,
        vocab_size: int,
        embed_size: int,
        num_hiddens: int,
        num_layers: int = 1,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        embed_size, num_hiddens, num_layers = _sizes(
            "ContextDecoder", embed_size, num_hiddens, num_layers
        )
        check_dropout(dropout, "ContextDecoder")  # unused without attention, but a bad value is
        self.embedding = nn.Embedding(vocab_size, embed_size)  # still a mistake
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, batch_first=True)
        self.dense = nn.Linear(num_hiddens, vocab_size)
        self.context: Tensor | None = None

    def step(self, token: Tensor, hidden: Tensor, states: Tensor, src_lens: Tensor):
        x = torch.cat([self.embedding(token).unsqueeze(1), self.context], dim=-1)  # (b, 1, e+h)
        out, hidden = self.rnn(x, hidden)
        return self.dense(out.squeeze(1)), hidden, None


class UniformAttention(nn.Module):
    r"""Query-blind attention: the same weight, :math:`1/L`, on each of the :math:`L` valid
    keys, whatever the query. The context is the mean of the valid values.

    The baseline that separates *selecting* inputs from merely *having access* to all of
    them: a decoder with it sees every encoder state but cannot choose among them.
    ``forward(queries, keys, values, valid_lens)`` like attnlib's modules; queries
    ``(batch, n_queries, d)`` only set the number of rows; ``.attention_weights`` is
    ``(batch, n_queries, n_keys)``.
    """

    def forward(
        self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None = None
    ) -> Tensor:
        scores = keys.new_zeros(queries.shape[0], queries.shape[1], keys.shape[1])  # (b, q, k)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return self.attention_weights @ values  # (batch, n_queries, d_v)


class EncoderDecoder(nn.Module):
    """Encoder + decoder over any two character vocabularies.

    ``attention=True``: additive attention (d2l's Bahdanau decoder); ``False``: the
    fixed-context baseline; ``"uniform"``: :class:`UniformAttention` (query-blind); a
    callable ``f(num_hiddens) -> module``: that attention module instead (it must take
    ``(queries, keys, values, valid_lens)`` and keep ``.attention_weights``, like attnlib's
    modules).
    """

    @declare(
        src_vocab_size=VOCAB,
        tgt_vocab_size=VOCAB,
        attention=Anything("True, False, 'uniform' or a callable: checked in the body"),
        embed_size=SIZE,
        num_hiddens=SIZE,
        num_layers=LAYERS,
        dropout=DROPOUT,
        n_out=Int(ge=1, le=4096, optional=True),
    )
    def __init__(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        *,
        attention=True,
        embed_size: int = 16,
        num_hiddens: int = 32,
        num_layers: int = 1,
        dropout: float = 0.0,
        n_out: int | None = None,
    ) -> None:
        super().__init__()
        fn = type(self).__name__
        embed_size, num_hiddens, num_layers = _sizes(
            fn, embed_size, num_hiddens, num_layers, even=True
        )
        dropout = check_dropout(dropout, fn)
        uniform = isinstance(attention, str) and attention == "uniform"
        if not (attention is True or attention is False or uniform or callable(attention)):
            raise TypeError(
                f"{fn}: attention must be True, False, 'uniform' or a function num_hiddens -> "
                f"attention module; got {describe(attention)}"
            )
        self.uses_attention = attention is not False
        self.n_out = n_out
        self.encoder = Encoder(src_vocab_size, embed_size, num_hiddens, num_layers)
        if attention is False:
            self.decoder = ContextDecoder(
                tgt_vocab_size, embed_size, num_hiddens, num_layers, dropout
            )
        else:
            module = None
            if uniform:
                module = UniformAttention()
            elif attention is not True:
                module = attention(num_hiddens)
                if not isinstance(module, nn.Module):
                    raise TypeError(
                        f"{fn}: attention({num_hiddens}) must return an nn.Module (called as "
                        f"module(queries, keys, values, valid_lens)); got {describe(module)}"
                    )
            self.decoder = AttentionDecoder(
                tgt_vocab_size, embed_size, num_hiddens, num_layers, dropout, attention=module
            )

    def forward(
        self, src: Tensor, src_lens: Tensor, tgt: Tensor | None = None, *, n_out: int | None = None
    ):
        """Logits ``(batch, n_out, vocab)`` and weights ``(batch, n_out, n_in)`` (or None).

        With ``tgt`` (``(batch, n_out)``) the decoder reads the true previous character
        (teacher forcing); without, its own greedy prediction, for ``n_out`` steps (default:
        the model's fixed output length).
        """
        if tgt is None and n_out is None and self.n_out is None:
            raise ValueError("EncoderDecoder.forward: pass tgt or n_out (the steps to decode)")
        if n_out is not None:
            n_out = as_int(n_out, "n_out", "EncoderDecoder.forward", min=1)
        return self._run(src, src_lens, tgt, n_out)

    def _run(self, src: Tensor, src_lens: Tensor, tgt: Tensor | None, n_out: int | None = None):
        if tgt is not None:
            n_out = tgt.shape[1]
        n_out = n_out if n_out is not None else self.n_out
        states, hidden = self.encoder(src, src_lens)  # (batch, n_in, h), (layers, batch, h)
        if not self.uses_attention:
            # one fixed summary: the encoder's final states, both directions joined
            self.decoder.context = hidden[-1].unsqueeze(1)  # (batch, h) -> (batch, 1, h)
        token = torch.full((src.shape[0],), BOS, dtype=torch.long)
        logits, weights = [], []
        for t in range(n_out):  # decoder step t' = t + 1 of the equations
            out, hidden, w = self.decoder.step(token, hidden, states, src_lens)
            logits.append(out)
            weights.append(w)
            token = tgt[:, t] if tgt is not None else out.argmax(dim=-1)
        w = torch.cat(weights, dim=1) if self.uses_attention else None  # (batch, n_out, n_in)
        return torch.stack(logits, dim=1), w  # (batch, n_out, vocab)

    def _check_batch(self, src, src_lens, tgt, fn: str, need_tgt: bool = False):
        """``(src, src_lens, tgt)`` checked against the model's vocabularies, or None when
        the model has no fixed ones (then :func:`train` checks only that the batch's rows
        agree). :class:`scoringbook.ch07_dates.DateModel` checks its date batches."""
        return None


def _sizes(fn: str, embed_size, num_hiddens, num_layers, even: bool = False):
    """The model's sizes as positive ints (numpy ints and 0-d tensors too, not bools)."""
    embed_size = as_int(embed_size, "embed_size", fn, min=1)
    num_hiddens = as_int(num_hiddens, "num_hiddens", fn, min=1)
    num_layers = as_int(num_layers, "num_layers", fn, min=1)
    if even and num_hiddens % 2:
        raise ValueError(
            f"{fn}: num_hiddens must be even (h / 2 per direction of the encoder); got "
            f"{num_hiddens}"
        )
    return embed_size, num_hiddens, num_layers


def _encode(texts: list[str], index: dict[str, int], fn: str) -> tuple[Tensor, Tensor]:
    """Ids ``(batch, n_in)`` padded with ``PAD`` and lengths ``(batch,)``."""
    if not texts or any(not isinstance(t, str) or not t for t in texts):
        raise ValueError(f"{fn}: texts must be a non-empty list of non-empty strings")
    unknown = sorted({c for t in texts for c in t} - index.keys())
    if unknown:
        raise ValueError(f"{fn}: characters {unknown} are not in the vocabulary")
    n_in = max(len(t) for t in texts)
    ids = torch.full((len(texts), n_in), PAD, dtype=torch.long)
    for b, t in enumerate(texts):
        ids[b, : len(t)] = torch.tensor([index[c] for c in t])
    return ids, torch.tensor([len(t) for t in texts])


# ----------------------------------------------------------------------------- training
@dataclass
class TrainLog:
    """What :func:`train` records: the loss per step, the seconds it took, and
    checkpoints ``(step, weights (n_watch, N_OUT, n_in))`` of the watched examples."""

    losses: list[float] = field(default_factory=list)
    seconds: float = 0.0
    checkpoints: list[tuple[int, Tensor]] = field(default_factory=list)


# a log holds measurements: a NaN loss or an infinite duration is refused, never recorded
TrainLog.__init__ = declare(
    losses=Seq(Real()),
    seconds=Real(ge=0),
    checkpoints=Seq(Tup(Int(ge=0), FloatTensor(finite=True))),
)(TrainLog.__init__)


@declare(
    model=Anything("an EncoderDecoder: checked in the body, with its batches"),
    src=Anything("checked against the model's vocabularies in the body"),
    src_lens=Anything("checked with src in the body"),
    tgt=Anything("checked with src in the body"),
    steps=Int(ge=0),
    batch_size=Int(ge=1, le=2**16),
    lr=Real(gt=0, le=10),
    generator=Anything("a torch.Generator: checked in the body"),
    optimizer=Anything("a torch.optim.Optimizer or None: checked in the body"),
    watch=Anything("(src, src_lens) or None: checked in the body"),
    every=Int(ge=1),
)
def train(
    model: EncoderDecoder,
    src: Tensor,
    src_lens: Tensor,
    tgt: Tensor,
    *,
    steps: int,
    batch_size: int = 64,
    lr: float = 0.01,
    generator: torch.Generator,
    optimizer: torch.optim.Optimizer | None = None,
    watch: tuple[Tensor, Tensor] | None = None,
    every: int = 25,
) -> TrainLog:
    """Adam with teacher forcing and cross-entropy over the output characters.

    Minibatches (``batch_size`` examples, drawn with replacement, each cut to its longest
    input) are drawn with ``generator``; padding in ``tgt`` (``PAD``) does not count in the
    loss, and the gradient's norm is clipped to 1. ``optimizer`` continues a run (the same
    Adam state) instead of starting a new one. With ``watch = (src, src_lens)`` the
    attention weights of those examples (greedy decoding) are recorded every ``every``
    steps and after the last, for playback. Runs single-threaded
    (``torch.set_num_threads(1)``, restored afterwards), so a run repeats exactly on the
    same machine (on another processor the last digits can differ). Draws that cannot take
    ``generator`` (dropout masks, a lazy layer sized by the first step) come from a forked
    global generator seeded from ``generator``'s state: the run depends on ``generator``
    only, and the reader's global
    generator is left as it was.

    ``steps`` >= 0 (0 records only the starting checkpoint), ``batch_size`` >= 1, ``lr`` a
    finite number > 0, ``every`` >= 1. A loss that stops being finite (the training diverged)
    raises ``ValueError`` naming the step, rather than logging NaN.
    """
    fn = "train"
    if not isinstance(model, EncoderDecoder):
        raise TypeError(
            f"{fn}: model must be an EncoderDecoder (e.g. a DateModel); got {describe(model)}"
        )
    checked = model._check_batch(src, src_lens, tgt, fn, need_tgt=True)
    if checked is not None:
        src, src_lens, tgt = checked
    elif not all(isinstance(t, Tensor) for t in (src, src_lens, tgt)) or not (
        src.shape[0] == src_lens.shape[0] == tgt.shape[0] >= 1
    ):
        raise ValueError(f"{fn}: src, src_lens and tgt must be tensors with one row per example")
    if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(
            f"{fn}: optimizer must be a torch.optim.Optimizer; got {describe(optimizer)}"
        )
    steps = as_int(steps, "steps", fn, min=0)
    batch_size = as_int(batch_size, "batch_size", fn, min=1)
    lr = as_real(lr, "lr", fn, min=0.0, min_open=True)
    check_generator(generator, "generator", fn)
    every = as_int(every, "every", fn, min=1)
    if watch is not None:
        if (
            isinstance(watch, (str, bytes))
            or not isinstance(watch, (tuple, list))
            or len(watch) != 2
        ):
            raise TypeError(
                f"{fn}: watch must be a pair (src, src_lens), e.g. encode_sources([text]); "
                f"got {describe(watch)}"
            )
        checked = model._check_batch(watch[0], watch[1], None, f"{fn}: watch")
        if checked is not None:
            watch = checked[:2]
    log = TrainLog()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    start = time.perf_counter()
    try:
        with isolated_global_rng(seed_from(generator)):
            opt = optimizer or torch.optim.Adam(model.parameters(), lr=lr)
            for step in range(1, steps + 1):
                if (
                    watch is not None
                    and model.uses_attention
                    and (step == 1 or (step - 1) % every == 0)
                ):
                    log.checkpoints.append((step - 1, _watch(model, *watch)))
                model.train()
                idx = torch.randint(0, src.shape[0], (batch_size,), generator=generator)
                lens = src_lens[idx]
                batch_src = src[idx, : int(lens.max())]  # (batch, longest input of the batch)
                logits, _ = model._run(batch_src, lens, tgt[idx])  # (batch, n_out, vocab)
                loss = nn.functional.cross_entropy(
                    logits.reshape(-1, logits.shape[-1]), tgt[idx].reshape(-1), ignore_index=PAD
                )
                if not torch.isfinite(loss):
                    raise ValueError(
                        f"{fn}: the loss is {loss.item()} at step {step}: the training "
                        f"diverged. Lower lr (got {lr:g}), or check the model's attention "
                        f"module for NaN or infinite outputs"
                    )
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                log.losses.append(loss.item())
            if watch is not None and model.uses_attention:
                log.checkpoints.append((steps, _watch(model, *watch)))
    finally:
        torch.set_num_threads(threads)
    log.seconds = time.perf_counter() - start
    return log


def _watch(model: EncoderDecoder, src: Tensor, src_lens: Tensor) -> Tensor:
    model.eval()
    with torch.no_grad():
        _, w = model._run(src, src_lens, None)
    return w.clone()  # (n_watch, N_OUT, n_in)


# ----------------------------------------------------------------------------- causal tests
class _ReplacedAt(nn.Module):
    """At the decoding steps in ``rows``, the wrapped module's weights (and the context) become
    uniform over the valid keys, or with a ``generator`` its own, shuffled over them."""

    def __init__(self, inner: nn.Module, rows: frozenset[int], generator=None) -> None:
        super().__init__()
        self.inner, self.rows, self.t, self.generator = inner, rows, 0, generator

    def forward(self, queries, keys, values, valid_lens=None):
        out = self.inner(queries, keys, values, valid_lens)
        self.attention_weights = w = self.inner.attention_weights  # (batch, 1, n_in)
        if self.t in self.rows:
            if self.generator is None:  # 1 / L on each valid key
                w = masked_softmax(torch.zeros_like(w), valid_lens)
            else:  # each example its own permutation of its valid keys
                w, n = w.clone(), w.shape[-1]
                for b, L in enumerate([n] * len(w) if valid_lens is None else valid_lens.tolist()):
                    w[b, :, :L] = w[b, :, torch.randperm(L, generator=self.generator)]
            self.attention_weights, out = w, w @ values  # (batch, 1, h)
        self.t += 1
        return out


def _replaced_rows(model, rows, fn: str, generator=None):  # uniform_rows, permuted_rows
    if not model.uses_attention:
        raise ValueError(f"{fn}: the model has no attention weights to replace")
    rows = frozenset(int(r) for r in rows)  # declared by the callers: ints >= 0
    inner = model.decoder.attention
    wrapper = _ReplacedAt(inner, rows, generator)
    # every forward pass decodes from step 0: restart the count once per decoding
    hook = model.encoder.register_forward_pre_hook(lambda m, a: setattr(wrapper, "t", 0))
    model.decoder.attention = wrapper
    try:
        yield model
    finally:
        hook.remove()
        model.decoder.attention = inner


@declare(model=Instance(EncoderDecoder, what="an EncoderDecoder"), rows=Seq(Int(ge=0)))
@contextlib.contextmanager
def uniform_rows(model: EncoderDecoder, rows: Iterable[int]) -> Iterator[EncoderDecoder]:
    """Inside the ``with`` block, the model's attention weights for the output positions
    ``rows`` (0-based) are uniform over the valid inputs; every other row is the model's own.

    The causal test of an alignment: if row ``t``'s output depends on what its weights
    select, making them uniform changes it.
    Example: ``with uniform_rows(model, [8]): accuracy(model, sources, dates)`` (day blind).
    """
    yield from _replaced_rows(model, rows, "uniform_rows")
