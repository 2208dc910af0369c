"""Explorers declared once in Python and drawn by one ES module, in JupyterLab and the book.

There are two kinds. A *precomputed* explorer's frames are all computed in Python with
attnlib, and the page only selects and draws the frame of the controls' positions. A
*live* explorer (a query the reader drags, sentences the reader types) stores no frame: the
page computes each one itself with one small JavaScript implementation of attention's
primitives (``attnlib/static/src/primitives.js``), and the declaration's update function,
written with attnlib, is the reference the tests compare the page with. In the book today,
chapter 1's soft lookup, chapter 2's kernel regression, chapter 3's typed sentences and
chapter 5's scoring comparison are live; the other explorers are precomputed.

An explorer is declared once, from

- a pure Python *update function* ``update(**params) -> {panel name: data}`` that computes
  what the panels show with :mod:`attnlib`,
- a list of parameters: :class:`Slider` (a numeric slider over an explicit list of values)
  or :class:`Choice` (a choice among string options), and, for an explorer the page
  computes, :class:`Text` fields the reader types in,
- a list of panels: :class:`Heatmap` (a matrix, queries are rows) or :class:`Lines`
  (line, point or bar series over a shared x axis, plus fixed series such as training
  points; a :class:`Handle` the reader drags, bound to two sliders or, along x, to one;
  :class:`Spokes` from it to a fixed series, weighted by a heatmap's row; a series whose
  points stand for the heatmaps' rows, ``linked_rows``), and, in a precomputed explorer,
  :class:`Caption` (text written for each frame, e.g. a model's output) or a heatmap whose
  tick labels change with the frame (``Heatmap(labels_per_frame=True)``),
- optionally, :class:`Preset` buttons: the "things to try", each setting some controls
  at once and showing one line that says what to notice.

A declaration with ``live=`` (:mod:`attnlib.widgets.live`: ``LiveAttention``,
``LiveKernelRegression``; :mod:`attnlib.widgets.live_masking`: ``LiveMasking``) is live. The
next paragraph describes precomputed explorers.

:class:`Explorer` (an `anywidget <https://anywidget.dev>`_ widget) evaluates the update
function on every point of the product of the parameter grids, validates every frame
(finite, right shapes, optional "rows sum to 1" check) and syncs all frames to the browser
in a compact form: values quantised to 16-bit (or 32-bit) integers with an error below
``1e-4``, identical frames stored once, data shared by all frames (axes, ticks, fixed
series) stored once. The ES module ``attnlib/static/explorer.js`` (bundled from
``attnlib/static/src/``) only picks the frame of the current slider positions and redraws
an SVG; for a precomputed explorer it does no maths beyond colour mapping and layout.
The same widget therefore works live in JupyterLab and in the static HTML book, which
renders widgets from their saved state with no kernel, and the numbers it shows are
attnlib's numbers.

Example::

    >>> import torch
    >>> from attnlib import masked_softmax
    >>> scores = torch.tensor([[[1.0, 2.0, 3.0]]])  # (1, 1, 3)
    >>> def update(temperature):
    ...     return {"weights": masked_softmax(scores / temperature)[0]}
    >>> decl = Declaration(
    ...     name="demo",
    ...     update=update,
    ...     params=[Slider("temperature", [0.5, 1.0, 2.0], default=1.0)],
    ...     panels=[Heatmap("weights", xlabel="keys", ylabel="queries")],
    ... )
    >>> Explorer(decl)
    Explorer('demo': temperature ×3 → heatmap 'weights' 1×3)

The package keeps one concern per module: ``controls`` (what the reader moves),
``panels`` (what is drawn) and ``series`` (a lines panel's series, handle and spokes),
``declaration``, ``encoding`` (frames for the browser), ``widget`` (the anywidget class),
``page`` (a standalone HTML page), and ``live`` / ``live_masking`` (explorers the page
computes; their docstrings state the browser-side maths they are the reference for).
"""

from __future__ import annotations

from attnlib.widgets.caption import Caption, LabelledMatrix
from attnlib.widgets.controls import Choice, ExplorerError, Preset, Slider, Text
from attnlib.widgets.declaration import Declaration
from attnlib.widgets.encoding import MAX_ENCODING_ERROR, decode_frames, encode_frames
from attnlib.widgets.page import standalone_html
from attnlib.widgets.panels import FixedSeries, Handle, Heatmap, Lines, Series, Spokes
from attnlib.widgets.widget import _STATIC, Explorer  # noqa: F401  (_STATIC: the module's files, for tests)

__all__ = [
    "Slider",
    "Choice",
    "Text",
    "Preset",
    "Heatmap",
    "Lines",
    "Caption",
    "LabelledMatrix",
    "Series",
    "FixedSeries",
    "Handle",
    "Spokes",
    "Declaration",
    "Explorer",
    "encode_frames",
    "decode_frames",
    "ExplorerError",
    "standalone_html",
    "MAX_ENCODING_ERROR",
]
