"""attnlib's figures for the book: dark and narrow variants, text sizes, one colour scale.

attnlib.plotting draws each figure for a light page; attnlib.plotting.variants draws it again
for a dark page and, when it is wider than NARROW_WIDTH (3.6 in), for a phone's column. These
tests check what the book relies on: the variants exist and are what they claim (their size, their
smallest text, their colours), the dark weight scale is the explorers' one, no text overlaps
another, and a figure changed after attnlib drew it gets no variants rather than wrong ones.
"""

from __future__ import annotations

import base64
import io
import json
import re
from itertools import combinations
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.colors import to_hex, to_rgb
from PIL import Image

from attnlib import kernels
from attnlib.plotting import (
    OKABE_ITO,
    plot_bars,
    plot_histograms,
    plot_kernels,
    plot_lines,
    plot_regression,
    show_heatmaps,
)
from attnlib.plotting._figure import DPI, NARROW_WIDTH, NotebookFigure
from attnlib.plotting._theme import DARK, LIGHT, SMALLEST_PT, contrast, series_colour
from attnlib.plotting.variants import book_figures, drawn_texts, figure_variants, render_png
from scoringbook.ch07_diagram import draw_encoder_decoder
from scoringbook.diagrams import draw_pipeline, pipeline_example

STATIC = Path(__file__).resolve().parents[2] / "attnlib" / "static"


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _png(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def _figures():
    """One figure of every kind the book draws, at the sizes the chapters use."""
    g = _gen()
    u = torch.linspace(-2.5, 2.5, 101)
    x = torch.sort(torch.rand(40, generator=g) * 5).values
    xq = torch.linspace(0, 5, 51)
    fits = {name: torch.sin(xq) + 0.1 * i for i, name in enumerate(kernels.KERNELS)}
    weights = torch.softmax(
        torch.randn(5, 51, 40, generator=g) * 2, -1
    )  # (cols, n_queries, n_keys)
    return {
        "heatmaps, five in a row": show_heatmaps(
            weights,
            "training inputs (keys)",
            "queries q",
            titles=["gaussian", "boxcar", "constant", "epanechnikov", "triangular"],
            figsize=(9, 2.4),
        ),
        "heatmap, one": show_heatmaps(weights[0, :6, :10], "keys", "queries", figsize=(3.5, 2.6)),
        "heatmaps, 2 x 2 with panel titles": show_heatmaps(
            torch.rand(2, 2, 3, 10, generator=g),
            "keys",
            "queries",
            figsize=(6, 3.7),
            titles=[
                ["seq 0: valid_lens (batch,) = 2", "seq 1: valid_lens (batch,) = 6"],
                [
                    "seq 0: (batch, n_queries) = [1, 2, 3]",
                    "seq 1: (batch, n_queries) = [10, 6, 4]",
                ],
            ],
            suptitle="two kinds of valid lengths",
        ),
        "kernels": plot_kernels(
            u, {n: k(u) for n, k in kernels.KERNELS.items()}, figsize=(8, 1.8)
        ),
        "regression": plot_regression(
            x, torch.sin(x), xq, fits, truth=torch.sin(xq), figsize=(5, 3.3)
        ),
        "lines": plot_lines(
            xq,
            {"a": xq, "b": xq**2},
            scatter=(x, torch.zeros_like(x), "inputs"),
            xlabel="x",
            ylabel="density",
            logy=False,
            figsize=(6, 3),
        ),
        # long names (chapter 2's density figure): two columns of them under a phone's figure
        # were wider than it (444 px), and the phone showed all its text smaller
        "lines, long names": plot_lines(
            xq,
            {"KDE of the training inputs, σ = 0.5": xq, "true density (uniform on [0, 5])": xq**2},
            scatter=(x, torch.zeros_like(x), "training inputs"),
            xlabel="x",
            ylabel="density",
            logy=False,
            figsize=(6, 3),
        ),
        "histograms": plot_histograms(
            {"raw": torch.randn(500, generator=g) * 8, "scaled": torch.randn(500, generator=g)},
            xlabel="score",
            bins=40,
            density=True,
            figsize=(5, 3),
        ),
        "bars": plot_bars(
            ["Y1", "Y2", "M1", "D1"],
            {"seed 0": [0.2, 0.9, 0.5, 1.0], "seed 1": [0.3, 0.8, 0.6, 0.9]},
            xlabel="output character",
            ylabel="share",
            ylim=(0, 1.1),
            figsize=(6, 2.4),
        ),
        "pipeline": draw_pipeline(pipeline_example(valid_len=3), title="step by step"),
        "encoder-decoder": draw_encoder_decoder(
            "22 Nov 2026", "2026-11-", [1.0] + [0.0] * 10, next_char="2"
        ),
    }


@pytest.fixture(scope="module")
def drawn():
    figs = _figures()
    out = {name: (fig, render_png(fig), figure_variants(fig)) for name, fig in figs.items()}
    yield out
    plt.close("all")


# ----------------------------------------------------------------------------- variants


@pytest.mark.slow  # the `drawn` fixture renders every figure in every variant
def test_every_figure_has_a_dark_variant_and_wide_ones_a_narrow_pair(drawn):
    for name, (fig, main, variants) in drawn.items():
        kinds = sorted((v["theme"], v["layout"]) for v in variants)
        if fig.get_figwidth() > NARROW_WIDTH:
            assert kinds == [("dark", "narrow"), ("dark", "wide"), ("light", "narrow")], (
                name,
                kinds,
            )
        else:
            assert kinds == [("dark", "wide")], (name, kinds)
        for v in variants:
            img = _png(v["png"])
            # the size claimed is the PNG's own, at 2 PNG pixels per CSS px
            assert img.shape[1] == pytest.approx(2 * v["width"], abs=1), (
                name,
                v["theme"],
                v["layout"],
            )
            assert img.shape[0] == pytest.approx(2 * v["height"], abs=1), (
                name,
                v["theme"],
                v["layout"],
            )
            # NARROW_WIDTH at 100 dpi (chapter 7's diagram too, with its larger text), plus
            # matplotlib's 0.1 in of padding each side and a few px of a label at an edge
            # (the pipeline's: 23 in all)
            if v["layout"] == "narrow":
                assert v["width"] <= NARROW_WIDTH * DPI + 25, (name, v["width"])
            else:  # the same figure as the light one, so the same size
                assert (v["width"], v["height"]) == (main["width"], main["height"]), name


def test_variants_are_drawn_off_pyplot():
    """Drawing variants must not add figures that Jupyter's inline backend would show, nor
    take the figure off pyplot's canvas."""
    plt.close("all")
    fig = plot_kernels(
        torch.linspace(-1, 1, 5), {"a": torch.ones(5), "b": torch.zeros(5)}, figsize=(6, 2)
    )
    canvas = fig.canvas
    assert len(figure_variants(fig)) == 3 and render_png(fig)["width"] > 0
    assert plt.get_fignums() == [fig.number] and fig.canvas is canvas
    plt.close("all")


@pytest.mark.slow  # the `drawn` fixture renders every figure in every variant
def test_dark_variants_are_dark_and_light_ones_light(drawn):
    for name, (_, main, variants) in drawn.items():
        for v in [{**main, "theme": "light", "layout": "wide"}, *variants]:
            img = _png(v["png"])
            bg = DARK.background if v["theme"] == "dark" else LIGHT.background
            frame = np.concatenate(
                [
                    img[:3].reshape(-1, 3),
                    img[-3:].reshape(-1, 3),
                    img[:, :3].reshape(-1, 3),
                    img[:, -3:].reshape(-1, 3),
                ]
            )
            # the picture's edge is the background colour: a dark card, or white
            assert {to_hex(p / 255) for p in np.unique(frame, axis=0)} == {bg}, (
                name,
                v["theme"],
                v["layout"],
            )


@pytest.mark.slow  # the `drawn` fixture renders every figure in every variant
def test_smallest_text_is_nine_points_everywhere(drawn):
    """label_scale * width is the smallest text in CSS px; * 72 / DPI gives it in points."""
    for name, (_, main, variants) in drawn.items():
        for v in [main, *variants]:
            smallest_pt = v["label_scale"] * v["width"] * 72 / DPI
            assert smallest_pt >= SMALLEST_PT - 1e-6, (
                name,
                v.get("theme"),
                v.get("layout"),
                smallest_pt,
            )


def test_label_scale_counts_the_smallest_text_drawn():
    """A 6-pt annotation on a plain figure: the scale says 6 pt, whatever else is larger."""
    fig = NotebookFigure(figsize=(4, 2), dpi=DPI)
    ax = fig.add_subplot()
    ax.set_title("large", fontsize=14)
    ax.text(0.5, 0.5, "tiny", fontsize=6)
    ax.text(0.2, 0.2, "   ", fontsize=3)  # blank: not a label
    got = render_png(fig)
    assert got["label_scale"] * got["width"] == pytest.approx(6 / 72 * DPI, rel=1e-9)


def test_glyph_scales_measure_letters_by_their_capital_height_in_and_off_the_ticks():
    """Letters (one or two characters with a letter) are measured by the ink of a capital
    (DejaVu Sans: 0.729 em), tick labels apart from other text; words and numbers are not."""
    fig = NotebookFigure(figsize=(4, 2), dpi=DPI)
    ax = fig.add_subplot()
    ax.set_xticks([0, 1], ["A", "B"], fontsize=8)
    ax.set_yticks([0, 1], ["0", "1"], fontsize=5)  # numbers: not letters
    ax.text(0.5, 0.5, "T", fontsize=11)
    ax.text(0.2, 0.2, "word", fontsize=4)  # a word: not letters
    got = render_png(fig)
    cap = 0.729 / 72 * DPI / got["width"]  # CSS px per CSS px of width, per pt
    assert got["glyph_scale"] == pytest.approx(11 * cap, rel=0.01)
    assert got["tick_glyph_scale"] == pytest.approx(8 * cap, rel=0.01)
    assert got["label_scale"] * got["width"] == pytest.approx(4 / 72 * DPI, rel=1e-9)
    plain = NotebookFigure(figsize=(4, 2), dpi=DPI)
    plain.add_subplot().set_title("no letters here")
    got = render_png(plain)
    assert got["glyph_scale"] is None and got["tick_glyph_scale"] is None


@pytest.mark.slow  # the `drawn` fixture renders every figure in every variant
def test_narrow_figures_on_a_phone_show_text_of_at_least_ten_and_a_half_px(drawn):
    """A 390-px phone has a 358-px column, which a figure fills (the book's layout): each
    figure's narrow variant, or the figure itself when it has none, shown at min(its width,
    358) px, shows its smallest text at >= 10.5 CSS px (issue 39: 9.2-9.9 px when narrow
    variants were 4.2 in wide)."""
    for name, (_, main, variants) in drawn.items():
        narrow = [v for v in variants if v["layout"] == "narrow"] or [main]
        for v in narrow:
            assert v["label_scale"] * min(v["width"], 358) >= 10.5, (
                name,
                v.get("theme"),
                v["label_scale"],
            )


def _fits_a_phone(fig) -> None:
    """The figure's two narrow variants (light, dark) are at most NARROW_WIDTH wide (plus the
    tight box's padding) and show their smallest text at >= 10.5 px in a phone's 358-px column."""
    narrow = [v for v in figure_variants(fig) if v["layout"] == "narrow"]
    assert len(narrow) == 2
    for v in narrow:
        assert v["width"] <= NARROW_WIDTH * DPI + 30, v["width"]
        assert v["label_scale"] * min(v["width"], 358) >= 10.5
    plt.close("all")


def _overlaps(fig) -> list:
    """Pairs of drawn texts whose boxes share more than a pixel each way."""
    boxes = drawn_texts(fig)
    hits = []
    for (ta, _, a), (tb, _, b) in combinations(boxes, 2):
        w = min(a.x1, b.x1) - max(a.x0, b.x0)
        h = min(a.y1, b.y1) - max(a.y0, b.y0)
        if w > 1 and h > 1:
            hits.append((ta, tb))
    return hits


def test_overlap_check_finds_colliding_labels():
    """The check below can fail: five long x labels under five narrow panels collide."""
    fig = NotebookFigure(figsize=(6, 2), dpi=DPI, layout="constrained")
    for ax in fig.subplots(1, 5):
        ax.set_xlabel("training inputs (keys)")
    assert len(_overlaps(fig)) >= 4


@pytest.mark.slow  # the `drawn` fixture renders every figure in every variant
@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
def test_no_text_overlaps_another(drawn, theme, narrow):
    """Chapter 2's five heatmaps had five 'training inputs (keys)' labels running into each
    other: now no two texts of any figure share a box, in any variant."""
    for name, (fig, _, _) in drawn.items():
        variant = fig._attnlib_redraw(theme, narrow, False)
        assert not _overlaps(variant), (name, theme.name, narrow, _overlaps(variant)[:4])


@pytest.mark.slow  # the `drawn` fixture renders every figure in every variant
def test_five_heatmaps_on_a_phone_are_two_a_row_with_the_colour_bar_below(drawn):
    fig = drawn["heatmaps, five in a row"][0]
    narrow = fig._attnlib_redraw(LIGHT, True, False)
    narrow.canvas.draw()
    panels = [ax for ax in narrow.axes if ax.images]
    lefts = sorted({round(ax.get_position().x0, 3) for ax in panels})
    tops = sorted({round(ax.get_position().y1, 3) for ax in panels})
    assert len(panels) == 5 and len(lefts) == 2 and len(tops) == 3
    (bar,) = [ax for ax in narrow.axes if not ax.images]
    assert bar.get_position().y1 < min(ax.get_position().y0 for ax in panels)  # under every panel
    # the panels still show the weights exactly, in order
    for ax, w in zip(panels, fig._attnlib_redraw(LIGHT, False, False).axes):
        np.testing.assert_array_equal(ax.images[0].get_array(), w.images[0].get_array())


def test_a_figure_changed_after_drawing_gets_no_variants():
    fig = show_heatmaps(torch.rand(2, 3, 4, generator=_gen(1)), "keys", "queries", figsize=(6, 2))
    assert figure_variants(fig)
    fig.axes[0].set_title("added later")
    assert figure_variants(fig) == []
    plt.close(fig)


def test_figure_variants_refuses_a_non_attnlib_figure():
    with pytest.raises(
        TypeError, match=r"fig must be an attnlib figure \(NotebookFigure\); got <Figure"
    ):
        figure_variants(plt.figure())
    with pytest.raises(TypeError, match=r"got 'figure' \(str\)"):
        figure_variants("figure")
    plain = plt.figure(FigureClass=NotebookFigure)  # attnlib's class, not drawn by attnlib
    assert figure_variants(plain) == []
    plt.close("all")


def test_a_figure_without_text_has_no_label_scale():
    fig = NotebookFigure(figsize=(2, 2), dpi=DPI)
    fig.add_subplot().axis("off")
    with pytest.raises(ValueError, match="draws no text"):
        render_png(fig)


# ----------------------------------------------------------------------------- Jupyter


def test_book_figures_puts_the_variants_in_the_png_output_metadata():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        book_figures(shell)
        fig = plot_lines(
            torch.arange(3.0), {"a": torch.arange(3.0)}, xlabel="x", ylabel="y", figsize=(6, 3)
        )
        data, meta = shell.display_formatter.format(fig)
        png = data["image/png"]
        raw = png if isinstance(png, bytes) else base64.b64decode(png)
        img = _png(raw)
        m = meta["image/png"]
        assert (2 * m["width"], 2 * m["height"]) == pytest.approx(
            (img.shape[1], img.shape[0]), abs=1
        )
        variants = m["attnlib"]["variants"]
        assert sorted((v["theme"], v["layout"]) for v in variants) == [
            ("dark", "narrow"),
            ("dark", "wide"),
            ("light", "narrow"),
        ]
        json.dumps(m)  # JSON-able: it goes into the .ipynb
        # stored as 256-colour PNGs, faithful to the figure as drawn
        drawn_variants = {(v["theme"], v["layout"]): v for v in figure_variants(fig)}
        for v in variants:
            stored = _png(base64.b64decode(v["png"]))
            full = _png(drawn_variants[(v["theme"], v["layout"])]["png"])
            assert stored.shape == full.shape
            assert np.abs(stored.astype(int) - full.astype(int)).mean() <= 1.0
        # other matplotlib figures are left to the inline backend
        assert shell.display_formatter.formatters["image/png"].lookup_by_type(NotebookFigure)
    finally:
        shell.display_formatter.formatters["image/png"].pop(NotebookFigure, None)
        InteractiveShell.clear_instance()
        plt.close("all")


def test_book_figures_outside_ipython_says_so():
    with pytest.raises(RuntimeError, match="needs a running IPython shell"):
        book_figures()
    with pytest.raises(TypeError, match="shell must be an IPython shell"):
        book_figures(object())  # not a shell: named (issue 28)


# ----------------------------------------------------------------------------- colours


def _js_array(name: str) -> list[str] | None:
    for path in sorted(STATIC.rglob("*.js")):
        m = re.search(rf"\bconst\s+{name}\s*=\s*\[([^\]]*)\]", path.read_text(encoding="utf8"))
        if m:
            return [h.lower() for h in re.findall(r'"(#[0-9a-fA-F]{6})"', m.group(1))]
    return None


def _js_number(name: str) -> float | None:
    for path in sorted(STATIC.rglob("*.js")):
        m = re.search(rf"\bconst\s+{name}\s*=\s*([0-9.]+)", path.read_text(encoding="utf8"))
        if m:
            return float(m.group(1))
    return None


def test_weight_scales_are_the_explorers():
    """One quantity, one colour scale: a static heatmap and an explorer on the same page
    paint a weight alike, in both modes (attnlib/static holds the explorers' scales)."""
    assert _js_array("REDS") == list(LIGHT.weights), (
        "light weight scale differs from the explorers'"
    )
    dark = _js_array("INFERNO") or _js_array("DARK")
    assert dark == list(DARK.weights), "dark weight scale differs from the explorers'"
    gamma = _js_number("GAMMA") or 1.0  # no GAMMA: the explorers map weights linearly
    assert gamma == pytest.approx(LIGHT.gamma) == pytest.approx(DARK.gamma)
    css = next(STATIC.rglob("explorer.css")).read_text(encoding="utf8")
    block = re.search(r'html\[data-theme="dark"\] \.attn-explorer[^{]*\{([^}]*)\}', css).group(1)
    assert re.search(r"--attn-bg:\s*([^;]+);", block).group(1).strip().lower() == DARK.background
    assert re.search(r"--attn-fg:\s*([^;]+);", block).group(1).strip().lower() == DARK.foreground


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_heatmap_colours_run_along_the_scale(theme):
    """Zero gets the first stop, the largest weight the last, a weight u of the way up the
    stop at u ** gamma: read back from the drawn image's colour map and norm."""
    w = torch.tensor([[0.0, 0.25, 1.0]])
    fig = show_heatmaps(w, "keys", "queries")
    img = fig._attnlib_redraw(theme, False, False).axes[0].images[0]
    rgba = img.cmap(img.norm(np.array([0.0, 0.25, 1.0])))
    assert to_hex(rgba[0]) == theme.weights[0] and to_hex(rgba[2]) == theme.weights[-1]
    expected = theme.weights_cmap()(0.25**theme.gamma)
    np.testing.assert_allclose(rgba[1], expected, atol=1 / 255)
    plt.close("all")


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_series_colours_keep_three_to_one(theme):
    for colour in OKABE_ITO:
        got = series_colour(colour, theme)
        assert contrast(got, theme.background) >= 3.0, (colour, got)
    assert series_colour("#000000", theme) == theme.foreground
    # colours that already pass keep their exact value (the Okabe-Ito palette as published)
    for colour in OKABE_ITO:
        if contrast(colour, theme.background) >= 3 and colour != "#000000":
            assert series_colour(colour, theme) == colour.lower()
    # one that does not keeps its hue (the largest channel stays the largest)
    orange = series_colour("#E69F00", LIGHT)
    assert np.argmax(to_rgb(orange)) == 0 and contrast(orange, "#ffffff") >= 3


def test_themes_text_and_points_contrast():
    for theme in (LIGHT, DARK):
        assert contrast(theme.foreground, theme.background) >= 7
        assert contrast(theme.muted, theme.background) >= 4.5
        assert contrast(theme.points, theme.background) >= 3


def test_a_legend_moved_after_drawing_counts_as_a_change():
    """Chapter 2 used to move a legend after the fact (fig.axes[0].legend(loc=...)): that
    must count as a change (no variants), and plot_regression's legend_loc does it right."""
    x = torch.linspace(0, 5, 20)
    fig = plot_regression(x, x.sin(), x, {"fit": x.sin()}, truth=x.sin(), figsize=(5, 3))
    assert figure_variants(fig)
    fig.axes[0].legend(loc="lower right", ncols=2)
    assert figure_variants(fig) == []
    moved = plot_regression(
        x, x.sin(), x, {"fit": x.sin()}, figsize=(5, 3), legend_loc="lower right", legend_ncols=2
    )
    legend = moved.axes[0].get_legend()
    assert (legend._loc, legend._ncols) == (4, 2)  # matplotlib's code for "lower right"
    assert figure_variants(moved)
    plt.close("all")


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        ({"legend_loc": 3}, TypeError, "legend_loc must be a str"),
        ({"legend_ncols": 0}, ValueError, "legend_ncols must be a positive int"),
        ({"legend_ncols": True}, TypeError, r"legend_ncols must be an int; got True \(bool\)"),
    ],
)
def test_plot_regression_legend_arguments(kwargs, exc, words):
    x = torch.linspace(0, 1, 5)
    with pytest.raises(exc, match=words):
        plot_regression(x, x, x, {"fit": x}, **kwargs)


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        ({"titles": [["a", "b"]]}, ValueError, "titles as a grid must have 2 rows of 2"),
        ({"titles": [["a"], ["b", "c"]]}, ValueError, r"got \[1, 2\] titles per row"),
        ({"suptitle": 3}, TypeError, "suptitle must be a str"),
        ({"cmap": 3}, TypeError, "cmap must be a matplotlib colour map"),
    ],
)
def test_show_heatmaps_new_arguments_refuse_bad_input(kwargs, exc, words):
    with pytest.raises(exc, match=words):
        show_heatmaps(torch.rand(2, 2, 3, 3, generator=_gen()), "k", "q", **kwargs)


def test_show_heatmaps_titles_grid_and_suptitle():
    fig = show_heatmaps(
        torch.rand(2, 2, 3, 3, generator=_gen()),
        "k",
        "q",
        titles=[["a", "b"], ["c", "d"]],
        suptitle="all four",
    )
    assert [ax.get_title() for ax in fig.axes if ax.images] == ["a", "b", "c", "d"]
    assert fig.get_suptitle() == "all four"
    assert figure_variants(fig)  # passed in, not added afterwards: variants keep them
    plt.close("all")


def test_a_legend_over_bars_keeps_a_phone_figure_narrow():
    """Chapter 8's shape: three series of bars, their legend above them. In three columns it
    was wider than the phone figure (442 px for 3.6 in), so a phone showed its text smaller."""
    from attnlib.plotting import plot_bars

    values = torch.arange(24, dtype=torch.float32).reshape(3, 8)
    fig = plot_bars(
        [str(i) for i in range(1, 9)],
        {"with attention": values[0], "without (3×)": values[1], "query-blind": values[2]},
        xlabel="position in the number of 8 digits",
        ylabel="outputs wrong there",
        figsize=(6, 3),
    )
    _fits_a_phone(fig)


def test_a_long_x_label_wraps_in_a_phone_figure():
    """Chapter 7's shape: an x label longer than a phone figure is wide ("the row made
    uniform (Y: year, ...)") stuck out past it and widened the picture (442 px for 3.6 in)."""
    from attnlib.plotting import plot_bars

    fig = plot_bars(
        ["Y1", "Y2", "Y3", "Y4", "–", "M1", "M2", "–", "D1", "D2"],
        {"right": torch.arange(10, dtype=torch.float32) * 100},
        xlabel="the row made uniform (Y: year, M: month, D: day, –: a dash)",
        ylabel="of 1000 dates right",
        figsize=(6, 2.6),
    )
    _fits_a_phone(fig)


def test_a_phone_puts_sparsely_labelled_or_small_maps_two_a_row():
    """Five maps whose rows are named every tenth query (chapter 2's kernels), and two 4 x 7
    maps (chapter 9's cross-attention heads), go two a row on a phone: one a row made chapter
    2's figure 1,730 px tall (two phone screens) and pushed the chapter past 20 screens."""
    from attnlib.plotting.heatmaps import _narrow_columns

    sparse = [f"{i // 10}" if i % 10 == 0 else "" for i in range(51)]
    assert _narrow_columns(5, 50, 51, ["boxcar"] * 5, None, sparse) == 2
    assert _narrow_columns(2, 7, 4, ["head 1", "head 2"], None, None) == 2
    # dense labels, or two large maps, keep one a row
    dense = [f"{i / 10:.1f}" for i in range(51)]
    assert _narrow_columns(5, 50, 51, ["boxcar"] * 5, None, dense) == 1
    assert _narrow_columns(2, 20, 20, ["head 1", "head 2"], None, None) == 1
    w = torch.softmax(torch.randn(1, 5, 51, 50, generator=torch.Generator().manual_seed(0)), -1)
    fig = show_heatmaps(
        w, "keys", "queries", titles=list("abcde"), yticklabels=sparse, figsize=(9, 2.4)
    )
    (v,) = [v for v in figure_variants(fig) if v["layout"] == "narrow" and v["theme"] == "light"]
    assert v["height"] < 2.2 * v["width"], (v["width"], v["height"])  # was 372 x 1730


def test_maps_side_by_side_on_a_phone_name_their_key_axis_once():
    """Chapter 9's two cross-attention heads, side by side on a phone, printed their long x
    label under each column: "encoder positions (keys)encoder positions (keys)"."""
    w = torch.softmax(torch.randn(1, 2, 4, 7, generator=torch.Generator().manual_seed(0)), -1)
    fig = show_heatmaps(
        w,
        "encoder positions (keys)",
        "decoder steps",
        titles=["head 1", "head 2"],
        figsize=(4.2, 2.1),  # chapter 9's
    )
    narrow = fig._attnlib_redraw(LIGHT, True, False)
    narrow.canvas.draw()
    labels = [ax.get_xlabel() for ax in narrow.axes if ax.get_xlabel()]
    assert labels.count("encoder positions (keys)") == 1, labels
    assert not _overlaps(narrow), _overlaps(narrow)[:4]
