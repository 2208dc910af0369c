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
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from attnlib._rng import isolated_global_rng
from attnlib._validate import _scalar, as_int, as_seed, as_str, describe
from attnlib.book._ch06_inputs import check_source_texts, check_target_texts
from attnlib.book._checking import CheckResult, _exc, _fail, checker
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


#: The loss curve of the playback is a moving mean over this many training steps.
SMOOTH_STEPS = 10


def moving_mean(values: np.ndarray, width: int = SMOOTH_STEPS) -> np.ndarray:
    """The mean of the values within a window of ``width`` steps around each step:
    ``[i - width // 2, i + width // 2)``, shrinking at the ends of the log (no zero padding:
    a flat loss stays flat to the last step). Same length as ``values``."""
    n = len(values)
    total = np.concatenate([[0.0], np.cumsum(values, dtype=np.float64)])  # (n + 1,)
    i = np.arange(n)
    lo, hi = np.maximum(0, i - width // 2), np.minimum(n, i + width // 2)
    return (total[hi] - total[lo]) / (hi - lo)


def _checked_log(log: object, fn: str) -> tuple[np.ndarray, list[tuple[int, np.ndarray]]]:
    """The losses (finite, >= 1) and the checkpoints (step, weights (n_watch, N_OUT, n_in))
    of a training log that fits together: steps are increasing ints in 0 .. len(losses), the
    weights finite float32/float64 arrays of one shape."""
    if not isinstance(log, TrainLog):
        raise TypeError(f"{fn}: log must be a TrainLog (what train returns); got {describe(log)}")
    if not log.checkpoints:
        raise ValueError(
            f"{fn}: the training log has no checkpoints; train with watch=(src, src_lens)"
        )
    losses = []
    for i, v in enumerate(log.losses):
        x = _scalar(v)
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise TypeError(
                f"{fn}: log.losses must hold numbers; log.losses[{i}] is {describe(v)}"
            )
        if not math.isfinite(x):
            raise ValueError(
                f"{fn}: log.losses[{i}] (the loss at step {i + 1}) is {x}; the playback draws "
                f"finite losses only (the training diverged: train again with a lower lr)"
            )
        losses.append(float(x))
    if not losses:
        raise ValueError(f"{fn}: log.losses must hold at least one loss; train for steps >= 1")
    checkpoints, shape, last = [], None, -1
    for k, item in enumerate(log.checkpoints):
        if not isinstance(item, Sequence) or isinstance(item, str) or len(item) != 2:
            raise TypeError(
                f"{fn}: log.checkpoints must hold pairs (step, weights); item {k} is "
                f"{describe(item)}"
            )
        step, w = item
        step = as_int(step, f"the step of checkpoint {k}", fn, min=0)
        if step > len(losses):
            raise ValueError(
                f"{fn}: checkpoint {k} is at step {step}, but the log has {len(losses)} losses: "
                "a checkpoint is taken after at most as many steps as were logged"
            )
        if step <= last:
            steps = [s for s, _ in log.checkpoints]
            raise ValueError(f"{fn}: the checkpoints' steps must be increasing; got {steps}")
        last = step
        if isinstance(w, torch.Tensor):
            if w.dtype not in (torch.float32, torch.float64):
                raise TypeError(
                    f"{fn}: the weights of the checkpoint at step {step} must be float32 or "
                    f"float64 (rows summing to 1 within 1e-5); got dtype {w.dtype}: record them "
                    f"from a float32 model"
                )
            w = w.detach().cpu().numpy()
        elif not isinstance(w, np.ndarray):
            raise TypeError(
                f"{fn}: the weights of the checkpoint at step {step} must be a tensor; got "
                f"{describe(w)}"
            )
        w = np.asarray(w, dtype=np.float64)
        if w.ndim != 3 or w.shape[1] != N_OUT:
            raise ValueError(
                f"{fn}: the weights of the checkpoint at step {step} must have shape "
                f"(n_watch, {N_OUT}, n_in); got {tuple(w.shape)}"
            )
        if shape is not None and w.shape != shape:
            raise ValueError(
                f"{fn}: the weights of the checkpoint at step {step} have shape {tuple(w.shape)}, "
                f"the first checkpoint's {shape}: every checkpoint watches the same inputs"
            )
        if not np.isfinite(w).all():
            raise ValueError(f"{fn}: the weights of the checkpoint at step {step} hold NaN or inf")
        shape = w.shape
        checkpoints.append((step, w))
    return np.asarray(losses), checkpoints


def alignment_playback_declaration(
    log: TrainLog, source: str, target: str, index: int = 0
) -> Declaration:
    """Declare the playback of ``log``'s checkpoints for watched example ``index``.

    ``source`` is that example's input text (its characters label the columns) and
    ``target`` the ISO date it should become (the rows). Everything is checked against the
    log before anything is drawn: the losses are finite (at least one), the checkpoints'
    steps increase within ``0 .. len(log.losses)`` and their weights share one shape
    ``(n_watch, N_OUT, n_in)`` (float32 or float64), ``0 <= index < n_watch``, ``source`` is
    text of the source vocabulary no longer than ``n_in`` whose padding columns have no
    weight, and ``target`` is a ``YYYY-MM-DD`` date. The loss curve is the
    :func:`moving_mean` of :data:`SMOOTH_STEPS` steps, shrinking at the ends of the log.
    """
    fn = "alignment_playback_declaration"
    losses, checkpoints = _checked_log(log, fn)
    (source,) = check_source_texts([as_str(source, "source", fn)], "source", fn)
    (target,) = check_target_texts([as_str(target, "target", fn)], "target", fn)
    n_watch, _, n_in = checkpoints[0][1].shape
    index = as_int(index, "index", fn)
    if not 0 <= index < n_watch:
        raise ValueError(
            f"{fn}: index must be 0 <= index < {n_watch} (the log watched {n_watch} inputs); "
            f"got {index}"
        )
    if len(source) > n_in:
        raise ValueError(
            f"{fn}: source has {len(source)} characters, but the watched inputs had at most "
            f"{n_in} ({source!r} is not the watched input)"
        )
    for step, w in checkpoints:
        beyond = w[index, :, len(source) :]
        if beyond.size and np.abs(beyond).max() > 1e-6:
            raise ValueError(
                f"{fn}: at step {step} the watched input {index} has weight on columns beyond "
                f"source's {len(source)} characters: source {source!r} is not that input"
            )
    steps = [step for step, _ in checkpoints]
    frames = {step: w[index, :, : len(source)] for step, w in checkpoints}  # each (N_OUT, n_in)
    loss_x = np.arange(1, len(losses) + 1, dtype=np.float64)
    smooth = moving_mean(losses)  # a readable curve

    def update(step: int) -> dict[str, Any]:
        at = min(max(step, 1), len(losses))
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
    src, lens = s2s.encode_sources(train_sources)
    tgt = s2s.encode_targets([s2s.format_target(d) for d in train_dates])
    # the chapter's torch.manual_seed(0), on a forked generator: the reader's stays as it was
    with isolated_global_rng(seed=0):
        model = s2s.DateModel(attention=True, embed_size=16, num_hiddens=32)
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


@checker
def check_alignment(answer, source: str) -> CheckResult:
    """Check a predicted alignment for ``source`` against the one the task implies.

    ``answer`` is ``(N_OUT, len(source))``: one row per output character of the ISO date
    (``"YYYY-MM-DD"``), one column per input character, with the share of each input
    character that the output character needs (rows of the dashes all zero; a month
    digit spreads evenly over the month's name). Compared with
    :func:`attnlib.book.ch06_model.implied_alignment` within 1e-3. Any array-like of real
    numbers is an answer (a tensor of any real dtype, an array, nested lists); anything else
    gets a ``❌``. A transposed answer is recognised even for a 10-character source, whose
    alignment is square. ``source`` that is not a date in one of the three styles raises
    (``TypeError``/``ValueError``): it is the checker's input, not the answer.
    """
    fn = "check_alignment"
    want = implied_alignment(source, fn=fn).double()  # (N_OUT, n_in); raises for a bad source
    shape = (N_OUT, len(source))
    if isinstance(answer, Tensor) and answer.is_complex():
        return _fail(f"your alignment has dtype {answer.dtype}; it holds real numbers (shares)")
    try:
        got = torch.as_tensor(
            answer.detach() if isinstance(answer, Tensor) else answer, dtype=torch.float64
        )
    except (TypeError, ValueError, RuntimeError):
        return _fail(
            f"your answer is an object of type {type(answer).__name__}; expected a "
            f"{shape} tensor of real numbers"
        )
    if tuple(got.shape) != shape:
        if tuple(got.shape) == shape[::-1]:
            return _fail(
                f"your alignment has shape {tuple(got.shape)}: it is transposed. Output "
                f"characters are the rows (queries), input characters the columns (keys): "
                f"shape {shape}"
            )
        return _fail(
            f"your alignment has shape {tuple(got.shape)}; expected {shape}: one row per "
            f"character of 'YYYY-MM-DD', one column per character of {source!r}"
        )
    if not torch.isfinite(got).all():
        i, j = (int(k) for k in torch.nonzero(~torch.isfinite(got))[0])
        return _fail(
            f"your alignment is {got[i, j].item()} at row {i}, column {j}; shares are finite"
        )
    square = shape[0] == shape[1]  # a 10-character source: compare the values
    if (
        square
        and not torch.allclose(got, want, atol=1e-3)
        and torch.allclose(got.T, want, atol=1e-3)
    ):
        return _fail(
            "your alignment is transposed: output characters are the rows (queries), input "
            f"characters the columns (keys), shape {shape}"
        )
    target = "YYYY-MM-DD"
    for i in range(N_OUT):
        if torch.allclose(got[i], want[i], atol=1e-3):
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


@checker
def check_attention_module(
    factory: Callable[[int], nn.Module], *, steps: int = 300, seed: int = 0
) -> CheckResult:
    """Check an attention module for the date model, then train with it.

    ``factory(num_hiddens)`` must return a module called as ``module(queries, keys, values,
    valid_lens)`` with queries ``(batch, 1, h)``, keys = values ``(batch, n_in, h)``,
    returning ``(batch, 1, h)`` and keeping ``.attention_weights`` ``(batch, 1, n_in)``
    (masked keys 0, rows summing to 1). If it does, a date model is trained with it for
    ``steps`` steps (an int >= 1; 300 take a few seconds) and its held-out exact accuracy
    must reach 0.9. Everything random is drawn from ``seed`` (an int): the model's initial
    weights on a forked global generator, so the reader's generators are left as they were.
    """
    fn = "check_attention_module"
    if not callable(factory):
        raise TypeError(
            f"{fn}: factory must be a function num_hiddens -> module; got {describe(factory)}"
        )
    steps = as_int(steps, "steps", fn, min=1)
    seed = as_seed(seed, "seed", fn)
    g = torch.Generator().manual_seed(seed)
    h, batch, n_in = 8, 3, 5
    try:
        module = factory(h)
        q = torch.randn(batch, 1, h, generator=g)
        kv = torch.randn(batch, n_in, h, generator=g)
        lens = torch.tensor([2, 5, 1])
        out = module(q, kv, kv, lens)
    except Exception as err:  # the learner's code: report, do not crash the notebook
        return _fail(f"calling your module failed: {_exc(err)}")
    if not isinstance(module, nn.Module):
        return _fail(
            f"your factory returned {describe(module)}; it must return an nn.Module (so that "
            "the date model trains its parameters)"
        )
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
    try:
        with isolated_global_rng(seed=seed):  # the model's initial weights, from the seed
            model = DateModel(attention=factory)
            model(src[:2], src_lens[:2], tgt[:2])  # size lazy layers before the optimiser
        train(model, src, src_lens, tgt, steps=steps, generator=gen)
    except Exception as err:  # the learner's module in a real model: report it
        return _fail(f"training the date model with your module failed: {_exc(err)}")
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
