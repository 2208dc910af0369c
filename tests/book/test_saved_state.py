"""tests/_saved_state.py decodes a saved explorer's frames as attnlib computes them: checked on
explorers built here (their state is what a notebook saves), for every frame's panels."""

from __future__ import annotations

import numpy as np
import pytest
from _saved_state import as_arrays, saved_explorers, saved_frame

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


def _close(saved, fresh, where: str) -> None:
    """JSON-like values equal, numbers within 1e-6 (relative) or 1e-9."""
    if isinstance(fresh, dict):
        assert isinstance(saved, dict) and saved.keys() == fresh.keys(), (
            f"{where}: keys {sorted(saved) if isinstance(saved, dict) else saved!r} "
            f"vs {sorted(fresh)}"
        )
        for k in fresh:
            _close(saved[k], fresh[k], f"{where}.{k}")
    elif isinstance(fresh, (list, tuple)):
        assert isinstance(saved, (list, tuple)) and len(saved) == len(fresh), where
        for i, (a, b) in enumerate(zip(saved, fresh)):
            _close(a, b, f"{where}[{i}]")
    elif isinstance(fresh, float) or isinstance(saved, float):
        assert saved == pytest.approx(fresh, rel=1e-6, abs=1e-9), f"{where}: {saved} vs {fresh}"
    else:
        assert saved == fresh, f"{where}: {saved!r} vs {fresh!r}"


@pytest.mark.parametrize(
    "notebook, name", [(nb, name) for nb, names in PUBLISHED.items() for name in names]
)
def test_published_explorers_are_what_attnlib_builds_today(notebook, name):
    """The book publishes the committed notebooks without executing them: an explorer saved
    before a change in attnlib would be published stale. Its saved spec and frames must be
    what attnlib builds now (`make chapters CH=NN` re-executes a chapter)."""
    saved = saved_explorers(notebook)[name]
    fresh = EXPLORERS[name]()
    where = f"{notebook}, explorer {name!r} (run `make chapters CH={notebook[:2]}`)"
    _close(saved["spec"], fresh.spec, f"{where}: spec")
    assert saved["data"].keys() == fresh.data.keys(), where
    state = {"spec": fresh.spec, "data": saved["data"]}
    for _, params in list(fresh.declaration.grid())[:: max(1, fresh.declaration.n_frames // 40)]:
        if fresh.declaration.live is not None:
            break  # nothing stored: the page computes each frame
        got = as_arrays(saved_frame(state, params))
        want = as_arrays(fresh.declaration.compute(**params))
        for panel, w in want.items():
            if isinstance(w, dict):
                for s in w:
                    np.testing.assert_allclose(got[panel][s], w[s], atol=2e-4, err_msg=where)
            else:
                np.testing.assert_allclose(got[panel], w, atol=2e-4, err_msg=where)
