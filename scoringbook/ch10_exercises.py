"""Chapter 10's exercise: its checker. It calls the learner's head score on three seeded
batches of causal weights that differ in every size (batch, heads, length, and repeat lengths
mixed within a batch) and compares with a reference computed independently, returning a
:class:`scoringbook._checking.CheckResult` whose message names the case, place and slip:

- :func:`check_head_score`: previous-token and induction scores, repeats of several lengths.

Precision rule (stated in the exercises): :func:`scoringbook._checking.tolerance`.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from attnlib.domains import Choice, declare
from scoringbook._checking import (
    ANSWER,
    CheckResult,
    _fail,
    answers_close,
    checker,
)
from scoringbook.ch09_exercises import _call, _compare, _gen, _passed

__all__ = ["check_head_score"]


# ------------------------------------------------------------------ 4. head scores

#: (batch, H, n, repeat lengths): every size differs, and the repeats vary within a batch
_SCORE_CASES = ((3, 2, 20, (10, 7, 5)), (4, 3, 16, (8, 4, 6, 5)), (2, 1, 12, (3, 6)))


def _weights(b: int, H: int, n: int, g: torch.Generator) -> Tensor:
    s = torch.randn(b, H, n, n, generator=g) * 2
    s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    return s.softmax(-1)  # causal weights, rows sum to 1


def _score_ref(
    w: Tensor, k: Tensor | None, back: Tensor, pooled: bool = True, second_half: bool = False
) -> Tensor:
    """Mean of w[b, h, i, i - back] over the pairs: all queries 1..n-1 (k None) or the
    repeat's k..2k-1; pooled over all (sequence, query) pairs, or per sequence first."""
    b, H, n, _ = w.shape
    per_seq, counts = [], []
    for s in range(b):
        if second_half:
            qs = range(n // 2, n)
        elif k is None:
            qs = range(1, n)
        else:
            qs = range(int(k[s]), 2 * int(k[s]))
        vals = [w[s, :, i, i - int(back[s])] for i in qs if 0 <= i - int(back[s]) <= i]
        per_seq.append(torch.stack(vals).sum(0))
        counts.append(len(vals))
    tot = torch.stack(per_seq)  # (b, H)
    cnt = torch.tensor(counts, dtype=w.dtype)[:, None]
    return tot.sum(0) / cnt.sum() if pooled else (tot / cnt).mean(0)


@declare(fn=ANSWER, kind=Choice("previous", "induction"))
@checker
def check_head_score(fn: Callable, kind: str) -> CheckResult:
    """Check a head score on causal weights ``(batch, H, n, n)``:

    - ``kind="previous"``: ``fn(weights)`` -> ``(H,)``, the mean weight on the previous token
      over queries ``1 .. n - 1`` and the batch;
    - ``kind="induction"``: ``fn(weights, k)`` with ``k`` ``(batch,)`` the repeat length of
      each sequence -> ``(H,)``, the mean, over every (sequence, query) pair of the repeats
      (queries ``k .. 2k - 1``), of the weight on key ``i - k + 1``.

    Cases ``(batch, H, n, k)``: (3, 2, 20, [10, 7, 5]), (4, 3, 16, [8, 4, 6, 5]),
    (2, 1, 12, [3, 6]).
    """
    dtypes: set = set()
    for c, (b, H, n, ks) in enumerate(_SCORE_CASES):
        w = _weights(b, H, n, _gen(50 + c))
        k = torch.tensor(ks)
        case = f"case {c + 1}: weights {(b, H, n, n)}" + (
            f", k={list(ks)}" if kind == "induction" else ""
        )
        args = (w,) if kind == "previous" else (w, k)
        got, why = _call(fn, args, "your score")
        if got is None:
            return _fail(f"{case}: {why}")
        dtypes.add(got.dtype)
        wd = w.double()
        if kind == "previous":
            want = _score_ref(wd, None, torch.ones(b, dtype=torch.long))
        else:
            want = _score_ref(wd, k, k - 1)
        if tuple(got.shape) == (H,) and not answers_close(got.double(), want, got.dtype):
            g = got.double()
            slips = []
            if kind == "induction":
                slips = [
                    (
                        f"you score every query of the second half n/2 .. n - 1 on the key "
                        f"n/2 - 1 = {n // 2 - 1} places back, as if every repeat had n/2 tokens: "
                        "a repeat of k tokens occupies queries k .. 2k - 1 and puts the token "
                        "after the earlier occurrence k - 1 places back",
                        _score_ref(wd, k, torch.full((b,), n // 2 - 1), second_half=True),
                    ),
                    (
                        f"you look n/2 - 1 = {n // 2 - 1} places back for every sequence: a "
                        "repeat of k tokens puts the token after the earlier occurrence k - 1 "
                        "places back, so the place moves with k",
                        _score_ref(wd, k, torch.full((b,), n // 2 - 1)),
                    ),
                    (
                        "you look k places back, at the earlier occurrence itself; the induction "
                        "head attends to the token *after* it, k - 1 back",
                        _score_ref(wd, k, k),
                    ),
                    (
                        "you averaged each sequence first, then the sequences; the score is the "
                        "mean over all (sequence, query) pairs, so a longer repeat counts more",
                        _score_ref(wd, k, k - 1, pooled=False),
                    ),
                ]
            for text, t in slips:
                if answers_close(g, t, got.dtype):
                    return _fail(f"{case}: {text}")
        verdict = _compare(got, want, "your score", lambda i: f"head {i[0]}")
        if verdict:
            return _fail(f"{case}: {verdict}")
    return _passed(
        f"your {kind} score is right for all 3 cases (repeats of different lengths in one batch)"
        if kind == "induction"
        else f"your {kind} score is right for all 3 cases",
        dtypes,
    )
