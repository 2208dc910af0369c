"""Chapter 10's explorers: the trained heads on a sequence, over training, and knocked out.

Each builder takes a :class:`scoringbook.ch10_model.TrainRun` (the chapter's is
:func:`scoringbook.ch10_model.chapter_run`):

- :func:`heads_explorer`: pick a layer and head and one of the watched sequences (repeats of
  10, 7 and 5 tokens): the head's final weights on it; the induction stripe moves with the
  repeat.
- :func:`heads_playback_explorer`: a head's weights on the repeat of 10 at each checkpoint,
  next to the loss curve, under a read-out of the step's loss and the head's scores.
- :func:`ablation_explorer`: zero any set of heads: the held-out accuracy at each place of
  the repeat (repeats of 4 to 10 tokens), a bar per place on a discrete axis.

Each has presets ("things to try") with the one line to notice there; the presets name heads
from the run's own scores (which layer-1 head is the previous-token head changes by seed), and
a notice that quotes a number computes it from the frames the preset shows (the weights, the
loss curve, the accuracies), with the words chosen by the numbers.

:func:`heads_figure` draws the four heads' final weights on the repeat of 10, every token
labelled at a size a phone can read (one panel per row on a phone).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attnlib import domains as D
from attnlib.domains import as_int, describe
from attnlib.widgets import (
    Caption,
    Choice,
    Declaration,
    Explorer,
    FixedSeries,
    Heatmap,
    Lines,
    Preset,
    Series,
    Slider,
)
from scoringbook import ch10_model
from scoringbook.ch10_model import (
    TrainRun,
    accuracy_by_place,
    repeated_half_accuracy,
    token_text,
)

__all__ = [
    "heads_figure",
    "heads_declaration",
    "heads_explorer",
    "heads_playback_declaration",
    "heads_playback_explorer",
    "loss_curve",
    "ablation_declaration",
    "ablation_explorer",
]


def chapter_run() -> TrainRun:
    """The chapter's run, :func:`scoringbook.ch10_model.chapter_run` (trained once, cached):
    the manifest builds this module's explorers from it."""
    return ch10_model.chapter_run()


#: The heads figure's size (in): each panel 2.9 in wide, so its 20 token labels (9 pt) sit
#: 0.15 in apart, wider than a letter (issue 39: every tick label readable; at 4.4 in they
#: were 0.07 in apart and overprinted). On a phone the panels stack, one per row.
HEADS_FIGSIZE = (7.4, 7.0)


@D.declare(run=D.Checked(lambda run, name, fn: _check_run(run, fn)))  # RUN, defined below
def heads_figure(run: TrainRun):
    """The four heads' final weights on the run's first watched sequence (the repeat of
    10): a grid of panels, rows = layers, columns = heads, every token named on both axes.

    Returns the pyplot-managed figure (an attnlib figure: :func:`attnlib.show_heatmaps`'s
    narrow variant stacks the panels for a phone)."""
    import torch

    from attnlib.plotting import show_heatmaps

    run = _check_run(run, "heads_figure")
    seq = token_text(run.watch[0])
    final = run.weights[-1]  # per layer: (watched, heads, n, n)
    grid = torch.stack([torch.from_numpy(np.asarray(w[0])) for w in final])  # (L, H, n, n)
    L, H = grid.shape[:2]
    return show_heatmaps(
        grid,
        xlabel="tokens (keys)",
        ylabel="token now",
        titles=[[f"layer {i + 1}, head {h + 1}" for h in range(H)] for i in range(L)],
        xticklabels=seq,
        yticklabels=seq,
        figsize=HEADS_FIGSIZE,
    )


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
    if (
        not isinstance(run, TrainRun)
        or not run.steps
        or run.watch is None
        or run.watch_k is None
        or run.held_k is None
    ):
        raise TypeError(f"{fn}: run must be a TrainRun from train(); got {describe(run)}")
    return run


def _run_domain(run: object, name: str, fn: str) -> TrainRun:
    return _check_run(run, fn)


#: a finished run of train() (with its watched and held-out sequences)
RUN = D.Checked(_run_domain)


def _previous_head(run: TrainRun) -> str:
    """The layer-1 head with the highest previous-token score at the end of ``run``."""
    return f"L1H{int(np.argmax(run.previous[-1][0])) + 1}"


def _induction_head(run: TrainRun) -> str:
    """The last layer's head with the highest induction score at the end of ``run``."""
    last = len(run.model.layers)
    return f"L{last}H{int(np.argmax(run.induction[-1][last - 1])) + 1}"


#: ln 20: the loss of guessing uniformly among the 20 tokens
GUESS = float(np.log(ch10_model.VOCAB))


def _offset_shares(weights: np.ndarray) -> np.ndarray:
    """``(n,)``: entry ``o`` is the mean weight a row puts ``o`` places back (``o = 0`` is
    its own token), over the rows that have a token there (``o .. n - 1``), for one head's
    causal ``(n, n)`` weights: entry 1 is its previous-token share on this sequence."""
    w = np.asarray(weights, dtype=np.float64)
    return np.array([np.diagonal(w, -o).mean() for o in range(w.shape[0])])


def _previous_notice(shares: list[np.ndarray], shown: int, weights=None, k: int = 0) -> str:
    """The previous-token preset's notice, from :func:`_offset_shares` of the head on each
    watched sequence (``shown``: the one the preset shows): the share one place back, and
    how it compares with every other single place; with the shown sequence's ``(n, n)``
    ``weights`` and its repeat length ``k``, that share in the random part (rows 1 to
    ``k - 1``, where the induction head's keys are) and in the repeat (rows ``k`` on)."""
    here = shares[shown]
    best = int(np.argmax(here[1:])) + 1  # the place back with the most weight (own token aside)
    if best == 1 and here[1] > here[0]:
        rank = "more than on any other single place"
    elif best == 1:
        rank = f"more than on any other earlier token (its own gets {here[0]:.2f})"
    else:
        rank = f"less than {best} places back ({here[best]:.2f})"
    others = [f"{sh[1]:.2f}" for i, sh in enumerate(shares) if i != shown]
    parts = ""
    if weights is not None and 1 < k < len(weights):
        back = np.diagonal(np.asarray(weights, dtype=np.float64), -1)  # row r's, r = 1 .. n-1
        parts = (
            f" ({back[: k - 1].mean():.2f} a row in the random part, rows 1 to {k - 1}, where "
            f"the induction head's keys are; {back[k - 1 :].mean():.2f} in the repeat)"
        )
    return (
        f"Notice: on average each row puts {here[1]:.2f} of its weight just below the "
        f"diagonal, on the token before, {rank}{parts}"
        + (f"; on the other sequences {' and '.join(others)}." if others else ".")
    )


def _loss_words(loss: float, why: bool = False) -> str:
    """``loss`` against ln 20 in words, as the two numbers print (2 decimals); ``why``: say
    that ln 20 is the loss of guessing."""
    a, g = round(loss, 2), round(GUESS, 2)
    rel = "above" if a > g else "at" if a == g else "far below" if a < g / 2 else "below"
    return f"the loss, {a:.2f}, is {rel} ln 20 ≈ {g:.2f}" + (
        ", the loss of guessing" if why else ""
    )


@D.declare(run=RUN)
def heads_declaration(run: TrainRun) -> Declaration:
    """Pick a layer and a head, and a watched sequence: that head's weights on it, at the
    end of ``run`` (queries are rows; each row sums to 1 over the tokens up to it)."""
    fn = "heads_declaration"
    run = _check_run(run, fn)
    opts, labels = _head_names(run)
    final = run.weights[-1]  # per layer (n_watch, H, n, n)
    n_watch = final[0].shape[0]
    ks = [int(k) for k in run.watch_k]
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

    ind, prev = _induction_head(run), _previous_head(run)
    presets = [
        Preset(
            f"Induction head, repeat of {k}",
            f"Notice: from the repeat's first token on, the stripe runs {k - 1} places below "
            f"the diagonal, on the token after the earlier occurrence"
            + (": it moved with the repeat." if i else "."),
            {"head": ind, "sequence": str(i + 1)},
        )
        for i, k in enumerate(ks)
    ]
    layer, h = _parse_head(prev)
    shown = min(2, n_watch) - 1
    shares = [_offset_shares(final[layer][i, h]) for i in range(n_watch)]
    presets.append(
        Preset(
            "Previous-token head",
            _previous_notice(shares, shown, final[layer][shown, h], ks[shown]),
            {"head": prev, "sequence": str(shown + 1)},
        )
    )
    return Declaration(
        name="heads",
        update=update,
        params=[
            Choice("head", opts, label="head", default=ind, option_labels=labels),
            Choice(
                "sequence",
                [str(i + 1) for i in range(n_watch)],
                label="held-out sequence",
                option_labels=[
                    f"repeat of {k}: " + " ".join(t[:k]) + " …" for t, k in zip(texts, ks)
                ],
            ),
        ],
        panels=[
            Heatmap(
                "weights",
                xlabel="tokens (keys)",
                ylabel="token now (queries)",
                rows_sum_to_one=True,
                labels_per_frame=True,
                title="where this head looks",
            )
        ],
        title="Each head's weights on a sequence it has not seen",
        presets=presets,
    )


@D.declare(run=RUN)
def heads_explorer(run: TrainRun) -> Explorer:
    """:func:`heads_declaration` as an explorer."""
    return Explorer(heads_declaration(run))


#: Steps in the moving mean of the loss curve (the opening figure, the playback, the prose)
SMOOTH_STEPS = 10


@D.declare(smooth=D.Int(ge=1))
def loss_curve(losses, smooth: int = SMOOTH_STEPS) -> np.ndarray:
    """The loss curve the chapter draws and quotes: at step ``i`` (0-based) the mean of the
    ``losses`` from ``i - smooth // 2`` to ``i + smooth // 2``, shrinking at the ends of the
    log (no padding: at the first step, the first ``smooth // 2 + 1`` steps' mean). Same
    length as ``losses``, shape ``(steps,)``."""
    try:
        losses = np.asarray(losses, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"loss_curve: losses must be a 1-D sequence of numbers; got {type(losses).__name__}"
        ) from None
    if losses.ndim != 1 or not len(losses) or not np.isfinite(losses).all():
        raise ValueError(
            f"loss_curve: losses must be a non-empty 1-D sequence of finite numbers; got "
            f"shape {losses.shape}"
        )
    total = np.concatenate([[0.0], np.cumsum(losses)])  # (steps + 1,)
    i = np.arange(len(losses))
    lo, hi = np.maximum(0, i - smooth // 2), np.minimum(len(losses), i + smooth // 2 + 1)
    return (total[hi] - total[lo]) / (hi - lo)


@D.declare(run=RUN, smooth=D.Int(ge=1))
def heads_playback_declaration(run: TrainRun, smooth: int = SMOOTH_STEPS) -> Declaration:
    """Play back ``run``: the chosen head's weights on the first watched sequence at each
    checkpoint, next to the loss on the repeat (a moving mean of ``smooth`` steps) with a
    point at the checkpoint."""
    fn = "heads_playback_declaration"
    run = _check_run(run, fn)
    smooth = as_int(smooth, "smooth", fn, min=1)
    opts, labels = _head_names(run)
    text = token_text(run.watch[0])
    losses = np.asarray(run.losses, dtype=np.float64)
    curve = loss_curve(losses, smooth)  # (steps,)
    loss_x = np.arange(1, len(losses) + 1, dtype=np.float64)
    frames = dict(zip(run.steps, run.weights))
    scores = {s: (p, q) for s, p, q in zip(run.steps, run.previous, run.induction)}

    def loss_at(step: int) -> float:
        """The loss curve's value at ``step`` (step 0: the first steps' mean)."""
        return float(curve[min(max(step, 1), len(losses)) - 1])

    def update(step: int, head: str) -> dict[str, Any]:
        layer, h = _parse_head(head)
        at = min(max(step, 1), len(losses))
        prev, ind = scores[step]
        return {
            # two short lines (38 monospace characters fit a 390 px phone): the step's loss
            # (the curve's moving mean), the chosen head's two held-out scores
            "readout": (
                f"step {step}: loss {loss_at(step):.2f} (moving mean)\nscores: induction "
                f"{ind[layer, h]:.2f}, previous {prev[layer, h]:.2f}"
            ),
            "weights": frames[step][layer][0, h],
            "loss": {"now": np.array([[float(at)], [loss_at(step)]])},
        }

    ind = _induction_head(run)
    presets = []
    if len(run.steps) >= 3:
        # the first checkpoint where the induction head has half its final score
        layer, h = _parse_head(ind)
        final = run.induction[-1][layer, h]
        half = next(
            (
                s
                for s, sc in zip(run.steps[1:-1], run.induction[1:-1])
                if sc[layer, h] >= final / 2
            ),
            None,
        )
        mid = run.steps[len(run.steps) // 2] if half is None else half
        first, last = run.steps[0], run.steps[-1]
        score = {s: float(sc[layer, h]) for s, sc in zip(run.steps, run.induction)}
        presets = [
            Preset(
                f"Step {first}",
                f"Notice: no stripe yet (induction score {score[first]:.2f}); "
                f"{_loss_words(loss_at(first), why=True)}.",
                {"step": first, "head": ind},
            ),
            Preset(
                f"Step {mid}",
                (
                    f"Notice: the stripe is half formed: the induction score first passes "
                    f"half its final {final:.2f} here ({score[mid]:.2f})."
                    if half is not None
                    else f"Notice: halfway through training this head's held-out induction "
                    f"score is {score[mid]:.2f}, against {final:.2f} at the end."
                ),
                {"step": mid, "head": ind},
            ),
            Preset(
                f"Step {last}",
                f"Notice: a sharp stripe {int(run.watch_k[0]) - 1} below the diagonal "
                f"(induction score {score[last]:.2f}); "
                f"{_loss_words(loss_at(last))}.",
                {"step": last, "head": ind},
            ),
        ]
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
            # the read-out first: on a phone it sits between the sticky controls and the map
            Caption("readout"),
            Heatmap(
                "weights",
                xlabel="tokens (keys)",
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
        presets=presets,
    )


@D.declare(run=RUN)
def heads_playback_explorer(run: TrainRun) -> Explorer:
    """:func:`heads_playback_declaration` as an explorer."""
    return Explorer(heads_playback_declaration(run))


#: The knock-out chart's two series, each named by the places its bars stand at (whatever
#: heads are zeroed, so never "copied": with both induction heads zeroed the blue bars are at
#: chance): the repeat's first token, which nothing announces, and the tokens after it.
FIRST = "place 0: cannot be copied, only guessed"
LATER = "places 1 on: can be copied"
#: its bars' width in px: about two thirds of a place (10 places on a 276 px plot)
BAR_PX = 16.0


@D.declare(run=RUN)
def ablation_declaration(run: TrainRun) -> Declaration:
    """Knock heads out: one kept/zeroed choice per head; the held-out accuracy at each place
    of the repeat (repeats of 4 to 10 tokens; place 0, which cannot be copied, in grey), and
    the mean over the places that can (1 on), for that set of heads. The presets' notices
    quote the accuracies of their own frames."""
    fn = "ablation_declaration"
    run = _check_run(run, fn)
    opts, labels = _head_names(run)
    tokens, k = run.held_out, run.held_k
    x = np.arange(0, int(k.max()), dtype=np.float64)  # place in the repeat, from 0

    def update(**kept: str) -> dict[str, Any]:
        ablate = [_parse_head(o) for o in opts if kept[o] == "zeroed"]
        acc = accuracy_by_place(run.model, tokens, k, ablate, start=0)  # (max k,)
        mean = repeated_half_accuracy(run.model, tokens, ablate, k)
        off = [lab for o, lab in zip(opts, labels) if kept[o] == "zeroed"]
        first = np.where(x == 0, acc, 0.0)  # place 0 alone, in its own colour
        return {
            "accuracy": {LATER: np.where(x == 0, 0.0, acc), FIRST: first},
            "summary": (
                f"heads zeroed: {', '.join(off) if off else 'none'}\n"
                f"accuracy on the repeats: {mean:.2f}"
            ),
        }

    last = len(run.model.layers)
    prev = _previous_head(run)
    prev_off = {o: ("zeroed" if o == prev else "kept") for o in opts}
    ind_off = {o: ("zeroed" if o.startswith(f"L{last}H") else "kept") for o in opts}

    def measured(kept: dict[str, str]) -> dict:
        ablate = [_parse_head(o) for o in opts if kept[o] == "zeroed"]
        return {
            "acc": accuracy_by_place(run.model, tokens, k, ablate, start=0),
            "mean": repeated_half_accuracy(run.model, tokens, ablate, k),
        }

    all_kept, no_prev, no_ind = (
        measured(v) for v in (dict.fromkeys(opts, "kept"), prev_off, ind_off)
    )
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
                series=[
                    # the legend in the order of the places: 0, then 1 on
                    Series(FIRST, style="bars", color="#767676", width=BAR_PX),
                    Series(LATER, style="bars", color="#0072B2", width=BAR_PX),
                ],
                xlabel="place in the repeat (0 = its first token)",
                ylabel="share predicted right",
                ylim=(0.0, 1.0),
                title="accuracy by place in the repeat",
                discrete_x=True,
            ),
            Caption("summary"),
        ],
        title="Knock heads out",
        presets=[
            Preset("All heads kept", _kept_notice(all_kept), dict.fromkeys(opts, "kept")),
            Preset(
                "Previous-token head zeroed",
                "Notice: the mean accuracy under the chart "
                + ("drops" if no_prev["mean"] < all_kept["mean"] else "does not drop")
                + f" from {all_kept['mean']:.2f} to {no_prev['mean']:.2f}: the induction heads "
                "need to know which token came before.",
                prev_off,
            ),
            Preset("Both induction heads zeroed", _zeroed_notice(no_ind), ind_off),
        ],
    )


def _kept_notice(f: dict) -> str:
    """The "all heads kept" notice, from that frame's accuracies."""
    acc, first = f["acc"][1:], f["acc"][0]
    most = "most of the tokens" if acc.min() > 0.5 else "a share of the tokens"
    return (
        f"Notice: from place 1 on, {most} are predicted right ({acc.min():.2f} to "
        f"{acc.max():.2f}); place 0 cannot be copied: {first:.2f} of its tokens are right, where "
        f"the model guesses that the sequence's first token comes again."
    )


def _zeroed_notice(f: dict) -> str:
    """The "both induction heads zeroed" notice, from that frame's accuracies."""
    top = f["acc"][1:].max()
    near = "about chance (1 in 20 = 0.05)" if top <= 0.15 else "far below the bars with them"
    return (
        f"Notice: from place 1 on the bars fall to {top:.2f} or less, {near}: nothing else in "
        f"the model copies."
    )


@D.declare(run=RUN)
def ablation_explorer(run: TrainRun) -> Explorer:
    """:func:`ablation_declaration` as an explorer."""
    return Explorer(ablation_declaration(run))
