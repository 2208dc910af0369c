"""`make test` runs nbval in a kernel whose spec carries NBVAL_ENV (tests/nbval_kernel.py):
the variables must reach the kernel's process, and bad NBVAL_ENV items must be refused."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, where nbval_kernel.py is
import nbval_kernel  # noqa: E402


def test_parse_env_reads_name_value_items():
    assert nbval_kernel.parse_env(["A=1", "MKL_CBWR=COMPATIBLE", "E="]) == {
        "A": "1",
        "MKL_CBWR": "COMPATIBLE",
        "E": "",
    }
    assert nbval_kernel.parse_env([]) == {}


@pytest.mark.parametrize("item", ["A", "=1", "1A=2", "A B=1"])
def test_parse_env_refuses_items_that_are_not_assignments(item):
    with pytest.raises(ValueError, match="NBVAL_ENV.*NAME=VALUE"):
        nbval_kernel.parse_env([item])


def test_the_kernel_runs_with_the_spec_environment(tmp_path):
    """Starts the written kernel as nbval does (by name, through jupyter_client) and reads the
    variables and torch's CPU capability from inside it."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    env = {"ATEN_CPU_CAPABILITY": "default", "ATTNLIB_NBVAL_PROBE": "on"}
    spec = nbval_kernel.write_kernel(env, prefix=tmp_path)
    ksm = KernelSpecManager(kernel_dirs=[str(spec.parent.parent)])
    km = KernelManager(kernel_name=nbval_kernel.NAME, kernel_spec_manager=ksm)
    km.start_kernel()
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        code = (
            "import os, torch; print(os.environ.get('ATTNLIB_NBVAL_PROBE'),"
            " torch.backends.cpu.get_cpu_capability())"
        )
        out = []
        kc.execute_interactive(
            code,
            timeout=60,
            output_hook=lambda m: (
                out.append(m["content"].get("text", "")) if m["msg_type"] == "stream" else None
            ),
        )
        kc.stop_channels()
    finally:
        km.shutdown_kernel(now=True)
    assert "".join(out).split() == ["on", "DEFAULT"]
