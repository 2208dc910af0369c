"""Run the whole contract harness outside pytest: the table of the closing note, and, with
``--write``, tests/contract/_open_defects.py (the defects still open) rewritten.

    .venv/bin/python -m tests.contract.report [--write]
"""

from __future__ import annotations

import pprint
import sys
import time
from pathlib import Path

from .test_contract import ALL, NOT_CALLED, public_callables, run_contract


def main(write: bool) -> None:
    t0 = time.perf_counter()
    per = {}
    for name in ALL:
        if name in NOT_CALLED:
            continue
        valid, rows = run_contract(name)
        per[name] = (valid, rows)
    seconds = time.perf_counter() - t0
    print("| module | public callables | with an example | perturbations | open defects |")
    print("| --- | --- | --- | --- | --- |")
    from .examples import EXAMPLES

    for mod, names in public_callables().items():
        own = [n for n in names if n in per]
        pert = sum(len(per[n][1]) for n in own)
        bad = sum(sum(o.defect for _, _, o in per[n][1]) for n in own)
        with_ex = sum(n in EXAMPLES for n in names)
        print(f"| {mod} | {len(names)} | {with_ex} | {pert} | {bad} |")
    print(f"\n{len(per)} callables run in {seconds:.1f} s")
    open_ = {}
    for name, (_valid, rows) in per.items():
        d = {(a, lb): o.kind for a, lb, o in rows if o.defect}
        if d:
            open_[name] = d
            for (a, lb), k in d.items():
                print(f"  {name}: {a} <- {lb}: {k}")
    if write:
        path = Path(__file__).with_name("_open_defects.py")
        path.write_text(
            '"""Defects the contract harness finds that are not fixed yet:\n'
            "{callable: {(argument, perturbation): kind}}. Written by\n"
            "`python -m tests.contract.report --write`; the harness fails on any defect not\n"
            'listed and on any listed one that no longer occurs."""\n\n'
            f"OPEN = {pprint.pformat(open_, width=99)}\n"
        )


if __name__ == "__main__":
    main("--write" in sys.argv)
