"""Chapter 7's date model (scoringbook.ch07_dates on scoringbook.seq2seq): the task, the
alignment, the model's shapes, and a short training that must work, so that a broken
attention fails fast (the chapter trains the full model)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import torch
from torch import nn

import attnlib
from scoringbook import ch07_dates
from scoringbook import seq2seq as s2s
from scoringbook.ch07_exercises import check_alignment, check_attention_module


def test_formats_and_encoding():
    d = dt.date(2026, 11, 5)
    assert ch07_dates.format_source(d, "short") == "5 Nov 2026"
    assert ch07_dates.format_source(d, "long") == "Thursday, 5 November 2026"
    assert ch07_dates.format_source(d, "us") == "November 5, 2026"
    assert ch07_dates.format_target(d) == "2026-11-05"
    ids, lens = ch07_dates.encode_sources(["5 Nov 2026", "Thursday, 5 November 2026"])
    assert ids.shape == (2, 25) and lens.tolist() == [10, 25]
    assert (ids[0, 10:] == s2s.PAD).all()
    with pytest.raises(ValueError, match="style"):
        ch07_dates.format_source(d, "iso")


@pytest.mark.parametrize(
    "source, year, month, day",
    [
        ("5 Nov 2026", range(6, 10), range(2, 5), [0, 0]),
        ("22 Nov 2026", range(7, 11), range(3, 6), [0, 1]),
        ("Thursday, 5 November 2026", range(21, 25), range(12, 20), [10, 10]),
        ("November 15, 2026", range(13, 17), range(0, 8), [9, 10]),
    ],
)
def test_implied_alignment(source, year, month, day):
    A = ch07_dates.implied_alignment(source)
    assert A.shape == (10, len(source))
    for i, j in enumerate(year):
        assert A[i, j] == 1 and A[i].sum() == 1
    for row in (5, 6):
        assert torch.allclose(A[row, list(month)], torch.full((len(month),), 1 / len(month)))
        assert A[row].sum().item() == pytest.approx(1.0)
    assert A[8, day[0]] == 1 and A[9, day[1]] == 1
    assert (A[4] == 0).all() and (A[7] == 0).all()  # the dashes copy nothing
    with pytest.raises(ValueError, match="must look like"):
        ch07_dates.implied_alignment("2026-11-05")


def test_model_shapes_query_keys_values():
    torch.manual_seed(0)
    model = ch07_dates.DateModel(num_hiddens=16)
    src, lens = ch07_dates.encode_sources(["5 Nov 2026", "Thursday, 5 November 2026"])
    tgt = ch07_dates.encode_targets(["2026-11-05", "2026-11-05"])
    logits, w = model(src, lens, tgt)
    assert logits.shape == (2, 10, len(ch07_dates.TGT_CHARS))
    assert w.shape == (2, 10, 25)  # output characters are rows, input characters columns
    assert (w[0, :, 10:] == 0).all()  # the padding of the short input gets no weight
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 10))
    assert isinstance(model.decoder.attention, attnlib.AdditiveAttention)
    plain = ch07_dates.DateModel(attention=False, num_hiddens=16)
    logits, w = plain(src, lens)
    assert logits.shape == (2, 10, len(ch07_dates.TGT_CHARS)) and w is None


def _train(attention, steps=150, seed=0):
    g = torch.Generator().manual_seed(seed)
    dates = ch07_dates.random_dates(1500, g)
    src, lens = ch07_dates.encode_sources(ch07_dates.random_sources(dates, g))
    tgt = ch07_dates.encode_targets([ch07_dates.format_target(d) for d in dates])
    torch.manual_seed(seed)
    model = ch07_dates.DateModel(attention=attention)
    model(src[:2], lens[:2], tgt[:2])
    log = s2s.train(model, src, lens, tgt, steps=steps, generator=g)
    test = ch07_dates.random_dates(300, g)
    return log, ch07_dates.accuracy(model, ch07_dates.random_sources(test, g), test)


class _Uniform(nn.Module):
    """A broken attention: ignores the query, averages the valid values."""

    def __init__(self, num_hiddens):
        super().__init__()
        self.attention_weights = None

    def forward(self, queries, keys, values, valid_lens):
        scores = torch.zeros(queries.shape[0], 1, keys.shape[1])  # (batch, 1, n_in)
        self.attention_weights = attnlib.masked_softmax(scores, valid_lens)
        return torch.bmm(self.attention_weights, values)  # (batch, 1, h)


@pytest.mark.slow
def test_short_training_learns_and_a_broken_attention_does_not():
    log, acc = _train(True)
    assert log.losses[-1] < 0.25 * log.losses[0], (log.losses[0], log.losses[-1])
    assert acc >= 0.6, acc
    _, acc_broken = _train(lambda h: _Uniform(h))
    assert acc_broken < acc - 0.3, (acc_broken, acc)


@pytest.mark.slow
def test_training_is_deterministic_and_records_checkpoints():
    g = torch.Generator().manual_seed(3)
    dates = ch07_dates.random_dates(200, g)
    src, lens = ch07_dates.encode_sources(ch07_dates.random_sources(dates, g))
    tgt = ch07_dates.encode_targets([ch07_dates.format_target(d) for d in dates])
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model = ch07_dates.DateModel(num_hiddens=8)
        model(src[:2], lens[:2], tgt[:2])
        runs.append(
            s2s.train(
                model,
                src,
                lens,
                tgt,
                steps=12,
                batch_size=16,
                generator=torch.Generator().manual_seed(1),
                watch=(src[:1], lens[:1]),
                every=5,
            )
        )
    assert runs[0].losses == runs[1].losses
    assert [s for s, _ in runs[0].checkpoints] == [0, 5, 10, 12]
    for _, w in runs[0].checkpoints:
        assert w.shape == (1, 10, src.shape[1]) and torch.isfinite(w).all()


def test_playback_explorer_frames_are_valid_weights():
    from scoringbook.ch07_bahdanau import alignment_playback_declaration

    g = torch.Generator().manual_seed(4)
    dates = ch07_dates.random_dates(100, g)
    src, lens = ch07_dates.encode_sources(ch07_dates.random_sources(dates, g))
    tgt = ch07_dates.encode_targets([ch07_dates.format_target(d) for d in dates])
    torch.manual_seed(0)
    model = ch07_dates.DateModel(num_hiddens=8)
    model(src[:2], lens[:2], tgt[:2])
    watch = "Thursday, 5 November 2026"
    log = s2s.train(
        model,
        src,
        lens,
        tgt,
        steps=10,
        batch_size=8,
        generator=g,
        watch=ch07_dates.encode_sources([watch]),
        every=5,
    )
    decl = alignment_playback_declaration(log, watch, "2026-11-05")
    for step in (0, 5, 10):
        frame = decl.compute(step=step)
        w = torch.as_tensor(frame["weights"])
        assert w.shape == (10, len(watch)) and torch.isfinite(w).all()
        torch.testing.assert_close(w.sum(-1), torch.ones(10, dtype=w.dtype), atol=1e-5, rtol=0)
    with pytest.raises(ValueError, match="no checkpoints"):
        alignment_playback_declaration(s2s.TrainLog(), watch, "2026-11-05")


def test_check_alignment():
    src = "November 5, 2026"
    assert check_alignment(ch07_dates.implied_alignment(src), src).ok
    result = check_alignment(ch07_dates.implied_alignment(src).T, src)
    assert not result.ok and "transposed" in result.message
    wrong = ch07_dates.implied_alignment(src).clone()
    wrong[5:7] = 0
    wrong[5:7, 0:3] = 1 / 3  # only the first three letters
    result = check_alignment(wrong, src)
    assert not result.ok and "row 5" in result.message


def test_check_attention_module_rejects_unmasked_and_wrong_shapes():
    class NoMask(nn.Module):
        def __init__(self, h):
            super().__init__()
            self.inner = attnlib.DotProductAttention()

        @property
        def attention_weights(self):
            return self.inner.attention_weights

        def forward(self, q, k, v, valid_lens):
            return self.inner(q, k, v)

    result = check_attention_module(NoMask)
    assert not result.ok and "padded keys" in result.message
    result = check_attention_module(lambda h: nn.Identity())
    assert not result.ok


# ----------------------------------------------------------------------------- issue 17
def _tiny_date_model(attention=True, seed=0):
    torch.manual_seed(seed)
    model = ch07_dates.DateModel(attention=attention, num_hiddens=8)
    src, lens = ch07_dates.encode_sources(["5 Nov 2026", "Thursday, 5 November 2026"])
    model(src, lens, ch07_dates.encode_targets(["2026-11-05", "2026-11-05"]))  # size lazy layers
    return model, src, lens


def test_uniform_attention_is_the_mean_of_the_valid_values():
    g = torch.Generator().manual_seed(0)
    q, kv = torch.randn(2, 3, 4, generator=g), torch.randn(2, 5, 4, generator=g)
    lens = torch.tensor([2, 5])
    out = s2s.UniformAttention()(q, kv, kv, lens)
    w = torch.zeros(2, 3, 5)
    w[0, :, :2], w[1] = 0.5, 0.2
    torch.testing.assert_close(s2s.UniformAttention()(q, kv, kv, lens), out)
    torch.testing.assert_close(out[0], kv[0, :2].mean(0).expand(3, 4))
    torch.testing.assert_close(out[1], kv[1].mean(0).expand(3, 4))


def test_encoder_decoder_arguments():
    with pytest.raises(TypeError, match="attention must be True, False, 'uniform'"):
        s2s.EncoderDecoder(10, 10, attention="dot")
    with pytest.raises(ValueError, match="even"):
        s2s.EncoderDecoder(10, 10, num_hiddens=7)
    model = s2s.EncoderDecoder(10, 12, num_hiddens=8, attention="uniform")
    src, lens = torch.tensor([[3, 4, 5]]), torch.tensor([3])
    with pytest.raises(ValueError, match="pass tgt or n_out"):
        model(src, lens)
    logits, w = model(src, lens, n_out=4)
    assert logits.shape == (1, 4, 12) and w.shape == (1, 4, 3)
    torch.testing.assert_close(w, torch.full((1, 4, 3), 1 / 3))
    with pytest.raises(ValueError, match="not in the source vocabulary"):
        ch07_dates.encode_sources(["5 Nov 2026!"])
    with pytest.raises((TypeError, ValueError), match="texts"):
        ch07_dates.encode_sources([])


@pytest.mark.slow
def test_uniform_rows_replaces_exactly_the_rows_asked_for():
    model, src, lens = _tiny_date_model()
    model.eval()
    with torch.no_grad():
        logits, w = model(src, lens)
        with s2s.uniform_rows(model, [2, 7]):
            logits_u, w_u = model(src, lens)
            _, w_again = model(src, lens)  # every forward pass starts at row 0 again
        _, w_after = model(src, lens)
    uniform = torch.zeros(2, src.shape[1])
    uniform[0, :10], uniform[1] = 1 / 10, 1 / 25
    torch.testing.assert_close(w_u[:, 2], uniform)
    torch.testing.assert_close(w_u[:, 7], uniform)
    torch.testing.assert_close(w_u[:, :2], w[:, :2])  # before the first blind row: unchanged
    torch.testing.assert_close(w_again, w_u)
    torch.testing.assert_close(w_after, w)  # restored on exit
    assert isinstance(model.decoder.attention, attnlib.AdditiveAttention)
    plain, _, _ = _tiny_date_model(attention=False)
    with pytest.raises(ValueError, match="no attention weights"):
        with s2s.uniform_rows(plain, [0]):
            pass
    with pytest.raises(ValueError, match=">= 0"):
        with s2s.uniform_rows(model, [-1]):
            pass


def test_permuted_rows_shuffles_each_examples_own_weights_over_its_valid_keys_only():
    # Jain and Wallace's permutation test: the rows asked for carry the model's own weights,
    # shuffled within each example's valid keys (padding keeps 0), the context follows them,
    # other rows are the model's own, and the generator decides the shuffle (same seed, same)
    model, src, lens = _tiny_date_model()
    model.eval()
    with torch.no_grad():
        _, w = model(src, lens)  # (2, 10, 25); lens = (10, 25)
        with ch07_dates.permuted_rows(model, [3], torch.Generator().manual_seed(0)):
            _, w_p = model(src, lens)
        with ch07_dates.permuted_rows(model, [3], torch.Generator().manual_seed(0)):
            _, w_same = model(src, lens)
        _, w_after = model(src, lens)
    torch.testing.assert_close(w_p[:, :3], w[:, :3])  # before the shuffled row: unchanged
    for b, n in enumerate(lens.tolist()):
        mine, theirs = w_p[b, 3, :n], w[b, 3, :n]
        torch.testing.assert_close(mine.sort().values, theirs.sort().values)  # a permutation
        assert not torch.equal(mine, theirs)  # ... that moved something
        assert (w_p[b, 3, n:] == 0).all()  # padding keeps no weight
    torch.testing.assert_close(w_same, w_p)
    torch.testing.assert_close(w_after, w)  # restored on exit
    with pytest.raises(ValueError, match="permuted_rows: rows"):
        with ch07_dates.permuted_rows(model, [-1], torch.Generator()):
            pass
    plain, _, _ = _tiny_date_model(attention=False)
    with pytest.raises(ValueError, match="permuted_rows: the model has no attention"):
        with ch07_dates.permuted_rows(plain, [0], torch.Generator()):
            pass


def test_train_continues_a_run_with_its_optimizer():
    g = torch.Generator().manual_seed(3)
    dates = ch07_dates.random_dates(100, g)
    src, lens = ch07_dates.encode_sources(ch07_dates.random_sources(dates, g))
    tgt = ch07_dates.encode_targets([ch07_dates.format_target(d) for d in dates])
    runs = []
    for split in ([8], [3, 5]):
        torch.manual_seed(0)
        model = ch07_dates.DateModel(attention=False, num_hiddens=8)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        gen = torch.Generator().manual_seed(1)
        losses = []
        for steps in split:
            kw = dict(steps=steps, batch_size=8, optimizer=opt, generator=gen)
            losses += s2s.train(model, src, lens, tgt, **kw).losses
        runs.append(losses)
    assert runs[0] == runs[1]


def test_check_alignment_accepts_both_readings_of_the_leading_zero():
    src = "November 5, 2026"
    A = ch07_dates.implied_alignment(src)
    assert check_alignment(A, src).ok
    zero_row = A.clone()
    zero_row[8] = 0.0  # the leading 0 copies nothing
    assert check_alignment(zero_row, src).ok
    two_digits = "November 15, 2026"  # a two-digit day: row 8 must point at the 1
    B = ch07_dates.implied_alignment(two_digits).clone()
    B[8] = 0.0
    result = check_alignment(B, two_digits)
    assert not result.ok and "row 8" in result.message and "or nothing" not in result.message


def test_check_alignment_square_answers_and_messages():
    src = "5 Nov 2026"  # 10 characters: the alignment is square
    A = ch07_dates.implied_alignment(src)
    assert check_alignment(A, src).ok  # never called transposed
    result = check_alignment(A.T, src)
    assert not result.ok and "transposed" in result.message
    wrong = A.clone()
    wrong[5, 2:5] = 0.3353  # 1/3 + 0.002: close, but outside the 1e-3 tolerance
    wrong[5, 2] -= 0.006
    result = check_alignment(wrong, src)
    assert not result.ok and "row 5" in result.message
    got, want = re.search(r"has (\S+), expected (\S+)$", result.message).groups()
    assert got != want and float(want) == pytest.approx(1 / 3, abs=1e-3)
    nan = A.clone()
    nan[0, 0] = float("nan")
    assert "shares are finite" in check_alignment(nan, src).message
    assert "type str" in check_alignment("A", src).message
    assert "shape (9, 10)" in check_alignment(A[:9], src).message


class _Projected(nn.Module):
    """(W q)ᵀk / √h through nn.Linear, optionally with a bias or without the scaling."""

    def __init__(self, h, bias=False, scale=True):
        super().__init__()
        self.W = nn.Linear(h, h, bias=bias)
        self.inner = attnlib.DotProductAttention()
        self.scale = scale

    @property
    def attention_weights(self):
        return self.inner.attention_weights

    def forward(self, q, k, v, valid_lens):
        q = self.W(q) * (1.0 if self.scale else q.shape[-1] ** 0.5)
        return self.inner(q, k, v, valid_lens)


class _Plain(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.inner = attnlib.DotProductAttention()

    @property
    def attention_weights(self):
        return self.inner.attention_weights

    def forward(self, q, k, v, valid_lens):
        return self.inner(q, k, v, valid_lens)


@pytest.mark.parametrize(
    "factory, fragment",
    [
        (lambda h: attnlib.AdditiveAttention(h, 0.0), "not a dot product of a linear map"),
        (_Plain, "q·k/√h, chapter 5's scaled dot product, with nothing to learn"),
        (lambda h: _Projected(h, bias=True), "term in the key alone"),
        (lambda h: _Projected(h, scale=False), "divide by √h"),
        (lambda h: s2s.UniformAttention(), "do not depend on the query"),
    ],
)
def test_check_attention_module_checks_what_the_exercise_asks(factory, fragment):
    result = check_attention_module(factory)
    assert not result.ok and fragment in result.message, result.message


@pytest.mark.slow
def test_check_attention_module_passes_the_solution():
    result = check_attention_module(_Projected)
    assert result.ok, result.message
    assert "learned W" in result.message


# ----------------------------------------------------------------------------- decode step
@pytest.mark.parametrize(
    "source, target",
    [
        ("22 Nov 2026", "2026-11-22"),
        ("November 5, 2026", "2026-11-05"),
        ("Thursday, 5 November 2026", "2026-11-05"),
        ("1 Jan 1900", "1900-01-01"),
    ],
)
def test_decode_step_shows_each_steps_implied_row_and_what_is_written(source, target):
    from scoringbook.ch07_bahdanau import decode_step_declaration

    decl = decode_step_declaration(source)
    implied = ch07_dates.implied_alignment(source).double().numpy()  # (10, n_in), computed apart
    for step in range(1, 11):
        frame = decl.compute(step=step)
        assert frame["weights"].shape == (1, len(source))
        assert (frame["weights"][0] == implied[step - 1]).all()
        text = frame["step"]
        # the step is the slider's words; the caption does not repeat it (it opened with
        # "step t′ = 9 of 10" under the slider's "decode step 9 (output character “2”)")
        assert "step" not in text.splitlines()[0], text
        assert f"written so far: “{target[: step - 1]}”\nwrites now: “{target[step - 1]}”" in text
        assert all(len(line) <= 40 for line in text.splitlines()), text  # no wrap on a phone
        if target[step - 1] == "-":
            assert "looks nowhere" in text
        # one character read: named by its index counted from 0, as the code, exercise 1 and
        # its checker count (the cold read found "character 8" for source[7] of "22 Nov 2026"),
        # and saying so, since the slider counts decode steps from 1 (issue 39's second read)
        assert "(character" not in text, text
        named = re.search(r"looks at “(.)” \(position (\d+), from 0\)", text)
        if named:
            k = int(named[2])
            assert source[k] == named[1] and implied[step - 1].argmax() == k, text
    # the day's last digit, then the year's first: they look at different characters
    if source[0].isdigit():  # day first: the day's last digit ends before the first space
        assert f"(position {source.index(' ') - 1}, from 0)" in decl.compute(step=10)["step"]
    if source == "22 Nov 2026":  # the year's first digit, "2", is source[7]
        assert "looks at “2” (position 7, from 0)" in decl.compute(step=1)["step"]


def test_decode_step_names_its_query_in_words_and_says_a_blank_row_is_no_softmax():
    """Chapter 7's cold read: the heatmap's one row was labelled "s", a symbol the page never
    defines, and the dash preset showed an all-zero row under a colour bar of attention
    weights, with nothing saying a model's softmax row cannot be blank."""
    from scoringbook.ch07_bahdanau import decode_step_declaration

    decl = decode_step_declaration("22 Nov 2026")
    (heat,) = [p for p in decl.panels if p.name == "weights"]
    for label in [heat.ylabel, *heat.row_labels]:
        words = re.findall(r"[a-z]{3,}", label)
        assert words, f"the query's label {label!r} is not in words"
    assert "implies" in heat.colorbar_label, heat.colorbar_label  # the task's, not a softmax
    (dash,) = [pr for pr in decl.presets if "dash" in pr.label]
    step = dash.values["step"]
    assert (decl.compute(step=step)["weights"] == 0).all(), "the preset shows a blank row"
    assert "softmax row cannot be" in dash.notice and "blank" in dash.notice, dash.notice


@pytest.mark.parametrize(
    "source, error, match",
    [
        (22, TypeError, "source"),
        ("22 Nov", ValueError, "source"),
        ("31 Feb 2026", ValueError, "not a date"),
        (None, TypeError, "source must be a string"),
        (["22 Nov 2026"], TypeError, "source must be a string"),
        ("", ValueError, "empty"),
        ("22 Nov 2026 ", ValueError, "source must look like"),
        ("22 nov 2026", ValueError, "where the month goes"),
        ("22 Nov 2026\n", ValueError, "not in the source vocabulary"),
    ],
)
def test_decode_step_refuses_what_is_not_a_date(source, error, match):
    from scoringbook.ch07_bahdanau import decode_step_declaration

    with pytest.raises(error, match=match):
        decode_step_declaration(source)
