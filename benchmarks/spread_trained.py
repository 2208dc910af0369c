"""The spread of the book's trained numbers over seeds and numeric environments.

A trained number is a measurement: it differs by processor, thread count and library build
(issue 25). The chapters therefore glue each one from their own run and assert only the
claims their prose draws, with margins taken from the spread this script measures. It trains
what the chapters train, for ``--seeds`` seeds, each in a fresh process under each numeric
environment of ``ENVS`` (environment variables that select other CPU kernels, so that one
machine shows what another processor would), and prints, for every quantity a chapter
asserts, its minimum and maximum over all runs, next to the bound the chapter asserts.

    python benchmarks/spread_trained.py                # 5 seeds x 3 environments
    python benchmarks/spread_trained.py --seeds 2 --envs default

Seed 0 is the chapter's own recipe (chapter 7: initial weights seeded with 0, minibatches
with 1; seed s: s and s + 1). The data sets stay the chapter's. Runs take about a minute
each on one thread; ``--jobs`` runs that many at once.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

#: The chapters whose trained numbers this script measures (their stems in
#: scoringbook/manifest.py, which lists every chapter with a trained section;
#: tests/book/test_manifest.py checks these are such chapters). Chapters 6 and 9 measure their
#: own spread in their notebooks and tests.
MEASURED_HERE = ("02_attention_pooling", "07_bahdanau_attention", "08_attention_and_length")

#: name -> environment variables: numeric environments that change the training trajectory
#: on one machine (measured: each alone changes chapter 7's losses after 200 steps).
ENVS = {
    "default": {},
    "aten-default": {"ATEN_CPU_CAPABILITY": "default"},
    "mkl-compatible": {"MKL_CBWR": "COMPATIBLE"},
    "both": {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"},
}


def run_one(seed: int) -> dict:
    """Train what the chapters train with ``seed``; return every asserted quantity."""
    import torch

    from scoringbook import ch07_dates, ch08_numbers
    from scoringbook import ch08_lengths as experiment
    from scoringbook import seq2seq as s2s
    from scoringbook.ch02_attention_pooling import _bandwidth_runs

    torch.set_num_threads(1)
    out: dict = {}
    # chapter 2: the learned bandwidth (its data is the chapter's: seed 0 for every run)
    _, _, bw = _bandwidth_runs(0, 50, 100, 0.1)  # {exclude_self: (bandwidths, losses)}
    out["ch02"] = {"loo": [list(map(float, x)) for x in bw[True]],
                   "naive": [list(map(float, x)) for x in bw[False]]}  # fmt: skip
    # chapter 7, the date model
    data_gen = torch.Generator().manual_seed(0)
    train_dates = ch07_dates.random_dates(5000, data_gen)
    train_sources = ch07_dates.random_sources(train_dates, data_gen)
    test_dates, test_sources = ch07_dates.held_out_examples(1000, data_gen, train_sources)
    src, lens = ch07_dates.encode_sources(train_sources)
    tgt = ch07_dates.encode_targets([ch07_dates.format_target(d) for d in train_dates])
    torch.manual_seed(seed)
    model = ch07_dates.DateModel(attention=True, embed_size=16, num_hiddens=32)
    model(src[:2], lens[:2], tgt[:2])
    watch = "Thursday, 5 November 2026"
    log = s2s.train(
        model, src, lens, tgt, steps=200, batch_size=64, lr=0.01,
        generator=torch.Generator().manual_seed(seed + 1),
        watch=ch07_dates.encode_sources([watch]), every=10,
    )  # fmt: skip
    out["date"] = date_report(s2s, model, log, test_sources, test_dates)
    # chapter 8, the length experiment
    num_gen = torch.Generator().manual_seed(2)
    train_numbers = ch08_numbers.random_numbers(10_000, 1, ch08_numbers.TRAIN_MAX, num_gen)
    tests, _ = ch08_numbers.test_sets(train_numbers, num_gen)  # as the chapter draws them
    n_src, n_lens = ch08_numbers.encode_spoken(train_numbers)
    n_tgt = ch08_numbers.encode_digits(train_numbers)
    _, results = experiment.compare_models(n_src, n_lens, n_tgt, tests, seed=seed)
    out["lengths"] = {name: r.tolist() for name, r in results.items()}
    return out


def date_report(s2s, model, log, test_sources, test_dates) -> dict:
    """What chapter 7 computes from its date model, as its cells compute it."""
    import torch

    from scoringbook import ch07_dates

    rep = {"losses": log.losses, "acc": ch07_dates.accuracy(model, test_sources, test_dates)}
    _, w = ch07_dates.translate(model, test_sources[:200])  # (200, 10, n_in)
    share = torch.zeros(10)
    for b, src in enumerate(test_sources[:200]):
        needed = ch07_dates.implied_alignment(src) > 0  # (10, len(src))
        share += (w[b, :, : len(src)] * needed).sum(dim=1)
    rep["share"] = (share / 200).tolist()
    targets = [ch07_dates.format_target(d) for d in test_dates]
    exact, right = [], []
    for row in range(10):
        with s2s.uniform_rows(model, [row]):
            predicted, _ = ch07_dates.translate(model, test_sources)
        exact.append(sum(p == t for p, t in zip(predicted, targets)) / len(targets))
        right.append(sum(p[row] == t[row] for p, t in zip(predicted, targets)) / len(targets))
    rep["causal_exact"], rep["causal_right"] = exact, right
    rep["weekday"] = [w[0, :, :9].sum(dim=1).tolist() for _, w in log.checkpoints]
    rep["checkpoints"] = [w[0].tolist() for _, w in log.checkpoints]
    return rep


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--envs", nargs="+", default=["default", "aten-default", "mkl-compatible"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="_build/spread_trained.json")
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
    jobs = [(env, seed) for env in args.envs for seed in range(args.seeds)]

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

    with ThreadPoolExecutor(args.jobs) as pool:
        runs = list(pool.map(child, jobs))
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(runs, f)
    print(f"{len(runs)} runs written to {args.out}")
    summarise(runs)


def run_claims(run: dict) -> list:
    """Every claim of the chapters, evaluated on one run's numbers."""
    import torch

    from scoringbook import ch07_dates
    from scoringbook import claims as c

    d = run["date"]
    checkpoints = [(10 * i if i < 20 else 200, torch.tensor([w])) for i, w in enumerate(
        d["checkpoints"])]  # fmt: skip
    implied = ch07_dates.implied_alignment("Thursday, 5 November 2026")
    lengths = {name: torch.tensor([r]) for name, r in run["lengths"].items()}  # (1, 16, 2)
    return [
        *c.bandwidth_claims(run["ch02"]["loo"], run["ch02"]["naive"]),
        *c.date_claims(d["acc"], torch.tensor(d["share"]), torch.tensor(d["causal_exact"])),
        *c.playback_claims(d["losses"], checkpoints, implied),
        *c.length_claims(lengths),
    ]


def summarise(runs: list[dict], claims_of=None) -> None:
    """Print each claim's bound and its measured range over the runs; fail if one breaks.

    ``claims_of(run)`` gives one run's claims (default: :func:`run_claims`, every chapter's)."""
    claims_of = claims_of or run_claims
    table: dict[str, list] = {}
    for run in runs:
        for claim in claims_of(run):
            table.setdefault(claim.name, []).append(claim)
    print(f"\n{len(runs)} runs ({sorted({r['env'] for r in runs})}, seeds "
          f"{sorted({r['seed'] for r in runs})})\n")  # fmt: skip
    print(f"| claim | bound | min | max | worst margin | says |\n|{' --- |' * 6}")
    broken = []
    for name, cs in table.items():
        values = [x.value for x in cs]
        worst = min(cs, key=lambda x: x.margin)
        print(
            f"| {name} | {cs[0].op} {cs[0].bound} | {min(values):.3f} | {max(values):.3f} | "
            f"{worst.margin:+.3f} | {cs[0].says} |"
        )
        broken += [(name, r["env"], r["seed"]) for r, x in zip(runs, cs) if not x.holds]
    if broken:
        raise SystemExit(f"claims broken: {broken}")


if __name__ == "__main__":
    main()
