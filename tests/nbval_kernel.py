"""Writes the Jupyter kernel nbval executes the chapters in: this interpreter (the venv's
Python, with attnlib) started with extra environment variables, by default those of the
Makefile's NBVAL_ENV (another numeric environment: ATen's portable CPU kernels, MKL's
reproducible path), so that a trained number differs from the committed one as it would on
another processor.

The variables go into the kernel's spec (``kernel.json``'s ``env``), not into pytest's own
environment: the unit tests run in the same pytest session (`make test`) with the machine's
own kernels, and their subprocesses (``compare_seeds``'s pool) are not affected.

    python tests/nbval_kernel.py ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE

writes ``<sys.prefix>/share/jupyter/kernels/attnlib-nbval/kernel.json``; nbval uses it with
``--nbval-kernel-name attnlib-nbval``. No argument: a kernel with no extra variables.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

NAME = "attnlib-nbval"
_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_env(items: list[str]) -> dict[str, str]:
    """``["A=1", "B=x"]`` -> ``{"A": "1", "B": "x"}``; anything else is refused by name."""
    env: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not _VAR.fullmatch(name):
            raise ValueError(f"NBVAL_ENV: expected NAME=VALUE items, got {item!r}")
        env[name] = value
    return env


def write_kernel(env: dict[str, str], prefix: Path | None = None) -> Path:
    """Writes the kernel spec under ``prefix`` (default ``sys.prefix``) and returns its path."""
    folder = Path(prefix or sys.prefix) / "share" / "jupyter" / "kernels" / NAME
    folder.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": f"attnlib chapters under nbval ({' '.join(env) or 'plain'})",
        "language": "python",
        "env": env,
        "metadata": {"debugger": False},
    }
    path = folder / "kernel.json"
    path.write_text(json.dumps(spec, indent=1) + "\n")
    return path


if __name__ == "__main__":
    try:
        written = write_kernel(parse_env(sys.argv[1:]))
    except ValueError as e:
        sys.exit(str(e))
    print(f"nbval kernel: {written}")
