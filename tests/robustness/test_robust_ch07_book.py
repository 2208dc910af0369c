"""Chapter 7's book machinery attacked: the alignment playback (training logs of every length,
checkpoints that do not fit the losses or the texts, non-finite values), its smoothed loss
curve, and the two checkers (malformed sources, answers of every kind, gradients switched off,
the global generator)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import attnlib

from ._helpers import FEW, global_rng_untouched, perturb_global_rng, raises
from ._targets import (
    alignment_playback_declaration,
    alignment_playback_explorer,
    ch07_dates,
    check_alignment,
    check_attention_module,
    s2s,
)
from ._targets import widgets as W

SRC, TGT = "22 Nov 2026", "2026-11-22"


N_IN = len(SRC)


def _weights(n_watch=1, n_in=N_IN, seed=0):
    """Softmax rows (n_watch, N_OUT, n_in), float32, like train's checkpoints."""
    g = torch.Generator().manual_seed(seed)
    return torch.softmax(torch.randn(n_watch, ch07_dates.N_OUT, n_in, generator=g), -1)


def _raw(**fields):
    """A TrainLog holding ``fields`` as given: its declared __init__ refuses what is not a
    measurement (test_a_train_log_refuses_what_is_not_a_measurement), so the playback's own
    refusals are reached with a log built around it, as a reader's hand-made one could be."""
    log = object.__new__(s2s.TrainLog)
    log.__dict__.update({"losses": [], "seconds": 0.0, "checkpoints": []} | fields)
    return log


def _log(n_losses=20, steps=None, w=None):
    steps = [0, n_losses] if steps is None else steps
    losses = [2.0 - 0.05 * i for i in range(n_losses)]
    return _raw(losses=losses, checkpoints=[(s, _weights() if w is None else w) for s in steps])


def _loss_curve(decl):
    ex = W.Explorer(decl)
    spec = next(p for p in ex.spec["panels"] if p["name"] == "loss")
    (fixed,) = spec["fixed"]
    return np.array(fixed["x"]), np.array(fixed["y"]), ex


# ----------------------------------------------------------------- the smoothed loss curve
def _reference_smooth(y, width=10):
    """Independent: the mean of the steps within the window (shrinking at the ends): the
    window of step i is [i - width // 2, i + width // 2), clipped to the log."""
    y = np.asarray(y, dtype=np.float64)
    out = np.empty_like(y)
    for i in range(len(y)):
        lo, hi = max(0, i - width // 2), min(len(y), i + width // 2)
        out[i] = y[lo:hi].mean()
    return out


def test_a_flat_loss_is_drawn_flat_to_the_last_step():
    # defect 7: zero padding drew a flat loss of 1.0 as 0.5 at the first step, 0.6 at the last
    log = s2s.TrainLog(losses=[1.0] * 200, checkpoints=[(0, _weights()), (200, _weights())])
    x, y, ex = _loss_curve(alignment_playback_declaration(log, SRC, TGT))
    np.testing.assert_allclose(y, 1.0, atol=1e-12)
    assert x.tolist() == list(range(1, 201))
    marker = ex.declaration.compute(step=200)["loss"]["now"]
    assert marker[1, 0] == pytest.approx(1.0)  # the marker where the slider opens
    assert ex.declaration.compute(step=0)["loss"]["now"][1, 0] == pytest.approx(1.0)


def test_the_smoothed_curve_is_the_windowed_mean_inside_and_shrinks_at_the_ends():
    losses = list(np.linspace(3.0, 0.1, 57) + 0.2 * np.sin(np.arange(57)))
    log = s2s.TrainLog(losses=losses, checkpoints=[(0, _weights()), (57, _weights())])
    _, y, _ = _loss_curve(alignment_playback_declaration(log, SRC, TGT))
    np.testing.assert_allclose(y, _reference_smooth(losses), atol=1e-6)


@FEW
@given(st.lists(st.floats(0.0, 50.0, allow_nan=False), min_size=1, max_size=45))
def test_training_logs_of_every_length_give_a_curve_within_the_losses(losses):
    n = len(losses)
    log = s2s.TrainLog(losses=losses, checkpoints=[(0, _weights()), (n, _weights())])
    x, y, _ = _loss_curve(alignment_playback_declaration(log, SRC, TGT))
    assert len(x) == len(y) == n
    assert y.min() >= min(losses) - 1e-6 and y.max() <= max(losses) + 1e-6
    np.testing.assert_allclose(y, _reference_smooth(losses), atol=1e-6)


# ----------------------------------------------------------------- the declaration: the log
def test_the_log_must_be_a_train_log():
    with raises(TypeError, "alignment_playback_declaration", "log", "TrainLog", "dict"):
        alignment_playback_declaration({"losses": [1.0], "checkpoints": []}, SRC, TGT)


@pytest.mark.parametrize(
    "log, exc, words",
    [
        (_raw(losses=[1.0], checkpoints=[]), ValueError, ["checkpoints", "watch="]),
        (
            _raw(losses=[], checkpoints=[(0, _weights())]),
            ValueError,
            ["losses", "at least one"],
        ),
        (_log(5, [0, 50]), ValueError, ["step 50", "5 losses"]),
        (_log(5, [-3, 5]), ValueError, ["step", "-3", ">= 0"]),
        (_log(5, [0.5, 5]), TypeError, ["step", "0.5", "int"]),
        (_log(5, [True, 5]), TypeError, ["step", "bool"]),
        (_log(5, [5, 0]), ValueError, ["steps", "increasing", "[5, 0]"]),
        (_log(5, [5, 5]), ValueError, ["steps", "increasing", "[5, 5]"]),
        (
            _raw(losses=[1.0, float("nan"), 1.0], checkpoints=[(0, _weights())]),
            ValueError,
            ["losses", "step 2", "nan"],
        ),
        (
            _raw(losses=[1.0, float("inf")], checkpoints=[(0, _weights())]),
            ValueError,
            ["losses", "inf"],
        ),
        (
            _raw(losses=["1.0"] * 3, checkpoints=[(0, _weights())]),
            TypeError,
            ["losses", "'1.0'"],
        ),
        (
            _raw(losses=[1.0] * 3, checkpoints=[(0, _weights() * float("nan"))]),
            ValueError,
            ["checkpoint", "step 0", "nan"],
        ),
        (
            _raw(losses=[1.0] * 3, checkpoints=[(0, _weights()[0])]),
            ValueError,
            ["checkpoint", "(n_watch, 10, n_in)"],
        ),
        (
            _raw(losses=[1.0] * 3, checkpoints=[(0, "weights")]),
            TypeError,
            ["checkpoint", "str"],
        ),
        (
            _raw(losses=[1.0] * 3, checkpoints=[(0, _weights()), (3, _weights(n_in=12))]),
            ValueError,
            ["checkpoint", "step 3", "(1, 10, 12)", "(1, 10, 11)"],
        ),
        (
            _raw(losses=[1.0] * 3, checkpoints=[(0, _weights().half())]),
            TypeError,
            ["checkpoint", "float16", "float32"],
        ),
        (
            _raw(losses=[1.0] * 3, checkpoints=[0]),
            TypeError,
            ["checkpoints", "(step, weights)"],
        ),
    ],
)
def test_a_log_that_does_not_fit_is_refused_at_build_time(log, exc, words):
    with raises(exc, "alignment_playback_declaration", *words):
        alignment_playback_declaration(log, SRC, TGT)


@pytest.mark.parametrize(
    "losses", [np.ones(12), torch.ones(12), [torch.tensor(1.0)] * 12, [np.float32(1.0)] * 12]
)
def test_losses_as_arrays_tensors_or_0d_scalars_are_accepted(losses):
    log = s2s.TrainLog(losses=losses, checkpoints=[(0, _weights()), (12, _weights())])
    _, y, _ = _loss_curve(alignment_playback_declaration(log, SRC, TGT))
    np.testing.assert_allclose(y, 1.0)


def test_checkpoint_weights_as_arrays_or_with_gradients_are_accepted():
    w = _weights()
    # TrainLog's own __init__ takes tensors only; a hand-made log may hold arrays
    log = _raw(losses=[1.0] * 4, checkpoints=[(0, w.numpy()), (4, w.clone().requires_grad_())])
    frame = alignment_playback_declaration(log, SRC, TGT).compute(step=4)
    np.testing.assert_allclose(frame["weights"], w[0].double().numpy(), atol=1e-7)


# ----------------------------------------------------------------- the declaration: texts, index
@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(source=None), TypeError, ["source", "str", "NoneType"]),
        (dict(source=list(SRC)), TypeError, ["source", "str", "list"]),
        (dict(source="22 Nov 2026 and more"), ValueError, ["source", "20 characters", "11"]),
        (
            dict(source="22 Nov 20"),
            ValueError,
            ["source", "beyond", "9"],
        ),  # weight on columns past it
        (
            dict(source="22 Nov 2026!"[:11].replace("6", "!")),
            ValueError,
            ["source", "'!'", "vocabulary"],
        ),
        (dict(target="2026-11"), ValueError, ["target", "YYYY-MM-DD", "'2026-11'"]),
        (dict(target="abcdefghij"), ValueError, ["target", "YYYY-MM-DD"]),
        (dict(target=None), TypeError, ["target", "str"]),
        (dict(index=1), ValueError, ["index", "0 <= index < 1", "1"]),
        (dict(index=-1), ValueError, ["index", "-1"]),
        (dict(index=0.0), TypeError, ["index", "int", "0.0"]),
        (dict(index=True), TypeError, ["index", "bool"]),
    ],
)
def test_texts_and_index_that_do_not_fit_the_log_are_refused(kwargs, exc, words):
    args = {"source": SRC, "target": TGT, "index": 0, **kwargs}
    with raises(exc, "alignment_playback_declaration", *words):
        alignment_playback_declaration(_log(4, [0, 4]), **args)


def test_a_watched_batch_padded_past_the_source_is_fine():
    # several watched inputs are padded to the longest: the padding has weight 0, dropped
    w = torch.zeros(2, ch07_dates.N_OUT, 25)
    w[0, :, : len(SRC)] = _weights()[0]
    w[1] = _weights(n_in=25)[0]
    log = s2s.TrainLog(losses=[1.0] * 3, checkpoints=[(0, w), (3, w)])
    frame = alignment_playback_declaration(log, SRC, TGT, index=np.int64(0)).compute(step=3)
    assert frame["weights"].shape == (ch07_dates.N_OUT, len(SRC))
    frame = alignment_playback_declaration(
        log, "Thursday, 5 November 2026", "2026-11-05", index=torch.tensor(1)
    ).compute()
    assert frame["weights"].shape == (ch07_dates.N_OUT, 25)


@FEW
@given(
    st.lists(
        st.sampled_from(list("<>&!-'\"/ ") + ["<!--", "</script>", "<script>", "\u2028"]),
        max_size=6,
    ).map("".join)
)
def test_every_user_string_reaches_the_page_escaped(extra):
    # whatever a title holds, the standalone page's embedded JSON holds no '<' or '>' that an
    # HTML parser could act on (a source outside the vocabulary is refused, see above)
    decl = alignment_playback_declaration(_log(3, [0, 3]), SRC, TGT)
    decl = W.Declaration(
        name=decl.name,
        update=decl.update,
        params=decl.params,
        panels=decl.panels,
        title=decl.title + extra,
    )
    html = W.standalone_html(W.Explorer(decl))
    body = html.split('id="attn-state">', 1)[1].split("</script>", 1)[0]
    assert "<" not in body and ">" not in body


def test_explorer_wrapper_validates_too():
    with raises(TypeError, "log", "TrainLog"):
        alignment_playback_explorer(None, SRC, TGT)


# ----------------------------------------------------------------- check_alignment
A = ch07_dates.implied_alignment(SRC)
A10 = ch07_dates.implied_alignment("5 Nov 2026")  # a square alignment: 10 characters in, 10 out


def test_a_square_right_answer_is_not_called_transposed():
    # a 10-character source made every answer "transposed", the right one included
    assert check_alignment(A10, "5 Nov 2026").ok
    got = check_alignment(A10.T, "5 Nov 2026")
    assert not got.ok and "transposed" in got.message


@pytest.mark.parametrize(
    "answer",
    [
        A,
        A.numpy(),
        A.tolist(),
        A.double(),
        A.half(),
        A.clone().requires_grad_(),
        A.bool().float() * A,
    ],
)
def test_check_alignment_accepts_any_array_like_of_the_right_numbers(answer):
    assert check_alignment(answer, SRC).ok


@pytest.mark.parametrize(
    "answer, words",
    [
        (None, ["NoneType"]),
        ("abc", ["str"]),
        ([[1, 2], [3]], ["list"]),
        (A.to(torch.complex64), ["complex", "real"]),
        (A * float("nan"), ["NaN", "finite"]),
        (A.clone().fill_(float("inf")), ["inf", "finite"]),
        (A.T, ["transposed"]),
        (A[:9], ["(9, 11)", "(10, 11)"]),
        (A.unsqueeze(0), ["(1, 10, 11)"]),
        (A.bool(), ["row 5"]),  # 0/1 instead of 1/3 on the month's letters
    ],
)
def test_check_alignment_wrong_answers_get_a_verdict_never_an_exception(answer, words):
    got = check_alignment(answer, SRC)
    assert not got.ok
    for w in words:
        assert w.lower() in got.message.lower(), got.message


@pytest.mark.parametrize(
    "source, exc, words",
    [
        (None, TypeError, ["source", "str", "NoneType"]),
        (5, TypeError, ["source", "int"]),
        (["5 Nov 2026"], TypeError, ["source", "list"]),
        ("", ValueError, ["source", "''"]),
        ("5 Xyz 2026", ValueError, ["source", "'5 Xyz 2026'"]),
    ],
)
def test_check_alignment_misuse_names_the_checker_and_source(source, exc, words):
    with raises(exc, "check_alignment", *words):
        check_alignment(A, source)


@FEW
@given(
    st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=110, max_size=110)
)
def test_check_alignment_never_raises_for_any_numbers(values):
    got = check_alignment(torch.tensor(values).reshape(10, 11), SRC)
    assert isinstance(got.ok, bool) and got.message


# ----------------------------------------------------------------- check_attention_module
def _additive(h):
    return attnlib.AdditiveAttention(h, 0.0)


class _Projected(torch.nn.Module):
    """Exercise 2's answer, (W q)ᵀk / √h: it passes the checks before the training."""

    def __init__(self, h):
        super().__init__()
        self.W = torch.nn.Linear(h, h, bias=False)
        self.inner = attnlib.DotProductAttention()

    @property
    def attention_weights(self):
        return self.inner.attention_weights

    def forward(self, queries, keys, values, valid_lens):
        return self.inner(self.W(queries), keys, values, valid_lens)


@pytest.mark.slow
def test_check_attention_module_verdict_without_gradients_or_the_global_seed():
    # defect 4: "element 0 of tensors does not require grad" under no_grad/inference_mode;
    # defect 8: it called torch.manual_seed(seed). Two full runs (a few seconds each): under
    # each mode, from different global states, with numpy / 0-d tensor arguments the second time
    perturb_global_rng()
    with torch.no_grad(), global_rng_untouched():
        a = check_attention_module(_Projected, steps=2)
    torch.manual_seed(1)
    with torch.inference_mode(), global_rng_untouched():
        b = check_attention_module(_Projected, steps=np.int64(2), seed=torch.tensor(0))
    assert not a.ok and "2 steps" in a.message  # a verdict: too few steps to reach 90 %
    assert a.message == b.message  # the same run: nothing depended on the global state


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(steps=0), ValueError, ["steps", ">= 1", "0"]),
        (dict(steps=-1), ValueError, ["steps", "-1"]),
        (dict(steps="3"), TypeError, ["steps", "'3'"]),
        (dict(steps=True), TypeError, ["steps", "bool"]),
        (dict(seed="a"), TypeError, ["seed", "int", "'a'"]),
        (dict(seed=1.5), TypeError, ["seed", "1.5"]),
        (dict(seed=None), TypeError, ["seed", "None"]),
    ],
)
def test_check_attention_module_misuse(kwargs, exc, words):
    with raises(exc, "check_attention_module", *words):
        check_attention_module(_additive, **kwargs)


@pytest.mark.parametrize(
    "fields, exc, words",
    [
        ({"checkpoints": [(-3, _weights())]}, ValueError, ["checkpoints[0][0]", ">= 0", "-3"]),
        ({"checkpoints": [(0.5, _weights())]}, TypeError, ["checkpoints[0][0]", "0.5"]),
        ({"checkpoints": [(True, _weights())]}, TypeError, ["checkpoints[0][0]", "bool"]),
        ({"losses": [1.0, float("nan")]}, ValueError, ["losses[1]", "nan"]),
        ({"losses": [1.0, float("inf")]}, ValueError, ["losses[1]", "inf"]),
        ({"losses": ["1.0"]}, TypeError, ["losses[0]", "'1.0'"]),
        ({"seconds": -1.0}, ValueError, ["seconds", ">= 0"]),
        (
            {"checkpoints": [(0, _weights() * float("nan"))]},
            ValueError,
            ["checkpoints[0][1]", "nan"],
        ),
    ],
)
def test_a_train_log_refuses_what_is_not_a_measurement(fields, exc, words):
    with raises(exc, "TrainLog", *words):
        s2s.TrainLog(**fields)
