"""Text that changes with the controls: the :class:`Caption` panel, and the per-frame tick
labels of a :class:`~attnlib.widgets.Heatmap` declared with ``labels_per_frame=True``
(:class:`LabelledMatrix`). Both are stored as strings, each distinct one once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from attnlib import _validate
from attnlib import domains as D
from attnlib.widgets.controls import NAME, OPTIONAL_TEXT, ExplorerError, _check_name, record

__all__ = ["Caption", "LabelledMatrix"]

#: Longest caption (characters) and longest tick label a frame may hold.
MAX_CAPTION = 2000
MAX_LABEL = 40


def _check_text(text: Any, what: str, limit: int, lines: bool) -> str:
    """``text`` as a str of printable characters (and line breaks if ``lines``)."""
    if not isinstance(text, str):
        raise ExplorerError(f"{what} must be a str; got {type(text).__name__}")
    if len(text) > limit:
        raise ExplorerError(f"{what} has {len(text)} characters; at most {limit}")
    bad = [c for c in text if not (c.isprintable() or (lines and c == "\n"))]
    if bad:
        raise ExplorerError(
            f"{what} holds the control character {bad[0]!r}"
            + ("" if lines else " (tick labels are one line)")
        )
    return text


@record(name=NAME, title=OPTIONAL_TEXT)
@dataclass(frozen=True)
class Caption:
    """Text the update function writes for each frame, shown below the controls (e.g. what
    a model outputs for the input the sliders pick).

    The update function returns a ``str`` for this panel (lines separated by ``"\\n"``, at
    most :data:`MAX_CAPTION` characters). The page shows it as preformatted text, so
    columns line up (a line longer than the column wraps), and reads it out with the
    explorer's sentence: line after line, joined by "; ", except that a line starting with a
    space continues the one before it (joined by a space: a sentence broken by hand, a
    verdict indented under its output; ``attnlib/static/src/spoken.js``). A sentence is
    best one line. Precomputed explorers only: a live explorer computes its frames in the
    page.

    Args:
        name: panel name (key of the update function's result).
        title: optional heading above the text.
    """

    name: str
    title: str | None = None

    kind = "caption"

    def __post_init__(self) -> None:
        _check_name(self.name, "Caption")
        if self.title is not None:
            _check_text(self.title, f"Caption {self.name!r}: title", 200, False)

    def describe(self, shape: tuple[int, ...]) -> str:
        return f"caption {self.name!r}"

    def normalise(self, value: Any, where: str) -> str:
        return _check_text(value, f"{where}: caption {self.name!r}", MAX_CAPTION, True)

    def shape_of(self, value: str) -> tuple:
        return ()

    def flatten(self, value: str) -> np.ndarray:
        return np.zeros(0)  # no numbers: the text is stored apart (see text_table)

    def unflatten(self, flat: np.ndarray, shape: tuple) -> np.ndarray:
        return flat

    def spec(self, shape: tuple) -> dict:
        return {"kind": "caption", "name": self.name, "title": self.title}


@D.declare(
    values=D.Anything("a 2-D array of finite numbers: checked in __new__"),
    row_labels=D.StrList(),
    col_labels=D.StrList(),
)
class LabelledMatrix(np.ndarray):
    """A heatmap frame with its own tick labels: a 2-D float64 array with ``row_labels``
    and ``col_labels``, tuples of one-line strings, one per row and per column.

    What :meth:`Heatmap.normalise <attnlib.widgets.Heatmap.normalise>` returns for a
    heatmap declared with ``labels_per_frame=True``; behaves as the plain array otherwise.
    """

    row_labels: tuple[str, ...] | None
    col_labels: tuple[str, ...] | None

    def __new__(cls, values: np.ndarray, row_labels, col_labels) -> LabelledMatrix:
        fn = "LabelledMatrix"
        what = "a 2-D array of finite numbers (rows x columns)"
        if values is None or isinstance(values, (str, bytes)):
            raise TypeError(f"{fn}: values must be {what}; got {_validate.describe(values)}")
        try:
            array = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{fn}: values must be {what}; got {_validate.describe(values)}"
            ) from None
        if array.ndim != 2:
            raise ValueError(f"{fn}: values must be {what}; got shape {array.shape}")
        if not np.isfinite(array).all():
            raise ValueError(f"{fn}: values must be {what}; got NaN or infinity")
        rows = _validate.as_str_list(row_labels, "row_labels", fn)
        cols = _validate.as_str_list(col_labels, "col_labels", fn)
        obj = array.view(cls)
        obj.row_labels, obj.col_labels = rows, cols
        return obj

    def __array_finalize__(self, obj) -> None:
        self.row_labels = getattr(obj, "row_labels", None)
        self.col_labels = getattr(obj, "col_labels", None)


def frame_labels(
    value: Any, where: str, name: str
) -> tuple[Any, tuple[str, ...], tuple[str, ...]]:
    """Split what an update returned for a heatmap with per-frame labels: ``(values,
    row_labels, col_labels)``, the labels checked (the counts are checked by the caller)."""
    keys = {"values", "row_labels", "col_labels"}
    if not isinstance(value, Mapping) or set(value) != keys:
        got = sorted(value) if isinstance(value, Mapping) else type(value).__name__
        raise ExplorerError(
            f"{where}: heatmap {name!r} has labels_per_frame=True: return "
            f"{{'values': 2-D array, 'row_labels': [...], 'col_labels': [...]}}; got {got}"
        )
    labels = []
    for key in ("row_labels", "col_labels"):
        seq = value[key]
        if isinstance(seq, str) or not isinstance(seq, Sequence):
            raise ExplorerError(
                f"{where}: heatmap {name!r}: {key} must be a list of str; got {type(seq).__name__}"
            )
        labels.append(
            tuple(
                _check_text(t, f"{where}: heatmap {name!r}, {key}[{i}]", MAX_LABEL, False)
                for i, t in enumerate(seq)
            )
        )
    return value["values"], labels[0], labels[1]


def text_table(texts: list) -> dict:
    """Per-frame texts (strings, or tuples of label tuples) stored once each: ``{"strings":
    [distinct, in first-seen order], "index": [per frame]}`` (what the page reads)."""
    seen: dict = {}
    index = []
    for t in texts:
        index.append(seen.setdefault(t, len(seen)))
    strings = [list(map(list, t)) if isinstance(t, tuple) else t for t in seen]
    return {"strings": strings, "index": index}
