"""Tests for the book's checkers (scoringbook.chNN_*.check_*): right answers pass,
classic wrong answers get a diagnosis."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
from _depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib import scoring
from attnlib.kernels import KERNELS
from attnlib.masking import masked_softmax, valid_lens_to_mask
from scoringbook._checking import CheckResult
from scoringbook.ch01_exercises import check_weights
from scoringbook.ch02_exercises import KERNEL_FORMULAS, check_kernel
from scoringbook.ch03_masked_softmax import check_masked_softmax
from scoringbook.ch04_additive_attention import check_scores


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _fails_with(result: CheckResult, *fragments: str) -> None:
    assert isinstance(result, CheckResult)
    assert not result, f"expected a failure, got {result!r}"
    assert repr(result).startswith("Not yet: ")
    for fragment in fragments:
        assert fragment in result.message, f"{fragment!r} not in {result.message!r}"


def _passes(result: CheckResult) -> None:
    assert isinstance(result, CheckResult)
    assert result, f"expected a pass, got {result!r}"
    assert result.ok is True and repr(result).startswith("Correct: ")


# --------------------------------------------------------------------------- CheckResult
def test_check_result_truthiness_repr_and_markdown():
    good, bad = CheckResult(True, "fine"), CheckResult(False, "valid_lens=[2, 3] *wrong*")
    assert bool(good) and not bool(bad)
    assert repr(good) == "Correct: fine" and str(bad) == "Not yet: valid_lens=[2, 3] *wrong*"
    md = bad._repr_markdown_()
    assert md.startswith("**Not yet:** ")
    assert r"valid\_lens=\[2, 3\] \*wrong\*" in md  # markdown cannot garble the message
    with pytest.raises(AttributeError):
        good.ok = False  # frozen


def _pictographs(text: str) -> list[str]:
    """Characters a reader without an emoji font sees as empty boxes: emoji and pictographs
    (U+1F000 and up), dingbats and miscellaneous symbols (U+2600-U+27BF), and the emoji
    variation selector."""
    return [c for c in text if ord(c) >= 0x1F000 or 0x2600 <= ord(c) <= 0x27BF or c == "\ufe0f"]


def test_verdicts_are_words_not_emoji():
    for ok in (True, False):
        r = CheckResult(ok, "row 1 sums to 0.70")
        for shown in (repr(r), str(r), r._repr_markdown_()):
            assert not _pictographs(shown), f"verdict {shown!r} starts with {_pictographs(shown)}"
    assert repr(CheckResult(True, "x")).split()[0] != repr(CheckResult(False, "x")).split()[0]


# --------------------------------------------------------------------------- check_weights
def test_check_weights_accepts_masked_softmax_outputs():
    X = torch.randn(2, 3, 5, generator=_gen(1))
    for lens in (None, torch.tensor([2, 0]), torch.tensor([[1, 5, 0], [3, 3, 2]])):
        _passes(check_weights(masked_softmax(X, lens), lens))
    _passes(check_weights(masked_softmax(X, torch.tensor([2, 5])).numpy(), [2, 5]))
    leaf = X.clone().requires_grad_(True)
    _passes(check_weights(masked_softmax(leaf, torch.tensor([1, 4])), torch.tensor([1, 4])))
    two_d = torch.softmax(torch.randn(4, 6, generator=_gen(2)), dim=-1)
    _passes(check_weights(two_d))
    lens = torch.tensor([6, 2, 1, 0])  # (n_queries,) for 2-D weights
    _passes(
        check_weights(masked_softmax(torch.randn(1, 4, 6, generator=_gen(3)), lens[None])[0], lens)
    )
    half = masked_softmax(torch.randn(2, 4, 50, generator=_gen(4)).half(), torch.tensor([50, 17]))
    _passes(check_weights(half, torch.tensor([50, 17])))


@settings(max_examples=examples(40), deadline=None)
@given(
    batch=st.integers(1, 3),
    n_queries=st.integers(1, 4),
    n_keys=st.integers(1, 6),
    per_query=st.booleans(),
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([0.1, 1.0, 30.0]),
)
def test_check_weights_accepts_any_masked_softmax(
    batch, n_queries, n_keys, per_query, seed, scale
):
    g = _gen(seed)
    X = torch.randn(batch, n_queries, n_keys, generator=g) * scale
    shape = (batch, n_queries) if per_query else (batch,)
    lens = torch.randint(0, n_keys + 1, shape, generator=g)
    _passes(check_weights(masked_softmax(X, lens), lens))


def test_check_weights_reports_row_sum_with_position():
    W = masked_softmax(torch.randn(2, 3, 4, generator=_gen(5)), torch.tensor([3, 4]))
    W[0, 1] *= 0.7
    expected_sum = f"{float(W[0, 1].sum()):.2f}"
    _fails_with(
        check_weights(W, torch.tensor([3, 4])),
        f"row 1 of batch 0 sums to {expected_sum}",
        "must sum to 1 over the valid keys",
    )
    W2 = torch.tensor([[0.5, 0.5, 0.0], [0.2, 0.5, 0.0]])
    _fails_with(check_weights(W2, 2), "row 1 sums to 0.70")  # 2-D weights: no batch in message


def test_check_weights_finds_leaks_negatives_nans_and_uniform_empty_rows():
    lens = torch.tensor([2, 0])
    W = masked_softmax(torch.randn(2, 2, 4, generator=_gen(6)), lens)
    leaked = W.clone()
    leaked[0, 1, 3] = 0.25
    _fails_with(check_weights(leaked, lens), "row 1 of batch 0, key 3", "masked", "exactly 0")
    tiny = W.clone()
    tiny[0, 0, 2] = 1e-30  # not exactly zero: still a leak
    _fails_with(check_weights(tiny, lens), "key 2", "masked")
    uniform = W.clone()
    uniform[1] = 1.0 / 4  # d2l's -1e6 fill on a row with no valid key
    _fails_with(
        check_weights(uniform, lens),
        "row 0 of batch 1",
        "no valid key",
        "uniform",
        "0.25",
        "all zeros",
    )
    nan = W.clone()
    nan[1, 0] = float("nan")
    _fails_with(check_weights(nan, lens), "row 0 of batch 1, key 0", "NaN", "finite", "all zeros")
    _fails_with(check_weights(torch.tensor([[1.5, -0.5]])), "key 1", "-0.50", "nonnegative")
    _fails_with(check_weights(torch.rand(2, 2, 2, 2)), "shape (2, 2, 2, 2)")


def test_check_weights_rejects_unusable_input():
    with pytest.raises(TypeError, match="weights"):
        check_weights("not weights")
    with pytest.raises(ValueError, match="valid_lens"):
        check_weights(torch.full((2, 3, 4), 0.25), torch.tensor([1, 2, 3]))
    with pytest.raises(ValueError, match="valid_lens"):
        check_weights(torch.full((2, 3, 4), 0.25), torch.tensor([5, 1]))  # > n_keys


# --------------------------------------------------------------------------- check_masked_softmax
def d2l_masked_softmax(X, valid_lens):
    """d2l's version: -1e6 written into X in place (through a reshape view)."""
    if valid_lens is None:
        return torch.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    flat = X.reshape(-1, shape[-1])
    mask = torch.arange(flat.shape[1])[None, :] < valid_lens[:, None]
    flat[~mask] = -1e6
    return torch.softmax(flat.reshape(shape), dim=-1)


def _mask(X, valid_lens):
    return valid_lens_to_mask(valid_lens, X.shape[1], X.shape[2])


def copy_fill_softmax(X, valid_lens):
    """No mutation, but a row with no valid key stays uniform."""
    if valid_lens is None:
        return torch.softmax(X, dim=-1)
    return torch.softmax(X.masked_fill(~_mask(X, valid_lens), -1e6), dim=-1)


def fill_then_multiply(X, valid_lens):
    """Right in float32; in float16 -1e6 becomes -inf and a fully masked row gives NaN."""
    if valid_lens is None:
        return torch.softmax(X, dim=-1)
    m = _mask(X, valid_lens)
    filled = X.clone()
    filled[~m] = -1e6  # on a copy; float16 rounds -1e6 to -inf
    return torch.softmax(filled, dim=-1) * m


def masked_fill_big_constant(X, valid_lens):
    """X.masked_fill(~m, -1e6): fine in float32, an overflow error in float16."""
    if valid_lens is None:
        return torch.softmax(X, dim=-1)
    m = _mask(X, valid_lens)
    return torch.softmax(X.masked_fill(~m, -1e6), dim=-1) * m


def naive_exp(X, valid_lens):
    """exp without subtracting the maximum: overflows for float16 scores of 1e4."""
    m = torch.ones_like(X, dtype=torch.bool) if valid_lens is None else _mask(X, valid_lens)
    e = X.exp() * m
    s = e.sum(-1, keepdim=True)
    return torch.where(s > 0, e / s, torch.zeros_like(e))


def test_check_masked_softmax_accepts_attnlib_and_leaves_rng_alone():
    state = torch.get_rng_state()
    _passes(check_masked_softmax(masked_softmax))
    _passes(check_masked_softmax(lambda X, valid_lens: masked_softmax(X, valid_lens)))
    assert torch.equal(state, torch.get_rng_state())


@pytest.mark.parametrize(
    "fn, fragments",
    [
        (
            d2l_masked_softmax,
            ["valid_lens=[2, 3]", "wrote into its input X", "-1000000", "masked_fill"],
        ),
        (copy_fill_softmax, ["no valid key", "uniform", "0.25 each", "expected zeros"]),
        (fill_then_multiply, ["float16", "no valid key", "NaN", "expected zeros"]),
        (masked_fill_big_constant, ["float16", "raised RuntimeError", "finfo"]),
        (naive_exp, ["float16", "overflows"]),
        (lambda X, valid_lens: torch.softmax(X, dim=-1), ["expected 0 (masked)", "key 2"]),
        (
            lambda X, valid_lens: masked_softmax(X.detach(), valid_lens),
            ["leaf tensor", "do not carry gradients"],
        ),
        (
            lambda X, valid_lens: masked_softmax(X.detach(), valid_lens) + 0 * X,
            ["gradient with respect to X"],
        ),
        (
            lambda X, valid_lens: masked_softmax(X, valid_lens).to(
                torch.bfloat16 if X.dtype == torch.float16 else X.dtype
            ),
            ["dtype torch.bfloat16", "expected torch.float16", "float32 is accepted too"],
        ),
        (
            lambda X, valid_lens: masked_softmax(X, valid_lens).reshape(-1, X.shape[-1]),
            ["shape (4, 4)", "(2, 2, 4)"],
        ),
        (lambda X, valid_lens: (masked_softmax(X, valid_lens), X), ["tuple"]),
        (lambda X: X, ["raised TypeError"]),
    ],
)
def test_check_masked_softmax_diagnoses(fn, fragments):
    _fails_with(check_masked_softmax(fn), *fragments)


def test_check_masked_softmax_d2l_fails_on_leaf_even_without_the_first_cases():
    # With a cloned input d2l's version gets past the mutation check, then the uniform row.
    _fails_with(check_masked_softmax(lambda X, v: d2l_masked_softmax(X.clone(), v)), "uniform")


def test_check_masked_softmax_rejects_non_callable():
    with pytest.raises(TypeError, match="callable"):
        check_masked_softmax(masked_softmax(torch.zeros(1, 1, 2)))


# --------------------------------------------------------------------------- check_kernel
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_check_kernel_accepts_attnlib_kernels(name):
    _passes(check_kernel(KERNELS[name], name))


def test_kernel_formulas_cover_every_kernel():
    assert set(KERNEL_FORMULAS) == set(KERNELS)


def test_check_kernel_flags_triangular_for_epanechnikov():
    d2l_epanechnikov = lambda u: torch.clamp(1 - u.abs(), min=0)  # noqa: E731
    _fails_with(check_kernel(d2l_epanechnikov, "epanechnikov"), "triangular", "¾(1 − u²)")


def test_check_kernel_diagnoses_constant_factor_edges_and_window():
    u0 = torch.zeros(1, dtype=torch.float64)
    ratio = float(torch.exp(-(u0**2) / 2) / KERNELS["gaussian"](u0))  # computed, not typed in
    _fails_with(
        check_kernel(lambda u: torch.exp(-(u**2) / 2), "gaussian"), f"{ratio:.4g} times", "cancels"
    )
    _fails_with(
        check_kernel(lambda u: (u.abs() < 1).double() * 0.5, "boxcar"), "window edges", "<= 1"
    )
    _fails_with(
        check_kernel(lambda u: 0.75 * (1 - u**2), "epanechnikov"),
        "outside the window",
        "expected 0",
    )
    _fails_with(
        check_kernel(lambda u: math.exp(-(float(u) ** 2) / 2), "gaussian"), "raised", "elementwise"
    )
    _fails_with(check_kernel(lambda u: torch.cos(u), "gaussian"), "differs", "at u =")
    _fails_with(check_kernel(lambda u: torch.tensor(1.0), "constant"), "shape ()")
    _fails_with(check_kernel(lambda u: u.div_(0.0), "triangular"), "wrote into its input u")


def test_check_kernel_rejects_unusable_input():
    with pytest.raises(ValueError, match="name must be one of"):
        check_kernel(KERNELS["gaussian"], "cosine")
    with pytest.raises(TypeError, match="callable"):
        check_kernel(0.5, "boxcar")


# --------------------------------------------------------------------------- check_scores
REFERENCE = {
    "dot_product": scoring.dot_product_scores,
    "additive": scoring.additive_scores,
    "bilinear": scoring.bilinear_scores,
    "gaussian": scoring.gaussian_scores,
}


@pytest.mark.parametrize("kind", sorted(REFERENCE))
def test_check_scores_accepts_attnlib(kind):
    state = torch.get_rng_state()
    _passes(check_scores(REFERENCE[kind], kind))
    assert torch.equal(state, torch.get_rng_state())


def test_check_scores_accepts_independent_correct_versions():
    def additive(q, k, W_q, W_k, w_v):
        feats = torch.tanh((q @ W_q.T).unsqueeze(2) + (k @ W_k.T).unsqueeze(1))  # (b, nq, nk, h)
        return feats @ w_v

    _passes(
        check_scores(lambda q, k: q @ k.transpose(1, 2) / math.sqrt(q.shape[-1]), "dot_product")
    )
    _passes(check_scores(additive, "additive"))
    _passes(check_scores(lambda q, k, M: q @ M @ k.transpose(1, 2), "bilinear"))
    _passes(check_scores(lambda q, k, s: -(torch.cdist(q, k) ** 2) / (2 * s**2), "gaussian"))


@pytest.mark.parametrize(
    "kind, fn, fragments",
    [
        (
            "dot_product",
            lambda q, k: q @ k.transpose(1, 2),
            ["forgot to divide by √d", "d = queries.shape[-1]"],
        ),
        (
            "dot_product",
            lambda q, k: k @ q.transpose(1, 2) / math.sqrt(8),
            ["shape (2, 4, 3)", "(batch, n_keys, n_queries)", "(2, 3, 4)"],
        ),
        ("dot_product", lambda q, k: -q @ k.transpose(1, 2) / math.sqrt(8), ["sign"]),
        (
            "dot_product",
            lambda q, k: q @ k.transpose(1, 2) / 8,
            ["divided by d = 8 instead of √d"],
        ),
        ("gaussian", lambda q, k, s: -(torch.cdist(q, k) ** 2) / s**2, ["½"]),
        ("gaussian", lambda q, k, s: torch.cdist(q, k) ** 2 / (2 * s**2), ["sign"]),
        ("gaussian", lambda q, k, s: -torch.cdist(q, k) / (2 * s**2), ["distance", "square"]),
        (
            "additive",
            lambda q, k, W_q, W_k, w_v: (
                ((q @ W_q.T).unsqueeze(2) + (k @ W_k.T).unsqueeze(1)) @ w_v
            ),
            ["tanh"],
        ),
        (
            "additive",
            lambda q, k, W_q, W_k, w_v: torch.tanh((q @ W_k.T).unsqueeze(2)) @ w_v,
            ["raised", "W_q (5, 6)", "W_k (5, 8)"],
        ),
        (
            "bilinear",
            lambda q, k, M: q @ M @ k.transpose(1, 2) + 1,
            ["same amount along each row", "batch 0, query 0", "weights would be the same"],
        ),
        (
            "bilinear",
            lambda q, k, M: (q @ M @ k.transpose(1, 2))[0],
            ["shape (3, 4)", "(2, 3, 4)"],
        ),
        (
            "dot_product",
            lambda q, k: q.mul_(2) @ k.transpose(1, 2),
            ["wrote into its input queries"],
        ),
    ],
)
def test_check_scores_diagnoses(kind, fn, fragments):
    _fails_with(check_scores(fn, kind), *fragments)


def test_check_scores_rejects_unusable_input():
    with pytest.raises(ValueError, match="kind must be one of"):
        check_scores(scoring.dot_product_scores, "cosine")
    with pytest.raises(TypeError, match="callable"):
        check_scores(np.zeros(3), "dot_product")


# ------------------------------------------------------------ issue 9: checkers that can fail
_S = torch.tensor([[[2.0, 1.0, 0.5, -0.5], [0.3, -1.2, 2.0, 1.0]]])  # (1, 2, 4)


def _softmax64(s):
    e = torch.exp(s.double() - s.double().amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


@pytest.mark.parametrize(
    "answer, words",
    [
        (torch.full((1, 2, 4), 0.25), ["uniform", "ignores the scores"]),
        (_S.abs() / _S.abs().sum(-1, keepdim=True), ["|s| / sum |s|"]),
        (_S.clamp_min(0) / _S.clamp_min(0).sum(-1, keepdim=True), ["clips negative scores"]),
        (_softmax64(_S * 2), ["softmax of the scores gives"]),
    ],
)
def test_check_weights_with_scores_checks_the_conversion(answer, words):
    result = check_weights(answer, scores=_S)
    assert not result.ok
    for w in words:
        assert w in result.message
    assert check_weights(answer).ok  # each is valid-looking: only scores= catches it


def test_check_weights_with_scores_accepts_the_softmax_and_respects_valid_lens():
    assert check_weights(_softmax64(_S), scores=_S).ok
    lens = torch.tensor([2])
    masked = torch.zeros(1, 2, 4, dtype=torch.float64)
    masked[..., :2] = _softmax64(_S[..., :2])
    assert check_weights(masked, lens, scores=_S).ok
    assert not check_weights(_softmax64(_S), lens, scores=_S).ok  # masked keys nonzero


def test_check_weights_with_expected():
    assert check_weights(_softmax64(_S), expected=_softmax64(_S)).ok
    result = check_weights(_softmax64(_S), expected=_softmax64(_S * 1.1))
    assert not result.ok and "expected weight there is" in result.message
    with pytest.raises(ValueError, match="expected must have the weights' shape"):
        check_weights(_softmax64(_S), expected=torch.zeros(3, 4))


def test_check_kernel_too_wide_window_gets_the_right_advice():
    result = check_kernel(lambda u: 0.5 * (u.abs() <= 1.0001).to(u.dtype), "boxcar")
    assert not result.ok and "too wide" in result.message and "not < 1" not in result.message
    result = check_kernel(lambda u: 0.5 * (u.abs() < 1).to(u.dtype), "boxcar")
    assert not result.ok and "not < 1" in result.message


# --------------------------------------------------------------------------- issue 17
def test_check_masked_softmax_accepts_float32_weights_for_float16_scores():
    # mixed precision (a softmax computed in float32, as torch.autocast does) is right
    def mixed(X, valid_lens):
        return masked_softmax(X.float() if X.dtype == torch.float16 else X, valid_lens)

    _passes(check_masked_softmax(mixed))
    # the stated dtype rule (issue 37): float64 weights are accepted too, at float32's
    # tolerance; an integer dtype is not
    _passes(check_masked_softmax(lambda X, v: masked_softmax(X.double(), v)))
    _fails_with(
        check_masked_softmax(lambda X, v: (masked_softmax(X, v) * 0).to(torch.int32)),
        "dtype torch.int32",
    )


def _numbers_in(message: str) -> list[str]:
    return re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", message)


@pytest.mark.parametrize("delta", [1e-4, 2e-4, 4e-3])
def test_messages_show_enough_digits_to_tell_the_values_apart(delta):
    # a weight off by a little: "is 0.60 but expected 0.60" must never happen (off by just
    # more than float64's tolerance, rtol 1e-4 and atol 1e-5: scoringbook._checking.tolerance)
    W = _softmax64(_S)
    off = W.clone()
    off[0, 0, 0] += delta
    off[0, 0, 1] -= delta  # rows still sum to 1
    result = check_weights(off, expected=W)
    _fails_with(result, "expected weight there is")
    got, want = re.search(
        r"is (\S+) but the expected weight there is (\S+)", result.message
    ).groups()
    assert got != want, result.message
    assert float(got) == pytest.approx(float(off[0, 0, 0]), abs=float(delta) / 2)

    # an input written into by a tiny amount is reported with two different numbers
    def nudge(X, valid_lens):
        X.add_(1e-6 * (X != 0))  # a small in-place change
        return masked_softmax(X, valid_lens)

    result = check_masked_softmax(nudge)
    before, after = re.search(r"changed from (\S+) to (\S+?)\)", result.message).groups()
    assert before != after, result.message
