"""Chapter 6's explorer: play back how the date model's alignment emerges in training.

The frames are the attention weights that :func:`attnlib.seq2seq.train` recorded for one
watched input at its checkpoints (computed by attnlib's ``AdditiveAttention`` during
training); the slider walks through the training steps, and a marker on the loss curve
shows where in training each frame was taken.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from attnlib.seq2seq import TrainLog, format_target, implied_alignment
from attnlib.widgets import Declaration, Explorer, FixedSeries, Heatmap, Lines, Series, Slider

__all__ = ["alignment_playback_declaration", "alignment_playback_explorer"]


def alignment_playback_declaration(log: TrainLog, source: str, target: str,
                                   index: int = 0) -> Declaration:
    """Declare the playback of ``log``'s checkpoints for watched example ``index``.

    ``source`` is that example's input text (its characters label the columns) and
    ``target`` the ISO date it should become (the rows).
    """
    if not log.checkpoints:
        raise ValueError("alignment_playback_declaration: the training log has no checkpoints; "
                         "train with watch=(src, src_lens)")
    steps = [step for step, _ in log.checkpoints]
    frames = {step: w[index, :, :len(source)].numpy().astype(np.float64)
              for step, w in log.checkpoints}  # each (N_OUT, n_in)
    loss_x = np.arange(1, len(log.losses) + 1, dtype=np.float64)
    loss_y = np.asarray(log.losses, dtype=np.float64)
    smooth = np.convolve(loss_y, np.ones(10) / 10, mode="same")  # a readable curve

    def update(step: int) -> dict[str, Any]:
        at = min(max(step, 1), len(loss_y))
        return {"weights": frames[step],
                "loss": {"now": np.array([[float(at)], [float(smooth[at - 1])]])}}

    ideal = implied_alignment(source)  # noqa: F841 (documents the target of the playback)
    return Declaration(
        name="alignment_playback",
        update=update,
        params=[Slider("step", steps, label="training step", default=steps[-1])],
        panels=[
            Heatmap("weights", xlabel="input characters (keys)",
                    ylabel="output characters (queries)",
                    row_labels=list(target), col_labels=[c if c != " " else "␣" for c in source],
                    title=f"attention while rewriting {source!r}",
                    rows_sum_to_one=True),
            Lines("loss", series=[Series("now", style="points", xy=True)],
                  fixed=[FixedSeries("training loss (mean of 10 steps)", loss_x, smooth)],
                  xlabel="training step", ylabel="cross-entropy", title="loss"),
        ],
        title="Play back training: the alignment emerges",
    )


def alignment_playback_explorer(log: TrainLog, source: str, target: str,
                                index: int = 0) -> Explorer:
    """:func:`alignment_playback_declaration` as a live explorer."""
    return Explorer(alignment_playback_declaration(log, source, target, index))
