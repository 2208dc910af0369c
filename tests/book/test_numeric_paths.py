"""The saved-state comparisons (tests/book/test_saved_state.py) under every numeric path this
processor offers (issue 36): ATen's portable kernels, AVX2, AVX-512 where the processor has it
(/proc/cpuinfo), MKL's reproducible path and one thread. The plain path is the session's own run
of that file; each other path is a fresh interpreter, since ATEN_CPU_CAPABILITY and MKL_CBWR are
read when torch is imported. A committed number compared more tightly than it varies between
paths fails here, on this machine, instead of on a contributor's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from _tolerance import CAPABILITY, numeric_paths

TESTS = Path(__file__).resolve().parents[1]
# the path this session itself runs on is the session's own run of test_saved_state.py; every
# other path is a fresh interpreter here. `make check` and `make test` run pytest on one torch
# thread per worker (OMP_NUM_THREADS=1, Makefile): then the session is the one-thread path and
# the plain one (torch's own thread count) runs here.
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
OWN = "one-thread" if os.environ.get("OMP_NUM_THREADS") == "1" else "plain"


def one_run_per_computation(paths: dict[str, dict], own_capability: str) -> dict[str, dict]:
    """``paths`` with the plain path folded into the ATEN_CPU_CAPABILITY path that selects what
    the plain one already dispatches to (``own_capability``: this process's, which the plain
    path inherits with the rest of the environment): on an AVX-512 Xeon ATen picks AVX512 by
    itself, so "plain" and "avx512" are one environment, and one run (named ``plain+avx512``,
    with the variable set and the dispatch checked) holds for both."""
    if "plain" not in paths or paths["plain"]:
        return dict(paths)
    for name, env in paths.items():
        if (
            env.keys() == {"ATEN_CPU_CAPABILITY"}
            and CAPABILITY.get(env["ATEN_CPU_CAPABILITY"]) == own_capability
        ):
            out = {k: v for k, v in paths.items() if k not in ("plain", name)}
            return {f"plain+{name}": env, **out}
    return dict(paths)


PATHS = one_run_per_computation(
    {k: v for k, v in numeric_paths().items() if k != OWN},
    torch.backends.cpu.get_cpu_capability(),
)

# prints the path ATen dispatches to (proof that the variable took), then runs the comparisons
# (without nbval's plugin: its imports cost 2 of the 5.7 CPU-s a path's start-up takes)
RUN = (
    "import sys, torch; "
    "print('capability', torch.backends.cpu.get_cpu_capability(), torch.get_num_threads()); "
    "sys.stdout.flush(); import pytest; "
    "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'no:nbval', '-x', "
    "sys.argv[1], '-k', 'published']))"
)


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(PATHS))
def test_saved_state_holds_under_numeric_path(path):
    inherited = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    # bytecode is written: a module the session has not imported yet (torch._dynamo, which
    # torch.optim imports on first use) is compiled once, not once per path
    env = {**inherited, **PATHS[path]}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    r = subprocess.run(
        [sys.executable, "-c", RUN, str(TESTS / "book" / "test_saved_state.py")],
        env=env,
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    first, _, rest = r.stdout.partition("\n")
    _, capability, threads = first.split()
    want = CAPABILITY.get(PATHS[path].get("ATEN_CPU_CAPABILITY", ""))
    if want:
        assert capability == want, f"{path}: ATen dispatches to {capability}, not {want}"
    if PATHS[path].get("OMP_NUM_THREADS") == "1":
        assert threads == "1", f"{path}: torch runs {threads} threads"
    assert r.returncode == 0, f"saved state under the {path} path ({PATHS[path]}):\n{rest[-4000:]}"


def test_numeric_paths_follow_the_processor_flags():
    base = {"plain", "default", "mkl-compatible", "one-thread"}
    assert set(numeric_paths(set())) == base
    assert set(numeric_paths({"avx2"})) == base | {"avx2"}
    avx512 = {"avx2", "avx512f", "avx512bw", "avx512vl", "avx512dq"}
    assert set(numeric_paths(avx512)) == base | {"avx2", "avx512"}
    assert numeric_paths(avx512)["avx512"] == {"ATEN_CPU_CAPABILITY": "avx512"}
    # plain is folded into the path selecting what ATen picks by itself, and only into that
    on_xeon = one_run_per_computation(numeric_paths(avx512), "AVX512")
    assert on_xeon["plain+avx512"] == {"ATEN_CPU_CAPABILITY": "avx512"}
    assert set(on_xeon) == base - {"plain"} | {"avx2", "plain+avx512"}
    on_avx2 = one_run_per_computation(numeric_paths({"avx2"}), "AVX2")
    assert set(on_avx2) == base - {"plain"} | {"plain+avx2"}
    assert one_run_per_computation(numeric_paths(avx512), "AVX2")["plain+avx2"]
    assert one_run_per_computation(numeric_paths(set()), "AVX2") == numeric_paths(set())
    # AVX-512 F alone is not what ATen's avx512 kernels need
    assert "avx512" not in numeric_paths({"avx2", "avx512f"})
