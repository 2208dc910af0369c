"""Where the robustness suites find what they attack: every import of the modules under
test goes through here, so a move of the package changes this file only."""

from __future__ import annotations

from attnlib import widgets
from attnlib.plotting import show_heatmaps
from attnlib.widgets import live
from attnlib.widgets.live_masking import PAD
from scoringbook import (
    ch01_exercises,
    ch02_exercises,
    ch07_bahdanau,
    ch07_dates,
    ch07_diagram,
    ch07_exercises,
    ch08_numbers,
    diagrams,
)
from scoringbook import ch03_masked_softmax as ch03
from scoringbook import ch04_additive_attention as ch04
from scoringbook import ch08_lengths as lengths  # chapter 8's length experiment
from scoringbook import seq2seq as s2s  # chapters 7 and 8's encoder-decoder and training
from scoringbook.registry import DECLARATIONS, EXPLORERS, compute

# chapter 7's book machinery: the playback and its two checkers
alignment_playback_declaration = ch07_bahdanau.alignment_playback_declaration
alignment_playback_explorer = ch07_bahdanau.alignment_playback_explorer
check_alignment = ch07_exercises.check_alignment
check_attention_module = ch07_exercises.check_attention_module
#: every checker of the book, by name
CHECKERS = {
    "check_weights": ch01_exercises.check_weights,
    "check_kernel": ch02_exercises.check_kernel,
    "check_masked_softmax": ch03.check_masked_softmax,
    "check_scores": ch04.check_scores,
    "check_alignment": check_alignment,
    "check_attention_module": check_attention_module,
}

__all__ = [
    "ch07_dates",
    "ch07_exercises",
    "ch07_diagram",
    "ch08_numbers",
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
