"""Chapter 8's task: write down a number read aloud, digit by digit.

::

    "three one four one five"  ->  "31415"

The input has about five characters per output digit, so numbers of 1 to 16 digits give
inputs of 3 to 95 characters; chapter 8's models train on 1 to :data:`TRAIN_MAX` digits and
are tested on up to :data:`TEST_MAX`, lengths longer than any seen in training. The output
ends with ``<eos>``; a model that stops early, or late, gets the number wrong.

The model is :class:`scoringbook.seq2seq.EncoderDecoder` (chapter 7's date model, with
these vocabularies). The experiment that compares models over lengths is
:mod:`scoringbook.ch08_lengths`.
"""

from __future__ import annotations

import torch
from torch import Tensor

from attnlib import tensor_domains as T
from attnlib.domains import (
    Anything,
    Checked,
    Generator,
    Instance,
    Int,
    StrList,
    as_int,
    as_str_list,
    check_generator,
    declare,
    describe,
)
from scoringbook.seq2seq import BOS, PAD, SIZE, EncoderDecoder, _encode

__all__ = [
    "wrong_by_position",
    "WORDS",
    "SPOKEN_CHARS",
    "DIGIT_CHARS",
    "EOS",
    "TRAIN_MAX",
    "TEST_MAX",
    "random_numbers",
    "held_out_numbers",
    "test_sets",
    "spell",
    "encode_spoken",
    "encode_digits",
    "NumberModel",
    "read_numbers",
    "scores",
    "word_weights",
]


WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
#: Source vocabulary: padding, begin-of-sequence (unused, keeps the ids of PAD and BOS),
#: space and the letters of the digits' names.
SPOKEN_CHARS = ["<pad>", "<bos>", " "] + sorted(set("".join(WORDS)))
#: Target vocabulary: padding, begin- and end-of-sequence, the ten digits.
DIGIT_CHARS = ["<pad>", "<bos>", "<eos>"] + list("0123456789")
EOS = 2
TRAIN_MAX = 8  # the longest number in training, in digits
TEST_MAX = 16  # the longest number tested
_SPOKEN_INDEX = {c: i for i, c in enumerate(SPOKEN_CHARS)}
assert SPOKEN_CHARS[PAD] == DIGIT_CHARS[PAD] == "<pad>" and DIGIT_CHARS[BOS] == "<bos>"


@declare(
    n=Int(ge=1, le=10**7),
    min_digits=Int(ge=1, le=1000),
    max_digits=Int(ge=1, le=1000),
    generator=Generator(),
)
def random_numbers(
    n: int, min_digits: int, max_digits: int, generator: torch.Generator
) -> list[str]:
    """``n`` strings of random digits, each of a length drawn uniformly from
    ``min_digits`` to ``max_digits`` (a leading zero is allowed: "0123" is read "zero one
    two three")."""
    fn = "random_numbers"
    n = as_int(n, "n", fn, min=1)
    min_digits = as_int(min_digits, "min_digits", fn, min=1)
    max_digits = as_int(max_digits, "max_digits", fn, min=1)
    generator = check_generator(generator, "generator", fn)
    if not 1 <= min_digits <= max_digits:
        raise ValueError(
            f"random_numbers: need 1 <= min_digits <= max_digits; got {min_digits}, {max_digits}"
        )
    lengths = torch.randint(min_digits, max_digits + 1, (n,), generator=generator).tolist()
    digits = torch.randint(0, 10, (sum(lengths),), generator=generator).tolist()
    out, at = [], 0
    for k in lengths:
        out.append("".join(str(d) for d in digits[at : at + k]))
        at += k
    return out


@declare(
    n=Int(ge=1, le=10**6),
    k=Int(ge=1, le=1000),
    seen=Instance(set, frozenset, what="a set of digit strings"),
    generator=Generator(),
)
def held_out_numbers(
    n: int, k: int, seen: set[str] | frozenset[str], generator: torch.Generator
) -> tuple[list[str], bool]:
    """``n`` random numbers of exactly ``k`` digits for testing, and whether they are held
    out: none of them in ``seen`` (the training numbers) when at least ``n`` numbers of ``k``
    digits are not in ``seen``; otherwise (1 or 2 digits: all 10 or 100 such numbers occur
    among 10 000 training numbers) ``n`` random ones, every one also a training number, and
    ``False``: the caller must label that length "seen in training".

    Returns:
        ``(numbers, held_out)``.
    """
    fn = "held_out_numbers"
    n = as_int(n, "n", fn, min=1)
    k = as_int(k, "k", fn, min=1)
    generator = check_generator(generator, "generator", fn)
    if isinstance(seen, (str, bytes)) or not isinstance(seen, (set, frozenset)):
        raise TypeError(f"{fn}: seen must be a set of digit strings; got {type(seen).__name__}")
    unseen = 10**k - sum(1 for s in seen if isinstance(s, str) and len(s) == k)
    if unseen < n:
        return random_numbers(n, k, k, generator), False
    out: list[str] = []
    while len(out) < n:
        out += [x for x in random_numbers(n, k, k, generator) if x not in seen][: n - len(out)]
    return out, True


@declare(train_numbers=StrList(), generator=Generator(), n=Int(ge=1, le=10**6))
def test_sets(
    train_numbers: list[str], generator: torch.Generator, n: int = 100
) -> tuple[dict[int, list[str]], dict[int, bool]]:
    """The chapter's test numbers: for each length ``k`` from 1 to :data:`TEST_MAX`, ``n``
    numbers drawn by :func:`held_out_numbers` (none in ``train_numbers`` where that is
    possible), and whether each length's numbers are held out.

    Returns:
        ``(tests, held_out)``: ``{k: numbers}`` and ``{k: bool}``.
    """
    if isinstance(train_numbers, (str, bytes)) or not isinstance(train_numbers, (list, tuple)):
        raise TypeError(
            f"test_sets: train_numbers must be a list of digit strings; got "
            f"{type(train_numbers).__name__}"
        )
    seen = set(train_numbers)
    tests, held_out = {}, {}
    for k in range(1, TEST_MAX + 1):
        tests[k], held_out[k] = held_out_numbers(n, k, seen, generator)
    return tests, held_out


def _digits(number: object, name: str, fn: str) -> str:
    if not isinstance(number, str) or not number or not number.isascii() or not number.isdigit():
        raise ValueError(f"{fn}: {name} must be a non-empty string of digits; got {number!r}")
    return number


#: a number as the task writes it (a non-empty string of ASCII digits), and a list of them
DIGITS = Checked(_digits)


@declare(number=DIGITS)
def spell(number: str) -> str:
    """The number read aloud: ``"314"`` -> ``"three one four"``."""
    return " ".join(WORDS[int(c)] for c in number)


def _numbers(value: object, name: str, fn: str) -> tuple[str, ...]:
    """A non-empty list of strings of ASCII digits (a bare ``str`` is refused: it would be
    read one number per character)."""
    out = as_str_list(value, name, fn, nonempty=True)
    for i, x in enumerate(out):
        if not x or not x.isascii() or not x.isdigit():
            raise ValueError(f"{fn}: {name}[{i}] must be a non-empty string of digits; got {x!r}")
    return out


NUMBERS = Checked(_numbers)


@declare(numbers=NUMBERS)
def encode_spoken(numbers: list[str]) -> tuple[Tensor, Tensor]:
    """The spoken inputs' character ids ``(batch, n_in)`` padded with ``PAD``, and their
    lengths ``(batch,)``."""
    numbers = _numbers(numbers, "numbers", "encode_spoken")
    return _encode([spell(x) for x in numbers], _SPOKEN_INDEX, "encode_spoken")


@declare(numbers=NUMBERS)
def encode_digits(numbers: list[str]) -> Tensor:
    """Target ids ``(batch, longest + 1)``: the digits, then ``<eos>``, then ``PAD``."""
    numbers = _numbers(numbers, "numbers", "encode_digits")
    n_out = max(len(x) for x in numbers) + 1
    ids = torch.full((len(numbers), n_out), PAD, dtype=torch.long)
    for b, x in enumerate(numbers):
        ids[b, : len(x) + 1] = torch.tensor([3 + int(c) for c in x] + [EOS])
    return ids


class NumberModel(EncoderDecoder):
    """:class:`scoringbook.seq2seq.EncoderDecoder` with the spoken-digit vocabularies.

    ``attention``: ``True`` (additive), ``False`` (one fixed context) or ``"uniform"``
    (query-blind), as there.
    """

    @declare(
        attention=Anything("True, False, 'uniform' or a callable: checked by EncoderDecoder"),
        embed_size=SIZE,
        num_hiddens=SIZE,
    )
    def __init__(self, *, attention=True, embed_size: int = 16, num_hiddens: int = 32) -> None:
        super().__init__(
            len(SPOKEN_CHARS),
            len(DIGIT_CHARS),
            attention=attention,
            embed_size=embed_size,
            num_hiddens=num_hiddens,
        )


@declare(
    model=Instance(EncoderDecoder, what="an EncoderDecoder (e.g. a NumberModel)"),
    numbers=Anything("strings of digits: checked by _numbers"),
    extra=Int(ge=0, le=1000),
)
def read_numbers(
    model: EncoderDecoder, numbers: list[str], *, extra: int = 3
) -> tuple[list[str], Tensor | None]:
    """Greedy decoding of the spoken ``numbers``: the digits written before ``<eos>`` and
    the weights ``(batch, n_out, n_in)`` (or None without attention).

    The decoder runs for the longest number's length plus ``extra`` steps, so an output
    that goes on too long is seen; a symbol other than a digit before ``<eos>`` is written
    as ``?``.
    """
    numbers = _numbers(numbers, "numbers", "read_numbers")
    extra = as_int(extra, "extra", "read_numbers", min=0)
    src, lens = encode_spoken(numbers)
    n_out = max(len(x) for x in numbers) + extra
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            logits, w = model(src, lens, n_out=n_out)
    finally:
        model.train(was_training)  # the caller's mode, as it was
    out = []
    for row in logits.argmax(dim=-1).tolist():  # (batch, n_out)
        text = []
        for i in row:
            if i == EOS:
                break
            text.append(DIGIT_CHARS[i] if i > EOS else "?")
        out.append("".join(text))
    return out, w


@declare(predicted=StrList(), numbers=Anything("strings of digits: checked by _numbers"))
def scores(predicted: list[str], numbers: list[str]) -> tuple[float, float]:
    """Exact match (the share of numbers written exactly, no digit more or fewer) and
    per-digit accuracy (the share of the true digits written right, position by position;
    a missing digit counts as wrong)."""
    predicted = as_str_list(predicted, "predicted", "scores")
    numbers = _numbers(numbers, "numbers", "scores")
    if len(predicted) != len(numbers):
        raise ValueError(
            f"scores: need as many predictions as numbers (>= 1); got predicted of "
            f"{len(predicted)} and numbers of {len(numbers)}"
        )
    exact = sum(p == x for p, x in zip(predicted, numbers)) / len(numbers)
    right = sum(sum(a == b for a, b in zip(p, x)) for p, x in zip(predicted, numbers))
    return exact, right / sum(len(x) for x in numbers)


@declare(predicted=StrList(), numbers=Anything("strings of digits: checked by _numbers"))
def wrong_by_position(predicted: list[str], numbers: list[str]) -> list[int]:
    """How many outputs have the digit at each position wrong (or missing), for numbers
    of one length."""
    predicted = as_str_list(predicted, "predicted", "wrong_by_position")
    numbers = _numbers(numbers, "numbers", "wrong_by_position")
    if len(predicted) != len(numbers):
        raise ValueError(
            f"wrong_by_position: need as many predictions as numbers; got predicted of "
            f"{len(predicted)} and numbers of {len(numbers)}"
        )
    k = len(numbers[0])
    if any(len(x) != k for x in numbers):
        raise ValueError("wrong_by_position: the numbers must all have the same length")
    return [sum(i >= len(p) or p[i] != x[i] for p, x in zip(predicted, numbers)) for i in range(k)]


@declare(weights=T.FloatTensor("n_out n_in", finite=True), number=DIGITS)
def word_weights(weights: Tensor, number: str) -> Tensor:
    """Character weights ``(n_out, n_in)`` summed over each spoken digit: ``(n_out,
    len(number))``. A word's weight includes the space after it."""
    text = spell(number)
    if not isinstance(weights, Tensor) or not weights.is_floating_point():
        raise TypeError(f"word_weights: weights must be a float tensor; got {describe(weights)}")
    if weights.ndim == 2 and not torch.isfinite(weights).all():
        raise ValueError("word_weights: weights must be finite")
    if weights.ndim != 2 or weights.shape[1] < len(text):
        raise ValueError(
            f"word_weights: weights must be (n_out, n_in) with n_in >= {len(text)}; "
            f"got {tuple(weights.shape)}"
        )
    word = torch.tensor([text[:j].count(" ") for j in range(len(text))])  # (n_in,)
    out = weights.new_zeros(weights.shape[0], len(number))
    out.index_add_(1, word, weights[:, : len(text)])
    return out  # (n_out, n_words)
