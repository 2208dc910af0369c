"""masked_softmax and valid_lens_to_mask: values, dtypes, gradients, bad input."""

import math

import pytest
import torch

from attnlib import masked_softmax, valid_lens_to_mask

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def reference_masked_softmax(X, valid_lens=None, mask=None):
    """Row by row, in float64, on the valid entries only (independent of attnlib)."""
    batch, n_queries, n_keys = X.shape
    out = torch.zeros(X.shape, dtype=torch.float64)
    for b in range(batch):
        for i in range(n_queries):
            keep = [True] * n_keys
            if valid_lens is not None:
                length = int(valid_lens[b] if valid_lens.dim() == 1 else valid_lens[b, i])
                keep = [j < length for j in range(n_keys)]
            if mask is not None:
                m = mask.expand(X.shape)[b, i]
                keep = [k and bool(m[j]) for j, k in enumerate(keep)]
            idx = [j for j in range(n_keys) if keep[j]]
            if idx:
                row = X[b, i, idx].double()
                e = torch.exp(row - row.max())
                out[b, i, idx] = e / e.sum()
    return out


# --------------------------------------------------------------------------- values
def test_valid_lens_to_mask_1d_and_2d():
    m1 = valid_lens_to_mask(torch.tensor([0, 2, 3]), n_queries=2, n_keys=3)
    assert m1.shape == (3, 2, 3) and m1.dtype == torch.bool
    for b, length in enumerate([0, 2, 3]):
        for j in range(3):
            assert bool(m1[b, :, j].all()) == (j < length)
            assert bool(m1[b, :, j].any()) == (j < length)
    lens2 = torch.tensor([[1, 3], [0, 2]])
    m2 = valid_lens_to_mask(lens2, n_queries=2, n_keys=3)
    for b in range(2):
        for i in range(2):
            assert m2[b, i].tolist() == [j < int(lens2[b, i]) for j in range(3)]


@pytest.mark.parametrize("kind", ["1d", "2d", "2d_empty", "mask", "mask_and_lens"])
def test_matches_row_by_row_reference(kind):
    g = _gen(1)
    X = torch.randn(3, 4, 5, generator=g, dtype=torch.float64)
    lens = mask = None
    if kind == "1d":
        lens = torch.tensor([1, 5, 3])
    elif kind == "2d":
        lens = torch.randint(1, 6, (3, 4), generator=g)
    elif kind == "2d_empty":
        lens = torch.randint(0, 6, (3, 4), generator=g)
        lens[0, 0] = 0
    elif kind == "mask":
        mask = torch.rand(3, 4, 5, generator=g) > 0.4
    else:
        mask = torch.rand(1, 4, 5, generator=g) > 0.3  # broadcast over the batch
        lens = torch.tensor([[5, 4, 0, 2], [1, 1, 1, 1], [3, 5, 2, 4]])
    got = masked_softmax(X, lens, mask=mask)
    torch.testing.assert_close(
        got, reference_masked_softmax(X, lens, mask), rtol=1e-12, atol=1e-12
    )


def test_no_mask_is_plain_softmax():
    X = torch.randn(2, 3, 4, generator=_gen(2))
    e = torch.exp(X - X.amax(-1, keepdim=True))
    torch.testing.assert_close(masked_softmax(X), e / e.sum(-1, keepdim=True))


def test_mask_and_valid_lens_combine_with_and():
    X = torch.zeros(1, 1, 4)
    mask = torch.tensor([True, False, True, True])  # broadcast (n_keys,)
    w = masked_softmax(X, torch.tensor([3]), mask=mask)
    # keys 0 and 2 survive both: 1/2 each, exactly 0 elsewhere
    assert w[0, 0].tolist() == [0.5, 0.0, 0.5, 0.0]


def test_empty_rows_are_zero_and_others_sum_to_one():
    X = torch.randn(2, 3, 4, generator=_gen(3))
    lens = torch.tensor([[0, 4, 1], [2, 0, 0]])
    w = masked_softmax(X, lens)
    assert torch.equal(w[0, 0], torch.zeros(4))
    assert torch.equal(w[1, 1:], torch.zeros(2, 4))
    torch.testing.assert_close(w[0, 1].sum(), torch.tensor(1.0))
    torch.testing.assert_close(w[1, 0].sum(), torch.tensor(1.0))
    all_empty = masked_softmax(X, torch.tensor([0, 0]))
    assert torch.equal(all_empty, torch.zeros_like(X))


def test_mask_only_with_an_empty_row():
    X = torch.randn(1, 2, 3, generator=_gen(4))
    mask = torch.tensor([[[True, False, True], [False, False, False]]])
    w = masked_softmax(X, mask=mask)
    assert torch.equal(w[0, 1], torch.zeros(3))
    assert w[0, 0, 1] == 0 and torch.isclose(w[0, 0].sum(), torch.tensor(1.0))


def test_value_of_masked_scores_does_not_matter():
    X = torch.randn(2, 3, 4, generator=_gen(5))
    lens = torch.tensor([[1, 2, 3], [4, 2, 1]])
    junk = X.clone()
    for b in range(2):
        for i in range(3):
            junk[b, i, int(lens[b, i]) :] = 1e30  # huge but finite garbage in the padding
    torch.testing.assert_close(masked_softmax(junk, lens), masked_softmax(X, lens))


@pytest.mark.parametrize(
    "lens",
    [None, torch.tensor([2, 0]), torch.tensor([[1, 3], [0, 2]]), torch.tensor([[1, 3], [2, 2]])],
)
@pytest.mark.parametrize("use_mask", [False, True])
def test_input_not_mutated(lens, use_mask):
    X = torch.randn(2, 2, 3, generator=_gen(6))
    before = X.clone()
    mask = torch.tensor([True, True, False]) if use_mask else None
    masked_softmax(X, lens, mask=mask)
    assert torch.equal(X, before)
    if lens is not None:
        lens_before = lens.clone()
        masked_softmax(X, lens)
        assert torch.equal(lens, lens_before)


def test_list_valid_lens_accepted():
    X = torch.randn(2, 2, 3, generator=_gen(7))
    torch.testing.assert_close(masked_softmax(X, [1, 2]), masked_softmax(X, torch.tensor([1, 2])))


# --------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["1d", "2d_full", "2d_empty", "mask"])
def test_dtype_matrix_large_scores(dtype, kind):
    X = torch.tensor(
        [
            [[1e4, -1e4, 0.0, 5.0], [-1e4, -1e4, -1e4, -1e4]],
            [[3.0, 1e4, -1e4, 2.0], [1e4, 1e4, -1e4, 0.0]],
        ],
        dtype=dtype,
    )
    lens = mask = None
    if kind == "1d":
        lens = torch.tensor([3, 0])
    elif kind == "2d_full":
        lens = torch.tensor([[2, 4], [3, 1]])
    elif kind == "2d_empty":
        lens = torch.tensor([[0, 4], [3, 0]])
    else:
        mask = torch.tensor(
            [
                [[True, True, False, False], [False] * 4],
                [[False, True, True, True], [True, True, False, False]],
            ]
        )
    w = masked_softmax(X, lens, mask=mask)
    assert w.dtype == dtype
    assert torch.isfinite(w).all(), w
    ref = reference_masked_softmax(X.double(), lens, mask)
    masked = ref == 0  # masked positions, empty rows included (no valid score underflows
    assert torch.equal(w[masked], torch.zeros_like(w[masked]))  # here: see the reference)
    sums = w.double().sum(-1)
    has_key = ref.sum(-1) > 0
    tol = {torch.float16: 2e-3, torch.bfloat16: 2e-2}.get(dtype, 1e-6)
    assert torch.allclose(sums[has_key], torch.ones_like(sums[has_key]), atol=tol)
    assert torch.equal(sums[~has_key], torch.zeros_like(sums[~has_key]))
    torch.testing.assert_close(w.double(), ref, atol=tol, rtol=0)


# --------------------------------------------------------------------------- gradients
@pytest.mark.parametrize(
    "lens",
    [
        torch.tensor([1, 3]),
        torch.tensor([[1, 2, 3], [4, 1, 2]]),
        torch.tensor([[0, 2, 3], [4, 0, 2]]),
        torch.tensor([0, 2]),
    ],
)
def test_gradcheck(lens):
    X = torch.randn(2, 3, 4, generator=_gen(8), dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: masked_softmax(x, lens), (X,))


def test_gradcheck_mask():
    X = torch.randn(2, 3, 4, generator=_gen(9), dtype=torch.float64, requires_grad=True)
    mask = torch.rand(2, 3, 4, generator=_gen(10)) > 0.5
    mask[0, 0] = False  # an empty row
    assert torch.autograd.gradcheck(lambda x: masked_softmax(x, mask=mask), (X,))


@pytest.mark.parametrize("dtype", DTYPES)
def test_leaf_requiring_grad_and_masked_gradient_zero(dtype):
    X = (torch.randn(2, 3, 4, generator=_gen(11)) * 100).to(dtype).requires_grad_(True)
    lens = torch.tensor([[0, 2, 4], [1, 0, 3]])
    w = masked_softmax(X, lens)
    (w * torch.arange(4, dtype=dtype)).sum().backward()
    assert X.grad is not None and torch.isfinite(X.grad).all()
    keep = valid_lens_to_mask(lens, 3, 4)
    assert torch.equal(X.grad[~keep], torch.zeros_like(X.grad[~keep]))


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "X, exc, words",
    [
        ([[[1.0]]], TypeError, ["X", "torch.Tensor", "list"]),
        (torch.ones(2, 3, dtype=torch.float32), ValueError, ["X", "3 dimensions", "(2, 3)"]),
        (torch.ones(1, 2, 3, dtype=torch.int64), TypeError, ["X", "floating", "torch.int64"]),
    ],
)
def test_bad_X(X, exc, words):
    with pytest.raises(exc) as info:
        masked_softmax(X)
    for w in words:
        assert w in str(info.value)


@pytest.mark.parametrize(
    "lens, exc, words",
    [
        (torch.tensor([1.5, 2.0]), ValueError, ["valid_lens", "whole numbers", "1.5"]),
        (torch.tensor([1.0, float("nan")]), ValueError, ["valid_lens", "whole numbers", "nan"]),
        (torch.tensor([1 + 0j, 2 + 0j]), TypeError, ["valid_lens", "integer", "complex"]),
        (torch.tensor([True, False]), TypeError, ["valid_lens", "torch.bool", "mask="]),
        (torch.tensor([1, -1]), ValueError, ["valid_lens", ">= 0", "-1"]),
        (torch.tensor([1, 4]), ValueError, ["valid_lens", "n_keys = 3", "4"]),
        (torch.tensor([1, 2, 3]), ValueError, ["valid_lens", "(2,)", "(3,)"]),
        (torch.tensor([[1, 2, 3], [1, 1, 1]]), ValueError, ["valid_lens", "(2, 2)", "(2, 3)"]),
        (torch.ones(2, 2, 1, dtype=torch.int64), ValueError, ["valid_lens", "(2, 2, 1)"]),
        ("2", TypeError, ["valid_lens", "str"]),
    ],
)
def test_bad_valid_lens(lens, exc, words):
    X = torch.zeros(2, 2, 3)
    with pytest.raises(exc) as info:
        masked_softmax(X, lens)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


@pytest.mark.parametrize(
    "mask, exc, words",
    [
        (torch.ones(2, 2, 3), TypeError, ["mask", "boolean", "torch.float32"]),
        (torch.ones(2, 2, 4, dtype=torch.bool), ValueError, ["mask", "(2, 2, 3)", "(2, 2, 4)"]),
        (torch.ones(1, 2, 2, 3, dtype=torch.bool), ValueError, ["mask", "(1, 2, 2, 3)"]),
    ],
)
def test_bad_mask(mask, exc, words):
    with pytest.raises(exc) as info:
        masked_softmax(torch.zeros(2, 2, 3), mask=mask)
    for w in words:
        assert w in str(info.value)


def test_bad_valid_lens_to_mask():
    with pytest.raises(ValueError, match="valid_lens"):
        valid_lens_to_mask(torch.tensor([4]), n_queries=1, n_keys=3)
    with pytest.raises(TypeError, match="n_keys"):
        valid_lens_to_mask(torch.tensor([1]), n_queries=1, n_keys=3.0)
    with pytest.raises(ValueError, match="valid_lens.*whole numbers"):
        valid_lens_to_mask([1.5], n_queries=1, n_keys=3)
    with pytest.raises(TypeError, match="valid_lens.*None"):
        valid_lens_to_mask(None, n_queries=1, n_keys=3)
    import numpy as np

    assert valid_lens_to_mask(np.array([1, 3]), 1, 3).tolist() == [
        [[True, False, False]],
        [[True, True, True]],
    ]


def test_no_magic_fill_constants_in_code():
    """No large finite literal (like -1e6 or -1e9) in masking's code (docstrings excluded)."""
    import ast
    import inspect

    import attnlib.masking as m

    tree = ast.parse(inspect.getsource(m))
    literals = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ]
    assert literals, "the scan found no numeric literal at all"
    big = [v for v in literals if math.isfinite(v) and abs(v) >= 1e4]
    assert big == [], big


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_queries", [1, 8])  # (batch * n_queries) < or >= n_keys + 1:
def test_both_2d_fast_paths_all_dtypes(dtype, n_queries):  # computed vs looked-up bias
    g = _gen(12)
    X = (torch.randn(3, n_queries, 6, generator=g) * 1e4).to(dtype)
    lens = torch.randint(1, 7, (3, n_queries), generator=g)
    w = masked_softmax(X, lens)
    ref = reference_masked_softmax(X.double(), lens)
    assert torch.isfinite(w).all()
    assert torch.equal(w[ref == 0], torch.zeros_like(w[ref == 0]))
    tol = {torch.float16: 2e-3, torch.bfloat16: 2e-2}.get(dtype, 1e-6)
    torch.testing.assert_close(w.double(), ref, atol=tol, rtol=0)
