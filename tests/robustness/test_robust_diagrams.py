"""The pipeline figure attacked: examples of the wrong kind, inconsistent numbers (weights that
are not the softmax of the scores, an output that is not their weighted average, masked keys
with weight), non-finite values and bad figure sizes are refused before anything is drawn."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from ._helpers import global_rng_untouched, raises
from ._targets import ch07_diagram
from ._targets import diagrams as D


@pytest.mark.parametrize("scoring, exc", [("DOT", ValueError), (None, TypeError), (3, TypeError)])
def test_pipeline_example_scoring(scoring, exc):
    with raises(exc, "pipeline_example", "scoring", "dot_product"):
        D.pipeline_example(scoring)


@pytest.mark.parametrize(
    "valid_len, exc, words",
    [
        (5, ValueError, ["valid_len", "0 .. 4", "5"]),
        (-1, ValueError, ["valid_len", "-1"]),
        (2.5, TypeError, ["valid_len", "int", "2.5"]),
        (True, TypeError, ["valid_len", "bool"]),
        ("2", TypeError, ["valid_len", "'2'"]),
    ],
)
def test_pipeline_example_valid_len(valid_len, exc, words):
    with raises(exc, "pipeline_example", *words):
        D.pipeline_example(valid_len=valid_len)


@pytest.mark.parametrize("valid_len", [None, 0, 1, 4, np.int64(2), torch.tensor(3)])
def test_pipeline_example_accepts_lengths_of_any_integer_kind(valid_len):
    ex = D.pipeline_example(valid_len=valid_len)
    n = 4 if valid_len is None else int(valid_len)
    w = ex["weights"]
    assert (w[n:] == 0).all() and (abs(float(w.sum()) - (1.0 if n else 0.0)) < 1e-6)


def test_pipeline_example_leaves_the_global_generator_alone():
    with global_rng_untouched():
        D.pipeline_example("additive")


EX = D.pipeline_example(valid_len=3)


def _with(**changes):
    return {**EX, **changes}


@pytest.mark.parametrize(
    "example, exc, words",
    [
        (None, TypeError, ["example", "dict", "NoneType"]),
        (
            {k: v for k, v in EX.items() if k != "query"},
            ValueError,
            ["example", "'query'", "missing"],
        ),
        (_with(weights=EX["weights"] * float("nan")), ValueError, ["weights", "finite"]),
        (_with(weights=-EX["weights"]), ValueError, ["weights", "nonnegative"]),
        (_with(weights=EX["weights"] * 2), ValueError, ["weights", "sum to 1", "2.00"]),
        (
            _with(weights=torch.tensor([0.25, 0.25, 0.25, 0.25])),
            ValueError,
            ["weights", "masked", "key 3"],
        ),
        (_with(weights=torch.tensor([0.5, 0.25, 0.25, 0.0])), ValueError, ["softmax", "scores"]),
        (_with(output=EX["output"] * 2), ValueError, ["output", "weighted average"]),
        (_with(valid_len=9), ValueError, ["valid_len", "0 .. 4", "9"]),
        (_with(valid_len=-1), ValueError, ["valid_len", "-1"]),
        (_with(valid_len="x"), TypeError, ["valid_len", "'x'"]),
        (_with(values=EX["values"][:2]), ValueError, ["values", "(4, d_v)", "(2, 2)"]),
        (_with(keys=EX["keys"][:, 0]), ValueError, ["keys", "(n, d)", "(4,)"]),
        (
            _with(
                keys=EX["keys"][:0],
                scores=EX["scores"][:0],
                weights=EX["weights"][:0],
                values=EX["values"][:0],
                valid_len=None,
            ),
            ValueError,
            ["keys", "at least one"],
        ),
        (_with(weights="abcd"), TypeError, ["weights", "numbers"]),
        (_with(scores=EX["scores"] * float("inf")), ValueError, ["scores", "finite"]),
        (_with(scoring=3), TypeError, ["scoring", "str", "int"]),
    ],
)
def test_draw_pipeline_refuses_inconsistent_examples(example, exc, words):
    with raises(exc, "draw_pipeline", *words):
        D.draw_pipeline(example)


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(figsize=(math.inf, 2)), ValueError, ["figsize", "inf"]),
        (dict(figsize=(0, 2)), ValueError, ["figsize"]),
        (dict(figsize=(True, 2)), TypeError, ["figsize", "bool"]),
        (dict(title=5), TypeError, ["title", "str", "int"]),
    ],
)
def test_draw_pipeline_options(kwargs, exc, words):
    with raises((TypeError, ValueError), "draw_pipeline", *words):
        D.draw_pipeline(EX, **kwargs)


@pytest.mark.parametrize("scoring", ["dot_product", "gaussian", "additive"])
@pytest.mark.parametrize("valid_len", [None, 0, 1, 4])
def test_every_example_of_pipeline_example_is_drawn(scoring, valid_len):
    fig = D.draw_pipeline(
        D.pipeline_example(scoring, valid_len=valid_len), title="t", figsize=(np.float64(9), 3)
    )
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any("sum = " in t for t in texts)


def test_draw_pipeline_accepts_lists_and_arrays():
    ex = {k: (v.tolist() if isinstance(v, torch.Tensor) else v) for k, v in EX.items()}
    D.draw_pipeline(ex)
    D.draw_pipeline({k: (v.numpy() if isinstance(v, torch.Tensor) else v) for k, v in EX.items()})


# ----------------------------------------------------------------------------- chapter 7
SOURCE, WRITTEN = "22 Nov 2026", "2026-11-"
W11 = [1.0] + [0.0] * 10


@pytest.mark.parametrize(
    "source, written, weights, exc, words",
    [
        (None, WRITTEN, W11, TypeError, ["source", "non-empty string", "NoneType"]),
        (list(SOURCE), WRITTEN, W11, TypeError, ["source", "string", "list"]),
        ("", WRITTEN, [], ValueError, ["source", "non-empty", "''"]),
        (SOURCE, None, W11, TypeError, ["written", "string", "NoneType"]),
        (SOURCE, 3, W11, TypeError, ["written", "string", "int"]),
        (SOURCE, WRITTEN, "abc", TypeError, ["weights", "numbers", "str"]),
        (SOURCE, WRITTEN, None, TypeError, ["weights", "numbers", "NoneType"]),
        (SOURCE, WRITTEN, [[1.0], [0.0, 1.0]], TypeError, ["weights", "numbers"]),
        (SOURCE, WRITTEN, W11[:10], ValueError, ["weights", "(11,)", "(10,)", SOURCE]),
        (SOURCE, WRITTEN, [W11], ValueError, ["weights", "(11,)", "(1, 11)"]),
        (SOURCE, WRITTEN, 1.0, ValueError, ["weights", "(11,)", "()"]),
        (SOURCE, WRITTEN, [float("nan")] + W11[1:], ValueError, ["weights", "finite"]),
        (SOURCE, WRITTEN, [float("inf")] + W11[1:], ValueError, ["weights", "finite"]),
        (SOURCE, WRITTEN, [2.0, -1.0] + W11[2:], ValueError, ["weights", "nonnegative", "-1"]),
        (SOURCE, WRITTEN, [0.5] + W11[1:], ValueError, ["weights", "sum to 1", "0.5"]),
        (SOURCE, WRITTEN, [1j] + W11[1:], TypeError, ["weights", "numbers"]),
    ],
)
def test_draw_encoder_decoder_refuses_bad_steps(source, written, weights, exc, words):
    with raises(exc, "draw_encoder_decoder", *words):
        ch07_diagram.draw_encoder_decoder(source, written, weights)


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(next_char=2), TypeError, ["next_char", "string", "int"]),
        (dict(title=5), TypeError, ["title", "string", "int"]),
        (dict(figsize=(math.nan, 4)), ValueError, ["figsize", "nan"]),
        (dict(figsize=(9, 0)), ValueError, ["figsize"]),
        (dict(figsize=(9,)), ValueError, ["figsize", "got one item", "(9,)"]),
        (dict(figsize="9x4"), TypeError, ["figsize", "str"]),
    ],
)
def test_draw_encoder_decoder_options(kwargs, exc, words):
    with raises(exc, "draw_encoder_decoder", *words):
        ch07_diagram.draw_encoder_decoder(SOURCE, WRITTEN, W11, **kwargs)


@pytest.mark.parametrize(
    "weights",
    [
        W11,
        np.array(W11, dtype=np.float32),
        torch.tensor(W11, requires_grad=True),  # a model's output, still in the graph
        torch.softmax(torch.arange(11.0), 0),  # sums to 1 within float32's rounding
    ],
    ids=["list", "float32-array", "tensor-with-grad", "softmax"],
)
def test_draw_encoder_decoder_accepts_weights_of_any_kind(weights):
    fig = ch07_diagram.draw_encoder_decoder(SOURCE, "", weights)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "previous character <bos>" in texts and "writes the next character" in texts


def test_draw_encoder_decoder_leaves_the_global_generator_alone():
    with global_rng_untouched():
        ch07_diagram.draw_encoder_decoder(SOURCE, WRITTEN, W11, next_char="2")


def test_draw_encoder_decoder_draws_dollars_and_newlines_as_they_are():
    """A "$" would start matplotlib's maths and a newline break the row: both are drawn
    as characters (the figure renders, in every variant)."""
    from attnlib.plotting.variants import drawn_texts, figure_variants

    fig = ch07_diagram.draw_encoder_decoder("a$b\nc", "x$", [0.2] * 5, next_char="$")
    shown = [t for t, _, _ in drawn_texts(fig)]
    assert r"\$" in shown and r"\n" in shown  # matplotlib draws "\$" as "$"
    assert r"previous character '\$'" in shown and r"writes '\$'" in shown
    assert len(figure_variants(fig)) == 3
