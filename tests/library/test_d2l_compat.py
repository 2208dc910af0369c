"""d2l's own PyTorch examples (§11.3, §11.4, §11.5), written fresh against attnlib.

A d2l reader replaces ``d2l.X`` with ``attnlib.X`` and today's d2l code must run. d2l itself
is not imported (its torch module needs torchvision, which has no CPU build here): the
classes below follow d2l's code structure (Zhang et al., *Dive into Deep Learning*,
https://d2l.ai, chapter 11), with attnlib in place of d2l's attention. Trusted references
are torch's own: ``nn.MultiheadAttention`` and ``scaled_dot_product_attention``.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

import attnlib  # noqa: E402


def check_shape(t, shape):  # d2l.check_shape
    assert tuple(t.shape) == tuple(shape), (tuple(t.shape), shape)


# ----------------------------------------------------------------- §11.3
def test_section_11_3_masked_softmax_examples():
    torch.manual_seed(0)
    X = torch.rand(2, 2, 4)
    w = attnlib.masked_softmax(X, torch.tensor([2, 3]))
    assert (w[0, :, 2:] == 0).all() and (w[1, :, 3:] == 0).all()
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 2))
    w = attnlib.masked_softmax(X, torch.tensor([[1, 3], [2, 4]]))
    assert (w[0, 0, 1:] == 0).all() and w[0, 0, 0] == 1
    assert (w[1, 1] > 0).all()


def test_section_11_3_dot_product_attention_example():
    torch.manual_seed(0)
    queries = torch.normal(0, 1, (2, 1, 2))
    keys = torch.normal(0, 1, (2, 10, 2))
    values = torch.normal(0, 1, (2, 10, 4))
    valid_lens = torch.tensor([2, 6])
    attention = attnlib.DotProductAttention(dropout=0.5)
    attention.eval()
    out = attention(queries, keys, values, valid_lens)
    check_shape(out, (2, 1, 4))
    # trusted reference: torch's SDPA with the same mask
    mask = attnlib.valid_lens_to_mask(valid_lens, 1, 10)
    ref = torch.nn.functional.scaled_dot_product_attention(queries, keys, values, attn_mask=mask)
    torch.testing.assert_close(out, ref)
    plt.close("all")
    fig = attnlib.show_heatmaps(
        attention.attention_weights.reshape((1, 1, 2, 10)), xlabel="Keys", ylabel="Queries"
    )
    assert plt.gcf() is fig  # on pyplot, as d2l's show_heatmaps
    plt.close("all")


def test_section_11_3_additive_attention_example_with_todays_constructor():
    torch.manual_seed(0)
    queries = torch.normal(0, 1, (2, 1, 20))
    keys = torch.normal(0, 1, (2, 10, 2))
    values = torch.normal(0, 1, (2, 10, 4))
    valid_lens = torch.tensor([2, 6])
    attention = attnlib.AdditiveAttention(num_hiddens=8, dropout=0.1)
    attention.eval()
    out = attention(queries, keys, values, valid_lens)
    check_shape(out, (2, 1, 4))
    # d2l's forward, written out with the same (now sized) layers
    q, k = attention.W_q(queries), attention.W_k(keys)
    features = torch.tanh(q.unsqueeze(2) + k.unsqueeze(1))  # (2, 1, 10, 8)
    scores = attention.w_v(features).squeeze(-1)  # (2, 1, 10)
    keep = torch.arange(10) < valid_lens.view(2, 1, 1)
    ref_w = torch.softmax(scores.masked_fill(~keep, -math.inf), dim=-1)
    torch.testing.assert_close(attention.attention_weights, ref_w)
    torch.testing.assert_close(out, torch.bmm(ref_w, values))
    assert attention.W_q.weight.shape == (8, 20) and attention.W_k.weight.shape == (8, 2)
    assert attention.w_v.weight.shape == (1, 8)


def test_additive_state_dicts_load_between_both_constructors():
    torch.manual_seed(1)
    lazy = attnlib.AdditiveAttention(8, 0.0)
    q, k, v = torch.randn(2, 3, 5), torch.randn(2, 4, 6), torch.randn(2, 4, 2)
    out = lazy(q, k, v)
    sized = attnlib.AdditiveAttention(6, 5, 8, 0.0)  # d2l <= 0.17: key_size, query_size
    sized.load_state_dict(lazy.state_dict())
    torch.testing.assert_close(sized(q, k, v), out)
    fresh = attnlib.AdditiveAttention(8, 0.0)  # unsized: loading sizes it
    fresh.load_state_dict(sized.state_dict())
    torch.testing.assert_close(fresh(q, k, v), out)
    assert set(lazy.state_dict()) == {"W_q.weight", "W_k.weight", "w_v.weight"}


def test_additive_lazy_layers_draw_d2ls_initial_weights():
    """d2l sizes W_q, then W_k, then w_v on the first call: same seed, same weights."""
    torch.manual_seed(3)
    attn = attnlib.AdditiveAttention(8, 0.0)
    q, k, v = torch.ones(1, 1, 3), torch.ones(1, 2, 4), torch.ones(1, 2, 1)
    torch.manual_seed(4)
    attn(q, k, v)
    torch.manual_seed(4)
    W_q, W_k, w_v = (
        nn.LazyLinear(8, bias=False),
        nn.LazyLinear(8, bias=False),
        nn.LazyLinear(1, bias=False),
    )
    W_q(q), W_k(k), w_v(torch.ones(1, 8))  # d2l's order of first use
    for mine, theirs in ((attn.W_q, W_q), (attn.W_k, W_k), (attn.w_v, w_v)):
        torch.testing.assert_close(mine.weight, theirs.weight)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((), {}, "missing num_hiddens"),
        ((8, 0.1), {"bias": True}, "unexpected keyword"),
        ((0, 0.1), {}, "num_hiddens must be a positive int"),
        ((8, 1.5), {}, "dropout must be a probability"),
        ((3, 4), {"key_size": 2}, "multiple values"),
        ((1, 2, 3, 0.1, 5), {}, "at most 4 positional"),
    ],
)
def test_additive_constructor_errors(args, kwargs, message):
    with pytest.raises((TypeError, ValueError), match=message):
        attnlib.AdditiveAttention(*args, **kwargs)


# ----------------------------------------------------------------- §11.4
class Seq2SeqEncoder(nn.Module):
    """d2l's RNN encoder: embedding + multi-layer GRU, time-major outputs."""

    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)

    def forward(self, X, *args):
        embs = self.embedding(X.t().type(torch.int64))  # (num_steps, batch, embed_size)
        outputs, state = self.rnn(embs)
        return outputs, state  # (num_steps, batch, h), (num_layers, batch, h)


class AttentionDecoder(nn.Module):
    """d2l's base attention-based decoder interface."""

    @property
    def attention_weights(self):
        raise NotImplementedError


class Seq2SeqAttentionDecoder(AttentionDecoder):
    """d2l §11.4's decoder, with attnlib.AdditiveAttention(num_hiddens, dropout)."""

    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.attention = attnlib.AdditiveAttention(num_hiddens, dropout)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.LazyLinear(vocab_size)

    def init_state(self, enc_outputs, enc_valid_lens):
        outputs, hidden_state = enc_outputs
        return (outputs.permute(1, 0, 2), hidden_state, enc_valid_lens)

    def forward(self, X, state):
        enc_outputs, hidden_state, enc_valid_lens = state
        X = self.embedding(X).permute(1, 0, 2)  # (num_steps, batch, embed_size)
        outputs, self._attention_weights = [], []
        for x in X:
            query = torch.unsqueeze(hidden_state[-1], dim=1)  # (batch, 1, num_hiddens)
            context = self.attention(query, enc_outputs, enc_outputs, enc_valid_lens)
            x = torch.cat((context, torch.unsqueeze(x, dim=1)), dim=-1)
            out, hidden_state = self.rnn(x.permute(1, 0, 2), hidden_state)  # (1, batch, .)
            outputs.append(out)
            self._attention_weights.append(self.attention.attention_weights)
        outputs = self.dense(torch.cat(outputs, dim=0))  # (num_steps, batch, vocab_size)
        return outputs.permute(1, 0, 2), [enc_outputs, hidden_state, enc_valid_lens]

    @property
    def attention_weights(self):
        return self._attention_weights


def test_section_11_4_decoder_forward_shapes():
    torch.manual_seed(0)
    vocab_size, embed_size, num_hiddens, num_layers = 10, 8, 16, 2
    batch_size, num_steps = 4, 7
    encoder = Seq2SeqEncoder(vocab_size, embed_size, num_hiddens, num_layers)
    decoder = Seq2SeqAttentionDecoder(vocab_size, embed_size, num_hiddens, num_layers)
    X = torch.zeros((batch_size, num_steps), dtype=torch.long)
    state = decoder.init_state(encoder(X), None)
    output, state = decoder(X, state)
    check_shape(output, (batch_size, num_steps, vocab_size))
    check_shape(state[0], (batch_size, num_steps, num_hiddens))
    check_shape(state[1][0], (batch_size, num_hiddens))
    assert len(decoder.attention_weights) == num_steps
    check_shape(decoder.attention_weights[0], (batch_size, 1, num_steps))


def test_section_11_4_a_few_training_steps_lower_the_loss():
    """Teacher-forced training on a reversal task: the loss must fall, weights stay valid."""
    g = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    vocab, steps, batch = 8, 6, 32
    encoder = Seq2SeqEncoder(vocab, 16, 32, 2, dropout=0.1)
    decoder = Seq2SeqAttentionDecoder(vocab, 16, 32, 2, dropout=0.1)
    src = torch.randint(2, vocab, (batch, steps), generator=g)
    tgt = src.flip(1)
    bos = torch.ones(batch, 1, dtype=torch.long)
    dec_in = torch.cat([bos, tgt[:, :-1]], dim=1)
    valid = torch.randint(3, steps + 1, (batch,), generator=g)
    decoder(dec_in, decoder.init_state(encoder(src), valid))  # size the lazy layers first
    params = list(encoder.parameters()) + list(decoder.parameters())
    opt = torch.optim.Adam(params, lr=0.01)
    losses = []
    for _ in range(30):
        out, _ = decoder(dec_in, decoder.init_state(encoder(src), valid))
        loss = nn.functional.cross_entropy(out.reshape(-1, vocab), tgt.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0], losses
    w = torch.cat(decoder.attention_weights, dim=1)  # (batch, steps, steps)
    assert torch.isfinite(w).all()
    torch.testing.assert_close(w.sum(-1), torch.ones(batch, steps))
    assert (w[torch.arange(steps) >= valid.view(-1, 1, 1).expand(batch, steps, 1)] == 0).all()


# ----------------------------------------------------------------- §11.5
class MultiHeadAttention(nn.Module):
    """d2l §11.5's multi-head attention over attnlib.DotProductAttention."""

    def __init__(self, num_hiddens, num_heads, dropout, bias=False):
        super().__init__()
        self.num_heads = num_heads
        self.attention = attnlib.DotProductAttention(dropout)
        self.W_q = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_k = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_v = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_o = nn.LazyLinear(num_hiddens, bias=bias)

    def transpose_qkv(self, X):
        X = X.reshape(X.shape[0], X.shape[1], self.num_heads, -1)  # (b, n, heads, h/heads)
        X = X.permute(0, 2, 1, 3)  # (b, heads, n, h/heads)
        return X.reshape(-1, X.shape[2], X.shape[3])  # (b * heads, n, h/heads)

    def transpose_output(self, X):
        X = X.reshape(-1, self.num_heads, X.shape[1], X.shape[2])  # (b, heads, n, h/heads)
        X = X.permute(0, 2, 1, 3)  # (b, n, heads, h/heads)
        return X.reshape(X.shape[0], X.shape[1], -1)  # (b, n, h)

    def forward(self, queries, keys, values, valid_lens):
        queries = self.transpose_qkv(self.W_q(queries))
        keys = self.transpose_qkv(self.W_k(keys))
        values = self.transpose_qkv(self.W_v(values))
        if valid_lens is not None:
            valid_lens = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)
        output = self.attention(queries, keys, values, valid_lens)
        return self.W_o(self.transpose_output(output))


def test_section_11_5_multi_head_attention_shape_and_parity_with_torch():
    torch.manual_seed(0)
    num_hiddens, num_heads = 100, 5
    attention = MultiHeadAttention(num_hiddens, num_heads, 0.5)
    batch_size, num_queries, num_kvpairs = 2, 4, 6
    valid_lens = torch.tensor([3, 2])
    X = torch.ones((batch_size, num_queries, num_hiddens))
    Y = torch.ones((batch_size, num_kvpairs, num_hiddens))
    check_shape(attention(X, Y, Y, valid_lens), (batch_size, num_queries, num_hiddens))
    # parity with torch's own multi-head attention, same weights, random inputs
    attention.eval()
    X = torch.randn(batch_size, num_queries, num_hiddens)
    Y = torch.randn(batch_size, num_kvpairs, num_hiddens)
    ref = nn.MultiheadAttention(num_hiddens, num_heads, bias=False, batch_first=True).eval()
    with torch.no_grad():
        ref.in_proj_weight.copy_(
            torch.cat([attention.W_q.weight, attention.W_k.weight, attention.W_v.weight])
        )
        ref.out_proj.weight.copy_(attention.W_o.weight)
    pad = torch.arange(num_kvpairs) >= valid_lens.view(-1, 1)  # (batch, n_keys), True = pad
    want, _ = ref(X, Y, Y, key_padding_mask=pad)
    torch.testing.assert_close(attention(X, Y, Y, valid_lens), want, atol=1e-5, rtol=1e-5)


def test_bert_style_float_valid_lens():
    """d2l's BERT passes float32 valid_lens to the encoder's attention."""
    torch.manual_seed(0)
    attention = MultiHeadAttention(24, 4, 0.0).eval()
    X = torch.randn(2, 5, 24)
    lens_f = torch.tensor([3.0, 5.0])
    torch.testing.assert_close(attention(X, X, X, lens_f), attention(X, X, X, lens_f.long()))
