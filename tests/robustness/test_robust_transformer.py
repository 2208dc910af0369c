"""Adversarial inputs to attnlib.transformer: every bad argument raises TypeError/ValueError
naming the argument, what was expected and what was received; nothing returns NaN or broadcasts
silently."""

from __future__ import annotations

import contextlib
import math

import pytest
import torch

import attnlib
from attnlib import MultiHeadAttention, PositionalEncoding, causal_valid_lens, sinusoidal_encoding


@contextlib.contextmanager
def raises(exc, *fragments):
    with pytest.raises(exc) as info:
        yield info
    text = str(info.value).lower()
    missing = [f for f in fragments if f.lower() not in text]
    assert not missing, f"message {str(info.value)!r} lacks {missing!r}"


@pytest.mark.parametrize(
    "args, exc, words",
    [
        ((0, 1, 0.0), ValueError, ["num_hiddens", ">= 1", "0"]),
        ((8, 0, 0.0), ValueError, ["num_heads", ">= 1", "0"]),
        ((8, 3, 0.0), ValueError, ["divisible", "num_hiddens=8", "num_heads=3"]),
        ((8.0, 2, 0.0), TypeError, ["num_hiddens", "int", "float"]),
        ((8, True, 0.0), TypeError, ["num_heads", "int", "bool"]),
        ((8, 2, "0.1"), TypeError, ["dropout", "got"]),
        ((8, 2, math.nan), ValueError, ["dropout", "[0, 1]", "nan"]),
        ((8, 2, 1.5), ValueError, ["dropout", "[0, 1]", "1.5"]),
        ((8, 2, 0.0, "yes"), TypeError, ["bias", "yes"]),
    ],
)
def test_multihead_constructor_refuses_bad_arguments(args, exc, words):
    with raises(exc, *words):
        MultiHeadAttention(*args)


def test_multihead_refuses_unknown_keyword():
    with raises(TypeError, "unexpected keyword", "num_head"):
        MultiHeadAttention(8, 2, 0.0, num_head=3)


def _mha():
    torch.manual_seed(0)
    return MultiHeadAttention(8, 2, 0.0)


X = torch.randn(2, 3, 8)


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda m: m(X[0], X, X), ValueError, ["queries", "3 dimensions", "(3, 8)"]),
        (lambda m: m(X, X.long(), X), TypeError, ["keys", "floating", "int64"]),
        (lambda m: m(X, X, X.double()), TypeError, ["values", "dtype", "float64"]),
        (lambda m: m(X, X[:1], X[:1]), ValueError, ["keys", "batch size", "1", "2"]),
        (lambda m: m(X, X, X[:, :2]), ValueError, ["values", "n_keys", "2", "3"]),
        (lambda m: m(X, X, X, torch.tensor([4, 1])), ValueError, ["valid_lens", "<= n_keys"]),
        (lambda m: m(X, X, X, torch.tensor([-1, 1])), ValueError, ["valid_lens", ">= 0"]),
        (lambda m: m(X, X, X, torch.tensor([1, 2, 3])), ValueError, ["valid_lens", "(2,)"]),
        (lambda m: m(X, X, X, torch.tensor([1.5, 2])), ValueError, ["valid_lens", "whole"]),
        (lambda m: m(X, X, X, torch.tensor([True, True])), TypeError, ["valid_lens", "bool"]),
        (lambda m: m(X, X, X, mask=torch.ones(3, 3)), TypeError, ["mask", "boolean"]),
        (
            lambda m: m(X, X, X, mask=torch.ones(4, 3, 3, dtype=torch.bool)),
            ValueError,
            ["mask", "broadcastable", "(2, 3, 3)", "(4, 3, 3)"],
        ),
        (lambda m: m(X, X, X[..., :0]), ValueError, ["values", "feature size", "(2, 3, 0)"]),
        (lambda m: m(X.tolist(), X, X), TypeError, ["queries", "torch.Tensor", "list"]),
    ],
)
def test_multihead_forward_refuses_bad_inputs(call, exc, words):
    with raises(exc, *words):
        call(_mha())


def test_multihead_query_with_no_valid_key_gets_zeros_not_nan():
    m = _mha()
    out = m(X, X, X, torch.tensor([0, 3]))
    assert torch.isfinite(out).all()
    assert (m.attention_weights[0] == 0).all()
    torch.testing.assert_close(out[0], m.W_o(torch.zeros(3, 8)))


def test_multihead_masked_nan_keys_do_not_leak():
    """A NaN key beyond valid_lens gives NaN scores there; masking replaces them (values
    there are multiplied by a weight of exactly 0, so they must be finite, as in torch)."""
    m = _mha()
    K = X.clone()
    K[0, 2] = math.nan
    out = m(X, K, X, torch.tensor([2, 2]))
    assert torch.isfinite(out).all()
    assert (m.attention_weights[0, :, :, 2] == 0).all()


def test_multihead_empty_batch_and_single_head_and_float64():
    m = _mha()
    assert m(X[:0], X[:0], X[:0]).shape == (0, 3, 8)
    one = MultiHeadAttention(4, 1, 0.0).double()
    Z = torch.randn(1, 2, 4, dtype=torch.float64)
    assert one(Z, Z, Z).dtype == torch.float64
    assert one.attention_weights.shape == (1, 1, 2, 2)


def test_multihead_weights_none_before_first_call():
    assert MultiHeadAttention(4, 2, 0.0).attention_weights is None


@pytest.mark.parametrize(
    "args, exc, words",
    [
        ((0, 0.0), ValueError, ["num_hiddens", ">= 1"]),
        ((4, -0.1), ValueError, ["dropout", "[0, 1]"]),
        ((4, 0.0, 0), ValueError, ["max_len", ">= 1"]),
        ((4, 0.0, 2.5), TypeError, ["max_len", "int", "float"]),
    ],
)
def test_positional_encoding_constructor_refuses_bad_arguments(args, exc, words):
    with raises(exc, *words):
        PositionalEncoding(*args)


@pytest.mark.parametrize(
    "X, exc, words",
    [
        (torch.zeros(2, 4), ValueError, ["X", "3 dimensions", "(2, 4)"]),
        (torch.zeros(1, 3, 5), ValueError, ["num_hiddens = 4", "(1, 3, 5)"]),
        (torch.zeros(1, 11, 4), ValueError, ["11 positions", "max_len = 10"]),
        (torch.zeros(1, 3, 4, dtype=torch.long), TypeError, ["X", "floating", "int64"]),
    ],
)
def test_positional_encoding_forward_refuses_bad_inputs(X, exc, words):
    with raises(exc, *words):
        PositionalEncoding(4, 0.0, max_len=10)(X)


@pytest.mark.parametrize(
    "args, kwargs, exc, words",
    [
        ((0, 4), {}, ValueError, ["max_len", ">= 1"]),
        ((3, 0), {}, ValueError, ["num_hiddens", ">= 1"]),
        ((3, 4), {"dtype": torch.int64}, TypeError, ["dtype", "floating", "int64"]),
        (("3", 4), {}, TypeError, ["max_len", "int", "str"]),
    ],
)
def test_sinusoidal_encoding_refuses_bad_arguments(args, kwargs, exc, words):
    with raises(exc, *words):
        sinusoidal_encoding(*args, **kwargs)


def test_sinusoidal_encoding_is_bounded_and_finite_for_long_tables():
    P = sinusoidal_encoding(5000, 64)
    assert torch.isfinite(P).all() and P.abs().max() <= 1.0


@pytest.mark.parametrize(
    "args, exc, words", [((-1, 3), ValueError, ["batch", ">= 0"]), ((2, 1.0), TypeError, ["n"])]
)
def test_causal_valid_lens_refuses_bad_arguments(args, exc, words):
    with raises(exc, *words):
        causal_valid_lens(*args)


def test_causal_valid_lens_is_the_causal_mask():
    lens = causal_valid_lens(2, 4)
    mask = attnlib.valid_lens_to_mask(lens, 4, 4)
    assert torch.equal(mask[1], torch.ones(4, 4, dtype=torch.bool).tril())
    assert causal_valid_lens(0, 3).shape == (0, 3)
