"""Helpers the chapters' explorers share: seeded generators, slider grids, tensors to NumPy."""

from __future__ import annotations

import numpy as np
import torch

from attnlib.widgets import Slider


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _log_grid(lo: float, hi: float, n: int) -> list[float]:
    """``n`` log-spaced values from lo to hi, rounded to 3 significant digits (distinct)."""
    vals = [float(f"{v:.3g}") for v in np.geomspace(lo, hi, n)]
    if len(set(vals)) != len(vals):
        raise ValueError(f"grid {lo}..{hi} with {n} values is too dense for 3 digits")
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
