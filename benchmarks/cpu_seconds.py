"""CPU seconds a command uses, every process it starts included: ``python benchmarks/cpu_seconds.py
-- make check``.

``time``'s user + sys counts only the children a process waits for, and Chromium's renderers are
not among them: a page that spins 3 s of JavaScript shows under 1 s. This runs the command in its
own cgroup (v1 ``cpuacct``, as on the team's machines; needs root) and reads the cgroup's total,
which counts every process in it. On a machine other work is loading, wall time says little and
CPU seconds are the guide (tests/README.md); torch's threads spinning for a busy core inflate
CPU seconds too, which is why the test sessions run one torch thread per worker (Makefile).

Prints one line: ``wall <s> cpu <s> cores <cpu / wall> rc <exit code>``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def main(argv: list[str]) -> int:
    if "--" in argv:
        argv = argv[argv.index("--") + 1 :]
    if not argv:
        raise SystemExit("usage: cpu_seconds.py -- COMMAND [ARGS...]")
    if not CPUACCT.is_dir():
        raise SystemExit(f"cpu_seconds.py: no cgroup v1 cpuacct at {CPUACCT}")
    group = CPUACCT / f"cpu_seconds_{os.getpid()}"
    group.mkdir()
    try:
        t0 = time.monotonic()
        proc = subprocess.Popen(
            argv,
            # join the group before the command starts, so everything it starts is counted
            preexec_fn=lambda: (group / "tasks").write_text(str(os.getpid())),
        )
        rc = proc.wait()
        wall = time.monotonic() - t0
        cpu = int((group / "cpuacct.usage").read_text()) / 1e9
    finally:
        group.rmdir()
    print(f"wall {wall:.1f} cpu {cpu:.1f} cores {cpu / wall:.2f} rc {rc}", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
