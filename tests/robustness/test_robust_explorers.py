"""The book's explorer builders attacked through their keyword arguments (seeds, sizes, grids,
ranges), and ``compute`` through its parameters: every bad value is refused when the
declaration is built, naming the builder and the argument, never drawn as NaN or as a picture
that does not match what was asked for. Building never touches the global generators."""

from __future__ import annotations

import numpy as np
import pytest

from ._helpers import global_rng_untouched, perturb_global_rng, raises
from ._targets import DECLARATIONS, EXPLORERS, compute, lengths

BAD = [
    # (builder, kwargs, exception, words in the message)
    ("softmax_temperature", dict(seed="a"), TypeError, ["seed", "int", "'a'"]),
    ("softmax_temperature", dict(seed=1.5), TypeError, ["seed", "1.5"]),
    ("softmax_temperature", dict(seed=True), TypeError, ["seed", "bool"]),
    ("softmax_temperature", dict(seed=None), TypeError, ["seed", "None"]),
    ("softmax_temperature", dict(n_queries=0), ValueError, ["n_queries", ">= 1", "0"]),
    ("softmax_temperature", dict(n_queries=2.5), TypeError, ["n_queries", "2.5"]),
    ("softmax_temperature", dict(n_keys=0), ValueError, ["n_keys", "0"]),
    ("softmax_temperature", dict(n_temperatures=0), ValueError, ["n_temperatures", "0"]),
    ("softmax_temperature", dict(n_temperatures=1000), ValueError, ["n_temperatures", "1000"]),
    ("soft_lookup", dict(n_keys=0), ValueError, ["n_keys", "0"]),
    ("soft_lookup", dict(n_keys=-1), ValueError, ["n_keys", "-1"]),
    ("kernel_regression", dict(n_train=0), ValueError, ["n_train", "0"]),
    ("kernel_regression", dict(n_heat_queries=0), ValueError, ["n_heat_queries", "0"]),
    ("kernel_regression", dict(n_bandwidths=0), ValueError, ["n_bandwidths", "0"]),
    ("kernel_regression", dict(noise=-1.0), ValueError, ["noise", ">= 0", "-1"]),
    ("kernel_regression", dict(noise=float("nan")), ValueError, ["noise", "nan"]),
    ("kernel_regression", dict(noise="0.5"), TypeError, ["noise", "'0.5'"]),
    ("bandwidth_training", dict(steps=-1), ValueError, ["steps", ">= 0", "-1"]),
    ("bandwidth_training", dict(n_train=1), ValueError, ["n_train", ">= 2", "1"]),
    ("bandwidth_training", dict(lr=float("nan")), ValueError, ["lr", "nan"]),
    ("bandwidth_training", dict(lr=-0.1), ValueError, ["lr", "> 0"]),
    ("bandwidth_training", dict(lr=1e6), ValueError, ["lr", "<= 100", "1000000.0"]),
    ("bandwidth_training", dict(lr=100), ValueError, ["lr=100", "diverged"]),
    ("masking", dict(max_tokens=0), ValueError, ["max_tokens", "0"]),
    ("masking", dict(max_tokens=2.0), TypeError, ["max_tokens", "2.0"]),
    ("masking", dict(d=0), ValueError, ["d", "0"]),
    ("additive_attention", dict(hiddens=()), ValueError, ["hiddens", "at least one"]),
    ("additive_attention", dict(hiddens=(0,)), ValueError, ["hiddens", "0"]),
    ("additive_attention", dict(hiddens=(2, 2)), ValueError, ["hiddens", "distinct"]),
    ("additive_attention", dict(hiddens=5), TypeError, ["hiddens", "list", "int"]),
    ("additive_attention", dict(n_angles=0), ValueError, ["n_angles", "0"]),
    ("additive_attention", dict(n_angles=7), ValueError, ["n_angles", "divide 360", "7"]),
    ("additive_attention", dict(n_angles=1000), ValueError, ["n_angles", "1000"]),
    ("additive_attention", dict(radius=0), ValueError, ["radius", "> 0"]),
    ("additive_attention", dict(radius=-1), ValueError, ["radius", "-1"]),
    ("additive_attention", dict(radius=float("nan")), ValueError, ["radius", "nan"]),
    ("additive_attention", dict(n_keys=0), ValueError, ["n_keys", "0"]),
    ("scaling", dict(dims=()), ValueError, ["dims", "at least one"]),
    ("scaling", dict(dims=(0,)), ValueError, ["dims", "0"]),
    ("scaling", dict(dims=(2, 2)), ValueError, ["dims", "distinct"]),
    ("scaling", dict(n_bins=0), ValueError, ["n_bins", "0"]),
    ("scaling", dict(limit=0), ValueError, ["limit", "> 0"]),
    ("scaling", dict(limit=-1), ValueError, ["limit", "-1"]),
    ("scaling", dict(n_samples=0), ValueError, ["n_samples", "0"]),
    ("scaling", dict(n_samples=2), ValueError, ["n_samples", "n_queries", "n_keys"]),
    ("scoring_comparison", dict(num_hiddens=0), ValueError, ["num_hiddens", "0"]),
    ("scoring_comparison", dict(num_hiddens=-1), ValueError, ["num_hiddens", "-1"]),
    ("scoring_comparison", dict(seed="x"), TypeError, ["seed", "'x'"]),
]


@pytest.mark.parametrize(
    "name, kwargs, exc, words",
    BAD,
    ids=[f"{b[0]}-{next(iter(b[1]))}={next(iter(b[1].values()))!r}" for b in BAD],
)
def test_builders_refuse_bad_keyword_arguments(name, kwargs, exc, words):
    with raises(exc, f"{name}_declaration", *words):
        DECLARATIONS[name](**kwargs)


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("softmax_temperature", dict(seed=np.int64(1), n_keys=np.int32(3))),
        ("soft_lookup", dict(n_keys=1)),
        (
            "kernel_regression",
            dict(n_train=1, n_heat_queries=1, n_bandwidths=1, noise=np.float64(0.0)),
        ),
        ("bandwidth_training", dict(steps=0, n_train=2)),
        ("masking", dict(max_tokens=np.int64(1))),
        ("additive_attention", dict(hiddens=[np.int64(4)], n_angles=360, radius=3.0)),
        ("scaling", dict(dims=(3,), n_samples=8, n_bins=1)),
        ("scoring_comparison", dict(num_hiddens=1)),
    ],
)
def test_builders_accept_small_edges_and_numpy_numbers(name, kwargs):
    ex = EXPLORERS[name](**kwargs)
    assert ex.declaration.name == name


def test_a_large_query_circle_stays_inside_the_plot():
    # radius 3 used to draw the query outside the plane's fixed limits (+-1.8)
    ex = EXPLORERS["additive_attention"](radius=3.0)
    plane = next(p for p in ex.spec["panels"] if p["name"] == "plane")
    assert plane["xlim"][0] <= -3.0 and plane["xlim"][1] >= 3.0
    assert plane["ylim"][0] <= -3.0 and plane["ylim"][1] >= 3.0


@pytest.fixture
def short_length_experiment(monkeypatch):
    """Chapter 8's length experiment on the chapter's code path with 3 training steps per
    model instead of STEPS (47 s of training here): whether building touches the global
    generators does not depend on how long it trains. Its cache is emptied before and after,
    so no other test sees the short run."""
    monkeypatch.setattr(lengths, "STEPS", 3)
    lengths._chapter_lengths.cache_clear()
    yield
    lengths._chapter_lengths.cache_clear()


# the declarations that train a model first (chapter 10's run, chapter 2's bandwidth): slow
TRAINS = {"ablation", "heads", "heads_playback", "bandwidth_training"}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.slow) if n in TRAINS else n
        for n in sorted(set(DECLARATIONS) - {"alignment_playback", "length_experiment"})
    ],
)
def test_building_every_explorer_leaves_the_global_generators_alone(name):
    perturb_global_rng()
    with global_rng_untouched():
        DECLARATIONS[name]()


@pytest.mark.slow
def test_building_the_length_experiment_leaves_the_global_generators_alone(
    short_length_experiment,
):
    perturb_global_rng()
    with global_rng_untouched():
        declaration = DECLARATIONS["length_experiment"]()
    assert declaration is not None


@pytest.mark.parametrize(
    "name, params, exc, words",
    [
        ("softmax_temperature", dict(temperature="1"), ValueError, ["temperature", "'1'"]),
        (
            "softmax_temperature",
            dict(temperature=1.234),
            ValueError,
            ["temperature", "1.234", "grid"],
        ),
        ("softmax_temperature", dict(temperature=0.0), ValueError, ["temperature", "grid"]),
        ("kernel_regression", dict(kernel="epanechikov"), ValueError, ["kernel", "'epanechikov'"]),
        ("kernel_regression", dict(query=7.5), ValueError, ["query", "7.5"]),
        ("masking", dict(sentence_0=5), TypeError, ["sentence_0", "str"]),
        ("masking", dict(sentence_0="x" * 500), ValueError, ["sentence_0", "at most"]),
        ("additive_attention", dict(valid_len=True), TypeError, ["valid_len", "bool"]),
    ],
)
def test_compute_refuses_parameters_the_page_cannot_take(name, params, exc, words):
    with raises(exc, f"explorer {name!r}", *words):
        compute(name, **params)


def test_compute_of_an_unknown_explorer():
    # decision: a ValueError, as for any name outside its declared set (compute's name is a
    # Choice of the manifest's explorers); the message lists the names
    with raises(ValueError, "compute", "name", "'nope'", "softmax_temperature"):
        compute("nope")
