"""Kernels and Nadaraya-Watson regression."""

import math

import pytest
import torch

from attnlib import NadarayaWatson, nadaraya_watson
from attnlib.kernels import (
    KERNELS,
    LOG_KERNELS,
    boxcar,
    constant,
    epanechnikov,
    gaussian,
    log_kernel,
    triangular,
)

COMPACT = ["boxcar", "epanechnikov", "triangular"]
PROPER = ["gaussian", "boxcar", "epanechnikov", "triangular"]


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _data(n_train=40, n_query=25, seed=0, dtype=torch.float64):
    g = _gen(seed)
    x_train = torch.sort(torch.rand(n_train, generator=g, dtype=dtype) * 5).values
    y_train = (
        2 * torch.sin(x_train)
        + x_train**0.8
        + 0.5 * torch.randn(n_train, generator=g, dtype=dtype)
    )
    x_query = torch.linspace(0, 5, n_query, dtype=dtype)
    return x_train, y_train, x_query


# --------------------------------------------------------------------------- kernels
def test_kernel_names():
    assert set(KERNELS) == {"gaussian", "boxcar", "constant", "epanechnikov", "triangular"}
    assert set(LOG_KERNELS) == set(KERNELS)


@pytest.mark.parametrize("name", PROPER)
def test_kernels_integrate_to_one(name):
    u = torch.linspace(-8, 8, 160001, dtype=torch.float64)
    area = torch.trapezoid(KERNELS[name](u), u)
    assert abs(float(area) - 1.0) < 1e-4, (name, float(area))


def test_constant_kernel_is_one():
    u = torch.linspace(-10, 10, 11)
    assert torch.equal(constant(u), torch.ones(11))


@pytest.mark.parametrize("name", list(KERNELS))
def test_kernels_symmetric_nonnegative(name):
    u = torch.linspace(-3, 3, 601, dtype=torch.float64)
    k = KERNELS[name](u)
    assert (k >= 0).all()
    torch.testing.assert_close(k, KERNELS[name](-u))


@pytest.mark.parametrize("name", COMPACT)
def test_compact_support(name):
    outside = torch.tensor([-3.0, -1.01, 1.01, 3.0])
    assert torch.equal(KERNELS[name](outside), torch.zeros(4))


def test_formulas_pointwise():
    u = [0.0, 0.25, 0.5, 0.9, 1.5]
    t = torch.tensor(u, dtype=torch.float64)
    torch.testing.assert_close(
        epanechnikov(t),
        torch.tensor([0.75 * (1 - x * x) if abs(x) <= 1 else 0.0 for x in u], dtype=torch.float64),
    )
    torch.testing.assert_close(
        triangular(t),
        torch.tensor([1 - abs(x) if abs(x) <= 1 else 0.0 for x in u], dtype=torch.float64),
    )
    torch.testing.assert_close(
        gaussian(t),
        torch.tensor(
            [math.exp(-x * x / 2) / math.sqrt(2 * math.pi) for x in u], dtype=torch.float64
        ),
    )
    torch.testing.assert_close(
        boxcar(t), torch.tensor([0.5 if abs(x) <= 1 else 0.0 for x in u], dtype=torch.float64)
    )


def test_epanechnikov_is_not_the_triangular_kernel():
    """d2l issue 2440: d2l's 'epanechnikov' is max(0, 1 - |u|), the triangular kernel."""
    u = torch.linspace(-1, 1, 201, dtype=torch.float64)
    assert not torch.allclose(epanechnikov(u), triangular(u))
    # and it is a parabola: second differences are constant inside the support
    inner = epanechnikov(torch.linspace(-0.9, 0.9, 19, dtype=torch.float64))
    second = inner[2:] - 2 * inner[1:-1] + inner[:-2]
    torch.testing.assert_close(second, torch.full_like(second, -0.75 * 2 * 0.1**2))


@pytest.mark.parametrize("name", list(KERNELS))
def test_log_kernels_match_kernels(name):
    u = torch.linspace(-3, 3, 601, dtype=torch.float64)
    k = KERNELS[name](u)
    lk = log_kernel(u, name)
    inside = k > 0
    torch.testing.assert_close(lk[inside], torch.log(k[inside]))
    assert torch.isneginf(lk[~inside]).all()


def test_kernels_reject_non_float():
    with pytest.raises(TypeError, match=r"u must be a floating-point tensor.*torch.int64"):
        gaussian(torch.arange(3))
    with pytest.raises(TypeError, match=r"u must be a torch.Tensor"):
        epanechnikov([0.0, 1.0])


# --------------------------------------------------------------------------- nadaraya-watson
@pytest.mark.parametrize("name", ["gaussian", "triangular", "epanechnikov"])
def test_nw_matches_naive_ratio_when_defined(name):
    x_train, y_train, x_query = _data()
    bandwidth = 1.3
    y_hat, w = nadaraya_watson(x_train, y_train, x_query, name, bandwidth)
    K = KERNELS[name]((x_query[:, None] - x_train[None, :]) / bandwidth)
    assert (K.sum(1) > 0).all()  # every window is non-empty here
    naive = K / K.sum(1, keepdim=True)
    torch.testing.assert_close(w, naive)
    torch.testing.assert_close(y_hat, naive @ y_train)
    assert w.shape == (25, 40)  # queries are rows


@pytest.mark.parametrize(
    "name, bandwidth",
    [
        ("gaussian", 0.01),
        ("boxcar", 0.05),
        ("gaussian", 1e-4),
        ("epanechnikov", 0.02),
        ("triangular", 0.02),
    ],
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_nw_no_nan_for_narrow_windows(name, bandwidth, dtype):
    x_train, y_train, x_query = _data(dtype=dtype)
    # the naive formula fails here: some kernel rows are all 0 -> 0/0
    K = KERNELS[name]((x_query[:, None] - x_train[None, :]) / bandwidth)
    assert (K.sum(1) == 0).any()
    y_hat, w = nadaraya_watson(x_train, y_train, x_query, name, bandwidth)
    assert torch.isfinite(y_hat).all() and torch.isfinite(w).all()
    torch.testing.assert_close(w.sum(1), torch.ones(25, dtype=dtype))


@pytest.mark.parametrize("name", COMPACT)
def test_nw_empty_window_takes_nearest_point(name):
    x_train, y_train, x_query = _data(seed=3)
    bandwidth = 0.04
    y_hat, w = nadaraya_watson(x_train, y_train, x_query, name, bandwidth)
    dist = (x_query[:, None] - x_train[None, :]).abs()
    empty = (KERNELS[name]((x_query[:, None] - x_train[None, :]) / bandwidth) == 0).all(1)
    assert empty.sum() >= 5  # the case is exercised
    nearest = dist.argmin(1)
    for i in torch.nonzero(empty).flatten().tolist():
        expected = torch.zeros(40, dtype=torch.float64)
        expected[nearest[i]] = 1.0
        assert torch.equal(w[i], expected)
        assert y_hat[i] == y_train[nearest[i]]


def test_nw_gaussian_tiny_bandwidth_is_nearest_neighbour():
    x_train, y_train, x_query = _data(seed=4)
    y_hat, _ = nadaraya_watson(x_train, y_train, x_query, "gaussian", 1e-4)
    nearest = (x_query[:, None] - x_train[None, :]).abs().argmin(1)
    torch.testing.assert_close(y_hat, y_train[nearest])


def test_nw_constant_kernel_predicts_mean():
    x_train, y_train, x_query = _data()
    y_hat, w = nadaraya_watson(x_train, y_train, x_query, "constant")
    torch.testing.assert_close(y_hat, torch.full_like(y_hat, float(y_train.mean())))
    torch.testing.assert_close(w, torch.full_like(w, 1 / 40))


def test_nw_callable_kernel_equals_named():
    x_train, y_train, x_query = _data()
    for name in ("gaussian", "epanechnikov"):
        a = nadaraya_watson(x_train, y_train, x_query, name, 0.7)
        b = nadaraya_watson(x_train, y_train, x_query, lambda u, name=name: KERNELS[name](u), 0.7)
        torch.testing.assert_close(a, b)


def test_nw_exclude_self_is_leave_one_out():
    x_train, y_train, _ = _data(n_train=12)
    y_hat, w = nadaraya_watson(x_train, y_train, x_train, "gaussian", 0.5, exclude_self=True)
    assert torch.equal(torch.diagonal(w), torch.zeros(12, dtype=torch.float64))
    for i in range(12):
        others = [j for j in range(12) if j != i]
        expected, _ = nadaraya_watson(
            x_train[others], y_train[others], x_train[i : i + 1], "gaussian", 0.5
        )
        torch.testing.assert_close(y_hat[i : i + 1], expected)


def test_nw_mask_and_empty_window_respect_mask():
    x_train = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)
    y_train = torch.tensor([0.0, 10.0, 20.0], dtype=torch.float64)
    x_query = torch.tensor([0.0, 5.0], dtype=torch.float64)
    mask = torch.tensor([[False, True, True], [True, True, False]])
    y_hat, w = nadaraya_watson(x_train, y_train, x_query, "boxcar", 0.1, mask=mask)
    # query 0: own point masked, nothing in window -> nearest allowed (x=1)
    # query 1: nothing in window -> nearest allowed (x=1, since x=2 is masked)
    assert y_hat.tolist() == [10.0, 10.0]
    assert w.tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]


def test_nw_gradcheck():
    x_train, y_train, x_query = _data(n_train=6, n_query=4, seed=5)
    bw = torch.tensor(0.8, dtype=torch.float64, requires_grad=True)
    y_train = y_train.clone().requires_grad_(True)
    x_query = x_query.clone().requires_grad_(True)
    for name in ("gaussian", "epanechnikov"):
        assert torch.autograd.gradcheck(
            lambda yt, xq, b, name=name: nadaraya_watson(x_train, yt, xq, name, b)[0],
            (y_train, x_query, bw),
        )


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (
            dict(kernel="parabolic"),
            ValueError,
            ["kernel", "'parabolic'", "epanechnikov", "gaussian", "triangular"],
        ),
        (dict(kernel=3), TypeError, ["kernel", "int"]),
        (dict(bandwidth=0.0), ValueError, ["bandwidth", "> 0"]),
        (dict(bandwidth=-1.0), ValueError, ["bandwidth", "> 0"]),
        (dict(bandwidth=torch.tensor([1.0, 2.0])), ValueError, ["bandwidth", "(2,)"]),
        (dict(exclude_self=True), ValueError, ["exclude_self", "(5,)", "(4,)"]),
        (dict(mask=torch.ones(5, 4)), TypeError, ["mask", "boolean"]),
        (dict(mask=torch.ones(4, 5, dtype=torch.bool)), ValueError, ["mask", "(5, 4)", "(4, 5)"]),
        (dict(mask=torch.zeros(5, 4, dtype=torch.bool)), ValueError, ["query 0"]),
    ],
)
def test_nw_bad_options(kwargs, exc, words):
    x_train = torch.arange(4.0)
    with pytest.raises(exc) as info:
        nadaraya_watson(x_train, x_train, torch.arange(5.0), **kwargs)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_nw_bad_tensors():
    x = torch.arange(4.0)
    with pytest.raises(
        ValueError, match=r"y_train must have shape \(n_train,\) = \(4,\), got \(3,\)"
    ):
        nadaraya_watson(x, x[:3], x)
    with pytest.raises(ValueError, match=r"x_query must have 1 dimension.*\(2, 2\)"):
        nadaraya_watson(x, x, x.view(2, 2))
    with pytest.raises(TypeError, match=r"x_train must be a floating-point tensor.*torch.int64"):
        nadaraya_watson(torch.arange(4), x, x)
    with pytest.raises(TypeError, match=r"y_train must have the same dtype"):
        nadaraya_watson(x, x.double(), x)
    with pytest.raises(ValueError, match=r"at least one training point"):
        nadaraya_watson(x[:0], x[:0], x)


# --------------------------------------------------------------------------- module
def test_module_forward_and_weights():
    x_train, y_train, x_query = _data()
    model = NadarayaWatson("epanechnikov", bandwidth=0.6)
    y_hat = model(x_train, y_train, x_query)
    ref, w = nadaraya_watson(x_train, y_train, x_query, "epanechnikov", 0.6)
    torch.testing.assert_close(y_hat, ref)
    torch.testing.assert_close(model.attention_weights, w)
    assert math.isclose(model.bandwidth.item(), 0.6, rel_tol=1e-6)
    assert [n for n, _ in model.named_parameters()] == ["log_bandwidth"]


def test_module_training_moves_bandwidth_and_lowers_loss():
    x_train, y_train, _ = _data(n_train=50, seed=6, dtype=torch.float32)
    model = NadarayaWatson("gaussian", bandwidth=3.0, exclude_self=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = ((model(x_train, y_train, x_train) - y_train) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.8 * losses[0]
    assert model.bandwidth.item() < 3.0
    assert torch.equal(torch.diagonal(model.attention_weights), torch.zeros(50))


def test_module_bad_construction():
    with pytest.raises(ValueError, match="kernel"):
        NadarayaWatson("cosine")
    with pytest.raises(ValueError, match="bandwidth"):
        NadarayaWatson("gaussian", bandwidth=0)


def test_nw_inputs_not_mutated():
    x_train, y_train, x_query = _data()
    copies = [t.clone() for t in (x_train, y_train, x_query)]
    nadaraya_watson(x_train, y_train, x_query, "boxcar", 0.01)
    nadaraya_watson(x_train, y_train, x_train, "gaussian", 0.3, exclude_self=True)
    for a, b in zip((x_train, y_train, x_query), copies):
        assert torch.equal(a, b)
