"""Chapter 10's model: a tiny attention-only Transformer, its data, training and head scores.

The model follows Elhage et al. (2021, "A mathematical framework for Transformer
circuits") and Olsson et al. (2022, "In-context learning and induction heads"): token
embedding plus sinusoidal positions (:class:`attnlib.PositionalEncoding`), then layers of
causal :class:`attnlib.MultiHeadAttention` added to a residual stream, then a linear read-out.
No MLP, no layer norm. It is trained on random token sequences whose random part of ``k``
tokens is repeated once (:func:`repeated_sequences`, ``k`` from 4 to 10): the random part
cannot be predicted, the repeat can only by copying from the earlier occurrence.

- :func:`train`: a seeded training run that records the loss, the held-out accuracy on the
  repeats, and every head's weights on watched sequences (repeats of 10, 7 and 5) at
  checkpoints.
- :func:`head_scores`: every head's previous-token and induction scores
  (:mod:`scoringbook.ch10_scores`; the induction score looks ``k - 1`` places back for a
  repeat of ``k``).
- :func:`ablation_table`, :func:`scores_by_length`, :func:`loss_by_position`: the chapter's
  evidence (accuracy with heads zeroed, scores per repeat length, the loss late against
  early in a sequence).

The explorers are in :mod:`scoringbook.ch10_multihead`, the exercises' checkers in
:mod:`scoringbook.ch10_exercises`.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor, nn

from attnlib import domains as D
from attnlib.domains import as_int, as_real, as_seed, describe, isolated_global_rng
from attnlib.transformer import MultiHeadAttention, PositionalEncoding, causal_valid_lens
from scoringbook.ch10_scores import check_k, induction_score, offset_score, previous_token_score

__all__ = [
    "VOCAB",
    "HALF",
    "MIN_HALF",
    "TOKENS",
    "WATCH_LENGTHS",
    "AttentionOnly",
    "repeated_sequences",
    "repeats_of_length",
    "token_text",
    "train",
    "TrainRun",
    "repeated_half_accuracy",
    "accuracy_by_place",
    "head_scores",
    "ablation_table",
    "scores_by_length",
    "loss_by_position",
    "chapter_run",
]

#: Vocabulary size, and the letters the tokens are written as.
VOCAB = 20
TOKENS = "ABCDEFGHJKLMNPQRSTUV"
#: Longest random part; a sequence is 2 * HALF tokens.
HALF = 10
#: Training sequences repeat a random part of MIN_HALF .. HALF tokens.
MIN_HALF = 4
#: Repeat lengths of the three watched sequences (the explorers' sequences).
WATCH_LENGTHS = (10, 7, 5)


def _repeat(tokens: Tensor, k: Tensor) -> Tensor:
    """Copy each row's first ``k_b`` tokens to places ``k_b .. 2 k_b - 1``."""
    i = torch.arange(tokens.shape[1])  # (n,)
    copy = (i >= k[:, None]) & (i < 2 * k[:, None])  # (batch, n): the repeat
    src = torch.where(copy, i - k[:, None], i)  # (batch, n): where each token comes from
    return torch.gather(tokens, 1, src)


#: the domains of chapter 9's functions: a model, its tokens (batch, n) (ids and n against the
#: model: checked by _check_tokens), the repeat's start, heads to ablate, a generator
MODEL = D.Instance(nn.Module, what="an AttentionOnly model")
IDS = D.Anything("(batch, n) token ids of the model's vocabulary: checked by _check_tokens")
K = D.Anything("the repeat's start: an int, (batch,) ints or None: checked by check_k")
ABLATE = D.Anything("(layer, head) pairs: checked by _check_ablate")
GEN = D.Generator()


@D.declare(n=D.Int(ge=1), generator=GEN, half=D.Int(ge=2), min_half=D.Int(ge=2, optional=True))
def repeated_sequences(
    n: int, generator: torch.Generator, half: int = HALF, min_half: int | None = None
) -> tuple[Tensor, Tensor]:
    """``n`` sequences of ``2 * half`` token ids and the length ``k`` of each one's random part.

    Sequence ``b`` is ``k_b`` uniform random tokens (``0 .. VOCAB - 1``), the same ``k_b``
    tokens again, then ``2 * (half - k_b)`` fresh random tokens. ``k_b`` is drawn uniformly
    from ``min_half .. half`` (default: always ``half``). A varying ``k`` is what makes the
    model copy by content: with one fixed ``k``, "look ``k - 1`` places back" would do.

    Returns:
        ``(tokens, k)``: ``(n, 2 * half)`` int64 and ``(n,)`` int64.
    """
    fn = "repeated_sequences"
    n = as_int(n, "n", fn, min=1)
    half = as_int(half, "half", fn, min=2)
    lo = half if min_half is None else as_int(min_half, "min_half", fn, min=2, max=half)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"{fn}: generator must be a torch.Generator; got {describe(generator)}")
    tokens = torch.randint(0, VOCAB, (n, 2 * half), generator=generator)  # (n, 2 half)
    k = torch.randint(lo, half + 1, (n,), generator=generator)  # (n,)
    return _repeat(tokens, k), k


@D.declare(n=D.Int(ge=1), k=D.Int(ge=2), generator=GEN, half=D.Int(ge=2))
def repeats_of_length(
    n: int, k: int, generator: torch.Generator, half: int = HALF
) -> tuple[Tensor, Tensor]:
    """``n`` sequences of ``2 * half`` tokens, each with a random part of exactly ``k`` tokens
    repeated once (then fresh random tokens): :func:`repeated_sequences` at one length.

    Returns:
        ``(tokens, k)``: ``(n, 2 * half)`` int64 and ``(n,)`` int64 (all equal to ``k``).
    """
    fn = "repeats_of_length"
    n = as_int(n, "n", fn, min=1)
    half = as_int(half, "half", fn, min=2)
    k = as_int(k, "k", fn, min=2, max=half)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"{fn}: generator must be a torch.Generator; got {describe(generator)}")
    tokens = torch.randint(0, VOCAB, (n, 2 * half), generator=generator)  # (n, 2 half)
    ks = torch.full((n,), k, dtype=torch.long)
    return _repeat(tokens, ks), ks


def copyable(k: Tensor, n: int) -> Tensor:
    """``(batch, n - 1)`` bool: prediction ``i`` (of token ``i + 1``) can be made by copying,
    i.e. ``k + 1 <= i + 1 <= 2k - 1`` (the first repeated token cannot: nothing announces
    it)."""
    t = torch.arange(1, n)  # (n - 1,): the predicted token's position
    return (t > k[:, None]) & (t < 2 * k[:, None])  # (batch, n - 1)


@D.declare(tokens=D.Seq(D.Int(ge=0, le=VOCAB - 1)))
def token_text(tokens: Tensor | Sequence[int]) -> list[str]:
    """The letters of a 1-D sequence of token ids (``TOKENS[i]``)."""
    if isinstance(tokens, (str, bytes)) or not isinstance(tokens, (Tensor, Sequence)):
        raise TypeError(
            f"token_text: tokens must be a 1-D tensor or sequence of ids; got {describe(tokens)}"
        )
    ids = [as_int(t, "tokens", "token_text", min=0, max=VOCAB - 1) for t in tokens]
    return [TOKENS[i] for i in ids]


class AttentionOnly(nn.Module):
    r"""A causal attention-only Transformer: ``x = E[t] + P``; ``x += MHA_l(x)`` per layer;
    logits ``= x W_U``.

    Args:
        num_hiddens: width of the residual stream (default 32).
        num_heads: heads per layer (default 2).
        num_layers: layers (default 2).
        max_len: longest sequence (default ``2 * HALF``).

    Forward args:
        tokens: ``(batch, n)`` integer token ids in ``0 .. VOCAB - 1``.

    Returns:
        logits ``(batch, n, VOCAB)``: position ``i`` predicts token ``i + 1``. After the
        call ``.weights`` is a list, one ``(batch, num_heads, n, n)`` tensor per layer.
    """

    @D.declare(
        num_hiddens=D.Int(ge=1), num_heads=D.Int(ge=1), num_layers=D.Int(ge=1), max_len=D.Int(ge=2)
    )
    def __init__(
        self,
        num_hiddens: int = 32,
        num_heads: int = 2,
        num_layers: int = 2,
        max_len: int = 2 * HALF,
    ) -> None:
        super().__init__()
        fn = "AttentionOnly"
        num_hiddens = as_int(num_hiddens, "num_hiddens", fn, min=1)
        num_heads = as_int(num_heads, "num_heads", fn, min=1)
        num_layers = as_int(num_layers, "num_layers", fn, min=1)
        max_len = as_int(max_len, "max_len", fn, min=2)
        if num_hiddens % num_heads:
            raise ValueError(
                f"{fn}: num_hiddens must be divisible by num_heads; got {num_hiddens}, {num_heads}"
            )
        self.embed = nn.Embedding(VOCAB, num_hiddens)
        self.pos = PositionalEncoding(num_hiddens, 0.0, max_len)
        self.layers = nn.ModuleList(
            MultiHeadAttention(num_hiddens, num_heads, 0.0) for _ in range(num_layers)
        )
        self.unembed = nn.Linear(num_hiddens, VOCAB)
        self.weights: list[Tensor] = []
        with torch.no_grad():  # size the lazy projections now (they draw from torch's RNG)
            self(torch.zeros(1, 2, dtype=torch.long))

    def forward(self, tokens: Tensor) -> Tensor:
        batch, n = tokens.shape
        x = self.pos(self.embed(tokens))  # (batch, n, d)
        lens = causal_valid_lens(batch, n)  # (batch, n): query i sees keys 0 .. i
        self.weights = []
        for mha in self.layers:
            x = x + mha(x, x, x, lens)  # (batch, n, d)
            self.weights.append(mha.attention_weights)  # (batch, H, n, n)
        return self.unembed(x)  # (batch, n, VOCAB)

    @contextlib.contextmanager
    def ablated(self, heads: Iterable[tuple[int, int]]) -> Iterator[None]:
        """Within the block, the outputs of ``heads`` ((layer, head), from 0) are zeroed
        before ``W_o`` (the head's weights are still computed and recorded)."""
        hooks = []
        by_layer: dict[int, list[int]] = {}
        for layer, head in heads:
            by_layer.setdefault(layer, []).append(head)
        for layer, hs in by_layer.items():
            mha = self.layers[layer]

            def hook(module, args, output, hs=tuple(hs), H=mha.num_heads):
                out = output.reshape(-1, H, *output.shape[1:]).clone()  # (b, H, n, d/H)
                out[:, list(hs)] = 0.0
                return out.reshape(output.shape)  # (b * H, n, d/H)

            hooks.append(mha.attention.register_forward_hook(hook))
        try:
            yield
        finally:
            for h in hooks:
                h.remove()


def copy_loss(logits: Tensor, tokens: Tensor, k: Tensor) -> Tensor:
    """Cross-entropy of the predictions copying can make (:func:`copyable`)."""
    keep = copyable(k, tokens.shape[1])  # (batch, n - 1)
    return nn.functional.cross_entropy(logits[:, :-1][keep], tokens[:, 1:][keep])


def _check_tokens(tokens: object, model: AttentionOnly, fn: str) -> Tensor:
    """Tokens ``(batch, n)``: an integer tensor of ids in ``0 .. VOCAB - 1``, batch >= 1 and
    ``4 <= n <= `` the model's ``max_len`` (else a named TypeError/ValueError)."""
    if (
        not isinstance(tokens, Tensor)
        or tokens.is_floating_point()
        or tokens.is_complex()
        or tokens.dtype == torch.bool
    ):
        raise TypeError(
            f"{fn}: tokens must be an integer tensor (batch, n) of ids; got {describe(tokens)}"
        )
    max_len = model.pos.P.shape[1] if hasattr(model.pos, "P") else None
    n_ok = tokens.dim() == 2 and tokens.shape[0] >= 1 and tokens.shape[1] >= 4
    if not n_ok or (max_len is not None and tokens.shape[1] > max_len):
        raise ValueError(
            f"{fn}: tokens must have shape (batch, n) with batch >= 1 and 4 <= n <= max_len "
            f"({max_len}); got {tuple(tokens.shape)}"
        )
    if bool(((tokens < 0) | (tokens >= VOCAB)).any()):
        raise ValueError(f"{fn}: tokens must be ids in 0 .. {VOCAB - 1}; got one outside")
    return tokens


def _check_ablate(ablate: object, fn: str) -> list[tuple[int, int]]:
    try:
        return [(int(layer), int(head)) for layer, head in ablate]  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise TypeError(
            f"{fn}: ablate must be (layer, head) pairs of ints; got {describe(ablate)}"
        ) from None


def _right(model: AttentionOnly, tokens: Tensor, ablate: list[tuple[int, int]]) -> Tensor:
    """``(batch, n - 1)`` bool: prediction ``i`` (argmax) equals token ``i + 1``."""
    with torch.no_grad(), model.ablated(ablate):
        logits = model(tokens)  # (batch, n, VOCAB)
    return logits[:, :-1].argmax(-1) == tokens[:, 1:]


@D.declare(model=MODEL, tokens=IDS, ablate=ABLATE, k=K)
def repeated_half_accuracy(
    model: AttentionOnly,
    tokens: Tensor,
    ablate: Iterable[tuple[int, int]] = (),
    k: Tensor | int | None = None,
) -> float:
    """Share of the tokens copying can predict (:func:`copyable`: the repeat's tokens after its
    first) that the model predicts right (argmax), with the heads in ``ablate``
    ((layer, head) from 0) zeroed. ``tokens`` ``(batch, n)``; ``k`` the repeat length of each
    sequence (``(batch,)``, an int, or ``None`` for full repeats, ``k = n // 2``)."""
    fn = "repeated_half_accuracy"
    tokens = _check_tokens(tokens, model, fn)
    ablate = _check_ablate(ablate, fn)
    k = check_k(k, tokens.shape[0], tokens.shape[1], fn)
    right = _right(model, tokens, ablate)  # (batch, n - 1)
    return float(right[copyable(k, tokens.shape[1])].float().mean())


@D.declare(model=MODEL, tokens=IDS, k=K, ablate=ABLATE, start=D.Int(ge=0, le=1))
def accuracy_by_place(
    model: AttentionOnly,
    tokens: Tensor,
    k: Tensor | int | None = None,
    ablate: Iterable[tuple[int, int]] = (),
    start: int = 1,
) -> np.ndarray:
    """Accuracy at each place of the repeat: entry ``j - start`` (``j = start .. max k - 1``)
    is the share of sequences whose repeat has a token ``j`` (counted from 0 within the
    repeat) that the model predicts it right. Place 0 (``start=0``), the repeat's first
    token, cannot be copied: nothing before it announces the repeat. ``(max k - start,)``
    float64."""
    fn = "accuracy_by_place"
    tokens = _check_tokens(tokens, model, fn)
    ablate = _check_ablate(ablate, fn)
    k = check_k(k, tokens.shape[0], tokens.shape[1], fn)
    start = as_int(start, "start", fn, min=0, max=1)
    right = _right(model, tokens, ablate).double()  # (batch, n - 1)
    out = []
    for j in range(start, int(k.max())):
        has = k > j  # (batch,): the repeat has a token j
        query = (k + j - 1)[has]  # prediction of token k + j is made at query k + j - 1
        out.append(float(right[has, query].mean()))
    return np.array(out)


@D.declare(model=MODEL, tokens=IDS, k=K)
def head_scores(
    model: AttentionOnly, tokens: Tensor, k: Tensor | int | None = None
) -> dict[str, np.ndarray]:
    """Both scores of every head on ``tokens`` (repeat lengths ``k``, see
    :func:`induction_score`): ``{"previous": (L, H), "induction": (L, H)}``."""
    fn = "head_scores"
    tokens = _check_tokens(tokens, model, fn)
    k = check_k(k, tokens.shape[0], tokens.shape[1], fn)
    with torch.no_grad():
        model(tokens)
    prev = torch.stack([previous_token_score(w) for w in model.weights])  # (L, H)
    ind = torch.stack([induction_score(w, k) for w in model.weights])  # (L, H)
    return {
        "previous": prev.numpy().astype(np.float64),
        "induction": ind.numpy().astype(np.float64),
    }


@D.declare(model=MODEL, tokens=IDS, k=K)
def ablation_table(
    model: AttentionOnly, tokens: Tensor, k: Tensor | int | None = None
) -> dict[str, float]:
    """Accuracy on the repeats (:func:`repeated_half_accuracy`, repeat lengths ``k``):
    ``"none"`` (all heads) and ``"L{l}H{h}"`` (that head's output zeroed; layers and heads
    numbered from 1)."""
    fn = "ablation_table"
    tokens = _check_tokens(tokens, model, fn)
    k = check_k(k, tokens.shape[0], tokens.shape[1], fn)
    out = {"none": repeated_half_accuracy(model, tokens, k=k)}
    for layer, mha in enumerate(model.layers):
        for head in range(mha.num_heads):
            out[f"L{layer + 1}H{head + 1}"] = repeated_half_accuracy(
                model, tokens, [(layer, head)], k
            )
    return out


@D.declare(
    model=MODEL, lengths=D.Seq(D.Int(ge=2, le=HALF), min_len=1), n=D.Int(ge=1), seed=D.Seed()
)
def scores_by_length(
    model: AttentionOnly, lengths: Sequence[int] = (5, 7, 10), n: int = 256, seed: int = 1
) -> dict[int, dict[str, np.ndarray | float]]:
    """The heads on repeats of each length in ``lengths``: for each ``k``, on ``n`` fresh
    sequences (:func:`repeats_of_length`, seeded by ``seed`` and ``k``), ``"induction"``
    (L, H) (weight ``k - 1`` back), ``"nine_back"`` (L, H) (weight ``HALF - 1`` back, the
    induction place only when ``k = HALF``), ``"previous"`` (L, H) and ``"accuracy"``."""
    fn = "scores_by_length"
    n = as_int(n, "n", fn, min=1)
    seed = as_seed(seed, "seed", fn)
    if isinstance(lengths, (str, bytes)) or not isinstance(lengths, Sequence) or not lengths:
        raise TypeError(
            f"{fn}: lengths must be a non-empty sequence of ints; got {describe(lengths)}"
        )
    out: dict[int, dict[str, np.ndarray | float]] = {}
    for k in lengths:
        k = as_int(k, "lengths", fn, min=2, max=HALF)
        tokens, ks = repeats_of_length(n, k, torch.Generator().manual_seed(seed * 100 + k))
        s = head_scores(model, tokens, ks)
        with torch.no_grad():
            model(tokens)
        nine = torch.stack([offset_score(w, HALF - 1, ks) for w in model.weights])
        out[k] = {
            "induction": s["induction"],
            "nine_back": nine.numpy().astype(np.float64),
            "previous": s["previous"],
            "accuracy": repeated_half_accuracy(model, tokens, k=ks),
        }
    return out


@D.declare(model=MODEL, tokens=IDS)
def loss_by_position(model: AttentionOnly, tokens: Tensor) -> np.ndarray:
    """Mean cross-entropy of the prediction of each token ``1 .. n - 1`` over the sequences
    (Olsson et al.'s in-context learning measure compares late tokens with early ones).
    ``tokens`` ``(batch, n)`` -> ``(n - 1,)`` float64."""
    tokens = _check_tokens(tokens, model, "loss_by_position")
    with torch.no_grad():
        logits = model(tokens)  # (batch, n, VOCAB)
    loss = nn.functional.cross_entropy(
        logits[:, :-1].transpose(1, 2), tokens[:, 1:], reduction="none"
    )  # (batch, n - 1)
    return loss.mean(0).numpy().astype(np.float64)


@D.declare(
    model=D.Instance(AttentionOnly, what="an AttentionOnly model"),
    **dict.fromkeys(
        ("losses", "steps", "accuracy", "weights", "previous", "induction"),
        D.Anything("a training record: filled in by train"),
    ),
    **dict.fromkeys(("held_out", "held_k", "watch", "watch_k"), D.Anything("set by train")),
)
@dataclass
class TrainRun:
    """What :func:`train` records."""

    model: AttentionOnly
    losses: list[float] = field(default_factory=list)  # repeated-part loss, per step
    steps: list[int] = field(default_factory=list)  # checkpoint steps
    accuracy: list[float] = field(default_factory=list)  # held-out, per checkpoint
    weights: list[list[np.ndarray]] = field(default_factory=list)  # per checkpoint, per layer
    previous: list[np.ndarray] = field(default_factory=list)  # (L, H) per checkpoint
    induction: list[np.ndarray] = field(default_factory=list)  # (L, H) per checkpoint
    held_out: Tensor | None = None  # (n_held_out, 2 HALF), repeats of MIN_HALF .. HALF
    held_k: Tensor | None = None  # (n_held_out,): each held-out sequence's repeat length
    watch: Tensor | None = None  # (len(WATCH_LENGTHS), 2 HALF)
    watch_k: Tensor | None = None  # (len(WATCH_LENGTHS),)


@D.declare(
    seed=D.Seed(),
    steps=D.Int(ge=1),
    batch_size=D.Int(ge=1),
    lr=D.Real(gt=0),
    every=D.Int(ge=1),
    n_held_out=D.Int(ge=1),
    watch=D.Seq(D.Int(ge=2, le=HALF), min_len=1),
)
def train(
    seed: int = 0,
    steps: int = 400,
    batch_size: int = 64,
    lr: float = 1e-2,
    every: int = 20,
    n_held_out: int = 256,
    watch: Sequence[int] = WATCH_LENGTHS,
) -> TrainRun:
    """Train :class:`AttentionOnly` with Adam on fresh :func:`repeated_sequences` each step.

    The loss is the cross-entropy of every next-token prediction; the run records the loss
    on the repeat (the part copying can predict) each step and, every ``every`` steps, the
    held-out accuracy and head scores (``n_held_out`` sequences with repeats of
    ``MIN_HALF .. HALF`` tokens, the induction score ``k - 1`` back per sequence) and the
    heads' weights on one watched sequence per repeat length in ``watch``. Seeded by
    ``seed`` (data and initial weights) on its own generators: the reader's global
    generators are left as they were.
    """
    fn = "train"
    seed = as_seed(seed, "seed", fn)
    steps = as_int(steps, "steps", fn, min=1)
    batch_size = as_int(batch_size, "batch_size", fn, min=1)
    lr = as_real(lr, "lr", fn, min=0.0, min_open=True)
    every = as_int(every, "every", fn, min=1)
    n_held_out = as_int(n_held_out, "n_held_out", fn, min=1)
    if isinstance(watch, (str, bytes)) or not isinstance(watch, Sequence) or not watch:
        raise TypeError(
            f"{fn}: watch must be a non-empty sequence of repeat lengths; got {describe(watch)}"
        )
    watch = [as_int(k, "watch", fn, min=2, max=HALF) for k in watch]
    gen = torch.Generator().manual_seed(seed)
    held_out, held_k = repeated_sequences(n_held_out, gen, min_half=MIN_HALF)
    look = torch.Generator().manual_seed(10_000 + seed)  # the watched sequences' own stream
    watched = [repeats_of_length(1, k, look) for k in watch]
    with isolated_global_rng(seed=seed):
        model = AttentionOnly()
    run = TrainRun(
        model=model,
        held_out=held_out,
        held_k=held_k,
        watch=torch.cat([t for t, _ in watched]),
        watch_k=torch.cat([k for _, k in watched]),
    )
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def checkpoint(step: int) -> None:
        run.steps.append(step)
        run.accuracy.append(repeated_half_accuracy(model, held_out, k=held_k))
        s = head_scores(model, held_out, held_k)
        run.previous.append(s["previous"])
        run.induction.append(s["induction"])
        with torch.no_grad():
            model(run.watch)
        run.weights.append([w.numpy().astype(np.float64) for w in model.weights])

    checkpoint(0)
    for step in range(1, steps + 1):
        tokens, k = repeated_sequences(batch_size, gen, min_half=MIN_HALF)  # (batch, 2 HALF)
        logits = model(tokens)  # (batch, 2 HALF, VOCAB)
        loss = nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, VOCAB), tokens[:, 1:].reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.losses.append(float(copy_loss(logits.detach(), tokens, k)))
        if step % every == 0 or step == steps:
            checkpoint(step)
    return run


#: The chapter's run: seed, steps, checkpoints every ``EVERY`` steps.
SEED, STEPS, EVERY = 0, 400, 20


@functools.lru_cache(maxsize=1)
def chapter_run() -> TrainRun:
    """The chapter's training run, recomputed (seed 0, 400 steps, checkpoints every 20, on
    one thread: about 10 s; cached). The browser and saved-state tests compare the page's
    explorers with explorers built from this run."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return train(seed=SEED, steps=STEPS, every=EVERY)
    finally:
        torch.set_num_threads(threads)
