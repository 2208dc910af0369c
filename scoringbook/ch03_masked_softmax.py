"""Chapter 3, the masked softmax: its explorer and its checker.

- :func:`masking_explorer`: masked self-attention over sentences the reader types
  (computed in the page, :class:`attnlib.widgets.live_masking.LiveMasking`).
- :func:`check_masked_softmax`: runs a learner's masked softmax on d2l's cases and the
  edge cases (a row with no valid key, float16, gradients, an input left unchanged).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from attnlib.domains import declare, fmt_shape
from attnlib.masking import masked_softmax
from attnlib.widgets import (
    Choice,
    Declaration,
    Explorer,
    Heatmap,
    Preset,
    Text,
)
from attnlib.widgets.live_masking import LiveMasking
from scoringbook._checking import (
    ANSWER,
    CheckResult,
    _as_answer,
    _exc,
    _fail,
    _first,
    _num,
    _pair,
    _pass,
    _require_callable,
    checker,
    precision_note,
    tolerance,
)
from scoringbook._common import COUNT, _count

__all__ = [
    "masking_explorer",
    "masking_declaration",
    "check_masked_softmax",
    "SENTENCES",
    "SUGGESTIONS",
    "MAX_TOKENS",
]


SENTENCES = ["Dive into Deep Learning", "Learn to code", "Hello world"]
SUGGESTIONS = [
    "Dive into Deep Learning",
    "Learn to code",
    "Hello world",
    "Attention is all you need",
    "the cat sat on the mat",
    "a a a",
    "Queries keys and values",
    "pad",
]
MAX_TOKENS = 6


@declare(max_tokens=COUNT, d=COUNT)
def masking_declaration(*, max_tokens: int = MAX_TOKENS, d: int = 8) -> Declaration:
    """Declaration of :func:`masking_explorer` (the page computes its frames)."""
    fn = "masking_declaration"
    max_tokens, d = _count(max_tokens, "max_tokens", fn), _count(d, "d", fn)
    live = LiveMasking(
        sentences=("sentence_0", "sentence_1", "sentence_2"),
        weights=("sentence_0", "sentence_1", "sentence_2"),
        max_tokens=max_tokens,
        d=d,
        masking="masking",
    )
    defaults = live.frame(SENTENCES)

    def update(masking: str, sentence_0: str, sentence_1: str, sentence_2: str) -> dict[str, Any]:
        frame = live.frame([sentence_0, sentence_1, sentence_2], mode=masking)
        return {
            f"sentence_{b}": w for b, (_, w) in enumerate(frame)
        }  # (max_tokens, max_tokens) each

    return Declaration(
        name="masking",
        update=update,
        texts=[
            Text(
                f"sentence_{b}",
                SENTENCES[b],
                label=f"sentence {b}",
                suggestions=SUGGESTIONS,
            )
            for b in range(3)
        ],
        params=[
            Choice(
                "masking",
                ["sentence_lengths", "query_lengths", "none"],
                label="masking",
                default="query_lengths",
                option_labels=[
                    # short enough for a phone's sticky control bar (about 20 characters);
                    # the notices and the spoken line say what each does to the <pad> rows
                    "length per sentence",
                    "length per query",
                    "none (plain softmax)",
                ],
            )
        ],
        panels=[
            Heatmap(
                f"sentence_{b}",
                xlabel="keys (tokens)",
                ylabel="queries (tokens)",
                row_labels=toks,
                col_labels=toks,
                title=f"sentence {b}",
                rows_sum_to_one=True,
                allow_zero_rows=True,
                masked_zeros=True,
            )
            for b, (toks, _) in enumerate(defaults)
        ],
        title=f"Masked softmax on your own sentences: each is cut or padded to {max_tokens} "
        "tokens",
        live=live,
        presets=[
            Preset(
                "As it opens",
                "Notice: one valid length per query here, so each coloured block is a "
                "sentence's words by its words; the <pad> rows and columns stay at weight 0, "
                "crossed out.",
                {
                    "masking": "query_lengths",
                    **{f"sentence_{b}": t for b, t in enumerate(SENTENCES)},
                },
            ),
            Preset(
                "One length per sentence",
                "Notice: the <pad> rows hold weight over the sentence's words; only the <pad> "
                "columns are crossed out.",
                {"masking": "sentence_lengths"},
            ),
            Preset(
                "No masking",
                "Notice: every cell takes some weight, padding included: the mistake masking "
                "prevents.",
                {"masking": "none"},
            ),
            Preset(
                "Add a word",
                "Notice: one more row and one more column join sentence 1's block; the other "
                "two maps do not change.",
                {"masking": "query_lengths", "sentence_1": "Learn to code today"},
            ),
            Preset(
                "The same word three times",
                "Notice: the three columns are the same key, so each row of the block is "
                "uniform, 1/3 each.",
                {"masking": "query_lengths", "sentence_2": "a a a"},
            ),
            Preset(
                "Too long, and empty",
                f"Notice: sentence 0 is cut to {max_tokens} tokens and has no padding; the "
                "empty sentence 2 is all zeros, neither uniform nor NaN.",
                {
                    "masking": "query_lengths",
                    "sentence_0": "one two three four five six seven eight",
                    "sentence_2": "",
                },
            ),
        ],
        meta={"live": live},
    )


@declare(max_tokens=COUNT, d=COUNT)
def masking_explorer(**kwargs: Any) -> Explorer:
    """Masked self-attention on sentences the reader types (chapter 3).

    Three text fields (with suggestions) hold the sentences; each is split at whitespace and
    cut or padded with ``<pad>`` to ``max_tokens`` = 6 tokens, so its valid length is its
    number of words (at most 6). Every token is a query and a key; a word's query and key
    vectors come from a hash of the word
    (:func:`attnlib.widgets.live_masking.word_vector`, d = 8), so the same word always scores
    the same. Each heatmap is ``attnlib.masked_softmax`` of one
    sentence's scaled dot products. The "masking" choice picks the valid lengths: one per
    query, ``(batch, n_queries)`` (the default: the keys past the valid length get exactly
    0, and the ``<pad>`` queries, which have no valid key, get all-zero rows), one per
    sentence, ``(batch,)`` (the ``<pad>`` queries still attend to the sentence's words;
    only the ``<pad>`` columns are 0), or none: a plain softmax, the mistake masking
    prevents.
    The tokens label the heatmaps. Computed in the page (:mod:`attnlib.widgets.live`);
    :func:`scoringbook.compute`
    gives attnlib's.

    Keyword args (optional): ``max_tokens``, ``d``.
    """
    return Explorer(masking_declaration(**kwargs))


# ----------------------------------------------------------------------------- checker


LOW = "float32 scores of about -1e5 and valid_lens=[2, 3]"
LOW_HINT = (
    " (a finite fill such as -3e4 or -1e4 lies above these valid scores, so the masked keys "
    "take the weight and the valid ones get 0: fill with -inf or torch.finfo(X.dtype).min, "
    "or set the masked weights to 0 after the softmax)"
)


def _softmax_cases() -> list[tuple[str, Tensor, Tensor | None]]:
    """(description, X, valid_lens) for check_masked_softmax, from a local generator."""
    g = torch.Generator().manual_seed(2024)

    def x32(*shape: int) -> Tensor:  # (batch, n_queries, n_keys), default (2, 2, 4)
        return torch.randn(*(shape or (2, 2, 4)), generator=g)

    big = torch.randn(2, 2, 4, generator=g) + torch.tensor([1e4, -1e4]).view(1, 2, 1)  # (2, 2, 4)
    big = big.to(torch.float16)
    # the first three cases differ in every size (batch, n_queries, n_keys): an answer that
    # hard-codes a size fails one of them
    return [
        ("valid_lens=[2, 3] (one length per sequence)", x32(), torch.tensor([2, 3])),
        (
            "X of shape (3, 4, 6) and 2-D valid_lens=[[1, 3, 6, 2], [2, 4, 5, 6], [6, 1, 2, 3]] "
            "(one length per query)",
            x32(3, 4, 6),
            torch.tensor([[1, 3, 6, 2], [2, 4, 5, 6], [6, 1, 2, 3]]),
        ),
        ("X of shape (1, 3, 5) and valid_lens=None (no masking)", x32(1, 3, 5), None),
        (
            "valid_lens=[0, 3] (the queries of batch 0 have no valid key)",
            x32(),
            torch.tensor([0, 3]),
        ),
        (
            "2-D valid_lens=[[2, 0], [4, 1]] (query 1 of batch 0 has no valid key)",
            x32(),
            torch.tensor([[2, 0], [4, 1]]),
        ),
        ("float16 scores of about ±1e4 and valid_lens=[2, 3]", big, torch.tensor([2, 3])),
        (
            "float16 scores of about ±1e4 and valid_lens=[0, 3] (rows with no valid key)",
            big.clone(),
            torch.tensor([0, 3]),
        ),
        (LOW, x32() - 1e5, torch.tensor([2, 3])),
    ]


def _compare_weights(
    desc: str, got: Tensor, want: Tensor, lens: Tensor | None, float16: bool
) -> str | None:
    """None if ``got`` matches ``want``; otherwise a message naming what differs."""
    batch, n_queries, n_keys = want.shape
    if tuple(got.shape) != tuple(want.shape):
        return (
            f"with {desc}, your weights have shape {fmt_shape(got.shape)}, expected "
            f"(batch, n_queries, n_keys) = {fmt_shape(want.shape)}"
        )
    g = got.detach().to(torch.float64)
    w = want.detach().to(torch.float64)
    if lens is None:
        row_lens = torch.full((batch, n_queries), n_keys)
    else:
        row_lens = lens.reshape(batch, -1).expand(batch, n_queries)  # (batch, n_queries)
    empty = row_lens == 0  # (batch, n_queries)
    nan_rows = torch.isnan(g).any(-1)  # (batch, n_queries)
    if (nan_rows & empty).any():
        b, i = _first(nan_rows & empty)
        hint = (
            " (in float16 a fill like -1e6 or -1e9 overflows to -inf, and the softmax of a "
            "row of -inf is 0/0)"
            if float16
            else ""
        )
        return (
            f"with {desc}, a row with no valid key (batch {b}, query {i}) gave NaN weights; "
            f"expected zeros{hint}"
        )
    uniform = torch.full((n_keys,), 1.0 / n_keys, dtype=torch.float64)
    for b, i in torch.nonzero(empty).tolist():
        if torch.allclose(g[b, i], uniform, atol=1e-3):
            return (
                f"with {desc}, a row with no valid key (batch {b}, query {i}) gave uniform "
                f"weights ({_num(1.0 / n_keys)} each); expected zeros (a large negative "
                f"fill makes every score of that row equal: set the row to zero after the "
                f"softmax)"
            )
    # the dtype rule (the chapter's exercise states it): weights in X's dtype; float64 is
    # accepted too; for float16 scores float32 (mixed precision, as autocast computes a
    # softmax); for float32 scores float16 or bfloat16, compared at their own precision
    ok_dtypes = {want.dtype, torch.float64}
    ok_dtypes |= {torch.float32} if float16 else {torch.float16, torch.bfloat16}
    if got.dtype not in ok_dtypes:
        return (
            f"with {desc}, your weights have dtype {got.dtype}, expected {want.dtype} "
            f"(the dtype of X{'; float32 is accepted too' if float16 else ''})"
        )
    rtol, atol = (1e-2, 2e-3) if float16 else tolerance(got.dtype)
    close = torch.isclose(g, w, atol=atol, rtol=rtol)
    if not close.all():
        masked_keys = torch.arange(n_keys) >= row_lens.unsqueeze(-1)  # (batch, n_queries, n_keys)
        leaks = ~close & masked_keys  # report a masked key that got weight first
        b, i, j = _first(leaks if leaks.any() else ~close)
        got_s, want_s = _pair(g[b, i, j], w[b, i, j])
        masked = bool(masked_keys[b, i, j])
        note = " (masked)" if masked else ""
        hint = ""
        if float16:
            hint = (
                " (in float16, exp(1e4) overflows to inf and exp(-1e4) underflows to 0: "
                "subtract each row's maximum before exp, or use torch.softmax)"
            )
        return (
            f"with {desc}, your weights at batch {b}, query {i}, key {j} are {got_s}, "
            f"expected {want_s}{note}{hint}"
            + (f"; {int((~close).sum())} entries differ" if (~close).sum() > 1 else "")
            + ("" if float16 else precision_note(got.dtype, g, w))
        )
    return None


def _changed(before: Tensor, after: Tensor) -> str:
    diff = ~((before == after) | (torch.isnan(before) & torch.isnan(after)))
    if not diff.any():
        return ""
    idx = _first(diff)
    where = ", ".join(str(k) for k in idx)
    was, now = _pair(before[idx], after[idx])  # enough digits to show the change
    return f"X[{where}] changed from {was} to {now}"


def _gradient_case(
    fn: Callable, shape: tuple[int, int, int], lens: Tensor, desc: str, g: torch.Generator
) -> str:
    """Call ``fn`` on a leaf ``X`` that requires grad; a message if the weights or the
    gradient with respect to ``X`` differ from attnlib's (empty: all right)."""
    X0 = torch.randn(*shape, generator=g)  # (batch, n_queries, n_keys)
    upstream = torch.randn(*shape, generator=g)  # (batch, n_queries, n_keys)
    X_ref = X0.clone().requires_grad_(True)
    want = masked_softmax(X_ref, lens)
    (want * upstream).sum().backward()
    X_in = X0.clone().requires_grad_(True)
    try:
        out = fn(X_in, lens.clone())
    except Exception as err:
        hint = ""
        if isinstance(err, RuntimeError) and ("in-place" in str(err) or "leaf" in str(err)):
            hint = (
                "; your function writes into X in place (like X[~mask] = -1e6): use "
                "X.masked_fill(~mask, value), which returns a new tensor"
            )
        return f"with {desc}, your function raised {_exc(err)}{hint}"
    change = _changed(X0, X_in.detach())
    if change:
        return f"with {desc}, your function wrote into its input X ({change})"
    got = _as_answer(out)
    if isinstance(got, str):
        return f"with {desc}, your function returned {got}; expected a tensor"
    problem = _compare_weights(desc, got, want, lens, False)
    if problem:
        return problem
    if not got.requires_grad:
        return (
            f"with {desc}, your weights do not carry gradients (requires_grad is False): "
            f"do not use .detach(), .data, .numpy() or torch.no_grad() inside the function"
        )
    try:
        (got * upstream.to(got.dtype)).sum().backward()
    except Exception as err:
        return f"with {desc}, backpropagating through your weights raised {_exc(err)}"
    if X_in.grad is None:
        return f"with {desc}, no gradient reached X: the weights must be computed from X"
    grad = X_in.grad.to(torch.float64)
    if not torch.isfinite(grad).all():
        b, i, j = _first(~torch.isfinite(grad))
        empty = bool((lens.reshape(shape[0], -1).expand(shape[:2]) == 0)[b, i])
        hint = (
            " (this row has no valid key: adding a -inf mask to its scores makes its "
            "softmax 0/0, and nan_to_num applied afterwards cleans the weights but not the "
            "gradient, which stays NaN and would spread to every parameter in training; use "
            "X.masked_fill(~mask, torch.finfo(X.dtype).min), then zero the empty rows)"
            if empty
            else ""
        )
        return (
            f"with {desc}, the gradient with respect to X at batch {b}, query {i}, key {j} "
            f"is {_num(grad[b, i, j])}, expected {_num(X_ref.grad[b, i, j], 4)}{hint}"
        )
    rtol, atol = tolerance(got.dtype)
    close = torch.isclose(grad, X_ref.grad.to(torch.float64), atol=atol, rtol=rtol)
    if not close.all():
        b, i, j = _first(~close)
        got_s, want_s = _pair(grad[b, i, j], X_ref.grad[b, i, j])
        return (
            f"with {desc}, the gradient with respect to X at batch {b}, query {i}, key {j} "
            f"is {got_s}, expected {want_s}"
        )
    return ""


@declare(fn=ANSWER)
@checker
def check_masked_softmax(fn: Callable) -> CheckResult:
    r"""Check a learner's ``fn(X, valid_lens)`` against :func:`attnlib.masked_softmax`.

    The cases, in order (the message reports the first that fails and what differs):

    - ``valid_lens`` of shape ``(batch,)`` and ``(batch, n_queries)``, and ``None``;
    - rows with no valid key (expected: all zeros, not NaN, not uniform);
    - float16 scores of about ``±1e4`` (a naive ``exp`` overflows; a ``-1e6`` fill becomes
      ``-inf``), with and without rows that have no valid key. The weights may come back
      in float16 or in float32 (mixed precision: a softmax computed in float32, as
      ``torch.autocast`` does); any other dtype is wrong;
    - float32 scores of about ``-1e5``: a finite fill such as ``-3e4`` lies above the valid
      scores and takes their weight (fill with ``-inf`` or the dtype's lowest value);
    - the input ``X`` must come back unchanged (no in-place fill) in every case;
    - a leaf tensor ``X`` that requires grad: the call must work, the weights must carry
      gradients and the gradient with respect to ``X`` must match attnlib's.

    Reference::

        for desc, X, valid_lens in cases:
            assert torch.allclose(fn(X.clone(), valid_lens), masked_softmax(X, valid_lens))

    Args:
        fn: the learner's function ``fn(X, valid_lens) -> weights``, with ``X`` of shape
            ``(batch, n_queries, n_keys)`` and ``valid_lens`` ``None``, ``(batch,)`` or
            ``(batch, n_queries)``.

    Returns:
        :class:`CheckResult`. Raises TypeError only if ``fn`` is not callable.

    Example::

        >>> from attnlib import masked_softmax
        >>> check_masked_softmax(masked_softmax).ok
        True
        >>> plain = lambda X, valid_lens: torch.softmax(X, dim=-1)
        >>> check_masked_softmax(plain)  # doctest: +ELLIPSIS
        Not yet: with valid_lens=[2, 3] (one length per sequence), your weights at batch 0, ...
    """
    _require_callable(fn, "check_masked_softmax")

    cases = _softmax_cases()
    half = None
    for desc, X, lens in cases:
        float16 = X.dtype == torch.float16
        want = masked_softmax(X, lens)
        X_in = X.clone()
        lens_in = None if lens is None else lens.clone()
        try:
            out = fn(X_in, lens_in)
        except Exception as err:  # a wrong answer: report it, never raise
            hint = ""
            if float16 and "overflow" in str(err):
                hint = (
                    "; a fill like -1e6 or -1e9 does not fit in float16 (largest magnitude "
                    "65504): fill with torch.finfo(X.dtype).min, or avoid fills altogether"
                )
            return _fail(f"with {desc}, your function raised {_exc(err)}{hint}")
        change = _changed(X, X_in)
        if change:
            return _fail(
                f"with {desc}, your function wrote into its input X ({change}); leave the "
                f"caller's scores intact: build a masked copy, e.g. "
                f"X.masked_fill(~mask, value), instead of X[~mask] = value"
            )
        if lens is not None and not torch.equal(lens, lens_in):
            return _fail(
                f"with {desc}, your function changed valid_lens to {lens_in.tolist()}; "
                f"leave its inputs unchanged"
            )
        got = _as_answer(out)
        if isinstance(got, str):
            return _fail(
                f"with {desc}, your function returned {got}; expected a tensor of shape "
                f"(batch, n_queries, n_keys) = {fmt_shape(want.shape)}"
            )
        problem = _compare_weights(desc, got, want, lens, float16)
        if problem:
            return _fail(problem + (LOW_HINT if desc == LOW else ""))
        if not float16 and got.dtype in (torch.float16, torch.bfloat16):
            half = got.dtype  # compared at its own precision: the verdict says so

    # A leaf tensor that requires grad: d2l's in-place fill raises here. The second case has
    # a row with no valid key: an additive -inf mask cleaned by nan_to_num gives zero weights
    # there, but its gradient is NaN (the softmax's backward of 0/0), the contagion chapter 3
    # warns of.
    g = torch.Generator().manual_seed(7)
    for shape, lens, desc in (
        ((2, 3, 5), torch.tensor([2, 4]), "a leaf tensor X that requires grad and "
         "valid_lens=[2, 4]"),
        ((3, 2, 6), torch.tensor([3, 0, 6]), "a leaf tensor X of shape (3, 2, 6) that "
         "requires grad and valid_lens=[3, 0, 6] (batch 1 has no valid key)"),
    ):  # fmt: skip
        problem = _gradient_case(fn, shape, lens, desc, g)
        if problem:
            return _fail(problem)
    return _pass(
        f"your masked softmax matches attnlib.masked_softmax in all {len(cases) + 2} cases: "
        f"1-D, 2-D and no valid_lens on three shapes, rows with no valid key (all zeros), "
        f"float16 scores of ±1e4, float32 scores of -1e5 (below any small finite fill), leaf "
        f"tensors that require grad (gradients match, also through a row with no valid key); "
        f"X was never modified" + (precision_note(half) if half is not None else "")
    )
