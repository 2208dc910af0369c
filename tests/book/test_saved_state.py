"""tests/_saved_state.py decodes a saved explorer's frames as attnlib computes them: checked on
explorers built here (their state is what a notebook saves), for every frame's panels."""

from __future__ import annotations

import numpy as np
import pytest
from _saved_state import as_arrays, saved_explorers, saved_frame
from _tolerance import (
    EXACT,
    Tolerance,
    assert_array_close,
    compare_json,
    encoding_quantum,
    frame_tolerance,
    spec_tolerance,
)

from scoringbook import manifest
from scoringbook.registry import EXPLORERS


@pytest.mark.parametrize("name", ["softmax_temperature", "bandwidth_training", "scaling"])
def test_saved_frame_decodes_what_attnlib_computed(name):
    ex = EXPLORERS[name]()
    state = {"spec": ex.spec, "data": ex.data}
    for _, params in list(ex.declaration.grid())[::7]:
        got = as_arrays(saved_frame(state, params))
        want = as_arrays(ex.declaration.compute(**params))
        assert got.keys() == want.keys()
        for panel, w in want.items():
            # the same run on both sides: only the encoding's rounding parts them
            tol = Tolerance(EXACT, encoding_quantum(ex.data[panel]), what=f"{name} {panel}")
            if isinstance(w, dict):
                assert got[panel].keys() == w.keys()
                for s in w:
                    assert_array_close(got[panel][s], w[s], tol, f"{name} {panel} {s}")
            else:
                assert_array_close(got[panel], w, tol, f"{name} {panel}")


def test_saved_frame_tells_frames_apart():
    # a wrong stride or index would decode another frame: neighbours must differ
    ex = EXPLORERS["softmax_temperature"]()
    state = {"spec": ex.spec, "data": ex.data}
    grid = list(ex.declaration.grid())
    a = as_arrays(saved_frame(state, grid[0][1]))
    b = as_arrays(saved_frame(state, grid[-1][1]))
    assert any(not np.allclose(a[k], b[k]) for k in a if not isinstance(a[k], dict))


def test_every_trained_explorer_is_saved_in_its_chapter():
    for e in manifest.explorers(manifest.TRAINED):
        notebook = manifest.chapter_of(e.name).notebook
        assert e.name in saved_explorers(notebook), f"{notebook} saves no {e.name!r}"


# what the book publishes and this test compares with a fresh build: every explorer the manifest
# lists that is not trained (a trained one is compared by the browser tests with its saved
# frames). tests/book/test_manifest.py holds the notebooks' saved explorers to the manifest, so
# an explorer a notebook saves cannot be left out of this list.
PUBLISHED: dict[str, list[str]] = {
    c.notebook: [e.name for e in c.explorers if e.kind != manifest.TRAINED]
    for c in manifest.CHAPTERS
    if any(e.kind != manifest.TRAINED for e in c.explorers)
}


@pytest.mark.parametrize(
    "notebook, name", [(nb, name) for nb, names in PUBLISHED.items() for name in names]
)
def test_published_explorers_are_what_attnlib_builds_today(notebook, name):
    """The book publishes the committed notebooks without executing them: an explorer saved
    before a change in attnlib would be published stale. Its saved spec and frames must be
    what attnlib builds now (`make chapters CH=NN` re-executes a chapter), within the
    tolerance policy of tests/_tolerance.py: exact numbers exactly, order-dependent ones
    (trained) within their recorded precision plus 10x the spread measured between numeric
    paths. tests/book/test_numeric_paths.py runs this under every path the processor has."""
    saved = saved_explorers(notebook)[name]
    fresh = EXPLORERS[name]()
    where = f"{notebook}, explorer {name!r} (run `make chapters CH={notebook[:2]}`)"
    compare_json(saved["spec"], fresh.spec, spec_tolerance(name), f"{where}: spec")
    assert saved["data"].keys() == fresh.data.keys(), where
    state = {"spec": fresh.spec, "data": saved["data"]}
    for _, params in list(fresh.declaration.grid())[:: max(1, fresh.declaration.n_frames // 40)]:
        if fresh.declaration.live is not None:
            break  # nothing stored: the page computes each frame
        got = as_arrays(saved_frame(state, params))
        want = as_arrays(fresh.declaration.compute(**params))
        for panel, w in want.items():
            tol = frame_tolerance(name, encoding_quantum(saved["data"][panel]))
            for s, ws in w.items() if isinstance(w, dict) else [("", w)]:
                g = got[panel][s] if s else got[panel]
                assert_array_close(g, ws, tol, f"{where}: panel {panel} {s} at {params}")
