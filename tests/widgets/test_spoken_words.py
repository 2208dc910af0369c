"""The words of an explorer's spoken line (its aria-live sentence), without a browser:
``attnlib/static/src/spoken.js`` is imported in Node and called with the labels and captions
the book's explorers declare.

A cold read heard chapter 9's explorer say "a word pair's; weight" (its caption, broken onto
two lines for a phone, was read line by line with "; "), and chapter 10's heads explorer say
"head layer 1, head 1" (the menu's label before an option that already names the head).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from _chromium import unavailable

from scoringbook.ch09_explorer import word_order_declaration

SPOKEN = Path(__file__).resolve().parents[2] / "attnlib" / "static" / "src" / "spoken.js"


def _node_call(function: str, calls: list[list]) -> list:
    """``function(*args)`` of spoken.js for each ``args`` in ``calls``, evaluated in Node."""
    node = shutil.which("node")
    if node is None:
        unavailable("node is not installed (the page's JavaScript runs in Node here)")
    if not SPOKEN.is_file():
        pytest.fail(f"{SPOKEN} is missing: the spoken line's words are not testable")
    script = (
        f"import * as S from {json.dumps(SPOKEN.as_uri())}; let text = ''; "
        "for await (const c of process.stdin) text += c; "
        f"process.stdout.write(JSON.stringify(JSON.parse(text).map((a) => S.{function}(...a))));"
    )
    r = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_chapter_9s_caption_is_spoken_as_the_sentence_it_is():
    decl = word_order_declaration()
    texts = sorted({decl.compute(**params)["change"] for _, params in decl.grid()})
    spoken = _node_call("captionWords", [[t] for t in texts])
    for text, said in zip(texts, spoken):
        # the sentence's own words, in order, with nothing between them
        assert said == " ".join(text.split()), (text, said)
        assert ";" not in said, said
        assert re.fullmatch(
            r"Shuffling (changes a word pair's weight by at most \d\.\d{2,3}|leaves every "
            r"word pair's weight as it was \(any difference is rounding\))\.",
            said,
        ), said


def test_caption_lines_are_items_and_an_indented_line_continues_the_one_before():
    cases = [
        ("k is 2\nsecond line", "k is 2; second line"),  # two lines: two items
        ("a  b\n\n   \nc", "a b; c"),  # aligning spaces and blank lines go
        # a sentence wrapped for a phone, its second line indented (chapter 8's "read aloud")
        ("read aloud: one two\n  three four\nthe number: 1234", "read aloud: one two three four; "
         "the number: 1234"),
        ("with attention: 1234\n  ✓ right", "with attention: 1234 ✓ right"),
    ]  # fmt: skip
    said = _node_call("captionWords", [[text] for text, _ in cases])
    assert said == [want for _, want in cases]


def test_a_control_is_named_once():
    cases = [
        (("head", "layer 1, head 1"), "layer 1, head 1"),  # chapter 10: not "head layer 1, ..."
        (("head", "head 2"), "head 2"),  # chapter 9: not "head head 2"
        (("training step", "400"), "training step 400"),
        (("mask", "none"), "mask none"),
        (("held-out sequence", "repeat of 7: A B …"), "held-out sequence repeat of 7: A B …"),
        (("head", "headless"), "head headless"),  # a word that only starts with the label
        # chapter 7: was "decode step (output character) 9: 2" (a ratio, the step twice)
        (("decode step (output character)", "9: 2"), "decode step 9 (output character “2”)"),
        (("decode step (output character)", "10: -"), "decode step 10 (output character “-”)"),
    ]
    said = _node_call("controlWords", [list(args) for args, _ in cases])
    assert said == [want for _, want in cases]


def test_a_row_is_spoken_with_its_index_when_labelled():
    # rowWords(i, row, rowName, colName, [rowsNamed, colsNamed]) in Node: names built there
    node = shutil.which("node")
    if node is None:
        unavailable("node is not installed (the page's JavaScript runs in Node here)")
    if not SPOKEN.is_file():
        pytest.fail(f"{SPOKEN} is missing")
    script = (
        f"import {{ rowWords }} from {json.dumps(SPOKEN.as_uri())}; "
        "const rn = (i) => `token now (query) “${'ABCA'[i]}”`; "
        "const cn = (j) => `earlier token (key) “${'ABCA'[j]}”`; "
        "process.stdout.write(JSON.stringify(["
        "rowWords(3, [0.1, 0.123, 0.7, 0.077], rn, cn, [true, true]),"
        "rowWords(1, [0.25, 0.75], (i) => `query ${i}`, (j) => `key ${j}`, [false, false])]));"
    )
    r = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [
        "row 3, token now (query) “A” puts 0.70 of its weight on earlier token (key) “C” "
        "(column 2).",
        "query 1 puts 0.75 of its weight on key 1.",
    ]


def test_a_row_whose_top_weights_tie_names_every_tied_key():
    # chapter 5's "At the origin": a Laplace row ties keys 0-4 at 0.19 (0.2 less a little to
    # key 5); it said "puts 0.19 of its weight on key 4", the last of the tie the loop kept
    node = shutil.which("node")
    if node is None:
        unavailable("node is not installed (the page's JavaScript runs in Node here)")
    script = (
        f"import {{ rowWords }} from {json.dumps(SPOKEN.as_uri())}; "
        "const q = (i) => `query ${i}`, k = (j) => `key ${j}`; "
        "process.stdout.write(JSON.stringify(["
        "rowWords(0, [0.1905, 0.1905, 0.1905, 0.1905, 0.1905, 0.0475], q, k, [false, false]),"
        "rowWords(2, [0.4, 0.4004, 0.1996], q, k, [false, true]),"
        "rowWords(1, [0.3, 0.302, 0.398], q, k, [false, false])]));"
    )
    r = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [
        "query 0 puts 0.19 of its weight on each of key 0, key 1, key 2, key 3 and key 4.",
        "query 2 puts 0.40 of its weight on each of key 0 (column 0) and key 1 (column 1).",
        "query 1 puts 0.40 of its weight on key 2.",  # 0.398 vs 0.302: no tie
    ]


def test_a_share_is_words_at_two_decimals():
    # a cold read (stop 44) heard "puts 1 of its weight" (a count?) and "the largest weight,
    # 0.1" beside a "0.13": a whole row is "all", a share two decimals round to 1 "nearly all",
    # and every other share has two decimals
    cases = [1.0, 0.99996, 0.998, 0.995, 0.9949, 0.1, 0.13, 0.5, 0.004, 0.0]
    said = _node_call("shareWords", [[w] for w in cases])
    assert said == ["all", "all", "nearly all", "nearly all", "0.99", "0.10", "0.13", "0.50",
                    "0.00", "none"]  # fmt: skip


def test_a_one_hot_row_puts_all_of_its_weight_and_a_zero_row_none():
    node = shutil.which("node")
    if node is None:
        unavailable("node is not installed (the page's JavaScript runs in Node here)")
    script = (
        f"import {{ rowWords }} from {json.dumps(SPOKEN.as_uri())}; "
        "const q = (i) => `query ${i}`, k = (j) => `key ${j}`; "
        "process.stdout.write(JSON.stringify(["
        "rowWords(0, [0, 1, 0], q, k, [false, false]),"
        "rowWords(1, [0.001, 0.998, 0.001], q, k, [false, false]),"
        "rowWords(2, [0, 0, 0], q, k, [false, false])]));"
    )
    r = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [
        "query 0 puts all of its weight on key 1.",
        "query 1 puts nearly all of its weight on key 1.",
        "query 2 puts no weight on any key (every weight is 0).",
    ]


def test_kernel_regression_names_the_outlined_fixed_query():
    # chapter 2: the query at x = 1.50, the outlined heatmap row at 1.58 (the fixed query
    # nearest it), said so; weights at two decimals; a one-hot fit says "all of the weight"
    calls = [
        [3.2561, [0.1, 0.05, 0.13], [1.44, 1.2, 1.6], 1.58],
        [1.0, [0.0, 1.0, 0.0], [0.1, 2.41, 3.0], None],
        [0.5, [0.25, 0.25, 0.25, 0.25], [0, 1, 2, 3], 2.0],
    ]
    assert _node_call("kernelWords", calls) == [
        "the fit at the query is 3.26; the largest weight, 0.13, is on the training input at "
        "x = 1.60; the outlined heatmap row is the fixed query nearest yours, x = 1.58.",
        "the fit at the query is 1.00; all of the weight is on the training input at x = 2.41.",
        "the fit at the query is 0.50; every training input has the same weight, 0.25; the "
        "outlined heatmap row is the fixed query nearest yours, x = 2.00.",
    ]
