"""Issue 37: held-out sets that are held out.

Chapter 8's test numbers were drawn independently of training, so 100/100 of its 1- and
2-digit, 72/100 of its 3-digit and 11/100 of its 4-digit test numbers were training numbers;
chapter 7's 1000 test dates included 19 inputs seen in training. Now chapter 8 draws its test
numbers outside the training set wherever enough exist (3 digits on) and labels the rest
"seen in training"; chapter 7's test inputs never occur in training.
"""

from __future__ import annotations

from pathlib import Path

import torch

from scoringbook import ch07_dates, ch08_numbers

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"


def test_chapter_8_test_numbers_are_held_out_or_labelled_seen():
    gen = torch.Generator().manual_seed(2)  # the chapter's recipe
    train = ch08_numbers.random_numbers(10_000, 1, ch08_numbers.TRAIN_MAX, gen)
    tests, held_out = ch08_numbers.test_sets(train, gen)
    seen = set(train)
    assert sorted(tests) == list(range(1, ch08_numbers.TEST_MAX + 1))
    for k, numbers in tests.items():
        shared = sum(x in seen for x in numbers)
        assert len(numbers) == 100 and all(len(x) == k for x in numbers)
        assert held_out[k] == (shared == 0), (k, shared)
    assert [k for k, h in held_out.items() if not h] == [1, 2]  # only 10 and 100 exist
    text = (CHAPTERS / "08_attention_and_length.md").read_text(encoding="utf8")
    assert "spoken.test_sets(train_numbers, num_gen)" in text
    assert "seen in training" in text


def test_held_out_numbers_refuses_nothing_it_can_hold_out():
    gen = torch.Generator().manual_seed(0)
    seen = {f"{i:03d}" for i in range(950)}  # 50 three-digit numbers left: too few for 100
    numbers, held = ch08_numbers.held_out_numbers(100, 3, seen, gen)
    assert not held and len(numbers) == 100
    numbers, held = ch08_numbers.held_out_numbers(40, 3, seen, gen)
    assert held and not set(numbers) & seen


def test_chapter_7_test_inputs_never_occur_in_training():
    gen = torch.Generator().manual_seed(0)  # the chapter's recipe
    train_dates = ch07_dates.random_dates(5000, gen)
    train_sources = ch07_dates.random_sources(train_dates, gen)
    dates, sources = ch07_dates.held_out_examples(1000, gen, train_sources)
    assert len(dates) == len(sources) == 1000
    assert not set(sources) & set(train_sources)
    text = (CHAPTERS / "07_bahdanau_attention.md").read_text(encoding="utf8")
    assert "dates.held_out_examples(\n    1000, data_gen, train_sources\n)" in text
    assert "never trained on" not in text
