"""Automatic checks for chapter 6's exercises (the date-rewriting encoder-decoder).

Like :mod:`attnlib.exercises`, each checker returns a
:class:`attnlib.exercises.CheckResult` (``✅``/``❌`` with a specific message) for a learner's
answer, and raises ``TypeError``/``ValueError`` only for misuse of the checker itself.
"""
from __future__ import annotations

from typing import Callable

import torch
from torch import Tensor, nn

from attnlib.exercises import CheckResult
from attnlib.seq2seq import (N_OUT, DateModel, accuracy, encode_sources, encode_targets,
                             format_target, implied_alignment, random_dates, random_sources,
                             train)

__all__ = ["check_alignment", "check_attention_module"]


def _fail(message: str) -> CheckResult:
    return CheckResult(False, message)


def check_alignment(answer, source: str) -> CheckResult:
    """Check a predicted alignment for ``source`` against the one the task implies.

    ``answer`` is ``(N_OUT, len(source))``: one row per output character of the ISO date
    (``"YYYY-MM-DD"``), one column per input character, with the share of each input
    character that the output character needs (rows of the dashes all zero; a month
    digit spreads evenly over the month's name). Compared with
    :func:`attnlib.seq2seq.implied_alignment` within 1e-3.
    """
    want = implied_alignment(source)  # raises ValueError for a source it cannot parse
    try:
        got = torch.as_tensor(answer, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return _fail(f"your answer is an object of type {type(answer).__name__}; expected a "
                     f"({N_OUT}, {len(source)}) tensor")
    shape = (N_OUT, len(source))
    if tuple(got.shape) == shape[::-1]:
        return _fail(f"your alignment has shape {tuple(got.shape)}: it is transposed. Output "
                     f"characters are the rows (queries), input characters the columns (keys): "
                     f"shape {shape}")
    if tuple(got.shape) != shape:
        return _fail(f"your alignment has shape {tuple(got.shape)}; expected {shape}: one row per "
                     f"character of 'YYYY-MM-DD', one column per character of {source!r}")
    target = "YYYY-MM-DD"
    for i in range(N_OUT):
        if torch.allclose(got[i], want[i].double(), atol=1e-3):
            continue
        cols = [j for j in range(len(source)) if want[i, j] > 0]
        where = "no input character (a dash is always written)" if not cols else \
            "input characters " + ", ".join(f"{j} ({source[j]!r})" for j in cols)
        return _fail(f"row {i} (the output's {target[i]!r}) should point at {where}; your row is "
                     f"{[round(v, 3) for v in got[i].tolist()]}")
    return CheckResult(True, f"all {N_OUT} rows match the alignment that {source!r} implies")


def check_attention_module(factory: Callable[[int], nn.Module], *, steps: int = 300,
                           seed: int = 0) -> CheckResult:
    """Check an attention module for the date model, then train with it.

    ``factory(num_hiddens)`` must return a module called as ``module(queries, keys, values,
    valid_lens)`` with queries ``(batch, 1, h)``, keys = values ``(batch, n_in, h)``,
    returning ``(batch, 1, h)`` and keeping ``.attention_weights`` ``(batch, 1, n_in)``
    (masked keys 0, rows summing to 1). If it does, a date model is trained with it for
    ``steps`` steps (a few seconds) and its held-out exact accuracy must reach 0.9.
    """
    if not callable(factory):
        raise TypeError("check_attention_module: factory must be a function num_hiddens -> module")
    g = torch.Generator().manual_seed(seed)
    h, batch, n_in = 8, 3, 5
    try:
        module = factory(h)
        q = torch.randn(batch, 1, h, generator=g)
        kv = torch.randn(batch, n_in, h, generator=g)
        lens = torch.tensor([2, 5, 1])
        out = module(q, kv, kv, lens)
    except Exception as err:  # the learner's code: report, do not crash the notebook
        return _fail(f"calling your module failed: {type(err).__name__}: {err}")
    if not isinstance(out, Tensor) or tuple(out.shape) != (batch, 1, h):
        shape = tuple(out.shape) if isinstance(out, Tensor) else type(out).__name__
        return _fail(f"your module returned {shape}; expected the context (batch, 1, h) = "
                     f"{(batch, 1, h)}")
    w = getattr(module, "attention_weights", None)
    if not isinstance(w, Tensor) or tuple(w.shape) != (batch, 1, n_in):
        return _fail("your module must keep .attention_weights of shape (batch, 1, n_in) = "
                     f"{(batch, 1, n_in)} after each call")
    w = w.detach().double()
    masked = torch.arange(n_in) >= lens.view(-1, 1, 1)
    if (w[masked] != 0).any():
        return _fail("your module gives weight to padded keys: pass valid_lens on to the "
                     "masked softmax")
    if not torch.allclose(w.sum(-1), torch.ones(batch, 1, dtype=torch.float64), atol=1e-5):
        return _fail(f"your weights' rows sum to {w.sum(-1).flatten().tolist()}; a softmax row "
                     f"sums to 1")
    gen = torch.Generator().manual_seed(seed)
    dates = random_dates(3000, gen)
    src, src_lens = encode_sources(random_sources(dates, gen))
    tgt = encode_targets([format_target(d) for d in dates])
    torch.manual_seed(seed)
    model = DateModel(attention=factory)
    model(src[:2], src_lens[:2], tgt[:2])  # size lazy layers before the optimiser sees them
    train(model, src, src_lens, tgt, steps=steps, generator=gen)
    test_dates = random_dates(500, gen)
    acc = accuracy(model, random_sources(test_dates, gen), test_dates)
    if acc < 0.9:
        return _fail(f"your module has the right shapes, but the model trained with it for "
                     f"{steps} steps rewrites only {acc:.0%} of 500 held-out dates exactly "
                     f"(the bar is 90%)")
    return CheckResult(True, f"shapes and masking are right, and after {steps} steps the model "
                             f"rewrites {acc:.0%} of 500 held-out dates exactly")
