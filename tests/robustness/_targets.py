"""Where the robustness suites find what they attack: every import of the modules under
test goes through here, so a move of the package changes this file only."""

from __future__ import annotations

from attnlib import widgets
from attnlib.plotting import show_heatmaps
from attnlib.widgets import live
from attnlib.widgets.live_masking import PAD
from scoringbook import ch01_queries_keys_values as ch01
from scoringbook import ch02_attention_pooling as ch02
from scoringbook import ch03_masked_softmax as ch03
from scoringbook import ch04_additive_attention as ch04
from scoringbook import ch07_bahdanau, diagrams
from scoringbook import ch08_lengths as lengths  # chapter 6's length experiment
from scoringbook import seq2seq as s2s  # chapter 6's date data, model and training
from scoringbook.registry import DECLARATIONS, EXPLORERS, compute

# chapter 6's book machinery: the playback and its two checkers
alignment_playback_declaration = ch07_bahdanau.alignment_playback_declaration
alignment_playback_explorer = ch07_bahdanau.alignment_playback_explorer
check_alignment = ch07_bahdanau.check_alignment
check_attention_module = ch07_bahdanau.check_attention_module
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
