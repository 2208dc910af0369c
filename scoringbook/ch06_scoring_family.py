"""Chapter 6, the family of scoring functions and how to choose one: its measurements.

- :data:`FAMILY`: the map of the family (name, score, source), after Weng (2018).
- :func:`location_weights` and :func:`hard_attention`: the two worked examples.
- :func:`measure_costs`: time and peak memory of each scoring function on this machine.
- :func:`row_entropy`: the entropy of a softmax row against ``d`` for the scalings 1,
  1/sqrt(d), 1/d, with random queries and keys.
- :func:`scaling_experiment`: a tiny retrieval task trained with each scaling at a few ``d``
  over several seeds (the reproduction of the claim that motivates 1/sqrt(d)).

Nothing here seeds or touches a global generator: every random draw comes from a local
:class:`torch.Generator`. Training runs on the caller's thread count (the chapter sets one).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from attnlib import tensor_domains as T
from attnlib.domains import Generator, Int, Seq, as_int, as_seed, declare
from attnlib.masking import masked_softmax
from attnlib.scoring import additive_scores, bilinear_scores, cosine_scores, dot_product_scores
from scoringbook._common import COUNT, SEED, SIZES


def _ints(values: object, name: str, fn: str) -> tuple[int, ...]:
    """A non-empty sequence of ints >= 1 (sizes, dims)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{fn}: {name} must be a sequence of ints >= 1; got {values!r}")
    out = tuple(as_int(v, f"each of {name}", fn, min=1) for v in values)
    if not out:
        raise ValueError(f"{fn}: {name} must hold at least one int >= 1; got {values!r}")
    return out


__all__ = [
    "FAMILY",
    "SCALINGS",
    "location_weights",
    "hard_attention",
    "measure_costs",
    "row_entropy",
    "scaling_experiment",
]

#: The map of the family: (name, score a(q, k), learned parameters, source).
FAMILY = [
    ("content-based (cosine)", "cos(q, k) / T", "none (T: 1)", "Graves et al. 2014"),
    ("additive", "w_vᵀ tanh(W_q q + W_k k)", "h(d_q + d_k + 1)", "Bahdanau et al. 2015"),
    ("location-based", "softmax(W_a q): keys ignored", "n_keys · d_q", "Luong et al. 2015"),
    ("general (bilinear)", "qᵀ W k", "d_q · d_k", "Luong et al. 2015"),
    ("dot product", "qᵀ k", "none", "Luong et al. 2015"),
    ("scaled dot product", "qᵀ k / √d", "none", "Vaswani et al. 2017"),
]

#: The three scalings of q·k compared in the chapter: name -> factor as a function of d.
SCALINGS = {"1": lambda d: 1.0, "1/√d": lambda d: 1.0 / math.sqrt(d), "1/d": lambda d: 1.0 / d}


def _check_finite_float(t: object, name: str, fn: str) -> None:
    """``t`` is a floating-point tensor with finite entries (else a named error)."""
    if not isinstance(t, Tensor) or not t.is_floating_point():
        raise TypeError(f"{fn}: {name} must be a floating-point tensor; got {type(t).__name__}")
    if not bool(torch.isfinite(t).all()):
        raise ValueError(f"{fn}: {name} must have finite entries; got NaN or inf")


@declare(
    W_a=T.FloatTensor("n_keys d", finite=True),
    query=T.FloatTensor("d", finite=True),
    n_keys=Int(ge=1),
)
def location_weights(W_a: Tensor, query: Tensor, n_keys: int) -> Tensor:
    """Location-based weights (Luong et al. 2015): ``softmax(W_a q)``, one score per key
    position, computed from the query alone (the keys' contents are never read).

    Args:
        W_a: ``(n_keys, d)``, one row per key position.
        query: ``(d,)``.
        n_keys: how many keys (positions) there are; must equal ``W_a.shape[0]``.

    Returns:
        weights ``(n_keys,)``.
    """
    n_keys = as_int(n_keys, "n_keys", "location_weights", min=1)
    for name, t in (("W_a", W_a), ("query", query)):
        _check_finite_float(t, name, "location_weights")
    if W_a.dim() != 2 or W_a.shape[0] != n_keys or query.shape != (W_a.shape[1],):
        raise ValueError(
            f"location_weights: W_a must be (n_keys, d) = ({n_keys}, d) and query (d,); got "
            f"{tuple(W_a.shape)} and {tuple(query.shape)}"
        )
    return torch.softmax(W_a @ query, dim=0)  # (n_keys,)


@declare(weights=T.FloatTensor("n_queries n_keys", finite=True), generator=Generator())
def hard_attention(weights: Tensor, generator: torch.Generator) -> Tensor:
    """Hard attention (Xu et al. 2015): one key per query, sampled from its weights; the
    output is that key's value, ``values[indices]``, instead of the weighted average.

    Args:
        weights: ``(n_queries, n_keys)``, rows summing to 1.
        generator: where the samples come from.

    Returns:
        ``(n_queries,)`` indices of the chosen keys.
    """
    _check_finite_float(weights, "weights", "hard_attention")
    if weights.dim() != 2:
        raise ValueError(
            f"hard_attention: weights must be (n_queries, n_keys); got {tuple(weights.shape)}"
        )
    if not isinstance(generator, torch.Generator):
        raise TypeError(
            f"hard_attention: generator must be a torch.Generator (the samples' source); got "
            f"{type(generator).__name__}"
        )
    return torch.multinomial(weights, 1, generator=generator)[:, 0]  # (n_queries,)


# ----------------------------------------------------------------------------- cost


def _kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")  # pragma: no cover


def _scoring_calls(n: int, d: int, h: int) -> dict[str, Any]:
    """The four calls measured, on seeded inputs of n queries and n keys (batch 1)."""
    g = torch.Generator().manual_seed(n)
    W_q = torch.randn(h, d, generator=g) / math.sqrt(d)  # (h, d)
    W_k = torch.randn(h, d, generator=g) / math.sqrt(d)  # (h, d)
    w_v = torch.randn(h, generator=g)  # (h,)
    W = torch.randn(d, d, generator=g) / math.sqrt(d)  # (d, d)
    q = torch.randn(1, n, d, generator=g)  # (1, n, d)
    k = torch.randn(1, n, d, generator=g)  # (1, n, d)
    return {
        "scaled dot product": lambda: dot_product_scores(q, k),
        "general": lambda: bilinear_scores(q, k, W),
        "cosine": lambda: cosine_scores(q, k, 0.1),
        "additive": lambda: additive_scores(q, k, W_q, W_k, w_v),
    }


def _memory_child(sizes: list[int], d: int, h: int) -> None:
    """Run in a child process with MALLOC_MMAP_THRESHOLD_ low, so that freed blocks go back
    to the system: the peak resident-set increase of a call is then the memory it needed."""
    out: dict[str, list[int]] = {}
    with torch.no_grad():
        for n in sizes:
            for name, fn in _scoring_calls(n, d, h).items():
                fn()  # warm-up: one-off allocations (thread pools, caches) happen here
                Path("/proc/self/clear_refs").write_text("5")  # peak (VmHWM) := current RSS
                before = _kib("VmRSS")
                fn()
                out.setdefault(name, []).append(max(0, _kib("VmHWM") - before) * 1024)
    print(json.dumps(out))


def _peak_memory(sizes: tuple[int, ...], d: int, h: int) -> dict[str, list[int]]:
    code = (
        "import torch; torch.set_num_threads(1); from scoringbook.ch06_scoring_family import "
        f"_memory_child; _memory_child({list(sizes)!r}, {d}, {h})"
    )
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "16384"}
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
    )
    if r.returncode:
        raise RuntimeError(f"measure_costs: the memory measurement failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _best_time(fn, repeats: int, min_seconds: float = 0.2) -> float:
    """The best time of ``repeats`` calls, with more (up to 50) while under ``min_seconds``
    in total: fast calls are timed many times, slow ones ``repeats`` times."""
    fn()  # warm-up
    best, spent, count = math.inf, 0.0, 0
    while count < repeats or (spent < min_seconds and count < 50):
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        best, spent, count = min(best, dt), spent + dt, count + 1
    return best


@declare(sizes=SIZES, d=COUNT, h=COUNT, repeats=COUNT)
def measure_costs(
    sizes: tuple[int, ...] = (256, 512, 1024), d: int = 64, h: int = 64, repeats: int = 2
) -> dict[str, Any]:
    """Time (best of ``repeats``) and peak memory of one call of each scoring function,
    queries = keys = ``n`` vectors of size ``d`` (batch 1), at each ``n`` of ``sizes``.

    Additive attention has ``h`` hidden units (``3h`` flops per pair: add, tanh, multiply-add
    against about ``2d`` for a dot product). Memory is the peak resident-set increase of
    one call (Linux), measured in one child process whose allocator returns freed blocks to
    the system (``MALLOC_MMAP_THRESHOLD_``): the call's temporaries and its ``n x n``
    output.

    Returns ``{"sizes": [...], "time": {name: [s, ...]}, "memory": {name: [bytes, ...]}}``.
    """
    fn_ = "measure_costs"
    sizes = _ints(sizes, "sizes", fn_)
    d, h = as_int(d, "d", fn_, min=1), as_int(h, "h", fn_, min=1)
    repeats = as_int(repeats, "repeats", fn_, min=1)
    out: dict[str, Any] = {"sizes": list(sizes), "time": {}}
    with torch.no_grad():
        for n in sizes:
            for name, fn in _scoring_calls(n, d, h).items():
                out["time"].setdefault(name, []).append(_best_time(fn, repeats))
    out["memory"] = _peak_memory(tuple(sizes), d, h)
    return out


# ----------------------------------------------------------------------------- why √d


def _entropy(w: Tensor) -> Tensor:
    return -(w * w.clamp_min(1e-300).log()).sum(-1)  # (...,)


@declare(dims=SIZES, n_keys=COUNT, n_rows=COUNT, seed=SEED)
def row_entropy(
    dims: tuple[int, ...] = (2, 8, 32, 128, 512, 2048),
    n_keys: int = 16,
    n_rows: int = 400,
    seed: int = 0,
) -> dict[str, list[float]]:
    """Mean entropy (nats) of a softmax row of ``c(d) q·k`` over ``n_keys`` keys, for each
    scaling of :data:`SCALINGS`, with independent standard-normal queries and keys.

    log(n_keys) is a uniform row, 0 a one-hot row. Returns ``{scaling: [entropy per d]}``.
    """
    fn = "row_entropy"
    dims = _ints(dims, "dims", fn)
    n_keys, n_rows = as_int(n_keys, "n_keys", fn, min=1), as_int(n_rows, "n_rows", fn, min=1)
    g = torch.Generator().manual_seed(as_seed(seed, "seed", fn))
    out: dict[str, list[float]] = {name: [] for name in SCALINGS}
    for d in dims:
        q = torch.randn(n_rows, 1, d, generator=g, dtype=torch.float64)  # (rows, 1, d)
        k = torch.randn(n_rows, n_keys, d, generator=g, dtype=torch.float64)  # (rows, n, d)
        s = torch.bmm(q, k.transpose(1, 2))[:, 0]  # (rows, n_keys): q·k
        for name, c in SCALINGS.items():
            out[name].append(float(_entropy(torch.softmax(c(d) * s, -1)).mean()))
    return out


def _retrieval_run(d: int, scaling: str, seed: int, steps: int, p: int = 16, n: int = 8):
    """Train W_q, W_k (d x p) to retrieve: the query is a noisy copy of one of n inputs and
    the target is that input's value; the loss is on the output (weights @ values), as in a
    model. Returns the held-out share of queries whose largest weight is on the right key."""
    g = torch.Generator().manual_seed(seed)
    # N(0, 1/p) entries: q and k have unit-variance entries at the start, as in the argument
    W_q = (torch.randn(d, p, generator=g) / math.sqrt(p)).requires_grad_()
    W_k = (torch.randn(d, p, generator=g) / math.sqrt(p)).requires_grad_()
    c = SCALINGS[scaling](d)
    opt = torch.optim.Adam([W_q, W_k], lr=3e-3)

    def draw(batch):
        x = torch.randn(batch, n, p, generator=g)  # (batch, n, p): the inputs
        v = torch.randn(batch, n, 8, generator=g)  # (batch, n, 8): their values
        t = torch.randint(n, (batch,), generator=g)  # (batch,): which one is asked for
        q = x[torch.arange(batch), t] + 0.5 * torch.randn(batch, p, generator=g)  # (batch, p)
        return x, v, t, q

    def forward(x, v, q):
        s = c * torch.bmm(x @ W_k.T, (q @ W_q.T).unsqueeze(-1))[..., 0]  # (batch, n)
        w = masked_softmax(s.unsqueeze(1))[:, 0]  # (batch, n)
        return w, torch.bmm(w.unsqueeze(1), v)[:, 0]  # (batch, n), (batch, 8)

    for _ in range(steps):
        x, v, t, q = draw(64)
        w, o = forward(x, v, q)
        loss = ((o - v[torch.arange(64), t]) ** 2).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        x, v, t, q = draw(1000)
        w, _ = forward(x, v, q)
        return float((w.argmax(-1) == t).double().mean())


@declare(dims=SIZES, seeds=Seq(SEED, min_len=1), steps=COUNT)
def scaling_experiment(
    dims: tuple[int, ...] = (16, 128, 512),
    seeds: tuple[int, ...] = (0, 1, 2),
    steps: int = 50,
) -> dict[str, Any]:
    """Held-out retrieval accuracy after ``steps`` Adam steps for each scaling and ``d``.

    Returns ``{"dims": [...], "seeds": [...], "acc": {scaling: tensor (len(dims),
    len(seeds))}}``.
    """
    fn = "scaling_experiment"
    dims = _ints(dims, "dims", fn)
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__") or not list(seeds):
        raise TypeError(f"{fn}: seeds must be a non-empty sequence of ints; got {seeds!r}")
    seeds = tuple(as_seed(s, "each of seeds", fn) for s in seeds)
    steps = as_int(steps, "steps", fn, min=1)
    acc = {
        name: torch.tensor([[_retrieval_run(d, name, s, steps) for s in seeds] for d in dims])
        for name in SCALINGS
    }
    return {"dims": list(dims), "seeds": list(seeds), "acc": acc}


# ----------------------------------------------------------------------------- the table

#: The choice columns of the cost-and-choice table (what the measurements cannot say).
CHOICE = {
    "scaled dot product": (
        "qᵀk / √d",
        "none",
        "Transformers (Vaswani et al. 2017)",
        "the default: same sizes, fastest (one matmul)",
    ),
    "general": (
        "qᵀ W k",
        "d_q · d_k",
        "Luong et al. 2015; inside every Transformer head as (W_q q)ᵀ(W_k k)",
        "queries and keys of different sizes, at matmul speed",
    ),
    "cosine": (
        "cos(q, k) / T",
        "none (T fixed or learned)",
        "NTM (Graves et al. 2014); QK-norm (Henry et al. 2020)",
        "key lengths must not count, or scores grow out of range in training",
    ),
    "additive": (
        "w_vᵀ tanh(W_q q + W_k k)",
        "h (d_q + d_k + 1)",
        "Bahdanau et al. 2015; RNN encoder-decoders",
        "small models where a nonlinear match helps; not for size mismatch alone",
    ),
}


def _figures(x: float, digits: int) -> str:
    """``x`` to ``digits`` significant figures, its trailing zeros kept so that a column reads
    alike ("4.0" beside "3.8", not "4"), in plain decimals (never "1e+02"); 0 is "0"."""
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    text = f"{x:.{decimals}f}"
    if decimals and abs(float(text)) >= 10 ** (digits - decimals):  # 99.96 rounded up to 100.0
        text = f"{x:.{decimals - 1}f}"
    return text


class CostTable:
    """The cost-and-choice table: ``costs`` from :func:`measure_costs`, one row per scoring
    function; time in ms and memory in MiB at each measured size. ``compact``: only the
    time at the largest size, and no formula or parameters (for a page that shows the times
    in a figure and the formulas in another table)."""

    def __init__(self, costs: dict[str, Any], compact: bool = False) -> None:
        if not isinstance(compact, bool):
            raise TypeError(f"CostTable: compact must be True or False; got {compact!r}")
        self.costs = costs
        self.compact = compact

    def cells(self) -> list[list[str]]:
        sizes = self.costs["sizes"]
        t, m = self.costs["time"], self.costs["memory"]
        shown = sizes[-1:] if self.compact else sizes
        head = ["score"] + ([] if self.compact else ["formula", "parameters"])
        head += [f"time (ms), n = {n}" for n in shown] + [f"memory (MiB), n = {sizes[-1]}"]
        head += ["used in", "pick it when"]
        rows = [head]
        for name, (formula, params, used, when) in CHOICE.items():
            times = [_figures(1e3 * v, 3) for v in t[name][-len(shown) :]]
            about = [] if self.compact else [formula, params]
            rows.append([name, *about, *times, _figures(m[name][-1] / 2**20, 2), used, when])
        return rows

    def __repr__(self) -> str:
        return "\n".join(" | ".join(r) for r in self.cells())

    def _repr_html_(self) -> str:
        import html

        # class attn-costs (attnbook.css): the numbers stay on one line, the words and the
        # headers wrap, so at a desktop's width it is a table to compare across, not cards
        head, *body = self.cells()
        num = ' class="attn-num"'  # a time or a memory: one line
        kinds = ["" if k == 0 else num if c.startswith(("time", "memory")) else "" for k, c in
                 enumerate(head)]  # fmt: skip
        th = "".join(f'<th scope="col">{html.escape(c)}</th>' for c in head)
        rows = "".join(
            f'<tr><th scope="row">{html.escape(r[0])}</th>'
            + "".join(f"<td{kinds[k]}>{html.escape(c)}</td>" for k, c in enumerate(r) if k)
            + "</tr>"
            for r in body
        )
        return (
            '<table class="attn-costs" aria-label="cost and choice of the scoring '
            f'functions, measured on this machine"><thead><tr>{th}</tr></thead>'
            f"<tbody>{rows}</tbody></table>"
        )
