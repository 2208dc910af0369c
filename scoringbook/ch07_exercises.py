"""Chapter 7's checkers.

- :func:`check_alignment`: a predicted alignment against the one the date task implies.
- :func:`check_attention_module`: a learner's attention module, trained in the date model.
- :func:`check_weights` (from chapter 1) is re-exported: the chapter uses it.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from attnlib.domains import (
    Anything,
    Int,
    Seed,
    Str,
    as_int,
    as_seed,
    declare,
    describe,
    isolated_global_rng,
)
from scoringbook._checking import ANSWER, CheckResult, _exc, _fail, _pair, checker
from scoringbook.ch01_exercises import check_weights
from scoringbook.ch07_dates import (
    N_OUT,
    DateModel,
    accuracy,
    encode_sources,
    encode_targets,
    format_target,
    implied_alignment,
    random_dates,
    random_sources,
)
from scoringbook.seq2seq import train

__all__ = [
    "check_alignment",
    "check_attention_module",
    "check_weights",
]


@declare(answer=Anything("a learner's (N_OUT, n_in) weights: checked in the body"), source=Str())
@checker
def check_alignment(answer, source: str) -> CheckResult:
    """Check a predicted alignment for ``source`` against the one the task implies.

    ``answer`` is ``(N_OUT, len(source))``: one row per output character of the ISO date
    (``"YYYY-MM-DD"``), one column per input character, with 1 where an output character
    copies an input character, ``1/m`` on each of the ``m`` letters of the month's name
    for the two month digits, and zero rows for the dashes. The leading ``0`` of a one-digit
    day copies nothing, so its row may be all zeros, or point at the day's digit, which
    decides it (:func:`scoringbook.ch07_dates.implied_alignment`'s reading): both are
    accepted. Compared within 1e-3.

    A wrong row is reported with the first entry that differs. An answer is called
    transposed only when its transpose is right (a 10-character date makes a square
    matrix, which has the right shape either way).
    """
    fn = "check_alignment"
    want = implied_alignment(source, fn=fn).double()  # (N_OUT, n_in); raises for a bad source
    readings = [want]
    if want[8].equal(want[9]):  # a one-digit day: the leading 0 may also copy nothing
        alt = want.clone()
        alt[8] = 0.0
        readings.append(alt)
    shape = (N_OUT, len(source))
    if isinstance(answer, Tensor) and answer.is_complex():
        return _fail(f"your alignment has dtype {answer.dtype}; it holds real numbers (shares)")
    try:
        got = torch.as_tensor(
            answer.detach() if isinstance(answer, Tensor) else answer, dtype=torch.float64
        )
    except (TypeError, ValueError, RuntimeError):
        return _fail(
            f"your answer is an object of type {type(answer).__name__}; expected a {shape} tensor"
        )

    def matches(a: Tensor) -> bool:
        return any(torch.allclose(a, r, atol=1e-3, rtol=0) for r in readings)

    if tuple(got.shape) == shape[::-1] and matches(got.T):
        return _fail(
            f"your alignment is transposed: shape {tuple(got.shape)} with input characters as "
            f"rows. Output characters are the rows (queries), input characters the columns "
            f"(keys): shape {shape}"
        )
    if tuple(got.shape) != shape:
        return _fail(
            f"your alignment has shape {tuple(got.shape)}; expected {shape}: one row per "
            f"character of 'YYYY-MM-DD', one column per character of {source!r}"
        )
    if not torch.isfinite(got).all():
        i, j = (int(v) for v in torch.nonzero(~torch.isfinite(got))[0])
        return _fail(
            f"your alignment is {got[i, j].item()} at row {i}, column {j}; shares are finite"
        )
    if matches(got):
        return CheckResult(True, f"all {N_OUT} rows match the alignment that {source!r} implies")
    target = "YYYY-MM-DD"
    for i in range(N_OUT):
        if any(torch.allclose(got[i], r[i], atol=1e-3, rtol=0) for r in readings):
            continue
        cols = [j for j in range(len(source)) if want[i, j] > 0]
        if not cols:
            where = "no input character (a dash is always written): a zero row"
        else:
            where = "input characters " + ", ".join(f"{j} ({source[j]!r})" for j in cols)
            if len(readings) > 1 and i == 8:
                where += " (or nothing: a zero row; the leading 0 copies no character)"
        j = int(torch.nonzero((got[i] - want[i]).abs() > 1e-3)[0])
        got_s, want_s = _pair(got[i, j], want[i, j])
        return _fail(
            f"row {i} (the output's {target[i]!r}) should point at {where}; at column {j} "
            f"({source[j]!r}) your row has {got_s}, expected {want_s}"
        )
    return _fail("your alignment differs from the implied one")  # pragma: no cover


def _measured_scores(module: nn.Module, queries: Tensor, keys: Tensor) -> Tensor:
    """The module's scores for each query against all of ``keys``, up to a constant per
    query: log-weights minus those of key 0, ``(batch, n_keys)``; NaN if a weight is 0."""
    batch, n = queries.shape[0], keys.shape[0]
    kv = keys.unsqueeze(0).expand(batch, n, keys.shape[1])  # (batch, n_keys, h)
    module(queries.unsqueeze(1), kv, kv, torch.full((batch,), n))
    w = module.attention_weights.detach().double()[:, 0]  # (batch, n_keys)
    logw = torch.where(w > 0, w.clamp_min(1e-300).log(), torch.full_like(w, float("nan")))
    return logw - logw[:, :1]  # (batch, n_keys)


def _check_projection(module: nn.Module, h: int, g: torch.Generator) -> str | None:
    """None if the module's scores are (W q)ᵀk / √h for a learned W; else what differs.

    The scores of a dot product through a linear map are bilinear: a(q, k) = qᵀ M k. They
    are measured with unit queries against unit keys (log-weights, up to a constant per
    query), which gives M (and a key-only term cᵀk, e.g. from a bias), then checked on
    random queries and keys.
    """
    s = 0.25  # small inputs: no weight underflows
    basis = torch.cat([torch.zeros(1, h), s * torch.eye(h)])  # (h + 1, h): 0, s e_1, ...
    with torch.no_grad():
        d = _measured_scores(module, basis, basis)  # (h + 1, h + 1)
        if not torch.isfinite(d).all():
            return (
                "some of your weights are exactly 0 for small unmasked inputs; a softmax of "
                "finite scores is never 0"
            )
        c = d[0, 1:] / s  # the key-only term: scores of the zero query
        M = (d[1:, 1:] - d[:1, 1:]) / (s * s)  # (h, h)
        q = torch.randn(6, h, generator=g)
        k = 0.5 * torch.randn(7, h, generator=g)
        got = _measured_scores(module, q, k)  # (6, 7)
    want = (q.double() @ M + c) @ k.double().T  # (6, 7)
    want = want - want[:, :1]
    scale = max(1.0, float(want.abs().max()))
    if not torch.isfinite(got).all() or (got - want).abs().max() > 1e-3 * scale:
        return (
            "your scores are not a dot product of a linear map of the query with the key: "
            "they do not change linearly with the key (additive attention's tanh, for "
            "instance, does not). The exercise asks for a(q, k) = (W q)ᵀk / √h"
        )
    if M.abs().max() < 1e-6:
        return "your weights do not depend on the query: score the query against the keys"
    if c.abs().max() > 1e-3 * max(1.0, float(M.abs().max())):
        return (
            "your scores have a term in the key alone, bᵀk (a bias in the query's linear "
            "map?): use nn.Linear(h, h, bias=False), as in a(q, k) = (W q)ᵀk / √h"
        )
    params = [p for p in module.parameters() if p.requires_grad]
    if not params:
        ident = torch.allclose(M, torch.eye(h, dtype=M.dtype) / h**0.5, atol=1e-4)
        what = "q·k/√h, chapter 5's scaled dot product" if ident else "a fixed bilinear form"
        return (
            f"your scores are {what}, with nothing to learn: give the query a learned linear "
            f"map first, W = nn.Linear(h, h, bias=False), and score (W q)ᵀk / √h"
        )
    for P, what in _candidate_maps(params, h):
        ratio = float((M * P).sum() / (P * P).sum()) if (P * P).sum() > 0 else 0.0
        if ratio and torch.allclose(M, ratio * P, atol=1e-4 * max(1.0, float(M.abs().max()))):
            if abs(ratio * h**0.5 - 1) < 1e-3:
                return None
            if abs(ratio - 1) < 1e-3:
                return (
                    f"your scores are {what}: divide by √h, as scaled dot-product attention does"
                )
            return f"your scores are {what} times {ratio:.4g}; expected 1/√h = {h**-0.5:.4g}"
    return None  # bilinear through learned parameters, but not one or two matrices: not checked


def _candidate_maps(params: list[Tensor], h: int):
    """The (h, h) matrices M the scores qᵀ M k may be made of, with how to name them: one
    parameter W (scores (W q)ᵀk) or a product of two, W₁ᵀW₂ (scores (W₁ q)ᵀ(W₂ k)), in both
    layouts of each (``nn.Linear`` keeps (out, in))."""
    mats = [p.detach().double() for p in params if p.dim() == 2]
    for P in mats:
        if tuple(P.shape) == (h, h):
            yield P, "(W q)ᵀk"
            yield P.T, "(W q)ᵀk"
    for i, A in enumerate(mats):
        for j, B in enumerate(mats):
            if i == j:
                continue
            for A_, B_ in ((A, B), (A.T, B), (A, B.T), (A.T, B.T)):
                if A_.shape[1] == B_.shape[0] and (A_.shape[0], B_.shape[1]) == (h, h):
                    yield A_ @ B_, "(W₁ q)ᵀ(W₂ k)"


def _check_structure(
    factory: Callable[[int], nn.Module], h: int, lens: Tensor, g: torch.Generator
) -> str | None:
    """None if ``factory(h)`` builds a module with the exercise's interface, masking, output
    and scores on inputs of ``len(lens)`` sequences of ``max(lens)`` keys; else the verdict."""
    batch, n_in = len(lens), int(lens.max())
    sizes = f"h = {h}, batch = {batch}, n_in = {n_in}"
    try:
        module = factory(h)
        if isinstance(module, nn.Module):
            module.eval()  # the weights are read before any dropout
        q = torch.randn(batch, 1, h, generator=g)
        kv = torch.randn(batch, n_in, h, generator=g)
        out = module(q, kv, kv, lens)
    except Exception as err:  # the learner's code: report, do not crash the notebook
        return f"calling your module ({sizes}) failed: {_exc(err)}"
    if not isinstance(module, nn.Module):
        return (
            f"your factory returned {describe(module)}; it must return an nn.Module (so that "
            "the date model trains its parameters)"
        )
    if not isinstance(out, Tensor) or tuple(out.shape) != (batch, 1, h):
        shape = tuple(out.shape) if isinstance(out, Tensor) else type(out).__name__
        return (
            f"your module returned {shape} ({sizes}); expected the context (batch, 1, h) = "
            f"{(batch, 1, h)}"
        )
    w = getattr(module, "attention_weights", None)
    if not isinstance(w, Tensor) or tuple(w.shape) != (batch, 1, n_in):
        return (
            "your module must keep .attention_weights of shape (batch, 1, n_in) = "
            f"{(batch, 1, n_in)} after each call ({sizes})"
        )
    w = w.detach().double()
    masked = torch.arange(n_in) >= lens.view(-1, 1, 1)
    if (w[masked] != 0).any():
        return "your module gives weight to padded keys: pass valid_lens on to the masked softmax"
    sums = w.sum(-1).flatten()
    if not torch.allclose(sums, torch.ones(batch, dtype=torch.float64), atol=1e-5):
        b = int(torch.nonzero((sums - 1).abs() > 1e-5)[0])
        got_s, _ = _pair(sums[b], 1.0)
        return f"the weights of sequence {b} sum to {got_s}; a softmax row sums to 1"
    want_out = torch.bmm(w, kv.detach().double())  # (batch, 1, h): weights @ values
    got_out = out.detach().double()
    if not torch.allclose(got_out, want_out, atol=1e-4, rtol=1e-4):
        uniform = kv.detach().double().mean(dim=1, keepdim=True)  # (batch, 1, h)
        hint = (
            " (it is the plain mean of the values: the weights are never used)"
            if torch.allclose(got_out, uniform, atol=1e-4)
            else ""
        )
        b = int(torch.nonzero((got_out - want_out).abs().amax(dim=(1, 2)) > 1e-4)[0])
        return (
            f"your module's output for sequence {b} is not its weights @ values{hint}; "
            f"the context is the weighted average of the values, with the weights you keep "
            f"in .attention_weights"
        )
    try:
        return _check_projection(module, h, g)
    except Exception as err:
        return f"calling your module ({sizes}) failed: {_exc(err)}"


@declare(factory=ANSWER, steps=Int(ge=1), seed=Seed())
@checker
def check_attention_module(
    factory: Callable[[int], nn.Module], *, steps: int = 300, seed: int = 0
) -> CheckResult:
    r"""Check an attention module for exercise 2: :math:`a(\mathbf q, \mathbf k) =
    (\mathbf W \mathbf q)^\top \mathbf k / \sqrt h` with a learned :math:`\mathbf W`, then
    train the date model with it.

    ``factory(num_hiddens)`` must return a module called as ``module(queries, keys, values,
    valid_lens)`` with queries ``(batch, 1, h)``, keys = values ``(batch, n_in, h)`` (checked
    at two sizes that differ in each: h = 8, batch 3, n_in 5 and h = 6, batch 2, n_in 7),
    returning ``(batch, 1, h)`` and keeping ``.attention_weights`` ``(batch, 1, n_in)``
    (masked keys 0, rows summing to 1). Its scores, measured from the weights, must be a
    dot product of a linear map of the query with the key: bilinear, with no term in the
    key alone, through a learned parameter (a plain ``q·k/√h`` and additive attention
    fail), and, when one ``(h, h)`` parameter or a product of two parameters is the map,
    divided by ``√h``; its output must be its weights @ values. If so, a date
    model is trained with it for
    ``steps`` steps (an int >= 1; 300 take a few seconds) and its held-out exact accuracy
    must reach 0.9. Everything random is drawn from ``seed`` (an int): the model's initial
    weights on a forked global generator, so the reader's generators are left as they were.
    """
    fn = "check_attention_module"
    if not callable(factory):
        raise TypeError(
            f"{fn}: factory must be a function num_hiddens -> module; got {describe(factory)}"
        )
    steps = as_int(steps, "steps", fn, min=1)
    seed = as_seed(seed, "seed", fn)
    g = torch.Generator().manual_seed(seed)
    # two sizes that differ in h, batch and n_in: a module that hard-codes a size fails one
    for h, lens in ((8, torch.tensor([2, 5, 1])), (6, torch.tensor([7, 3]))):
        problem = _check_structure(factory, h, lens, g)
        if problem:
            return _fail(problem)
    gen = torch.Generator().manual_seed(seed)
    dates = random_dates(3000, gen)
    src, src_lens = encode_sources(random_sources(dates, gen))
    tgt = encode_targets([format_target(d) for d in dates])
    try:
        with isolated_global_rng(seed=seed):  # the model's initial weights, from the seed
            model = DateModel(attention=factory)
            model(src[:2], src_lens[:2], tgt[:2])  # size lazy layers before the optimiser
        train(model, src, src_lens, tgt, steps=steps, generator=gen)
    except Exception as err:  # the learner's module in a real model: report it
        return _fail(f"training the date model with your module failed: {_exc(err)}")
    test_dates = random_dates(500, gen)
    acc = accuracy(model, random_sources(test_dates, gen), test_dates)
    if acc < 0.9:
        return _fail(
            f"your module scores (W q)ᵀk / √h with a learned W, but the model trained with it "
            f"for {steps} steps rewrites only {acc:.0%} of 500 held-out dates exactly "
            f"(the bar is 90%)"
        )
    return CheckResult(
        True,
        f"your module scores (W q)ᵀk / √h with a learned W, masks the padding, and after "
        f"{steps} steps the model rewrites {acc:.0%} of 500 held-out dates exactly",
    )
