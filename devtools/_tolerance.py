"""How closely a committed number must match a fresh computation: the one tolerance policy
(issue 36), used by every test that compares what a notebook saved with what attnlib computes
today.

A number is one of two kinds:

- **exact** (``EXACT``): the same bits on every numeric path (a grid, a seeded draw, an
  elementwise formula, an integer, a string). Compared with ``==`` where both sides are
  recorded alike (the spec's 6-decimal floats), and within the recorded precision where only
  the committed side is rounded (a saved frame, quantised by the frame encoding).
- **order-dependent** (``ORDER``): it depends on the order floating-point sums are accumulated
  in, which differs by processor, SIMD width, BLAS path and thread count: anything trained or
  optimised, and long reductions. Compared within ``quantum + HEADROOM * spread``: the largest
  difference the recording alone can make (``quantum``: one unit of a 6-decimal rounding, or a
  frame's encoding step) plus 10x the largest difference measured between numeric paths
  (``MEASURED``, from ``benchmarks/numeric_spread.py``).

A tolerance below the value's recorded precision is refused (``ValueError``): comparing a
6-decimal value at ``rel=1e-6`` asks two independent roundings to agree in their last digit,
which a difference of 1e-12 before rounding already breaks (0.397003 vs 0.397004 on an AVX-512
Xeon). ``make test`` runs the saved-state comparisons under every path this processor offers
(:func:`numeric_paths`; tests/book/test_numeric_paths.py), so a spread larger than recorded
fails there, not on a contributor's machine.

Which comparisons use it: tests/book/test_saved_state.py (each published explorer's saved spec
and frames against a fresh build) and tests/browser/_frames.py (what a page draws against
attnlib, a stored frame being a committed one). nbval compares text outputs exactly: the
chapters print only exact numbers in compared cells (trained ones are glued in
``nbval-ignore-output`` cells, tests/book/test_trained_numbers.py), and nbval runs them under
another numeric path (the Makefile's NBVAL_ENV) to prove it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

EXACT = "exact"
ORDER = "accumulation order"
#: A tolerance is at least this many times the largest spread measured between numeric paths.
HEADROOM = 10.0
#: One unit in the last place of the spec's floats (attnlib.widgets.series._round_list: 6
#: decimals): two values 1e-12 apart can round 1e-6 apart.
ROUNDED_6 = 1e-6
#: Float64 slack of decoding a frame (offset + q * scale) and of comparing after it.
DECODE_SLACK = 1e-12

# ----------------------------------------------------------------------------- measured spreads

#: Largest absolute difference between the plain path and any other numeric path, per
#: published explorer, of its spec's floats before rounding (``spec``) and of the frames the
#: test samples (``frames``). Measured with ``.venv/bin/python benchmarks/numeric_spread.py``
#: on MEASURED_ON. 0.0: the same bits on every path (exact).
MEASURED: dict[str, dict[str, float]] = {
    # name: {"spec": spread, "frames": spread}  # the widest pair of paths, and where
    "softmax_temperature": {"spec": 0.0, "frames": 2.1e-7},  # weights: default vs avx2 (exp)
    "soft_lookup": {"spec": 0.0, "frames": 0.0},
    "kernel_regression": {"spec": 4.5e-16, "frames": 0.0},  # one ulp of the fit's x grid
    "bandwidth_training": {"spec": 4.8e-7, "frames": 1.2e-6},  # 100 Adam steps, float32
    "masking": {"spec": 0.0, "frames": 0.0},
    "additive_attention": {"spec": 3.0e-6, "frames": 2.4e-7},  # the scores' axis limit
    "scaling": {"spec": 0.0, "frames": 5.0e-5},  # a q.k sample crossing a histogram bin edge
    "scoring_comparison": {"spec": 0.0, "frames": 0.0},
    "long_key": {"spec": 0.0, "frames": 0.0},
    "scaling_d": {"spec": 4.5e-16, "frames": 7.8e-16},  # entropy means, weights: mkl vs default
    "decode_step": {"spec": 0.0, "frames": 0.0},
}
MEASURED_ON = (
    "2026-11-27, Intel Xeon with AVX-512 (2 cores), torch 2.13.0+cpu (MKL 2024.2), paths plain "
    "(AVX512), ATEN_CPU_CAPABILITY=default/avx2/avx512, MKL_CBWR=COMPATIBLE, OMP_NUM_THREADS=1"
)


@dataclass(frozen=True)
class Tolerance:
    """How closely one kind of committed number must match a fresh one.

    Args:
        kind: ``EXACT`` or ``ORDER``.
        quantum: the largest difference the recording alone makes between two values equal
            before it (one unit of a rounding, a frame's encoding step); 0 when neither side
            is rounded.
        spread: the largest difference measured between numeric paths (``ORDER`` only).
        what: what is compared, for messages.
        atol: the absolute tolerance; by default ``quantum + HEADROOM * spread`` (``ORDER``)
            or ``quantum`` (``EXACT``). A value below that is refused (ValueError).
    """

    kind: str
    quantum: float
    spread: float = 0.0
    what: str = ""
    atol: float | None = None

    def __post_init__(self):
        if self.kind not in (EXACT, ORDER):
            raise ValueError(f"Tolerance: kind must be {EXACT!r} or {ORDER!r}; got {self.kind!r}")
        for name in ("quantum", "spread"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise ValueError(f"Tolerance: {name} must be a finite number >= 0; got {v!r}")
        if self.kind == EXACT and self.spread:
            raise ValueError(
                f"Tolerance ({self.what}): an exact value has no spread between numeric paths; "
                f"got spread={self.spread:g} (make it {ORDER!r})"
            )
        floor = self.quantum + (HEADROOM * self.spread if self.kind == ORDER else 0.0)
        if self.atol is None:
            object.__setattr__(self, "atol", floor)
        else:
            check_not_tighter(self.atol, 0.0, 0.0, floor, self.what or "Tolerance")

    def close(self, saved: float, fresh: float) -> bool:
        return abs(float(saved) - float(fresh)) <= self.atol + DECODE_SLACK


def check_not_tighter(atol: float, rel: float, at: float, floor: float, where: str) -> None:
    """Refuses (ValueError) a comparison ``|a - b| <= max(atol, rel * |at|)`` that is tighter
    than ``floor``: the recorded precision (and, for an order-dependent value, 10x its measured
    spread)."""
    allowed = max(atol, rel * abs(at))
    if allowed < floor:
        raise ValueError(
            f"{where}: the comparison allows {allowed:.3g} (atol={atol:g}, rel={rel:g} at "
            f"{at:g}), tighter than the value's recorded precision and measured spread "
            f"({floor:.3g}): it would fail on another processor; use devtools/_tolerance.py"
        )


def spec_tolerance(explorer: str) -> Tolerance:
    """The tolerance for a published explorer's spec floats (6 decimals on both sides)."""
    spread = _measured(explorer)["spec"]
    kind = ORDER if spread else EXACT
    return Tolerance(kind, ROUNDED_6 if kind == ORDER else 0.0, spread, f"{explorer} spec")


def frame_tolerance(explorer: str, quantum: float) -> Tolerance:
    """The tolerance for a saved frame (encoded with step ``2 * quantum``) against a fresh
    ``Declaration.compute``."""
    spread = _measured(explorer)["frames"]
    return Tolerance(ORDER if spread else EXACT, quantum, spread, f"{explorer} frames")


def page_tolerance(explorer: str, quantum: float, *, trained: bool) -> Tolerance:
    """What a page draws (tests/browser/_frames.py) against attnlib: the page's own numbers
    (float32, or a stored frame decoded) are within ``quantum`` of what they stand for; a
    stored frame of an explorer the test rebuilds is a committed number, so its measured spread
    between numeric paths is added. A trained explorer's page is compared with the frames its
    notebook saved (``trained``): the same committed numbers on both sides, no spread."""
    if trained:
        return Tolerance(EXACT, quantum, what=f"{explorer} page")
    return frame_tolerance(explorer, quantum)


def _measured(explorer: str) -> dict[str, float]:
    if explorer not in MEASURED:
        raise KeyError(
            f"devtools/_tolerance.py: no spread measured for explorer {explorer!r}; run "
            f"benchmarks/numeric_spread.py and record it in MEASURED"
        )
    return MEASURED[explorer]


def encoding_quantum(enc: dict) -> float:
    """The largest error a saved frame encoding adds (half its step; 0 for integers)."""
    return 0.0 if enc["scale"] == 1.0 and enc["bits"] == 16 else enc["scale"] / 2


# ----------------------------------------------------------------------------- comparisons

_NUM = re.compile(r"-?\d+\.\d+|-?\d+")


def compare_json(saved, fresh, tol: Tolerance, where: str) -> None:
    """Asserts JSON-like ``saved`` is ``fresh`` under ``tol``: same keys, lengths, strings and
    integers; floats equal (``EXACT``) or within ``tol.atol`` (``ORDER``). In an order-dependent
    value's strings the numbers may differ by one unit of their printed decimals plus
    ``HEADROOM * spread``; the rest of the text must be equal."""
    if isinstance(fresh, dict):
        assert isinstance(saved, dict) and saved.keys() == fresh.keys(), (
            f"{where}: keys {sorted(saved) if isinstance(saved, dict) else saved!r} "
            f"vs {sorted(fresh)}"
        )
        for k in fresh:
            compare_json(saved[k], fresh[k], tol, f"{where}.{k}")
    elif isinstance(fresh, (list, tuple)):
        assert isinstance(saved, (list, tuple)) and len(saved) == len(fresh), where
        for i, (a, b) in enumerate(zip(saved, fresh)):
            compare_json(a, b, tol, f"{where}[{i}]")
    elif isinstance(fresh, float) or isinstance(saved, float):
        ok = saved == fresh if tol.kind == EXACT else tol.close(saved, fresh)
        assert ok, f"{where}: {saved} vs {fresh} ({tol.kind}, atol {tol.atol:.3g})"
    elif isinstance(fresh, str) and isinstance(saved, str) and tol.kind == ORDER:
        a, b = _NUM.split(saved), _NUM.split(fresh)
        na, nb = _NUM.findall(saved), _NUM.findall(fresh)
        assert a == b and len(na) == len(nb), f"{where}: {saved!r} vs {fresh!r}"
        for x, y in zip(na, nb):
            decimals = len(y.partition(".")[2])
            unit = Tolerance(ORDER, 10.0**-decimals, tol.spread, where)
            assert unit.close(float(x), float(y)), f"{where}: {saved!r} vs {fresh!r} ({x} vs {y})"
    else:
        assert saved == fresh, f"{where}: {saved!r} vs {fresh!r}"


def assert_array_close(got, want, tol: Tolerance, where: str) -> None:
    """Asserts arrays equal in shape and within ``tol.atol`` (plus decoding slack)."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, f"{where}: shape {got.shape} vs {want.shape}"
    err = float(np.max(np.abs(got - want))) if got.size else 0.0
    assert err <= tol.atol + DECODE_SLACK, (
        f"{where}: differs by {err:.3g}, more than {tol.atol:.3g} ({tol.kind}: recorded "
        f"precision {tol.quantum:.3g}, measured spread {tol.spread:.3g} x {HEADROOM:g})"
    )


# ----------------------------------------------------------------------------- numeric paths


def cpu_flags(cpuinfo: str | Path = "/proc/cpuinfo") -> set[str]:
    """The processor's feature flags (``avx2``, ``avx512f``, ...) from ``/proc/cpuinfo``."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return set()


#: what torch.backends.cpu.get_cpu_capability() reports under each ATEN_CPU_CAPABILITY
CAPABILITY = {"default": "DEFAULT", "avx2": "AVX2", "avx512": "AVX512"}


def numeric_paths(flags: set[str] | None = None) -> dict[str, dict[str, str]]:
    """``{name: environment}`` of every numeric path this processor offers: the plain one,
    ATen's portable kernels, AVX2 and AVX-512 where the flags have them, MKL's reproducible
    path, and one thread (a reduction split over two threads sums in another order)."""
    flags = cpu_flags() if flags is None else flags
    paths = {"plain": {}, "default": {"ATEN_CPU_CAPABILITY": "default"}}
    if "avx2" in flags:
        paths["avx2"] = {"ATEN_CPU_CAPABILITY": "avx2"}
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        paths["avx512"] = {"ATEN_CPU_CAPABILITY": "avx512"}
    paths["mkl-compatible"] = {"MKL_CBWR": "COMPATIBLE"}
    paths["one-thread"] = {"OMP_NUM_THREADS": "1"}
    return paths
