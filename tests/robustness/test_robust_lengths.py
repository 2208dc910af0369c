"""Chapter 8's length experiment (scoringbook.ch08_lengths, ch08_numbers): bad input is
refused with a message naming the function and the argument; nothing draws from the global
generator; the reader's model keeps its train/eval mode."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ._helpers import global_rng_untouched
from ._targets import ch08_numbers, lengths

GEN = torch.Generator


# ----------------------------------------------------------------------------- random_numbers


@pytest.mark.parametrize(
    ("args", "err", "match"),
    [
        ((0, 1, 2), ValueError, r"random_numbers: n must be a positive int \(>= 1\); got 0"),
        ((True, 1, 2), TypeError, r"random_numbers: n must be an int"),
        ((2.0, 1, 2), TypeError, r"random_numbers: n must be an int"),
        ((3, 0, 2), ValueError, r"min_digits must be a positive int \(>= 1\); got 0"),
        ((3, 3, 2), ValueError, r"1 <= min_digits <= max_digits"),
        ((3, 1, "2"), TypeError, r"max_digits must be an int"),
    ],
)
def test_random_numbers_refuses_bad_counts(args, err, match):
    with pytest.raises(err, match=match):
        ch08_numbers.random_numbers(*args, GEN().manual_seed(0))


def test_random_numbers_needs_its_own_generator_and_accepts_numpy_and_0d_counts():
    with pytest.raises(TypeError, match=r"random_numbers: generator must be a torch.Generator"):
        ch08_numbers.random_numbers(3, 1, 2, None)
    with global_rng_untouched():
        got = ch08_numbers.random_numbers(np.int64(3), torch.tensor(1), 2, GEN().manual_seed(0))
    assert got == ch08_numbers.random_numbers(3, 1, 2, GEN().manual_seed(0))


# ----------------------------------------------------------------------------- lists of numbers

NUMBER_LISTS = [
    ("12", TypeError, r"must be a list of strings; got a str"),
    ([], ValueError, r"numbers"),
    ([12], TypeError, r"numbers\[0\]"),
    (["1a"], ValueError, r"numbers\[0\] must be a non-empty string of digits; got '1a'"),
    ([""], ValueError, r"numbers\[0\] must be a non-empty string of digits"),
    (["١٢"], ValueError, r"non-empty string of digits"),  # Arabic-Indic digits are not ASCII
    (None, TypeError, r"must be a list of strings"),
]


@pytest.mark.parametrize(("bad", "err", "match"), NUMBER_LISTS)
@pytest.mark.parametrize("fn", ["encode_spoken", "encode_digits"])
def test_encoders_refuse_what_is_not_a_list_of_digit_strings(fn, bad, err, match):
    with pytest.raises(err, match=rf"{fn}: .*{match}|{fn}: {match}"):
        getattr(ch08_numbers, fn)(bad)


@pytest.mark.parametrize(("bad", "err", "match"), NUMBER_LISTS)
def test_read_numbers_refuses_bad_numbers_and_keeps_the_models_mode(bad, err, match):
    model = ch08_numbers.NumberModel()
    model.train()
    with pytest.raises(err, match=match):
        ch08_numbers.read_numbers(model, bad)
    with pytest.raises(ValueError, match=r"read_numbers: extra must be an int >= 0; got -1"):
        ch08_numbers.read_numbers(model, ["12"], extra=-1)
    said, _ = ch08_numbers.read_numbers(model, ["12", "3"])
    assert model.training, "read_numbers left the reader's model in eval mode"
    assert len(said) == 2 and all(isinstance(x, str) for x in said)


def test_scores_and_wrong_by_position_refuse_mismatched_or_malformed_lists():
    for fn in (ch08_numbers.scores, lengths.wrong_by_position):
        name = fn.__name__
        with pytest.raises(TypeError, match=rf"{name}: predicted must be a list of strings"):
            fn("12", ["12"])
        with pytest.raises(ValueError, match=rf"{name}: need as many predictions as numbers"):
            fn(["1"], ["1", "2"])
        with pytest.raises(ValueError, match=rf"{name}: numbers\[0\]"):
            fn(["1"], ["x"])
        with pytest.raises(ValueError):
            fn([], [])
    # a prediction may hold any text (the decoder writes "?" for a non-digit)
    assert ch08_numbers.scores(["1?", "34"], ["12", "34"]) == (0.5, 0.75)
    assert lengths.wrong_by_position(["1?", "3"], ["12", "34"]) == [0, 2]


def test_word_weights_refuses_non_finite_and_non_float_weights():
    with pytest.raises(
        ValueError, match="word_weights: weights must hold finite values; got NaN or infinity"
    ):
        ch08_numbers.word_weights(torch.full((2, 9), float("nan")), "12")
    with pytest.raises(
        TypeError, match=r"word_weights: weights must be a torch.Tensor .*; got an array"
    ):
        ch08_numbers.word_weights(np.zeros((2, 9)), "12")
    with pytest.raises(TypeError, match="word_weights: weights must be a floating-point tensor"):
        ch08_numbers.word_weights(torch.zeros(2, 9, dtype=torch.long), "12")
    w = torch.rand(2, 9, dtype=torch.float64)
    got = ch08_numbers.word_weights(w, "12")  # "one two": "one " is word 0, "two" word 1
    want = torch.stack([w[:, :4].sum(1), w[:, 4:7].sum(1)], dim=1)
    torch.testing.assert_close(got, want)


def test_evaluate_refuses_empty_or_non_dict_tests():
    model = ch08_numbers.NumberModel()
    for bad in ({}, [["12"]], None):
        with pytest.raises(TypeError, match=r"evaluate: tests must be a non-empty dict"):
            lengths.evaluate(model, bad)
