"""attnlib: attention scoring functions, masking, kernel regression and heatmaps.

The library behind the book *Attention Scoring Functions* (following chapter 11.1-11.4
of Dive into Deep Learning, https://d2l.ai). Readers of d2l can replace ``d2l.X`` with
``attnlib.X``.

Shape vocabulary, used everywhere in the package:

- queries ``(batch, n_queries, d)``
- keys ``(batch, n_keys, d)``
- values ``(batch, n_keys, d_v)``
- scores and weights ``(batch, n_queries, n_keys)``: queries are rows, keys are columns
- valid_lens ``(batch,)`` or ``(batch, n_queries)``, integer

Two layers, imports running downward only:

1. the library d2l readers use: :mod:`attnlib.masking`, :mod:`attnlib.scoring`,
   :mod:`attnlib.pooling`, :mod:`attnlib.attention` (with :mod:`attnlib.additive`,
   :mod:`attnlib.cosine`, :mod:`attnlib.bilinear`), :mod:`attnlib.transformer`,
   :mod:`attnlib.kernels` (with :mod:`attnlib.kernel_regression`),
   :mod:`attnlib.plotting`;
2. the widget toolkit: :mod:`attnlib.widgets` (explorers declared in Python, drawn by one
   ES module; :mod:`attnlib.widgets.live` for those the page computes).

The book's own machinery (each chapter's explorers, checkers and claims) is not here: it is
the separate package :mod:`scoringbook`, which imports attnlib and never the other way round.

``plotting`` and ``widgets`` are imported on first use, so ``import attnlib`` stays light.
"""

from attnlib import kernels
from attnlib.attention import (
    AdditiveAttention,
    CosineAttention,
    DotProductAttention,
    GeneralAttention,
    attention_pool,
    bilinear_attention,
    cosine_attention,
    dot_product_attention,
)
from attnlib.kernel_regression import NadarayaWatson, nadaraya_watson
from attnlib.masking import masked_softmax, valid_lens_to_mask
from attnlib.scoring import (
    additive_scores,
    bilinear_scores,
    cosine_scores,
    dot_product_scores,
    gaussian_scores,
)
from attnlib.transformer import (
    MultiHeadAttention,
    PositionalEncoding,
    causal_valid_lens,
    sinusoidal_encoding,
)

__all__ = [
    "masked_softmax",
    "valid_lens_to_mask",
    "dot_product_scores",
    "additive_scores",
    "bilinear_scores",
    "cosine_scores",
    "gaussian_scores",
    "attention_pool",
    "dot_product_attention",
    "cosine_attention",
    "bilinear_attention",
    "DotProductAttention",
    "AdditiveAttention",
    "CosineAttention",
    "GeneralAttention",
    "kernels",
    "nadaraya_watson",
    "NadarayaWatson",
    "show_heatmaps",
    "MultiHeadAttention",
    "PositionalEncoding",
    "sinusoidal_encoding",
    "causal_valid_lens",
]

__version__ = "0.1.0"

_LAZY_SUBMODULES = ("widgets", "plotting")


def __getattr__(name):
    # ``attnlib.widgets`` imports anywidget, ``attnlib.plotting``
    # imports matplotlib (about 0.8 s): load them only when first used, so that
    # ``import attnlib`` stays light.
    if name == "show_heatmaps":
        from attnlib.plotting import show_heatmaps

        return show_heatmaps
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"attnlib.{name}")
    raise AttributeError(f"module 'attnlib' has no attribute {name!r}")
