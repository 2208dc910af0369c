"""Cosine-similarity and general (bilinear) attention against an independent reference:
NumPy in float64, written from the formulas (not from attnlib)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import attnlib
from attnlib import (
    CosineAttention,
    GeneralAttention,
    bilinear_attention,
    cosine_attention,
    cosine_scores,
)


def _np_softmax(s, valid):
    out = np.zeros_like(s)
    for i in range(s.shape[0]):
        n = valid[i]
        if n == 0:
            continue
        e = np.exp(s[i, :n] - s[i, :n].max())
        out[i, :n] = e / e.sum()
    return out


def _np_cosine(q, k, t):
    """cos(q_i, k_j) / t, element by element with math (float64)."""
    s = np.zeros((q.shape[0], k.shape[0]))
    for i, qi in enumerate(q):
        for j, kj in enumerate(k):
            nq, nk = math.sqrt(sum(x * x for x in qi)), math.sqrt(sum(x * x for x in kj))
            s[i, j] = sum(a * b for a, b in zip(qi, kj)) / (nq * nk) / t
    return s


def _data(seed, b=2, nq=3, nk=5, d=4, dv=3, dk=None):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(b, nq, d))
    k = rng.normal(size=(b, nk, dk or d)) * rng.uniform(0.1, 5.0, size=(b, nk, 1))
    v = rng.normal(size=(b, nk, dv))
    return q, k, v


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("t", [0.1, 1.0, 3.0])
def test_cosine_scores_match_the_formula(seed, t):
    q, k, _ = _data(seed)
    got = cosine_scores(torch.tensor(q), torch.tensor(k), temperature=t).numpy()
    for b in range(q.shape[0]):
        np.testing.assert_allclose(got[b], _np_cosine(q[b], k[b], t), rtol=1e-12, atol=1e-12)


def test_cosine_ignores_length_and_the_dot_product_does_not():
    q = torch.tensor([[[1.0, 0.2]]])  # (1, 1, 2)
    k = torch.tensor([[[1.0, 0.0], [0.7, 0.7]]])  # (1, 2, 2)
    long_k = k * torch.tensor([1.0, 10.0]).view(1, 2, 1)  # key 1 ten times longer
    assert torch.allclose(cosine_scores(q, k), cosine_scores(q, long_k))
    dot, dot_long = attnlib.dot_product_scores(q, k), attnlib.dot_product_scores(q, long_k)
    assert dot[0, 0, 0] > dot[0, 0, 1] and dot_long[0, 0, 1] > dot_long[0, 0, 0]


@pytest.mark.parametrize("lens", [None, [2, 5], [[1, 0, 5], [3, 4, 2]]])
def test_cosine_attention_and_module_match_the_reference(lens):
    q, k, v = _data(7)
    t = 0.3
    valid = lens if lens is not None else [5, 5]
    vl = None if lens is None else torch.tensor(lens)
    out, w = cosine_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v), vl, temperature=t)
    m = CosineAttention(temperature=t).double().eval()
    out_m = m(torch.tensor(q), torch.tensor(k), torch.tensor(v), vl)
    for b in range(2):
        rows = np.broadcast_to(np.asarray(valid[b]), (3,))
        want_w = _np_softmax(_np_cosine(q[b], k[b], t), rows)
        np.testing.assert_allclose(w[b].numpy(), want_w, atol=1e-12)
        np.testing.assert_allclose(out[b].numpy(), want_w @ v[b], atol=1e-12)
        np.testing.assert_allclose(out_m[b].detach().numpy(), want_w @ v[b], atol=1e-12)
    assert torch.equal(m.attention_weights, w)


def test_a_learned_temperature_gets_a_gradient_and_stays_positive():
    m = CosineAttention(temperature=2.0, learn_temperature=True)
    assert [n for n, _ in m.named_parameters()] == ["log_temperature"]
    q, k, v = (torch.tensor(a, dtype=torch.float32) for a in _data(1))
    opt = torch.optim.SGD(m.parameters(), lr=5.0)
    for _ in range(20):  # sharpen towards the key most similar to each query
        opt.zero_grad()
        w = (m(q, k, v), m.attention_weights)[1]
        (-(w.max(-1).values.log()).mean()).backward()
        opt.step()
    assert 0 < float(m.temperature) < 2.0
    fixed = CosineAttention(temperature=2.0)
    assert list(fixed.parameters()) == [] and fixed.temperature == 2.0


@pytest.mark.parametrize("seed", range(3))
def test_bilinear_attention_and_general_module_match_the_reference(seed):
    q, k, v = _data(seed, d=3, dk=5)
    W = np.random.default_rng(seed + 10).normal(size=(3, 5))
    vl = torch.tensor([4, 2])
    out, w = bilinear_attention(
        torch.tensor(q), torch.tensor(k), torch.tensor(v), torch.tensor(W), vl
    )
    m = GeneralAttention(query_size=3, key_size=5).double().eval()
    with torch.no_grad():
        m.W.weight.copy_(torch.tensor(W))
    out_m = m(torch.tensor(q), torch.tensor(k), torch.tensor(v), vl)
    for b, n in enumerate([4, 2]):
        s = np.array(
            [
                [
                    sum(q[b, i, a] * W[a, c] * k[b, j, c] for a in range(3) for c in range(5))
                    for j in range(5)
                ]
                for i in range(3)
            ]
        )  # (3, 5), the sum written out
        want_w = _np_softmax(s, [n] * 3)
        np.testing.assert_allclose(w[b].numpy(), want_w, atol=1e-12)
        np.testing.assert_allclose(out[b].numpy(), want_w @ v[b], atol=1e-12)
        np.testing.assert_allclose(out_m[b].detach().numpy(), want_w @ v[b], atol=1e-12)


def test_general_with_a_scaled_identity_is_scaled_dot_product():
    q, k, v = (torch.tensor(a) for a in _data(3))
    W = torch.eye(4, dtype=torch.float64) / 2.0  # 1/sqrt(4)
    out, w = bilinear_attention(q, k, v, W)
    out_d, w_d = attnlib.dot_product_attention(q, k, v)
    assert torch.allclose(w, w_d, atol=1e-14) and torch.allclose(out, out_d, atol=1e-14)


def test_dropout_acts_in_training_only():
    q, k, v = (torch.tensor(a, dtype=torch.float32) for a in _data(4))
    for m in (CosineAttention(dropout=0.5), GeneralAttention(4, 4, dropout=0.5)):
        train_out = m.train()(q, k, v)
        eval_out = m.eval()(q, k, v)
        assert not torch.allclose(train_out, eval_out)
        assert torch.allclose(eval_out, m.attention_weights @ v, atol=1e-6)
