"""Chapter 6's explorer: play back how the date model's alignment emerges in training.

The frames are the attention weights that :func:`attnlib.seq2seq.train` recorded for one
watched input at its checkpoints (computed by attnlib's ``AdditiveAttention`` during
training); the slider walks through the training steps, and a marker on the loss curve
shows where in training each frame was taken.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from attnlib.seq2seq import TrainLog
from attnlib.widgets import Declaration, Explorer, FixedSeries, Heatmap, Lines, Series, Slider

__all__ = ["alignment_playback_declaration", "alignment_playback_explorer",
           "chapter_playback_declaration"]


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

    return Declaration(
        name="alignment_playback",
        update=update,
        params=[Slider("step", steps, label="training step", default=steps[-1],
                       value_labels=[str(s) for s in steps], play=True)],
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

    from attnlib import seq2seq as s2s

    data_gen = torch.Generator().manual_seed(0)
    train_dates = s2s.random_dates(5000, data_gen)
    train_sources = s2s.random_sources(train_dates, data_gen)
    torch.manual_seed(0)
    model = s2s.DateModel(attention=True, embed_size=16, num_hiddens=32)
    src, lens = s2s.encode_sources(train_sources)
    tgt = s2s.encode_targets([s2s.format_target(d) for d in train_dates])
    model(src[:2], lens[:2], tgt[:2])  # size the lazy layers (the chapter does it earlier)
    watch = "Thursday, 5 November 2026"
    log = s2s.train(model, src, lens, tgt, steps=200, batch_size=64, lr=0.01,
                    generator=torch.Generator().manual_seed(1),
                    watch=s2s.encode_sources([watch]), every=10)
    return alignment_playback_declaration(log, watch, "2026-11-05")
