"""Chapter 6, Bahdanau attention at work: its explorer and its checkers.

The model, data and training loop are in :mod:`attnlib.book.ch06_model`.

- :func:`alignment_playback_explorer`: play back how the date model's alignment emerges in
  training. The frames are the attention weights that :func:`attnlib.book.ch06_model.train`
  recorded for one watched input at its checkpoints (computed by attnlib's
  ``AdditiveAttention`` during training); the slider walks through the training steps, and
  a marker on the loss curve shows where in training each frame was taken.
- :func:`check_alignment`: a predicted alignment against the one the task implies.
- :func:`check_attention_module`: a learner's attention module, trained in the date model.
- :func:`check_weights` (from chapter 1) is re-exported: the chapter uses it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from attnlib.book._checking import CheckResult, _fail
from attnlib.book.ch01_queries_keys_values import check_weights
from attnlib.book.ch06_model import (
    N_OUT,
    DateModel,
    TrainLog,
    accuracy,
    encode_sources,
    encode_targets,
    format_target,
    implied_alignment,
    random_dates,
    random_sources,
    train,
)
from attnlib.widgets import Declaration, Explorer, FixedSeries, Heatmap, Lines, Series, Slider

__all__ = [
    "alignment_playback_declaration",
    "alignment_playback_explorer",
    "chapter_playback_declaration",
    "check_alignment",
    "check_attention_module",
    "check_weights",
]


def alignment_playback_declaration(
    log: TrainLog, source: str, target: str, index: int = 0
) -> Declaration:
    """Declare the playback of ``log``'s checkpoints for watched example ``index``.

    ``source`` is that example's input text (its characters label the columns) and
    ``target`` the ISO date it should become (the rows).
    """
    if not log.checkpoints:
        raise ValueError(
            "alignment_playback_declaration: the training log has no checkpoints; "
            "train with watch=(src, src_lens)"
        )
    steps = [step for step, _ in log.checkpoints]
    frames = {
        step: w[index, :, : len(source)].numpy().astype(np.float64) for step, w in log.checkpoints
    }  # each (N_OUT, n_in)
    loss_x = np.arange(1, len(log.losses) + 1, dtype=np.float64)
    loss_y = np.asarray(log.losses, dtype=np.float64)
    smooth = np.convolve(loss_y, np.ones(10) / 10, mode="same")  # a readable curve

    def update(step: int) -> dict[str, Any]:
        at = min(max(step, 1), len(loss_y))
        return {
            "weights": frames[step],
            "loss": {"now": np.array([[float(at)], [float(smooth[at - 1])]])},
        }

    return Declaration(
        name="alignment_playback",
        update=update,
        params=[
            Slider(
                "step",
                steps,
                label="training step",
                default=steps[-1],
                value_labels=[str(s) for s in steps],
                play=True,
            )
        ],
        panels=[
            Heatmap(
                "weights",
                xlabel="input characters (keys)",
                ylabel="output characters (queries)",
                row_labels=list(target),
                col_labels=[c if c != " " else "␣" for c in source],
                title=f"attention while rewriting {source!r}",
                rows_sum_to_one=True,
            ),
            Lines(
                "loss",
                series=[Series("now", style="points", xy=True)],
                fixed=[FixedSeries("training loss (mean of 10 steps)", loss_x, smooth)],
                xlabel="training step",
                ylabel="cross-entropy",
                title="loss",
            ),
        ],
        title="Play back training: the alignment emerges",
    )


def alignment_playback_explorer(
    log: TrainLog, source: str, target: str, index: int = 0
) -> Explorer:
    """:func:`alignment_playback_declaration` as a live explorer."""
    return Explorer(alignment_playback_declaration(log, source, target, index))


def chapter_playback_declaration() -> Declaration:
    """The playback explorer of chapter 6, recomputed from scratch (about 10 s).

    Mirrors the chapter's cells exactly (data seeds, model seed, the lazy layers sized by a
    first call, 200 steps, checkpoints every 10): the browser tests compare the page with
    this, so a drift between the chapter and the library shows up as a failure.
    """
    return _chapter_playback()


@functools.lru_cache(maxsize=1)
def _chapter_playback() -> Declaration:
    import torch

    from attnlib.book import ch06_model as s2s

    data_gen = torch.Generator().manual_seed(0)
    train_dates = s2s.random_dates(5000, data_gen)
    train_sources = s2s.random_sources(train_dates, data_gen)
    torch.manual_seed(0)
    model = s2s.DateModel(attention=True, embed_size=16, num_hiddens=32)
    src, lens = s2s.encode_sources(train_sources)
    tgt = s2s.encode_targets([s2s.format_target(d) for d in train_dates])
    model(src[:2], lens[:2], tgt[:2])  # size the lazy layers (the chapter does it earlier)
    watch = "Thursday, 5 November 2026"
    log = s2s.train(
        model,
        src,
        lens,
        tgt,
        steps=200,
        batch_size=64,
        lr=0.01,
        generator=torch.Generator().manual_seed(1),
        watch=s2s.encode_sources([watch]),
        every=10,
    )
    return alignment_playback_declaration(log, watch, "2026-11-05")


# ----------------------------------------------------------------------------- checkers


def check_alignment(answer, source: str) -> CheckResult:
    """Check a predicted alignment for ``source`` against the one the task implies.

    ``answer`` is ``(N_OUT, len(source))``: one row per output character of the ISO date
    (``"YYYY-MM-DD"``), one column per input character, with the share of each input
    character that the output character needs (rows of the dashes all zero; a month
    digit spreads evenly over the month's name). Compared with
    :func:`attnlib.book.ch06_model.implied_alignment` within 1e-3.
    """
    want = implied_alignment(source)  # raises ValueError for a source it cannot parse
    try:
        got = torch.as_tensor(answer, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return _fail(
            f"your answer is an object of type {type(answer).__name__}; expected a "
            f"({N_OUT}, {len(source)}) tensor"
        )
    shape = (N_OUT, len(source))
    if tuple(got.shape) == shape[::-1]:
        return _fail(
            f"your alignment has shape {tuple(got.shape)}: it is transposed. Output "
            f"characters are the rows (queries), input characters the columns (keys): "
            f"shape {shape}"
        )
    if tuple(got.shape) != shape:
        return _fail(
            f"your alignment has shape {tuple(got.shape)}; expected {shape}: one row per "
            f"character of 'YYYY-MM-DD', one column per character of {source!r}"
        )
    target = "YYYY-MM-DD"
    for i in range(N_OUT):
        if torch.allclose(got[i], want[i].double(), atol=1e-3):
            continue
        cols = [j for j in range(len(source)) if want[i, j] > 0]
        where = (
            "no input character (a dash is always written)"
            if not cols
            else "input characters " + ", ".join(f"{j} ({source[j]!r})" for j in cols)
        )
        return _fail(
            f"row {i} (the output's {target[i]!r}) should point at {where}; your row is "
            f"{[round(v, 3) for v in got[i].tolist()]}"
        )
    return CheckResult(True, f"all {N_OUT} rows match the alignment that {source!r} implies")


def check_attention_module(
    factory: Callable[[int], nn.Module], *, steps: int = 300, seed: int = 0
) -> CheckResult:
    """Check an attention module for the date model, then train with it.

    ``factory(num_hiddens)`` must return a module called as ``module(queries, keys, values,
    valid_lens)`` with queries ``(batch, 1, h)``, keys = values ``(batch, n_in, h)``,
    returning ``(batch, 1, h)`` and keeping ``.attention_weights`` ``(batch, 1, n_in)``
    (masked keys 0, rows summing to 1). If it does, a date model is trained with it for
    ``steps`` steps (a few seconds) and its held-out exact accuracy must reach 0.9.
    """
    if not callable(factory):
        raise TypeError("check_attention_module: factory must be a function num_hiddens -> module")
    g = torch.Generator().manual_seed(seed)
    h, batch, n_in = 8, 3, 5
    try:
        module = factory(h)
        q = torch.randn(batch, 1, h, generator=g)
        kv = torch.randn(batch, n_in, h, generator=g)
        lens = torch.tensor([2, 5, 1])
        out = module(q, kv, kv, lens)
    except Exception as err:  # the learner's code: report, do not crash the notebook
        return _fail(f"calling your module failed: {type(err).__name__}: {err}")
    if not isinstance(out, Tensor) or tuple(out.shape) != (batch, 1, h):
        shape = tuple(out.shape) if isinstance(out, Tensor) else type(out).__name__
        return _fail(
            f"your module returned {shape}; expected the context (batch, 1, h) = {(batch, 1, h)}"
        )
    w = getattr(module, "attention_weights", None)
    if not isinstance(w, Tensor) or tuple(w.shape) != (batch, 1, n_in):
        return _fail(
            "your module must keep .attention_weights of shape (batch, 1, n_in) = "
            f"{(batch, 1, n_in)} after each call"
        )
    w = w.detach().double()
    masked = torch.arange(n_in) >= lens.view(-1, 1, 1)
    if (w[masked] != 0).any():
        return _fail(
            "your module gives weight to padded keys: pass valid_lens on to the masked softmax"
        )
    if not torch.allclose(w.sum(-1), torch.ones(batch, 1, dtype=torch.float64), atol=1e-5):
        return _fail(
            f"your weights' rows sum to {w.sum(-1).flatten().tolist()}; a softmax row sums to 1"
        )
    gen = torch.Generator().manual_seed(seed)
    dates = random_dates(3000, gen)
    src, src_lens = encode_sources(random_sources(dates, gen))
    tgt = encode_targets([format_target(d) for d in dates])
    torch.manual_seed(seed)
    model = DateModel(attention=factory)
    model(src[:2], src_lens[:2], tgt[:2])  # size lazy layers before the optimiser sees them
    train(model, src, src_lens, tgt, steps=steps, generator=gen)
    test_dates = random_dates(500, gen)
    acc = accuracy(model, random_sources(test_dates, gen), test_dates)
    if acc < 0.9:
        return _fail(
            f"your module has the right shapes, but the model trained with it for "
            f"{steps} steps rewrites only {acc:.0%} of 500 held-out dates exactly "
            f"(the bar is 90%)"
        )
    return CheckResult(
        True,
        f"shapes and masking are right, and after {steps} steps the model "
        f"rewrites {acc:.0%} of 500 held-out dates exactly",
    )
