"""Property tests (hypothesis): invariants of masked softmax, attention and kernel regression.

Examples are derived from small integers drawn by hypothesis (shapes, a seed), so each
example is cheap; ``derandomize=True`` makes every run draw the same examples.
"""

import math

import torch
from _depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib import (
    dot_product_attention,
    dot_product_scores,
    gaussian_scores,
    masked_softmax,
    nadaraya_watson,
    valid_lens_to_mask,
)

SETTINGS = settings(derandomize=True, max_examples=examples(40), deadline=None)

shapes = st.tuples(st.integers(1, 4), st.integers(1, 6), st.integers(1, 7))  # b, nq, nk
seeds = st.integers(0, 2**31 - 1)
scales = st.sampled_from([1.0, 10.0, 1e3])


def _case(shape, seed, lens_kind, scale=1.0):
    b, nq, nk = shape
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(b, nq, nk, generator=g, dtype=torch.float64) * scale
    if lens_kind == "none":
        lens = None
    elif lens_kind == "1d":
        lens = torch.randint(0, nk + 1, (b,), generator=g)
    else:
        lens = torch.randint(0, nk + 1, (b, nq), generator=g)
    keep = (
        torch.ones(b, nq, nk, dtype=torch.bool)
        if lens is None
        else valid_lens_to_mask(lens, nq, nk)
    )
    return X, lens, keep, g


lens_kinds = st.sampled_from(["none", "1d", "2d"])


@SETTINGS
@given(shapes, seeds, lens_kinds, scales)
def test_rows_sum_to_one_over_valid_keys(shape, seed, lens_kind, scale):
    X, lens, keep, _ = _case(shape, seed, lens_kind, scale)
    w = masked_softmax(X, lens)
    has_key = keep.any(-1)
    sums = w.sum(-1)
    torch.testing.assert_close(sums[has_key], torch.ones_like(sums[has_key]))
    assert torch.equal(sums[~has_key], torch.zeros_like(sums[~has_key]))
    assert (w >= 0).all()


@SETTINGS
@given(shapes, seeds, lens_kinds, scales)
def test_masked_weights_exactly_zero(shape, seed, lens_kind, scale):
    X, lens, keep, _ = _case(shape, seed, lens_kind, scale)
    w = masked_softmax(X, lens)
    assert torch.equal(w[~keep], torch.zeros_like(w[~keep]))


@SETTINGS
@given(shapes, seeds, lens_kinds, st.floats(-1e3, 1e3, allow_nan=False))
def test_adding_a_constant_to_a_row_changes_nothing(shape, seed, lens_kind, shift):
    X, lens, _, g = _case(shape, seed, lens_kind)
    shifts = torch.randn(X.shape[0], X.shape[1], 1, generator=g, dtype=torch.float64) * shift
    torch.testing.assert_close(
        masked_softmax(X + shifts, lens), masked_softmax(X, lens), rtol=1e-9, atol=1e-12
    )


@SETTINGS
@given(shapes, seeds, st.integers(1, 5))
def test_permuting_key_value_pairs_permutes_weights(shape, seed, d):
    b, nq, nk = shape
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(b, nq, d, generator=g, dtype=torch.float64)
    k = torch.randn(b, nk, d, generator=g, dtype=torch.float64)
    v = torch.randn(b, nk, 2, generator=g, dtype=torch.float64)
    mask = torch.rand(b, nq, nk, generator=g) > 0.3
    perm = torch.randperm(nk, generator=g)
    out, w = dot_product_attention(q, k, v, mask=mask)
    out_p, w_p = dot_product_attention(q, k[:, perm], v[:, perm], mask=mask[..., perm])
    torch.testing.assert_close(w_p, w[..., perm])
    torch.testing.assert_close(out_p, out)


@SETTINGS
@given(shapes, seeds, st.integers(1, 8), st.floats(0.1, 5.0))
def test_gaussian_equals_dot_product_for_equal_norm_keys(shape, seed, d, norm):
    """-|q-k|^2 / 2 sigma^2 = q.k / sigma^2 + (terms constant along a row): with all keys of
    the same norm and sigma^2 = sqrt(d), the softmax weights are those of q.k / sqrt(d)."""
    b, nq, nk = shape
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(b, nq, d, generator=g, dtype=torch.float64)
    k = torch.randn(b, nk, d, generator=g, dtype=torch.float64)
    k = norm * k / k.norm(dim=-1, keepdim=True)
    sigma = math.sqrt(math.sqrt(d))
    w_gauss = masked_softmax(gaussian_scores(q, k, sigma))
    w_dot = masked_softmax(dot_product_scores(q, k))
    torch.testing.assert_close(w_gauss, w_dot, rtol=1e-9, atol=1e-12)


@SETTINGS
@given(
    st.integers(1, 30),
    st.integers(1, 12),
    seeds,
    st.sampled_from(["gaussian", "boxcar", "constant", "epanechnikov", "triangular"]),
    st.sampled_from([1e-3, 0.05, 0.3, 2.0]),
)
def test_nadaraya_watson_weights_are_a_distribution(n_train, n_query, seed, kernel, bw):
    g = torch.Generator().manual_seed(seed)
    x_train = torch.rand(n_train, generator=g) * 5
    y_train = torch.randn(n_train, generator=g)
    x_query = torch.rand(n_query, generator=g) * 6 - 0.5
    y_hat, w = nadaraya_watson(x_train, y_train, x_query, kernel, bw)
    assert w.shape == (n_query, n_train)
    assert torch.isfinite(w).all() and (w >= 0).all()
    torch.testing.assert_close(w.sum(1), torch.ones(n_query))
    # a weighted average stays within the range of the targets
    assert (y_hat >= y_train.min() - 1e-5).all() and (y_hat <= y_train.max() + 1e-5).all()
