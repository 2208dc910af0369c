"""Every checker of the book attacked where the earlier suites did not: a verdict with gradients
switched off (torch.no_grad, torch.inference_mode), no change to any global generator even when
the learner's code draws from one, the checker's own inputs refused when non-finite, and
answers in a lower precision told apart from wrong answers."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

import attnlib
from attnlib import dot_product_scores, masked_softmax
from attnlib.kernels import KERNELS

from ._helpers import global_rng_untouched, perturb_global_rng, raises
from ._targets import CHECKERS, ch07_dates

SRC = "22 Nov 2026"


def _noisy(fn):
    """The learner's function, drawing from every global generator on each call."""

    def wrapped(*args):
        torch.rand(2)
        np.random.rand()
        random.random()
        return fn(*args)

    return wrapped


def _attention(h):
    return attnlib.AdditiveAttention(h, 0.0)


# (checker, right answer, wrong answer, extra arguments)
CASES = {
    "check_weights": (
        torch.tensor([[0.25, 0.75], [1.0, 0.0]]),
        torch.tensor([[0.5, 0.7], [1.0, 0.0]]),
        (),
    ),
    "check_masked_softmax": (
        _noisy(masked_softmax),
        _noisy(lambda X, v: torch.softmax(X, -1)),
        (),
    ),
    "check_kernel": (_noisy(KERNELS["gaussian"]), _noisy(KERNELS["boxcar"]), ("gaussian",)),
    "check_scores": (
        _noisy(dot_product_scores),
        _noisy(lambda q, k: q @ k.transpose(1, 2)),
        ("dot_product",),
    ),
    "check_alignment": (
        ch07_dates.implied_alignment(SRC),
        ch07_dates.implied_alignment(SRC).T,
        (SRC,),
    ),
    "check_attention_module": (None, _noisy(lambda h: torch.nn.Identity()), ()),
}


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
@pytest.mark.parametrize("name", CASES)
def test_every_checker_gives_a_verdict_with_gradients_switched_off(name, mode):
    right, wrong, extra = CASES[name]
    with getattr(torch, mode)():
        if right is not None:
            assert CHECKERS[name](right, *extra).ok, name
        got = CHECKERS[name](wrong, *extra)
    assert not got.ok and got.message
    assert "does not require grad" not in got.message


def test_check_masked_softmax_still_checks_gradients_under_no_grad():
    def detached(X, valid_lens):
        return masked_softmax(X, valid_lens).detach()

    with torch.no_grad():
        got = CHECKERS["check_masked_softmax"](detached)
    assert not got.ok and "gradients" in got.message


@pytest.mark.parametrize("name", CASES)
def test_no_checker_moves_a_global_generator_even_when_the_learner_does(name):
    right, wrong, extra = CASES[name]
    perturb_global_rng()
    with global_rng_untouched():
        for answer in (right, wrong):
            if answer is not None:
                CHECKERS[name](answer, *extra)


def test_check_attention_module_leaves_the_generators_with_a_noisy_module():
    class Noisy(torch.nn.Module):
        def __init__(self, h):
            super().__init__()
            self.attn = attnlib.AdditiveAttention(h, 0.5)  # dropout draws its masks in training

        @property
        def attention_weights(self):
            return self.attn.attention_weights

        def forward(self, *args):
            torch.rand(1)
            np.random.rand()
            random.random()
            return self.attn(*args)

    perturb_global_rng()
    with global_rng_untouched():
        CHECKERS["check_attention_module"](Noisy, steps=1)


# ----------------------------------------------------------------- check_weights' own inputs
W = torch.softmax(torch.tensor([[[1.0, 2.0], [0.5, -1.0]]]), -1)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(scores=torch.full((1, 2, 2), float("nan"))), ["scores", "nan"]),
        (dict(scores=torch.tensor([[[1.0, float("inf")], [0.5, -1.0]]])), ["scores", "inf"]),
        (dict(expected=torch.full((1, 2, 2), float("nan"))), ["expected", "nan"]),
        (dict(scores=torch.zeros(1, 2, 2, dtype=torch.complex64)), ["scores", "complex"]),
    ],
)
def test_check_weights_refuses_references_it_cannot_compare_with(kwargs, words):
    # NaN scores or expected weights used to pass any answer ("they are the softmax")
    with raises(ValueError, "check_weights", *words):
        CHECKERS["check_weights"](W, **kwargs)


def test_check_weights_accepts_minus_inf_scores():
    s = torch.tensor([[[0.0, float("-inf")], [1.0, 1.0]]])
    assert CHECKERS["check_weights"](torch.softmax(s, -1), scores=s).ok


# ----------------------------------------------------------------- check_kernel: precision, names
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_a_kernel_in_lower_precision_is_told_apart_from_a_wrong_kernel(dtype):
    got = CHECKERS["check_kernel"](lambda u: KERNELS["gaussian"](u).to(dtype), "gaussian")
    assert not got.ok and str(dtype).split(".")[1] in got.message and "dtype" in got.message


def test_misspelt_kernel_name_gets_a_hint():
    with raises(ValueError, "check_kernel", "name", "'epanechikov'", "epanechnikov"):
        CHECKERS["check_kernel"](KERNELS["epanechnikov"], "epanechikov")


def test_check_kernel_accepts_a_numpy_string_name():
    assert CHECKERS["check_kernel"](KERNELS["gaussian"], np.str_("gaussian")).ok


def test_keyboard_interrupt_is_not_turned_into_a_verdict():
    # decision: only Exception is reported as a failed answer; KeyboardInterrupt and
    # SystemExit stop the cell as the reader expects
    def stop(*args):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        CHECKERS["check_masked_softmax"](stop)
