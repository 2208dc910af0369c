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
import torch

from scoringbook import manifest

from ._engine import SLOWER, TIMEOUT_S, judge, perturbations
from ._open_defects import OPEN
from .examples import EXAMPLES

NONFINITE = ("nan", "+inf", "-inf", "nan entry")

#: callables never called here (the example is still required), with the reason: the chapter
#: manifest's (scoringbook/manifest.py) slow runs of each chapter
NOT_CALLED = {name: why for c in manifest.CHAPTERS for name, why in c.not_called.items()}


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


@pytest.mark.parametrize("name", [c for c in ALL if c not in NOT_CALLED])
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


#: the scoring functions of attnlib: each needs a gradient check at a tie and errors naming it
SCORES = sorted(c for c in ALL if c.startswith("attnlib.scoring.") and c.endswith("_scores"))


def test_every_scoring_function_has_a_tie():
    missing = [c for c in SCORES if EXAMPLES.get(c) is None or EXAMPLES[c].tie is None]
    assert SCORES and not missing, (
        "scoring functions without tie= in tests/contract/examples.py (a call where a query "
        f"equals a key, whose gradient must be finite): {missing}"
    )


@pytest.mark.parametrize("name", SCORES)
def test_scoring_function_has_a_finite_gradient_at_a_tie(name):
    """Where a query equals a key, the gradient with respect to every floating tensor argument
    is finite (a norm's kink at 0 must come out as a subgradient, not 0/0)."""
    fn = _resolve(name)
    args, kwargs = EXAMPLES[name].tie()
    q, k = args[0], args[1]
    assert (torch.cdist(q.double(), k.double()) == 0).any(), f"{name}: tie= has no tie"
    leaves = []

    def leaf(x):
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            x = x.detach().clone().requires_grad_(True)
            leaves.append(x)
        return x

    args = tuple(leaf(a) for a in args)
    kwargs = {n: leaf(v) for n, v in kwargs.items()}
    out = fn(*args, **kwargs)  # (batch, n_queries, n_keys)
    weights = torch.rand(out.shape, generator=torch.Generator().manual_seed(0), dtype=out.dtype)
    (out * weights).sum().backward()
    assert torch.isfinite(out).all(), f"{name}: scores at a tie {out}"
    for x in leaves:
        assert x.grad is not None and torch.isfinite(x.grad).all(), f"{name}: gradient {x.grad}"


@pytest.mark.parametrize("name", SCORES)
def test_scoring_function_errors_name_it(name):
    """Every bad input a scoring function refuses is refused with its own name in the error."""
    fn = _resolve(name)
    _, rows = run_contract(name)
    refused = [(a, lb, o.detail) for a, lb, o in rows if o.kind == "refused"]
    unnamed = [r for r in refused if f"{fn.__name__}:" not in r[2]]
    assert refused and not unnamed, f"{name}: errors without '{fn.__name__}:': {unnamed}"
