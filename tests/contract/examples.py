"""One valid example call for every public callable of attnlib, and the decisions taken on
its bad inputs. ``test_contract.py`` fails when a public callable has no entry here.

How a new public function joins the harness
-------------------------------------------
Add one entry to ``EXAMPLES`` under the callable's defining name,
``f"{obj.__module__}.{obj.__qualname__}"`` (a re-export, e.g. ``attnlib.masked_softmax``, is
covered by the entry of ``attnlib.masking.masked_softmax``)::

    "attnlib.scoring.cosine_scores": Example(
        lambda: ((Q(), K()), {"eps": 1e-8}),          # fresh (args, kwargs) on every call
        check=lambda r: shape(r, (2, 3, 4)),           # optional: the valid result is right
        decisions={("eps", "zero"): ("accept", "eps=0 is the plain cosine")},
        text_args=("title",),                          # strings that reach a page
        skip_args={"model": "a trained model: attacked in tests/robustness"},
    ),

The harness then calls it once as given (it must pass), and once per bad value of each
argument, one argument at a time (``_engine.bad_values``: None where None is not the
default, a str for a number/sequence/tensor, bool for a number, NaN/inf, zero, negative,
huge, empty, one-shorter sequences, a longer last axis, numpy scalars and 0-d tensors, control
characters and markup for ``text_args``). Each must be refused with a TypeError/ValueError
naming the argument, or accepted with a finite result, inputs and global generators unchanged.
A perturbation whose outcome is a deliberate design choice is recorded in ``decisions`` with
its reason: ``"refuse"``/``"accept"`` are asserted, ``"not run"`` is for a perturbation
that cannot be run in a unit test (a huge training run). Keep examples tiny: the whole
harness runs in seconds.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools

import numpy as np
import torch

from ._engine import Example

REASON_COUNT = "a long run is the caller's choice; a huge count only takes long"
#: attacking every argument would train three models per bad value: too slow for the unit step
SLOW_TRAINING = "each call trains three models; too slow to attack in the unit-test step"
#: the length experiment's models: a wrong kind is attacked where the experiment is tested
LENGTHS_MODEL_ARG = "a model; the wrong kind is attacked in tests/book/test_ch08_lengths.py"
#: nn.Module constructors (and what builds one) draw their initial parameters from torch's
#: global generator, as every torch.nn layer does: torch.manual_seed(s) reproduces a model
#: the core's tensor maths lets a NaN/inf entry through, as torch's own operations do
NAN_IN_NAN_OUT = (
    "tensor maths propagates a NaN/inf entry as torch does; a finiteness check of every "
    "input would cost a full pass per call inside training loops"
)
MODULE_INIT = "initial parameters from torch's global generator, as torch.nn layers draw them"


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


def T(*shape, seed=0):
    return torch.rand(*shape, generator=_g(seed))


def _tie(*extra):
    """``() -> (args, kwargs)`` of a scoring function whose queries 0-2 equal keys 0-2:
    (queries (2, 3, 4), keys (2, 5, 4), *extra)."""

    def call():
        k = T(2, 5, 4, seed=1)  # (2, 5, 4)
        return (k[:, :3].clone(), k, *(e() for e in extra)), {}

    return call


def _weights_ok(r):
    w = r[1] if isinstance(r, tuple) else r
    torch.testing.assert_close(w.sum(-1), torch.ones(w.shape[:-1], dtype=w.dtype))


# ------------------------------------------------------------------ small shared objects


def _gaussian_reference():
    from attnlib.scoring import gaussian_scores

    return gaussian_scores


def _score_arg():
    from attnlib.widgets.live_scores import ScoreArg

    return ScoreArg("sigma", default=1.0)


@functools.cache
def _date_model():
    from scoringbook import ch07_dates

    with torch.random.fork_rng():
        torch.manual_seed(0)
        m = ch07_dates.DateModel(attention=True, embed_size=4, num_hiddens=8)
        src, lens = ch07_dates.encode_sources(["22 Nov 2026", "3 Jan 1999"])
        tgt = ch07_dates.encode_targets(["2026-11-22", "1999-01-03"])
        m(src, lens, tgt)
    return m


@functools.cache
def _number_models():
    from scoringbook import ch08_numbers

    with torch.random.fork_rng():
        torch.manual_seed(0)
        att = ch08_numbers.NumberModel(attention=True, embed_size=4, num_hiddens=8)
        plain = ch08_numbers.NumberModel(attention=False, embed_size=4, num_hiddens=8)
        src, lens = ch08_numbers.encode_spoken(["12", "3"])
        tgt = ch08_numbers.encode_digits(["12", "3"])
        att(src, lens, tgt)
        plain(src, lens, tgt)
    return att, plain


def _log():
    from scoringbook import ch07_dates
    from scoringbook import seq2seq as s2s

    w = torch.softmax(torch.randn(1, ch07_dates.N_OUT, 11, generator=_g()), -1)
    return s2s.TrainLog(losses=[2.0 - 0.05 * i for i in range(20)], checkpoints=[(0, w), (20, w)])


def _decl():
    from attnlib import widgets as W

    return W.Declaration(
        "d",
        lambda s: {"h": np.array([[s, 1.0 - s]])},
        [W.Slider("s", [0.0, 0.25, 1.0])],
        [W.Heatmap("h")],
    )


def _figure():
    from attnlib.plotting import plot_lines

    return plot_lines(T(3), {"y": T(3, seed=1)}, xlabel="x", ylabel="y", figsize=(2, 1.5))


def _shell():
    """A stand-in for IPython's shell: what book_figures registers its formatter with."""
    from types import SimpleNamespace

    from IPython.core.formatters import PNGFormatter

    return SimpleNamespace(
        display_formatter=SimpleNamespace(formatters={"image/png": PNGFormatter()})
    )


# --------------------------------------------------------------------------- the library

_LIB = {
    "attnlib.masking.masked_softmax": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: ((T(2, 3, 4),), {"valid_lens": torch.tensor([2, 3])}),
        check=_weights_ok,
    ),
    "attnlib.masking.valid_lens_to_mask": Example(
        lambda: ((torch.tensor([1, 3]), 2, 4), {}),
    ),
    "attnlib.scoring.dot_product_scores": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: ((T(2, 3, 4), T(2, 5, 4, seed=1)), {}),
        tie=_tie(),
    ),
    "attnlib.scoring.additive_scores": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: (
            (T(2, 3, 4), T(2, 5, 6, seed=1), T(8, 4, seed=2), T(8, 6, seed=3), T(8, seed=4)),
            {},
        ),
        tie=_tie(lambda: T(8, 4, seed=2), lambda: T(8, 4, seed=3), lambda: T(8, seed=4)),
    ),
    "attnlib.scoring.bilinear_scores": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: ((T(2, 3, 4), T(2, 5, 6, seed=1), T(4, 6, seed=2)), {}),
        tie=_tie(lambda: T(4, 4, seed=2)),
    ),
    "attnlib.scoring.gaussian_scores": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: ((T(2, 3, 4), T(2, 5, 4, seed=1)), {"sigma": 0.5}),
        tie=_tie(lambda: torch.tensor(0.5)),
    ),
    "attnlib.scoring.laplace_scores": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: ((T(2, 3, 4), T(2, 5, 4, seed=1)), {"sigma": 0.5}),
        check=lambda r: torch.testing.assert_close(  # -||q - k|| / sigma, written out
            r, -(T(2, 3, 4)[:, :, None] - T(2, 5, 4, seed=1)[:, None]).norm(dim=-1) / 0.5
        ),
        tie=_tie(lambda: torch.tensor(0.5)),
    ),
    "attnlib.pooling.attention_pool": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: ((T(2, 3, 5), T(2, 5, 2, seed=1)), {"valid_lens": torch.tensor([2, 5])}),
        check=_weights_ok,
    ),
    "attnlib.attention.dot_product_attention": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: (
            (T(2, 3, 4), T(2, 5, 4, seed=1), T(2, 5, 2, seed=2), torch.tensor([2, 5])),
            {},
        ),
        check=_weights_ok,
    ),
    "attnlib.attention.DotProductAttention": Example(
        torch_rng=MODULE_INIT, call=lambda: ((), {"dropout": 0.1})
    ),
    "attnlib.additive.AdditiveAttention": Example(
        torch_rng=MODULE_INIT,
        call=lambda: ((), {"key_size": 4, "query_size": 4, "num_hiddens": 8, "dropout": 0.0}),
    ),
    "attnlib.kernels.gaussian": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT, call=lambda: ((torch.linspace(-2, 2, 9),), {})
    ),
    "attnlib.kernels.boxcar": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT, call=lambda: ((torch.linspace(-2, 2, 9),), {})
    ),
    "attnlib.kernels.constant": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT, call=lambda: ((torch.linspace(-2, 2, 9),), {})
    ),
    "attnlib.kernels.epanechnikov": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT, call=lambda: ((torch.linspace(-2, 2, 9),), {})
    ),
    "attnlib.kernels.triangular": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT, call=lambda: ((torch.linspace(-2, 2, 9),), {})
    ),
    "attnlib.kernels.log_kernel": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: ((torch.linspace(-2, 2, 9),), {"kernel": "gaussian"}),
    ),
    "attnlib.kernel_regression.nadaraya_watson": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: (
            (T(6), T(6, seed=1), T(3, seed=2)),
            {"kernel": "gaussian", "bandwidth": 0.5},
        ),
        check=_weights_ok,
    ),
    "attnlib.kernel_regression.NadarayaWatson": Example(
        torch_rng=MODULE_INIT,
        call=lambda: ((), {"kernel": "boxcar", "bandwidth": 0.5, "exclude_self": True}),
    ),
}

# ------------------------------------------------------------------------- widget toolkit


def _lines_update(s):
    return {"l": {"y": np.ones(3) * s}}


_WIDGETS = {
    "attnlib.widgets.controls.Slider": Example(
        lambda: (("s", [0.0, 0.5, 1.0]), {"label": "strength", "default": 0.5}),
        text_args=("label",),
    ),
    "attnlib.widgets.controls.Choice": Example(
        lambda: (("c", ["a", "b"]), {"label": "kind", "option_labels": ["A", "B"]}),
        text_args=("label",),
    ),
    "attnlib.widgets.controls.Text": Example(
        lambda: (("t", "the cat sat"), {"label": "sentence", "suggestions": ["a dog"]}),
        text_args=("label", "default"),
    ),
    "attnlib.widgets.panels.Heatmap": Example(
        lambda: (("h",), {"xlabel": "keys", "row_labels": ["q1", "q2"], "vmax": 1.0}),
        text_args=("xlabel", "ylabel", "colorbar_label"),
    ),
    "attnlib.widgets.panels.Lines": Example(
        lambda: (("l",), {"x": [0.0, 1.0, 2.0], "series": ["y"], "xlabel": "x"}),
        text_args=("xlabel", "ylabel"),
    ),
    "attnlib.widgets.caption.Caption": Example(lambda: (("c",), {"title": "a caption"})),
    "attnlib.widgets.caption.LabelledMatrix": Example(
        lambda: ((np.eye(2), ["a", "b"], ["x", "y"]), {})
    ),
    "attnlib.widgets.series.Series": Example(lambda: (("y",), {"width": 2.0})),
    "attnlib.widgets.series.FixedSeries": Example(
        lambda: (("f", [0.0, 1.0], [1.0, 2.0]), {"width": 1.5})
    ),
    "attnlib.widgets.series.Handle": Example(lambda: (("x", "y"), {"label": "the query"})),
    "attnlib.widgets.series.Spokes": Example(lambda: (("keys", "w"), {})),
    "attnlib.widgets.declaration.Declaration": Example(
        lambda: (
            ("d", _lines_update_fn(), _slider(), _lines_panel()),
            {"title": "an explorer"},
        ),
        text_args=("title",),
    ),
    "attnlib.widgets.widget.Explorer": Example(lambda: ((_decl(),), {})),
    "attnlib.widgets.encoding.encode_frames": Example(lambda: ((np.full((2, 3), 0.25),), {})),
    "attnlib.widgets.encoding.decode_frames": Example(lambda: ((_encoded(),), {})),
    "attnlib.widgets.controls.ExplorerError": Example(lambda: (("message",), {})),
    "attnlib.widgets.page.standalone_html": Example(lambda: ((_explorer(),), {})),
    "attnlib.widgets.live.LiveAttention": Example(
        lambda: (
            (np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([[0.0, 1.0], [1.0, 0.0]])),
            {"query": ("x", "y"), "weights": "w", "output": ("p", "s")},
        )
    ),
    "attnlib.widgets.live_scores.ScoreArg": Example(lambda: (("sigma",), {"default": 1.0})),
    "attnlib.widgets.live_scores.LiveScore": Example(
        lambda: (
            ("gaussian", _gaussian_reference(), "gaussian"),
            {"args": (_score_arg(),), "label": "Gaussian"},
        )
    ),
    "attnlib.widgets.live.LiveKernelRegression": Example(
        lambda: (
            (),
            dict(
                x_train=[0.0, 1.0],
                y_train=[0.0, 1.0],
                query="q",
                kernel="k",
                bandwidth="b",
                fit=("f", "a"),
                marker=("f", "b"),
                bars=("w", "c"),
                window=("f", "d"),
                weights="h",
                heat_x=[0.5],
            ),
        )
    ),
    "attnlib.widgets.live_masking.LiveMasking": Example(
        lambda: ((("s",), ("w",)), {"max_tokens": 6, "d": 8})
    ),
    "attnlib.widgets.live.kernel_window": Example(
        lambda: ((torch.tensor([0.0, 1.0]), 0.5, "gaussian", 0.5, (-1.0, 2.0)), {})
    ),
    "attnlib.widgets.live_masking.tokens": Example(lambda: (("the cat sat", 6), {})),
    "attnlib.widgets.live_masking.fold": Example(lambda: (("Café",), {})),
    "attnlib.widgets.live_masking.word_vector": Example(lambda: (("cat", 8), {})),
}


def _lines_update_fn():
    return _lines_update


def _slider():
    from attnlib import widgets as W

    return [W.Slider("s", [0.0, 1.0])]


def _lines_panel():
    from attnlib import widgets as W

    return [W.Lines("l", x=[0.0, 1.0, 2.0], series=["y"])]


def _encoded():
    from attnlib.widgets import encode_frames

    return encode_frames(np.full((2, 3), 0.25))


def _explorer():
    from attnlib import widgets as W

    return W.Explorer(_decl())


# ----------------------------------------------------------------------------- plotting


def _kit():
    from attnlib.plotting import kit

    return kit


def _kit_figure():
    return _kit().new_figure((2, 1.5), managed=False)


def _kit_draw(theme, narrow, managed):
    kit = _kit()
    fig = kit.new_figure((kit.NARROW_WIDTH if narrow else 3, 1), managed=managed)
    fig.add_subplot().plot([0, 1], color=kit.series_colour(kit.OKABE_ITO[1], theme))
    kit.finish_figure(fig, theme)
    return fig


_PLOTTING = {
    "attnlib.plotting._figure.NotebookFigure": Example(lambda: ((), {"figsize": (2, 1.5)})),
    "attnlib.plotting.kit.new_figure": Example(
        lambda: (((2, 1.5),), {"managed": False}),
        check=lambda r: r.get_size_inches().tolist() == [2.0, 1.5],
    ),
    "attnlib.plotting.kit.finish_figure": Example(
        lambda: ((_kit_figure(), _kit().DARK), {}),
        decisions={("fig", "wrong type"): ("refuse", "only an attnlib figure has the kit's repr")},
    ),
    "attnlib.plotting.kit.drawn_figure": Example(
        lambda: ((_kit_draw,), {}),
        check=lambda r: r._attnlib_redraw is _kit_draw,
    ),
    "attnlib.plotting.kit.series_colour": Example(
        lambda: (("#E69F00", _kit().DARK), {"minimum": 4.5}),
        check=lambda r: isinstance(r, str) and r.startswith("#"),
    ),
    "attnlib.plotting.heatmaps.show_heatmaps": Example(
        lambda: ((T(1, 2, 3, 4), "keys", "queries"), {"titles": ["a", "b"], "figsize": (2, 2)}),
        text_args=("xlabel", "ylabel"),
    ),
    "attnlib.plotting.lines.plot_lines": Example(
        lambda: ((T(5), {"y": T(5, seed=1)}), {"xlabel": "x", "ylabel": "y", "title": "t"}),
        text_args=("xlabel", "ylabel"),
    ),
    "attnlib.plotting.lines.plot_regression": Example(
        lambda: ((T(5), T(5, seed=1), torch.linspace(0, 1, 7), {"fit": T(7, seed=2)}), {}),
    ),
    "attnlib.plotting.histograms.plot_histograms": Example(
        lambda: (({"a": T(50)},), {"xlabel": "x", "bins": 10}),
        text_args=("xlabel",),
    ),
    "attnlib.plotting.lines.plot_kernels": Example(
        lambda: ((torch.linspace(-2, 2, 9), {"k": torch.linspace(0, 1, 9)}), {})
    ),
    "attnlib.plotting.variants.figure_variants": Example(lambda: ((_figure(),), {})),
    "attnlib.plotting.variants.render_png": Example(lambda: ((_figure(),), {})),
    "attnlib.plotting.variants.book_figures": Example(
        lambda: ((), {"shell": _shell()}),
        mutates={"shell": "registers attnlib's PNG formatter with the shell: its purpose"},
    ),
}

# --------------------------------------------------------------------------------- book


def _explorer_fn(**kw):
    return Example(lambda: ((), kw))


def _kernel(u):
    return torch.exp(-(u**2) / 2)


def _softmax(X, valid_lens=None):
    from attnlib import masked_softmax

    return masked_softmax(X, valid_lens)


def _dot(q, k):
    return q @ k.transpose(-1, -2)


def _additive_factory(n):
    from attnlib import AdditiveAttention

    return AdditiveAttention(key_size=n, query_size=n, num_hiddens=8, dropout=0.0)


_BOOK = {
    # chapter 1
    "scoringbook.ch01_queries_keys_values.soft_lookup_declaration": Example(
        lambda: ((), {"seed": 0, "n_keys": 4})
    ),
    "scoringbook.ch01_queries_keys_values.soft_lookup_explorer": _explorer_fn(n_keys=3),
    "scoringbook.ch01_queries_keys_values.softmax_temperature_declaration": Example(
        lambda: ((), {"seed": 0, "n_queries": 2, "n_keys": 3, "n_temperatures": 5})
    ),
    "scoringbook.ch01_queries_keys_values.softmax_temperature_explorer": _explorer_fn(
        n_queries=2, n_keys=3, n_temperatures=5
    ),
    "scoringbook.ch01_exercises.check_weights": Example(
        lambda: ((torch.softmax(T(2, 3, 4), -1),), {})
    ),
    # chapter 2
    "scoringbook.ch02_attention_pooling.kernel_regression_declaration": Example(
        lambda: ((), {"seed": 0, "n_train": 8, "n_heat_queries": 4, "n_bandwidths": 3})
    ),
    "scoringbook.ch02_attention_pooling.kernel_regression_explorer": _explorer_fn(
        n_train=8, n_heat_queries=4, n_bandwidths=3
    ),
    "scoringbook.ch02_attention_pooling.bandwidth_training_declaration": Example(
        lambda: ((), {"seed": 0, "n_train": 8, "steps": 5, "lr": 0.1})
    ),
    "scoringbook.ch02_attention_pooling.bandwidth_training_explorer": _explorer_fn(
        n_train=8, steps=5
    ),
    "scoringbook.ch02_attention_pooling.sigma_text": Example(
        lambda: ((0.486,), {}), check=lambda r: r == "0.49"
    ),
    "scoringbook.ch02_exercises.check_kernel": Example(lambda: ((_kernel, "gaussian"), {})),
    # chapter 3
    "scoringbook.ch03_masked_softmax.masking_declaration": Example(
        lambda: ((), {"max_tokens": 4, "d": 4})
    ),
    "scoringbook.ch03_masked_softmax.masking_explorer": _explorer_fn(max_tokens=4, d=4),
    "scoringbook.ch03_masked_softmax.check_masked_softmax": Example(lambda: ((_softmax,), {})),
    # chapter 4
    "scoringbook.ch04_additive_attention.additive_attention_declaration": Example(
        lambda: ((), {"seed": 0, "n_keys": 3, "hiddens": (2, 4), "n_angles": 4})
    ),
    "scoringbook.ch04_additive_attention.additive_attention_explorer": _explorer_fn(
        n_keys=3, hiddens=(2, 4), n_angles=4
    ),
    "scoringbook.ch04_additive_attention.check_scores": Example(
        lambda: ((_dot, "dot_product"), {})
    ),
    # chapter 5
    "scoringbook.ch05_scaled_dot_product.scaling_declaration": Example(
        lambda: ((), {"seed": 0, "n_samples": 20, "n_queries": 2, "n_keys": 3, "dims": (2, 4)})
    ),
    "scoringbook.ch05_scaled_dot_product.scaling_explorer": _explorer_fn(
        n_samples=20, n_queries=2, n_keys=3, dims=(2, 4)
    ),
    "scoringbook.ch05_scaled_dot_product.scoring_comparison_declaration": Example(
        lambda: ((), {"seed": 0, "num_hiddens": 4})
    ),
    "scoringbook.ch05_scaled_dot_product.scoring_comparison_explorer": _explorer_fn(num_hiddens=4),
    # chapter 6: its explorers
    "scoringbook.ch06_explorers.long_key_declaration": Example(
        lambda: ((), {"temperature": 0.5, "radius": 1.0})
    ),
    "scoringbook.ch06_explorers.long_key_explorer": _explorer_fn(temperature=0.5),
    "scoringbook.ch06_explorers.scaling_d_declaration": Example(
        lambda: ((), {"seed": 0, "n_keys": 3, "n_rows": 4, "dims": (2, 4)})
    ),
    "scoringbook.ch06_explorers.scaling_d_explorer": _explorer_fn(n_keys=3, n_rows=4, dims=(2, 4)),
    # chapter 7: the playback and its checkers
    "scoringbook.ch07_bahdanau.alignment_playback_declaration": Example(
        lambda: ((_log(), "22 Nov 2026", "2026-11-22"), {"index": 0}),
        text_args=("source",),
    ),
    "scoringbook.ch07_bahdanau.alignment_playback_explorer": Example(
        lambda: ((_log(), "22 Nov 2026", "2026-11-22"), {"index": 0}),
    ),
    "scoringbook.ch07_bahdanau.chapter_playback_declaration": Example(lambda: ((), {})),
    "scoringbook.ch07_exercises.check_alignment": Example(
        lambda: ((torch.eye(10, 11), "22 Nov 2026"), {})
    ),
    "scoringbook.ch07_exercises.check_attention_module": Example(
        lambda: ((_additive_factory,), {"steps": 3, "seed": 0}),
        decisions={("steps", "huge"): ("not run", REASON_COUNT)},
    ),
    # chapter 8: the number-reading models
    "scoringbook.ch08_numbers.random_numbers": Example(lambda: ((3, 1, 4, _g()), {})),
    "scoringbook.ch08_numbers.held_out_numbers": Example(
        lambda: ((3, 2, {"12", "34"}, _g()), {}),
        decisions={
            ("n", "huge"): ("not run", REASON_COUNT),
            ("k", "huge"): ("not run", REASON_COUNT),
        },
    ),
    "scoringbook.ch08_numbers.test_sets": Example(
        lambda: ((["12", "345"], _g()), {"n": 2}),
        decisions={("n", "huge"): ("not run", REASON_COUNT)},
    ),
    "scoringbook.ch08_numbers.spell": Example(lambda: (("1203",), {})),
    "scoringbook.ch08_numbers.encode_spoken": Example(lambda: ((["12", "3"],), {})),
    "scoringbook.ch08_numbers.encode_digits": Example(lambda: ((["12", "3"],), {})),
    "scoringbook.ch08_numbers.NumberModel": Example(
        torch_rng=MODULE_INIT,
        call=lambda: ((), {"attention": True, "embed_size": 4, "num_hiddens": 8}),
    ),
    "scoringbook.ch08_numbers.read_numbers": Example(
        lambda: ((_number_models()[0], ["12", "3"]), {"extra": 2}),
        skip_args={"model": "a model; the wrong kind is attacked in tests/robustness"},
    ),
    "scoringbook.ch08_numbers.scores": Example(lambda: ((["12", "4"], ["12", "3"]), {})),
    "scoringbook.ch08_numbers.word_weights": Example(
        lambda: ((torch.softmax(T(3, 9), -1), "12"), {})
    ),
    "scoringbook.ch08_lengths.evaluate": Example(
        lambda: ((_number_models()[1], {1: ["1", "2"], 2: ["12", "34"]}), {}),
        skip_args={"model": "a model; the wrong kind is attacked in tests/robustness"},
    ),
    "scoringbook.ch08_lengths.compare_models": Example(
        lambda: (_number_data() + ({1: ["1"], 2: ["12"]},), {"seed": 0, "steps": 1}),
        decisions={("steps", "huge"): ("not run", REASON_COUNT)},
        skip_args=dict.fromkeys(
            ("src", "src_lens", "tgt", "tests", "seeds", "workers"), SLOW_TRAINING
        ),
    ),
    "scoringbook.ch08_lengths.compare_seeds": Example(
        lambda: (_number_data() + ({1: ["1"], 2: ["12"]}, [0]), {"workers": 1, "steps": 1}),
        decisions={("steps", "huge"): ("not run", REASON_COUNT)},
        skip_args=dict.fromkeys(
            ("src", "src_lens", "tgt", "tests", "seeds", "workers"), SLOW_TRAINING
        ),
    ),
    "scoringbook.ch08_lengths.results_table": Example(lambda: ((_results(), _tests16()), {})),
    "scoringbook.ch08_lengths.ResultsTable": Example(
        lambda: (([("a", "model a", [(0.5, 0.4, 0.6)])], ["1-4"]), {})
    ),
    "scoringbook.ch08_numbers.wrong_by_position": Example(
        lambda: ((["12", "45"], ["12", "35"]), {})
    ),
    "scoringbook.ch08_lengths.length_declaration": Example(
        lambda: (
            (
                *_number_models(),
                {1: ["7", "0"], 2: ["12", "90"]},
                {"with attention": torch.tensor([1.0, 0.5]), "without": torch.zeros(2)},
            ),
            {"train_max": 1},
        ),
        skip_args={
            "with_attention": LENGTHS_MODEL_ARG,
            "without_attention": LENGTHS_MODEL_ARG,
        },
    ),
    "scoringbook.ch08_lengths.length_explorer": Example(
        lambda: (
            (
                *_number_models(),
                {1: ["7", "0"], 2: ["12", "90"]},
                {"with attention": torch.tensor([1.0, 0.5]), "without": torch.zeros(2)},
            ),
            {"train_max": 1},
        ),
    ),
    "scoringbook.ch08_lengths.chapter_length_declaration": Example(lambda: ((), {})),
    # chapters 7 and 8: the encoder-decoder; chapter 7: the date task
    "scoringbook.ch07_dates.random_dates": Example(lambda: ((3, _g()), {})),
    "scoringbook.ch07_dates.format_source": Example(
        lambda: ((dt.date(2026, 11, 22),), {"style": "short"})
    ),
    "scoringbook.ch07_dates.format_target": Example(lambda: ((dt.date(2026, 11, 22),), {})),
    "scoringbook.ch07_dates.random_sources": Example(
        lambda: (([dt.date(2026, 11, 22), dt.date(1999, 1, 3)], _g()), {})
    ),
    "scoringbook.ch07_dates.held_out_examples": Example(
        lambda: ((3, _g(), ["22 Nov 2026", "3 Jan 1999"]), {}),
        decisions={("n", "huge"): ("not run", REASON_COUNT)},
    ),
    "scoringbook.ch07_dates.encode_sources": Example(lambda: ((["22 Nov 2026", "3 Jan"],), {})),
    "scoringbook.ch07_dates.encode_targets": Example(
        lambda: ((["2026-11-22", "1999-01-03"],), {})
    ),
    "scoringbook.ch07_dates.implied_alignment": Example(lambda: (("22 Nov 2026",), {})),
    "scoringbook.seq2seq.Encoder": Example(
        torch_rng=MODULE_INIT, call=lambda: ((10, 4, 8), {"num_layers": 1})
    ),
    "scoringbook.seq2seq.AttentionDecoder": Example(
        torch_rng=MODULE_INIT, call=lambda: ((10, 4, 8), {"num_layers": 1, "dropout": 0.0})
    ),
    "scoringbook.seq2seq.ContextDecoder": Example(
        torch_rng=MODULE_INIT, call=lambda: ((10, 4, 8), {"num_layers": 1, "dropout": 0.0})
    ),
    "scoringbook.seq2seq.UniformAttention": Example(torch_rng=MODULE_INIT, call=lambda: ((), {})),
    "scoringbook.seq2seq.EncoderDecoder": Example(
        torch_rng=MODULE_INIT, call=lambda: ((10, 12), {"embed_size": 4, "num_hiddens": 8})
    ),
    "scoringbook.ch07_dates.DateModel": Example(
        torch_rng=MODULE_INIT,
        call=lambda: ((), {"embed_size": 4, "num_hiddens": 8, "dropout": 0.0}),
    ),
    "scoringbook.seq2seq.TrainLog": Example(lambda: ((), {"losses": [1.0, 0.5], "seconds": 0.1})),
    "scoringbook.seq2seq.train": Example(
        lambda: (
            (_date_model_copy(), *_date_data()),
            {"steps": 2, "batch_size": 2, "lr": 0.01, "generator": _g()},
        ),
        decisions={("steps", "huge"): ("not run", REASON_COUNT)},
        mutates={"model": "train updates the model's parameters: its purpose"},
    ),
    "scoringbook.ch07_dates.translate": Example(
        lambda: ((_date_model(), ["22 Nov 2026"]), {}),
        skip_args={"model": "a model; the wrong kind is attacked in tests/robustness"},
    ),
    "scoringbook.ch07_dates.accuracy": Example(
        lambda: ((_date_model(), ["22 Nov 2026"], [dt.date(2026, 11, 22)]), {}),
        skip_args={"model": "a model; the wrong kind is attacked in tests/robustness"},
    ),
    "scoringbook.seq2seq.uniform_rows": Example(lambda: ((_date_model(), [8]), {})),
    "scoringbook.ch07_dates.permuted_rows": Example(lambda: ((_date_model(), [8], _g()), {})),
    # claims, diagrams, glue, registry
    "scoringbook.claims.Claim": Example(lambda: (("c", "says", 0.5, ">=", 0.1), {})),
    "scoringbook.claims.check": Example(lambda: (([_claim()],), {})),
    "scoringbook.claims.bucket_means": Example(lambda: ((T(16, 2),), {})),
    "scoringbook.claims.first_focused": Example(
        lambda: (([(0, torch.eye(10, 11)[None])], torch.eye(10, 11), [0, 1]), {"level": 0.5})
    ),
    "scoringbook.claims.date_claims": Example(lambda: ((0.9, T(10), T(10, seed=1)), {})),
    "scoringbook.claims.permutation_claims": Example(lambda: ((T(10), T(10, 5, seed=1)), {})),
    "scoringbook.claims.playback_claims": Example(
        lambda: (([2.5, 1.0], [(0, torch.eye(10, 11)[None])], torch.eye(10, 11)), {})
    ),
    "scoringbook.claims.length_claims": Example(lambda: ((_results(),), {})),
    "scoringbook.claims.bandwidth_claims": Example(
        lambda: (
            (([1.0] * 101, [0.5] * 100), ([1.0 - 0.005 * i for i in range(101)], [0.5] * 100)),
            {},
        )
    ),
    "scoringbook.diagrams.draw_pipeline": Example(
        lambda: ((_pipeline(),), {"title": "t"}), text_args=("title",)
    ),
    "scoringbook.diagrams.pipeline_example": Example(lambda: (("dot_product",), {"valid_len": 2})),
    "scoringbook.ch07_diagram.draw_encoder_decoder": Example(
        lambda: (("22 Nov 2026", "2026-11-", torch.softmax(T(11), -1)), {"next_char": "2"}),
        text_args=("title",),
    ),
    "scoringbook.glue.glue": Example(lambda: (("contract_name", "0.50"), {})),
    "scoringbook.registry.compute": Example(lambda: (("soft_lookup",), {})),
    # the chapter manifest
    "scoringbook.manifest.chapter": Example(lambda: ((7,), {})),
    "scoringbook.manifest.explorers": Example(lambda: (("stored", "live"), {})),
    "scoringbook.manifest.explorer": Example(lambda: (("scaling",), {})),
    "scoringbook.manifest.chapter_of": Example(lambda: (("scaling",), {})),
    "scoringbook.manifest.Explorer": Example(lambda: (("x", "stored", "ch01_x"), {})),
    "scoringbook.manifest.Section": Example(lambda: (("## A",), {"end": "## B"})),
    "scoringbook.manifest.Chapter": Example(lambda: ((10, "10_x", "X"), {"modules": ("ch10_x",)})),
}


def _claim():
    from scoringbook.claims import Claim

    return Claim("c", "says", 0.5, ">=", 0.1)


def _pipeline():
    from scoringbook.diagrams import pipeline_example

    return pipeline_example("dot_product")


def _number_data():
    from scoringbook import ch08_numbers

    src, lens = ch08_numbers.encode_spoken(["12", "3", "45"])
    return src, lens, ch08_numbers.encode_digits(["12", "3", "45"])


def _date_data():
    from scoringbook import ch07_dates

    src, lens = ch07_dates.encode_sources(["22 Nov 2026", "3 Jan 1999"])
    return src, lens, ch07_dates.encode_targets(["2026-11-22", "1999-01-03"])


def _date_model_copy():
    """A fresh copy of the sized date model (train changes it; the cached one stays as it is):
    a deep copy, not a new model (building one each call took 0.3 s of CPU, 20 s over the
    perturbations of train)."""
    return copy.deepcopy(_date_model())


def _tests16():
    return {k: ["1" * k] for k in range(1, 17)}


def _results():
    from scoringbook.ch08_lengths import MODEL_NAMES

    return {name: T(1, 16, 2, seed=i) for i, name in enumerate(MODEL_NAMES)}


# ------------------------------------------- scoring family, Transformer, chapters 6 and 9

#: a training run: every bad value of a size would train again; the valid call is enough here
TRAINS = "trains a model: each bad value would train again (seconds); tests/robustness attacks it"
#: measure_costs times and traces memory: each bad value took ~1 s, 60 s in all (the harness
#: must run in seconds); the valid call stays, its sizes are checked by
#: tests/book/test_ch06_scoring_family.py
TIMES = "times every scoring function at each size: too slow to attack in the unit-test step"
#: a huge size asks torch for petabytes; torch refuses with its own RuntimeError (as torch.zeros
#: does); a size cap would be an arbitrary limit on the caller
HUGE_SIZE = "a huge size is refused by torch's allocator (RuntimeError), as torch.zeros does"
#: TrainRun is a plain record of what train() measured (a dataclass): a diverged run's NaN
#: loss is recorded as measured, and shown as such, not refused
RECORD = "a record of what train() measured: a NaN loss is kept as measured"
RUN_ARG = "a TrainRun; the wrong kind is refused by _check_run (tests/book/test_ch10_multihead.py)"
MODEL_ARG = "a model; the wrong kind is attacked in tests/book/test_ch10_multihead.py"


@functools.cache
def _trained_tiny_run():
    from scoringbook import ch10_model as tiny

    with torch.random.fork_rng():
        return tiny.train(seed=3, steps=2, every=1, batch_size=4, n_held_out=4, watch=(10, 5))


def _tiny_run():
    """A copy of one tiny training run (trained once: each perturbation gets a fresh copy)."""
    return copy.deepcopy(_trained_tiny_run())


def _tiny_tokens(n=4):
    from scoringbook import ch10_model as tiny

    return tiny.repeated_sequences(n, _g(1), min_half=4)[0]


def _mha():
    """A built multi-head attention (its lazy maps initialised here, not in the call)."""
    import attnlib

    with torch.random.fork_rng():
        mha = attnlib.MultiHeadAttention(num_hiddens=8, num_heads=2, dropout=0.0)
        mha(torch.zeros(1, 1, 8), torch.zeros(1, 1, 8), torch.zeros(1, 1, 8))
    return mha


def _ex_split(x, H):
    b, n, d = x.shape
    return x.reshape(b, n, H, d // H).permute(0, 2, 1, 3).reshape(b * H, n, d // H)


def _ex_merge(x, H):
    bh, n, dh = x.shape
    return x.reshape(bh // H, H, n, dh).permute(0, 2, 1, 3).reshape(bh // H, n, H * dh)


def _ex_lens(b, n):
    return torch.arange(1, n + 1).repeat(b, 1)


def _ex_sdpa(n):
    return torch.ones(n, n, dtype=torch.bool).tril()


def _ex_mha(n):
    return torch.ones(n, n, dtype=torch.bool).triu(1)


def _costs():
    from scoringbook import ch06_scoring_family as fam

    return fam.measure_costs(sizes=(8,), d=4, h=4, repeats=1)


_NEW = {
    "attnlib.scoring.cosine_scores": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: ((T(2, 3, 4), T(2, 5, 4, seed=1)), {"temperature": 0.5}),
        tie=_tie(lambda: torch.tensor(0.5)),
    ),
    "attnlib.cosine.cosine_attention": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: (
            (T(2, 3, 4), T(2, 5, 4, seed=1), T(2, 5, 2, seed=2), torch.tensor([2, 5])),
            {"temperature": 0.5},
        ),
        check=_weights_ok,
    ),
    "attnlib.bilinear.bilinear_attention": Example(
        nonfinite_in_out=NAN_IN_NAN_OUT,
        call=lambda: (
            (T(2, 3, 4), T(2, 5, 6, seed=1), T(2, 5, 2, seed=2), T(4, 6, seed=3)),
            {"valid_lens": torch.tensor([2, 5])},
        ),
        check=_weights_ok,
    ),
    "attnlib.cosine.CosineAttention": Example(
        torch_rng=MODULE_INIT,
        call=lambda: ((), {"temperature": 0.5, "dropout": 0.0, "learn_temperature": True}),
    ),
    "attnlib.bilinear.GeneralAttention": Example(
        torch_rng=MODULE_INIT,
        call=lambda: ((4, 6), {"dropout": 0.0}),
        decisions={
            ("query_size", "huge"): ("not run", HUGE_SIZE),
            ("key_size", "huge"): ("not run", HUGE_SIZE),
        },
    ),
    "attnlib.transformer.MultiHeadAttention": Example(
        torch_rng=MODULE_INIT, call=lambda: ((8, 2, 0.0), {"bias": False})
    ),
    "attnlib.transformer.PositionalEncoding": Example(
        torch_rng=MODULE_INIT,
        call=lambda: ((8, 0.0), {"max_len": 16}),
        decisions={("num_hiddens", "huge"): ("not run", HUGE_SIZE)}
        | {("max_len", "huge"): ("not run", HUGE_SIZE)},
    ),
    "attnlib.transformer.sinusoidal_encoding": Example(
        lambda: ((6, 8), {}),
        decisions={("num_hiddens", "huge"): ("not run", HUGE_SIZE)}
        | {("max_len", "huge"): ("not run", HUGE_SIZE)},
    ),
    "attnlib.transformer.causal_valid_lens": Example(
        lambda: ((2, 4), {}),
        decisions={
            ("batch", "huge"): ("not run", HUGE_SIZE),
            ("n", "huge"): ("not run", HUGE_SIZE),
        },
    ),
    "attnlib.widgets.controls.Preset": Example(
        lambda: (("T = 0.05", "Notice: one strong cell per row.", {"t": 0.05}), {}),
        text_args=("label", "notice"),
    ),
    "attnlib.plotting.bars.plot_bars": Example(
        lambda: (
            (["a", "b"], {"one": [0.5, 0.25], "two": [0.75, 1.0]}),
            {"xlabel": "x", "ylabel": "y", "figsize": (2, 1.5)},
        ),
        text_args=("xlabel", "ylabel"),
    ),
    # chapter 6: the scoring family
    "scoringbook.ch06_scoring_family.location_weights": Example(
        lambda: ((torch.eye(3, 2), torch.tensor([1.0, 0.0]), 3), {}), check=_weights_ok
    ),
    "scoringbook.ch06_scoring_family.hard_attention": Example(
        lambda: ((torch.full((2, 4), 0.25), _g()), {})
    ),
    "scoringbook.ch06_scoring_family.measure_costs": Example(
        lambda: ((), {"sizes": (8, 16), "d": 4, "h": 4, "repeats": 1}),
        skip_args=dict.fromkeys(("sizes", "d", "h", "repeats"), TIMES),
    ),
    "scoringbook.ch06_scoring_family.row_entropy": Example(
        lambda: ((), {"dims": (4, 8), "n_keys": 4, "n_rows": 8, "seed": 0}),
        decisions={
            ("n_rows", "huge"): ("not run", REASON_COUNT),
            ("n_keys", "huge"): ("not run", REASON_COUNT),
        },
    ),
    "scoringbook.ch06_scoring_family.scaling_experiment": Example(
        lambda: ((), {"dims": (4,), "seeds": (0,), "steps": 2}),
        skip_args=dict.fromkeys(("dims", "seeds", "steps"), TRAINS),
    ),
    "scoringbook.ch07_bahdanau.decode_step_declaration": Example(
        lambda: ((), {"source": "3 Jan 1999"}), text_args=("source",)
    ),
    "scoringbook.ch07_bahdanau.decode_step_explorer": Example(
        lambda: ((), {"source": "3 Jan 1999"})
    ),
    # chapter 10: the attention-only model and its heads
    "scoringbook.ch10_model.repeated_sequences": Example(
        lambda: ((4, _g()), {"min_half": 4}),
        decisions={("n", "huge"): ("not run", REASON_COUNT)},
    ),
    "scoringbook.ch10_model.token_text": Example(lambda: (([0, 1],), {})),
    "scoringbook.ch10_model.AttentionOnly": Example(
        torch_rng=MODULE_INIT,
        call=lambda: ((), {"num_hiddens": 8, "num_heads": 2, "num_layers": 2, "max_len": 20}),
        decisions={
            ("num_hiddens", "huge"): ("not run", HUGE_SIZE),
            ("max_len", "huge"): ("not run", HUGE_SIZE),
            ("num_layers", "huge"): (
                "not run",
                "a deep model is the caller's choice; a huge "
                "count of layers only takes long to build",
            ),
        },
    ),
    "scoringbook.ch10_model.repeats_of_length": Example(
        lambda: ((4, 7, _g()), {}),
        decisions={("n", "huge"): ("not run", REASON_COUNT)},
    ),
    "scoringbook.ch10_model.accuracy_by_place": Example(
        lambda: ((_tiny_run().model, _tiny_tokens(), torch.tensor([4, 5, 6, 10])), {}),
        skip_args={"model": MODEL_ARG},
    ),
    "scoringbook.ch10_model.scores_by_length": Example(
        lambda: ((_tiny_run().model,), {"lengths": (5, 10), "n": 4}),
        skip_args={"model": MODEL_ARG},
        decisions={("n", "huge"): ("not run", REASON_COUNT)},
    ),
    "scoringbook.ch10_model.loss_by_position": Example(
        lambda: ((_tiny_run().model, _tiny_tokens()), {}), skip_args={"model": MODEL_ARG}
    ),
    "scoringbook.ch10_scores.offset_score": Example(
        lambda: ((torch.full((2, 1, 20, 20), 0.05), 9), {"k": torch.tensor([5, 10])})
    ),
    "scoringbook.ch09_explorer.word_order_declaration": Example(lambda: ((), {"seed": 1})),
    "scoringbook.ch09_explorer.word_order_explorer": _explorer_fn(seed=1),
    "scoringbook.ch09_exercises.check_heads": Example(lambda: ((_ex_split, _ex_merge), {})),
    "scoringbook.ch09_exercises.check_sinusoidal": Example(
        lambda: ((lambda n, d: torch.zeros(n, d),), {})
    ),
    "scoringbook.ch09_exercises.check_relative_offset": Example(
        lambda: ((lambda delta, d: torch.eye(d),), {})
    ),
    "scoringbook.ch09_exercises.check_causal_masks": Example(
        lambda: ((_ex_lens, _ex_sdpa, _ex_mha), {}),
    ),
    "scoringbook.ch10_exercises.check_head_score": Example(
        lambda: ((lambda w: w.mean(dim=(0, 2, 3)), "previous"), {}),
    ),
    "scoringbook.ch10_scores.previous_token_score": Example(
        lambda: ((torch.full((1, 1, 20, 20), 0.05),), {})
    ),
    "scoringbook.ch10_scores.induction_score": Example(
        lambda: ((torch.full((1, 1, 20, 20), 0.05),), {})
    ),
    "scoringbook.ch10_model.repeated_half_accuracy": Example(
        lambda: ((_tiny_run().model, _tiny_tokens()), {"ablate": [(0, 1)]}),
        skip_args={"model": MODEL_ARG},
    ),
    "scoringbook.ch10_model.head_scores": Example(
        lambda: ((_tiny_run().model, _tiny_tokens()), {}), skip_args={"model": MODEL_ARG}
    ),
    "scoringbook.ch10_model.ablation_table": Example(
        lambda: ((_tiny_run().model, _tiny_tokens()), {}), skip_args={"model": MODEL_ARG}
    ),
    "scoringbook.ch10_model.TrainRun": Example(
        lambda: ((_tiny_run().model,), {"losses": [1.0, 0.5], "steps": [0, 1]}),
        skip_args={"model": MODEL_ARG},
        nonfinite_in_out=RECORD,
    ),
    "scoringbook.ch10_model.train": Example(
        lambda: ((), {"seed": 3, "steps": 2, "batch_size": 4, "every": 1, "n_held_out": 4}),
        skip_args=dict.fromkeys(
            ("seed", "steps", "batch_size", "lr", "every", "n_held_out", "watch"), TRAINS
        ),
    ),
    "scoringbook.ch10_model.chapter_run": Example(lambda: ((), {})),
    "scoringbook.ch10_multihead.heads_declaration": Example(
        lambda: ((_tiny_run(),), {}), skip_args={"run": RUN_ARG}
    ),
    "scoringbook.ch10_multihead.heads_explorer": Example(
        lambda: ((_tiny_run(),), {}), skip_args={"run": RUN_ARG}
    ),
    "scoringbook.ch10_multihead.heads_figure": Example(
        lambda: ((_tiny_run(),), {}), skip_args={"run": RUN_ARG}
    ),
    "scoringbook.ch10_multihead.loss_curve": Example(
        lambda: (([3.0, 2.0, 1.0, 0.5],), {"smooth": 2}),
        # smooth 2 -> window [i - 1, i + 1] shrunk at the ends: means of 2, 3, 3, 2 losses
        check=lambda out: np.testing.assert_allclose(out, [2.5, 2.0, 7 / 6, 0.75]),
    ),
    "scoringbook.ch09_diagram.draw_masks": Example(
        lambda: (
            (torch.ones(2, 4, 4, dtype=torch.bool).tril(), ["a", "b"], ["allowed", "blocked"]),
            {},
        ),
    ),
    "scoringbook.ch09_diagram.draw_heads": Example(
        lambda: (
            (
                _mha(),
                torch.randn(1, 5, 8, generator=_g(2)),
            ),
            {},
        ),
    ),
    "scoringbook.ch10_multihead.heads_playback_declaration": Example(
        lambda: ((_tiny_run(),), {"smooth": 2}), skip_args={"run": RUN_ARG}
    ),
    "scoringbook.ch10_multihead.heads_playback_explorer": Example(
        lambda: ((_tiny_run(),), {}), skip_args={"run": RUN_ARG}
    ),
    "scoringbook.ch10_multihead.ablation_declaration": Example(
        lambda: ((_tiny_run(),), {}), skip_args={"run": RUN_ARG}
    ),
    "scoringbook.ch10_multihead.ablation_explorer": Example(
        lambda: ((_tiny_run(),), {}), skip_args={"run": RUN_ARG}
    ),
    "scoringbook.claims.multihead_claims": Example(
        lambda: (
            (
                [[0.4, 0.1], [0.08, 0.08]],
                [[0.05, 0.05], [0.7, 0.7]],
                {"none": 0.9, "L1H1": 0.6, "L1H2": 0.9, "L2H1": 0.7, "L2H2": 0.7},
                [3.0] * 10 + [0.8] * 10,
            ),
            {},
        )
    ),
    "scoringbook.claims.scaling_claims": Example(
        lambda: (({"1/√d": 0.9 + 0.05 * T(2, 3), "1": 0.5 * T(2, 3, seed=1)},), {})
    ),
}

EXAMPLES: dict[str, Example] = {**_LIB, **_WIDGETS, **_PLOTTING, **_BOOK, **_NEW}
