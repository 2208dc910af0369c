"""Where the robustness suites find what they attack: every import of the modules under
test goes through here, so a move of the package changes this file only."""

from __future__ import annotations

from attnlib import widgets
from attnlib.book import ch01_queries_keys_values as ch01
from attnlib.book import ch02_attention_pooling as ch02
from attnlib.book import ch03_masked_softmax as ch03
from attnlib.book import ch04_additive_attention as ch04
from attnlib.book import ch06_bahdanau, diagrams
from attnlib.book import ch06_lengths as lengths  # chapter 6's length experiment
from attnlib.book import ch06_model as s2s  # chapter 6's date data, model and training
from attnlib.book.registry import DECLARATIONS, EXPLORERS, compute
from attnlib.plotting import show_heatmaps
from attnlib.widgets import live
from attnlib.widgets.live_masking import PAD

# chapter 6's book machinery: the playback and its two checkers
alignment_playback_declaration = ch06_bahdanau.alignment_playback_declaration
alignment_playback_explorer = ch06_bahdanau.alignment_playback_explorer
check_alignment = ch06_bahdanau.check_alignment
check_attention_module = ch06_bahdanau.check_attention_module
#: every checker of the book, by name
CHECKERS = {
    "check_weights": ch01.check_weights,
    "check_kernel": ch02.check_kernel,
    "check_masked_softmax": ch03.check_masked_softmax,
    "check_scores": ch04.check_scores,
    "check_alignment": check_alignment,
    "check_attention_module": check_attention_module,
}

__all__ = [
    "diagrams",
    "lengths",
    "live",
    "PAD",
    "s2s",
    "widgets",
    "DECLARATIONS",
    "EXPLORERS",
    "compute",
    "show_heatmaps",
    "alignment_playback_declaration",
    "alignment_playback_explorer",
    "check_alignment",
    "check_attention_module",
    "CHECKERS",
]
