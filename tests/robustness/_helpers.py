"""What the robustness suites share: an error must name the argument, what was expected
and what was received; no call may touch a global random generator."""

from __future__ import annotations

import contextlib
import random
import re

import numpy as np
import pytest
import torch
from _depth import examples
from hypothesis import settings

#: Hypothesis settings of these suites: few examples (scaled by TEST_DEPTH, tests/_depth.py),
#: derandomised, no deadline (2 cores).
FEW = settings(derandomize=True, max_examples=examples(25), deadline=None)


@contextlib.contextmanager
def raises(exc, *fragments: str):
    """``pytest.raises(exc)``, and the message holds every fragment (case-insensitive)."""
    with pytest.raises(exc) as info:
        yield info
    text = str(info.value).lower()
    missing = [f for f in fragments if f.lower() not in text]
    assert not missing, f"message {str(info.value)!r} lacks {missing!r}"


def _states():
    return (torch.random.get_rng_state().clone(), np.random.get_state(), random.getstate())


@contextlib.contextmanager
def global_rng_untouched():
    """The body neither seeds nor draws from torch's, NumPy's or Python's global generator."""
    torch_before, np_before, py_before = _states()
    yield
    torch_after, np_after, py_after = _states()
    assert torch.equal(torch_before, torch_after), "torch's global generator changed"
    assert (
        np_before[0] == np_after[0]
        and np.array_equal(np_before[1], np_after[1])
        and np_before[2:] == np_after[2:]
    ), "NumPy's global generator changed"
    assert py_before == py_after, "Python's random generator changed"


def perturb_global_rng():
    """Move every global generator to a state no library seeds (so a hidden reseed shows)."""
    torch.manual_seed(987_654_321)
    torch.rand(3)
    np.random.seed(12345)
    random.seed(54321)


def names_all(message: str, *words: str) -> bool:
    return all(re.search(re.escape(w), message, re.I) for w in words)
