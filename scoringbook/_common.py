"""Helpers the chapters' explorers share: seeded generators, slider grids, tensors to NumPy, and
the panels of a drag-and-compare explorer (chapters 5 and 6: one point dragged in the plane,
one row of weights per scoring function)."""

from __future__ import annotations

import contextlib

import numpy as np
import torch

from attnlib import domains as D
from attnlib.domains import as_int, as_real, as_seed
from attnlib.widgets import FixedSeries, Handle, Heatmap, Lines, Preset, Slider
from attnlib.widgets.live_scores import LIVE_SCORES

__all__ = [
    "_read_out",
    "_compare_panels",
    "_distinct_presets",
    "_generator",
    "_log_grid",
    "_nearest",
    "_np",
    "_query_sliders",
    "_seed",
    "_count",
    "_real",
    "_ints",
]


def _read_out(x: float) -> str:
    """A positive number as the book reads it out on a slider: two decimals ("0.49", "5.00"),
    and below 0.1 two significant figures ("0.061", "0.013"), so that neighbouring values of
    a log-spaced slider stay apart (0.01 and 0.013 are both "0.01" at two decimals). The
    callers (``sigma_text``, chapter 1's temperatures) check that ``x`` is finite and > 0."""
    return f"{x:.2f}" if x >= 0.0995 else f"{x:.2g}"


def _seed(value: object, fn: str) -> int:
    """A builder's ``seed``: an int (numpy ints and 0-d tensors too; not a bool)."""
    return as_seed(value, "seed", fn)


#: an explorer is precomputed or drawn on a page: a size past this is a mistake, refused at once
#: (rather than a MemoryError or a run of hours later)
MAX_COUNT = 10**6


def _count(value: object, name: str, fn: str, min: int = 1) -> int:
    """A builder's size (``n_keys``, ``steps``, ...): an int in [min, MAX_COUNT]."""
    return as_int(value, name, fn, min=min, max=MAX_COUNT)


#: the domains the builders declare (attnlib.domains), shared: a seed, a size in
#: [1, MAX_COUNT] (COUNT0: from 0), a list of sizes >= 1 (distinct: checked by _ints), a number > 0
SEED = D.Seed()
COUNT = D.Int(ge=1, le=MAX_COUNT)
COUNT0 = D.Int(ge=0, le=MAX_COUNT)
SIZES = D.Seq(D.Int(ge=1, le=MAX_COUNT), min_len=1)
POSITIVE = D.Real(gt=0)


def _real(value: object, name: str, fn: str, **bounds) -> float:
    """A builder's number (``noise``, ``lr``, ``radius``, ...): finite, within ``bounds``."""
    return as_real(value, name, fn, **bounds)


def _ints(value: object, name: str, fn: str) -> tuple[int, ...]:
    """A builder's list of sizes (``dims``, ``hiddens``): distinct ints >= 1, at least one."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(
            f"{fn}: {name} must be a list of ints; got {value!r} ({type(value).__name__})"
        )
    out = tuple(as_int(v, f"{name}[{i}]", fn, min=1) for i, v in enumerate(value))
    if not out:
        raise ValueError(f"{fn}: {name} must hold at least one value; got {value!r}")
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: {name} must hold distinct values; got {list(out)}")
    return out


@contextlib.contextmanager
def named_as(inner: str, outer: str):
    """Inside the block, a refusal that names ``inner`` (the builder a thin wrapper calls) is
    raised again naming ``outer`` (the function the caller called), same type and words."""
    try:
        yield
    except (TypeError, ValueError) as exc:
        text = str(exc)
        if not text.startswith(f"{inner}:"):
            raise
        raise type(exc)(outer + text[len(inner) :]) from None


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _log_grid(lo: float, hi: float, n: int, name: str = "n", fn: str = "grid") -> list[float]:
    """``n`` log-spaced values from lo to hi, rounded to 3 significant digits (distinct)."""
    vals = [float(f"{v:.3g}") for v in np.geomspace(lo, hi, n)]
    if len(set(vals)) != len(vals):
        raise ValueError(
            f"{fn}: {name} = {n} values from {lo:g} to {hi:g} are too dense to tell apart at 3 "
            f"significant digits; got {name}={n}"
        )
    return vals


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float64)


def _query_sliders(x: float, y: float) -> list[Slider]:
    """The two sliders a dragged query is bound to: [-2.5, 2.5] in steps of 0.05 each."""
    grid = [round(-2.5 + 0.05 * i, 2) for i in range(101)]
    return [
        Slider(
            f"query_{axis}",
            grid,
            label=f"query {axis}",
            default=v,
            value_labels=[f"{g:.2f}" for g in grid],
        )
        for axis, v in (("x", x), ("y", y))
    ]


def _nearest(values, v: float) -> float:
    """The value of a slider's grid nearest to ``v`` (a preset names a point of the grid)."""
    return min(values, key=lambda g: abs(g - v))


def _distinct_presets(*presets: Preset) -> list[Preset]:
    """The presets in order, without one whose label an earlier one already has. A builder
    that writes labels from its arguments (``f"d = {max(dims)}"``) repeats a label when those
    arguments coincide (one ``dims`` value, ``hiddens`` with fewer than three), and a
    declaration refuses repeated labels: the repeat, which would show the same setting
    again, is dropped instead."""
    kept: list[Preset] = []
    for p in presets:
        if all(p.label != q.label for q in kept):
            kept.append(p)
    return kept


def _compare_panels(
    *,
    plane: str,
    title: str,
    radius: float,
    circle: str,
    points: list[FixedSeries],
    lim: float,
    handle: Handle,
    rows,
    score_kwargs: dict,
    ylabel: str,
) -> list:
    """The two panels of a drag-and-compare explorer: the plane (a dashed circle of
    ``radius`` named ``circle``, then ``points``, on ``[-lim, lim]`` both ways, equal scales,
    with ``handle`` to drag) and the weights, one row per scoring function of ``rows``
    labelled by :data:`~attnlib.widgets.live_scores.LIVE_SCORES` with ``score_kwargs`` and
    d = 2 (the page computes them: :class:`attnlib.widgets.live.LiveAttention`). The spoken
    line reads the dot-product row (the one the notices compare the others with) until the
    reader points at another."""
    ring = np.linspace(0, 2 * np.pi, 61)
    return [
        Lines(
            plane,
            xlabel="feature 1",
            ylabel="feature 2",
            title=title,
            fixed=[
                FixedSeries(
                    circle,
                    radius * np.cos(ring),
                    radius * np.sin(ring),
                    dash="3 3",
                    color="#888888",
                ),
                *points,
            ],
            xlim=(-lim, lim),
            ylim=(-lim, lim),
            equal_aspect=True,
            handle=handle,
        ),
        Heatmap(
            "weights",
            xlabel="keys",
            ylabel=ylabel,
            rows_sum_to_one=True,
            title="weights, one row per scoring function",
            row_labels=[LIVE_SCORES[n].row_label(score_kwargs[n], d=2) for n in rows],
            read_row=list(rows).index("dot") if "dot" in rows else None,
        ),
    ]
