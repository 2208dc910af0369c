"""Chapter 3 numbers its sentences one way on the whole page (issue 39).

The chapter's code and figures count the sentences from 0 (``sentence {b}`` for ``b`` in
``range(3)``: "sentence 2" is "Hello world"); the masking explorer counted them from 1, so
its "sentence 2's block" was "Learn to code today". Here the explorer's field labels, heatmap
titles and notices are read back: each notice that names a sentence names the field its
preset changes, with the code's numbering.
"""

from __future__ import annotations

import re
from pathlib import Path

from scoringbook.ch03_masked_softmax import masking_declaration

CHAPTER = Path(__file__).resolve().parents[2] / "chapters" / "03_masked_softmax.md"


def test_the_explorer_counts_sentences_from_0_like_the_code():
    decl = masking_declaration()
    labels = [t.label for t in decl.texts]
    assert labels == ["sentence 0", "sentence 1", "sentence 2"], labels
    titles = [p.title for p in decl.panels]
    assert titles == labels, titles
    label_of = {t.name: t.label for t in decl.texts}
    for preset in decl.presets:
        named = set(re.findall(r"sentence \d", preset.notice))
        changed = {label_of[k] for k in preset.values if k in label_of}
        if preset.label != "As it opens":  # it restores every field; its notice names none
            assert named <= changed, (preset.label, preset.notice, changed)


def test_the_chapter_code_counts_sentences_from_0():
    text = CHAPTER.read_text(encoding="utf8")
    assert 'print(f"sentence {b}:' in text
    assert 'titles=[f"sentence {b}" for b in range(3)]' in text
    said = {int(n) for n in re.findall(r"[Ss]entence (\d)\b", text)}
    assert said <= {0, 1, 2}, said
