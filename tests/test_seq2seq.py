"""Chapter 6's date model: the task, the alignment, the model's shapes, and a short training
that must work, so that a broken attention fails fast (the chapter trains the full model)."""

from __future__ import annotations

import datetime as dt

import pytest
import torch
from torch import nn

import attnlib
from attnlib.book import ch06_model as s2s
from attnlib.book.ch06_bahdanau import check_alignment, check_attention_module


def test_formats_and_encoding():
    d = dt.date(2026, 11, 5)
    assert s2s.format_source(d, "short") == "5 Nov 2026"
    assert s2s.format_source(d, "long") == "Thursday, 5 November 2026"
    assert s2s.format_source(d, "us") == "November 5, 2026"
    assert s2s.format_target(d) == "2026-11-05"
    ids, lens = s2s.encode_sources(["5 Nov 2026", "Thursday, 5 November 2026"])
    assert ids.shape == (2, 25) and lens.tolist() == [10, 25]
    assert (ids[0, 10:] == s2s.PAD).all()
    with pytest.raises(ValueError, match="style"):
        s2s.format_source(d, "iso")


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
    A = s2s.implied_alignment(source)
    assert A.shape == (10, len(source))
    for i, j in enumerate(year):
        assert A[i, j] == 1 and A[i].sum() == 1
    for row in (5, 6):
        assert torch.allclose(A[row, list(month)], torch.full((len(month),), 1 / len(month)))
        assert A[row].sum().item() == pytest.approx(1.0)
    assert A[8, day[0]] == 1 and A[9, day[1]] == 1
    assert (A[4] == 0).all() and (A[7] == 0).all()  # the dashes copy nothing
    with pytest.raises(ValueError, match="must look like"):
        s2s.implied_alignment("2026-11-05")


def test_model_shapes_query_keys_values():
    torch.manual_seed(0)
    model = s2s.DateModel(num_hiddens=16)
    src, lens = s2s.encode_sources(["5 Nov 2026", "Thursday, 5 November 2026"])
    tgt = s2s.encode_targets(["2026-11-05", "2026-11-05"])
    logits, w = model(src, lens, tgt)
    assert logits.shape == (2, 10, len(s2s.TGT_CHARS))
    assert w.shape == (2, 10, 25)  # output characters are rows, input characters columns
    assert (w[0, :, 10:] == 0).all()  # the padding of the short input gets no weight
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 10))
    assert isinstance(model.decoder.attention, attnlib.AdditiveAttention)
    plain = s2s.DateModel(attention=False, num_hiddens=16)
    logits, w = plain(src, lens)
    assert logits.shape == (2, 10, len(s2s.TGT_CHARS)) and w is None


def _train(attention, steps=150, seed=0):
    g = torch.Generator().manual_seed(seed)
    dates = s2s.random_dates(1500, g)
    src, lens = s2s.encode_sources(s2s.random_sources(dates, g))
    tgt = s2s.encode_targets([s2s.format_target(d) for d in dates])
    torch.manual_seed(seed)
    model = s2s.DateModel(attention=attention)
    model(src[:2], lens[:2], tgt[:2])
    log = s2s.train(model, src, lens, tgt, steps=steps, generator=g)
    test = s2s.random_dates(300, g)
    return log, s2s.accuracy(model, s2s.random_sources(test, g), test)


class _Uniform(nn.Module):
    """A broken attention: ignores the query, averages the valid values."""

    def __init__(self, num_hiddens):
        super().__init__()
        self.attention_weights = None

    def forward(self, queries, keys, values, valid_lens):
        scores = torch.zeros(queries.shape[0], 1, keys.shape[1])  # (batch, 1, n_in)
        self.attention_weights = attnlib.masked_softmax(scores, valid_lens)
        return torch.bmm(self.attention_weights, values)  # (batch, 1, h)


def test_short_training_learns_and_a_broken_attention_does_not():
    log, acc = _train(True)
    assert log.losses[-1] < 0.25 * log.losses[0], (log.losses[0], log.losses[-1])
    assert acc >= 0.6, acc
    _, acc_broken = _train(lambda h: _Uniform(h))
    assert acc_broken < acc - 0.3, (acc_broken, acc)


def test_training_is_deterministic_and_records_checkpoints():
    g = torch.Generator().manual_seed(3)
    dates = s2s.random_dates(200, g)
    src, lens = s2s.encode_sources(s2s.random_sources(dates, g))
    tgt = s2s.encode_targets([s2s.format_target(d) for d in dates])
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model = s2s.DateModel(num_hiddens=8)
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
    from attnlib.book.ch06_bahdanau import alignment_playback_declaration

    g = torch.Generator().manual_seed(4)
    dates = s2s.random_dates(100, g)
    src, lens = s2s.encode_sources(s2s.random_sources(dates, g))
    tgt = s2s.encode_targets([s2s.format_target(d) for d in dates])
    torch.manual_seed(0)
    model = s2s.DateModel(num_hiddens=8)
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
        watch=s2s.encode_sources([watch]),
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
    assert check_alignment(s2s.implied_alignment(src), src).ok
    result = check_alignment(s2s.implied_alignment(src).T, src)
    assert not result.ok and "transposed" in result.message
    wrong = s2s.implied_alignment(src).clone()
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
