"""The book's explorers by name: ``EXPLORERS``, ``DECLARATIONS`` and :func:`compute`.

==================================== ======= =================================================
builder                              chapter shows
==================================== ======= =================================================
``soft_lookup_explorer``             1       drag the query; the output inside the hull (page)
``softmax_temperature_explorer``     1       softmax(scores / T): one-hot ... uniform
``kernel_regression_explorer``       2       drag the query x: Nadaraya-Watson weights (page)
``bandwidth_training_explorer``      2       playback of learning the bandwidth
``masking_explorer``                 3       masked softmax of typed sentences (page)
``additive_attention_explorer``      4       additive attention weights as a query moves
``scaling_explorer``                 5       why scaled dot-product divides by sqrt(d)
``scoring_comparison_explorer``      5       one dragged query, six scoring functions (page)
``decode_step_explorer``             7       one decoder step at a time: the query moves
``alignment_playback_explorer``      7       the date model's alignment over training
``length_explorer``                  8       both models' outputs and attention, by length
``heads_playback_explorer``          9       a head's weights over training, loss curve
``heads_explorer``                   9       pick a layer, head and sequence: its weights
``ablation_explorer``                9       zero heads: accuracy on the repeated part
==================================== ======= =================================================

(page): the page computes each frame (:mod:`attnlib.widgets.live`); the others' frames are
computed here in Python and stored. ``compute(name, **params)`` returns one frame
(``{panel: data}``) computed directly by attnlib, e.g.::

    >>> w = compute("softmax_temperature", temperature=1.0)["weights"]
    >>> w.shape
    (4, 8)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attnlib.widgets import Declaration, Explorer
from scoringbook import ch01_queries_keys_values as ch01
from scoringbook import ch02_attention_pooling as ch02
from scoringbook import ch03_masked_softmax as ch03
from scoringbook import ch04_additive_attention as ch04
from scoringbook import ch05_scaled_dot_product as ch05

__all__ = ["EXPLORERS", "DECLARATIONS", "compute"]

#: name -> builder (no arguments) returning an Explorer (chapters 7 and 8's need a training run).
EXPLORERS: dict[str, Callable[..., Explorer]] = {
    "soft_lookup": ch01.soft_lookup_explorer,
    "softmax_temperature": ch01.softmax_temperature_explorer,
    "kernel_regression": ch02.kernel_regression_explorer,
    "bandwidth_training": ch02.bandwidth_training_explorer,
    "masking": ch03.masking_explorer,
    "additive_attention": ch04.additive_attention_explorer,
    "scaling": ch05.scaling_explorer,
    "scoring_comparison": ch05.scoring_comparison_explorer,
    "decode_step": lambda: _decode_step_module().decode_step_explorer(),
}


def _decode_step_module():
    """Chapter 7's module, imported on first use (it loads the date model's code)."""
    from scoringbook import ch07_bahdanau

    return ch07_bahdanau


def _alignment_playback_declaration() -> Declaration:
    """Chapter 7's playback: trains the chapter's model once (about 10 s, then cached)."""
    from scoringbook.ch07_bahdanau import chapter_playback_declaration

    return chapter_playback_declaration()


def _length_experiment_declaration() -> Declaration:
    """Chapter 8's length explorer: trains the chapter's three models once (then cached)."""
    from scoringbook.ch08_lengths import chapter_length_declaration

    return chapter_length_declaration()


def _ch09_declaration(name: str) -> Callable[[], Declaration]:
    """Chapter 9's explorers: train the chapter's model once (seed 0; then cached)."""

    def build() -> Declaration:
        from scoringbook import ch09_multihead as ch09
        from scoringbook.ch09_model import chapter_run

        builder = getattr(ch09, f"{name}_declaration")
        return builder(chapter_run())

    build.__name__ = f"_{name}_declaration"
    return build


#: name -> declaration builder (cheap: computes no frame; chapters 7, 8 and 9's train their
#: models once).
DECLARATIONS: dict[str, Callable[..., Declaration]] = {
    "soft_lookup": ch01.soft_lookup_declaration,
    "softmax_temperature": ch01.softmax_temperature_declaration,
    "kernel_regression": ch02.kernel_regression_declaration,
    "bandwidth_training": ch02.bandwidth_training_declaration,
    "masking": ch03.masking_declaration,
    "additive_attention": ch04.additive_attention_declaration,
    "scaling": ch05.scaling_declaration,
    "scoring_comparison": ch05.scoring_comparison_declaration,
    "decode_step": lambda: _decode_step_module().decode_step_declaration(),
    "alignment_playback": _alignment_playback_declaration,
    "length_experiment": _length_experiment_declaration,
    "heads_playback": _ch09_declaration("heads_playback"),
    "heads": _ch09_declaration("heads"),
    "ablation": _ch09_declaration("ablation"),
}


def compute(name: str, **params: Any) -> dict[str, Any]:
    """One frame of explorer ``name`` for the given parameter values, computed by attnlib.

    Returns ``{panel: data}``: a heatmap is a 2-D ``numpy`` array (queries are rows), a
    lines panel a dict ``{series: 1-D array}`` (a ``(2, n)`` array of coordinates for a
    series of points with their own x). Missing parameters take the explorer's default.
    This is what the browser tests compare the rendered page against.
    """
    if name not in DECLARATIONS:
        raise KeyError(f"unknown explorer {name!r}; expected one of {sorted(DECLARATIONS)}")
    return DECLARATIONS[name]().compute(**params)
