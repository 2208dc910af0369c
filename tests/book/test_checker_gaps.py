"""Issue 37's checker gaps, each with a test that failed on the checkers before the fix.

- G1: ``check_masked_softmax`` passed the "additive -inf mask, then nan_to_num" answer, whose
  gradient is NaN on a row with no valid key.
- G2: ``check_scores`` used one input size: a hard-coded ``/ math.sqrt(8)`` or a reshape to
  the checker's sizes passed, and the unscaled verdict printed "d = 8".
- G3, G4: a float16 / bfloat16 answer right to its precision was refused with float32's
  tolerance, and the verdict did not say precision was the cause.
- G5: ``check_masked_softmax`` refused a float64 answer for float32 scores, though no
  exercise stated a dtype rule (the rule now: float64 is accepted at float32's tolerance).
- Every checker that calls a learner's function calls it on inputs that differ in every size.

Each answer here is written independently of attnlib's reference, from the formula.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from scoringbook.ch01_exercises import check_weights
from scoringbook.ch02_exercises import check_kernel
from scoringbook.ch03_masked_softmax import check_masked_softmax
from scoringbook.ch04_additive_attention import check_scores


def _mask(X, valid_lens):
    """(batch, n_queries, n_keys) bool, True = may attend."""
    n = X.shape[-1]
    lens = valid_lens if valid_lens.dim() == 2 else valid_lens[:, None].expand(X.shape[:2])
    return torch.arange(n)[None, None, :] < lens[..., None]


def right_softmax(X, valid_lens):
    if valid_lens is None:
        return torch.softmax(X, dim=-1)
    mask = _mask(X, valid_lens)
    w = torch.softmax(X.masked_fill(~mask, torch.finfo(X.dtype).min), dim=-1)
    return w * mask.any(-1, keepdim=True)  # rows with no valid key: zeros


def nan_to_num_softmax(X, valid_lens):
    """The common answer of G1: add a -inf mask, then clean the NaN rows."""
    if valid_lens is None:
        return torch.softmax(X, dim=-1)
    additive = torch.zeros_like(X).masked_fill(~_mask(X, valid_lens), float("-inf"))
    return torch.nan_to_num(torch.softmax(X + additive, dim=-1), nan=0.0)


def scaled(q, k):
    return torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])


# ----------------------------------------------------------------------------- G1


def test_g1_the_nan_to_num_answer_fails_on_its_nan_gradient():
    assert check_masked_softmax(right_softmax)  # the checker can pass
    verdict = check_masked_softmax(nan_to_num_softmax)
    assert not verdict
    assert "gradient" in verdict.message and "NaN" in verdict.message
    assert "no valid key" in verdict.message


# ----------------------------------------------------------------------------- G2


def test_g2_a_hard_coded_sqrt_8_fails():
    verdict = check_scores(
        lambda q, k: torch.bmm(q, k.transpose(1, 2)) / math.sqrt(8), "dot_product"
    )
    assert not verdict
    assert "read every size" in verdict.message


def test_g2_a_reshape_to_the_checkers_sizes_fails():
    verdict = check_scores(lambda q, k: scaled(q, k).reshape(2, 3, 4), "dot_product")
    assert not verdict


def test_g2_the_unscaled_verdict_does_not_invite_a_constant():
    verdict = check_scores(lambda q, k: torch.bmm(q, k.transpose(1, 2)), "dot_product")
    assert not verdict and "√d" in verdict.message
    assert "queries.shape[-1]" in verdict.message and "(d = 8)" not in verdict.message


# ----------------------------------------------------------------------------- G3, G4


def test_g3_g4_half_precision_answers_right_to_their_precision_pass_and_say_so():
    for dtype, name in ((torch.float16, "float16"), (torch.bfloat16, "bfloat16")):
        verdict = check_scores(lambda q, k, dt=dtype: scaled(q, k).to(dt), "dot_product")
        assert verdict, verdict
        assert f"{name}'s precision" in verdict.message

        def cast(X, lens, dt=dtype):  # float32 scores: weights in dt (float16 scores: kept)
            w = right_softmax(X, lens)
            return w.to(dt) if X.dtype == torch.float32 else w

        verdict = check_masked_softmax(cast)
        assert verdict, verdict
        assert f"{name}'s precision" in verdict.message


def test_g3_a_wrong_half_precision_answer_is_told_precision_is_not_the_cause():
    def off(q, k):  # right formula, then one entry off by far more than float16 rounding
        s = scaled(q, k).clone()
        s[0, 0, 0] += 0.5
        return s.half()

    verdict = check_scores(off, "dot_product")
    assert not verdict and "precision is not the cause" in verdict.message


def _softmax_rows(S, dtype):
    """A learner's softmax of float32 scores, computed in ``dtype`` (exp over the sum)."""
    e = torch.exp(S.to(dtype) - S.to(dtype).max(dim=-1, keepdim=True).values)
    return e / e.sum(dim=-1, keepdim=True)


def test_g3_g4_check_weights_takes_a_half_precision_softmax_and_says_so():
    # issue 39: "weight ... is 0.59766 but the softmax of the scores gives 0.59769"
    S = torch.randn(2, 3, 5, generator=torch.Generator().manual_seed(4))
    for dtype, name in ((torch.float16, "float16"), (torch.bfloat16, "bfloat16")):
        W = _softmax_rows(S, dtype)
        verdict = check_weights(W, scores=S)
        assert verdict, verdict
        assert f"{name}'s precision" in verdict.message
        verdict = check_weights(W, expected=torch.softmax(S, dim=-1))
        assert verdict, verdict
        masked = _softmax_rows(S.masked_fill(torch.arange(5) >= 3, -math.inf), dtype)
        verdict = check_weights(masked, torch.tensor([3, 3]), scores=S)
        assert verdict, verdict


def test_g3_check_weights_refuses_a_wrong_half_precision_softmax_and_says_why():
    S = torch.randn(2, 3, 5, generator=torch.Generator().manual_seed(4))
    W = _softmax_rows(S, torch.float16)
    W[0, 0, :2] = W[0, 0, :2].flip(0) if W[0, 0, 0] != W[0, 0, 1] else W[0, 0, :2] + 0.1
    verdict = check_weights(W, scores=S)
    assert not verdict
    assert "float16's precision" in verdict.message
    assert "precision is not the cause" in verdict.message
    # and a float32 answer off by float16's rounding is still refused (float32's tolerance)
    verdict = check_weights(_softmax_rows(S, torch.float16).float(), scores=S)
    assert not verdict and "float16" not in verdict.message


# ----------------------------------------------------------------------------- G5


def test_g5_a_float64_answer_for_float32_scores_passes():
    assert check_masked_softmax(lambda X, lens: right_softmax(X.double(), lens))
    assert check_scores(lambda q, k: scaled(q.double(), k.double()), "dot_product")


# ------------------------------------------------------- every size varies between calls


def _recording(fn, seen):
    def wrapped(*args):
        seen.append(tuple(tuple(a.shape) for a in args if isinstance(a, torch.Tensor)))
        return fn(*args)

    return wrapped


def _every_size_varies(shapes):
    """Each dimension of each argument takes at least two values over the calls."""
    by_arg = list(zip(*shapes))
    return all(len({s[d] for s in arg}) >= 2 for arg in by_arg for d in range(len(arg[0])))


def test_check_scores_and_masked_softmax_call_the_answer_on_inputs_differing_in_every_size():
    for kind, fn in (
        ("dot_product", scaled),
        ("additive", lambda q, k, Wq, Wk, wv: torch.tanh(
            (q @ Wq.T).unsqueeze(2) + (k @ Wk.T).unsqueeze(1)) @ wv),
        ("bilinear", lambda q, k, M: torch.bmm(q @ M, k.transpose(1, 2))),
        ("gaussian", lambda q, k, s: -torch.cdist(q, k) ** 2 / (2 * s * s)),
    ):  # fmt: skip
        seen = []
        assert check_scores(_recording(fn, seen), kind)
        assert len(seen) >= 3 and _every_size_varies([s[:2] for s in seen]), (kind, seen)
    seen = []
    assert check_masked_softmax(_recording(right_softmax, seen))
    X_shapes = [s[:1] for s in seen]
    assert _every_size_varies(X_shapes), seen


def test_check_kernel_calls_the_answer_on_two_shapes():
    seen = []
    assert check_kernel(_recording(lambda u: torch.exp(-(u**2) / 2) / math.sqrt(2 * math.pi),
                                   seen), "gaussian")  # fmt: skip
    assert len({s[0] for s in seen}) >= 2


def test_check_attention_module_builds_the_module_at_two_sizes():
    from scoringbook.ch07_exercises import check_attention_module

    built = []

    class Scaled(nn.Module):  # (W q)ᵀk / √h, masked
        def __init__(self, h):
            super().__init__()
            self.W = nn.Linear(h, h, bias=False)
            self.h = h

        def forward(self, q, k, v, lens):
            built.append((self.h, q.shape[0], k.shape[1]))
            s = torch.bmm(self.W(q), k.transpose(1, 2)) / math.sqrt(self.h)
            mask = torch.arange(k.shape[1])[None, None, :] < lens[:, None, None]
            self.attention_weights = torch.softmax(s.masked_fill(~mask, -1e9), -1)
            return torch.bmm(self.attention_weights, v)

    check_attention_module(Scaled, steps=1)  # the structure is checked before training
    sizes = {b for b in built if b[0] in (6, 8) and b[1] <= 3}
    assert len({s[0] for s in sizes}) >= 2 and len({s[1] for s in sizes}) >= 2
    assert len({s[2] for s in sizes}) >= 2


def test_check_scores_tells_a_row_constant_shift_from_a_change_of_weights():
    # chapter 4, exercise 4.3: a row-constant shift leaves the weights unchanged; the
    # verdict must say so rather than read like any other wrong answer
    shifted = check_scores(lambda q, k: scaled(q, k) + 3.0, "dot_product")
    assert not shifted and "same amount along each row" in shifted.message
    changed = check_scores(lambda q, k: scaled(q, k) + 0.1 * k.sum(-1)[:, None, :], "dot_product")
    assert not changed and "same amount along each row" not in changed.message
