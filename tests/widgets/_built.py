"""The book's explorers built once per process, for the test files that each built their own
(issue 36): ``widgets/test_explorers.py``'s ``built`` and ``widgets/test_presets.py``'s pages.
A trained one (chapter 2's ``bandwidth_training``) computes every frame of its training run,
about 10 CPU-s; the two files run on one worker in the browser session (tests/conftest.py's
SHARED_LOADS), so it is built once there. Nothing the tests do changes an explorer."""

from __future__ import annotations

import functools

import torch

from attnlib.widgets import Explorer
from scoringbook.registry import EXPLORERS


@functools.cache
def built_explorer(name: str) -> Explorer:
    """``EXPLORERS[name]()``, built once per process; building it must leave torch's global
    random state as it was (AssertionError naming the explorer otherwise)."""
    state = torch.random.get_rng_state()
    ex = EXPLORERS[name]()
    assert torch.equal(torch.random.get_rng_state(), state), (
        f"the explorer {name!r} touched the global RNG"
    )
    return ex
