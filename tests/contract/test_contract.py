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
from _depth import depth

from attnlib.domains import declared
from scoringbook import manifest

from ._engine import SLOWER, TIMEOUT_S, function_name, judge, perturbations
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
            # attnlib.domains is the declaration machinery the harness reads (its checks are the
            # ones every declared callable runs, attacked through them)
            if info.name.startswith("_") or info.name in (
                "widgets",
                "plotting",
                "book",
                "domains",
                "tensor_domains",
            ):
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


def _declared_refuses(domains: dict, arg: str, value) -> bool:
    """Whether the declared domain of ``arg`` refuses ``value`` by itself (before the body)."""
    dom = domains.get(arg)
    if dom is None:
        return False
    try:
        dom(value, "f", arg, {})
    except (TypeError, ValueError):
        return True
    return False


def run_contract(name: str, skip: frozenset = frozenset()):
    """(valid outcome, [(arg, label, outcome)]) for one callable; perturbations in ``skip``
    ((arg, label) pairs) are not run. A training callable (``TRAINS``) is attacked, at the
    default depths, only with the values its declared domains refuse: a refused value never
    trains, and each accepted one would train its models again (seconds each); those run at
    ``TEST_DEPTH=deep`` (the deliberate deep run)."""
    fn = _resolve(name)
    ex = EXAMPLES[name]
    args, kwargs = ex.call()
    tr = bool(ex.torch_rng)
    mut = tuple(ex.mutates)
    t0 = time.perf_counter()
    valid = judge(fn, args, kwargs, None, check=ex.check, torch_rng=tr, mutates=mut)
    limit = max(TIMEOUT_S, SLOWER * (time.perf_counter() - t0))
    rows = []
    fname = function_name(fn)
    decl = declared(fn)
    trains_only_refused = name in TRAINS and depth() != "deep" and decl is not None
    for arg, label, expectation, a, k in perturbations(fn, ex):
        decided = ex.decisions.get((arg, label))
        if (decided and decided[0] == "not run") or (arg, label) in skip:
            continue
        if trains_only_refused:
            bad = inspect.signature(fn).bind(*a, **k).arguments[arg]
            if not _declared_refuses(decl[1], arg, bad):
                continue
        out = judge(fn, a, k, arg, torch_rng=tr, mutates=mut, timeout=limit, fname=fname)
        if decided:
            want = {"refuse": "refused", "accept": "accepted"}[decided[0]]
            if not out.defect and out.kind != want:
                out.kind, out.detail = "decision broken", f"decided {want}, got {out.kind}"
        elif expectation == "accept" and out.kind == "refused":
            out.kind = "refused a number"
        elif expectation == "refuse" and out.kind == "accepted":
            out.kind, out.detail = "accepted outside its domain", label
        elif out.kind == "non-finite" and ex.nonfinite_in_out and label in NONFINITE:
            out.kind, out.detail = "accepted", f"decided: {ex.nonfinite_in_out}"
        rows.append((arg, label, out))
    return valid, rows


#: callables that train models on every call the declared domains let through: attacked at
#: the default depths with refused values only (run_contract)
TRAINS = {
    "scoringbook.ch08_lengths.compare_models",
    "scoringbook.ch08_lengths.compare_seeds",
    "scoringbook.ch02_attention_pooling.bandwidth_training_declaration",
    "scoringbook.ch10_model.train",
    "scoringbook.seq2seq.train",
}

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
    "scoringbook.ch10_multihead.TrainRun",
    "scoringbook.ch10_multihead.train",
    "scoringbook.ch10_multihead.ablation_explorer",
    "scoringbook.ch10_multihead.ablation_declaration",
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


# ------------------------------------------------------------------ declarations and gradients


def test_every_public_callable_declares_its_domains():
    """Each public callable declares its parameters' domains (attnlib.domains.declare), read
    by the checks and by this harness, unless the rule exempts it (``exempt``: no parameters,
    an exception class, a torch-free module); _undeclared.py lists any other with its reason,
    and that list only shrinks (it is empty: kept as the mechanism)."""
    from attnlib.domains import declared

    from ._undeclared import UNDECLARED, exempt

    missing = []
    for name in ALL:
        obj = _resolve(name)
        if declared(obj) is None and exempt(name, obj) is None and name not in UNDECLARED:
            missing.append(name)
    assert not missing, (
        "public callables without declared domains (decorate them with "
        f"attnlib.domains.declare): {missing}"
    )
    done = [n for n in UNDECLARED if n in ALL and declared(_resolve(n)) is not None]
    assert not done, f"declared now: remove from tests/contract/_undeclared.py: {done}"
    stale = [n for n in UNDECLARED if n not in ALL]
    assert not stale, f"no longer public: remove from tests/contract/_undeclared.py: {stale}"


def _module_forwards():
    import attnlib

    def T(*shape, seed=0):
        return torch.rand(*shape, generator=torch.Generator().manual_seed(seed))

    def qkv(d_q=4, d_k=4):
        return T(2, 3, d_q), T(2, 5, d_k, seed=1), T(2, 5, 2, seed=2)

    return {
        "attnlib.attention.DotProductAttention": (lambda: attnlib.DotProductAttention(), qkv),
        "attnlib.additive.AdditiveAttention": (
            lambda: attnlib.AdditiveAttention(8),
            lambda: qkv(4, 6),
        ),
        "attnlib.cosine.CosineAttention": (lambda: attnlib.CosineAttention(0.5), qkv),
        "attnlib.bilinear.GeneralAttention": (
            lambda: attnlib.GeneralAttention(4, 6),
            lambda: qkv(4, 6),
        ),
        "attnlib.transformer.MultiHeadAttention": (
            lambda: attnlib.MultiHeadAttention(8, 2, 0.0),
            lambda: qkv(4, 6),
        ),
        "attnlib.transformer.PositionalEncoding": (
            lambda: attnlib.PositionalEncoding(4, 0.0),
            lambda: (T(2, 3, 4),),
        ),
    }


def _differentiable_cases():
    """(id, callable, args, kwargs, differentiable) for every declared differentiable
    function (its example's call) and every attention module's forward."""
    from attnlib.domains import declared

    cases = []
    for name in ALL:
        obj = _resolve(name)
        d = declared(obj)
        if d is None or not d[2] or isinstance(obj, type) or name not in EXAMPLES:
            continue
        cases.append((name, lambda obj=obj, name=name: (obj, *EXAMPLES[name].call())))
    for name, (make, inputs) in _module_forwards().items():

        def case(make=make, inputs=inputs):
            with torch.random.fork_rng():
                torch.manual_seed(0)
                m = make().double().eval()
            return m.forward, inputs(), {}

        cases.append((f"{name}.forward", case))
    return cases


@pytest.mark.parametrize("tie", [False, True], ids=["generic", "tie q=k"])
@pytest.mark.parametrize(
    "name,case", _differentiable_cases(), ids=lambda x: x if isinstance(x, str) else ""
)
def test_gradients_are_finite(name, case, tie):
    """A declared-differentiable callable has finite gradients in every differentiable
    argument, at its example and at a tie (keys equal to queries)."""
    from attnlib.domains import declared

    from ._domains import gradient_problem

    fn, args, kwargs = case()
    d = declared(fn)
    assert d is not None and d[2], f"{name}: declares no differentiable arguments"
    problem = gradient_problem(fn, args, kwargs, d[2], tie)
    assert problem is None, f"{name}: {problem}"


def test_scoringbook_reaches_attnlibs_checks_through_the_public_api():
    """scoringbook validates with attnlib.domains (the public declaration and validation API),
    never with attnlib's private _validate, _checks or _rng modules."""
    import ast
    from pathlib import Path

    import scoringbook

    bad = []
    for path in sorted(Path(scoringbook.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            mods = []
            if isinstance(node, ast.ImportFrom) and node.module:
                mods = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            for m in mods:
                parts = m.split(".")
                if parts[0] == "attnlib" and len(parts) > 1 and parts[1].startswith("_"):
                    bad.append(f"{path.name}:{node.lineno}: {m}")
    assert not bad, f"scoringbook imports attnlib's private modules (use attnlib.domains): {bad}"


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
