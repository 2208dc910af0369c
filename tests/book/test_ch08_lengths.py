"""Chapter 8's length experiment (scoringbook.ch08_lengths) and its spoken-number task
(scoringbook.ch08_numbers): its scores, and the explorer built from two models."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import matplotlib.colors
import numpy as np
import pytest
import torch

from scoringbook import ch08_lengths as experiment
from scoringbook import ch08_numbers as spoken
from scoringbook import seq2seq as s2s


def test_random_numbers_lengths_and_determinism():
    a = spoken.random_numbers(300, 2, 5, torch.Generator().manual_seed(0))
    b = spoken.random_numbers(300, 2, 5, torch.Generator().manual_seed(0))
    assert a == b
    assert {len(x) for x in a} == {2, 3, 4, 5}
    assert all(x.isdigit() for x in a)
    for bad in [(0, 1, 2), (3, 0, 2), (3, 4, 2)]:
        with pytest.raises(ValueError):
            spoken.random_numbers(*bad, torch.Generator())
    with pytest.raises(TypeError):
        spoken.random_numbers(3, 1.5, 2, torch.Generator())


def test_spell_and_encoding():
    assert spoken.spell("3140") == "three one four zero"
    for bad in ["", "12a", "١٢", 12, None]:
        with pytest.raises(ValueError, match="string of digits"):
            spoken.spell(bad)
    src, lens = spoken.encode_spoken(["31", "5"])
    assert lens.tolist() == [9, 4] and src.shape == (2, 9)
    assert (src[1, 4:] == s2s.PAD).all()
    tgt = spoken.encode_digits(["31", "5"])
    assert tgt.tolist() == [[6, 4, spoken.EOS], [8, spoken.EOS, s2s.PAD]]
    assert [spoken.DIGIT_CHARS[i] for i in tgt[0, :2].tolist()] == ["3", "1"]
    with pytest.raises(ValueError):
        spoken.encode_digits(["3x"])


def test_scores_and_wrong_by_position():
    numbers = ["1234", "5678", "9012"]
    predicted = ["1234", "567", "9912"]  # right; one missing; one wrong
    exact, per_digit = spoken.scores(predicted, numbers)
    assert exact == pytest.approx(1 / 3)
    assert per_digit == pytest.approx((4 + 3 + 3) / 12)
    assert experiment.wrong_by_position(predicted, numbers) == [0, 1, 0, 1]
    assert spoken.scores(["12345"], ["1234"]) == (0.0, 1.0)  # too long: not exact
    with pytest.raises(ValueError, match="as many predictions"):
        spoken.scores(["1"], ["1", "2"])
    with pytest.raises(ValueError, match="same length"):
        experiment.wrong_by_position(["1", "12"], ["1", "12"])


def test_word_weights_sum_each_word_and_the_space_after_it():
    number = "31"  # "three one": 5 letters, a space, 3 letters
    w = torch.zeros(2, 12)
    w[0, :6] = 1 / 6  # "three" and its space
    w[1, 6:9] = 1 / 3  # "one"
    words = spoken.word_weights(w, number)
    torch.testing.assert_close(words, torch.tensor([[1.0, 0.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="n_in >= 9"):
        spoken.word_weights(torch.zeros(2, 5), number)


def _models(seed=0):
    torch.manual_seed(seed)
    att = spoken.NumberModel(attention=True, num_hiddens=8)
    src, lens = spoken.encode_spoken(["12", "345"])
    att(src, lens, spoken.encode_digits(["12", "345"]))  # size the lazy layers
    plain = spoken.NumberModel(attention=False, num_hiddens=8)
    return att, plain


def test_read_numbers_and_evaluate_with_an_untrained_model():
    att, plain = _models()
    said, w = spoken.read_numbers(att, ["12", "3456"])
    assert len(said) == 2 and all(set(s) <= set("0123456789?") for s in said)
    assert w.shape == (2, 4 + 3, len(spoken.spell("3456")))
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 7))
    tests = {1: ["1", "2"], 2: ["12", "34"]}
    table = experiment.evaluate(plain, tests)
    assert table.shape == (2, 2) and ((table >= 0) & (table <= 1)).all()


@pytest.mark.slow
def test_length_explorer_frames_match_the_models():
    att, plain = _models()
    examples = {1: ["7", "0"], 2: ["12", "90"], 3: ["345", "678"]}
    curves = {"with attention": torch.tensor([1.0, 0.5, 0.0]), "without": torch.zeros(3)}
    decl = experiment.length_declaration(att, plain, examples, curves, train_max=2)
    for k, numbers in examples.items():
        said, w = spoken.read_numbers(att, numbers)
        plain_said, _ = spoken.read_numbers(plain, numbers)
        for e, number in enumerate(numbers):
            frame = decl.compute(digits=k, example=e + 1)
            text = frame["outputs"]
            assert spoken.spell(number) in text and f"the number:        {number}" in text
            assert f"with attention:    {said[e] or '(nothing)'}" in text
            assert f"without attention: {plain_said[e] or '(nothing)'}" in text
            heat = frame["attention"]
            assert heat.shape == (4, 3)  # (longest + 1, longest)
            assert list(heat.col_labels[:k]) == spoken.spell(number).split()
            assert set(heat.col_labels[k:]) <= {""}
            n_rows = min(len(said[e]) + 1, 4)
            want = spoken.word_weights(w[e, :n_rows], number).double().numpy()
            np.testing.assert_allclose(heat[:n_rows, :k], want, atol=1e-6)
            assert (np.asarray(heat)[n_rows:] == 0).all() and (np.asarray(heat)[:, k:] == 0).all()
            assert list(heat.row_labels[: len(said[e][: n_rows - 1])]) == list(
                said[e][: n_rows - 1]
            )
            marks = frame["accuracy"]["this length"]
            np.testing.assert_allclose(marks[0], [k, k])
            np.testing.assert_allclose(marks[1], [curves["with attention"][k - 1], 0.0])
    with pytest.raises(ValueError, match="one value per length"):
        experiment.length_declaration(att, plain, examples, {"x": torch.zeros(2)})
    with pytest.raises(ValueError, match="same number of examples"):
        experiment.length_declaration(att, plain, {1: ["1"], 2: ["12", "34"]}, {})
    with pytest.raises(ValueError, match="with attention first"):
        experiment.length_declaration(plain, att, examples, curves)


def test_length_explorer_caption_verdicts():
    text = experiment._caption("1234", "1234", "124")
    assert "✓ right" in text and "✗ 2 of 4 digits wrong, stops early" in text
    assert "too long" in experiment._caption("12", "123", "")
    assert "(nothing)" in experiment._caption("12", "12", "")


def test_length_explorer_takes_an_output_that_never_ends():
    # a model that writes "1" at every step and never <eos>: its rows are the steps decoded
    # (the number's length + 3), fewer than the heatmap's (the longest number + 1)
    att, plain = _models()
    with torch.no_grad():
        for m in (att, plain):
            m.decoder.dense.weight.zero_()
            m.decoder.dense.bias.zero_()
            m.decoder.dense.bias[spoken.DIGIT_CHARS.index("1")] = 10.0
    examples = {1: ["7"], 5: ["12345"]}
    curves = {"with attention": torch.tensor([1.0, 0.0]), "without": torch.zeros(2)}
    decl = experiment.length_declaration(att, plain, examples, curves, train_max=1)
    frame = decl.compute(digits=1, example=1)
    heat = frame["attention"]
    assert heat.shape == (6, 5)
    assert list(heat.row_labels) == ["1"] * 4 + ["", ""]  # 1 + 3 steps, no "end" row
    values = np.asarray(heat)
    np.testing.assert_allclose(values[:4, 0], 1.0, atol=1e-6)  # one spoken digit: all of it
    assert (values[4:] == 0).all() and (values[:, 1:] == 0).all()
    assert "with attention:    1111\n  ✗ 1 of 1 digits wrong, and too long" in frame["outputs"]


def test_the_chapter_trains_with_the_recipe_chapter_length_declaration_repeats():
    # chapter_length_declaration() retrains the chapter's first seed (compute("length_experiment"))
    # with compare_models, which the chapter calls for every seed: same data, same recipe
    from pathlib import Path

    text = (
        Path(__file__).resolve().parents[2] / "chapters" / "08_attention_and_length.md"
    ).read_text()
    assert "spoken.random_numbers(10_000, 1, spoken.TRAIN_MAX, num_gen)" in text
    assert "spoken.test_sets(train_numbers, num_gen)" in text  # held out where possible
    assert "SEEDS = (0, 1, 2)" in text
    assert "experiment.compare_seeds(n_src, n_lens, n_tgt, test_numbers, SEEDS)" in text
    assert "models = runs[0][0]" in text  # the explorer shows the first seed's models
    assert spoken.TRAIN_MAX < spoken.TEST_MAX
    # the explorer's examples: three different numbers of each length, as in the registry's
    assert "{k: list(dict.fromkeys(v))[:3] for k, v in test_numbers.items()}" in text


def test_length_explorer_refuses_an_example_twice():
    # the example slider would redraw nothing between two equal numbers
    att, plain = _models()
    curves = {"with attention": torch.zeros(2), "without": torch.zeros(2)}
    with pytest.raises(ValueError, match=r"different numbers.*\['7', '7', '3'\] for 1 digits"):
        experiment.length_declaration(
            att, plain, {1: ["7", "7", "3"], 2: ["12", "34", "56"]}, curves
        )
    with pytest.raises(ValueError, match="for 2 digits"):
        experiment.length_declaration(att, plain, {1: ["7", "3"], 2: ["12", "12"]}, curves)
    # the chapter's way of picking them: the first three different numbers of each length
    tests = {1: ["7", "7", "3", "7", "1"], 2: ["12", "34", "12", "56"]}
    picked = {k: list(dict.fromkeys(v))[:3] for k, v in tests.items()}
    assert picked == {1: ["7", "3", "1"], 2: ["12", "34", "56"]}
    decl = experiment.length_declaration(att, plain, picked, curves)
    captions = {decl.compute(digits=1, example=e)["outputs"] for e in (1, 2, 3)}
    assert len(captions) == 3


def test_length_explorer_curves_take_the_static_plots_colours():
    # the chapter draws the same curves with plot_lines, then the explorer: each curve keeps
    # its colour from one to the other (Okabe-Ito in order), the training edge comes next
    from attnlib.plotting import OKABE_ITO, plot_lines

    att, plain = _models()
    examples = {1: ["7", "0"], 2: ["12", "90"]}
    curves = {
        "with attention": torch.tensor([1.0, 0.5]),
        "without": torch.zeros(2),
        "query-blind": torch.tensor([0.5, 0.0]),
    }
    decl = experiment.length_declaration(att, plain, examples, curves, train_max=1)
    panel = next(p for p in decl.panels if getattr(p, "name", None) == "accuracy")
    got = {f.name: f.color.lower() for f in panel.fixed}
    static = plot_lines(
        torch.arange(1, 3),
        {**curves, "longest in training": ([1.5, 1.5], [0.0, 1.0])},
        xlabel="digits",
        ylabel="exact",
    )
    drawn = {
        ln.get_label(): matplotlib.colors.to_hex(ln.get_color()) for ln in static.axes[0].lines
    }
    assert got == drawn, (got, drawn)
    assert list(got.values()) == [c.lower() for c in OKABE_ITO[:4]]
    assert panel.series[0].color == "#000000"  # this length's marks: the text colour
    # and in its line style: solid where the static line is solid, a pattern where it is not,
    # no two curves alike (the edge was dashed like the static plot's "without")
    styles = {ln.get_label(): ln.get_linestyle() for ln in static.axes[0].lines}
    dashes = {f.name: f.dash for f in panel.fixed}
    for name, style in styles.items():
        assert (dashes[name] is None) == (style == "-"), (name, style, dashes[name])
    assert len(set(dashes.values())) == len(dashes), dashes


def test_length_explorer_names_the_model_without_attention_it_shows():
    att, plain = _models()
    examples = {1: ["7", "0"], 2: ["12", "90"]}
    curves = {"with attention": torch.ones(2), "without (3×)": torch.zeros(2)}
    decl = experiment.length_declaration(
        att, plain, examples, curves, train_max=1, without_name="without (3×)"
    )
    text = decl.compute(digits=2, example=1)["outputs"]
    lines = text.splitlines()
    assert lines[1].startswith("the number:") and lines[4].startswith("without (3×):"), lines
    # the outputs line up under the number
    cols = {ln.index(ln.split(":", 1)[1].strip()) for ln in (lines[1], lines[2], lines[4])}
    assert len(cols) == 1, lines
    for bad, err in [(3, TypeError), ("", ValueError), ("  ", ValueError), ("a\nb", ValueError)]:
        with pytest.raises(err, match="length_declaration: without_name"):
            experiment.length_declaration(att, plain, examples, curves, without_name=bad)


def _tiny_experiment(seed=0):
    gen = torch.Generator().manual_seed(5)
    numbers = spoken.random_numbers(40, 1, 3, gen)
    tests = {k: spoken.random_numbers(3, k, k, gen) for k in range(1, 17)}
    src, lens = spoken.encode_spoken(numbers)
    tgt = spoken.encode_digits(numbers)
    return experiment.compare_models(src, lens, tgt, tests, seed=seed, steps=2), tests


def test_compare_models_trains_four_models_from_the_same_start_and_leaves_the_rng_alone():
    state = torch.random.get_rng_state()
    (models, results), tests = _tiny_experiment()
    assert torch.equal(torch.random.get_rng_state(), state)
    assert list(results) == list(experiment.MODEL_NAMES)
    assert set(models) == {"with attention", "without (3×)", "query-blind"}
    assert all(r.shape == (16, 2) and ((r >= 0) & (r <= 1)).all() for r in results.values())
    # the same seed: the same models; another seed: other initial weights
    (again, _), _ = _tiny_experiment()
    (other, _), _ = _tiny_experiment(seed=1)
    w = {k: m.state_dict() for k, m in models.items()}
    assert all(
        torch.equal(w["query-blind"][k], v) for k, v in again["query-blind"].state_dict().items()
    )
    assert any(
        not torch.equal(w["query-blind"][k], v)
        for k, v in other["query-blind"].state_dict().items()
    )


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"seed": -1}, ValueError, "seed"),
        ({"seed": 1.5}, TypeError, "seed"),
        ({"steps": 0}, ValueError, "steps"),
        ({"tests": {}}, TypeError, "tests must be a non-empty dict"),
        ({"tests": [["1"]]}, TypeError, "tests must be a non-empty dict"),
    ],
)
def test_compare_models_refuses_bad_arguments(kwargs, error, match):
    src, lens = spoken.encode_spoken(["1", "23"])
    tgt = spoken.encode_digits(["1", "23"])
    args = {"tests": {1: ["1"]}, **kwargs}
    tests = args.pop("tests")
    with pytest.raises(error, match=match):
        experiment.compare_models(src, lens, tgt, tests, **args)


def test_results_table_shows_mean_and_range_over_seeds_by_bucket():
    tests = {k: ["1" * k] for k in range(1, 17)}
    exact = torch.zeros(2, 16, 2, dtype=torch.float64)
    exact[0, :2, 0], exact[1, :2, 0] = 1.0, 0.5  # digits 1-2: seeds 1.0 and 0.5
    table = experiment.results_table({"a": exact, "b": torch.zeros(2, 16, 2)}, tests)
    cells = table.cells()
    assert cells[0] == ["digits", "characters", "a", "b"]
    assert cells[1] == ["1–2", "3–7", "0.75 (0.50–1.00)", "0.00 (0.00–0.00)"]
    assert len(cells) == 1 + 7
    html = table._repr_html_()
    assert html.count('<th scope="row">') == 7 and 'aria-label="Numbers written exactly' in html
    # the characters and the seeds' range each on a line of their own under the digits and
    # the mean, each cell one <span> (one item of a phone's card)
    assert html.count('<th scope="col">') == 3
    assert "<td><span>0.75<br><small>0.50 to 1.00</small></span></td>" in html
    assert "<span>1–2<br><small>3–7 chars</small></span></th>" in html
    assert "0.75 (0.50–1.00)" in repr(table)


@pytest.mark.parametrize(
    "results, tests, error, match",
    [
        ({}, None, TypeError, "results must be a non-empty dict"),
        (
            {"a": torch.zeros(16, 2)},
            None,
            ValueError,
            r"results\['a'\] must be \(n_seeds, 16, 2\)",
        ),
        ({"a": torch.zeros(1, 15, 2)}, None, ValueError, r"must be \(n_seeds, 16, 2\)"),
        ({"a": torch.zeros(1, 16, 2)}, {1: ["1"]}, ValueError, "tests must cover 1 to 16"),
        ({"a": torch.zeros(1, 16, 2)}, {2: ["12"]}, TypeError, "for 1, 2, ... digits"),
    ],
)
def test_results_table_refuses_what_it_cannot_show(results, tests, error, match):
    tests = tests if tests is not None else {k: ["1" * k] for k in range(1, 17)}
    with pytest.raises(error, match=match):
        experiment.results_table(results, tests)


def test_compare_seeds_on_two_processes_gives_what_one_process_gives():
    gen = torch.Generator().manual_seed(5)
    numbers = spoken.random_numbers(40, 1, 3, gen)
    tests = {k: spoken.random_numbers(2, k, k, gen) for k in range(1, 17)}
    src, lens = spoken.encode_spoken(numbers)
    tgt = spoken.encode_digits(numbers)
    apart = experiment.compare_seeds(src, lens, tgt, tests, [0, 3], steps=2, workers=2)
    here = experiment.compare_seeds(src, lens, tgt, tests, [0, 3], steps=2, workers=1)
    assert len(apart) == len(here) == 2
    for (m_a, r_a), (m_h, r_h) in zip(apart, here):
        assert all(torch.equal(r_a[k], r_h[k]) for k in r_h)
        for name in m_h:
            for a, b in zip(m_a[name].state_dict().values(), m_h[name].state_dict().values()):
                assert torch.equal(a, b)
    # and the seeds differ from each other
    w0, w3 = (dict(run[0]["with attention"].named_parameters()) for run in here)
    assert any(not torch.equal(w0[k], w3[k]) for k in w0)


def test_compare_seeds_trains_in_the_calling_process_by_default(monkeypatch):
    # the chapter's call (compare_seeds(..., SEEDS), no workers) starts no process: a fresh
    # interpreter per worker costs about 7 CPU-s (torch, this package, the first Adam's import
    # of torch._dynamo) that make test's shared cores pay as time (issue 36)
    import concurrent.futures

    def no_pool(*args, **kwargs):
        raise AssertionError("compare_seeds started a process pool")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_pool)
    gen = torch.Generator().manual_seed(5)
    numbers = spoken.random_numbers(40, 1, 3, gen)
    tests = {k: spoken.random_numbers(2, k, k, gen) for k in range(1, 17)}
    src, lens = spoken.encode_spoken(numbers)
    tgt = spoken.encode_digits(numbers)
    runs = experiment.compare_seeds(src, lens, tgt, tests, [0, 3], steps=1)
    assert len(runs) == 2 and all(set(r) == set(experiment.MODEL_NAMES) for _, r in runs)


@pytest.mark.parametrize(
    "seeds, workers, error, match",
    [
        ("012", 2, TypeError, "seeds must be a list of ints"),
        (3, 2, TypeError, "seeds must be a list of ints"),
        ([], 2, ValueError, "distinct and at least one"),
        ([1, 1], 2, ValueError, "distinct and at least one"),
        ([0, -1], 2, ValueError, r"seeds\[1\]"),
        ([0, 1.5], 2, TypeError, r"seeds\[1\]"),
        ([0, 1], 0, ValueError, "workers"),
    ],
)
def test_compare_seeds_refuses_bad_seeds_and_workers(seeds, workers, error, match):
    src, lens = spoken.encode_spoken(["1", "23"])
    tgt = spoken.encode_digits(["1", "23"])
    with pytest.raises(error, match=match):
        experiment.compare_seeds(src, lens, tgt, {1: ["1"]}, seeds, workers=workers)


def test_length_explorer_presets_say_what_this_run_shows():
    # issue 39 item 3: the tour stops inside training, at its edge and beyond it, and each
    # notice reads the run: both models' marks at that length (from the curves), whether
    # example 1 comes out right with attention (or its first wrong digit), and the weight on
    # the diagonal, computed here independently from the model's own weights
    att, plain = _models()
    examples = {k: [str(k % 10) * k] for k in range(1, 7)}
    curves = {
        "with attention": torch.tensor([1.0, 0.96, 0.9, 0.5, 0.25, 0.125]),
        "without (3×)": torch.tensor([1.0, 0.5, 0.125, 0.0, 0.0, 0.0]),
        "query-blind": torch.zeros(6),
    }
    decl = experiment.length_declaration(
        att, plain, examples, curves, train_max=3, without_name="without (3×)"
    )
    assert [p.label for p in decl.presets] == [
        "3 digits: the longest in training",  # "inside" (nearest 4) is the edge itself here
        "6 digits: beyond training",  # the nearest to 4 past the edge
    ]
    for preset in decl.presets:
        k = preset.values["digits"]
        assert preset.values == {"digits": k, "example": 1}
        number = examples[k][0]
        said, w = spoken.read_numbers(att, [number])
        said = said[0]
        wrong = [i for i, c in enumerate(number) if i >= len(said) or said[i] != c]
        verdict = "right" if said == number else f"wrong from digit {(wrong or [k])[0] + 1}"
        m = min(k, len(said))
        grid = spoken.word_weights(w[0, :m], number).double()  # (m, k)
        diag = float(sum(grid[i, i] for i in range(m)) / max(m, 1))
        a, b = float(curves["with attention"][k - 1]), float(curves["without (3×)"][k - 1])
        assert preset.notice == (
            f"Notice: written exactly at this length (the curves' marks): with attention "
            f"{a:.2f}, without (3×) {b:.2f}; this number, with attention, comes out {verdict}, "
            f"and its rows put {diag:.2f} of their weight on their own digit's word (the "
            "diagonal)."
        ), preset.notice


@pytest.mark.slow
def test_length_explorer_training_line_and_grey_cells_are_said():
    """The training line stands at the longest length trained on (not half a digit past it),
    and the heatmap says what its grey (empty) cells are (issue 39's cold read)."""
    att, plain = _models()
    examples = {1: ["7", "0"], 2: ["12", "90"], 3: ["345", "678"]}
    curves = {"with attention": torch.tensor([1.0, 0.5, 0.0]), "without": torch.zeros(3)}
    decl = experiment.length_declaration(att, plain, examples, curves, train_max=2)
    lines = next(p for p in decl.panels if p.name == "accuracy")
    edge = next(f for f in lines.fixed if f.name == "longest in training")
    assert list(np.asarray(edge.x, dtype=float)) == [2.0, 2.0]
    heat = next(p for p in decl.panels if p.name == "attention")
    assert "grey" in heat.colorbar_label
    chapter = (Path(__file__).parents[2] / "chapters/08_attention_and_length.md").read_text()
    assert "[spoken.TRAIN_MAX] * 2" in chapter  # the static plot's line, at 8 too


def test_the_seen_lengths_print_says_they_are_test_lengths():
    """Issue 39's cold read: right after "the models train on 1 to 8 digits" the chapter
    printed "lengths seen in training: [1, 2]", which reads as the training lengths. The
    print says what the list is: the test lengths whose numbers all occur in training."""
    import json

    nb = Path(__file__).parents[2] / "chapters/08_attention_and_length.ipynb"
    text = "".join(
        "".join(o.get("text", ""))
        for c in json.loads(nb.read_text(encoding="utf8"))["cells"]
        for o in c.get("outputs", [])
        if o.get("output_type") == "stream"
    )
    assert "lengths seen in training:" not in text
    seen = [k for k in range(1, spoken.TEST_MAX + 1) if k <= 2]  # 10 and 100 numbers: all seen
    assert f"test lengths whose numbers all\n  occur in training: {seen}\n" in text
    assert f"test lengths held out: 3 to {spoken.TEST_MAX}\n" in text
