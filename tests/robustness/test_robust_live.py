"""attnlib.live attacked: the declarations of what the page computes (names of the wrong type,
a str where a list of names is expected), the reference functions (kernel_window, tokens,
fold, word_vector, LiveMasking.frame) with wrong types, degenerate sizes, non-finite values
and malformed text."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from ._helpers import FEW, raises
from ._targets import PAD
from ._targets import live as L
from ._targets import widgets as W

E = W.ExplorerError
K = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(query="xy"), ["query", "two slider names", "'xy'"]),
        (dict(query=("x", "y", "z")), ["query", "two"]),
        (dict(query=("x", 3)), ["query", "3"]),
        (dict(weights=3), ["weights", "str", "3"]),
        (dict(output="ps"), ["output", "(lines panel, series)", "'ps'"]),
        (dict(output=None, compare=("dot", "dot")), ["compare", "distinct", "dot"]),
        (dict(output=None, compare="dot"), ["compare", "str"]),
        (dict(score=3), ["score", "3"]),
        (dict(temperature=1.0), ["temperature", "str", "1.0"]),
        (dict(score_param=["s"]), ["score_param", "str"]),
        (dict(keys=np.zeros((0, 2)), values=np.zeros((0, 2))), ["keys", "(n_keys, 2)", "(0, 2)"]),
    ],
)
def test_live_attention_declaration(kwargs, words):
    args = {
        "keys": K,
        "values": K,
        "query": ("x", "y"),
        "weights": "w",
        "output": ("p", "s"),
        **kwargs,
    }
    with raises(E, "LiveAttention", *words):
        L.LiveAttention(**args)


def _lkr(**kw):
    args = dict(
        x_train=[0.0, 1.0],
        y_train=[0.0, 1.0],
        query="q",
        kernel="k",
        bandwidth="b",
        fit=("f", "a"),
        marker=("f", "b"),
        bars=("w", "c"),
        window=("w", "d"),
        weights="h",
        heat_x=[0.5],
    )
    args.update(kw)
    return L.LiveKernelRegression(**args)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(fit="fa"), ["fit", "(lines panel, series)", "'fa'"]),
        (dict(heat_points=("f",)), ["heat_points", "(lines panel, series)"]),
        (dict(query=None), ["query", "str", "None"]),
        (dict(kernel=["k"]), ["kernel", "str"]),
        (dict(weights=1), ["weights", "str"]),
        (dict(x_train=[0.0, np.nan], y_train=[0.0, 1.0]), ["x_train", "nan"]),
        (dict(y_train=[0.0, 1j]), ["y_train", "complex"]),
    ],
)
def test_live_kernel_regression_declaration(kwargs, words):
    with raises(E, "LiveKernelRegression", *words):
        _lkr(**kwargs)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(sentences="abc", weights="abc"), ["sentences", "list of names", "str"]),
        (dict(sentences=("a",), weights="a"), ["weights", "list of names", "str"]),
        (dict(sentences=("a", 1), weights=("a", "b")), ["sentences", "1"]),
        (dict(sentences=("a",), weights=("a",), max_tokens=True), ["max_tokens", "bool"]),
        (dict(sentences=("a",), weights=("a",), max_tokens=2.0), ["max_tokens", "int", "2.0"]),
        (dict(sentences=("a",), weights=("a",), d=0), ["d", "0"]),
        (dict(sentences=("a",), weights=("a",), masking=3), ["masking", "str"]),
    ],
)
def test_live_masking_declaration(kwargs, words):
    with raises(E, "LiveMasking", *words):
        L.LiveMasking(**kwargs)


def test_live_masking_accepts_numpy_sizes():
    m = L.LiveMasking(("a",), ("a",), max_tokens=np.int64(3), d=torch.tensor(4))
    assert m.max_tokens == 3 and m.d == 4 and m.spec()["max_tokens"] == 3


@pytest.mark.parametrize(
    "texts, mode, exc, words",
    [
        ("hello world", "query_lengths", TypeError, ["texts", "list of strings", "str"]),
        ([None], "query_lengths", TypeError, ["texts[0]", "str", "None"]),
        (["a\nb"], "query_lengths", ValueError, ["texts[0]", "line break"]),
        (["a"], True, TypeError, ["mode", "str", "True"]),
        (["a"], "valid_lengths", ValueError, ["mode", "query_lengths", "'valid_lengths'"]),
    ],
)
def test_live_masking_frame(texts, mode, exc, words):
    with raises(exc, "LiveMasking.frame", *words):
        L.LiveMasking(("a",), ("a",)).frame(texts, mode=mode)


def test_live_masking_frame_of_an_empty_or_very_long_text():
    m = L.LiveMasking(("a",), ("a",), max_tokens=4)
    ((toks, w),) = m.frame([""])
    assert toks == [PAD] * 4 and (w == 0).all()
    ((toks, w),) = m.frame(["word " * 10_000])
    assert toks == ["word"] * 4 and np.allclose(w.sum(1), 1)


# ----------------------------------------------------------------- reference functions
@pytest.mark.parametrize(
    "args, exc, words",
    [
        (([0.0, 1.0], 0.0, "gaussian", 1.0, (0, 1)), None, []),  # a list is fine
        ((torch.zeros(0), 0.0, "gaussian", 1.0, (0, 1)), ValueError, ["x_train", "at least one"]),
        ((torch.zeros(2, 2), 0.0, "gaussian", 1.0, (0, 1)), ValueError, ["x_train", "(n_train,)"]),
        (
            (torch.tensor([0.0, np.nan]), 0.0, "gaussian", 1.0, (0, 1)),
            ValueError,
            ["x_train", "nan"],
        ),
        ((torch.zeros(3), float("nan"), "gaussian", 1.0, (0, 1)), ValueError, ["query", "nan"]),
        ((torch.zeros(3), "0", "gaussian", 1.0, (0, 1)), TypeError, ["query", "'0'"]),
        ((torch.zeros(3), 0.0, "foo", 1.0, (0, 1)), ValueError, ["kernel", "'foo'"]),
        ((torch.zeros(3), 0.0, "gaussian", 0.0, (0, 1)), ValueError, ["bandwidth", "> 0"]),
        ((torch.zeros(3), 0.0, "gaussian", -1.0, (0, 1)), ValueError, ["bandwidth", "-1"]),
        ((torch.zeros(3), 0.0, "constant", 1.0, (1, 0)), ValueError, ["span", "(1, 0)"]),
        ((torch.zeros(3), 0.0, "constant", 1.0, (0, np.inf)), ValueError, ["span", "inf"]),
    ],
)
def test_kernel_window(args, exc, words):
    if exc is None:
        t, y = L.kernel_window(*args)
        assert np.isfinite(y).all()
        return
    with raises(exc, "kernel_window", *words):
        L.kernel_window(*args)


def test_kernel_window_in_low_precision_matches_float64():
    x = torch.linspace(0, 5, 9)
    want = L.kernel_window(x.double(), 1.3, "epanechnikov", 0.7, (0.0, 5.0))
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        got = L.kernel_window(x.to(dtype), 1.3, "epanechnikov", 0.7, (0.0, 5.0))
        np.testing.assert_allclose(
            got, L.kernel_window(x.to(dtype).double(), 1.3, "epanechnikov", 0.7, (0.0, 5.0))
        )
        assert got.shape == want.shape


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: L.tokens(None, 3), TypeError, ["tokens", "text", "str", "None"]),
        (lambda: L.tokens("a b", -1), ValueError, ["tokens", "max_tokens", ">= 0", "-1"]),
        (lambda: L.tokens("a b", 1.5), TypeError, ["tokens", "max_tokens", "1.5"]),
        (lambda: L.tokens("a b", True), TypeError, ["tokens", "max_tokens", "bool"]),
        (lambda: L.fold(None), TypeError, ["fold", "word", "None"]),
        (lambda: L.fold(["A"]), TypeError, ["fold", "word", "list"]),
        (lambda: L.word_vector("a", 0), ValueError, ["word_vector", "d", ">= 1", "0"]),
        (lambda: L.word_vector("a", -1), ValueError, ["word_vector", "d", "-1"]),
        (lambda: L.word_vector("a", 2.5), TypeError, ["word_vector", "d", "2.5"]),
        (lambda: L.word_vector(b"a", 2), TypeError, ["word_vector", "word", "bytes"]),
        (lambda: L.word_vector("\ud800", 2), ValueError, ["word_vector", "word", "surrogate"]),
    ],
)
def test_reference_functions_name_the_argument(call, exc, words):
    with raises(exc, *words):
        call()


def test_reference_functions_accept_numpy_counts():
    assert L.tokens("a b c", np.int64(2)) == ["a", "b"]
    assert L.word_vector("a", np.int64(3)) == L.word_vector("a", 3)


@FEW
@given(st.text(max_size=40), st.integers(0, 8))
def test_tokens_and_vectors_of_any_text(text, n):
    toks = L.tokens(text, n)
    assert len(toks) <= n and all(t and not any(c in " \t\n\r\f\v" for c in t) for t in toks)
    for t in toks:
        if any(0xD800 <= ord(c) <= 0xDFFF for c in t):
            continue
        v = L.word_vector(L.fold(t), 4)
        assert len(v) == 4 and all(-1 <= x < 1 for x in v)
