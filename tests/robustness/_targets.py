"""Where the robustness suites find what they attack: every import of the modules under
test goes through here, so a move of the package changes this file only."""
from __future__ import annotations

from attnlib import diagrams, explorers, live, seq2seq_exercises, seq2seq_explorer
from attnlib import exercises as checkers  # check_weights, check_masked_softmax, ...
from attnlib import seq2seq as s2s  # chapter 6's date data, model and training
from attnlib import widgets
from attnlib.explorers import DECLARATIONS, EXPLORERS, compute
from attnlib.plotting import show_heatmaps

# chapter 6's book machinery: the playback and its two checkers
alignment_playback_declaration = seq2seq_explorer.alignment_playback_declaration
alignment_playback_explorer = seq2seq_explorer.alignment_playback_explorer
check_alignment = seq2seq_exercises.check_alignment
check_attention_module = seq2seq_exercises.check_attention_module
# every checker of the book: (module path, function)
CHECKERS = {
    "check_weights": checkers.check_weights,
    "check_masked_softmax": checkers.check_masked_softmax,
    "check_kernel": checkers.check_kernel,
    "check_scores": checkers.check_scores,
    "check_alignment": check_alignment,
    "check_attention_module": check_attention_module,
}

__all__ = ["diagrams", "explorers", "live", "checkers", "s2s", "widgets", "DECLARATIONS",
           "EXPLORERS", "compute", "show_heatmaps", "alignment_playback_declaration",
           "alignment_playback_explorer", "check_alignment", "check_attention_module",
           "CHECKERS"]
