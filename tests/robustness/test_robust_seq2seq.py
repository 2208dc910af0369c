"""Chapter 7's date data, the encoder-decoder and its training, attacked through every public
function.

Cases come from each signature and docstring: wrong types (a str where a list of str is
expected, None, bools; numpy scalars and 0-d tensors are accepted where a number is),
degenerate sizes, text outside the vocabulary or not in the expected format, paired inputs of
different lengths, non-finite and out-of-range values, hidden use of the global generator,
and the lazily sized layers (dtype, state dict)."""

from __future__ import annotations

import datetime as dt
import string

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from ._helpers import FEW, global_rng_untouched, raises
from ._targets import ch07_dates, s2s


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


DATE = dt.date(2026, 11, 5)


@pytest.fixture(scope="module")
def data():
    dates = ch07_dates.random_dates(64, _gen(0))
    src, lens = ch07_dates.encode_sources(ch07_dates.random_sources(dates, _gen(1)))
    tgt = ch07_dates.encode_targets([ch07_dates.format_target(d) for d in dates])
    return src, lens, tgt


@pytest.fixture(scope="module")
def model(data):
    src, lens, tgt = data
    torch.manual_seed(0)
    m = ch07_dates.DateModel(embed_size=8, num_hiddens=16)
    m(src[:2], lens[:2], tgt[:2])  # size the lazy layers
    return m


# ----------------------------------------------------------------- random_dates, random_sources
@pytest.mark.parametrize("n", [2.5, "3", None, True, [3], torch.tensor([3]), 3.0], ids=repr)
def test_random_dates_count_of_the_wrong_type(n):
    with raises(TypeError, "random_dates", "n", "int"):
        ch07_dates.random_dates(n, _gen())


def test_random_dates_negative_count():
    with raises(ValueError, "random_dates", "n", ">= 0", "-1"):
        ch07_dates.random_dates(-1, _gen())


@pytest.mark.parametrize("n", [0, 1, np.int64(3), torch.tensor(3)], ids=repr)
def test_random_dates_accepts_ints_numpy_and_0d_tensors(n):
    dates = ch07_dates.random_dates(n, _gen())
    assert len(dates) == int(n)
    assert all(dt.date(1900, 1, 1) <= d <= dt.date(2099, 12, 31) for d in dates)


@pytest.mark.parametrize("fn", ["random_dates", "random_sources"])
@pytest.mark.parametrize(
    "generator", [None, 0, np.random.default_rng(0)], ids=["None", "int", "numpy-generator"]
)
def test_a_generator_is_required_never_the_global_one(fn, generator):
    first = [3] if fn == "random_dates" else [[DATE]]
    with raises(TypeError, fn, "generator", "torch.Generator"):
        getattr(ch07_dates, fn)(*first, generator)


def test_data_functions_leave_the_global_generators_alone():
    with global_rng_untouched():
        dates = ch07_dates.random_dates(20, _gen())
        ch07_dates.random_sources(dates, _gen())


@pytest.mark.parametrize("dates", ["5 Nov 2026", [DATE, "2026-11-05"], DATE, None], ids=repr)
def test_random_sources_needs_a_list_of_dates(dates):
    with raises(TypeError, "random_sources", "dates"):
        ch07_dates.random_sources(dates, _gen())


def test_random_sources_of_no_dates_is_empty():
    assert ch07_dates.random_sources([], _gen()) == []


# ----------------------------------------------------------------- format_source, format_target
@pytest.mark.parametrize("fn", ["format_source", "format_target"])
@pytest.mark.parametrize(
    "date", ["2026-11-05", None, (2026, 11, 5), 20261105, np.datetime64("2026-11-05")], ids=repr
)
def test_formats_need_a_date(fn, date):
    with raises(TypeError, fn, "date", "datetime.date", "got"):
        getattr(ch07_dates, fn)(date)


@pytest.mark.parametrize("fn", ["format_source", "format_target"])
@pytest.mark.parametrize("year", [1, 999])
def test_formats_need_a_four_digit_year(fn, year):
    with raises(ValueError, fn, "date", "four-digit year", str(year)):
        getattr(ch07_dates, fn)(dt.date(year, 1, 1))


def test_a_datetime_is_formatted_as_its_date():
    # decision: a datetime is a date; its time of day plays no part (documented)
    moment = dt.datetime(2026, 11, 5, 23, 59)
    assert ch07_dates.format_target(moment) == "2026-11-05"
    assert ch07_dates.format_source(moment, "long") == "Thursday, 5 November 2026"


@pytest.mark.parametrize(
    "style, exc",
    [
        ("LONG", ValueError),
        ("", ValueError),
        (None, TypeError),
        (3, TypeError),
        (["short"], TypeError),
    ],
)
def test_format_source_style(style, exc):
    with raises(exc, "format_source", "style", "short"):
        ch07_dates.format_source(DATE, style)


# ----------------------------------------------------------------- encode_sources, encode_targets
@pytest.mark.parametrize("fn", ["encode_sources", "encode_targets"])
def test_a_single_string_is_not_a_list_of_texts(fn):
    # a str is a sequence of one-character texts: it used to encode each character as a text
    text = "5 Nov 2026" if fn == "encode_sources" else "2026-11-05"
    with raises(TypeError, fn, "texts", "list of strings", "str"):
        getattr(ch07_dates, fn)(text)


@pytest.mark.parametrize("fn", ["encode_sources", "encode_targets"])
@pytest.mark.parametrize("texts", [None, 5, [None], [b"5 Nov 2026"], [5]], ids=repr)
def test_texts_of_the_wrong_type(fn, texts):
    with raises(TypeError, fn, "texts"):
        getattr(ch07_dates, fn)(texts)


@pytest.mark.parametrize("fn", ["encode_sources", "encode_targets"])
def test_no_texts_at_all(fn):
    with raises(ValueError, fn, "texts", "at least one"):
        getattr(ch07_dates, fn)([])


def test_an_empty_source_text():
    with raises(ValueError, "encode_sources", "texts[1]", "empty"):
        ch07_dates.encode_sources(["5 Nov 2026", ""])


@pytest.mark.parametrize(
    "text, bad, pos",
    [
        ("5 Nov 2026!", "!", 10),
        ("<pad>", "<", 0),
        ("5 Nov 2026\n", "\n", 10),
        ("٥ Nov 2026", "٥", 0),
        ("5\u00a0Nov 2026", "\u00a0", 1),
        ("5 Nov 2026", None, None),
    ],
)
def test_characters_outside_the_source_vocabulary_are_named(text, bad, pos):
    if bad is None:
        ids, lens = ch07_dates.encode_sources([text])
        assert lens.tolist() == [len(text)]
        return
    with raises(
        ValueError, "encode_sources", "texts[0]", repr(bad), f"position {pos}", "vocabulary"
    ):
        ch07_dates.encode_sources([text])


VOCAB = [c for c in ch07_dates.SRC_CHARS if len(c) == 1]


@FEW
@given(
    st.lists(
        st.text(alphabet=VOCAB + ["!", "é", "<", "\t", "日"], min_size=1, max_size=40),
        min_size=1,
        max_size=5,
    )
)
def test_encode_sources_round_trips_or_names_the_character(texts):
    outside = [(i, j, c) for i, t in enumerate(texts) for j, c in enumerate(t) if c not in VOCAB]
    if outside:
        i, j, c = outside[0]
        with raises(ValueError, f"texts[{i}]", repr(c), f"position {j}"):
            ch07_dates.encode_sources(texts)
        return
    ids, lens = ch07_dates.encode_sources(texts)
    assert ids.shape == (len(texts), max(map(len, texts))) and lens.tolist() == [
        len(t) for t in texts
    ]
    for b, t in enumerate(texts):
        assert "".join(ch07_dates.SRC_CHARS[i] for i in ids[b, : len(t)].tolist()) == t
        assert (ids[b, len(t) :] == s2s.PAD).all()


def test_a_very_long_source_is_encoded():
    text = "Thursday, 5 November 2026 " * 400
    ids, lens = ch07_dates.encode_sources([text.strip()])
    assert ids.shape == (1, len(text.strip()))


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-5",
        "2026/11/05",
        "20261105",
        "2026-11-05 ",
        "20261105999",
        "２０２６-11-05",
        "2026-13-05",
        "2026-02-30",
        "abc",
        "",
    ],
)
def test_targets_must_be_iso_dates(text):
    with raises(ValueError, "encode_targets", "texts[0]", "YYYY-MM-DD", repr(text)):
        ch07_dates.encode_targets([text])


def test_targets_encode_to_n_out_ids():
    ids = ch07_dates.encode_targets(["2026-11-05", "1900-01-01"])
    assert ids.shape == (2, ch07_dates.N_OUT) and ids.dtype == torch.long
    assert "".join(ch07_dates.TGT_CHARS[i] for i in ids[0].tolist()) == "2026-11-05"


# ----------------------------------------------------------------- implied_alignment
@pytest.mark.parametrize("source", [None, 5, ["5 Nov 2026"], b"5 Nov 2026"], ids=repr)
def test_implied_alignment_needs_a_string(source):
    with raises(TypeError, "implied_alignment", "source", "str"):
        ch07_dates.implied_alignment(source)


@pytest.mark.parametrize(
    "source",
    [
        "",
        "5 Nov 26",
        "Nov 5 2026",
        "5 Nov 2026 ",
        " 5 Nov 2026",
        "5 Nov 20266",
        "5\u00a0Nov 2026",
        "Thursday,  5 November 2026",
        "٥ Nov 2026",  # an Arabic-Indic digit matched \d
        "5 Xyz 2026",  # not a month
        "Foo, 5 Bar 2026",  # neither a weekday nor a month
        "32 Nov 2026",
        "0 Nov 2026",
        "31 Nov 2026",
        "29 Feb 2026",  # no such date
        "5 nov 2026",  # the month's name is capitalised in every style
    ],
)
def test_implied_alignment_refuses_text_that_is_not_a_date(source):
    with raises(ValueError, "implied_alignment", "source", repr(source)):
        ch07_dates.implied_alignment(source)


@pytest.mark.parametrize(
    "source",
    [
        "05 Nov 2026",
        "Thursday, 5 Nov 2026",
        "5 November 2026",
        "Friday, 5 November 2026",
        "Nov 5, 2026",
        "29 Feb 2024",
    ],
)
def test_implied_alignment_accepts_what_a_reader_could_write(source):
    # decision: a leading zero, either form of the month's name in any style, and any
    # weekday name (the alignment does not depend on it) are accepted
    A = ch07_dates.implied_alignment(source)
    assert A.shape == (ch07_dates.N_OUT, len(source))
    needed = [i for i in range(ch07_dates.N_OUT) if i not in (4, 7)]
    torch.testing.assert_close(A[needed].sum(1), torch.ones(len(needed)))
    assert (A[[4, 7]] == 0).all()


@FEW
@given(st.dates(dt.date(1000, 1, 1), dt.date(9999, 12, 31)), st.sampled_from(ch07_dates.STYLES))
def test_implied_alignment_of_every_formatted_date(date, style):
    source = ch07_dates.format_source(date, style)
    A = ch07_dates.implied_alignment(source)
    target = ch07_dates.format_target(date)
    for i, ch in enumerate(target):  # each digit reads its own digit, where it copies one
        cols = A[i].nonzero().flatten().tolist()
        if i < 4:
            assert cols and source[cols[0]] == ch
        if i in (4, 7):
            assert cols == []


@FEW
@given(st.text(alphabet=string.ascii_letters + string.digits + " ,٥", max_size=30))
def test_implied_alignment_never_fails_another_way(text):
    try:
        A = ch07_dates.implied_alignment(text)
    except ValueError as err:
        assert "implied_alignment" in str(err) and "source" in str(err)
    else:
        assert A.shape == (ch07_dates.N_OUT, len(text)) and torch.isfinite(A).all()


# ----------------------------------------------------------------- the model: construction
@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(embed_size=0), ValueError, ["embed_size", ">= 1", "0"]),
        (dict(embed_size=-1), ValueError, ["embed_size", "-1"]),
        (dict(embed_size=2.5), TypeError, ["embed_size", "int", "2.5"]),
        (dict(embed_size=True), TypeError, ["embed_size", "bool"]),
        (dict(num_hiddens=0), ValueError, ["num_hiddens", "0"]),
        (dict(num_hiddens=3), ValueError, ["num_hiddens", "even", "3"]),
        (dict(num_hiddens="32"), TypeError, ["num_hiddens", "'32'"]),
        (dict(num_layers=0), ValueError, ["num_layers", "0"]),
        (dict(dropout="0.1"), TypeError, ["dropout"]),
        (dict(dropout=float("nan")), ValueError, ["dropout", "nan"]),
        (dict(attention=False, dropout="0.1"), TypeError, ["dropout"]),  # was ignored silently
        (dict(attention=False, dropout=2.0), ValueError, ["dropout", "2.0"]),
        (
            dict(attention=None),
            TypeError,
            ["attention", "True, False, 'uniform' or a function", "None"],
        ),
        (dict(attention="additive"), TypeError, ["attention", "'additive'"]),
        (dict(attention=lambda h: 3), TypeError, ["attention", "nn.Module", "int"]),
    ],
)
def test_date_model_construction_names_the_argument(kwargs, exc, words):
    with raises(exc, "DateModel", *words):
        ch07_dates.DateModel(**kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(embed_size=np.int64(8)),
        dict(num_hiddens=torch.tensor(16)),
        dict(dropout=np.float64(0.1)),
        dict(num_layers=np.int32(2)),
    ],
)
def test_date_model_accepts_numpy_and_0d_tensor_sizes(kwargs):
    model = ch07_dates.DateModel(**kwargs)
    src, lens = ch07_dates.encode_sources(["5 Nov 2026"])
    logits, w = model(src, lens)
    assert logits.shape == (1, ch07_dates.N_OUT, len(ch07_dates.TGT_CHARS)) and w.shape == (
        1,
        ch07_dates.N_OUT,
        10,
    )


# ----------------------------------------------------------------- the model: forward
def _forward_cases(src, lens, tgt):
    V, T = len(ch07_dates.SRC_CHARS), len(ch07_dates.TGT_CHARS)
    return {
        "src float": ((src.float(), lens, None), TypeError, ["src", "integer", "float32"]),
        "src 1-D": ((src[0], lens[:1], None), ValueError, ["src", "(batch, n_in)"]),
        "src list": ((src.tolist(), lens, None), TypeError, ["src", "tensor", "list"]),
        "src id too large": ((src + V, lens, None), ValueError, ["src", f"0 .. {V - 1}"]),
        "src negative id": ((src - 1, lens, None), ValueError, ["src", "0 .."]),
        "lens mismatched": ((src, lens[:1], None), ValueError, ["src_lens", "(batch,)", "(1,)"]),
        "lens too long": ((src, lens + 100, None), ValueError, ["src_lens", "<= n_in"]),
        "lens zero": ((src, lens * 0, None), ValueError, ["src_lens", ">= 1"]),
        "lens list": ((src, lens.tolist(), None), TypeError, ["src_lens", "tensor", "list"]),
        "lens 2-D": ((src, lens[:, None], None), ValueError, ["src_lens", "(batch,)"]),
        "tgt short": (
            (src, lens, tgt[:, :5]),
            ValueError,
            ["tgt", f"(batch, {ch07_dates.N_OUT})", "(64, 5)"],
        ),
        "tgt batch": ((src, lens, tgt[:1]), ValueError, ["tgt", "(64, 10)"]),
        "tgt id too large": ((src, lens, tgt + T), ValueError, ["tgt", f"0 .. {T - 1}"]),
        "tgt float": ((src, lens, tgt.float()), TypeError, ["tgt", "integer"]),
        "empty batch": ((src[:0], lens[:0], None), ValueError, ["src", "at least one"]),
    }


CASE_NAMES = list(_forward_cases(torch.zeros(1, 1), torch.zeros(1), torch.zeros(1, 1)))


@pytest.mark.parametrize("case", CASE_NAMES)
def test_forward_names_the_bad_input(model, data, case):
    args, exc, words = _forward_cases(*data)[case]
    with raises(exc, "DateModel", *words):
        model(*args)


def test_forward_accepts_int32_ids_and_a_batch_of_one(model, data):
    src, lens, tgt = data
    logits, w = model(src[:1, : int(lens[0])].int(), lens[:1].int())
    assert logits.shape == (1, ch07_dates.N_OUT, len(ch07_dates.TGT_CHARS)) and w.shape == (
        1,
        ch07_dates.N_OUT,
        int(lens[0]),
    )
    torch.testing.assert_close(w.sum(-1), torch.ones(1, ch07_dates.N_OUT))


# ----------------------------------------------------------------- lazy layers
def test_lazy_layers_take_the_model_dtype_before_the_first_call():
    torch.manual_seed(0)
    model = ch07_dates.DateModel(embed_size=8, num_hiddens=16).double()
    src, lens = ch07_dates.encode_sources(["5 Nov 2026", "July 4, 1976"])
    logits, w = model(src, lens)
    assert logits.dtype == torch.float64 and w.dtype == torch.float64
    assert {p.dtype for p in model.parameters()} == {torch.float64}


def test_a_lazy_model_loads_a_trained_state_dict(model):
    fresh = ch07_dates.DateModel(embed_size=8, num_hiddens=16)  # its attention is not sized yet
    fresh.load_state_dict(model.state_dict())
    src, lens = ch07_dates.encode_sources(["5 Nov 2026", "Thursday, 5 November 2026"])
    model.eval(), fresh.eval()
    with torch.no_grad():
        torch.testing.assert_close(fresh(src, lens)[0], model(src, lens)[0])


def test_training_an_unsized_model_sizes_it_from_the_generator(data):
    # the lazy layers are sized by the first call, inside train: their initial weights must
    # come from the generator, not from wherever the global generator happens to be
    src, lens, tgt = data
    runs = []
    for shift in (1, 7):
        torch.manual_seed(0)
        model = ch07_dates.DateModel(embed_size=8, num_hiddens=16)  # attention not sized yet
        torch.rand(shift)
        with global_rng_untouched():
            runs.append(
                s2s.train(model, src, lens, tgt, steps=2, batch_size=8, generator=_gen(3)).losses
            )
    assert runs[0] == runs[1]


# ----------------------------------------------------------------- train
@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(steps=-1), ValueError, ["steps", ">= 0", "-1"]),
        (dict(steps=2.5), TypeError, ["steps", "int"]),
        (dict(steps="3"), TypeError, ["steps", "'3'"]),
        (dict(steps=True), TypeError, ["steps", "bool"]),
        (dict(batch_size=0), ValueError, ["batch_size", ">= 1", "0"]),
        (dict(batch_size=True), TypeError, ["batch_size", "bool"]),
        (dict(lr=-1.0), ValueError, ["lr", "> 0"]),
        (dict(lr=float("nan")), ValueError, ["lr", "nan"]),
        (dict(lr=float("inf")), ValueError, ["lr", "inf"]),
        (dict(lr="0.01"), TypeError, ["lr", "'0.01'"]),
        (dict(every=0), ValueError, ["every", ">= 1", "0"]),
        (dict(generator=None), TypeError, ["generator", "torch.Generator"]),
        (dict(generator=0), TypeError, ["generator", "torch.Generator"]),
        (dict(watch="5 Nov 2026"), TypeError, ["watch", "(src, src_lens)"]),
        (
            dict(watch=(torch.zeros(1, 3, dtype=torch.long),)),
            TypeError,
            ["watch", "(src, src_lens)"],
        ),
        (
            dict(watch=(torch.zeros(1, 3, dtype=torch.long), torch.tensor([4]))),
            ValueError,
            ["watch", "src_lens"],
        ),
    ],
)
def test_train_names_the_bad_argument(model, data, kwargs, exc, words):
    src, lens, tgt = data
    kw = {"steps": 2, "generator": _gen(), **kwargs}
    with raises(exc, "train", *words):
        s2s.train(model, src, lens, tgt, **kw)


@pytest.mark.parametrize("which", ["src_lens", "tgt"])
def test_train_refuses_paired_data_of_different_lengths(model, data, which):
    src, lens, tgt = data
    args = {"src_lens": (src, lens[:10], tgt), "tgt": (src, lens, tgt[:10])}[which]
    with raises(ValueError, "train", which, "64", "10"):
        s2s.train(model, *args, steps=1, generator=_gen())


def test_train_refuses_a_model_that_is_not_a_date_model(data):
    with raises(TypeError, "train", "model", "DateModel", "Linear"):
        s2s.train(torch.nn.Linear(2, 2), *data, steps=1, generator=_gen())


class _NaNAttention(torch.nn.Module):
    def __init__(self, h):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(1))
        self.attention_weights = None

    def forward(self, q, k, v, lens):
        n = k.shape[1]
        self.attention_weights = torch.full((q.shape[0], 1, n), 1.0 / n)
        return q * self.w * float("nan")


def test_training_that_diverges_is_an_error_not_a_log_of_nan(data):
    src, lens, tgt = data
    model = ch07_dates.DateModel(attention=_NaNAttention, embed_size=8, num_hiddens=16)
    with raises(ValueError, "train", "step 1", "nan", "lr"):
        s2s.train(model, src, lens, tgt, steps=3, generator=_gen())
    assert torch.get_num_threads() >= 1


def test_zero_steps_record_the_starting_checkpoint(model, data):
    src, lens, tgt = data
    log = s2s.train(model, src, lens, tgt, steps=0, generator=_gen(), watch=(src[:1], lens[:1]))
    assert log.losses == [] and [s for s, _ in log.checkpoints] == [0]


def test_train_with_dropout_leaves_the_global_generator_alone_and_is_reproducible(data):
    src, lens, tgt = data
    losses = []
    for shift in (1, 2):
        torch.manual_seed(0)
        model = ch07_dates.DateModel(embed_size=8, num_hiddens=16, dropout=0.3)
        model(src[:2], lens[:2], tgt[:2])
        torch.rand(shift)  # a different global state: it must not change the run
        with global_rng_untouched():
            losses.append(
                s2s.train(model, src, lens, tgt, steps=3, batch_size=8, generator=_gen(5)).losses
            )
    assert losses[0] == losses[1]


# ----------------------------------------------------------------- translate, accuracy
def test_translate_refuses_a_single_string(model):
    with raises(TypeError, "translate", "texts", "list of strings", "str"):
        ch07_dates.translate(model, "5 Nov 2026")


@pytest.mark.parametrize(
    "texts, exc, words",
    [
        ([], ValueError, ["texts", "at least one"]),
        ([""], ValueError, ["texts[0]", "empty"]),
        (["5 Nov 2026?"], ValueError, ["texts[0]", "'?'"]),
        ([None], TypeError, ["texts"]),
    ],
)
def test_translate_names_bad_texts(model, texts, exc, words):
    with raises(exc, "translate", *words):
        ch07_dates.translate(model, texts)


def test_translate_and_accuracy_leave_the_model_mode_as_they_found_it(model):
    model.train()
    ch07_dates.translate(model, ["5 Nov 2026"])
    assert model.training
    ch07_dates.accuracy(model, ["5 Nov 2026"], [DATE])
    assert model.training
    model.eval()
    ch07_dates.translate(model, ["5 Nov 2026"])
    assert not model.training


def test_translate_needs_a_date_model():
    with raises(TypeError, "translate", "model", "DateModel"):
        ch07_dates.translate(None, ["5 Nov 2026"])


def test_translate_a_batch_of_one_and_a_long_input(model):
    text = ("Thursday, 5 November 2026 " * 20).strip()
    out, w = ch07_dates.translate(model, [text])
    assert len(out) == 1 and w.shape == (1, ch07_dates.N_OUT, len(text))
    torch.testing.assert_close(w.sum(-1), torch.ones(1, ch07_dates.N_OUT))


@pytest.mark.parametrize(
    "sources, dates, exc, words",
    [
        (["5 Nov 2026", "6 Nov 2026"], [DATE], ValueError, ["sources", "dates", "2", "1"]),
        ([], [], ValueError, ["at least one"]),
        ("5 Nov 2026", [DATE], TypeError, ["sources", "list of strings"]),
        (["5 Nov 2026"], ["2026-11-05"], TypeError, ["dates", "datetime.date"]),
    ],
)
def test_accuracy_refuses_mismatched_or_empty_inputs(model, sources, dates, exc, words):
    with raises(exc, "accuracy", *words):
        ch07_dates.accuracy(model, sources, dates)
