"""Chapter 7, Bahdanau attention learns to align: its explorer and its checkers (the module
keeps the old chapter number).

The model, data and training loop are in :mod:`scoringbook.seq2seq`.

- :func:`alignment_playback_explorer`: play back how the date model's alignment emerges in
  training. The frames are the attention weights that :func:`scoringbook.seq2seq.train`
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
from attnlib.widgets import (
    Caption,
    Declaration,
    Explorer,
    FixedSeries,
    Heatmap,
    Lines,
    Preset,
    Series,
    Slider,
)
from scoringbook._checking import CheckResult, _exc, _fail, _pair, checker
from scoringbook._seq2seq_inputs import check_source_texts, check_target_texts
from scoringbook.ch01_queries_keys_values import check_weights
from scoringbook.seq2seq import (
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

__all__ = [
    "decode_step_declaration",
    "decode_step_explorer",
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


def decode_step_declaration(source: str = "22 Nov 2026") -> Declaration:
    """Declare chapter 7's decode-step scrubber: one slider over the decoder's steps.

    Bahdanau's idea in one gesture: the keys (the encoder's states, one per character of
    ``source``) stay put while the query, the decoder's state before step ``t'``, changes
    with every output character, and so do the weights. Each frame shows the weights the
    task implies for step ``t'`` (:func:`~scoringbook.seq2seq.implied_alignment`'s row
    ``t' - 1``, ``(1, n_in)``: machine-independent, no training) and says what the decoder
    has written so far and writes now. The dashes' rows are all zero (a dash needs no input
    character).

    Args:
        source: a date in one of the task's three styles (e.g. ``"22 Nov 2026"``), at most
            28 characters.
    """
    fn = "decode_step_declaration"
    (source,) = check_source_texts([as_str(source, "source", fn)], "source", fn)
    implied = implied_alignment(source, fn=fn).double().numpy()  # (N_OUT, n_in)
    target = _target_of(source)
    chars = [c if c != " " else "␣" for c in source]
    steps = list(range(1, N_OUT + 1))

    def update(step: int) -> dict[str, Any]:
        row = implied[step - 1 : step]  # (1, n_in): the query of step t' is s_{t'-1}
        written, now = target[: step - 1], target[step - 1]
        on = np.flatnonzero(row[0] > 0)  # the characters it needs, as runs of neighbours
        runs = [[int(on[0])]] if on.size else []
        for j in on[1:]:
            if j == runs[-1][-1] + 1:
                runs[-1].append(int(j))
            else:
                runs.append([int(j)])
        looks = (
            "looks at "
            + ", ".join(f"\u201c{source[r[0] : r[-1] + 1]}\u201d" for r in runs)
            + (f" (character {runs[0][0] + 1})" if len(runs) == 1 and len(runs[0]) == 1 else "")
            if runs
            else "looks nowhere: a dash needs no input"
        )
        # lines of at most 40 characters: none wraps on a phone
        text = (
            f"step t\u2032 = {step} of {N_OUT}\n"
            f"written so far: \u201c{written}\u201d\n"
            f"writes now: \u201c{now}\u201d\n{looks}"
        )
        return {"step": text, "weights": row}

    return Declaration(
        name="decode_step",
        update=update,
        params=[
            Slider(
                "step",
                steps,
                label="decode step (output character)",
                default=9,
                value_labels=[f"{t}: {target[t - 1]}" for t in steps],
            )
        ],
        panels=[
            Caption("step"),
            Heatmap(
                "weights",
                xlabel="input characters (keys: the encoder's states)",
                ylabel="query",
                row_labels=["s"],
                col_labels=chars,
                title=f"the weights this step needs, over {source!r}",
                rows_sum_to_one=True,
                allow_zero_rows=True,
            ),
        ],
        title="One decoder step at a time: the query moves, the keys stay",
        presets=[
            Preset(
                "Step 1: the year",
                "Notice: the year's first digit is read where the source writes the year.",
                {"step": 1},
            ),
            Preset(
                "Step 5: a dash",
                "Notice: a dash needs no input character, so the row is empty.",
                {"step": 5},
            ),
            Preset(
                "Step 9: the day",
                "Notice: the day is read at the start: one fixed summary would have to serve "
                "every step.",
                {"step": 9},
            ),
        ],
    )


def decode_step_explorer(source: str = "22 Nov 2026") -> Explorer:
    """:func:`decode_step_declaration` as a live explorer."""
    return Explorer(decode_step_declaration(source))


def _target_of(source: str) -> str:
    """The ISO date ``source`` names (already checked to be one of the task's styles)."""
    from scoringbook._seq2seq_inputs import source_fields
    from scoringbook.seq2seq import MONTHS

    (d0, d1), (m0, m1), (y0, y1) = source_fields(source, "decode_step_declaration")
    name = source[m0:m1]
    month = next(i + 1 for i, full in enumerate(MONTHS) if name in (full, full[:3]))
    return f"{int(source[y0:y1]):04d}-{month:02d}-{int(source[d0:d1]):02d}"


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
        presets=_playback_presets(steps),
    )


def _playback_presets(steps: list[int]) -> list[Preset]:
    """The chapter's things to try: the start, the middle of the run, the end (checkpoints
    of the schedule, not measurements)."""
    if len(steps) < 3:
        return []
    mid = min(steps[1:-1], key=lambda s: abs(s - 60))
    return [
        Preset(
            f"Step {steps[0]}",
            "Notice: the weights are nearly uniform over the input: the untrained decoder "
            "does not know where to look.",
            {"step": steps[0]},
        ),
        Preset(
            f"Step {mid}",
            "Notice: rows find their characters one group at a time; which group comes first "
            "changes from one training run to another.",
            {"step": mid},
        ),
        Preset(
            f"Step {steps[-1]}",
            "Notice: the weights have sharpened and the loss is low; the weekday at the start, "
            "which no output needs, has lost its weight.",
            {"step": steps[-1]},
        ),
    ]


def alignment_playback_explorer(
    log: TrainLog, source: str, target: str, index: int = 0
) -> Explorer:
    """:func:`alignment_playback_declaration` as a live explorer."""
    return Explorer(alignment_playback_declaration(log, source, target, index))


def chapter_playback_declaration() -> Declaration:
    """The playback explorer of chapter 7, recomputed from scratch (about 10 s).

    Mirrors the chapter's cells exactly (data seeds, model seed, the lazy layers sized by a
    first call, 200 steps, checkpoints every 10): the browser tests compare the page with
    this, so a drift between the chapter and the library shows up as a failure.
    """
    return _chapter_playback()


@functools.lru_cache(maxsize=1)
def _chapter_playback() -> Declaration:
    import torch

    from scoringbook import seq2seq as s2s

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
    (``"YYYY-MM-DD"``), one column per input character, with 1 where an output character
    copies an input character, ``1/m`` on each of the ``m`` letters of the month's name
    for the two month digits, and zero rows for the dashes. The leading ``0`` of a one-digit
    day copies nothing, so its row may be all zeros, or point at the day's digit, which
    decides it (:func:`scoringbook.seq2seq.implied_alignment`'s reading): both are
    accepted. Compared within 1e-3.

    A wrong row is reported with the first entry that differs. An answer is called
    transposed only when its transpose is right (a 10-character date makes a square
    matrix, which has the right shape either way).
    """
    fn = "check_alignment"
    want = implied_alignment(source, fn=fn).double()  # (N_OUT, n_in); raises for a bad source
    readings = [want]
    if want[8].equal(want[9]):  # a one-digit day: the leading 0 may also copy nothing
        alt = want.clone()
        alt[8] = 0.0
        readings.append(alt)
    shape = (N_OUT, len(source))
    if isinstance(answer, Tensor) and answer.is_complex():
        return _fail(f"your alignment has dtype {answer.dtype}; it holds real numbers (shares)")
    try:
        got = torch.as_tensor(
            answer.detach() if isinstance(answer, Tensor) else answer, dtype=torch.float64
        )
    except (TypeError, ValueError, RuntimeError):
        return _fail(
            f"your answer is an object of type {type(answer).__name__}; expected a {shape} tensor"
        )

    def matches(a: Tensor) -> bool:
        return any(torch.allclose(a, r, atol=1e-3, rtol=0) for r in readings)

    if tuple(got.shape) == shape[::-1] and matches(got.T):
        return _fail(
            f"your alignment is transposed: shape {tuple(got.shape)} with input characters as "
            f"rows. Output characters are the rows (queries), input characters the columns "
            f"(keys): shape {shape}"
        )
    if tuple(got.shape) != shape:
        return _fail(
            f"your alignment has shape {tuple(got.shape)}; expected {shape}: one row per "
            f"character of 'YYYY-MM-DD', one column per character of {source!r}"
        )
    if not torch.isfinite(got).all():
        i, j = (int(v) for v in torch.nonzero(~torch.isfinite(got))[0])
        return _fail(
            f"your alignment is {got[i, j].item()} at row {i}, column {j}; shares are finite"
        )
    if matches(got):
        return CheckResult(True, f"all {N_OUT} rows match the alignment that {source!r} implies")
    target = "YYYY-MM-DD"
    for i in range(N_OUT):
        if any(torch.allclose(got[i], r[i], atol=1e-3, rtol=0) for r in readings):
            continue
        cols = [j for j in range(len(source)) if want[i, j] > 0]
        if not cols:
            where = "no input character (a dash is always written): a zero row"
        else:
            where = "input characters " + ", ".join(f"{j} ({source[j]!r})" for j in cols)
            if len(readings) > 1 and i == 8:
                where += " (or nothing: a zero row; the leading 0 copies no character)"
        j = int(torch.nonzero((got[i] - want[i]).abs() > 1e-3)[0])
        got_s, want_s = _pair(got[i, j], want[i, j])
        return _fail(
            f"row {i} (the output's {target[i]!r}) should point at {where}; at column {j} "
            f"({source[j]!r}) your row has {got_s}, expected {want_s}"
        )
    return _fail("your alignment differs from the implied one")  # pragma: no cover


def _measured_scores(module: nn.Module, queries: Tensor, keys: Tensor) -> Tensor:
    """The module's scores for each query against all of ``keys``, up to a constant per
    query: log-weights minus those of key 0, ``(batch, n_keys)``; NaN if a weight is 0."""
    batch, n = queries.shape[0], keys.shape[0]
    kv = keys.unsqueeze(0).expand(batch, n, keys.shape[1])  # (batch, n_keys, h)
    module(queries.unsqueeze(1), kv, kv, torch.full((batch,), n))
    w = module.attention_weights.detach().double()[:, 0]  # (batch, n_keys)
    logw = torch.where(w > 0, w.clamp_min(1e-300).log(), torch.full_like(w, float("nan")))
    return logw - logw[:, :1]  # (batch, n_keys)


def _check_projection(module: nn.Module, h: int, g: torch.Generator) -> str | None:
    """None if the module's scores are (W q)ᵀk / √h for a learned W; else what differs.

    The scores of a dot product through a linear map are bilinear: a(q, k) = qᵀ M k. They
    are measured with unit queries against unit keys (log-weights, up to a constant per
    query), which gives M (and a key-only term cᵀk, e.g. from a bias), then checked on
    random queries and keys.
    """
    s = 0.25  # small inputs: no weight underflows
    basis = torch.cat([torch.zeros(1, h), s * torch.eye(h)])  # (h + 1, h): 0, s e_1, ...
    with torch.no_grad():
        d = _measured_scores(module, basis, basis)  # (h + 1, h + 1)
        if not torch.isfinite(d).all():
            return (
                "some of your weights are exactly 0 for small unmasked inputs; a softmax of "
                "finite scores is never 0"
            )
        c = d[0, 1:] / s  # the key-only term: scores of the zero query
        M = (d[1:, 1:] - d[:1, 1:]) / (s * s)  # (h, h)
        q = torch.randn(6, h, generator=g)
        k = 0.5 * torch.randn(7, h, generator=g)
        got = _measured_scores(module, q, k)  # (6, 7)
    want = (q.double() @ M + c) @ k.double().T  # (6, 7)
    want = want - want[:, :1]
    scale = max(1.0, float(want.abs().max()))
    if not torch.isfinite(got).all() or (got - want).abs().max() > 1e-3 * scale:
        return (
            "your scores are not a dot product of a linear map of the query with the key: "
            "they do not change linearly with the key (additive attention's tanh, for "
            "instance, does not). The exercise asks for a(q, k) = (W q)ᵀk / √h"
        )
    if M.abs().max() < 1e-6:
        return "your weights do not depend on the query: score the query against the keys"
    if c.abs().max() > 1e-3 * max(1.0, float(M.abs().max())):
        return (
            "your scores have a term in the key alone, bᵀk (a bias in the query's linear "
            "map?): use nn.Linear(h, h, bias=False), as in a(q, k) = (W q)ᵀk / √h"
        )
    params = [p for p in module.parameters() if p.requires_grad]
    if not params:
        ident = torch.allclose(M, torch.eye(h, dtype=M.dtype) / h**0.5, atol=1e-4)
        what = "q·k/√h, chapter 5's scaled dot product" if ident else "a fixed bilinear form"
        return (
            f"your scores are {what}, with nothing to learn: give the query a learned linear "
            f"map first, W = nn.Linear(h, h, bias=False), and score (W q)ᵀk / √h"
        )
    for P, what in _candidate_maps(params, h):
        ratio = float((M * P).sum() / (P * P).sum()) if (P * P).sum() > 0 else 0.0
        if ratio and torch.allclose(M, ratio * P, atol=1e-4 * max(1.0, float(M.abs().max()))):
            if abs(ratio * h**0.5 - 1) < 1e-3:
                return None
            if abs(ratio - 1) < 1e-3:
                return (
                    f"your scores are {what}: divide by √h, as scaled dot-product attention does"
                )
            return f"your scores are {what} times {ratio:.4g}; expected 1/√h = {h**-0.5:.4g}"
    return None  # bilinear through learned parameters, but not one or two matrices: not checked


def _candidate_maps(params: list[Tensor], h: int):
    """The (h, h) matrices M the scores qᵀ M k may be made of, with how to name them: one
    parameter W (scores (W q)ᵀk) or a product of two, W₁ᵀW₂ (scores (W₁ q)ᵀ(W₂ k)), in both
    layouts of each (``nn.Linear`` keeps (out, in))."""
    mats = [p.detach().double() for p in params if p.dim() == 2]
    for P in mats:
        if tuple(P.shape) == (h, h):
            yield P, "(W q)ᵀk"
            yield P.T, "(W q)ᵀk"
    for i, A in enumerate(mats):
        for j, B in enumerate(mats):
            if i == j:
                continue
            for A_, B_ in ((A, B), (A.T, B), (A, B.T), (A.T, B.T)):
                if A_.shape[1] == B_.shape[0] and (A_.shape[0], B_.shape[1]) == (h, h):
                    yield A_ @ B_, "(W₁ q)ᵀ(W₂ k)"


@checker
def check_attention_module(
    factory: Callable[[int], nn.Module], *, steps: int = 300, seed: int = 0
) -> CheckResult:
    r"""Check an attention module for exercise 2: :math:`a(\mathbf q, \mathbf k) =
    (\mathbf W \mathbf q)^\top \mathbf k / \sqrt h` with a learned :math:`\mathbf W`, then
    train the date model with it.

    ``factory(num_hiddens)`` must return a module called as ``module(queries, keys, values,
    valid_lens)`` with queries ``(batch, 1, h)``, keys = values ``(batch, n_in, h)``,
    returning ``(batch, 1, h)`` and keeping ``.attention_weights`` ``(batch, 1, n_in)``
    (masked keys 0, rows summing to 1). Its scores, measured from the weights, must be a
    dot product of a linear map of the query with the key: bilinear, with no term in the
    key alone, through a learned parameter (a plain ``q·k/√h`` and additive attention
    fail), and, when one ``(h, h)`` parameter or a product of two parameters is the map,
    divided by ``√h``; its output must be its weights @ values. If so, a date
    model is trained with it for
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
        if isinstance(module, nn.Module):
            module.eval()  # the weights are read before any dropout
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
    sums = w.sum(-1).flatten()
    if not torch.allclose(sums, torch.ones(batch, dtype=torch.float64), atol=1e-5):
        b = int(torch.nonzero((sums - 1).abs() > 1e-5)[0])
        got_s, _ = _pair(sums[b], 1.0)
        return _fail(f"the weights of sequence {b} sum to {got_s}; a softmax row sums to 1")
    want_out = torch.bmm(w, kv.detach().double())  # (batch, 1, h): weights @ values
    got_out = out.detach().double()
    if not torch.allclose(got_out, want_out, atol=1e-4, rtol=1e-4):
        uniform = kv.detach().double().mean(dim=1, keepdim=True)  # (batch, 1, h)
        hint = (
            " (it is the plain mean of the values: the weights are never used)"
            if torch.allclose(got_out, uniform, atol=1e-4)
            else ""
        )
        b = int(torch.nonzero((got_out - want_out).abs().amax(dim=(1, 2)) > 1e-4)[0])
        return _fail(
            f"your module's output for sequence {b} is not its weights @ values{hint}; "
            f"the context is the weighted average of the values, with the weights you keep "
            f"in .attention_weights"
        )
    try:
        problem = _check_projection(module, h, g)
    except Exception as err:
        return _fail(f"calling your module failed: {_exc(err)}")
    if problem:
        return _fail(problem)
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
            f"your module scores (W q)ᵀk / √h with a learned W, but the model trained with it "
            f"for {steps} steps rewrites only {acc:.0%} of 500 held-out dates exactly "
            f"(the bar is 90%)"
        )
    return CheckResult(
        True,
        f"your module scores (W q)ᵀk / √h with a learned W, masks the padding, and after "
        f"{steps} steps the model rewrites {acc:.0%} of 500 held-out dates exactly",
    )
