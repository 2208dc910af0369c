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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from attnlib.domains import as_int, as_real, as_seed, describe, isolated_global_rng
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


def repeated_half_accuracy(
    model: AttentionOnly, tokens: Tensor, ablate: Iterable[tuple[int, int]] = ()
) -> float:
    """Share of the tokens copying can predict (tokens ``HALF + 1 ..`` of a full repeat,
    ``tokens`` ``(batch, 2 HALF)``) that the model predicts right (argmax), with the heads
    in ``ablate`` ((layer, head) from 0) zeroed."""
    tokens = _check_tokens(tokens, model, "repeated_half_accuracy")
    try:
        ablate = [(int(layer), int(head)) for layer, head in ablate]
    except (TypeError, ValueError):
        raise TypeError(
            f"repeated_half_accuracy: ablate must be (layer, head) pairs of ints; got "
            f"{describe(ablate)}"
        ) from None
    half = tokens.shape[1] // 2
    with torch.no_grad(), model.ablated(ablate):
        logits = model(tokens)  # (batch, n, VOCAB)
    right = logits[:, half:-1].argmax(-1) == tokens[:, half + 1 :]  # (batch, half - 1)
    return float(right.float().mean())


def _check_weights4(weights: object, fn: str) -> Tensor:
    """Weights ``(batch, H, n, n)``: a floating tensor, square in its last two dimensions."""
    if not isinstance(weights, Tensor) or not weights.is_floating_point():
        raise TypeError(
            f"{fn}: weights must be a floating-point tensor (batch, H, n, n); got "
            f"{describe(weights)}"
        )
    if (
        weights.dim() != 4
        or weights.shape[-1] != weights.shape[-2]
        or weights.shape[-1] < 2
        or weights.numel() == 0
    ):
        raise ValueError(
            f"{fn}: weights must have shape (batch, H, n, n) with n >= 2, batch, H >= 1; got "
            f"{tuple(weights.shape)}"
        )
    return weights


def previous_token_score(weights: Tensor) -> Tensor:
    """Mean weight a head puts on the previous position (the diagonal at offset -1), over
    queries ``1 .. n - 1`` and the batch. ``weights``: ``(batch, H, n, n)`` -> ``(H,)``."""
    weights = _check_weights4(weights, "previous_token_score")
    diag = torch.diagonal(weights, offset=-1, dim1=-2, dim2=-1)  # (batch, H, n - 1)
    return diag.mean(dim=(0, 2))


def induction_score(weights: Tensor) -> Tensor:
    """Mean weight a head puts, from a query in the repeated half, on the token *after* the
    earlier occurrence of the query's token: query ``i >= HALF`` on key ``i - HALF + 1``.
    ``weights``: ``(batch, H, n, n)`` -> ``(H,)``."""
    weights = _check_weights4(weights, "induction_score")
    half = weights.shape[-1] // 2
    diag = torch.diagonal(weights, offset=-(half - 1), dim1=-2, dim2=-1)  # (b, H, half + 1)
    return diag[..., 1:].mean(dim=(0, 2))  # queries half .. n - 1


def head_scores(model: AttentionOnly, tokens: Tensor) -> dict[str, np.ndarray]:
    """Both scores of every head on ``tokens``: ``{"previous": (L, H), "induction": (L, H)}``."""
    tokens = _check_tokens(tokens, model, "head_scores")
    with torch.no_grad():
        model(tokens)
    prev = torch.stack([previous_token_score(w) for w in model.weights])  # (L, H)
    ind = torch.stack([induction_score(w) for w in model.weights])  # (L, H)
    return {
        "previous": prev.numpy().astype(np.float64),
        "induction": ind.numpy().astype(np.float64),
    }


def ablation_table(model: AttentionOnly, tokens: Tensor) -> dict[str, float]:
    """Accuracy on the repeated half: ``"none"`` (all heads) and ``"L{l}H{h}"`` (that head's
    output zeroed; layers and heads numbered from 1)."""
    tokens = _check_tokens(tokens, model, "ablation_table")
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
    steps: int = 400,
    batch_size: int = 64,
    lr: float = 1e-2,
    every: int = 20,
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


# ----------------------------------------------------------------------------- explorers

_HEADS_COLOR = {"previous": "#0072B2", "induction": "#D55E00"}


def _head_names(run: TrainRun) -> tuple[list[str], list[str]]:
    """Options ``L1H1 ..`` and their labels ``layer 1, head 1 ..``, layers and heads from 1."""
    L, H = len(run.model.layers), run.model.layers[0].num_heads
    opts = [f"L{layer + 1}H{head + 1}" for layer in range(L) for head in range(H)]
    labels = [f"layer {layer + 1}, head {head + 1}" for layer in range(L) for head in range(H)]
    return opts, labels


def _parse_head(option: str) -> tuple[int, int]:
    layer, head = option[1:].split("H")
    return int(layer) - 1, int(head) - 1


def _check_run(run: object, fn: str) -> TrainRun:
    if not isinstance(run, TrainRun) or not run.steps or run.watch is None:
        raise TypeError(f"{fn}: run must be a TrainRun from train(); got {describe(run)}")
    return run


def heads_declaration(run: TrainRun) -> Declaration:
    """Pick a layer and a head, and a held-out sequence: that head's weights on it, at the
    end of ``run`` (queries are rows; each row sums to 1 over the tokens up to it)."""
    fn = "heads_declaration"
    run = _check_run(run, fn)
    opts, labels = _head_names(run)
    final = run.weights[-1]  # per layer (n_watch, H, n, n)
    n_watch = final[0].shape[0]
    texts = [token_text(run.watch[i]) for i in range(n_watch)]

    def update(head: str, sequence: str) -> dict[str, Any]:
        layer, h = _parse_head(head)
        i = int(sequence) - 1
        return {
            "weights": {
                "values": final[layer][i, h],
                "row_labels": texts[i],
                "col_labels": texts[i],
            }
        }

    return Declaration(
        name="heads",
        update=update,
        params=[
            Choice("head", opts, label="head", default=opts[-1], option_labels=labels),
            Choice(
                "sequence",
                [str(i + 1) for i in range(n_watch)],
                label="held-out sequence",
                option_labels=[" ".join(t[:HALF]) + " …" for t in texts],
            ),
        ],
        panels=[
            Heatmap(
                "weights",
                xlabel="earlier tokens (keys)",
                ylabel="token now (queries)",
                rows_sum_to_one=True,
                labels_per_frame=True,
                title="where this head looks",
            )
        ],
        title="Each head's weights on a sequence it has not seen",
    )


def heads_explorer(run: TrainRun) -> Explorer:
    """:func:`heads_declaration` as an explorer."""
    return Explorer(heads_declaration(run))


def heads_playback_declaration(run: TrainRun, smooth: int = 10) -> Declaration:
    """Play back ``run``: the chosen head's weights on the first watched sequence at each
    checkpoint, next to the loss on the repeated half (a moving mean of ``smooth`` steps)
    with a point at the checkpoint."""
    fn = "heads_playback_declaration"
    run = _check_run(run, fn)
    smooth = as_int(smooth, "smooth", fn, min=1)
    opts, labels = _head_names(run)
    text = token_text(run.watch[0])
    losses = np.asarray(run.losses, dtype=np.float64)
    total = np.concatenate([[0.0], np.cumsum(losses)])  # (steps + 1,)
    i = np.arange(len(losses))
    lo, hi = np.maximum(0, i - smooth // 2), np.minimum(len(losses), i + smooth // 2 + 1)
    curve = (total[hi] - total[lo]) / (hi - lo)  # (steps,)
    loss_x = np.arange(1, len(losses) + 1, dtype=np.float64)
    frames = dict(zip(run.steps, run.weights))

    def update(step: int, head: str) -> dict[str, Any]:
        layer, h = _parse_head(head)
        at = min(max(step, 1), len(losses))
        return {
            "weights": frames[step][layer][0, h],
            "loss": {"now": np.array([[float(at)], [float(curve[at - 1])]])},
        }

    return Declaration(
        name="heads_playback",
        update=update,
        params=[
            Slider(
                "step",
                list(run.steps),
                label="training step",
                default=run.steps[-1],
                value_labels=[str(s) for s in run.steps],
                play=True,
            ),
            Choice("head", opts, label="head", default=opts[0], option_labels=labels),
        ],
        panels=[
            Heatmap(
                "weights",
                xlabel="earlier tokens (keys)",
                ylabel="token now (queries)",
                row_labels=text,
                col_labels=text,
                rows_sum_to_one=True,
                title="this head's weights",
            ),
            Lines(
                "loss",
                series=[Series("now", style="points", xy=True, color="#000000")],
                fixed=[FixedSeries("loss on the repeated part", loss_x, curve, color="#0072B2")],
                xlabel="training step",
                ylabel="cross-entropy",
                title="loss",
            ),
        ],
        title="Play back training: the heads form",
    )


def heads_playback_explorer(run: TrainRun) -> Explorer:
    """:func:`heads_playback_declaration` as an explorer."""
    return Explorer(heads_playback_declaration(run))


def ablation_declaration(run: TrainRun) -> Declaration:
    """Knock heads out: one kept/zeroed choice per head; the accuracy per position of the
    repeated half on the held-out sequences, and the mean, for that set of heads."""
    fn = "ablation_declaration"
    run = _check_run(run, fn)
    opts, labels = _head_names(run)
    tokens = run.held_out
    half = tokens.shape[1] // 2
    x = np.arange(half + 1, 2 * half, dtype=np.float64)  # positions predicted (from 0)

    def accuracy_by_position(ablate: list[tuple[int, int]]) -> np.ndarray:
        with torch.no_grad(), run.model.ablated(ablate):
            logits = run.model(tokens)
        right = logits[:, half:-1].argmax(-1) == tokens[:, half + 1 :]  # (batch, half - 1)
        return right.double().mean(0).numpy()

    def update(**kept: str) -> dict[str, Any]:
        ablate = [_parse_head(o) for o in opts if kept[o] == "zeroed"]
        acc = accuracy_by_position(ablate)
        off = [lab for o, lab in zip(opts, labels) if kept[o] == "zeroed"]
        return {
            "accuracy": {"accuracy": acc},
            "summary": (
                f"heads zeroed: {', '.join(off) if off else 'none'}\n"
                f"accuracy on the repeated half: {acc.mean():.2f}"
            ),
        }

    return Declaration(
        name="ablation",
        update=update,
        params=[
            Choice(o, ["kept", "zeroed"], label=lab, option_labels=["kept", "zeroed"])
            for o, lab in zip(opts, labels)
        ],
        panels=[
            Lines(
                "accuracy",
                x=x,
                series=[Series("accuracy", style="bars", color="#0072B2")],
                xlabel="position in the sequence (repeated half)",
                ylabel="share predicted right",
                ylim=(0.0, 1.0),
                title="accuracy by position",
            ),
            Caption("summary"),
        ],
        title="Knock heads out",
    )


def ablation_explorer(run: TrainRun) -> Explorer:
    """:func:`ablation_declaration` as an explorer."""
    return Explorer(ablation_declaration(run))


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
