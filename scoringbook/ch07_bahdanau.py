"""Chapter 7, Bahdanau attention learns to align: its explorers.

The model and training loop are in :mod:`scoringbook.seq2seq`, the date task in
:mod:`scoringbook.ch07_dates`, the chapter's checkers in :mod:`scoringbook.ch07_exercises`.

- :func:`decode_step_explorer`: one decoder step of the date model, drawn.
- :func:`alignment_playback_explorer`: play back how the date model's alignment emerges in
  training. The frames are the attention weights that :func:`scoringbook.seq2seq.train`
  recorded for one watched input at its checkpoints (computed by attnlib's
  ``AdditiveAttention`` during training); the slider walks through the training steps, and
  a marker on the loss curve shows where in training each frame was taken.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from attnlib.domains import (
    Instance,
    Int,
    Str,
    as_int,
    as_str,
    declare,
    describe,
    isolated_global_rng,
)
from attnlib.domains import scalar as _scalar
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
from scoringbook._common import named_as
from scoringbook._seq2seq_inputs import check_source_texts, check_target_texts
from scoringbook.ch07_dates import (
    N_OUT,
    implied_alignment,
)
from scoringbook.seq2seq import TrainLog

#: the playback's arguments (the index's range, 0 <= index < the inputs the log watched, and
#: the texts' fit to the log are checked in the body, against the log)
PLAYBACK_ARGS = dict(
    log=Instance(TrainLog, what="a TrainLog (what train returns)"),
    source=Str(),
    target=Str(),
    index=Int(),
)

__all__ = [
    "decode_step_declaration",
    "decode_step_explorer",
    "alignment_playback_declaration",
    "alignment_playback_explorer",
    "chapter_playback_declaration",
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


@declare(source=Str())
def decode_step_declaration(source: str = "22 Nov 2026") -> Declaration:
    """Declare chapter 7's decode-step scrubber: one slider over the decoder's steps.

    Bahdanau's idea in one gesture: the keys (the encoder's states, one per character of
    ``source``) stay put while the query, the decoder's state before step ``t'``, changes
    with every output character, and so do the weights. Each frame shows the weights the
    task implies for step ``t'`` (:func:`~scoringbook.ch07_dates.implied_alignment`'s row
    ``t' - 1``, ``(1, n_in)``: machine-independent, no training) and says what the decoder
    has written so far and writes now. The dashes' rows are all zero (a dash needs no input
    character), which no softmax row can be: the colour bar says the weights are the
    task's, and the dash preset's notice says so.

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
            # counted from 0, as the code, the exercises and their checkers count, and said
            # so: the slider counts decode steps from 1 (issue 39's cold read of chapter 7)
            + (f" (position {runs[0][0]}, from 0)" if len(runs) == 1 and len(runs[0]) == 1 else "")
            if runs
            else "looks nowhere: a dash needs no input"
        )
        # lines of at most 40 characters: none wraps on a phone; the step itself is the
        # slider's words ("decode step 9 (output character "2")"), not said again here
        text = f"written so far: \u201c{written}\u201d\nwrites now: \u201c{now}\u201d\n{looks}"
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
                # short: under cells moved right by the row's name, a 360-px phone shows it
                xlabel="input characters (keys)",
                ylabel="query",
                # the query in words: the symbol s_{t'-1} is the chapter's, not the page's
                row_labels=["decoder state"],
                col_labels=chars,
                # not a model's softmax: a dash's row is blank, which no softmax row can be
                colorbar_label="weight the task implies",
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
                "Notice: a dash needs no input character, so the task implies no weight and "
                "the row is blank; a model's softmax row cannot be, it must still put its 1 "
                "somewhere (exercise 3).",
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


@declare(source=Str())
def decode_step_explorer(source: str = "22 Nov 2026") -> Explorer:
    """:func:`decode_step_declaration` as a live explorer."""
    with named_as("decode_step_declaration", "decode_step_explorer"):
        return Explorer(decode_step_declaration(source))


def _target_of(source: str) -> str:
    """The ISO date ``source`` names (already checked to be one of the task's styles)."""
    from scoringbook._date_vocab import MONTHS
    from scoringbook._seq2seq_inputs import source_fields

    (d0, d1), (m0, m1), (y0, y1) = source_fields(source, "decode_step_declaration")
    name = source[m0:m1]
    month = next(i + 1 for i, full in enumerate(MONTHS) if name in (full, full[:3]))
    return f"{int(source[y0:y1]):04d}-{month:02d}-{int(source[d0:d1]):02d}"


@declare(**PLAYBACK_ARGS)
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


@declare(**PLAYBACK_ARGS)
def alignment_playback_explorer(
    log: TrainLog, source: str, target: str, index: int = 0
) -> Explorer:
    """:func:`alignment_playback_declaration` as a live explorer."""
    with named_as("alignment_playback_declaration", "alignment_playback_explorer"):
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

    from scoringbook import ch07_dates as dates
    from scoringbook import seq2seq as s2s

    data_gen = torch.Generator().manual_seed(0)
    train_dates = dates.random_dates(5000, data_gen)
    train_sources = dates.random_sources(train_dates, data_gen)
    src, lens = dates.encode_sources(train_sources)
    tgt = dates.encode_targets([dates.format_target(d) for d in train_dates])
    # the chapter's torch.manual_seed(0), on a forked generator: the reader's stays as it was
    with isolated_global_rng(seed=0):
        model = dates.DateModel(attention=True, embed_size=16, num_hiddens=32)
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
        watch=dates.encode_sources([watch]),
        every=10,
    )
    return alignment_playback_declaration(log, watch, "2026-11-05")
