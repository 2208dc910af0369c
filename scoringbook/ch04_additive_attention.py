"""Chapter 4, additive attention: its explorer and its checkers.

- :func:`additive_attention_explorer`: additive attention's weights as the query moves,
  for several hidden sizes.
- :func:`check_scores`: does a learner's scoring function match attnlib's (``"additive"``,
  ``"dot_product"``, ``"bilinear"``, ``"gaussian"``; chapter 5 uses it too)?
- :func:`check_weights` (from chapter 1) is re-exported: the chapter uses it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import Tensor

from attnlib.domains import Choice, Int, declare, fmt_shape
from attnlib.masking import masked_softmax
from attnlib.scoring import additive_scores
from attnlib.widgets import (
    Declaration,
    Explorer,
    FixedSeries,
    Handle,
    Heatmap,
    Lines,
    Preset,
    Series,
    Slider,
)
from scoringbook._checking import (
    ANSWER,
    CheckResult,
    _as_answer,
    _constant_ratio,
    _exc,
    _fail,
    _first,
    _num,
    _pair,
    _pass,
    _require_callable,
    answers_close,
    checker,
    precision_note,
    tolerance,
)
from scoringbook._common import (
    COUNT,
    POSITIVE,
    SEED,
    SIZES,
    _count,
    _distinct_presets,
    _generator,
    _ints,
    _np,
    _real,
    _seed,
)
from scoringbook.ch01_exercises import check_weights

#: the builders' arguments, declared once for the declaration and its explorer (n_angles
#: must also divide 360: checked in the body)
ADDITIVE_ARGS = dict(
    seed=SEED, n_keys=COUNT, hiddens=SIZES, n_angles=Int(ge=1, le=360), radius=POSITIVE
)

__all__ = [
    "additive_attention_explorer",
    "additive_attention_declaration",
    "check_scores",
    "check_weights",
    "SCORE_KINDS",
]

#: Scoring functions :func:`check_scores` knows: kind -> (attnlib function name, call, formula).
SCORE_KINDS = {
    "dot_product": ("dot_product_scores", "fn(queries, keys)", "q·k/√d"),
    "additive": (
        "additive_scores",
        "fn(queries, keys, W_q, W_k, w_v)",
        "w_vᵀ tanh(W_q q + W_k k)",
    ),
    "bilinear": ("bilinear_scores", "fn(queries, keys, M)", "qᵀ M k"),
    "gaussian": ("gaussian_scores", "fn(queries, keys, sigma)", "−‖q − k‖²/(2σ²)"),
}


@declare(**ADDITIVE_ARGS)
def additive_attention_declaration(
    *,
    seed: int = 0,
    n_keys: int = 8,
    hiddens: tuple[int, ...] = (2, 8, 32),
    n_angles: int = 36,
    radius: float = 1.5,
) -> Declaration:
    """Declaration of :func:`additive_attention_explorer` (no frame computed)."""
    fn = "additive_attention_declaration"
    seed, n_keys = _seed(seed, fn), _count(n_keys, "n_keys", fn)
    hiddens = _ints(hiddens, "hiddens", fn)
    n_angles = _count(n_angles, "n_angles", fn)
    if n_angles > 360 or 360 % n_angles:
        raise ValueError(
            f"{fn}: n_angles must divide 360 (the query moves in steps of 360 / n_angles "
            f"degrees); got {n_angles}"
        )
    radius = _real(radius, "radius", fn, min=0.0, min_open=True)
    lim = max(1.8, 1.2 * radius)  # the plane holds the keys and the query's whole circle
    g = _generator(seed)
    keys = 2.4 * torch.rand(1, n_keys, 2, generator=g) - 1.2  # (1, n_keys, 2) in [-1.2, 1.2]²
    h_max = max(hiddens)
    W_q_all = 1.5 * torch.randn(h_max, 2, generator=g)  # (h_max, 2)
    W_k_all = 1.5 * torch.randn(h_max, 2, generator=g)  # (h_max, 2)
    w_v_all = 2.0 * torch.randn(h_max, generator=g)  # (h_max,)
    angles = [float(a) for a in range(0, 360, 360 // n_angles)]
    circle = np.linspace(0, 2 * math.pi, 121)

    def weights_of(num_hiddens: int):
        # The first num_hiddens hidden units of one fixed seeded network.
        return W_q_all[:num_hiddens], W_k_all[:num_hiddens], w_v_all[:num_hiddens]

    def query_at(angle: float) -> torch.Tensor:
        a = math.radians(angle)
        return torch.tensor([[[radius * math.cos(a), radius * math.sin(a)]]])  # (1, 1, 2)

    def update(angle: float, valid_len: int, num_hiddens: int) -> dict[str, Any]:
        q = query_at(angle)
        W_q, W_k, w_v = weights_of(num_hiddens)
        scores = additive_scores(q, keys, W_q, W_k, w_v)  # (1, 1, n_keys)
        weights = masked_softmax(scores, torch.tensor([valid_len]))  # (1, 1, n_keys)
        # the plane shows the query as the point the reader drags round its circle (Handle)
        return {
            "weights": _np(weights[0]),
            "scores": {"score a(q, k)": _np(scores[0, 0])},
            "plane": {},
        }

    k_np = _np(keys[0])
    mid = hiddens[len(hiddens) // 2]
    start = angles[len(angles) // 8]  # the query's first place, and the h = max preset's
    return Declaration(
        name="additive_attention",
        update=update,
        params=[
            Slider(
                "angle",
                angles,
                label="query angle",
                value_labels=[f"{int(a)}°" for a in angles],
                default=start,
                play=True,
            ),
            Slider(
                "valid_len",
                list(range(1, n_keys + 1)),
                label="valid length",
                value_labels=[f"{n} of {n_keys} keys" for n in range(1, n_keys + 1)],
                default=n_keys,
            ),
            Slider(
                "num_hiddens",
                list(hiddens),
                label="hidden units",
                value_labels=[f"h = {h}" for h in hiddens],
                default=hiddens[len(hiddens) // 2],
            ),
        ],
        panels=[
            Lines(
                "plane",
                xlabel="feature 1",
                ylabel="feature 2",
                title="query and keys",
                equal_aspect=True,
                xlim=(-lim, lim),
                ylim=(-lim, lim),
                fixed=[
                    FixedSeries(
                        "query path",
                        radius * np.cos(circle),
                        radius * np.sin(circle),
                        dash="3 3",
                        color="#bbbbbb",
                    ),
                    FixedSeries(
                        "keys",
                        k_np[:, 0],
                        k_np[:, 1],
                        style="points",
                        color="#0072B2",
                        labels=[str(j) for j in range(n_keys)],  # the weights' columns 0..7
                    ),
                ],
                handle=Handle("angle", None, label="query", circle=(0.0, 0.0, radius)),
            ),
            Heatmap(
                "weights",
                xlabel="keys",
                ylabel="queries",
                rows_sum_to_one=True,
                masked_zeros=True,
                title="attention weights",
            ),
            Lines(
                "scores",
                x=np.arange(n_keys, dtype=np.float64),
                # one stem per key: the keys are discrete
                series=[Series("score a(q, k)", style="bars", color="#009E73")],
                discrete_x=True,  # a tick labelled at every key, 0 to n_keys - 1
                xlabel="key",
                ylabel="score",
                title="additive scores (before masking)",
            ),
        ],
        title="Additive attention: w_vᵀ tanh(W_q q + W_k k) as the query moves",
        presets=_distinct_presets(
            Preset(
                f"h = {mid}: drag the query",
                "Notice: as you drag the query round, the favourite key changes, and it is not "
                "always the closest: the network's comparison is not a distance.",
                {"num_hiddens": mid, "valid_len": n_keys},
            ),
            Preset(
                f"h = {min(hiddens)}",
                "Notice: the scores barely move and the weights stay close to uniform; with "
                "few hidden units every score stays small.",
                {"num_hiddens": min(hiddens), "valid_len": n_keys},
            ),
            Preset(
                f"h = {max(hiddens)}",
                _wide_notice(update, start, n_keys, mid, max(hiddens)),
                {"angle": start, "num_hiddens": max(hiddens), "valid_len": n_keys},
            ),
            Preset(
                f"Valid length {max(1, n_keys // 2)}",
                "Notice: the masked keys' scores do not change, yet their weights drop to "
                "exactly 0 (crossed out) and the others grow to still sum to one.",
                {"num_hiddens": mid, "valid_len": max(1, n_keys // 2)},
            ),
        ),
        meta={
            "keys": keys,
            "W_q": W_q_all,
            "W_k": W_k_all,
            "w_v": w_v_all,
            "radius": radius,
            "query_at": query_at,
        },
    )


_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _wide_notice(update: Callable, angle: float, n_keys: int, h_mid: int, h_max: int) -> str:
    """The h = h_max preset's notice, read off its own frame (the query at ``angle``, every
    key valid): how far the scores spread against h = h_mid, and which keys take the weight
    (the fewest, largest first, that take at least 3/4 of it)."""
    wide, mid = (update(angle, n_keys, h) for h in (h_max, h_mid))
    spread = [float(np.ptp(f["scores"]["score a(q, k)"])) for f in (wide, mid)]
    w = [float(x) for x in np.asarray(wide["weights"]).reshape(-1)]
    order = sorted(range(n_keys), key=lambda j: -w[j])
    top = 1
    while sum(w[j] for j in order[:top]) < 0.75:
        top += 1
    rest, head = n_keys - top, order[:top]
    if top == 1:
        gather = f"key {head[0]} takes most of the weight, {w[head[0]]:.2f}"
    else:
        gather = (
            f"the weight gathers on a few keys: keys {_and([str(j) for j in head])} take "
            f"{_and([f'{w[j]:.2f}' for j in head])}"
        )
    others = f"the other {_WORDS.get(rest, rest)} keys" if rest > 1 else "the last key"
    return (
        f"Notice: the scores spread wider (highest minus lowest {spread[0]:.1f}, against "
        f"{spread[1]:.1f} at h = {h_mid}), and {gather}; {others} share "
        f"{sum(w[j] for j in order[top:]):.2f}. Drag the query: the favourites change."
    )


@declare(**ADDITIVE_ARGS)
def additive_attention_explorer(**kwargs: Any) -> Explorer:
    """Additive attention weights as the query moves (chapter 4).

    Eight seeded 2-D keys and a fixed seeded additive scoring network
    ``a(q, k) = w_vᵀ tanh(W_q q + W_k k)`` (:func:`attnlib.additive_scores`; ``W_q`` and
    ``W_k`` are separate matrices, which is why queries and keys may have different
    sizes). Controls: the query's angle on a circle of radius 1.5 (36 positions; the reader
    drags the query round the circle, or plays the angles), the valid length (1 to 8: keys at
    or beyond it get weight exactly 0) and ``num_hiddens`` (2, 8, 32: the first ``h`` hidden
    units of one network). Panels: the query and keys in the plane, the weights
    ``masked_softmax(scores, valid_len)`` and the raw scores.

    Keyword args (optional): ``seed``, ``n_keys``, ``hiddens``, ``n_angles``, ``radius``.
    """
    return Explorer(additive_attention_declaration(**kwargs))


# ----------------------------------------------------------------------------- checker


#: check_scores' three input sizes, (batch, n_queries, n_keys, d, (d_q, d_k), h): every size
#: differs from case to case, so an answer that hard-codes one (a reshape to (2, 3, 4), a
#: division by √8) fails; n_queries != n_keys and d_q != d_k within a case, so a transpose or
#: swapped weight matrices show in the shapes
SCORE_CASES = (
    (2, 3, 4, 8, (6, 8), 5),
    (3, 5, 2, 12, (10, 7), 4),
    (1, 4, 6, 5, (3, 9), 6),
)


def _score_inputs(kind: str, case: int = 0) -> dict[str, object]:
    """Seeded inputs for check_scores, case ``case`` of :data:`SCORE_CASES` (a local
    generator; the global seed is untouched)."""
    g = torch.Generator().manual_seed(11 + case)
    batch, n_queries, n_keys, d, (dq, dk), h = SCORE_CASES[case]
    d_q, d_k = (d, d) if kind in ("dot_product", "gaussian") else (dq, dk)
    args: dict[str, object] = {
        "queries": torch.randn(batch, n_queries, d_q, generator=g),
        "keys": torch.randn(batch, n_keys, d_k, generator=g),
    }
    if kind == "additive":
        args["W_q"] = torch.randn(h, d_q, generator=g) / math.sqrt(d_q)
        args["W_k"] = torch.randn(h, d_k, generator=g) / math.sqrt(d_k)
        args["w_v"] = torch.randn(h, generator=g)
    elif kind == "bilinear":
        args["M"] = torch.randn(d_q, d_k, generator=g) / math.sqrt(d_q)
    elif kind == "gaussian":
        args["sigma"] = 1.5
    return args


def _describe_args(args: dict[str, object]) -> str:
    parts = []
    for k, v in args.items():
        parts.append(f"{k} {fmt_shape(v.shape)}" if isinstance(v, Tensor) else f"{k}={v}")
    return ", ".join(parts)


def _score_slips(kind: str, args: dict[str, object], want: Tensor) -> list[tuple[str, Tensor]]:
    """(diagnosis, what that slip computes) for the common mistakes of each kind."""
    q, k = args["queries"], args["keys"]
    slips: list[tuple[str, Tensor]] = [
        ("the sign is flipped", -want),
    ]
    if kind == "dot_product":
        d = q.shape[-1]
        slips += [
            (
                f"you forgot to divide by √d, where d = queries.shape[-1] (here {d}; the "
                f"checker varies it): your scores are √d = {math.sqrt(d):.3g} times too large",
                want * math.sqrt(d),
            ),
            (f"you divided by d = {d} instead of √d = {math.sqrt(d):.3g}", want / math.sqrt(d)),
            ("the sign is flipped and the 1/√d is missing", -want * math.sqrt(d)),
        ]
    elif kind == "gaussian":
        s = float(args["sigma"])
        sq = -2 * s * s * want  # ‖q − k‖²
        slips += [
            ("the factor ½ is missing: divide by 2σ², not σ²", want * 2),
            (f"you forgot to divide by σ² (σ = {s})", want * s * s),
            (f"you forgot to divide by 2σ² (σ = {s})", want * 2 * s * s),
            ("you divided by 2σ instead of 2σ²", want * s),
            (
                "the sign is flipped: scores are −‖q − k‖²/(2σ²), largest for the nearest "
                "keys, and "
                "the distance is not divided by 2σ²",
                -sq,
            ),
            (
                "you used the distance ‖q − k‖ instead of its square ‖q − k‖²",
                -sq.clamp(min=0).sqrt() / (2 * s * s),
            ),
        ]
    elif kind == "additive":
        W_q, W_k, w_v = args["W_q"], args["W_k"], args["w_v"]
        pre = (q @ W_q.T).unsqueeze(2) + (k @ W_k.T).unsqueeze(1)  # (batch, n_queries, n_keys, h)
        slips += [
            ("you left out the tanh, which goes between the sum W_q q + W_k k and w_v", pre @ w_v),
        ]
    return slips


@declare(fn=ANSWER, kind=Choice(*sorted(SCORE_KINDS)))
@checker
def check_scores(fn: Callable, kind: str) -> CheckResult:
    r"""Check a learner's scoring function against attnlib's on seeded random inputs.

    ``kind`` and the call made (the same arguments as attnlib's function):

    - ``"dot_product"``: ``fn(queries, keys)``, expected ``q·k/√d``
      (:func:`attnlib.dot_product_scores`);
    - ``"additive"``: ``fn(queries, keys, W_q, W_k, w_v)``, expected
      ``w_vᵀ tanh(W_q q + W_k k)`` (:func:`attnlib.additive_scores`);
    - ``"bilinear"``: ``fn(queries, keys, M)``, expected ``qᵀ M k``
      (:func:`attnlib.bilinear_scores`);
    - ``"gaussian"``: ``fn(queries, keys, sigma)``, expected ``−‖q − k‖²/(2σ²)``
      (:func:`attnlib.gaussian_scores`).

    Inputs: ``queries (2, 3, d_q)``, ``keys (2, 4, d_k)`` with ``d_q = d_k = 8`` (dot
    product, Gaussian) or ``d_q = 6, d_k = 8`` (additive, bilinear), ``h = 5``,
    ``sigma = 1.5``. Because ``n_queries ≠ n_keys`` and ``d_q ≠ d_k``, transposed scores
    and swapped weight matrices show in the shapes. The shape is checked first, then the
    values; diagnosed slips: forgot ``1/√d`` (or divided by ``d``), scores of shape
    ``(batch, n_keys, n_queries)``, wrong sign, missing ``½`` or ``σ²``, distance for
    squared distance, missing tanh.

    Reference::

        torch.allclose(fn(queries, keys), attnlib.dot_product_scores(queries, keys))

    Args:
        fn: the learner's scoring function, returning ``(batch, n_queries, n_keys)``.
        kind: ``"dot_product"``, ``"additive"``, ``"bilinear"`` or ``"gaussian"``.

    Returns:
        :class:`CheckResult`. Raises TypeError if ``fn`` is not callable, ValueError for an
        unknown ``kind``.

    Example::

        >>> check_scores(lambda q, k: q @ k.transpose(1, 2), "dot_product")  # doctest: +ELLIPSIS
        Not yet: your dot_product scores are wrong: you forgot to divide by √d, where d = ...
        >>> scaled = lambda q, k: q @ k.transpose(1, 2) / q.shape[-1] ** 0.5
        >>> bool(check_scores(scaled, "dot_product"))
        True
    """
    _require_callable(fn, "check_scores")
    if not isinstance(kind, str) or kind not in SCORE_KINDS:
        raise ValueError(f"check_scores: kind must be one of {sorted(SCORE_KINDS)}; got {kind!r}")
    ref_name, call, formula = SCORE_KINDS[kind]
    half: set = set()
    for case in range(len(SCORE_CASES)):
        verdict = _score_case(fn, kind, case)
        if isinstance(verdict, str):
            if case:
                verdict += (
                    " (your function was right on case 1's sizes: read every size, d "
                    "included, from the inputs; the checker varies them all)"
                )
            return _fail(verdict)
        half |= verdict
    dtype = next(iter(half), None)
    sizes = "; ".join(_describe_args(_score_inputs(kind, c)) for c in range(len(SCORE_CASES)))
    return _pass(
        f"your {kind} scores ({formula}) match attnlib.{ref_name} for {call} on "
        f"{len(SCORE_CASES)} input sizes: {sizes}" + (precision_note(dtype) if dtype else "")
    )


def _score_case(fn: Callable, kind: str, case: int) -> str | set:
    """One case of :func:`check_scores`: the verdict if it fails, else the set of
    half-precision dtypes the answer came in (empty for float32/64)."""
    import attnlib.scoring as scoring

    ref_name, call, formula = SCORE_KINDS[kind]
    args = _score_inputs(kind, case)
    want = getattr(scoring, ref_name)(*args.values())
    batch, n_queries, n_keys = want.shape
    called = f"{call} with {_describe_args(args)}"
    where = f"case {case + 1} ({_describe_args(args)}): " if case else ""
    args_in = {k: (v.clone() if isinstance(v, Tensor) else v) for k, v in args.items()}
    try:
        out = fn(*args_in.values())
    except Exception as err:
        return f"calling your function as {called} raised {_exc(err)}"
    for k, v in args.items():
        if isinstance(v, Tensor) and not torch.equal(v, args_in[k]):
            return f"your function wrote into its input {k}; compute the scores into a new tensor"
    got = _as_answer(out)
    if isinstance(got, str):
        return (
            f"{where}your function returned {got}; expected scores of shape "
            f"(batch, n_queries, n_keys) = {fmt_shape(want.shape)}"
        )
    dtype = got.dtype
    got = got.detach().to(torch.float64)
    want64 = want.detach().to(torch.float64)
    slips = [(text, t.detach().to(torch.float64)) for text, t in _score_slips(kind, args, want)]

    def matches(a: Tensor, b: Tensor) -> bool:
        return answers_close(a, b, dtype)

    if tuple(got.shape) != tuple(want.shape):
        if tuple(got.shape) == (batch, n_keys, n_queries):
            gt = got.transpose(1, 2)  # (batch, n_keys, n_queries) -> (batch, n_queries, n_keys)
            extra = ""
            if not matches(gt, want64):
                extra = next(
                    (f"; also, {text}" for text, t in slips if matches(gt, t)),
                    "; the values differ too",
                )
            return (
                f"{where}your scores have shape {fmt_shape(got.shape)} = (batch, n_keys, "
                f"n_queries); queries must be the rows: expected (batch, n_queries, n_keys) = "
                f"{fmt_shape(want.shape)} (e.g. queries @ keys.transpose(1, 2), not "
                f"keys @ queries.transpose(1, 2)){extra}"
            )
        return (
            f"{where}your scores have shape {fmt_shape(got.shape)}; expected (batch, "
            f"n_queries, n_keys) = {fmt_shape(want.shape)} for {_describe_args(args)}"
        )
    if not torch.isfinite(got).all():
        b, i, j = _first(~torch.isfinite(got))
        return (
            f"{where}your score at batch {b}, query {i}, key {j} is {_num(got[b, i, j])}; "
            f"expected {_num(want64[b, i, j], 4)}"
        )
    if matches(got, want64):
        return {dtype} if dtype in (torch.float16, torch.bfloat16) else set()
    for text, t in slips:
        if matches(got, t):
            return f"{where}your {kind} scores are wrong: {text} (expected {formula})"
    shift = got - want64  # (batch, n_queries, n_keys)
    row = shift[..., :1]  # (batch, n_queries, 1)
    rtol, atol = tolerance(dtype)
    if torch.allclose(shift, row.expand_as(shift), rtol=0, atol=atol) and row.abs().max() > atol:
        b, i = _first(row[..., 0].abs() > atol)
        return (
            f"{where}your {kind} scores differ from the expected ones by the same amount along "
            f"each row (by {_num(row[b, i, 0], 4)} in batch {b}, query {i}): the softmax "
            f"weights would be the same, since a constant added to a whole row cancels, but "
            f"the scores are not (expected {formula})"
        )
    c = _constant_ratio(got.flatten(), want64.flatten())
    if c is not None:
        return (
            f"{where}your {kind} scores are {c:.4g} times the expected ones everywhere; check "
            f"the constant factors (expected {formula})"
        )
    close = torch.isclose(got, want64, rtol=rtol, atol=atol)
    b, i, j = _first(~close)
    got_s, want_s = _pair(got[b, i, j], want64[b, i, j])
    return (
        f"{where}your {kind} scores differ from attnlib.{ref_name} at {int((~close).sum())} "
        f"of {close.numel()} entries, first at batch {b}, query {i}, key {j}: you give "
        f"{got_s}, expected {want_s} ({formula})" + precision_note(dtype, got, want64)
    )
