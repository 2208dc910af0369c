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
        # a name and its shape may stand on two lines (the wide picture's labels)
        texts = " | ".join(" ".join(t.split()) for t in _texts(f))
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
    assert narrow.get_size_inches()[0] == pytest.approx(3.6)  # the phone's column


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


# ----------------------------------------------------------------------------- masks
def _three_masks(m=6):
    from scoringbook.ch09_diagram import draw_masks

    tril = torch.ones(m, m, dtype=torch.bool).tril()
    lens = attnlib.causal_valid_lens(1, m)
    masks = torch.stack([attnlib.valid_lens_to_mask(lens, m, m)[0], tril, ~tril])
    titles = ["valid lengths", "SDPA", "nn.MHA"]
    return masks, draw_masks(masks, titles, ["allowed", "allowed", "blocked"])


def test_the_masks_figure_is_two_colours_by_meaning_with_a_legend_and_no_colour_bar():
    # issue 39 item 6: a yes/no mask was drawn on a continuous colour bar ("True = 1")
    masks, fig = _three_masks()
    allowed = [masks[0], masks[1], ~masks[2]]  # what each mask lets a query see
    for f in (fig, fig._attnlib_redraw(DARK, True, False)):
        panels = [ax for ax in f.axes if ax.images]
        assert len(panels) == 3 and len(f.axes) == 3, "a colour bar (or a stray axis) is drawn"
        (legend,) = f.legends
        assert [t.get_text() for t in legend.get_texts()] == ["allowed (may attend)", "blocked"]
        for ax, a, s in zip(panels, allowed, masks):
            im = ax.images[0]
            rgba = im.cmap(im.norm(np.asarray(im.get_array())))  # (m, m, 4) as painted
            colours = {tuple(np.round(c, 3)) for c in rgba.reshape(-1, 4)}
            assert len(colours) == 2, "a mask is two colours"
            yes = tuple(np.round(rgba[a.numpy()][0], 3))
            assert all(tuple(np.round(c, 3)) == yes for c in rgba[a.numpy()])
            letters = [t.get_text() for t in ax.texts]
            assert letters == ["T" if v else "F" for v in s.flatten().tolist()]
            assert min(t.get_fontsize() for t in ax.texts) >= 9


def test_draw_masks_refuses_what_is_not_a_small_bool_mask():
    from scoringbook.ch09_diagram import draw_masks

    with pytest.raises(TypeError, match=r"draw_masks: masks must be a bool tensor"):
        draw_masks(torch.ones(1, 3, 3), ["a"], ["allowed"])
    with pytest.raises(ValueError, match=r"draw_masks: true_means must say"):
        draw_masks(torch.ones(1, 3, 3, dtype=torch.bool), ["a"], ["True"])
    with pytest.raises(ValueError, match=r"one entry per mask \(1\)"):
        draw_masks(torch.ones(1, 3, 3, dtype=torch.bool), ["a", "b"], ["allowed"])
    with pytest.raises(ValueError, match=r"at most 12 x 12"):
        draw_masks(torch.ones(1, 13, 13, dtype=torch.bool), ["a"], ["allowed"])


@pytest.mark.parametrize(
    "m, titles",
    [
        (6, ["valid lengths\n1, 2, …, 6", "SDPA\nTrue = allowed", "nn.MHA\nTrue = blocked"]),
        (4, ["causal mask", "valid length 2", "both"]),
    ],
    ids=["chapter-9", "chapter-3"],
)
def test_the_masks_phone_picture_has_every_letter_and_label_at_least_10_5_px(m, titles):
    # on a 390-px phone the column is 358 px: the narrow PNG is shown at min(width, 358), so
    # its smallest text is label_scale * min(width, 358) CSS px (was 10.36 at 432 px wide)
    from attnlib.plotting.variants import figure_variants
    from scoringbook.ch09_diagram import draw_masks

    tril = torch.ones(m, m, dtype=torch.bool).tril()
    fig = draw_masks(torch.stack([tril, tril, ~tril]), titles, ["allowed", "allowed", "blocked"])
    phone = [v for v in figure_variants(fig) if v["layout"] == "narrow"]
    assert len(phone) == 2, "a light and a dark phone picture"
    for v in phone:
        px = v["label_scale"] * min(v["width"], 358)
        assert px >= 10.5, f"{v['theme']}: smallest text {px:.2f} px at {v['width']} px wide"
    # the T/F in the cells are what the figure says: their capitals at least as tall as a
    # 12.8-px text's (body x 0.8; a cold read measured about 7 px on a 390-px phone)
    from tests.book.test_figure_letters import LETTER_PX

    for v in phone:
        px = v["glyph_scale"] * min(v["width"], 358)
        assert px >= LETTER_PX, f"{v['theme']}: T/F letters {px:.2f} px tall on a phone"
    # the narrower picture keeps its panel titles apart
    narrow = fig._attnlib_redraw(DARK, True, False)
    narrow.canvas.draw()
    renderer = narrow.canvas.get_renderer()
    boxes = [ax.title.get_window_extent(renderer) for ax in narrow.axes if ax.images]
    assert all(a.x1 < b.x0 for a, b in zip(boxes, boxes[1:])), [(b.x0, b.x1) for b in boxes]
