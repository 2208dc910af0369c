"""tests/_saved_state.py decodes a saved explorer's frames as attnlib computes them: checked on
explorers built here (their state is what a notebook saves), for every frame's panels."""

from __future__ import annotations

import numpy as np
import pytest
from _saved_state import as_arrays, saved_explorers, saved_frame

from attnlib.book.registry import EXPLORERS


@pytest.mark.parametrize("name", ["softmax_temperature", "bandwidth_training", "scaling"])
def test_saved_frame_decodes_what_attnlib_computed(name):
    ex = EXPLORERS[name]()
    state = {"spec": ex.spec, "data": ex.data}
    for _, params in list(ex.declaration.grid())[::7]:
        got = as_arrays(saved_frame(state, params))
        want = as_arrays(ex.declaration.compute(**params))
        assert got.keys() == want.keys()
        for panel, w in want.items():
            if isinstance(w, dict):
                assert got[panel].keys() == w.keys()
                for s in w:
                    np.testing.assert_allclose(got[panel][s], w[s], atol=2e-4, err_msg=panel)
            else:
                np.testing.assert_allclose(got[panel], w, atol=2e-4, err_msg=panel)


def test_saved_frame_tells_frames_apart():
    # a wrong stride or index would decode another frame: neighbours must differ
    ex = EXPLORERS["softmax_temperature"]()
    state = {"spec": ex.spec, "data": ex.data}
    grid = list(ex.declaration.grid())
    a = as_arrays(saved_frame(state, grid[0][1]))
    b = as_arrays(saved_frame(state, grid[-1][1]))
    assert any(not np.allclose(a[k], b[k]) for k in a if not isinstance(a[k], dict))


def test_chapter_6_saves_its_trained_explorers():
    saved = saved_explorers("06_bahdanau_attention.ipynb")
    assert {"alignment_playback", "length_experiment"} <= set(saved)
