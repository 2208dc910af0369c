"""Issue 18's known defects in the core, and their neighbours: dropout validated at
construction, boolean kernels in every floating dtype, figure sizes, and the helpful message
for d2l's misspelt kernel on every import path."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import torch

import attnlib
from attnlib import AdditiveAttention, DotProductAttention, NadarayaWatson, nadaraya_watson

from ._helpers import raises
from ._targets import show_heatmaps

# ----------------------------------------------------------------- dropout
WRONG_TYPE = ["0.1", None, True, [0.1], torch.tensor([0.1, 0.2]), 0.1 + 0j]
OUT_OF_RANGE = [float("nan"), float("inf"), -0.1, 1.5, -math.inf]
ACCEPTED = [
    0,
    0.0,
    0.5,
    1.0,
    np.float64(0.2),
    np.float32(0.25),
    torch.tensor(0.2),
    np.array(0.3),
    torch.tensor(0, dtype=torch.int64),
]

CONSTRUCTORS = {
    "DotProductAttention": lambda p: DotProductAttention(p),
    "DotProductAttention(dropout=)": lambda p: DotProductAttention(dropout=p),
    "AdditiveAttention(h, p)": lambda p: AdditiveAttention(8, p),
    "AdditiveAttention(k, q, h, p)": lambda p: AdditiveAttention(2, 3, 8, p),
    "AdditiveAttention(h, dropout=)": lambda p: AdditiveAttention(8, dropout=p),
}


@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS.keys())
@pytest.mark.parametrize("p", WRONG_TYPE, ids=repr)
def test_dropout_of_the_wrong_type_fails_at_construction_naming_dropout(make, p):
    # defect 1: '<' not supported between 'str' and 'int', or a failure only in forward
    with raises(TypeError, "dropout", "got"):
        make(p)


@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS.keys())
@pytest.mark.parametrize("p", OUT_OF_RANGE, ids=repr)
def test_dropout_out_of_range_or_nan_fails_at_construction(make, p):
    # NaN used to be accepted by DotProductAttention (nn.Dropout(p=nan))
    with raises(ValueError, "dropout", "[0, 1]", str(float(p))):
        make(p)


@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS.keys())
@pytest.mark.parametrize("p", ACCEPTED, ids=repr)
def test_dropout_accepts_numbers_numpy_scalars_and_0d_tensors(make, p):
    module = make(p)
    assert isinstance(module.dropout.p, float) and module.dropout.p == pytest.approx(float(p))


def test_dropout_is_a_plain_float_in_the_module():
    # a 0-d tensor must not be kept as the probability (state, repr, deepcopy all see a float)
    m = DotProductAttention(torch.tensor(0.5))
    assert type(m.dropout.p) is float and "p=0.5" in repr(m)


# ----------------------------------------------------------------- boolean kernels
def _window_weights(x_train, x_query, h):
    """Independent reference: the boxcar window as 0/1, normalised per row (float64)."""
    u = (x_query[:, None] - x_train[None, :]) / h
    k = (np.abs(u) <= 1).astype(np.float64)
    return k / k.sum(1, keepdims=True)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize(
    "kernel",
    [
        lambda u: u.abs() <= 1,  # bool
        lambda u: (u.abs() <= 1).long(),  # int64
        lambda u: (u.abs() <= 1).to(torch.uint8),  # uint8
        lambda u: (u.abs() <= 1).float(),  # float32 whatever the data's dtype
        lambda u: (u.abs() <= 1).double(),  # float64 whatever the data's dtype
    ],
    ids=["bool", "int64", "uint8", "float32", "float64"],
)
def test_callable_kernels_of_any_real_dtype_work_in_every_floating_dtype(dtype, kernel):
    # defect 2: "addmv input tensors must have the same dtype" except for float32 data
    x = torch.linspace(0, 1, 6, dtype=dtype)
    y_hat, w = nadaraya_watson(x, x, x, kernel, 0.3)
    assert y_hat.dtype == dtype and w.dtype == dtype
    ref = _window_weights(x.double().numpy(), x.double().numpy(), 0.3)
    tol = {torch.float64: 1e-12, torch.float32: 1e-6, torch.float16: 2e-3, torch.bfloat16: 1e-2}[
        dtype
    ]
    np.testing.assert_allclose(w.double().numpy(), ref, atol=tol)
    np.testing.assert_allclose(y_hat.double().numpy(), ref @ x.double().numpy(), atol=tol * 4)


def test_module_with_a_boolean_kernel_trains_in_float64():
    x = torch.linspace(0, 1, 8, dtype=torch.float64)
    model = NadarayaWatson(lambda u: u.abs() <= 1, 0.4)
    out = model(x, x**2, x)
    assert out.dtype == torch.float64 and torch.isfinite(out).all()


@pytest.mark.parametrize(
    "bad, words",
    [
        (lambda u: (u.abs() <= 1).to(torch.complex64), ["kernel", "real", "complex"]),
        (lambda u: torch.ones(3), ["kernel", "shape"]),
        (lambda u: (u.abs() <= 1).tolist(), ["kernel", "tensor", "list"]),
        (lambda u: -(u.abs() <= 1).long(), ["kernel", ">= 0"]),
        (lambda u: torch.where(u.abs() <= 1, float("nan"), 0.0).to(u.dtype), ["kernel", "nan"]),
    ],
)
def test_callable_kernel_returning_unusable_values_is_named(bad, words):
    x = torch.linspace(0, 1, 5, dtype=torch.float64)
    with raises((TypeError, ValueError), *words):
        nadaraya_watson(x, x, x, bad, 0.3)


# ----------------------------------------------------------------- figure sizes
@pytest.mark.parametrize(
    "figsize",
    [(math.inf, 2), (2, math.nan), (-1, 2), (0, 2), (2, math.inf), (1e6, 2), (2, 1e5)],
    ids=repr,
)
def test_non_finite_or_absurd_figsize_is_named(figsize):
    # defect 3: matplotlib's "figure size must be positive finite" does not name figsize
    with raises(ValueError, "show_heatmaps", "figsize", "got"):
        show_heatmaps(torch.rand(1, 1, 2, 2), "keys", "queries", figsize=figsize)


@pytest.mark.parametrize(
    "figsize", [(True, 2), ("3", 2), "ab", (2,), (1, 2, 3), None, 3.0], ids=repr
)
def test_figsize_of_the_wrong_type_is_named(figsize):
    with raises((TypeError, ValueError), "show_heatmaps", "figsize", "got"):
        show_heatmaps(torch.rand(1, 1, 2, 2), "keys", "queries", figsize=figsize)


@pytest.mark.parametrize(
    "figsize",
    [
        (np.float64(3), 2),
        (torch.tensor(3.0), np.int64(2)),
        [3, 2],
        np.array([3.0, 2.0]),
        (100, 100),
    ],
    ids=repr,
)
def test_figsize_accepts_numpy_scalars_0d_tensors_and_arrays(figsize):
    fig = show_heatmaps(torch.rand(1, 1, 2, 2), "keys", "queries", figsize=figsize)
    w, h = fig.get_size_inches()
    assert (w, h) == (float(figsize[0]), float(figsize[1]))


# ----------------------------------------------------------------- d2l's misspelt kernel
STATEMENTS = [
    "from attnlib.kernels import epanechikov",
    "from attnlib.kernels import epanechikov_kernel",
    "from attnlib.kernels import (gaussian, epanechikov)",
    "import attnlib.kernels as k; k.epanechikov",
    "import attnlib; attnlib.kernels.epanechikov",
]
_PROBE = """
import sys, traceback
for statement in sys.argv[1:]:
    try:
        exec(statement, {})
    except BaseException as err:
        print(type(err).__name__ + ": " + str(err).replace("\\n", " "))
    else:
        print("no error")
"""


@pytest.mark.slow
def test_misspelt_epanechnikov_gets_the_helpful_message_on_every_path():
    # defect 9: the `from` form gave a bare "cannot import name"; each statement runs in a
    # fresh module namespace of one fresh interpreter
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *STATEMENTS], capture_output=True, text=True, check=True
    )
    lines = out.stdout.strip().splitlines()
    assert len(lines) == len(STATEMENTS)
    for statement, line in zip(STATEMENTS, lines):
        assert line.startswith(
            "ImportError" if statement.startswith("from") else "AttributeError"
        ), line
        assert "triangular" in line and "2440" in line and "epanechnikov" in line, (
            statement,
            line,
        )


def test_misspelt_kernel_in_process_keeps_the_protocols():
    # attribute access raises AttributeError (so hasattr/getattr(default) work) ...
    assert not hasattr(attnlib.kernels, "epanechikov")
    assert getattr(attnlib.kernels, "epanechikov", None) is None
    with raises(AttributeError, "triangular"):
        attnlib.kernels.epanechikov  # noqa: B018
    # ... and `from ... import` raises ImportError with the same advice
    with raises(ImportError, "triangular", "2440"):
        from attnlib.kernels import epanechikov  # noqa: F401
    with raises(AttributeError, "no attribute 'nope'"):
        attnlib.kernels.nope  # noqa: B018
    with raises(ImportError, "nope"):
        from attnlib.kernels import nope  # noqa: F401
