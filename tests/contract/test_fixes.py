"""The defects issue 28 names (and those the contract harness found), one test each; each was
seen failing on the code before the fix."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from attnlib import AdditiveAttention
from attnlib import widgets as W
from attnlib.widgets.live import LiveAttention

E = W.ExplorerError


# ------------------------------------------------------------------ widgets
def test_default_value_labels_tell_close_values_apart():
    s = W.Slider("s", [100.0, 100.1, 100.2])
    assert s.labels() == ["100", "100.1", "100.2"]
    # values 3 digits tell apart keep their short labels (published explorers unchanged)
    assert W.Slider("t", [0.05, 1.5, 20, 512]).labels() == ["0.05", "1.5", "20", "512"]
    many = W.Slider("u", [1.0 + k * 1e-9 for k in range(3)])
    assert len(set(many.labels())) == 3


def test_value_labels_that_do_not_tell_values_apart_are_refused():
    with pytest.raises(E, match="value_labels"):
        W.Slider("s", [1, 2], value_labels=["one", "one"])


def test_lines_panel_with_only_a_1d_handle():
    decl = W.Declaration(
        "d",
        lambda x: {"l": {}},
        [W.Slider("x", [0.0, 0.5, 1.0])],
        [W.Lines("l", handle=W.Handle("x", None), xlim=(0.0, 1.0))],
    )
    ex = W.Explorer(decl)
    (panel,) = ex.spec["panels"]
    assert panel["xlim"] == [0.0, 1.0] and panel["ylim"][0] < panel["ylim"][1]


def _spokes_decl(n_weights: int, n_points: int):
    pts = W.FixedSeries(
        "keys", x=np.arange(n_points, dtype=float), y=np.zeros(n_points), style="points"
    )
    return W.Declaration(
        "d",
        lambda q: {"w": np.full((1, n_weights), 1.0 / n_weights), "l": {}},
        [W.Slider("q", [0.0, 1.0])],
        [
            W.Heatmap("w"),
            W.Lines(
                "l",
                fixed=[pts],
                handle=W.Handle("q", None),
                spokes=W.Spokes("keys", "w"),
                xlim=(0.0, float(n_points)),
            ),
        ],
    )


def test_spokes_need_one_weight_per_point():
    with pytest.raises(E, match=r"spokes .* 3 points .* 2 weights"):
        W.Explorer(_spokes_decl(2, 3))
    assert W.Explorer(_spokes_decl(3, 3)).spec  # one weight per point: fine


def _live_attention_decl(n_cols: int, rows: int = 1):
    keys = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    return W.Declaration(
        "d",
        lambda x, y: {"w": np.full((rows, n_cols), 1.0 / n_cols), "keys": {"p": np.zeros((2, 1))}},
        [W.Slider("x", [0.0, 1.0]), W.Slider("y", [0.0, 1.0])],
        [
            W.Heatmap("w"),
            W.Lines(
                "keys",
                series=[W.Series("p", xy=True)],
                fixed=[W.FixedSeries("k", keys[:, 0], keys[:, 1], style="points")],
                handle=W.Handle("x", "y"),
                xlim=(0.0, 1.0),
                ylim=(0.0, 1.0),
            ),
        ],
        live=LiveAttention(keys, keys, query=("x", "y"), weights="w", output=("keys", "p")),
    )


@pytest.mark.parametrize("cols, rows", [(2, 1), (4, 1), (3, 2)])
def test_live_reference_frame_with_wrong_keys_or_rows_is_refused(cols, rows):
    with pytest.raises(E, match=r"weights 'w' must be \(1, 3\)"):
        W.Explorer(_live_attention_decl(cols, rows))
    assert W.Explorer(_live_attention_decl(3, 1)).spec


def test_live_kernel_regression_reference_frame_shape():
    from scoringbook.registry import DECLARATIONS

    decl = DECLARATIONS["kernel_regression"]()
    frame = decl.compute()
    bad = dict(frame, weights=frame["weights"][:, :-1])
    with pytest.raises(E, match="weights 'weights' must be"):
        decl.live.check_frame(bad, "here")


def test_text_suggestions_must_fit_the_field():
    with pytest.raises(E, match="suggestions must fit"):
        W.Text("t", "short", suggestions=["x" * 20], max_length=10)
    assert W.Text("t", "short", suggestions=["x" * 10], max_length=10).suggestions


# ------------------------------------------------------------------ AdditiveAttention, lazy
def _x(dtype=torch.float32):
    return torch.rand(1, 2, 3, generator=torch.Generator().manual_seed(0), dtype=dtype)


def _state(q, k, v):
    return {"W_q.weight": torch.rand(q), "W_k.weight": torch.rand(k), "w_v.weight": torch.rand(v)}


def test_lazy_additive_attention_first_call_in_float64_names_the_dtype():
    a = AdditiveAttention(num_hiddens=4, dropout=0.0)
    x = _x(torch.float64)
    with pytest.raises(TypeError, match=r"float64.*float32"):
        a(x, x, x)
    a.to(torch.float64)
    assert a(x, x, x).dtype == torch.float64  # converted first: fine


def test_loaded_but_unsized_lazy_additive_attention_names_what_differs():
    a = AdditiveAttention(num_hiddens=4, dropout=0.0)
    a.load_state_dict(
        {
            "W_q.weight": torch.rand(4, 5),
            "W_k.weight": torch.rand(4, 3),
            "w_v.weight": torch.rand(1, 4),
        }
    )
    x = _x()
    with pytest.raises(ValueError, match=r"W_q .* in_features 5.* 3"):
        a(x, x, x)
    b = AdditiveAttention(num_hiddens=4, dropout=0.0)
    b.load_state_dict(
        {
            "W_q.weight": torch.rand(4, 3),
            "W_k.weight": torch.rand(4, 3),
            "w_v.weight": torch.rand(1, 5),
        }
    )
    with pytest.raises(ValueError, match=r"w_v .* in_features 5.* num_hiddens is 4"):
        b(x, x, x)
    c = AdditiveAttention(num_hiddens=4, dropout=0.0)
    c.load_state_dict(
        {
            "W_q.weight": torch.rand(4, 3),
            "W_k.weight": torch.rand(4, 3),
            "w_v.weight": torch.rand(1, 4),
        }
    )
    assert c(x, x, x).shape == (1, 2, 3)  # loaded with matching sizes: fine


# ------------------------------------------------------------------ plotting
def test_show_heatmaps_takes_a_colormap_object():
    import matplotlib

    from attnlib.plotting import show_heatmaps

    cmap = matplotlib.colormaps["viridis"]
    fig = show_heatmaps(torch.rand(1, 1, 2, 3), "keys", "queries", cmap=cmap)
    (image,) = fig.axes[0].images
    assert image.get_cmap().name == "viridis"
    with pytest.raises(ValueError, match="cmap"):
        show_heatmaps(torch.rand(1, 1, 2, 3), "keys", "queries", cmap="no-such-map")


def test_long_titles_are_never_wrapped_inside_maths():
    from attnlib.plotting import show_heatmaps

    title = r"weights of $\mathrm{softmax}(q k^\top / \sqrt{d})$ for every query and key"
    fig = show_heatmaps(torch.rand(1, 1, 2, 3), "keys", "queries", titles=[title], figsize=(2, 2))
    text = fig.axes[0].get_title()
    assert "\n" in text  # it was wrapped
    for line in text.split("\n"):
        assert line.count("$") % 2 == 0, f"a line breaks the maths: {line!r}"
    assert text.replace("\n", " ") == title
    fig.canvas.draw()  # mathtext parses every line


# ------------------------------------------------------------------ checker markdown
def _body(md: str) -> str:
    """A checker's Markdown without its verdict ("**Correct:**" or "**Not yet:**")."""
    verdict = re.match(r"\*\*(Correct|Not yet):\*\* ", md)
    assert verdict, md
    return md[verdict.end() :]


@pytest.mark.parametrize("special", ["$x$", "a & b", "~~gone~~", "![img](x)", "{glue}`n`"])
def test_check_result_markdown_escapes_markup(special):
    from scoringbook._checking import CheckResult

    md = CheckResult(False, f"source {special!r} differs")._repr_markdown_()
    body = _body(md)
    # every Markdown-active character is backslash-escaped; unescaping gives the message back
    unescaped = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", body)
    assert unescaped == f"source {special!r} differs"
    for ch in "$&![]{}`":
        assert not re.search(rf"(?<!\\){re.escape(ch)}", body), (ch, body)
    assert "~~" not in body


def test_check_alignment_markdown_escapes_the_source():
    from scoringbook.ch07_exercises import check_alignment

    r = check_alignment(torch.zeros(10, 11), "22 Nov 2026")
    body = _body(r._repr_markdown_())
    assert re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", body) == r.message


# ------------------------------------------------------------------ book_figures
def test_book_figures_names_a_shell_that_is_not_one():
    from attnlib.plotting.variants import book_figures

    with pytest.raises(TypeError, match="shell"):
        book_figures(shell="ipython")


# ------------------------------------------------ chapters 6 and 9: new callables (issue 28)
def test_location_weights_names_a_non_tensor_and_a_nan():
    from scoringbook.ch06_scoring_family import location_weights

    with pytest.raises(TypeError, match="W_a"):
        location_weights([[1.0, 0.0]], torch.tensor([1.0, 0.0]), 1)
    with pytest.raises(ValueError, match="query"):
        location_weights(torch.eye(3, 2), torch.tensor([float("nan"), 0.0]), 3)


def test_hard_attention_names_weights_and_generator():
    from scoringbook.ch06_scoring_family import hard_attention

    with pytest.raises(TypeError, match="weights"):
        hard_attention(None, torch.Generator())
    with pytest.raises(ValueError, match="weights"):
        hard_attention(torch.full((2, 4), float("inf")), torch.Generator())
    before = torch.get_rng_state()
    with pytest.raises(TypeError, match="generator"):
        hard_attention(torch.full((2, 4), 0.25), None)
    assert torch.equal(torch.get_rng_state(), before)


@pytest.mark.parametrize("fn", ["previous_token_score", "induction_score"])
def test_head_scores_refuse_an_empty_batch(fn):
    from scoringbook import ch10_model as tiny

    with pytest.raises(ValueError, match="weights"):
        getattr(tiny, fn)(torch.zeros(0, 1, 20, 20))


@pytest.mark.parametrize(
    "bad, exc",
    [
        (None, TypeError),
        (torch.zeros(2, 20), TypeError),  # float ids
        (torch.zeros(0, 20, dtype=torch.long), ValueError),  # empty batch: NaN accuracy before
        (torch.zeros(2, 21, dtype=torch.long), ValueError),  # longer than max_len
        (torch.full((2, 20), -1), ValueError),  # not an id
    ],
)
@pytest.mark.parametrize("fn", ["head_scores", "ablation_table", "repeated_half_accuracy"])
def test_multihead_measures_name_bad_tokens(fn, bad, exc):
    from scoringbook import ch10_model as tiny

    with torch.random.fork_rng():
        model = tiny.AttentionOnly(num_hiddens=8)
    with pytest.raises(exc, match="tokens"):
        getattr(tiny, fn)(model, bad)


def test_repeated_half_accuracy_names_bad_ablate():
    from scoringbook import ch10_model as tiny

    with torch.random.fork_rng():
        model = tiny.AttentionOnly(num_hiddens=8)
    with pytest.raises(TypeError, match="ablate"):
        tiny.repeated_half_accuracy(model, torch.zeros(2, 20, dtype=torch.long), "ab")


def test_token_text_and_attention_only_name_bad_arguments():
    from scoringbook import ch10_model as tiny

    with pytest.raises(TypeError, match="tokens"):
        tiny.token_text(None)
    with pytest.raises(ValueError, match="tokens"):
        tiny.token_text([0, 99])
    with pytest.raises(TypeError, match="num_hiddens"):
        tiny.AttentionOnly(num_hiddens="8")
    with pytest.raises(ValueError, match="num_hiddens"):
        tiny.AttentionOnly(num_hiddens=-8)
    with pytest.raises(TypeError, match="num_layers"):
        tiny.AttentionOnly(num_layers=2.0)
