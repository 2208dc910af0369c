"""tests/_depth.py: the property tests' example counts by TEST_DEPTH (check < full < deep)."""

from __future__ import annotations

import pytest
from _depth import depth, examples


def test_examples_scale_with_the_depth(monkeypatch):
    monkeypatch.delenv("TEST_DEPTH", raising=False)
    assert depth() == "full" and examples(40) == 40
    monkeypatch.setenv("TEST_DEPTH", "check")
    assert depth() == "check" and examples(40) == 10 and examples(8) == 5  # at least 5
    monkeypatch.setenv("TEST_DEPTH", "deep")
    assert examples(40) == 400


def test_an_unknown_depth_is_refused_by_name(monkeypatch):
    monkeypatch.setenv("TEST_DEPTH", "quick")
    with pytest.raises(
        ValueError, match=r"TEST_DEPTH: expected one of \['check', 'deep', 'full'\]; got 'quick'"
    ):
        examples(40)
