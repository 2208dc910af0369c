"""Overhead of the declared argument domains (attnlib.domains) on the attention calls.

Run from the repository root::

    .venv/bin/python benchmarks/bench_domains.py          # or: make bench

Forward + backward of ``attnlib.dot_product_attention`` and of
``attnlib.MultiHeadAttention``, each timed two ways in one process: as shipped (every call
checked against its declaration, then the body, whose own checks are unchanged), and with
the declarations bypassed (each declared function replaced by the function it wraps,
``__wrapped__``: the code as it was before the declarations). Printed: the time ratio
declared / bypassed at a tiny size (where a per-call cost shows most) and at a realistic
one. Variants run alternately (A, B, A, B, ...) after a warm-up and the medians are
compared, on one thread, so that drift in the machine's load hits both alike.
"""

from __future__ import annotations

import contextlib
import statistics
import time

import torch

import attnlib
from attnlib import attention, transformer

REPEATS, WARMUP = 41, 5


@contextlib.contextmanager
def bypassed():
    """The declared functions this benchmark reaches, replaced by the functions they wrap."""
    saved = [
        (attention, "dot_product_attention", attention.dot_product_attention),
        (attention.DotProductAttention, "forward", attention.DotProductAttention.forward),
        (transformer.MultiHeadAttention, "forward", transformer.MultiHeadAttention.forward),
    ]
    try:
        for owner, name, fn in saved:
            setattr(owner, name, fn.__wrapped__)
        yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


def _time(step, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t0) / n


def ratio(make_step, inner: int) -> tuple[float, float, float]:
    """(median seconds declared, median seconds bypassed, ratio) of ``make_step()``'s step."""
    declared, plain = [], []
    step = make_step()
    for _ in range(WARMUP):
        step()
    for _ in range(REPEATS):
        declared.append(_time(step, inner))
        with bypassed():
            plain_step = make_step()
            plain.append(_time(plain_step, inner))
    a, b = statistics.median(declared), statistics.median(plain)
    return a, b, a / b


def dpa_step(batch, n, d):
    g = torch.Generator().manual_seed(0)
    q = torch.randn(batch, n, d, generator=g, requires_grad=True)
    k = torch.randn(batch, n, d, generator=g, requires_grad=True)
    v = torch.randn(batch, n, d, generator=g, requires_grad=True)
    lens = torch.full((batch,), n // 2)
    fn = attention.dot_product_attention  # looked up now: declared or bypassed

    def step():
        out, _ = fn(q, k, v, lens)
        out.sum().backward()

    return step


def mha_step(batch, n, d, heads):
    torch.manual_seed(0)
    m = attnlib.MultiHeadAttention(d, heads, 0.0)
    x = torch.randn(batch, n, d, requires_grad=True)
    m(x, x, x)  # size the lazy layers
    lens = torch.full((batch,), n // 2)

    def step():
        m(x, x, x, lens).sum().backward()

    return step


def main() -> None:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rows = [
            ("dot_product_attention fwd+bwd", "(2, 8, 16)", lambda: dpa_step(2, 8, 16), 200),
            ("dot_product_attention fwd+bwd", "(16, 128, 64)", lambda: dpa_step(16, 128, 64), 5),
            (
                "MultiHeadAttention fwd+bwd",
                "(2, 8, 32), 4 heads",
                lambda: mha_step(2, 8, 32, 4),
                100,
            ),
            (
                "MultiHeadAttention fwd+bwd",
                "(16, 128, 256), 8 heads",
                lambda: mha_step(16, 128, 256, 8),
                2,
            ),
        ]
        print("| call | size | declared (µs) | before (µs) | ratio |")
        print("| --- | --- | --- | --- | --- |")
        for name, size, make, inner in rows:
            a, b, r = ratio(make, inner)
            print(f"| {name} | {size} | {a * 1e6:.0f} | {b * 1e6:.0f} | {r:.3f} |")
    finally:
        torch.set_num_threads(threads)


if __name__ == "__main__":
    main()
