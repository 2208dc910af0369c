"""The spread of chapter 7's permutation test (Jain and Wallace, 2019) over seeds and numeric
environments: the bounds of ``scoringbook.claims.permutation_claims``.

Trains chapter 7's date model as the chapter does (seed 0 is the chapter's own recipe; seed s:
initial weights s, minibatches s + 1), each run in a fresh process under one numeric
environment of ``spread_trained.ENVS``, then, for each output row, shuffles that row's weights
over the valid inputs with ``PERMUTATIONS`` generators (``ch07_dates.permuted_rows``) and
counts the held-out dates still right, next to the uniform row of ``seq2seq.uniform_rows``.
Prints each claim's bound and its range over the runs; fails if one breaks.

    python benchmarks/spread_permutation.py                      # 3 seeds x 3 environments
    python benchmarks/spread_permutation.py --seeds 2 --envs default
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(__file__))
import spread_trained  # noqa: E402
from spread_trained import ENVS  # noqa: E402

#: permutation generators per row, seeded 0, 1, ...: the chapter uses as many
PERMUTATIONS = 5


def run_one(seed: int) -> dict:
    """Train chapter 7's model with ``seed``; the uniform and permuted rows' exact matches."""
    import torch

    from scoringbook import ch07_dates as dates
    from scoringbook import seq2seq as s2s

    torch.set_num_threads(1)
    data_gen = torch.Generator().manual_seed(0)
    train_dates = dates.random_dates(5000, data_gen)
    train_sources = dates.random_sources(train_dates, data_gen)
    test_dates, test_sources = dates.held_out_examples(1000, data_gen, train_sources)
    src, lens = dates.encode_sources(train_sources)
    tgt = dates.encode_targets([dates.format_target(d) for d in train_dates])
    torch.manual_seed(seed)
    model = dates.DateModel(attention=True, embed_size=16, num_hiddens=32)
    model(src[:2], lens[:2], tgt[:2])
    s2s.train(model, src, lens, tgt, steps=200, batch_size=64, lr=0.01,
              generator=torch.Generator().manual_seed(seed + 1))  # fmt: skip
    targets = [dates.format_target(d) for d in test_dates]

    def exact() -> float:
        predicted, _ = dates.translate(model, test_sources)
        return sum(p == t for p, t in zip(predicted, targets)) / len(targets)

    uniform, permuted = [], []
    for row in range(10):
        with s2s.uniform_rows(model, [row]):
            uniform.append(exact())
        runs = []
        for k in range(PERMUTATIONS):
            with dates.permuted_rows(model, [row], torch.Generator().manual_seed(k)):
                runs.append(exact())
        permuted.append(runs)
    return {"uniform": uniform, "permuted": permuted}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--envs", nargs="+", default=["default", "aten-default", "mkl-compatible"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="_build/spread_permutation.json")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child: one seed, JSON out
    ap.add_argument("--summary", help="summarise the runs saved in this JSON file, train nothing")
    args = ap.parse_args()
    if args.summary:
        with open(args.summary) as f:
            summarise(json.load(f))
        return
    if args.one is not None:
        json.dump(run_one(args.one), sys.stdout)
        return

    def child(job):
        env, seed = job
        res = subprocess.run(
            [sys.executable, __file__, "--one", str(seed)],
            env={**os.environ, **ENVS[env]},
            capture_output=True,
            text=True,
            check=True,
        )
        print(f"done: {env} seed {seed}", file=sys.stderr, flush=True)
        return {"env": env, "seed": seed, **json.loads(res.stdout)}

    jobs = [(env, seed) for env in args.envs for seed in range(args.seeds)]
    with ThreadPoolExecutor(args.jobs) as pool:
        runs = list(pool.map(child, jobs))
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(runs, f)
    print(f"{len(runs)} runs written to {args.out}")
    summarise(runs)


def permutation_run_claims(run: dict) -> list:
    """The permutation claims on one run's numbers (uniform rows and permuted rows)."""
    import torch

    from scoringbook import claims as c

    permuted = torch.tensor(run["permuted"])  # (10, PERMUTATIONS)
    return c.permutation_claims(torch.tensor(run["uniform"]), permuted)


def summarise(runs: list[dict]) -> None:
    """Each claim's bound and range over the runs (and over each row's permutations)."""
    spread_trained.summarise(runs, permutation_run_claims)


if __name__ == "__main__":
    main()
