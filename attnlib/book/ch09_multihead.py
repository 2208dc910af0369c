"""Chapter 9, multi-head attention: a tiny attention-only Transformer, its heads and explorers.

The model follows Elhage et al. (2021, "A mathematical framework for Transformer
circuits") and Olsson et al. (2022, "In-context learning and induction heads"): token
embedding plus sinusoidal positions (:class:`attnlib.PositionalEncoding`), then layers of
causal :class:`attnlib.MultiHeadAttention` added to a residual stream, then a linear read-out.
No MLP, no layer norm. It is trained on random token sequences whose second half repeats
the first (:func:`repeated_sequences`): the first half cannot be predicted, the second can
only by copying from the first.

- :func:`train`: a seeded training run that records the loss, the held-out accuracy on the
  repeated half, and every head's weights on watched sequences at checkpoints.
- :func:`previous_token_score`, :func:`induction_score`: what the chapter calls a
  previous-token head and an induction head, as numbers in [0, 1].
- :func:`ablation_table`: the accuracy on the repeated half with each head's output zeroed.
- Explorers: :func:`heads_explorer` (pick a layer and head and a sequence),
  :func:`heads_playback_explorer` (the heads over training), :func:`ablation_explorer`
  (knock heads out).
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from attnlib._rng import isolated_global_rng
from attnlib._validate import as_int, as_real, as_seed, describe
from attnlib.transformer import MultiHeadAttention, PositionalEncoding, causal_valid_lens
from attnlib.widgets import (
    Caption,
    Choice,
    Declaration,
    Explorer,
    FixedSeries,
    Heatmap,
    Lines,
    Series,
    Slider,
)

__all__ = [
    "VOCAB",
    "HALF",
    "TOKENS",
    "AttentionOnly",
    "repeated_sequences",
    "token_text",
    "train",
    "TrainRun",
    "repeated_half_accuracy",
    "previous_token_score",
    "induction_score",
    "head_scores",
    "ablation_table",
    "heads_declaration",
    "heads_explorer",
    "heads_playback_declaration",
    "heads_playback_explorer",
    "ablation_declaration",
    "ablation_explorer",
    "chapter_run",
]

#: Vocabulary size, and the letters the tokens are written as.
VOCAB = 20
TOKENS = "ABCDEFGHJKLMNPQRSTUV"
#: Length of the random half; a sequence is 2 * HALF tokens.
HALF = 10
#: Training sequences repeat a random part of MIN_HALF .. HALF tokens.
MIN_HALF = 4


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
    i = torch.arange(2 * half)  # (2 half,)
    copy = (i >= k[:, None]) & (i < 2 * k[:, None])  # (n, 2 half): the repeat
    src = torch.where(copy, i - k[:, None], i)  # (n, 2 half): where each token comes from
    return torch.gather(tokens, 1, src), k


def copyable(k: Tensor, n: int) -> Tensor:
    """``(batch, n - 1)`` bool: prediction ``i`` (of token ``i + 1``) can be made by copying,
    i.e. ``k + 1 <= i + 1 <= 2k - 1`` (the first repeated token cannot: nothing announces
    it)."""
    t = torch.arange(1, n)  # (n - 1,): the predicted token's position
    return (t > k[:, None]) & (t < 2 * k[:, None])  # (batch, n - 1)


def token_text(tokens: Tensor | Sequence[int]) -> list[str]:
    """The letters of a 1-D sequence of token ids (``TOKENS[i]``)."""
    return [TOKENS[int(t)] for t in tokens]


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

    def __init__(
        self, num_hiddens: int = 32, num_heads: int = 2, num_layers: int = 2, max_len: int = 2 * HALF
    ) -> None:
        super().__init__()
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


def repeated_half_accuracy(
    model: AttentionOnly, tokens: Tensor, ablate: Iterable[tuple[int, int]] = ()
) -> float:
    """Share of the tokens copying can predict (tokens ``HALF + 1 ..`` of a full repeat,
    ``tokens`` ``(batch, 2 HALF)``) that the model predicts right (argmax), with the heads
    in ``ablate`` ((layer, head) from 0) zeroed."""
    half = tokens.shape[1] // 2
    with torch.no_grad(), model.ablated(ablate):
        logits = model(tokens)  # (batch, n, VOCAB)
    right = logits[:, half:-1].argmax(-1) == tokens[:, half + 1 :]  # (batch, half - 1)
    return float(right.float().mean())


def previous_token_score(weights: Tensor) -> Tensor:
    """Mean weight a head puts on the previous position (the diagonal at offset -1), over
    queries ``1 .. n - 1`` and the batch. ``weights``: ``(batch, H, n, n)`` -> ``(H,)``."""
    diag = torch.diagonal(weights, offset=-1, dim1=-2, dim2=-1)  # (batch, H, n - 1)
    return diag.mean(dim=(0, 2))


def induction_score(weights: Tensor) -> Tensor:
    """Mean weight a head puts, from a query in the repeated half, on the token *after* the
    earlier occurrence of the query's token: query ``i >= HALF`` on key ``i - HALF + 1``.
    ``weights``: ``(batch, H, n, n)`` -> ``(H,)``."""
    half = weights.shape[-1] // 2
    diag = torch.diagonal(weights, offset=-(half - 1), dim1=-2, dim2=-1)  # (b, H, half + 1)
    return diag[..., 1:].mean(dim=(0, 2))  # queries half .. n - 1


def head_scores(model: AttentionOnly, tokens: Tensor) -> dict[str, np.ndarray]:
    """Both scores of every head on ``tokens``: ``{"previous": (L, H), "induction": (L, H)}``."""
    with torch.no_grad():
        model(tokens)
    prev = torch.stack([previous_token_score(w) for w in model.weights])  # (L, H)
    ind = torch.stack([induction_score(w) for w in model.weights])  # (L, H)
    return {"previous": prev.numpy().astype(np.float64), "induction": ind.numpy().astype(np.float64)}


def ablation_table(model: AttentionOnly, tokens: Tensor) -> dict[str, float]:
    """Accuracy on the repeated half: ``"none"`` (all heads) and ``"L{l}H{h}"`` (that head's
    output zeroed; layers and heads numbered from 1)."""
    out = {"none": repeated_half_accuracy(model, tokens)}
    for layer, mha in enumerate(model.layers):
        for head in range(mha.num_heads):
            out[f"L{layer + 1}H{head + 1}"] = repeated_half_accuracy(
                model, tokens, [(layer, head)]
            )
    return out


@dataclass
class TrainRun:
    """What :func:`train` records."""

    model: AttentionOnly
    losses: list[float] = field(default_factory=list)  # repeated-half loss, per step
    steps: list[int] = field(default_factory=list)  # checkpoint steps
    accuracy: list[float] = field(default_factory=list)  # held-out, per checkpoint
    weights: list[list[np.ndarray]] = field(default_factory=list)  # per checkpoint, per layer
    previous: list[np.ndarray] = field(default_factory=list)  # (L, H) per checkpoint
    induction: list[np.ndarray] = field(default_factory=list)  # (L, H) per checkpoint
    held_out: Tensor | None = None
    watch: Tensor | None = None


def train(
    seed: int = 0,
    steps: int = 600,
    batch_size: int = 64,
    lr: float = 3e-3,
    every: int = 25,
    n_held_out: int = 256,
    watch: int = 3,
) -> TrainRun:
    """Train :class:`AttentionOnly` with Adam on fresh :func:`repeated_sequences` each step.

    The loss is the cross-entropy of every next-token prediction; the run records the loss
    on the repeated half (the part copying can predict) each step and, every ``every``
    steps, the held-out accuracy, the head scores and the heads' weights on ``watch``
    held-out sequences. Seeded by ``seed`` (data and initial weights) on its own
    generators: the reader's global generators are left as they were.
    """
    fn = "train"
    seed = as_seed(seed, "seed", fn)
    steps = as_int(steps, "steps", fn, min=1)
    batch_size = as_int(batch_size, "batch_size", fn, min=1)
    lr = as_real(lr, "lr", fn, min=0.0, min_open=True)
    every = as_int(every, "every", fn, min=1)
    gen = torch.Generator().manual_seed(seed)
    held_out, _ = repeated_sequences(as_int(n_held_out, "n_held_out", fn, min=1), gen)
    with isolated_global_rng(seed=seed):
        model = AttentionOnly()
    run = TrainRun(model=model, held_out=held_out, watch=held_out[: as_int(watch, "watch", fn)])
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def checkpoint(step: int) -> None:
        run.steps.append(step)
        run.accuracy.append(repeated_half_accuracy(model, held_out))
        s = head_scores(model, held_out)
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
