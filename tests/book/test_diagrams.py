"""The pipeline picture: numbers computed independently, drawn as shown."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402
import torch  # noqa: E402

from scoringbook.diagrams import draw_pipeline, pipeline_example  # noqa: E402


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_dot_product_example_numbers():
    e = pipeline_example("dot_product")
    q, k, v = e["query"], e["keys"], e["values"]
    scores = torch.stack([q @ k[i] / math.sqrt(2) for i in range(4)])  # by hand
    weights = torch.exp(scores) / torch.exp(scores).sum()
    torch.testing.assert_close(e["scores"], scores)
    torch.testing.assert_close(e["weights"], weights)
    torch.testing.assert_close(e["output"], (weights[:, None] * v).sum(0))


def test_masked_example_and_figure_text():
    e = pipeline_example("dot_product", valid_len=3)
    assert e["weights"][3] == 0 and float(e["weights"][:3].sum()) == pytest.approx(1.0)
    fig = draw_pipeline(e, title="t")
    texts = [" ".join(t.split()) for t in _texts(fig)]  # a vector may run over two lines
    assert "0.00" in texts and any("(masked)" in t for t in texts)
    assert f"{float(e['weights'][2]):.2f}" in texts
    assert "(" + ", ".join(f"{x:.2f}" for x in e["output"].tolist()) + ")" in texts


@pytest.mark.parametrize("scoring", ["gaussian", "additive"])
def test_other_scorings_give_valid_weights(scoring):
    e = pipeline_example(scoring)
    assert torch.all(e["weights"] >= 0)
    assert float(e["weights"].sum()) == pytest.approx(1.0)
    assert draw_pipeline(e).axes


def test_bad_inputs():
    with pytest.raises(ValueError, match="scoring must be"):
        pipeline_example("cosine")
    e = dict(pipeline_example())
    e["weights"] = e["weights"][:3]
    with pytest.raises(ValueError, match=r"example\['weights'\] must have shape \(4,\)"):
        draw_pipeline(e)


# ----------------------------------------------------------------------------- chapter 7
# The encoder-decoder picture is an attnlib figure: the book shows its dark and its narrow
# (phone) variants, and every variant keeps its text >= 9 pt, apart and off the arrows.

DATE = "22 Nov 2026"  # chapter 7's step: writing the day's first digit, all weight on "2"
ONE_HOT = [1.0] + [0.0] * 10


def _ed(source=DATE, weights=None, **kw):
    from scoringbook.ch07_diagram import draw_encoder_decoder

    if weights is None:
        weights = ONE_HOT if source == DATE else [1 / len(source)] * len(source)
    return draw_encoder_decoder(source, "2026-11-", weights, **{"next_char": "2", **kw})


def _arrows_through_texts(fig) -> list:
    """(text, arrow's end points) for every drawn text an arrow's line runs through."""
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    from attnlib.plotting.variants import drawn_texts

    texts = drawn_texts(fig)  # draws the figure, so the arrows' paths are laid out
    hits = []
    for ax in fig.axes:
        for patch in ax.patches:
            if not isinstance(patch, FancyArrowPatch):
                continue
            path = patch.get_path().transformed(ax.transData)  # display px
            # its line and head as polylines (curves flattened; a CLOSEPOLY's vertex is a
            # placeholder that Path.intersects_bbox would take for a point)
            lines = [Path(p) for p in path.to_polygons(closed_only=False)]
            for text, _, box in texts:
                if any(
                    line.intersects_bbox(box.expanded(0.98, 0.9), filled=False) for line in lines
                ):
                    hits.append((text, tuple(lines[0].vertices[0]), tuple(lines[0].vertices[-1])))
    return hits


def test_arrow_check_finds_an_arrow_through_a_label():
    """The check below can fail: an arrow drawn across the word it passes."""
    from matplotlib.patches import FancyArrowPatch

    from attnlib.plotting._figure import DPI, NotebookFigure

    fig = NotebookFigure(figsize=(4, 2), dpi=DPI)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.text(0.5, 0.5, "keys", ha="center", va="center", fontsize=9)
    ax.add_patch(FancyArrowPatch((0.1, 0.2), (0.9, 0.8), arrowstyle="-|>"))
    ax.text(0.5, 0.1, "values", ha="center", va="center", fontsize=9)
    assert [t for t, *_ in _arrows_through_texts(fig)] == ["keys"]


def test_encoder_decoder_has_dark_and_narrow_variants_with_legible_text():
    from attnlib.plotting._figure import DPI
    from attnlib.plotting._theme import SMALLEST_PT
    from attnlib.plotting.variants import figure_variants, render_png
    from scoringbook.ch07_diagram import PHONE_WIDTH

    fig = _ed()
    main = render_png(fig)
    variants = figure_variants(fig)
    kinds = sorted((v["theme"], v["layout"]) for v in variants)
    assert kinds == [("dark", "narrow"), ("dark", "wide"), ("light", "narrow")]
    for v in [main, *variants]:
        # the smallest text drawn, in points: label_scale is CSS px per CSS px of width
        assert v["label_scale"] * v["width"] * 72 / DPI >= SMALLEST_PT - 1e-6
    for v in variants:
        if v["layout"] == "narrow":
            assert v["width"] <= PHONE_WIDTH * DPI + 25
            # a 390-px phone's 358-px column shows the narrow picture: text >= 10.5 CSS px
            assert v["label_scale"] * min(v["width"], 358) >= 10.5
            assert v["height"] > v["width"]  # stacked: taller than wide
        else:
            assert (v["width"], v["height"]) == (main["width"], main["height"])
    # the desktop picture at a 768-px page's column (736 px) keeps 9 px too
    assert main["label_scale"] * min(main["width"], 736) >= 9


def test_encoder_decoder_draws_the_step_in_both_layouts():
    from attnlib.plotting._theme import DARK, LIGHT

    fig = _ed()
    for theme in (LIGHT, DARK):
        for narrow in (False, True):
            texts = _texts(fig._attnlib_redraw(theme, narrow, False))
            chars = [t for t in texts if len(t) == 1]
            assert chars == ["2", "2", "␣", "N", "o", "v", "␣", "2", "0", "2", "6"]
            for want in ("writes '2'", "previous character '-'", "1.00", "keys", "values", "GRU"):
                assert want in texts, (theme.name, narrow, want)
            # the query's arrow into the GRU is named in both layouts (the phone's lacked it)
            words = " ".join(" ".join(texts).split())
            assert "previous state" in words, (theme.name, narrow, texts)


@pytest.mark.parametrize(
    "source, weights, kw",
    [
        (DATE, None, {}),
        ("x", [1.0], {"title": "one character"}),
        ("Wednesday, 25 September 2026", None, {"title": "a long date"}),
        ("a" * 70, None, {}),  # more than a row holds: the characters wrap
    ],
    ids=["chapter-6", "one-char", "28-chars", "70-chars"],
)
def test_encoder_decoder_no_text_overlaps_another_or_an_arrow(source, weights, kw):
    from itertools import combinations

    from attnlib.plotting._theme import DARK, LIGHT
    from attnlib.plotting.variants import drawn_texts

    fig = _ed(source, weights, **kw)
    for theme in (LIGHT, DARK):
        for narrow in (False, True):
            variant = fig._attnlib_redraw(theme, narrow, False)
            where = (theme.name, "narrow" if narrow else "wide")
            width, height = variant.bbox.width, variant.bbox.height
            boxes = drawn_texts(variant)
            for text, _, box in boxes:  # inside the figure
                assert box.x0 >= -1 and box.y0 >= -1, (where, text)
                assert box.x1 <= width + 1 and box.y1 <= height + 1, (where, text)
            for (ta, _, a), (tb, _, b) in combinations(boxes, 2):
                w = min(a.x1, b.x1) - max(a.x0, b.x0)
                h = min(a.y1, b.y1) - max(a.y0, b.y0)
                assert not (w > 1 and h > 1), (where, ta, tb)
            assert not _arrows_through_texts(variant), (where, _arrows_through_texts(variant))


def test_encoder_decoder_sizes():
    from scoringbook.ch07_diagram import PHONE_WIDTH

    assert tuple(_ed().get_size_inches()) == (7.0, 4.9)
    assert tuple(_ed(title="t").get_size_inches()) == (7.0, 5.25)
    assert tuple(_ed(figsize=(12, 6)).get_size_inches()) == (12.0, 6.0)  # stretched
    assert tuple(_ed(figsize=(6.5, 3)).get_size_inches()) == (7.0, 4.9)  # what it needs
    small = _ed(figsize=(5, 4))  # too narrow for the wide layout: the phone's
    assert small.get_size_inches()[0] == PHONE_WIDTH
    assert small.get_size_inches()[1] > PHONE_WIDTH


#: issue 39: a diagram's text on a 390-px phone (the book's 358-px column) is at least 0.8 of
#: the 16 px body text
PHONE_COLUMN, DIAGRAM_MIN_PX = 358, 0.8 * 16


@pytest.mark.parametrize(
    "scoring, valid_len",
    [("dot_product", None), ("dot_product", 2), ("additive", 3), ("gaussian", None)],
)
def test_pipeline_on_a_phone_reads_at_four_fifths_of_body_text_and_nothing_overlaps(
    scoring, valid_len
):
    from itertools import combinations

    from attnlib.plotting._theme import DARK, LIGHT
    from attnlib.plotting.variants import drawn_texts, figure_variants

    fig = draw_pipeline(pipeline_example(scoring, valid_len=valid_len), title="a pipeline")
    narrow = [v for v in figure_variants(fig) if v["layout"] == "narrow"]
    assert {v["theme"] for v in narrow} == {"light", "dark"}, "no phone variant"
    for v in narrow:  # label_scale: the smallest text's CSS px per CSS px of width
        px = v["label_scale"] * min(v["width"], PHONE_COLUMN)
        assert px >= DIAGRAM_MIN_PX, f"{scoring}, {v['theme']}: {px:.2f} px on a phone"
    for theme in (LIGHT, DARK):  # the larger text still keeps to its columns
        variant = fig._attnlib_redraw(theme, True, False)
        width, height = variant.bbox.width, variant.bbox.height
        boxes = drawn_texts(variant)
        for text, _, box in boxes:
            assert box.x0 >= -1 and box.x1 <= width + 1, (theme.name, text)
            assert box.y0 >= -1 and box.y1 <= height + 1, (theme.name, text)
        for (ta, _, a), (tb, _, b) in combinations(boxes, 2):
            w = min(a.x1, b.x1) - max(a.x0, b.x0)
            h = min(a.y1, b.y1) - max(a.y0, b.y0)
            assert not (w > 1 and h > 1), (theme.name, ta, tb)


def _fits_a_phone(fig, where: str) -> None:
    """``fig``'s phone variants (light and dark) read at >= 0.8 of the 16-px body text in a
    390-px phone's 358-px column, and their texts keep inside the figure, apart from each
    other and off the arrows."""
    from itertools import combinations

    from attnlib.plotting._theme import DARK, LIGHT
    from attnlib.plotting.variants import drawn_texts, figure_variants

    narrow = [v for v in figure_variants(fig) if v["layout"] == "narrow"]
    assert {v["theme"] for v in narrow} == {"light", "dark"}, f"{where}: no phone variant"
    for v in narrow:  # label_scale: the smallest text's CSS px per CSS px of width
        px = v["label_scale"] * min(v["width"], PHONE_COLUMN)
        assert px >= DIAGRAM_MIN_PX, f"{where}, {v['theme']}: {px:.2f} px on a phone"
    for theme in (LIGHT, DARK):
        variant = fig._attnlib_redraw(theme, True, False)
        width, height = variant.bbox.width, variant.bbox.height
        boxes = drawn_texts(variant)
        for text, _, box in boxes:
            assert box.x0 >= -1 and box.x1 <= width + 1, (where, theme.name, text)
            assert box.y0 >= -1 and box.y1 <= height + 1, (where, theme.name, text)
        for (ta, _, a), (tb, _, b) in combinations(boxes, 2):
            w = min(a.x1, b.x1) - max(a.x0, b.x0)
            h = min(a.y1, b.y1) - max(a.y0, b.y0)
            assert not (w > 1 and h > 1), (where, theme.name, ta, tb)
        hits = _arrows_through_texts(variant)
        assert not hits, (where, theme.name, hits)


@pytest.mark.parametrize(
    "source, weights, kw",
    [
        (DATE, None, {}),
        ("x", [1.0], {"title": "one character"}),
        ("Wednesday, 25 September 2026", None, {"title": "a long date"}),
        ("a" * 70, None, {}),
    ],
    ids=["chapter-7", "one-char", "28-chars", "70-chars"],
)
def test_encoder_decoder_on_a_phone_reads_at_four_fifths_of_body_text(source, weights, kw):
    _fits_a_phone(_ed(source, weights, **kw), source)


@pytest.mark.parametrize(
    "batch, n, d, H", [(1, 10, 16, 2), (2, 7, 24, 4), (1, 5, 12, 3), (1, 12, 16, 4)]
)
def test_heads_diagram_on_a_phone_reads_at_four_fifths_of_body_text(batch, n, d, H):
    import attnlib
    from scoringbook.ch09_diagram import draw_heads

    torch.manual_seed(0)
    mha = attnlib.MultiHeadAttention(num_hiddens=d, num_heads=H, dropout=0.0)
    x = torch.randn(batch, n, d)
    fig = draw_heads(mha, x, attnlib.causal_valid_lens(batch, n))
    _fits_a_phone(fig, f"heads (batch {batch}, n {n}, d {d}, H {H})")


#: issue 39 item 6: at 1280 px the book's article column is 684 px wide; a diagram's wide
#: (desktop) picture shows there at most that wide, and its text too reads at >= 0.8 x 16 px
DESKTOP_COLUMN = 684


def _fits_a_desktop(fig, where: str) -> None:
    """``fig``'s wide variants (light, itself, and dark) read at >= 0.8 of the 16-px body text
    in a 1280-px page's 684-px column, and their texts keep inside the figure, apart from each
    other and off the arrows."""
    from itertools import combinations

    from attnlib.plotting._theme import DARK, LIGHT
    from attnlib.plotting.variants import drawn_texts, figure_variants, render_png

    wide = [{**render_png(fig), "theme": "light"}]
    wide += [v for v in figure_variants(fig) if v["layout"] == "wide"]
    assert {v["theme"] for v in wide} == {"light", "dark"}, f"{where}: no dark wide variant"
    for v in wide:  # label_scale: the smallest text's CSS px per CSS px of width
        px = v["label_scale"] * min(v["width"], DESKTOP_COLUMN)
        assert px >= DIAGRAM_MIN_PX, f"{where}, {v['theme']}: {px:.2f} px at 1280 px"
    for theme in (LIGHT, DARK):
        variant = fig._attnlib_redraw(theme, False, False)
        width, height = variant.bbox.width, variant.bbox.height
        boxes = drawn_texts(variant)
        for text, _, box in boxes:
            assert box.x0 >= -1 and box.x1 <= width + 1, (where, theme.name, text)
            assert box.y0 >= -1 and box.y1 <= height + 1, (where, theme.name, text)
        for (ta, _, a), (tb, _, b) in combinations(boxes, 2):
            w = min(a.x1, b.x1) - max(a.x0, b.x0)
            h = min(a.y1, b.y1) - max(a.y0, b.y0)
            assert not (w > 1 and h > 1), (where, theme.name, ta, tb)
        hits = _arrows_through_texts(variant)
        assert not hits, (where, theme.name, hits)


@pytest.mark.parametrize(
    "scoring, valid_len",
    [("dot_product", None), ("dot_product", 2), ("additive", 3), ("additive", None)]
    + [("gaussian", None)],
)
def test_pipeline_at_1280_px_reads_at_four_fifths_of_body_text(scoring, valid_len):
    fig = draw_pipeline(pipeline_example(scoring, valid_len=valid_len), title="a pipeline")
    _fits_a_desktop(fig, f"pipeline {scoring}, valid_len {valid_len}")


@pytest.mark.parametrize(
    "source, weights, kw",
    [
        (DATE, None, {}),
        ("x", [1.0], {"title": "one character"}),
        ("Wednesday, 25 September 2026", None, {"title": "a long date"}),
        ("a" * 70, None, {}),
    ],
    ids=["chapter-7", "one-char", "28-chars", "70-chars"],
)
def test_encoder_decoder_at_1280_px_reads_at_four_fifths_of_body_text(source, weights, kw):
    _fits_a_desktop(_ed(source, weights, **kw), source)


@pytest.mark.parametrize(
    "batch, n, d, H",
    [(1, 10, 16, 2), (2, 7, 24, 4), (1, 5, 12, 3), (1, 12, 16, 4)]
    + [(1, 40, 64, 4), (1, 10, 64, 2)],  # the largest it draws: the width capped, u shrunk
)
def test_heads_diagram_at_1280_px_reads_at_four_fifths_of_body_text(batch, n, d, H):
    import attnlib
    from scoringbook.ch09_diagram import draw_heads

    torch.manual_seed(0)
    mha = attnlib.MultiHeadAttention(num_hiddens=d, num_heads=H, dropout=0.0)
    x = torch.randn(batch, n, d)
    fig = draw_heads(mha, x, attnlib.causal_valid_lens(batch, n))
    _fits_a_desktop(fig, f"heads (batch {batch}, n {n}, d {d}, H {H})")


def _ends(arrow):
    """Where a FancyArrowPatch was aimed from and to, in data units (before its shrink): its
    two points, or its path's first and last vertex."""
    if arrow._posA_posB is not None:
        return arrow._posA_posB
    vertices = arrow._path_original.vertices
    return vertices[0], vertices[-1]


@pytest.mark.parametrize("narrow", [True, False], ids=["phone", "wide"])
@pytest.mark.parametrize("batch, n, d, H", [(1, 10, 16, 2), (1, 5, 12, 3), (1, 12, 16, 4)])
def test_heads_diagram_has_a_split_arrow_into_and_a_concat_arrow_out_of_every_head(
    batch, n, d, H, narrow
):
    """Issue 39: the phone picture drew the split arrow into head 2 only and the concat arrow
    out of head 1 only. Each head h: an arrow (gid split-h) ends at its weights (gid
    weights-h), touching their top or left edge, and one (gid concat-h) starts next to its
    output (gid output-h): under it or right of it."""
    from matplotlib.patches import FancyArrowPatch

    import attnlib
    from attnlib.plotting._theme import LIGHT
    from scoringbook.ch09_diagram import draw_heads

    torch.manual_seed(0)
    mha = attnlib.MultiHeadAttention(num_hiddens=d, num_heads=H, dropout=0.0)
    fig = draw_heads(mha, torch.randn(batch, n, d), attnlib.causal_valid_lens(batch, n))
    variant = fig._attnlib_redraw(LIGHT, narrow, False)
    ax = variant.axes[0]
    arrows = {p.get_gid(): p for p in ax.patches if isinstance(p, FancyArrowPatch)}
    outputs = {p.get_gid(): p for p in ax.patches if p.get_gid()}
    weights = {im.get_gid(): im for im in ax.images if im.get_gid()}
    where = f"heads (n {n}, d {d}, H {H}, {'phone' if narrow else 'wide'})"
    for h in range(H):
        assert f"split-{h}" in arrows, f"{where}: no split arrow into head {h + 1}"
        assert f"concat-{h}" in arrows, f"{where}: no concat arrow out of head {h + 1}"
        x0, x1, y0, y1 = weights[f"weights-{h}"].get_extent()
        tip = _ends(arrows[f"split-{h}"])[1]
        assert (x0 <= tip[0] <= x1 and 0 <= tip[1] - y1 <= 0.1) or (
            y0 <= tip[1] <= y1 and 0 <= x0 - tip[0] <= 0.1
        ), f"{where}: split arrow {h} ends at {tip}, head {h + 1}'s weights at {(x0, x1, y0, y1)}"
        box = outputs[f"output-{h}"]
        bx0, by0 = box.get_xy()
        bx1, by1 = bx0 + box.get_width(), by0 + box.get_height()
        tail = _ends(arrows[f"concat-{h}"])[0]
        assert (bx0 <= tail[0] <= bx1 and 0 <= by0 - tail[1] <= 0.35) or (
            by0 <= tail[1] <= by1 and 0 <= tail[0] - bx1 <= 0.8
        ), f"{where}: concat arrow {h} starts at {tail}, head {h + 1}'s output at {(bx0, by0)}"
