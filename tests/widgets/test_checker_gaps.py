"""Issue 27's checker gaps: each wrong answer below was accepted by the checker before the
fix (seen failing on the old code), and each right answer must still pass."""

from __future__ import annotations

import torch
from torch import nn

import attnlib
from attnlib.masking import valid_lens_to_mask
from scoringbook.ch02_exercises import check_kernel
from scoringbook.ch03_masked_softmax import check_masked_softmax
from scoringbook.ch07_exercises import check_attention_module


# ----------------------------------------------------------------- check_attention_module
class _MeanOutput(nn.Module):
    """Stores the right weights of (W q)ᵀk / √h, but returns the uniform mean of the values."""

    def __init__(self, h):
        super().__init__()
        self.W = nn.Linear(h, h, bias=False)
        self.inner = attnlib.DotProductAttention()

    @property
    def attention_weights(self):
        return self.inner.attention_weights

    def forward(self, q, k, v, valid_lens):
        self.inner(self.W(q), k, v, valid_lens)
        return v.mean(dim=1, keepdim=True)  # (batch, 1, h): ignores the weights


class _TwoMaps(nn.Module):
    """(W₁ q)ᵀ(W₂ k), optionally divided by √h: two (h, h) parameters, neither alone is M."""

    def __init__(self, h, scale):
        super().__init__()
        self.W_q = nn.Linear(h, h, bias=False)
        self.W_k = nn.Linear(h, h, bias=False)
        self.scale = scale
        self.attention_weights = None

    def forward(self, q, k, v, valid_lens):
        s = self.W_q(q) @ self.W_k(k).transpose(1, 2)  # (batch, 1, n_keys)
        if self.scale:
            s = s / q.shape[-1] ** 0.5
        self.attention_weights = attnlib.masked_softmax(s, valid_lens)
        return self.attention_weights @ v


def test_check_attention_module_compares_the_output_with_weights_at_values():
    result = check_attention_module(_MeanOutput, steps=1)
    assert not result.ok and "weights @ values" in result.message, result.message


def test_check_attention_module_checks_the_scale_of_two_maps():
    result = check_attention_module(lambda h: _TwoMaps(h, scale=False), steps=1)
    assert not result.ok and "divide by √h" in result.message, result.message
    # scaled, the structure passes: the verdict is about training (1 step: below 90 %)
    result = check_attention_module(lambda h: _TwoMaps(h, scale=True), steps=1)
    assert not result.ok and "after" not in result.message and "1 steps" in result.message, (
        result.message
    )


# ----------------------------------------------------------------- check_kernel
def _loop_boxcar(u):
    """A loop over the entries: fine on a 1-D u, crashes on a 2-D one (a row is not a number)."""
    return torch.tensor([0.5 if abs(float(x)) <= 1 else 0.0 for x in u], dtype=u.dtype)


def test_check_kernel_rejects_a_loop_that_crashes_on_2d_input():
    result = check_kernel(_loop_boxcar, "boxcar")
    assert not result.ok and "2-D" in result.message, result.message
    assert check_kernel(lambda u: 0.5 * (u.abs() <= 1).to(u.dtype), "boxcar").ok


def test_check_kernel_rejects_a_kernel_that_flattens_2d_input():
    result = check_kernel(lambda u: 0.5 * (u.reshape(-1).abs() <= 1).to(u.dtype), "boxcar")
    assert not result.ok and "2-D" in result.message and "shape" in result.message, result.message


# ----------------------------------------------------------------- check_masked_softmax
def _finite_fill(fill):
    """A masked softmax that fills masked scores with a finite ``fill`` (d2l uses -1e6)."""

    def fn(X, valid_lens):
        if valid_lens is None:
            return torch.softmax(X, dim=-1)
        n_q, n_k = X.shape[1], X.shape[2]
        mask = valid_lens_to_mask(valid_lens, n_q, n_k)  # (batch, n_queries, n_keys)
        w = torch.softmax(X.masked_fill(~mask, fill), dim=-1)
        return w * mask.any(-1, keepdim=True)  # a row with no valid key: zeros

    return fn


def test_check_masked_softmax_rejects_a_finite_fill_above_the_valid_scores():
    result = check_masked_softmax(_finite_fill(-3e4))
    assert not result.ok and "fill" in result.message, result.message


def test_check_masked_softmax_still_accepts_a_fill_of_the_dtype_s_lowest_value():
    def fn(X, valid_lens):
        return _finite_fill(torch.finfo(X.dtype).min)(X, valid_lens)

    result = check_masked_softmax(fn)
    assert result.ok, result.message
