"""Adversarial inputs for the family added by issue 27: cosine_scores, cosine_attention,
CosineAttention, bilinear_attention, GeneralAttention. Every refusal names the argument, what
was expected and what was received; nothing returns NaN as a result."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from attnlib import (
    CosineAttention,
    GeneralAttention,
    bilinear_attention,
    cosine_attention,
    cosine_scores,
)

from ._helpers import FEW, global_rng_untouched, raises

Q, K, V = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)


@pytest.mark.parametrize("t", ["1", None, True, [1.0], torch.tensor([1.0, 2.0]), 1j])
def test_a_temperature_that_is_not_a_number_is_refused(t):
    exc = ValueError if isinstance(t, torch.Tensor) else TypeError
    with raises(exc, "temperature"):
        cosine_scores(Q, K, temperature=t)
    with raises(TypeError if not isinstance(t, torch.Tensor) else TypeError, "temperature"):
        CosineAttention(temperature=t)


@pytest.mark.parametrize("t", [0, 0.0, -1.0, math.nan, math.inf, -math.inf])
def test_a_temperature_out_of_range_is_refused_naming_it(t):
    with raises(ValueError, "temperature", "> 0", str(float(t))):
        cosine_scores(Q, K, temperature=t)
    with raises(ValueError, "temperature", "> 0"):
        cosine_attention(Q, K, V, temperature=t)
    with raises(ValueError, "temperature", "> 0"):
        CosineAttention(temperature=t)


def test_learn_temperature_must_be_a_bool():
    with raises(TypeError, "learn_temperature", "True or False", "1"):
        CosineAttention(learn_temperature=1)


@pytest.mark.parametrize(
    "q, k, words",
    [
        (torch.randn(3, 4), K, ["queries", "(batch, n_queries, d)", "(3, 4)"]),
        (Q, torch.randn(2, 5, 3), ["feature size d", "4", "3"]),
        (Q, torch.randn(3, 5, 4), ["batch", "2", "3"]),
        (Q, K.double(), ["dtype", "float32", "float64"]),
        (Q.long(), K, ["queries", "float"]),
        (np.ones((2, 3, 4)), K, ["queries", "tensor"]),
        (torch.randn(2, 3, 0), torch.randn(2, 5, 0), ["d >= 1", "(2, 3, 0)"]),
    ],
)
def test_cosine_refuses_bad_queries_and_keys(q, k, words):
    with pytest.raises((TypeError, ValueError)) as info:
        cosine_scores(q, k)
    text = str(info.value).lower()
    assert "cosine_scores" in text and all(w.lower() in text for w in words), text


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_cosine_refuses_non_finite_inputs_instead_of_returning_nan(bad):
    q = Q.clone()
    q[1, 2, 0] = bad
    with raises(ValueError, "queries", "finite", "1 non-finite"):
        cosine_scores(q, K)
    k = K.clone()
    k[0, 0, 3] = bad
    with raises(ValueError, "keys", "finite"):
        CosineAttention()(Q, k, V)


def test_zero_vectors_score_zero_and_extreme_magnitudes_keep_their_direction():
    q = torch.tensor([[[0.0, 0.0], [1e30, 1e30], [1e-30, 0.0], [3e38, -3e38]]])  # (1, 4, 2)
    k = torch.tensor([[[1e-35, 0.0], [0.0, 0.0], [1.0, 1.0]]])  # (1, 3, 2)
    s = cosine_scores(q, k)
    want = torch.tensor(
        [[[0.0, 0.0, 0.0], [0.5**0.5, 0.0, 1.0], [1.0, 0.0, 0.5**0.5], [0.5**0.5, 0.0, 0.0]]]
    )
    assert torch.isfinite(s).all()
    assert torch.allclose(s, want, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_cosine_keeps_the_dtype_and_float16_does_not_overflow(dtype):
    q = (torch.randn(1, 2, 8) * 1000).to(dtype)  # squares overflow float16 if computed there
    k = (torch.randn(1, 3, 8) * 1000).to(dtype)
    s = cosine_scores(q, k, temperature=0.5)
    assert s.dtype == dtype and torch.isfinite(s).all()
    want = cosine_scores(q.double(), k.double(), temperature=0.5)
    assert torch.allclose(s.double(), want, atol=2e-2)


@given(
    st.integers(1, 3),
    st.integers(1, 4),
    st.integers(0, 4),
    st.integers(1, 5),
    st.floats(0.05, 20.0),
    st.floats(-30, 30),
)
@FEW
def test_cosine_scores_are_bounded_by_one_over_t_at_any_scale(b, nq, nk, d, t, log_scale):
    g = torch.Generator().manual_seed(b * 100 + nq * 10 + nk)
    q = torch.randn(b, nq, d, generator=g, dtype=torch.float64) * 10.0**log_scale
    k = torch.randn(b, nk, d, generator=g, dtype=torch.float64)
    s = cosine_scores(q, k, temperature=t)
    assert s.shape == (b, nq, nk) and torch.isfinite(s).all()
    assert (s.abs() <= 1 / t * (1 + 1e-12)).all()


def test_calls_leave_the_global_generators_alone():
    with global_rng_untouched():
        cosine_scores(Q, K)
        cosine_attention(Q, K, V, torch.tensor([2, 0]))
        bilinear_attention(Q, K, V, torch.eye(4))
        CosineAttention(0.5).eval()(Q, K, V)


def test_a_row_with_no_valid_key_is_zero_not_nan():
    for out, w in (
        cosine_attention(Q, K, V, torch.tensor([0, 5])),
        bilinear_attention(Q, K, V, torch.eye(4), torch.tensor([0, 5])),
    ):
        assert torch.equal(w[0], torch.zeros(3, 5)) and torch.equal(out[0], torch.zeros(3, 6))


@pytest.mark.parametrize(
    "W, words",
    [
        (torch.eye(3), ["bilinear_attention", "W", "(d_q, d_k) = (4, 4)", "(3, 3)"]),
        (torch.eye(4).double(), ["dtype", "W"]),
        (torch.ones(4), ["W", "(d_q, d_k)"]),
        ([[1.0]], ["W", "torch.Tensor", "list"]),
    ],
)
def test_bilinear_attention_names_w_in_its_messages(W, words):
    with pytest.raises((TypeError, ValueError)) as info:
        bilinear_attention(Q, K, V, W)
    text = str(info.value)
    assert all(w in text for w in words) and "M" not in text.split(":")[0], text


def test_bilinear_attention_checks_values():
    with raises(ValueError, "bilinear_attention", "values", "n_keys", "4", "5"):
        bilinear_attention(Q, K, torch.randn(2, 4, 6), torch.eye(4))


@pytest.mark.parametrize("size", [0, -1, 2.0, True, "3", None])
def test_general_attention_refuses_sizes_that_are_not_positive_ints(size):
    with raises((TypeError, ValueError), "GeneralAttention", "query_size", repr(size)):
        GeneralAttention(size, 3)
    with raises((TypeError, ValueError), "GeneralAttention", "key_size"):
        GeneralAttention(3, size)


def test_general_attention_names_the_size_that_does_not_match():
    m = GeneralAttention(query_size=4, key_size=6)
    with raises(ValueError, "GeneralAttention", "queries", "query_size = 4", "(2, 3, 5)"):
        m(torch.randn(2, 3, 5), torch.randn(2, 5, 6), V)
    with raises(ValueError, "GeneralAttention", "keys", "key_size = 6", "(2, 5, 4)"):
        m(Q, K, V)
    assert m(Q, torch.randn(2, 5, 6), V).shape == (2, 3, 6)


@pytest.mark.parametrize("p", [-0.1, 1.5, math.nan])
def test_dropout_out_of_range_is_refused_at_construction(p):
    with raises(ValueError, "dropout", "[0, 1]"):
        CosineAttention(dropout=p)
    with raises(ValueError, "dropout", "[0, 1]"):
        GeneralAttention(2, 2, dropout=p)
