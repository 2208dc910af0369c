"""attnlib.MultiHeadAttention and attnlib.PositionalEncoding against trusted references:
torch's nn.MultiheadAttention (same weights, with and without masks) and d2l's formulas;
d2l §11.5 and §11.6's own code with d2l.X replaced by attnlib.X."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

import attnlib  # noqa: E402


def _pair(num_hiddens, num_heads, d_in, bias=False):
    """attnlib's module and torch's, holding the same weights (queries of num_hiddens
    features, keys and values of d_in)."""
    torch.manual_seed(0)
    mine = attnlib.MultiHeadAttention(num_hiddens, num_heads, 0.0, bias=bias).eval()
    kv = torch.zeros(1, 1, d_in)
    mine(torch.zeros(1, 1, num_hiddens), kv, kv)  # sizes the lazy projections
    ref = nn.MultiheadAttention(num_hiddens, num_heads, bias=bias, batch_first=True).eval()
    if d_in != num_hiddens:
        ref = nn.MultiheadAttention(
            num_hiddens, num_heads, bias=bias, batch_first=True, kdim=d_in, vdim=d_in
        ).eval()
    with torch.no_grad():
        if d_in == num_hiddens:
            ref.in_proj_weight.copy_(
                torch.cat([mine.W_q.weight, mine.W_k.weight, mine.W_v.weight])
            )
        else:
            ref.q_proj_weight.copy_(mine.W_q.weight)
            ref.k_proj_weight.copy_(mine.W_k.weight)
            ref.v_proj_weight.copy_(mine.W_v.weight)
        ref.out_proj.weight.copy_(mine.W_o.weight)
        if bias:
            ref.in_proj_bias.copy_(torch.cat([mine.W_q.bias, mine.W_k.bias, mine.W_v.bias]))
            ref.out_proj.bias.copy_(mine.W_o.bias)
    return mine, ref


@pytest.mark.parametrize("bias", [False, True])
def test_parity_with_nn_multiheadattention_without_mask(bias):
    mine, ref = _pair(24, 4, 24, bias)
    X, Y = torch.randn(3, 5, 24), torch.randn(3, 7, 24)
    want, want_w = ref(X, Y, Y, average_attn_weights=False)
    torch.testing.assert_close(mine(X, Y, Y, None), want, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(mine.attention_weights, want_w, atol=1e-6, rtol=1e-5)
    assert mine.attention_weights.shape == (3, 4, 5, 7)


def test_parity_with_key_padding_valid_lens():
    mine, ref = _pair(24, 3, 24)
    X, Y = torch.randn(2, 4, 24), torch.randn(2, 6, 24)
    lens = torch.tensor([2, 5])
    pad = torch.arange(6) >= lens.view(-1, 1)  # (batch, n_keys), True = ignore
    want, want_w = ref(X, Y, Y, key_padding_mask=pad, average_attn_weights=False)
    torch.testing.assert_close(mine(X, Y, Y, lens), want, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(mine.attention_weights, want_w, atol=1e-6, rtol=1e-5)


def test_parity_with_causal_mask_both_ways():
    mine, ref = _pair(16, 2, 16)
    X = torch.randn(3, 6, 16)
    causal = nn.Transformer.generate_square_subsequent_mask(6)  # float, -inf above diagonal
    want, want_w = ref(X, X, X, attn_mask=causal, average_attn_weights=False)
    got = mine(X, X, X, attnlib.causal_valid_lens(3, 6))
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(mine.attention_weights, want_w, atol=1e-6, rtol=1e-5)
    assert (mine.attention_weights.triu(1) == 0).all()
    got_mask = mine(X, X, X, mask=torch.ones(6, 6, dtype=torch.bool).tril())
    torch.testing.assert_close(got_mask, want, atol=1e-5, rtol=1e-5)


def test_parity_with_per_sequence_boolean_mask_and_different_key_sizes():
    mine, ref = _pair(12, 3, 5)
    X, Y = torch.randn(2, 3, 12), torch.randn(2, 4, 5)
    keep = torch.rand(2, 3, 4) > 0.4
    keep[..., 0] = True  # every query keeps a key
    # torch's 3-D attn_mask is (batch * heads, n_q, n_k), True = NOT allowed
    want, _ = ref(X, Y, Y, attn_mask=~keep.repeat_interleave(3, dim=0))
    torch.testing.assert_close(mine(X, Y, Y, mask=keep), want, atol=1e-5, rtol=1e-5)


def test_gradients_match_nn_multiheadattention():
    mine, ref = _pair(16, 4, 16)
    X = torch.randn(2, 5, 16, requires_grad=True)
    X2 = X.detach().clone().requires_grad_(True)
    mine(X, X, X, attnlib.causal_valid_lens(2, 5)).square().sum().backward()
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    ref(X2, X2, X2, attn_mask=causal, need_weights=False)[0].square().sum().backward()
    torch.testing.assert_close(X.grad, X2.grad, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(
        mine.W_o.weight.grad, ref.out_proj.weight.grad, atol=1e-4, rtol=1e-4
    )


def test_weights_layout_and_d2l_layout_side_by_side():
    """The documented decision: (batch, heads, n_q, n_k) here, d2l's (batch * heads, ...)
    on .attention.attention_weights, heads of sequence 0 first."""
    torch.manual_seed(1)
    mha = attnlib.MultiHeadAttention(8, 2, 0.0)
    X = torch.randn(3, 4, 8)
    mha(X, X, X, torch.tensor([1, 2, 4]))
    w, flat = mha.attention_weights, mha.attention.attention_weights
    assert w.shape == (3, 2, 4, 4) and flat.shape == (6, 4, 4)
    for b in range(3):
        for h in range(2):
            assert torch.equal(w[b, h], flat[b * 2 + h])
    assert (w[0, :, :, 1:] == 0).all() and (w[1, :, :, 2:] == 0).all()
    # head h is softmax(q_h k_h^T / sqrt(d/H)) of the h-th block of columns
    q = mha.W_q(X)[1, :, 4:]  # (4, 4): sequence 1, head 1
    k = mha.W_k(X)[1, :, 4:]
    s = q @ k.T / math.sqrt(4)
    s[:, 2:] = -math.inf
    torch.testing.assert_close(w[1, 1], torch.softmax(s, -1))


def test_dropout_acts_on_weights_in_training_only():
    torch.manual_seed(0)
    mha = attnlib.MultiHeadAttention(8, 2, 0.5)
    X = torch.randn(2, 6, 8)
    mha.eval()
    a, b = mha(X, X, X), mha(X, X, X)
    assert torch.equal(a, b)
    mha.train()
    assert not torch.allclose(mha(X, X, X), a)


def test_lazy_projections_sized_on_first_call_and_state_dict_keys():
    mha = attnlib.MultiHeadAttention(6, 3, 0.0, bias=True)
    mha(torch.randn(1, 2, 4), torch.randn(1, 3, 5), torch.randn(1, 3, 7))
    assert mha.W_q.weight.shape == (6, 4) and mha.W_k.weight.shape == (6, 5)
    assert mha.W_v.weight.shape == (6, 7) and mha.W_o.weight.shape == (6, 6)
    assert set(mha.state_dict()) == {f"W_{n}.{p}" for n in "qkvo" for p in ("weight", "bias")}


# ----------------------------------------------------------------- positional encoding
def test_sinusoidal_encoding_equals_the_formula():
    P = attnlib.sinusoidal_encoding(50, 10, dtype=torch.float64)
    i = np.arange(50)[:, None]
    j = np.arange(0, 10, 2)[None, :]
    angle = i / 10000 ** (j / 10)
    np.testing.assert_allclose(P[:, 0::2].numpy(), np.sin(angle), atol=1e-6)
    np.testing.assert_allclose(P[:, 1::2].numpy(), np.cos(angle), atol=1e-6)
    odd = attnlib.sinusoidal_encoding(4, 5)
    assert odd.shape == (4, 5)
    np.testing.assert_allclose(odd[:, 4].numpy(), np.sin(np.arange(4) / 10000**0.8), atol=1e-6)


def test_positional_encoding_adds_P_and_keeps_dtype():
    pe = attnlib.PositionalEncoding(6, 0.0, max_len=9)
    assert pe.P.shape == (1, 9, 6)
    X = torch.randn(2, 4, 6, dtype=torch.float64)
    out = pe(X)
    assert out.dtype == torch.float64
    torch.testing.assert_close(out - X, pe.P[:, :4].double().expand(2, 4, 6))


# ----------------------------------------------------------------- d2l §11.5, §11.6
def check_shape(t, shape):  # d2l.check_shape
    assert tuple(t.shape) == tuple(shape), (tuple(t.shape), shape)


def test_d2l_11_5_multihead_attention_block_on_attnlib():
    num_hiddens, num_heads = 100, 5
    attention = attnlib.MultiHeadAttention(num_hiddens, num_heads, 0.5)
    batch_size, num_queries, num_kvpairs = 2, 4, 6
    valid_lens = torch.tensor([3, 2])
    X = torch.ones((batch_size, num_queries, num_hiddens))
    Y = torch.ones((batch_size, num_kvpairs, num_hiddens))
    check_shape(attention(X, Y, Y, valid_lens), (batch_size, num_queries, num_hiddens))
    # d2l's methods exist and invert each other
    Z = torch.randn(2, 4, 100)
    T = attention.transpose_qkv(Z)
    check_shape(T, (10, 4, 20))
    torch.testing.assert_close(attention.transpose_output(T), Z)


def test_d2l_11_6_self_attention_block_on_attnlib():
    num_hiddens, num_heads = 100, 5
    attention = attnlib.MultiHeadAttention(num_hiddens, num_heads, 0.5)
    batch_size, num_queries, valid_lens = 2, 4, torch.tensor([3, 2])
    X = torch.ones((batch_size, num_queries, num_hiddens))
    check_shape(attention(X, X, X, valid_lens), (batch_size, num_queries, num_hiddens))


def test_d2l_11_6_positional_encoding_blocks_on_attnlib():
    encoding_dim, num_steps = 32, 60
    pos_encoding = attnlib.PositionalEncoding(encoding_dim, 0)
    X = pos_encoding(torch.zeros((1, num_steps, encoding_dim)))
    P = pos_encoding.P[:, : X.shape[1], :]
    # d2l's own class, verbatim maths, as the reference
    ref = torch.zeros((1, 1000, encoding_dim))
    Xr = torch.arange(1000, dtype=torch.float32).reshape(-1, 1) / torch.pow(
        10000, torch.arange(0, encoding_dim, 2, dtype=torch.float32) / encoding_dim
    )
    ref[:, :, 0::2] = torch.sin(Xr)
    ref[:, :, 1::2] = torch.cos(Xr)
    assert torch.equal(pos_encoding.P, ref)
    torch.testing.assert_close(X, ref[:, :num_steps])
    plt.close("all")
    P = P[0, :, :].unsqueeze(0).unsqueeze(0)
    fig = attnlib.show_heatmaps(
        P,
        xlabel="Column (encoding dimension)",
        ylabel="Row (position)",
        figsize=(3.5, 4),
        cmap="Blues",
    )
    assert fig is not None
    plt.close("all")


def test_d2l_11_7_reads_weights_where_d2l_does():
    """d2l's Transformer encoder reads blk.attention.attention.attention_weights."""
    mha = attnlib.MultiHeadAttention(8, 2, 0.0)
    X = torch.randn(2, 3, 8)
    mha(X, X, X, torch.tensor([3, 2]))
    check_shape(mha.attention.attention_weights, (4, 3, 3))
