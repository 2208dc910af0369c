"""Chapter 9's multi-head picture (scoringbook.ch09_diagram.draw_heads): drawn from the
module's real shapes and weights, with text a phone can read, refusing what it cannot draw."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

import attnlib
from attnlib.plotting._theme import DARK, LIGHT
from scoringbook.ch09_diagram import draw_heads


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


@pytest.mark.parametrize("batch, n, d, H", [(1, 10, 16, 2), (2, 7, 24, 4), (1, 5, 12, 3)])
def test_the_picture_carries_the_modules_shapes_and_weights(batch, n, d, H):
    torch.manual_seed(0)
    mha = attnlib.MultiHeadAttention(num_hiddens=d, num_heads=H, dropout=0.0)
    x = torch.randn(batch, n, d)
    lens = attnlib.causal_valid_lens(batch, n)
    fig = draw_heads(mha, x, lens)
    for f in (fig, fig._attnlib_redraw(DARK, True, False)):
        texts = " | ".join(_texts(f))
        assert f"X ({batch}, {n}, {d})" in texts and f"output ({batch}, {n}, {d})" in texts
        assert f"split ({batch * H}, {n}, {d // H})" in texts, texts
        assert texts.count(f"({n}, {d // H})") == H  # one output block per head
        images = [im.get_array() for ax in f.axes for im in ax.images]
        assert len(images) == H
        want = mha.attention_weights[0].detach().numpy()  # the module's own weights
        for h, im in enumerate(images):
            np.testing.assert_allclose(np.asarray(im), want[h], rtol=1e-6)
        sizes = [t.get_fontsize() for ax in f.axes for t in ax.texts]
        assert min(sizes) >= 9
    narrow = fig._attnlib_redraw(LIGHT, True, False)
    assert narrow.get_size_inches()[0] == pytest.approx(4.2)


@pytest.mark.parametrize(
    "args, exc, words",
    [
        (("mha", torch.zeros(1, 3, 4)), TypeError, "mha must be an attnlib.MultiHeadAttention"),
        (
            (None, [[1.0]]),
            TypeError,
            "x must be a torch.Tensor of shape (batch, n, d_in); got [[1.0]]",
        ),
        ((None, torch.zeros(1, 50, 8)), ValueError, "at most 6 heads, 40 tokens"),
    ],
)
def test_bad_input_is_refused_by_name(args, exc, words):
    mha = attnlib.MultiHeadAttention(num_hiddens=8, num_heads=2, dropout=0.0)
    a = tuple(mha if v is None else v for v in args)
    with pytest.raises(exc, match=re.escape(words)) as caught:
        draw_heads(*a)
    assert str(caught.value).startswith("draw_heads: ")
