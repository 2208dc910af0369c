"""Keep the reader's global random generators as they were.

attnlib never seeds torch's, NumPy's or Python's global generator. Some draws cannot take a
:class:`torch.Generator` (``nn.Dropout``'s masks, a lazy layer's first initialisation, a
learner's code run by a checker); :func:`isolated_global_rng` runs them on a forked global
generator and restores every global state afterwards.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
from collections.abc import Iterator

import numpy as np
import torch

__all__ = ["isolated_global_rng", "seed_from"]


def seed_from(generator: torch.Generator) -> int:
    """A 63-bit seed derived from ``generator``'s state, without drawing from it (so the
    generator's own sequence, e.g. the minibatches, is the same as without the derivation)."""
    state = generator.get_state().numpy().tobytes()
    return int.from_bytes(hashlib.sha256(state).digest()[:8], "little") >> 1


@contextlib.contextmanager
def isolated_global_rng(seed: int | None = None) -> Iterator[None]:
    """Run the body on forked global generators; restore torch's (CPU), NumPy's and Python's
    global states afterwards, even on an error. With ``seed``, torch's forked generator starts
    from it, so what the body draws from it is reproducible whatever the reader's state."""
    np_state, py_state = np.random.get_state(), random.getstate()
    try:
        with torch.random.fork_rng(devices=[]):
            if seed is not None:
                torch.default_generator.manual_seed(seed)  # the CPU generator only
            yield
    finally:
        np.random.set_state(np_state)
        random.setstate(py_state)
