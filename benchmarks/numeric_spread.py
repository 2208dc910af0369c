"""How far the numbers the tests compare with committed ones move between numeric paths.

Each published explorer (tests/book/test_saved_state.py's PUBLISHED) is built in a fresh
interpreter under every numeric path this processor offers (tests/_tolerance.py's
``numeric_paths``: ATen's dispatch, ``ATEN_CPU_CAPABILITY=default/avx2/avx512``, MKL's
reproducible path ``MKL_CBWR=COMPATIBLE``, and one thread against the default two), and the
script prints, per explorer and per kind of value, the largest difference between any two
paths (the spread):

- ``spec``: the floats of the explorer's spec (fixed curves, axes, labels' numbers), taken
  *before* the spec rounds them to 6 decimals, so the spread is the computation's own;
- ``frames``: the frames the test samples (every ``n_frames // 40``-th), as
  ``Declaration.compute`` returns them (not yet encoded).

    .venv/bin/python benchmarks/numeric_spread.py            # the table
    .venv/bin/python benchmarks/numeric_spread.py --json     # the same, as JSON

The spreads recorded in tests/_tolerance.py (``MEASURED``) come from this script; a tolerance
there is at least 10x the largest spread. About 1 min on 2 cores (a subprocess per path).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def _flat(value, key: str, out: dict) -> None:
    """Every number of a JSON-like value, by its path (strings: their numbers in order)."""
    import numpy as np

    if isinstance(value, dict):
        for k, v in value.items():
            _flat(v, f"{key}.{k}", out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _flat(v, f"{key}[{i}]", out)
    elif isinstance(value, np.ndarray):
        for i, v in enumerate(np.asarray(value, dtype=float).reshape(-1)):
            out[f"{key}[{i}]"] = float(v)
    elif isinstance(value, bool) or value is None or isinstance(value, str):
        return
    elif isinstance(value, (int, float, np.floating, np.integer)):
        out[key] = float(value)


def dump() -> dict:
    """In the child: ``{explorer: {"spec": {...}, "frames": {...}, "path": capability}}``."""
    import numpy as np

    import attnlib.widgets.panels as panels
    import attnlib.widgets.series as series

    def unrounded(a, decimals: int = 6):
        return [float(v) for v in np.asarray(a, dtype=np.float64).reshape(-1)]

    series._round_list = panels._round_list = unrounded  # the spec's floats before rounding
    import torch
    from book.test_saved_state import PUBLISHED

    from scoringbook.registry import EXPLORERS

    out = {}
    for names in PUBLISHED.values():
        for name in names:
            ex = EXPLORERS[name]()
            spec: dict = {}
            _flat(ex.spec, "spec", spec)
            frames: dict = {}
            decl = ex.declaration
            if decl.live is None:
                for i, params in list(decl.grid())[:: max(1, decl.n_frames // 40)]:
                    _flat(decl.compute(**params), f"frame{i}", frames)
            out[name] = {"spec": spec, "frames": frames}
    out["_path"] = {"capability": torch.backends.cpu.get_cpu_capability()}
    return out


def measure() -> dict:
    """``{"paths": {name: env}, "spread": {explorer: {kind: {"abs", "rel", "where"}}}}``."""
    from _tolerance import numeric_paths

    runs = {}
    for name, env in numeric_paths().items():
        full = {**os.environ, **env, "PYTHONHASHSEED": "0"}
        r = subprocess.run(
            [sys.executable, __file__, "--child"],
            env=full,
            capture_output=True,
            text=True,
            check=True,
        )
        runs[name] = json.loads(r.stdout)
    base = runs["plain"]
    spread: dict = {}
    for ex, kinds in base.items():
        if ex == "_path":
            continue
        for kind, ref in kinds.items():
            row = spread.setdefault(ex, {}).setdefault(kind, {"abs": 0.0, "rel": 0.0})
            for name, run in runs.items():
                assert run[ex][kind].keys() == ref.keys(), f"{name}: {ex} {kind} keys differ"
            for k, v in ref.items():
                got = {name: run[ex][kind][k] for name, run in runs.items()}
                d = max(got.values()) - min(got.values())  # the widest pair of paths
                if d > row["abs"]:
                    lo, hi = min(got, key=got.get), max(got, key=got.get)
                    row.update(abs=d, where=f"{k}: {lo} vs {hi}")
                if d:
                    row["rel"] = max(row["rel"], d / max(abs(v), 1e-300))
    return {
        "paths": {
            n: {"env": e, "capability": runs[n]["_path"]["capability"]}
            for n, e in numeric_paths().items()
        },  # fmt: skip
        "spread": spread,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(dump()))
        return
    result = measure()
    if args.json:
        print(json.dumps(result, indent=1))
        return
    for n, p in result["paths"].items():
        print(f"path {n:12s} ATen {p['capability']:8s} env {p['env']}")
    print(f"\n{'explorer':22s} {'kind':7s} {'max abs':>10s} {'max rel':>10s}  where")
    for ex, kinds in result["spread"].items():
        for kind, row in kinds.items():
            print(
                f"{ex:22s} {kind:7s} {row['abs']:10.2e} {row['rel']:10.2e}  {row.get('where', '')}"
            )


if __name__ == "__main__":
    main()
