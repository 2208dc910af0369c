"""Attention pooling and modules: SDPA parity, d2l conventions, gradients, bad input."""

import pytest
import torch
import torch.nn.functional as F

from attnlib import (
    AdditiveAttention,
    DotProductAttention,
    attention_pool,
    dot_product_attention,
    masked_softmax,
    valid_lens_to_mask,
)


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _qkv(batch=2, nq=3, nk=4, d=5, dv=6, seed=0, dtype=torch.float64):
    g = _gen(seed)
    return (
        torch.randn(batch, nq, d, generator=g, dtype=dtype),
        torch.randn(batch, nk, d, generator=g, dtype=dtype),
        torch.randn(batch, nk, dv, generator=g, dtype=dtype),
    )


# --------------------------------------------------------------------------- SDPA parity
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("lens_dim", [1, 2])
def test_parity_with_sdpa(seed, lens_dim):
    g = _gen(100 + seed)
    batch, nq, nk, d, dv = (int(x) for x in torch.randint(1, 9, (5,), generator=g))
    q, k, v = _qkv(batch, nq, nk, d, dv, seed=seed)
    shape = (batch,) if lens_dim == 1 else (batch, nq)
    lens = torch.randint(0, nk + 1, shape, generator=g)  # zeros included on purpose
    out, weights = dot_product_attention(q, k, v, lens)
    mask = valid_lens_to_mask(lens, nq, nk)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    has_key = mask.any(-1)  # (batch, nq)
    torch.testing.assert_close(out[has_key], ref[has_key], rtol=1e-10, atol=1e-12)
    # SDPA gives NaN (or garbage) for rows without a valid key; attnlib gives zeros
    assert torch.equal(out[~has_key], torch.zeros_like(out[~has_key]))
    assert torch.equal(weights[~has_key], torch.zeros_like(weights[~has_key]))
    torch.testing.assert_close(weights @ v, out)


def test_parity_with_sdpa_mask_argument():
    q, k, v = _qkv(seed=11)
    mask = torch.rand(2, 3, 4, generator=_gen(12)) > 0.3
    mask[..., 0] = True
    out, _ = dot_product_attention(q, k, v, mask=mask)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))


# --------------------------------------------------------------------------- pooling
def test_attention_pool_is_weighted_average():
    scores = torch.randn(2, 3, 4, generator=_gen(1), dtype=torch.float64)
    values = torch.randn(2, 4, 2, generator=_gen(2), dtype=torch.float64)
    lens = torch.tensor([[1, 4, 0], [2, 2, 3]])
    out, w = attention_pool(scores, values, lens)
    torch.testing.assert_close(w, masked_softmax(scores, lens))
    for b in range(2):
        for i in range(3):
            expected = sum(w[b, i, j] * values[b, j] for j in range(4))
            torch.testing.assert_close(out[b, i], expected)
    assert torch.equal(out[0, 2], torch.zeros(2, dtype=torch.float64))


def test_attention_pool_bad_values():
    scores = torch.zeros(2, 3, 4)
    with pytest.raises(ValueError, match=r"number of keys n_keys.*\(2, 5, 1\).*\(2, 3, 4\)"):
        attention_pool(scores, torch.zeros(2, 5, 1))
    with pytest.raises(ValueError, match=r"values.*batch size"):
        attention_pool(scores, torch.zeros(1, 4, 1))
    with pytest.raises(TypeError, match=r"values must have the same dtype"):
        attention_pool(scores, torch.zeros(2, 4, 1, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"values must have 3 dimensions.*\(4, 1\)"):
        attention_pool(scores, torch.zeros(4, 1))
    with pytest.raises(ValueError, match=r"scores must have 3 dimensions"):
        attention_pool(torch.zeros(3, 4), torch.zeros(2, 4, 1))


def test_dot_product_attention_bad_inputs():
    q, k, v = _qkv()
    # every message starts with the function the user called and names the argument
    with pytest.raises(ValueError, match=r"^dot_product_attention: values and keys.*n_keys"):
        dot_product_attention(q, k, v[:, :3])
    with pytest.raises(ValueError, match="^dot_product_attention: keys and queries.*bilinear"):
        dot_product_attention(q, k[..., :4], v)
    with pytest.raises(ValueError, match=r"^dot_product_attention: valid_lens.*<= n_keys = 4"):
        dot_product_attention(q, k, v, torch.tensor([5, 1]))
    with pytest.raises(ValueError, match=r"^DotProductAttention: valid_lens.*whole.*2.5"):
        DotProductAttention()(q, k, v, torch.tensor([1.0, 2.5]))
    with pytest.raises(ValueError, match=r"^attention_pool: valid_lens must have shape"):
        attention_pool(torch.zeros(2, 3, 4, dtype=torch.float64), v, torch.tensor([1, 2, 3]))


def test_dot_product_attention_gradcheck():
    q, k, v = _qkv(batch=2, nq=2, nk=3, d=2, dv=2, seed=3)
    for t in (q, k, v):
        t.requires_grad_(True)
    for lens in (None, torch.tensor([2, 3]), torch.tensor([[0, 3], [1, 2]])):
        assert torch.autograd.gradcheck(
            lambda a, b, c, lens=lens: dot_product_attention(a, b, c, lens), (q, k, v)
        )


def test_inputs_not_mutated():
    q, k, v = _qkv(seed=4)
    copies = [t.clone() for t in (q, k, v)]
    dot_product_attention(q, k, v, torch.tensor([[0, 1, 2], [4, 4, 1]]))
    for a, b in zip((q, k, v), copies):
        assert torch.equal(a, b)


# --------------------------------------------------------------------------- modules
def test_dot_product_module_eval_and_weights():
    q, k, v = _qkv(seed=5)
    lens = torch.tensor([2, 3])
    attn = DotProductAttention(dropout=0.5).eval()
    out = attn(q, k, v, lens)
    ref_out, ref_w = dot_product_attention(q, k, v, lens)
    torch.testing.assert_close(out, ref_out)
    torch.testing.assert_close(attn.attention_weights, ref_w)
    assert attn.attention_weights.shape == (2, 3, 4)


def test_dot_product_module_dropout_only_in_training():
    q, k, v = _qkv(batch=4, nq=16, nk=16, seed=6)
    attn = DotProductAttention(dropout=0.5).train()
    torch.manual_seed(0)
    out = attn(q, k, v)
    ref_out, ref_w = dot_product_attention(q, k, v)
    # weights are stored before dropout (d2l convention) ...
    torch.testing.assert_close(attn.attention_weights, ref_w)
    # ... and the output uses dropped-out weights: it is an average with some weights
    # zeroed and the rest scaled by 1 / (1 - p)
    assert not torch.allclose(out, ref_out)
    torch.manual_seed(0)
    dropped = F.dropout(ref_w, p=0.5, training=True)
    torch.testing.assert_close(out, dropped @ v)
    attn.eval()
    torch.testing.assert_close(attn(q, k, v), ref_out)


def test_additive_module_matches_formula_and_d2l_names():
    torch.manual_seed(0)
    attn = AdditiveAttention(key_size=3, query_size=2, num_hiddens=8, dropout=0.0).double()
    assert set(dict(attn.named_parameters())) == {"W_k.weight", "W_q.weight", "w_v.weight"}
    g = _gen(7)
    q = torch.randn(2, 5, 2, generator=g, dtype=torch.float64)
    k = torch.randn(2, 6, 3, generator=g, dtype=torch.float64)
    v = torch.randn(2, 6, 4, generator=g, dtype=torch.float64)
    lens = torch.tensor([2, 6])
    out = attn(q, k, v, lens)
    features = torch.tanh(attn.W_q(q).unsqueeze(2) + attn.W_k(k).unsqueeze(1))
    scores = attn.w_v(features).squeeze(-1)
    ref_w = masked_softmax(scores, lens)
    torch.testing.assert_close(attn.attention_weights, ref_w)
    torch.testing.assert_close(out, ref_w @ v)


@pytest.mark.parametrize("budget", [1, 16, 10**6])
def test_additive_module_blocked_equals_unblocked(budget):
    torch.manual_seed(1)
    big = AdditiveAttention(3, 2, 8).double()
    small = AdditiveAttention(3, 2, 8, max_block_elements=budget).double()
    small.load_state_dict(big.state_dict())
    g = _gen(8)
    q = torch.randn(2, 9, 2, generator=g, dtype=torch.float64)
    k = torch.randn(2, 7, 3, generator=g, dtype=torch.float64)
    v = torch.randn(2, 7, 1, generator=g, dtype=torch.float64)
    lens = torch.tensor([[1, 2, 3, 4, 5, 6, 7, 0, 7], [7] * 9])
    torch.testing.assert_close(small(q, k, v, lens), big(q, k, v, lens))


def test_additive_module_gradcheck():
    torch.manual_seed(2)
    attn = AdditiveAttention(3, 2, 4, max_block_elements=6).double()
    g = _gen(9)
    q = torch.randn(1, 3, 2, generator=g, dtype=torch.float64, requires_grad=True)
    k = torch.randn(1, 4, 3, generator=g, dtype=torch.float64, requires_grad=True)
    v = torch.randn(1, 4, 2, generator=g, dtype=torch.float64, requires_grad=True)
    lens = torch.tensor([[1, 4, 3]])
    assert torch.autograd.gradcheck(lambda a, b, c: attn(a, b, c, lens), (q, k, v))
    params = tuple(attn.parameters())
    assert torch.autograd.gradcheck(
        lambda *p: torch.func.functional_call(
            attn, dict(zip([n for n, _ in attn.named_parameters()], p)), (q, k, v, lens)
        ),
        params,
    )


def test_additive_module_bad_inputs():
    attn = AdditiveAttention(key_size=3, query_size=2, num_hiddens=4)
    q, k, v = torch.zeros(1, 2, 2), torch.zeros(1, 4, 3), torch.zeros(1, 4, 1)
    with pytest.raises(
        ValueError, match=r"queries must have feature size query_size = 2.*\(1, 2, 3\)"
    ):
        attn(torch.zeros(1, 2, 3), k, v)
    with pytest.raises(ValueError, match=r"keys must have feature size key_size = 3"):
        attn(q, torch.zeros(1, 4, 2), v)
    with pytest.raises(ValueError, match=r"values and keys.*n_keys"):
        attn(q, k, torch.zeros(1, 5, 1))
    with pytest.raises(ValueError, match="num_hiddens"):
        AdditiveAttention(3, 2, 0)
