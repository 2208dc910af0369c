"""The contract harness: every public callable of attnlib has an example (examples.py), and
each argument of each example, replaced by the bad values its example implies, is refused
with a TypeError/ValueError naming it or accepted with a finite result, leaving the inputs and
the global random generators as they were. See examples.py for the format."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import time

import pytest

from ._engine import SLOWER, TIMEOUT_S, judge, perturbations
from ._open_defects import OPEN
from .examples import EXAMPLES

NONFINITE = ("nan", "+inf", "-inf", "nan entry")

#: callables never called here (the example is still required), with the reason
NOT_CALLED = {
    "scoringbook.ch07_bahdanau.chapter_playback_declaration": "trains chapter 6's model "
    "(~10 s); its generator promise: tests/contract/test_fixes.py",
    "scoringbook.ch08_lengths.chapter_length_declaration": "trains chapter 8's six number "
    "models (tens of seconds); tests/book/test_ch08_lengths.py runs it",
    "scoringbook.ch06_scoring_family.measure_costs": "starts a Python subprocess (importing "
    "torch) to measure peak memory: seconds per call; tests/book/test_ch06_scoring_family.py "
    "calls it validly and with bad sizes, d, repeats",
    "scoringbook.ch09_multihead.chapter_run": "trains chapter 9's model (~10 s); its tiny "
    "form, train(steps=2), is called and chapter 9's notebook runs it",
}


def public_modules() -> list[str]:
    """attnlib and every public module below it that declares ``__all__``."""
    names = ["attnlib"]
    for pkg in ("attnlib", "attnlib.widgets", "attnlib.plotting", "scoringbook"):
        mod = importlib.import_module(pkg)
        if pkg != "attnlib":
            names.append(pkg)
        for info in pkgutil.iter_modules(mod.__path__):
            if info.name.startswith("_") or info.name in ("widgets", "plotting", "book"):
                continue
            names.append(f"{pkg}.{info.name}")
    return [n for n in names if hasattr(importlib.import_module(n), "__all__")]


def canonical(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def public_callables() -> dict[str, list[str]]:
    """{module: [canonical names of the callables in its __all__]}"""
    out = {}
    for m in public_modules():
        mod = importlib.import_module(m)
        names = []
        for n in mod.__all__:
            obj = getattr(mod, n)
            if callable(obj) and not inspect.ismodule(obj):
                names.append(canonical(obj))
        out[m] = names
    return out


ALL = sorted({c for names in public_callables().values() for c in names})


def _resolve(name: str):
    mod, _, attr = name.rpartition(".")
    while True:
        try:
            obj = importlib.import_module(mod)
            break
        except ImportError:
            mod, _, head = mod.rpartition(".")
            attr = f"{head}.{attr}"
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def test_every_public_callable_has_an_example():
    missing = [c for c in ALL if c not in EXAMPLES]
    assert not missing, (
        "public callables without an example in tests/contract/examples.py (add one, see its "
        f"docstring): {missing}"
    )
    stale = [c for c in EXAMPLES if c not in ALL]
    assert not stale, f"examples of callables that are no longer public: {stale}"


def run_contract(name: str, skip: frozenset = frozenset()):
    """(valid outcome, [(arg, label, outcome)]) for one callable; perturbations in ``skip``
    ((arg, label) pairs) are not run."""
    fn = _resolve(name)
    ex = EXAMPLES[name]
    args, kwargs = ex.call()
    tr = bool(ex.torch_rng)
    mut = tuple(ex.mutates)
    t0 = time.perf_counter()
    valid = judge(fn, args, kwargs, None, check=ex.check, torch_rng=tr, mutates=mut)
    limit = max(TIMEOUT_S, SLOWER * (time.perf_counter() - t0))
    rows = []
    for arg, label, expectation, a, k in perturbations(fn, ex):
        decided = ex.decisions.get((arg, label))
        if (decided and decided[0] == "not run") or (arg, label) in skip:
            continue
        out = judge(fn, a, k, arg, torch_rng=tr, mutates=mut, timeout=limit)
        if decided:
            want = {"refuse": "refused", "accept": "accepted"}[decided[0]]
            if not out.defect and out.kind != want:
                out.kind, out.detail = "decision broken", f"decided {want}, got {out.kind}"
        elif expectation == "accept" and out.kind == "refused":
            out.kind = "refused a number"
        elif out.kind == "non-finite" and ex.nonfinite_in_out and label in NONFINITE:
            out.kind, out.detail = "accepted", f"decided: {ex.nonfinite_in_out}"
        rows.append((arg, label, out))
    return valid, rows


#: callables whose contract trains a model or builds a trained explorer (many seconds each):
#: marked slow, so `make check` leaves them to `make test`
SLOW = {
    "scoringbook.seq2seq.train",
    "scoringbook.ch02_attention_pooling.bandwidth_training_declaration",
    "scoringbook.ch02_attention_pooling.bandwidth_training_explorer",
    "scoringbook.ch08_lengths.compare_models",
    "scoringbook.ch08_lengths.compare_seeds",
    "scoringbook.ch08_lengths.length_declaration",
    "scoringbook.ch08_lengths.length_explorer",
    "scoringbook.ch09_multihead.TrainRun",
    "scoringbook.ch09_multihead.train",
    "scoringbook.ch09_multihead.ablation_explorer",
    "scoringbook.ch09_multihead.ablation_declaration",
}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(c, marks=pytest.mark.slow) if c in SLOW else c
        for c in ALL
        if c not in NOT_CALLED
    ],
)
def test_contract(name):
    """Every defect fails, except those listed open in _open_defects.py; a listed one that no
    longer occurs fails too (remove it from the list): the list only shrinks."""
    if name not in EXAMPLES:
        pytest.fail(f"{name} has no example (test_every_public_callable_has_an_example)")
    listed = OPEN.get(name, {})
    # a listed "hangs" runs until the time limit (seconds each) and may pass or not on a busy
    # machine: the unit step does not rerun it (the report script does, to shrink the list)
    valid, rows = run_contract(name, frozenset(k for k, v in listed.items() if v == "hangs"))
    assert not valid.defect and valid.kind == "accepted", f"the example itself: {valid}"
    found = {(arg, label): o for arg, label, o in rows if o.defect}
    new = [
        f"{a} <- {lb}: {o.kind}: {o.detail}"
        for (a, lb), o in found.items()
        if (a, lb) not in listed
    ]
    assert not new, f"{name}, defects:\n  " + "\n  ".join(new)
    # a listed "hangs" may finish on a quiet machine (a time limit is not a fixed outcome)
    gone = [k for k in listed if k not in found and listed[k] != "hangs"]
    assert not gone, f"{name}: fixed, remove from tests/contract/_open_defects.py: {gone}"
