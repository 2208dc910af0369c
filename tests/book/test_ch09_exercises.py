"""Chapters 9 and 10's checkers (scoringbook.ch09_exercises, ch10_exercises): right answers
pass, the classic slips fail with their diagnosis, half-precision answers are judged at their
precision, and every checker calls the learner's functions on inputs that differ in every size."""

from __future__ import annotations

import math

import pytest
import torch

from scoringbook import ch09_exercises as ex
from scoringbook import ch10_exercises as ex10
from scoringbook.ch10_scores import induction_score, previous_token_score


def split(x, H):
    b, n, d = x.shape
    return x.reshape(b, n, H, d // H).permute(0, 2, 1, 3).reshape(b * H, n, d // H)


def merge(x, H):
    bh, n, dh = x.shape
    return x.reshape(bh // H, H, n, dh).permute(0, 2, 1, 3).reshape(bh // H, n, H * dh)


def table(n, d):
    i = torch.arange(n, dtype=torch.float64)[:, None]
    w = 10000 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    P = torch.zeros(n, d, dtype=torch.float64)
    P[:, 0::2], P[:, 1::2] = torch.sin(i / w), torch.cos(i / w)
    return P.float()


def offset(delta, d, transpose=False):
    M = torch.zeros(d, d)
    for j in range(d // 2):
        a = delta / 10000 ** (2 * j / d)
        block = torch.tensor([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        M[2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = block.T if transpose else block
    return M


def lens(b, n):
    return torch.arange(1, n + 1).repeat(b, 1)


def allowed(n):
    return torch.ones(n, n, dtype=torch.bool).tril()


def test_right_answers_pass():
    assert ex.check_heads(split, merge)
    assert ex.check_sinusoidal(table)
    assert ex.check_relative_offset(offset)
    assert ex.check_causal_masks(lens, allowed, lambda n: ~allowed(n))
    additive = lambda n: torch.zeros(n, n).masked_fill(~allowed(n), float("-inf"))  # noqa: E731
    assert ex.check_causal_masks(lens, additive, additive)
    assert ex10.check_head_score(previous_token_score, "previous")
    assert ex10.check_head_score(induction_score, "induction")


@pytest.mark.parametrize(
    "verdict, words",
    [
        (lambda: ex.check_heads(lambda x, H: x.reshape(x.shape[0] * H, x.shape[1], -1), merge),
         "permute(0, 2, 1, 3)"),
        (lambda: ex.check_heads(split, lambda x, H: x.reshape(x.shape[0] // H, x.shape[1], -1)),
         "does not undo the split"),
        (lambda: ex.check_sinusoidal(lambda n, d: table(n, d)[:, [1, 0] + list(range(2, d))]
                                     if d == 2 else torch.stack(
                                         [table(n, d)[:, 1::2], table(n, d)[:, 0::2]], -1
                                     ).reshape(n, d)), "swapped"),
        (lambda: ex.check_relative_offset(lambda a, d: offset(a, d, transpose=True)),
         "transpose"),
        (lambda: ex.check_causal_masks(lens, allowed, allowed), "other convention"),
        (lambda: ex.check_causal_masks(lambda b, n: torch.arange(n).repeat(b, 1), allowed,
                                       lambda n: ~allowed(n)), "i + 1 keys"),
        (lambda: ex.check_causal_masks(lens, lambda n: allowed(n).float(),
                                       lambda n: ~allowed(n)), "float mask is added"),
        (lambda: ex10.check_head_score(
            lambda w, k: torch.diagonal(w, offset=-(w.shape[-1] // 2 - 1), dim1=-2, dim2=-1)[
                ..., 1:].mean(dim=(0, 2)), "induction"), "as if every repeat had n/2 tokens"),
    ],
)  # fmt: skip
def test_the_classic_slips_fail_with_their_diagnosis(verdict, words):
    v = verdict()
    assert not v and words in v.message, v


@pytest.mark.parametrize(
    "sdpa, mha",
    [
        (allowed, lambda n: torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=0)),
        (lambda n: torch.ones(n, n, dtype=torch.bool).tril(-1), lambda n: ~allowed(n)),
        (allowed, lambda n: torch.zeros(n, n).masked_fill(
            torch.ones(n, n, dtype=torch.bool).triu(0), float("-inf"))),
    ],
    ids=["mha-bool", "sdpa-bool", "mha-float"],
)  # fmt: skip
def test_a_mask_that_blocks_the_diagonal_is_told_so_not_blamed_on_the_convention(sdpa, mha):
    # right convention, but each query's own key hidden: the verdict names the diagonal and
    # does not tell the learner to flip a convention they got right
    v = ex.check_causal_masks(lens, sdpa, mha)
    assert not v and "blocks the diagonal" in v.message, v
    assert "convention" not in v.message and "NOT attend" not in v.message, v


def test_half_precision_answers_are_judged_at_their_precision():
    v = ex.check_sinusoidal(lambda n, d: table(n, d).to(torch.bfloat16))
    assert v and "bfloat16's precision" in v.message
    v = ex.check_heads(lambda x, H: split(x, H).half(), merge)
    assert v and "float16's precision" in v.message
    assert ex.check_sinusoidal(lambda n, d: table(n, d).double())  # float64: accepted


def test_every_checker_varies_every_size():
    seen = {"split": [], "table": [], "offset": [], "lens": [], "score": []}

    def rec(name, fn):
        def wrapped(*args):
            seen[name].append(tuple(a.shape if isinstance(a, torch.Tensor) else a for a in args))
            return fn(*args)

        return wrapped

    ex.check_heads(rec("split", split), merge)
    ex.check_sinusoidal(rec("table", table))
    ex.check_relative_offset(rec("offset", offset))
    ex.check_causal_masks(rec("lens", lens), allowed, lambda n: ~allowed(n))
    ex10.check_head_score(rec("score", induction_score), "induction")
    x_shapes = [s[0] for s in seen["split"][::2]]  # the direct calls, not the pipeline's
    assert len({s for s in x_shapes}) >= 3 and all(
        len({s[i] for s in x_shapes}) >= 3 for i in range(3)
    )
    assert len({a for a, _ in seen["table"]}) == 3 and len({b for _, b in seen["table"]}) == 3
    assert len({a for a, _ in seen["offset"]}) == 3 and len({b for _, b in seen["offset"]}) == 3
    assert len({a for a, _ in seen["lens"]}) == 3 and len({b for _, b in seen["lens"]}) == 3
    w_shapes = [s[0] for s in seen["score"]]
    assert all(len({s[i] for s in w_shapes}) == 3 for i in range(3))
