"""Chapter 8's length experiment: does attention still help as the input grows?

Bahdanau, Cho and Bengio (2015, Fig. 2) plotted translation quality against sentence
length: the encoder-decoder without attention falls as sentences grow, the one with
attention stays nearly flat. This module reproduces that experiment at the scale of a
CPU and a few seconds, on the task of :mod:`scoringbook.ch08_numbers` (a number read
aloud, written down digit by digit), testing on numbers longer than any seen in training.

Models: :class:`scoringbook.ch08_numbers.NumberModel` (additive, none or query-blind attention).
"""

from __future__ import annotations

import functools

import torch
from torch import Tensor

from attnlib import domains as D
from attnlib import tensor_domains as T
from attnlib.domains import declare, describe, isolated_global_rng
from scoringbook.ch08_numbers import (
    TRAIN_MAX,
    WORDS,
    NumberModel,
    encode_digits,
    encode_spoken,
    random_numbers,
    read_numbers,
    scores,
    spell,
    test_sets,
    word_weights,
    wrong_by_position,
)
from scoringbook.claims import BUCKETS, bucket_means
from scoringbook.seq2seq import EncoderDecoder

__all__ = [
    "evaluate",
    "MODEL_NAMES",
    "compare_models",
    "compare_seeds",
    "results_table",
    "ResultsTable",
    "wrong_by_position",
    "length_declaration",
    "length_explorer",
    "chapter_length_declaration",
]


#: The chapter's training recipe, batches of 64: Adam's steps for each of the three models
#: (the model without attention then takes twice as many more) and its learning rate.
#: :func:`chapter_length_declaration` repeats it; tests/book/test_ch08_lengths.py checks that
#: the chapter's cell says the same.
STEPS, LR = 200, 0.02

#: SVG dash patterns of attnlib's line styles (:data:`attnlib.plotting.LINESTYLES`, in
#: order, as matplotlib draws them at the figures' 1.8-point lines), so the length explorer's
#: curves look like the chapter's static plot of the same curves (None: solid).
DASHES = (None, "7 3", "12 3 2 3", "2 3", "9 2 2 2 2 2", "2 5", "14 4", None)
DATA = dict.fromkeys(("src", "src_lens", "tgt", "tests"), D.Anything("the task's data: checked"))
RUN = dict(steps=D.Int(ge=1), lr=D.Real(gt=0))  # DATA: ids, lengths, targets, {digits: numbers}


@declare(model=D.Instance(EncoderDecoder, what="an EncoderDecoder"), tests=DATA["tests"])
def evaluate(model: EncoderDecoder, tests: dict[int, list[str]]) -> Tensor:
    """Exact match and per-digit accuracy for each length: ``(len(tests), 2)``, rows in the
    order of ``tests`` (``{digits: numbers of that length}``), columns (exact, per digit)."""
    if not isinstance(tests, dict) or not tests:
        raise TypeError(
            f"evaluate: tests must be a non-empty dict {{digits: numbers}}; got {describe(tests)}"
        )
    rows = [scores(read_numbers(model, numbers)[0], numbers) for numbers in tests.values()]
    return torch.tensor(rows, dtype=torch.float64)  # (n_lengths, 2)


#: The length experiment's four models, in :func:`compare_models`' order: the one without
#: attention twice, after :data:`STEPS` steps and after three times as many.
MODEL_NAMES = ("with attention", "without", "without (3×)", "query-blind")


@declare(**DATA, **RUN, seed=D.Int(ge=0))
def compare_models(
    src: Tensor,
    src_lens: Tensor,
    tgt: Tensor,
    tests: dict[int, list[str]],
    *,
    seed: int = 0,
    steps: int = STEPS,
    lr: float = LR,
) -> tuple[dict[str, EncoderDecoder], dict[str, Tensor]]:
    """The chapter's length experiment for one seed: train, then evaluate by length.

    Three models, the same in everything but how the decoder reads the encoder (additive
    attention, one fixed context, query-blind attention), start from the same initial weights
    (torch's global generator seeded with ``seed``, on a forked copy: the caller's is left as
    it was) and see the same minibatches (a generator seeded with ``seed + 1``); each takes
    ``steps`` steps of Adam at ``lr``. The model without attention then takes ``2 * steps``
    more, three times the budget in all. Every model is evaluated with :func:`evaluate`.

    Args:
        src: spoken inputs ``(n, n_in)`` and ``src_lens`` ``(n,)`` (:func:`encode_spoken`).
        tgt: the digits ``(n, n_out)`` (:func:`encode_digits`).
        tests: ``{digits: numbers of that length}``.
        seed: an int >= 0; seed 0 is the chapter's first run.

    Returns:
        ``(models, results)``: ``models`` maps ``"with attention"``, ``"without (3×)"``
        and ``"query-blind"`` to the trained models (the model without attention after all
        its steps); ``results`` maps each of :data:`MODEL_NAMES` to ``evaluate``'s
        ``(len(tests), 2)`` tensor (exact match, digits right).
    """
    from scoringbook import seq2seq as s2s

    fn = "compare_models"
    if not isinstance(tests, dict) or not tests:
        raise TypeError(
            f"{fn}: tests must be a non-empty dict {{digits: numbers}}; got {describe(tests)}"
        )
    kinds = {"with attention": True, "without": False, "query-blind": "uniform"}
    models, results = {}, {}
    for name, attention in kinds.items():
        with isolated_global_rng(seed=seed):  # the same initial weights for every model
            model = NumberModel(attention=attention)
            model(src[:2], src_lens[:2], tgt[:2])  # size the lazy layers
        run = {  # its own optimiser, the same minibatches as the others
            "optimizer": torch.optim.Adam(model.parameters(), lr=lr),
            "generator": torch.Generator().manual_seed(seed + 1),
        }
        s2s.train(model, src, src_lens, tgt, steps=steps, lr=lr, **run)
        results[name] = evaluate(model, tests)  # (len(tests), 2)
        if name == "without":  # three times the budget: 2 * steps more
            s2s.train(model, src, src_lens, tgt, steps=2 * steps, lr=lr, **run)
            results["without (3×)"] = evaluate(model, tests)
            name = "without (3×)"
        models[name] = model
    return models, {name: results[name] for name in MODEL_NAMES}


def _compare_one(args):  # a worker process's task: one seed, on one thread
    torch.set_num_threads(1)
    src, src_lens, tgt, tests, seed, steps, lr = args
    return compare_models(src, src_lens, tgt, tests, seed=seed, steps=steps, lr=lr)


@declare(**DATA, **RUN, seeds=D.Seq(D.Int(ge=0), what="a list of ints"), workers=D.Int(ge=1))
def compare_seeds(
    src: Tensor,
    src_lens: Tensor,
    tgt: Tensor,
    tests: dict[int, list[str]],
    seeds,
    *,
    workers: int = 1,
    steps: int = STEPS,
    lr: float = LR,
) -> list[tuple[dict[str, EncoderDecoder], dict[str, Tensor]]]:
    """:func:`compare_models` for each seed of ``seeds``, here or on up to ``workers`` processes.

    ``workers=1`` (the default) trains here, one seed after another; more train each seed on
    one thread in a fresh ``spawn`` process, with the same results, in about ``1 / workers`` of
    the wall time on idle cores, but each process pays about 7 CPU-s (torch, this package, its
    first ``Adam`` importing ``torch._dynamo``): on shared cores (``make test``) a loss.
    Returns one ``(models, results)`` pair per seed, in the order of ``seeds``.
    """
    fn = "compare_seeds"
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"{fn}: seeds must be distinct and at least one; got {seeds}")
    jobs = [(src, src_lens, tgt, tests, s, steps, lr) for s in seeds]
    if workers == 1 or len(seeds) == 1:
        return [
            compare_models(src, src_lens, tgt, tests, seed=s, steps=steps, lr=lr) for s in seeds
        ]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(workers, len(seeds)), mp_context=context) as pool:
        return list(pool.map(_compare_one, jobs))


class ResultsTable:
    """Exact match by length bucket: mean, lowest and highest seed per model (HTML or text)."""

    @declare(
        rows=D.Seq(D.Tup(D.Str(), D.Str(), D.Seq(D.Tup(D.Real(), D.Real(), D.Real())))),
        names=D.StrList(),
    )
    def __init__(self, rows: list[tuple[str, str, list[tuple[float, float, float]]]], names):
        self.rows, self.names = rows, list(names)

    def cells(self) -> list[list[str]]:
        """Header row, then one row per bucket: digits, characters, "mean (low–high)"."""
        out = [["digits", "characters", *self.names]]
        for digits, chars, stats in self.rows:
            out.append([digits, chars, *(f"{m:.2f} ({lo:.2f}–{hi:.2f})" for m, lo, hi in stats)])
        return out

    def __repr__(self) -> str:
        cells = self.cells()
        widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
        return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells)

    def _repr_html_(self) -> str:
        """Characters under digits, lowest and highest seed under the mean ("0.71 to 0.90": words,
        so web/table-cards.mjs makes each row a card on a phone; as a grid it was 461 px)."""
        import html

        def two(top: str, under: str) -> str:  # one <span>: one item of a card's grid
            return f"<span>{html.escape(top)}<br><small>{html.escape(under)}</small></span>"

        names = "".join(f'<th scope="col">{html.escape(n)}</th>' for n in self.names)
        body = "".join(
            f'<tr><th scope="row">{two(digits, f"{chars} chars")}</th>'
            + "".join(
                f"<td>{two(f'{m:.2f}', f'{lo:.2f} to {hi:.2f}')}</td>" for m, lo, hi in stats
            )
            + "</tr>"
            for digits, chars, stats in self.rows
        )
        # named by aria-label, not a <caption>: the theme greys captions (under 4.5:1 in dark)
        return (
            '<table class="attn-results table" aria-label="Numbers written exactly, by '
            'length: mean over the seeds (lowest–highest seed)">'
            f'<thead><tr><th scope="col">digits</th>{names}</tr></thead>'
            f"<tbody>{body}</tbody></table>"
        )


@declare(results=D.Anything("name -> (n_seeds, n_lengths, 2): checked"), tests=DATA["tests"])
def results_table(results: dict[str, Tensor], tests: dict[int, list[str]]) -> ResultsTable:
    """The length experiment's exact match by bucket of lengths (:data:`BUCKETS`).

    Args:
        results: model name -> ``(n_seeds, len(tests), 2)`` (stacked :func:`compare_models`
            results; column 0, exact match, is shown).
        tests: ``{digits: numbers}``, the lengths 1 to 16 the results were measured on.

    Returns:
        A :class:`ResultsTable`: ``mean (lowest–highest)`` over the seeds, per bucket.
    """
    fn = "results_table"
    if not isinstance(results, dict) or not results:
        raise TypeError(f"{fn}: results must be a non-empty dict; got {describe(results)}")
    if not isinstance(tests, dict) or sorted(tests) != list(range(1, len(tests) + 1)):
        raise TypeError(
            f"{fn}: tests must be a dict {{digits: numbers}} for 1, 2, ... digits; "
            f"got {describe(tests)}"
        )
    if max(hi for _, hi in BUCKETS) > len(tests):
        raise ValueError(f"{fn}: tests must cover 1 to {BUCKETS[-1][1]} digits; got {len(tests)}")
    by_bucket = {}
    for name, r in results.items():
        if not isinstance(r, Tensor) or r.ndim != 3 or r.shape[1:] != (len(tests), 2):
            raise ValueError(
                f"{fn}: results[{name!r}] must be (n_seeds, {len(tests)}, 2); got {describe(r)}"
            )
        by_bucket[name] = bucket_means(r.double())[..., 0]  # (n_seeds, len(BUCKETS))
    rows = []
    for i, (lo, hi) in enumerate(BUCKETS):
        chars = [len(spell(x)) for k in range(lo, hi + 1) for x in tests[k]]
        stats = [
            (float(b[:, i].mean()), float(b[:, i].min()), float(b[:, i].max()))
            for b in by_bucket.values()
        ]
        rows.append((f"{lo}–{hi}", f"{min(chars)}–{max(chars)}", stats))
    return ResultsTable(rows, list(by_bucket))


# ----------------------------------------------------------------------------- explorer
@declare(
    with_attention=D.Anything(
        "a trained NumberModel: attacked in tests/book/test_ch08_lengths.py"
    ),
    without_attention=D.Anything("a trained NumberModel, as with_attention"),
    examples=D.Dict(D.Seq(D.Str(nonempty=True), min_len=1)),
    curves=D.Dict(T.FloatTensor("n_lengths", finite=True, within=(0.0, 1.0))),
    train_max=D.Int(ge=1, le=1000),
    without_name=D.Str(),
)
def length_declaration(
    with_attention: EncoderDecoder,
    without_attention: EncoderDecoder,
    examples: dict[int, list[str]],
    curves: dict[str, Tensor],
    *,
    train_max: int = TRAIN_MAX,
    without_name: str = "without attention",
):
    """Declare the length explorer: pick a length and an example; see both models' outputs,
    the attention of the model that has it, and where that length sits on the accuracy
    curves.

    Args:
        with_attention, without_attention: trained models (:class:`NumberModel`).
        examples: ``{digits: [numbers of that length]}``, the same count of different
            numbers for every length (the ``example`` slider runs over them).
        curves: ``{model name: exact-match accuracy per length}``, each ``(len(examples),)``
            in the order of ``examples`` (drawn as fixed lines).
        train_max: the longest number in training (a dashed line on the curves).
        without_name: what the text calls ``without_attention`` (e.g. the name of its curve,
            "without (3×)", when it is the model trained longer).

    The heatmap holds the attention of ``with_attention`` while it writes each output
    character (rows: the digits it writes, then ``end``, at most ``max(examples) + 1``)
    over the spoken digits (columns: each word's letters and the space after it, summed;
    see :func:`word_weights`), padded with zeros to the longest length.
    """
    import numpy as np

    from attnlib.plotting import OKABE_ITO
    from attnlib.widgets import (
        Caption,
        Declaration,
        FixedSeries,
        Heatmap,
        Lines,
        Preset,
        Series,
        Slider,
    )

    if not isinstance(without_name, str):
        raise TypeError(
            f"length_declaration: without_name must be a str; got {describe(without_name)}"
        )
    if not without_name.strip() or "\n" in without_name:
        raise ValueError(
            f"length_declaration: without_name must be one non-empty line; got {without_name!r}"
        )
    lengths = list(examples)
    n_ex = {len(v) for v in examples.values()}
    if len(n_ex) != 1 or not lengths:
        raise ValueError("length_declaration: give the same number of examples for every length")
    n_ex = n_ex.pop()
    for k, numbers in examples.items():
        if len(set(numbers)) != len(numbers):
            raise ValueError(
                f"length_declaration: the examples of each length must be different numbers "
                f"(the example slider would show one twice); got {list(numbers)} for {k} digits"
            )
    for name, c in curves.items():
        if tuple(c.shape) != (len(lengths),):
            raise ValueError(
                f"length_declaration: curve {name!r} must have one value per length "
                f"({len(lengths)}); got shape {tuple(c.shape)}"
            )
    if not with_attention.uses_attention or without_attention.uses_attention:
        raise ValueError(
            "length_declaration: pass the model with attention first, the one without second"
        )
    longest = max(lengths)
    rows_max, cols_max = longest + 1, longest
    frames, outputs = {}, {}
    for k, numbers in examples.items():
        said, w = read_numbers(with_attention, numbers)
        plain, _ = read_numbers(without_attention, numbers)
        for e, number in enumerate(numbers):
            # the digits written, then <eos> if it came within the steps decoded
            ended = len(said[e]) < w.shape[1]
            labels = (list(said[e]) + ["end"] * ended)[:rows_max]
            n_rows = len(labels)
            grid = np.zeros((rows_max, cols_max))
            grid[:n_rows, :k] = word_weights(w[e, :n_rows], number).double().numpy()
            rows = labels + [""] * (rows_max - n_rows)
            cols = [WORDS[int(c)] for c in number] + [""] * (cols_max - k)
            frames[k, e + 1] = {"values": grid, "row_labels": rows, "col_labels": cols}
            outputs[k, e + 1] = (number, said[e], plain[e], without_name)
    # every frame's text as many lines as the longest one's (the explorer keeps its height)
    lines = max(_caption(*o).count("\n") + 1 for o in outputs.values())
    for key, o in outputs.items():
        frames[key]["caption"] = _caption(*o, lines=lines)

    def update(digits: int, example: int):
        f = frames[digits, example]
        curve_at = [
            [float(digits)] * len(curves),
            [float(c[lengths.index(digits)]) for c in curves.values()],
        ]
        return {
            "outputs": f["caption"],
            "attention": {k: f[k] for k in ("values", "row_labels", "col_labels")},
            "accuracy": {"this length": np.array(curve_at)},
        }

    x = np.array(lengths, dtype=np.float64)
    # each curve in the static plot's colour and line style (plot_lines: Okabe-Ito colours with
    # LINESTYLES, in order), the training edge next; this length's marks in the text colour
    n = len(OKABE_ITO)
    fixed = [
        FixedSeries(name, x, c.double().numpy(), color=OKABE_ITO[i % n], dash=DASHES[i % n])
        for i, (name, c) in enumerate(curves.items())
    ]
    edge = train_max  # at the longest length trained on (issue 39: it stood at 8.5)
    k = len(curves) % n
    fixed.append(
        FixedSeries(
            "longest in training", [edge, edge], [0.0, 1.0], dash=DASHES[k], color=OKABE_ITO[k]
        )
    )
    # the tour: inside training, at its edge, beyond; each notice reads this run (_notice)
    seen, beyond = [n for n in lengths if n <= train_max], [n for n in lengths if n > train_max]
    stops = ((seen, 4, "inside training"), (seen, train_max, "the longest in training"),
             (beyond, train_max + 4, "beyond training"))  # fmt: skip
    tour = {min(ns, key=lambda n, a=at: abs(n - a)): what for ns, at, what in stops if ns}
    presets = [
        Preset(f"{k} digits: {what}", _notice(k, outputs[k, 1], frames[k, 1]["values"],
               {n: float(c[lengths.index(k)]) for n, c in curves.items()}, without_name),
               {"digits": k, "example": 1})
        for k, what in tour.items()
    ]  # fmt: skip
    return Declaration(
        name="length_experiment",
        presets=presets,
        update=update,
        params=[
            Slider("digits", lengths, label="digits in the number", default=min(8, longest)),
            Slider("example", list(range(1, n_ex + 1)), label="example", default=1),
        ],
        panels=[
            Caption("outputs"),
            Lines(
                "accuracy",
                series=[Series("this length", style="points", xy=True, color="#000000")],
                fixed=fixed,
                xlabel="digits in the number",
                ylabel="exact match",
                title="held-out numbers written exactly",
                xlim=(0.5, longest + 0.5),
                ylim=(0.0, 1.0),
            ),
            Heatmap(
                "attention",
                xlabel="spoken digits (keys)",
                ylabel="output (queries)",
                title="where the model with attention looks",
                colorbar_label="attention weight (grey: no digit there)",
                rows_sum_to_one=True,
                allow_zero_rows=True,
                labels_per_frame=True,
            ),
        ],
        title="Longer and longer numbers: both models, and the attention",
    )


def _notice(k: int, output: tuple, grid, marks: dict[str, float], without_name: str) -> str:
    """A preset's notice at ``k`` digits from this run's marks, output and attention ``grid``."""
    number, said = output[0], output[1]
    first = next((i + 1 for i, c in enumerate(number) if i >= len(said) or said[i] != c), 0)
    verdict = "right" if said == number else f"wrong from digit {first or len(number) + 1}"
    m = min(k, len(said))  # the diagonal: row i (the i-th digit written) on the i-th word
    diag = sum(float(grid[i, i]) for i in range(m)) / max(m, 1)
    read = ", ".join(f"{n} {marks[n]:.2f}" for n in ("with attention", without_name) if n in marks)
    return (f"Notice: written exactly at this length (the curves' marks): {read}; this number, "
            f"with attention, comes out {verdict}, and its rows put {diag:.2f} of their weight on "
            "their own digit's word (the diagonal).")  # fmt: skip


def _caption(
    number: str,
    said: str,
    plain: str,
    without_name: str = "without attention",
    *,
    lines: int = 0,
) -> str:
    """The explorer's text: the input, the number, and what each model wrote, in lines of at
    most 40 characters, so that none wraps on a phone (a 390 px screen holds about 48 of the
    explorer's monospaced characters). The spoken number takes as many lines as its words
    need; ``lines`` pads the text with blank lines after them to that many lines in all, so
    that every frame of the explorer is as tall as its tallest and nothing below the text
    moves when the reader picks another number."""
    import textwrap

    def verdict(out: str) -> str:
        if out == number:
            return "✓ right"
        wrong = sum(i >= len(out) or out[i] != c for i, c in enumerate(number))
        if len(out) < len(number):
            return f"✗ {wrong} of {len(number)} digits wrong, stops early"
        if len(out) > len(number):
            return f"✗ {wrong} of {len(number)} digits wrong, and too long"
        return f"✗ {wrong} of {len(number)} digits wrong"

    names = ["the number", "with attention", without_name]
    w = max(len(n) for n in names) + 2  # the outputs line up under the number
    spoken = textwrap.wrap(
        spell(number), width=40, initial_indent="read aloud: ", subsequent_indent="  "
    )
    rest = [
        f"{'the number:':<{w}}{number}",
        f"{'with attention:':<{w}}{said or '(nothing)'}",
        f"  {verdict(said)}",
        f"{without_name + ':':<{w}}{plain or '(nothing)'}",
        f"  {verdict(plain)}",
    ]
    pad = [""] * max(0, lines - len(spoken) - len(rest))
    return "\n".join(spoken + pad + rest)


@declare(**length_declaration.__domains__)
def length_explorer(*args, **kwargs):
    """:func:`length_declaration` as an explorer (same arguments)."""
    from attnlib.widgets import Explorer

    return Explorer(length_declaration(*args, **kwargs))


def chapter_length_declaration():
    """Chapter 8's length explorer, recomputed from scratch (tens of seconds, then cached).

    Mirrors the chapter's cells exactly (data seed 2, models seeded with 0 and sized by a
    first call, minibatches seeded with 1, :data:`STEPS` steps each at :data:`LR`, then twice
    as many more for the model without attention): the browser tests compare the page with
    this.
    """
    return _chapter_lengths()


@functools.lru_cache(maxsize=1)
def _chapter_lengths():
    # one thread, as the chapter sets: these models are too small to gain from more, and on
    # a busy machine idle extra threads slow the evaluation down several times
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _chapter_lengths_one_thread()
    finally:
        torch.set_num_threads(threads)


def _chapter_lengths_one_thread():
    num_gen = torch.Generator().manual_seed(2)
    train_numbers = random_numbers(10_000, 1, TRAIN_MAX, num_gen)
    tests, _ = test_sets(train_numbers, num_gen)  # held out where possible (3+ digits)
    src, lens = encode_spoken(train_numbers)
    tgt = encode_digits(train_numbers)
    # STEPS read at call time (not a default bound at import): a test can patch it
    models, results = compare_models(src, lens, tgt, tests, seed=0, steps=STEPS)
    return length_declaration(
        models["with attention"],
        models["without (3×)"],
        {k: list(dict.fromkeys(v))[:3] for k, v in tests.items()},  # three different numbers
        {name: r[:, 0] for name, r in results.items()},
        without_name="without (3×)",
    )
