"""Speed and memory of attnlib's attention against reference implementations.

Run from the repository root::

    .venv/bin/python benchmarks/bench_attention.py          # or: make bench

Every number is a ratio measured in this one run on this machine (absolute times vary
too much between machines to mean anything), printed in a table with PASS/FAIL against
its target:

1. ``dot_product_attention`` forward + backward vs
   :func:`torch.nn.functional.scaled_dot_product_attention` (batch 32, 128 queries, 128
   keys, d = 64, float32, a 2-D ``valid_lens`` given to SDPA as a boolean ``attn_mask``).
   attnlib also returns the weights, SDPA does not. Target: time ratio <= 1.25.
2. ``masked_softmax`` with a 2-D ``valid_lens`` at (64, 128, 128) vs the reference
   approach of d2l (copy the scores, ``repeat_interleave``/reshape the lengths, write
   ``-1e6`` into the masked positions, softmax). Target: attnlib at least 2x faster
   (reported as the reference time divided by attnlib's).
3. ``AdditiveAttention`` vs the broadcast form, which builds the (batch, n_queries,
   n_keys, num_hiddens) tensor. Time at (4, 512, 512, 128): target <= 1.5x without grad
   (forward + backward for information). Peak RSS at (4, 1024, 1024, 128), where the
   broadcast tensor alone is 2 GiB, in three modes: ``no_grad`` (inference), ``forward``
   (grad enabled, what autograd keeps alive before backward) and ``forward+backward``
   (training). Target: <= 25 % of the broadcast form's peak in every mode.

Method.
- Timing: ``torch.set_num_threads`` is left as it is. Each case is warmed up, then the
  two variants are run alternately (A, B, A, B, ...) so that drift in the machine's load
  hits both alike, and the median of the repeats is compared. On a 2-core machine that
  other busy processes share, OpenMP threads get preempted and a single run can be off
  by a large factor (code made of many small parallel ops suffers most): rerun before
  trusting a FAIL.
- Peak memory (CPU has no ``torch.cuda.max_memory_allocated``): each variant runs in a
  fresh Python subprocess. The child imports torch, builds the module and inputs and
  makes one warm-up call on an 8-query input (this loads every code path, the blocked
  one included, and the thread pools' buffers, about 80 MiB on a first call, at small
  size). It then resets the kernel's peak-RSS counter (``echo 5 > /proc/self/clear_refs``),
  reads ``VmRSS`` from /proc/self/status, makes the measured call and reads ``VmHWM``
  (the peak resident set size since the reset). ``VmHWM - VmRSS`` is the memory the call
  needed at its peak: its temporaries, what autograd saved, and its output. The child
  runs with the default allocator (no malloc tuning), as a user's process would: glibc
  keeps some freed memory resident, so this is the peak a user actually sees. ``ru_maxrss``
  is not used: it survives ``exec`` and so starts at the parent's size. The ratio divides
  attnlib's increase by the broadcast form's.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import attnlib  # noqa: E402
from attnlib import AdditiveAttention, dot_product_attention, masked_softmax  # noqa: E402
from attnlib.masking import valid_lens_to_mask  # noqa: E402


# ----------------------------------------------------------------------------- helpers
def interleaved_medians(fns: dict, repeats: int = 15, warmup: int = 3) -> dict:
    """Median wall time (s) of each callable, run alternately ``repeats`` times."""
    for _ in range(warmup):
        for f in fns.values():
            f()
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, f in fns.items():
            t0 = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def reference_masked_softmax(X: torch.Tensor, valid_lens: torch.Tensor) -> torch.Tensor:
    """d2l's approach, written for this benchmark, on a copy (d2l writes into X itself).

    Flatten the lengths to one per row (``repeat_interleave`` for 1-D, ``reshape`` for
    2-D), compare them with a float ``arange`` of the key positions, write ``-1e6`` into
    the masked positions through boolean indexing, and take one softmax.
    """
    shape = X.shape
    if valid_lens.dim() == 1:
        lens = torch.repeat_interleave(valid_lens, shape[1])  # (batch * n_queries,)
    else:
        lens = valid_lens.reshape(-1)  # (batch * n_queries,)
    flat = X.reshape(-1, shape[-1]).clone()  # (batch * n_queries, n_keys)
    positions = torch.arange(shape[-1], dtype=torch.float32, device=X.device)
    keep = positions[None, :] < lens[:, None]  # (batch * n_queries, n_keys)
    flat[~keep] = -1e6
    return torch.softmax(flat.reshape(shape), dim=-1)  # (batch, n_queries, n_keys)


def broadcast_additive(module: AdditiveAttention, queries, keys, values):
    """d2l's broadcast form of additive attention (builds (batch, nq, nk, h))."""
    q = module.W_q(queries)  # (batch, n_queries, h)
    k = module.W_k(keys)  # (batch, n_keys, h)
    features = torch.tanh(q.unsqueeze(2) + k.unsqueeze(1))  # (batch, nq, nk, h)
    scores = module.w_v(features).squeeze(-1)  # (batch, n_queries, n_keys)
    weights = torch.softmax(scores, dim=-1)
    return torch.bmm(weights, values)  # (batch, n_queries, d_v)


ADD_SHAPE = dict(batch=4, n_queries=512, n_keys=512, features=16, num_hiddens=128)


def _additive_inputs(n_queries: int | None = None):
    s = ADD_SHAPE
    g = torch.Generator().manual_seed(0)
    nq = s["n_queries"] if n_queries is None else n_queries
    torch.manual_seed(0)
    module = AdditiveAttention(s["features"], s["features"], s["num_hiddens"]).eval()
    q = torch.randn(s["batch"], nq, s["features"], generator=g)
    k = torch.randn(s["batch"], s["n_keys"], s["features"], generator=g)
    v = torch.randn(s["batch"], s["n_keys"], s["features"], generator=g)
    return module, q, k, v


def _run_additive(variant: str, module, q, k, v, grad: bool, backward: bool = True):
    if grad:
        out = module(q, k, v) if variant == "attnlib" else broadcast_additive(module, q, k, v)
        if backward:
            out.sum().backward()
            module.zero_grad(set_to_none=True)
        return out
    with torch.no_grad():
        return module(q, k, v) if variant == "attnlib" else broadcast_additive(module, q, k, v)


#: Shape of the memory measurement (issue 10): 4 x 1024 x 1024 x 128, where the broadcast
#: form's (batch, n_queries, n_keys, num_hiddens) tensor alone is 2 GiB in float32.
MEM_SHAPE = dict(batch=4, n_queries=1024, n_keys=1024, features=16, num_hiddens=128)
MEM_MODES = {"no_grad": (False, False), "forward": (True, False), "forward+backward": (True, True)}


def _status_kib(field: str) -> int:
    """A ``VmRSS``/``VmHWM`` line of /proc/self/status, in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not found in /proc/self/status")


def _child_peak(variant: str, mode: str) -> None:
    """Runs inside a fresh subprocess (default allocator, no malloc tuning): print the
    peak-RSS increase (bytes) of one call at MEM_SHAPE, after a small warm-up call."""
    grad, backward = MEM_MODES[mode]
    s = MEM_SHAPE
    g = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    module = AdditiveAttention(s["features"], s["features"], s["num_hiddens"])
    k = torch.randn(s["batch"], s["n_keys"], s["features"], generator=g)
    v = torch.randn(s["batch"], s["n_keys"], s["features"], generator=g)
    q8 = torch.randn(s["batch"], 8, s["features"], generator=g)
    q = torch.randn(s["batch"], s["n_queries"], s["features"], generator=g)
    _run_additive(variant, module, q8, k, v, grad, backward)  # warm-up: code paths, threads
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM (peak RSS) to VmRSS
    before = _status_kib("VmRSS")
    out = _run_additive(variant, module, q, k, v, grad, backward)
    peak = _status_kib("VmHWM")
    del out
    print(json.dumps({"peak_increase_bytes": (peak - before) * 1024}))


def peak_increase(variant: str, mode: str) -> int:
    """Peak-RSS increase of one call in a fresh process with the default allocator."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", variant, mode],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])["peak_increase_bytes"]


# ----------------------------------------------------------------------------- cases
def bench_dot_product() -> dict:
    g = torch.Generator().manual_seed(0)
    batch, nq, nk, d = 32, 128, 128, 64
    q = torch.randn(batch, nq, d, generator=g, requires_grad=True)
    k = torch.randn(batch, nk, d, generator=g, requires_grad=True)
    v = torch.randn(batch, nk, d, generator=g, requires_grad=True)
    valid_lens = torch.randint(1, nk + 1, (batch, nq), generator=g)  # >= 1: no NaN in SDPA
    mask = valid_lens_to_mask(valid_lens, nq, nk).contiguous()  # (batch, nq, nk)
    grad_out = torch.randn(batch, nq, d, generator=g)

    def ours():
        out, weights = dot_product_attention(q, k, v, valid_lens)
        out.backward(grad_out)

    def sdpa():
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        out.backward(grad_out)

    # the two agree before we time them
    with torch.no_grad():
        ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        mine, _ = dot_product_attention(q, k, v, valid_lens)
    assert torch.allclose(mine, ref, atol=1e-5), "dot_product_attention disagrees with SDPA"
    t = interleaved_medians({"attnlib": ours, "sdpa": sdpa}, repeats=41)
    ratio = t["attnlib"] / t["sdpa"]
    return dict(
        case="dot_product_attention fwd+bwd / SDPA (2-D valid_lens)",
        detail=f"{t['attnlib'] * 1e3:.2f} ms vs {t['sdpa'] * 1e3:.2f} ms",
        ratio=ratio,
        target="<= 1.25",
        ok=ratio <= 1.25,
    )


def bench_masked_softmax() -> dict:
    g = torch.Generator().manual_seed(0)
    batch, nq, nk = 64, 128, 128
    X = torch.randn(batch, nq, nk, generator=g)
    valid_lens = torch.randint(1, nk + 1, (batch, nq), generator=g)
    assert torch.allclose(masked_softmax(X, valid_lens), reference_masked_softmax(X, valid_lens))
    t = interleaved_medians(
        {
            "attnlib": lambda: masked_softmax(X, valid_lens),
            "reference": lambda: reference_masked_softmax(X, valid_lens),
        },
        repeats=201,
    )
    speedup = t["reference"] / t["attnlib"]
    return dict(
        case="masked_softmax speed-up over d2l approach (2-D valid_lens)",
        detail=f"{t['attnlib'] * 1e3:.2f} ms vs {t['reference'] * 1e3:.2f} ms",
        ratio=speedup,
        target=">= 2",
        ok=speedup >= 2.0,
    )


def bench_additive() -> list[dict]:
    rows = []
    module, q, k, v = _additive_inputs()
    with torch.no_grad():
        assert torch.allclose(module(q, k, v), broadcast_additive(module, q, k, v), atol=1e-5)
    for grad in (False, True):
        mode = "fwd+bwd, grad" if grad else "fwd, no_grad"
        t = interleaved_medians(
            {
                "attnlib": lambda grad=grad: _run_additive("attnlib", module, q, k, v, grad),
                "broadcast": lambda grad=grad: _run_additive("broadcast", module, q, k, v, grad),
            },
            repeats=3 if grad else 9,
            warmup=1,
        )
        time_ratio = t["attnlib"] / t["broadcast"]
        rows.append(
            dict(
                case=f"AdditiveAttention time / broadcast ({mode})",
                detail=f"{t['attnlib'] * 1e3:.1f} ms vs {t['broadcast'] * 1e3:.1f} ms",
                ratio=time_ratio,
                target="<= 1.5" if not grad else "(info)",
                ok=time_ratio <= 1.5 if not grad else None,
            )
        )
    shape = "x".join(str(MEM_SHAPE[n]) for n in ("batch", "n_queries", "n_keys", "num_hiddens"))
    for mode in MEM_MODES:
        mem_ours = peak_increase("attnlib", mode)
        mem_ref = peak_increase("broadcast", mode)
        ratio = mem_ours / mem_ref
        rows.append(
            dict(
                case=f"AdditiveAttention peak RSS / broadcast ({mode}, {shape})",
                detail=f"{mem_ours / 2**20:.1f} MiB vs {mem_ref / 2**20:.1f} MiB",
                ratio=ratio,
                target="<= 0.25",
                ok=ratio <= 0.25,
            )
        )
    return rows


def main() -> int:
    print(
        f"torch {torch.__version__}, attnlib {attnlib.__version__}, "
        f"{torch.get_num_threads()} threads"
    )
    rows = [bench_dot_product(), bench_masked_softmax(), *bench_additive()]
    width = max(len(r["case"]) for r in rows)
    print(f"\n{'case':<{width}}  {'ratio':>7}  {'target':>8}  result  (attnlib vs reference)")
    for r in rows:
        verdict = "info" if r["ok"] is None else ("PASS" if r["ok"] else "FAIL")
        print(
            f"{r['case']:<{width}}  {r['ratio']:>7.3f}  {r['target']:>8}  {verdict:<6}  "
            f"{r['detail']}"
        )
    failed = [r for r in rows if r["ok"] is False]
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child_peak(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
