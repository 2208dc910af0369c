"""Scoring functions: values against loop references, blocked additive scores, bad input."""

import math

import pytest
import torch

from attnlib import additive_scores, bilinear_scores, dot_product_scores, gaussian_scores


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _qk(batch=2, nq=3, nk=4, dq=5, dk=5, seed=0, dtype=torch.float64):
    g = _gen(seed)
    return (
        torch.randn(batch, nq, dq, generator=g, dtype=dtype),
        torch.randn(batch, nk, dk, generator=g, dtype=dtype),
    )


def _pairwise(q, k, f):
    """scores[b, i, j] = f(q[b, i], k[b, j]) by explicit loops."""
    out = torch.empty(q.shape[0], q.shape[1], k.shape[1], dtype=q.dtype)
    for b in range(q.shape[0]):
        for i in range(q.shape[1]):
            for j in range(k.shape[1]):
                out[b, i, j] = f(q[b, i], k[b, j])
    return out


def broadcast_additive(q, k, W_q, W_k, w_v):
    """d2l's broadcast form, written independently of attnlib."""
    features = torch.tanh((q @ W_q.T).unsqueeze(2) + (k @ W_k.T).unsqueeze(1))
    return (features * w_v).sum(-1)


# --------------------------------------------------------------------------- dot product
def test_dot_product_matches_loops():
    q, k = _qk()
    expected = _pairwise(q, k, lambda a, b: torch.dot(a, b) / math.sqrt(5))
    torch.testing.assert_close(dot_product_scores(q, k), expected)


def test_dot_product_mismatched_sizes_message():
    with pytest.raises(ValueError) as info:
        dot_product_scores(torch.randn(1, 2, 2), torch.randn(1, 3, 3))
    msg = str(info.value)
    for w in [
        "queries",
        "keys",
        "(1, 2, 2)",
        "(1, 3, 3)",
        "d = 2",
        "d = 3",
        "bilinear_scores",
        "AdditiveAttention",
    ]:
        assert w in msg, w


@pytest.mark.parametrize("fn", [dot_product_scores, lambda q, k: gaussian_scores(q, k)])
def test_qk_bad_inputs(fn):
    q, k = _qk(dtype=torch.float32)
    with pytest.raises(ValueError, match=r"queries.*3 dimensions.*\(3, 5\)"):
        fn(q[0], k)
    with pytest.raises(TypeError, match=r"keys.*floating.*torch.int64"):
        fn(q, k.long())
    with pytest.raises(TypeError, match=r"keys.*same dtype.*torch.float64"):
        fn(q, k.double())
    with pytest.raises(ValueError, match=r"batch size.*\(1, 4, 5\).*\(2, 3, 5\)"):
        fn(q, k[:1])
    with pytest.raises(TypeError, match="queries.*torch.Tensor"):
        fn(q.tolist(), k)


# --------------------------------------------------------------------------- bilinear
def test_bilinear_matches_loops_different_sizes():
    q, k = _qk(dq=2, dk=3)
    M = torch.randn(2, 3, generator=_gen(1), dtype=torch.float64)
    expected = _pairwise(q, k, lambda a, b: a @ M @ b)
    torch.testing.assert_close(bilinear_scores(q, k, M), expected)


def test_bilinear_identity_over_sqrt_d_is_dot_product():
    q, k = _qk()
    M = torch.eye(5, dtype=torch.float64) / math.sqrt(5)
    torch.testing.assert_close(bilinear_scores(q, k, M), dot_product_scores(q, k))


def test_bilinear_bad_M():
    q, k = _qk(dq=2, dk=3)
    with pytest.raises(
        ValueError, match=r"M must have shape \(d_q, d_k\) = \(2, 3\), got \(3, 2\)"
    ):
        bilinear_scores(q, k, torch.zeros(3, 2, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"M must have 2 dimensions"):
        bilinear_scores(q, k, torch.zeros(6, dtype=torch.float64))


# --------------------------------------------------------------------------- gaussian
@pytest.mark.parametrize("sigma", [1.0, 0.3, torch.tensor(2.5, dtype=torch.float64)])
def test_gaussian_matches_loops(sigma):
    q, k = _qk()
    s = float(sigma)
    expected = _pairwise(q, k, lambda a, b: -((a - b) ** 2).sum() / (2 * s * s))
    torch.testing.assert_close(gaussian_scores(q, k, sigma), expected)


def test_gaussian_self_distance_zero_and_nonpositive():
    q, _ = _qk()
    scores = gaussian_scores(q, q)
    assert (scores <= 0).all()
    diag = torch.diagonal(scores, dim1=1, dim2=2)
    torch.testing.assert_close(diag, torch.zeros_like(diag), atol=1e-12, rtol=0)


def test_gaussian_sigma_gradient():
    q, k = _qk()
    sigma = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda s: gaussian_scores(q, k, s), (sigma,))


@pytest.mark.parametrize(
    "sigma, exc",
    [
        (0.0, ValueError),
        (-1.0, ValueError),
        (float("nan"), ValueError),
        ("1", TypeError),
        (torch.ones(2), ValueError),
    ],
)
def test_gaussian_bad_sigma(sigma, exc):
    q, k = _qk()
    with pytest.raises(exc, match="sigma"):
        gaussian_scores(q, k, sigma)


def test_gaussian_feature_mismatch():
    q, k = _qk(dq=2, dk=3)
    with pytest.raises(ValueError, match=r"feature size d.*\(2, 4, 3\).*\(2, 3, 2\)"):
        gaussian_scores(q, k)


# --------------------------------------------------------------------------- additive
def _additive_params(dq=2, dk=3, h=6, seed=3, dtype=torch.float64, requires_grad=False):
    g = _gen(seed)
    W_q = torch.randn(h, dq, generator=g, dtype=dtype, requires_grad=requires_grad)
    W_k = torch.randn(h, dk, generator=g, dtype=dtype, requires_grad=requires_grad)
    w_v = torch.randn(h, generator=g, dtype=dtype, requires_grad=requires_grad)
    return W_q, W_k, w_v


def test_additive_matches_loops():
    q, k = _qk(dq=2, dk=3)
    W_q, W_k, w_v = _additive_params()
    expected = _pairwise(q, k, lambda a, b: w_v @ torch.tanh(W_q @ a + W_k @ b))
    torch.testing.assert_close(additive_scores(q, k, W_q, W_k, w_v), expected)


@pytest.mark.parametrize("budget", [1, 7, 12, 50, 97, 200, 10**6])
@pytest.mark.parametrize("grad", [False, True])
def test_additive_blocked_equals_broadcast(budget, grad):
    q, k = _qk(batch=2, nq=7, nk=9, dq=2, dk=3, seed=4)
    W_q, W_k, w_v = _additive_params(requires_grad=grad)
    got = additive_scores(q, k, W_q, W_k, w_v, max_block_elements=budget)
    expected = broadcast_additive(q, k, W_q, W_k, w_v)
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-12)
    if grad:
        upstream = torch.randn(got.shape, generator=_gen(5), dtype=torch.float64)
        g_got = torch.autograd.grad(got, (W_q, W_k, w_v), upstream)
        g_exp = torch.autograd.grad(expected, (W_q, W_k, w_v), upstream)
        for a, b in zip(g_got, g_exp):
            torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)


def test_additive_gradcheck_blocked():
    q, k = _qk(batch=1, nq=3, nk=4, dq=2, dk=3, seed=6)
    q.requires_grad_(True)
    k.requires_grad_(True)
    W_q, W_k, w_v = _additive_params(h=3, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda *a: additive_scores(*a, max_block_elements=5), (q, k, W_q, W_k, w_v)
    )


def test_additive_autograd_memory_is_bounded():
    """Under autograd, blocks are checkpointed: nothing of size (batch, nq, nk, h) is saved."""
    q, k = _qk(batch=2, nq=64, nk=64, dq=2, dk=3, seed=7, dtype=torch.float32)
    W_q, W_k, w_v = _additive_params(h=32, dtype=torch.float32, requires_grad=True)
    full = 2 * 64 * 64 * 32
    budget = 4096
    saved = []

    def pack(t):
        saved.append(t.numel())
        return t

    for kind in ("attnlib", "broadcast"):
        saved.clear()
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            if kind == "attnlib":
                scores = additive_scores(q, k, W_q, W_k, w_v, max_block_elements=budget)
            else:
                scores = broadcast_additive(q, k, W_q, W_k, w_v)
        scores.sum().backward()
        if kind == "attnlib":
            assert max(saved) < full / 8, max(saved)
        else:  # the check can fail: the broadcast form saves full-size tensors
            assert max(saved) >= full


def test_additive_no_grad_path_equals_grad_path():
    q, k = _qk(batch=2, nq=5, nk=6, dq=2, dk=3, seed=8)
    W_q, W_k, w_v = _additive_params(requires_grad=True)
    with torch.no_grad():
        a = additive_scores(q, k, W_q, W_k, w_v, max_block_elements=20)
    b = additive_scores(q, k, W_q, W_k, w_v, max_block_elements=20)
    torch.testing.assert_close(a, b.detach(), rtol=1e-12, atol=1e-12)


def test_additive_bad_inputs():
    q, k = _qk(dq=2, dk=3)
    W_q, W_k, w_v = _additive_params()
    with pytest.raises(
        ValueError, match=r"W_q and queries.*feature size d_q.*\(6, 3\).*\(2, 3, 2\)"
    ):
        additive_scores(q, k, W_k, W_k, w_v)
    with pytest.raises(ValueError, match=r"W_k and keys.*feature size d_k"):
        additive_scores(q, k, W_q, W_q, w_v)
    with pytest.raises(ValueError, match=r"w_v and W_q.*hidden size h"):
        additive_scores(q, k, W_q, W_k, w_v[:5])
    with pytest.raises(ValueError, match=r"w_v must have 1 dimension \(h,\).*\(1, 6\)"):
        additive_scores(q, k, W_q, W_k, w_v[None])
    with pytest.raises(TypeError, match=r"W_k must have the same dtype"):
        additive_scores(q, k, W_q, W_k.float(), w_v)
    with pytest.raises(ValueError, match="max_block_elements"):
        additive_scores(q, k, W_q, W_k, w_v, max_block_elements=0)
