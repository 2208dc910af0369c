"""scoringbook.ch06_scoring_family: the examples, the entropy curve, the cost table and the
claims of the scoring-family chapter, against numbers computed independently here."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import torch

from scoringbook import claims
from scoringbook.ch06_scoring_family import (
    CHOICE,
    SCALINGS,
    CostTable,
    hard_attention,
    location_weights,
    measure_costs,
    row_entropy,
    scaling_experiment,
)


def test_location_weights_read_the_query_only():
    W_a = torch.tensor([[2.0, 0.0], [1.0, 1.0], [0.0, 2.0]])  # (3, 2)
    w = location_weights(W_a, torch.tensor([1.0, 0.0]), 3)
    e = [math.exp(2), math.exp(1), 1.0]
    assert torch.allclose(w, torch.tensor([v / sum(e) for v in e]))
    with pytest.raises(ValueError, match=r"W_a must be \(n_keys, d\) = \(4, d\).*\(3, 2\)"):
        location_weights(W_a, torch.tensor([1.0, 0.0]), 4)
    with pytest.raises(TypeError, match="n_keys must be an int"):
        location_weights(W_a, torch.tensor([1.0, 0.0]), 3.0)


def test_hard_attention_samples_in_proportion_to_the_weights():
    w = torch.tensor([[0.7, 0.2, 0.1, 0.0]]).expand(20000, 4)
    picks = hard_attention(w, torch.Generator().manual_seed(1))
    share = torch.bincount(picks, minlength=4) / 20000.0
    assert torch.allclose(share, w[0], atol=0.015) and share[3] == 0
    with pytest.raises(
        ValueError, match=r"weights must have 2 dimensions \(n_queries, n_keys\); got shape \(4,\)"
    ):
        hard_attention(w[0], torch.Generator())


def test_row_entropy_of_each_scaling_as_the_argument_says():
    e = row_entropy(dims=(4, 1024), n_keys=16, n_rows=300)
    assert list(e) == list(SCALINGS)
    uniform = math.log(16)
    assert e["1"][1] < 0.5 < e["1"][0]  # unscaled: one-hot rows at large d
    assert e["1/d"][1] > uniform - 0.01  # 1/d: uniform rows at large d
    assert abs(e["1/√d"][1] - e["1/√d"][0]) < 0.15  # 1/√d: the same shape at every d


def test_cost_table_has_every_measured_function_and_a_row_each():
    costs = measure_costs(sizes=(16, 32), d=8, h=8, repeats=1)
    assert set(costs["time"]) == set(costs["memory"]) == set(CHOICE)
    assert all(len(v) == 2 and min(v) > 0 for v in costs["time"].values())
    assert all(len(v) == 2 and min(v) >= 0 for v in costs["memory"].values())
    cells = CostTable(costs).cells()
    assert len(cells) == 1 + len(CHOICE) and all(len(r) == len(cells[0]) for r in cells)
    assert '<th scope="row">additive</th>' in CostTable(costs)._repr_html_()


def test_the_compact_cost_table_keeps_the_largest_size_only():
    """The page's table (its times are drawn in a figure): the time at the largest n, the
    memory, what uses it and when to pick it; no formula or parameters."""
    costs = {
        "sizes": [16, 32],
        "time": {name: [1e-3 * (i + 1), 2e-3 * (i + 1)] for i, name in enumerate(CHOICE)},
        "memory": {name: [0, 2**20 * (i + 1)] for i, name in enumerate(CHOICE)},
    }
    head, *rows = CostTable(costs, compact=True).cells()
    assert head == [
        "score",
        "time (ms), n = 32",
        "memory (MiB), n = 32",
        "used in",
        "pick it when",
    ]
    # 3 significant figures for a time, 2 for a memory, trailing zeros kept (issue 39's cold
    # read: a memory column read "4" beside "3.8" and "4.5")
    times, mibs = ["2.00", "4.00", "6.00", "8.00"], ["1.0", "2.0", "3.0", "4.0"]
    assert len(rows) == len(CHOICE) == 4
    for i, (name, row) in enumerate(zip(CHOICE, rows)):
        assert row[:3] == [name, times[i], mibs[i]]
        assert row[3:] == list(CHOICE[name][2:])
    with pytest.raises(TypeError, match="CostTable: compact must be True or False"):
        CostTable(costs, compact="yes")


def test_scaling_claims_fail_when_scaling_does_not_help():
    good = {
        "1": torch.tensor([[0.6, 0.7], [0.8, 0.85]]),
        "1/√d": torch.tensor([[0.75, 0.8], [0.97, 0.98]]),
        "1/d": torch.tensor([[0.7, 0.75], [0.97, 0.98]]),
    }
    claims.check(claims.scaling_claims(good))
    bad = dict(good, **{"1/√d": good["1"]})
    with pytest.raises(AssertionError, match="scaling_gap"):
        claims.check(claims.scaling_claims(bad))


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: measure_costs(sizes=()), ValueError, ["sizes", "at least one"]),
        (lambda: measure_costs(sizes=(0,)), ValueError, ["sizes", ">= 1", "0"]),
        (lambda: measure_costs(sizes="12"), TypeError, ["sizes", "'12'"]),
        (lambda: measure_costs(d=2.5), TypeError, ["d", "2.5"]),
        (lambda: measure_costs(repeats=0), ValueError, ["repeats", "0"]),
        (lambda: row_entropy(dims=(2, -1)), ValueError, ["dims", "-1"]),
        (lambda: row_entropy(n_keys=True), TypeError, ["n_keys", "True"]),
        (lambda: row_entropy(seed="a"), TypeError, ["seed", "'a'"]),
        (lambda: scaling_experiment(seeds=()), ValueError, ["seeds", "at least one", "got 0"]),
        (lambda: scaling_experiment(steps=0), ValueError, ["steps", "0"]),
        (lambda: scaling_experiment(dims=None), TypeError, ["dims", "None"]),
    ],
)
def test_bad_arguments_are_refused_naming_them(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    assert all(w in str(info.value) for w in words), str(info.value)


# ----------------------------------------------------------------------------- figures

CHAPTER = Path(__file__).resolve().parents[2] / "chapters" / "06_scoring_family.md"
#: The width a 390-px phone shows a figure at in the built book (measured there: every figure
#: of every chapter fills the 358 CSS px column; tests/browser/reading/test_on_a_phone.py
#: reads it).
PHONE_COLUMN = 358
#: Readable on a phone: the chapter's first picture shows its smallest text, its tick labels,
#: at 11 CSS px or more (0.7 of the 16-px body text; it was 9.5 px, issue 39 item 6).
READABLE_PX = 11.0


def _figure_cell(code_part: str):
    """Run the chapter's code cell that holds ``code_part`` (with the chapter's imports) and
    return the figure it draws."""
    import matplotlib.pyplot as plt

    cells = re.findall(r"```\{code-cell\} ipython3\n(.*?)```", CHAPTER.read_text("utf8"), re.S)
    (cell,) = [c for c in cells if code_part in c]
    code = cell.split("---\n", 2)[2]  # after the cell's front matter
    ns = {}
    exec(
        "import math\nimport torch\nimport attnlib\n"
        "from attnlib.plotting import plot_bars, plot_lines, show_heatmaps\n"
        "from scoringbook.ch06_scoring_family import hard_attention, location_weights\n" + code,
        ns,
    )
    fig = ns["fig"]
    plt.close(fig)
    return fig


def test_the_opening_heatmap_is_readable_on_a_phone():
    from attnlib.plotting.variants import figure_variants, render_png

    fig = _figure_cell("weights[None],  # (1, 1, 6 scoring functions, 6 keys)")
    shown = [v for v in figure_variants(fig) if v["layout"] == "narrow"] or [render_png(fig)]
    for v in shown:
        px = v["label_scale"] * min(v["width"], PHONE_COLUMN)
        assert px >= READABLE_PX, f"smallest text {px:.2f} CSS px at 390 px (< {READABLE_PX})"


def test_the_opening_heatmap_uses_a_phones_column_with_a_flat_colour_bar_label():
    # a cold read: on a 390-px phone the map was about 150 px wide beside a colour bar with a
    # rotated two-line label; the phone's picture now spans the column, its bar under it
    from attnlib.plotting._theme import DARK, LIGHT
    from attnlib.plotting.variants import figure_variants

    fig = _figure_cell("weights[None],  # (1, 1, 6 scoring functions, 6 keys)")
    narrow = {v["theme"]: v for v in figure_variants(fig) if v["layout"] == "narrow"}
    assert set(narrow) == {"light", "dark"}, "no phone picture"
    for theme in (LIGHT, DARK):
        phone = fig._attnlib_redraw(theme, True, False)
        phone.canvas.draw()
        renderer = phone.canvas.get_renderer()
        (panel,) = [ax for ax in phone.axes if ax.images]
        (bar,) = [ax for ax in phone.axes if not ax.images]
        # the PNG is cropped to its content (render_png): the map's share of it, at the column
        whole = phone.get_tightbbox(renderer).width * phone.dpi  # inches -> px
        v = narrow[theme.name]
        shown = panel.get_window_extent(renderer).width / whole * min(v["width"], PHONE_COLUMN)
        assert shown >= 0.55 * PHONE_COLUMN, f"{theme.name}: the map {shown:.0f} px wide"
        label = bar.xaxis.label if bar.xaxis.label.get_text() else bar.yaxis.label
        assert label.get_rotation() == 0, f"{theme.name}: the colour bar's label is turned"
        text = " ".join(label.get_text().split())
        assert "attention weight" in text and "value^0.6" in text, text  # what it said
    # the desktop picture keeps the map larger than a phone's column holds
    assert fig.get_figwidth() * fig.dpi > PHONE_COLUMN


def test_the_hard_attention_chart_draws_four_discrete_keys_as_bars():
    from matplotlib.patches import Rectangle

    fig = _figure_cell("picks = hard_attention(soft.expand(2000, 4)")
    ax = next(a for a in fig.axes if a.get_label() != "<colorbar>")
    fig.canvas.draw()
    bars = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(bars) == 8, f"{len(bars)} bars: one per key and series"
    data_lines = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 4]
    assert not data_lines, "a line through four discrete keys"
    ticks = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert ticks == ["0", "1", "2", "3"], ticks


def test_the_cost_table_prints_plain_numbers_at_any_size():
    """Issue 39's cold read: chapter 6's cost table printed "1.87e+03" ms (a time of 1.87 s at
    three significant figures, formatted with "g"). Every time and memory is a plain decimal
    in every form the table takes (text, HTML), at its significant figures; a value that rounds
    up to the next power of ten does not gain a figure ("100", not "100.0")."""
    times = [1.8704, 0.09996, 0.0187042, 0.00000123]  # s: 1870, 100, 18.7, 0.00123 ms
    mibs = [1e4, 0.0123, 9.96, 2.5]  # MiB
    costs = {
        "sizes": [16, 32],
        "time": {name: [t / 2, t] for name, t in zip(CHOICE, times)},
        "memory": {name: [0, m * 2**20] for name, m in zip(CHOICE, mibs)},
    }
    table = CostTable(costs, compact=True)
    _, *rows = table.cells()
    assert [r[1] for r in rows] == ["1870", "100", "18.7", "0.00123"]
    assert [r[2] for r in rows] == ["10000", "0.012", "10", "2.5"]
    for text in (repr(table), table._repr_html_(), repr(CostTable(costs))):
        assert not re.search(r"\d[eE][+-]?\d", text), f"a number in scientific notation: {text}"
        assert "1870" in text
