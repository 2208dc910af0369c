"""Chapter 3's explorer in the built book: the reader types three sentences; the page splits
them into tokens, pads them, labels the heatmaps with the words and computes the masked
softmax itself (attnlib/static/src/primitives.js, `maskingFrame`). Each state is checked against
attnlib's (`scoringbook.compute`), within 1e-4."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from .._frames import _check_frame, snapshot
from ..conftest import opened_explorer, page_of

pytestmark = pytest.mark.browser

PAGE = page_of("masking")
SEL = '.attn-explorer[data-explorer="masking"]'
# ASCII and not: a no-break space and an ideographic space stay inside a word (only ASCII
# whitespace splits), a long word and a word of emoji are cut to 10 characters on the ticks
WORDS = (
    "the cat sat on a mat Dive into Deep Learning <pad> é über ÜBER 東京 x The CAT "
    "supercalifragilistic "
    "a\u00a0b c\u3000d \U0001f642\U0001f642\U0001f642\U0001f642\U0001f642\U0001f642\U0001f642"
    "\U0001f642\U0001f642\U0001f642\U0001f642 Σίσυφος ǅemal"
).split(" ")
SPLIT = re.compile(r"[ \t\n\r\f\v]+")

STATE_JS = (
    """
() => {
  const ex = document.querySelector('%s');
  return {k: [...document.querySelectorAll('.attn-explorer')].indexOf(ex), params: JSON.parse(ex.dataset.params),
          labels: [...ex.querySelectorAll('svg.attn-heatmap')].map((s) => JSON.parse(s.dataset.colLabels || 'null')),
          ticks: [...ex.querySelectorAll('svg.attn-heatmap')].map((s) =>
            [...s.querySelectorAll('text.attn-tick')].map((t) => t.textContent)),
          live: ex.querySelector('.attn-live').textContent};
}
"""
    % SEL
)


def _opened(browser, visits, **context):
    return opened_explorer(browser, visits, PAGE, "masking", **context)


def _check(page, texts: list[str], where: str) -> dict:
    s = page.evaluate(STATE_JS)
    assert [s["params"][f"sentence_{b}"] for b in range(3)] == texts, s["params"]
    _check_frame(snapshot(page, s["k"]), f"{where}: {texts}")  # weights within 1e-4 of attnlib's
    for b, text in enumerate(texts):
        toks = [t for t in SPLIT.split(text) if t][:6]
        padded = toks + ["<pad>"] * (6 - len(toks))
        assert s["labels"][b] == padded, f"sentence {b} {text!r}: labelled {s['labels'][b]}"
        cut = [t if len(t) <= 10 else t[:9] + "\u2026" for t in padded]
        assert s["ticks"][b][:12] == cut + cut, f"sentence {b}: ticks {s['ticks'][b][:12]}"
    return s


def test_typed_sentences_give_attnlib_s_weights_and_label_the_maps(browser, visits):
    rng = random.Random(5)
    with _opened(browser, visits) as page:
        s = _check(
            page, ["Dive into Deep Learning", "Learn to code", "Hello world"], "as it opens"
        )
        assert "valid lengths 4, 3, 2 of 6 tokens; the <pad> keys get no weight" in s["live"], s[
            "live"
        ]
        for r in range(25):
            texts = [
                " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 9))) for _ in range(3)
            ]
            for b, t in enumerate(texts):
                page.fill(f'{SEL} input[data-param="sentence_{b}"]', t)
            _check(page, texts, f"round {r}")


def test_typing_with_the_keyboard_and_reset(browser, visits):
    with _opened(browser, visits) as page:
        field = page.get_by_role(
            "combobox", name="sentence 1", exact=True
        )  # a text field with suggestions
        assert field.get_attribute("list"), "the field offers no suggestions"
        options = page.evaluate(
            "(id) => [...document.getElementById(id).options].map((o) => o.value)",
            field.get_attribute("list"),
        )
        assert "Attention is all you need" in options
        field.click()
        field.press("End")
        field.press_sequentially(" now")  # key by key, as a reader types
        texts = ["Dive into Deep Learning", "Learn to code now", "Hello world"]
        s = _check(page, texts, "typed")
        assert "valid lengths 4, 4, 2" in s["live"]
        page.select_option(f'{SEL} select[data-param="masking"]', "2")  # none
        s = page.evaluate(STATE_JS)
        assert (
            s["params"]["masking"] == "none"
            and "the <pad> keys get up to 0.76 of a row's weight" in s["live"]
        ), s["live"]
        page.click(f"{SEL} .attn-reset")
        _check(page, ["Dive into Deep Learning", "Learn to code", "Hello world"], "after Reset")
        assert page.evaluate(STATE_JS)["params"]["masking"] == "query_lengths"


def test_an_empty_sentence_is_all_zero_rows_and_a_repeated_word_one_key(browser, visits):
    with _opened(browser, visits) as page:
        page.fill(f'{SEL} input[data-param="sentence_0"]', "")
        page.fill(f'{SEL} input[data-param="sentence_2"]', "a a a")
        _check(page, ["", "Learn to code", "a a a"], "empty and repeated")
        w = page.evaluate(
            f"() => [...document.querySelectorAll('{SEL} svg.attn-heatmap')].map((s) => "
            "Array.from(s.attnValues))"
        )
        assert not any(w[0]), "an empty sentence must have all-zero rows"
        third = np.array(w[2]).reshape(6, 6)
        np.testing.assert_allclose(third[:3, :3], 1 / 3, atol=1e-12)


def test_one_length_per_sentence_gives_attnlib_s_weights_and_pad_rows_that_attend(browser, visits):
    """The first option: valid lengths of shape (batch,), as in the chapter's first figure."""
    rng = random.Random(7)
    with _opened(browser, visits) as page:
        page.select_option(f'{SEL} select[data-param="masking"]', "0")
        s = _check(
            page, ["Dive into Deep Learning", "Learn to code", "Hello world"], "per sentence"
        )
        assert s["params"]["masking"] == "sentence_lengths", s["params"]
        assert "the <pad> keys get no weight" in s["live"], s["live"]
        # the spoken line reads the choice's label: it says what the mode does
        assert "length per sentence" in s["live"], s["live"]
        w = page.evaluate(
            f"() => [...document.querySelectorAll('{SEL} svg.attn-heatmap')].map((s) => "
            "Array.from(s.attnValues))"
        )
        third = np.array(w[2]).reshape(6, 6)  # "Hello world": two words, four <pad> rows
        np.testing.assert_allclose(third.sum(1), 1, atol=1e-12)
        assert np.all(third[:, 2:] == 0) and np.all(third[2:, :2] > 0)
        for r in range(8):
            texts = [
                " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 9))) for _ in range(3)
            ]
            for b, t in enumerate(texts):
                page.fill(f'{SEL} input[data-param="sentence_{b}"]', t)
            _check(page, texts, f"per sentence, round {r}")
