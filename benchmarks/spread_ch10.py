"""Chapter 10's trained numbers over seeds and numeric paths: the spread behind its claims.

Trains chapter 10's attention-only model (scoringbook.ch10_model.train, 400 steps, one
thread) for each seed in a fresh process under each numeric environment of ``ENVS`` and
prints, for every quantity ``scoringbook.claims.multihead_claims`` asserts, its minimum and
maximum over all runs. About 10 s per run; 5 seeds x 4 environments take about 4 minutes.

    python benchmarks/spread_ch10.py             # seeds 0-4, all environments
    python benchmarks/spread_ch10.py --seeds 2
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys

#: name -> environment variables selecting another CPU kernel path (set before torch loads)
ENVS = {
    "default": {},
    "aten-default": {"ATEN_CPU_CAPABILITY": "default"},
    "aten-avx2": {"ATEN_CPU_CAPABILITY": "avx2"},
    "mkl-compatible": {"MKL_CBWR": "COMPATIBLE"},
}


def run_one(seed: int) -> dict:
    """Train chapter 10's model with ``seed``; return every asserted quantity."""
    import torch

    from scoringbook import ch10_model as m

    torch.set_num_threads(1)
    run = m.train(seed=seed)
    s = m.head_scores(run.model, run.held_out, run.held_k)
    table = m.ablation_table(run.model, run.held_out, run.held_k)
    by = m.scores_by_length(run.model, (5, 7, 10))
    full, _ = m.repeats_of_length(256, 10, torch.Generator().manual_seed(5))
    loss = m.loss_by_position(run.model, full)
    best = int(s["previous"][0].argmax())
    out = {
        "path": torch.backends.cpu.get_cpu_capability(),
        "loss_start": sum(run.losses[:10]) / 10,
        "loss_end": sum(run.losses[-10:]) / 10,
        "accuracy": table["none"],
        "prev_head": float(s["previous"][0].max()),
        "induction": float(s["induction"][1].min()),
        "l2_not_prev": float(s["previous"][1].max()),
        "ablation": table["none"] - table[f"L1H{best + 1}"],
        "both_induction_zeroed": m.repeated_half_accuracy(
            run.model, run.held_out, [(1, 0), (1, 1)], run.held_k
        ),
        "early_minus_late": float(loss[:9].mean() - loss[10:].mean()),
        "early_above_guessing": float(loss[:9].mean()) - math.log(20),
    }
    for k, v in by.items():
        out[f"induction_k{k}"] = float(v["induction"][1].min())
        if k != 10:
            out[f"not_nine_back_k{k}"] = float(v["nine_back"][1].max())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # child: one seed
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(run_one(args.one)))
        return
    rows = []
    for name, env in ENVS.items():
        for seed in range(args.seeds):
            done = subprocess.run(
                [sys.executable, __file__, "--one", str(seed)],
                env={**os.environ, **env},
                capture_output=True,
                text=True,
                check=True,
            )
            rows.append({"env": name, "seed": seed, **json.loads(done.stdout)})
            print(name, seed, rows[-1]["path"], file=sys.stderr)
    for key in [k for k in rows[0] if k not in ("env", "seed", "path")]:
        values = [r[key] for r in rows]
        print(f"{key:>24}: {min(values):.3f} .. {max(values):.3f}")


if __name__ == "__main__":
    main()
