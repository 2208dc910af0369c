"""The two layouts of the book's pipeline picture (:func:`scoringbook.diagrams.draw_pipeline`).

:func:`pipeline_across` puts the stages left to right, one row per key (the page's figure);
:func:`pipeline_down` top to bottom, one column per key (a phone's, NARROW_WIDTH wide). Both take
the example already formatted by ``draw_pipeline`` and a theme from
:mod:`attnlib.plotting.variants`.
"""

from __future__ import annotations

__all__ = ["pipeline_across", "pipeline_down"]


def _pipeline_colours(theme) -> dict:
    from attnlib.plotting.kit import OKABE_ITO, series_colour

    return {
        "text": theme.foreground,
        "masked": theme.muted,
        "arrow": theme.muted,
        "query": series_colour(OKABE_ITO[1], theme),
        "output": series_colour(OKABE_ITO[2], theme),
        "bar": series_colour(OKABE_ITO[0], theme),
        "bar_alpha": 0.55 if theme.name == "light" else 0.9,
    }


HEADS = {
    "query": "query $\\mathbf{q}$",
    "keys": "keys $\\mathbf{k}_i$",
    "scores": "scores $a(\\mathbf{q},\\mathbf{k}_i)$",
    "weights": "weights $\\alpha_i$",
    "values": "values $\\mathbf{v}_i$",
    "output": "output $\\sum_i\\alpha_i\\mathbf{v}_i$",
}
PT = 12.5  # every text of the diagram: 12.5 pt in the 9 in (912 px with its padding) figure
# shown in a 1280-px page's 684-px column is 13.0 px, over 0.8 of the 16 px body text (issue 39)
# the phone's: 10 pt in a 3.6 in figure (3.8 in with its padding) shown 358 px wide is 13.1 px,
# over 0.8 of the 16 px body text (issue 39)
PT_DOWN = 10


def pipeline_across(ex, title, figsize, theme, managed):
    """Stages left to right, one row per key (the desktop figure)."""
    from matplotlib.patches import FancyArrowPatch, Rectangle

    from attnlib.plotting.kit import finish_figure, new_figure

    col = _pipeline_colours(theme)
    n, valid, weights = ex["n"], ex["valid"], ex["weights"]
    fig = new_figure(figsize, managed)
    ax = fig.add_subplot()
    ax.set_xlim(0, 10)
    ax.set_ylim(-1.0, n + (1.5 if title else 0.9))
    ax.axis("off")
    if title:  # a text, not the axes' title: attnlib holds titles to TITLE_PT, under PT here
        ax.text(5, n + 1.2, title, ha="center", va="center", fontsize=PT + 1, color=col["text"])
    rows = [n - 1 - i + 0.2 for i in range(n)]  # key i at height rows[i], top to bottom
    head = n + 0.45
    cols = {
        "query": 0.7,
        "keys": 2.25,
        "scores": 4.1,
        "weights": 5.75,
        "values": 7.65,
        "output": 9.3,
    }
    for key, x in cols.items():
        ax.text(
            x,
            head,
            HEADS[key],
            ha="center",
            va="center",
            fontsize=PT,
            fontweight="bold",
            color=col["text"],
        )
    mid = (n - 1) / 2 + 0.2
    for key in ("query", "output"):
        ax.text(
            cols[key],
            mid,
            ex[key].replace(", ", ",\n"),  # a column vector: leaves the arrows room
            ha="center",
            va="center",
            fontsize=PT,
            color=col["text"],
            bbox=dict(boxstyle="round", fc="none", ec=col[key]),
        )
    for i, y in enumerate(rows):
        masked = i >= valid
        colour = col["masked"] if masked else col["text"]
        ax.text(
            cols["keys"], y, ex["keys"][i], ha="center", va="center", fontsize=PT, color=colour
        )
        ax.text(
            cols["scores"],
            y,
            ex["scores"][i] + ("  (masked)" if masked else ""),
            ha="center",
            va="center",
            fontsize=PT,
            color=colour,
        )
        ax.add_patch(
            Rectangle(
                (cols["weights"] - 0.05, y - 0.18),
                0.8 * weights[i],
                0.36,
                color=col["bar"],
                alpha=col["bar_alpha"],
                lw=0,
            )
        )
        ax.text(
            cols["weights"] - 0.15,
            y,
            f"{weights[i]:.2f}",
            ha="right",
            va="center",
            fontsize=PT,
            color=col["text"],
        )
        ax.text(
            (cols["weights"] + cols["values"]) / 2 + 0.05,
            y,
            "×",
            ha="center",
            va="center",
            fontsize=PT,
            color=col["arrow"],
        )
        ax.text(
            cols["values"], y, ex["values"][i], ha="center", va="center", fontsize=PT, color=colour
        )

    def arrow(x0, x1, label=None, shift=0.0):
        ax.add_patch(
            FancyArrowPatch(
                (x0, mid), (x1, mid), arrowstyle="-|>", mutation_scale=10, color=col["arrow"], lw=1
            )
        )
        if label:
            ax.text(
                (x0 + x1) / 2 + shift,
                -0.55,
                label,
                ha="center",
                va="center",
                fontsize=PT,
                color=col["arrow"],
            )

    arrow(cols["query"] + 0.45, cols["keys"] - 0.8, label="compare with\nevery key")
    arrow(cols["keys"] + 0.75, cols["scores"] - 0.4, label=ex["scoring"])
    arrow(
        cols["scores"] + 0.4,
        cols["weights"] - 0.75,
        label="softmax" + (" over the\nvalid keys" if valid < n else ""),
        shift=0.3,  # clear of a long scoring's label (additive's) on its left
    )
    arrow(cols["values"] + 0.8, cols["output"] - 0.45, label="weighted sum\nof the values")
    ax.text(
        cols["weights"] + 0.95,
        -0.55,
        f"sum = {weights.sum():.2f}",
        ha="center",
        va="center",
        fontsize=PT,
        color=col["arrow"],
    )
    finish_figure(fig, theme)
    return fig


def pipeline_down(ex, title, theme, managed):
    """Stages top to bottom, one column per key (the phone figure, NARROW_WIDTH wide)."""
    from matplotlib.patches import FancyArrowPatch, Rectangle

    from attnlib.plotting.kit import NARROW_WIDTH, finish_figure, new_figure

    col = _pipeline_colours(theme)
    n, valid, weights = ex["n"], ex["valid"], ex["weights"]
    # from the top: each stage is a bold head line and a line of values (0.62 in); between
    # stages an arrow with its label (0.42 in)
    stage_h, arrow_h = 0.62, 0.42
    height = 6 * stage_h + 4 * arrow_h + 0.35 + (0.3 if title else 0)  # 0.35: the output line
    fig = new_figure((NARROW_WIDTH, height), managed)
    fig.set_layout_engine("none")  # one axes filling the figure: nothing to lay out
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, NARROW_WIDTH)
    ax.set_ylim(-height, 0)
    ax.axis("off")
    left = 0.12
    xs = [left + (NARROW_WIDTH - left) * (i + 0.5) / n for i in range(n)]  # a column per key
    y = -0.15
    if title:
        ax.text(
            NARROW_WIDTH / 2,
            y - 0.1,
            title,
            ha="center",
            va="center",
            fontsize=10.5,
            color=col["text"],
        )
        y -= 0.3

    def head(key, extra=None):
        nonlocal y
        ax.text(
            left,
            y - 0.12,
            HEADS[key],
            ha="left",
            va="center",
            fontsize=PT_DOWN,
            fontweight="bold",
            color=col["text"],
        )
        if extra:
            ax.text(
                NARROW_WIDTH - 0.1,
                y - 0.12,
                extra,
                ha="right",
                va="center",
                fontsize=PT_DOWN,
                color=col["arrow"],
            )
        return y - 0.4  # the values' line

    def arrow(label):
        nonlocal y
        x = left + 0.25
        ax.add_patch(
            FancyArrowPatch(
                (x, y - 0.04),
                (x, y - arrow_h + 0.04),
                arrowstyle="-|>",
                mutation_scale=10,
                color=col["arrow"],
                lw=1,
            )
        )
        ax.text(
            x + 0.2,
            y - arrow_h / 2,
            label,
            ha="left",
            va="center",
            fontsize=PT_DOWN,
            color=col["arrow"],
        )
        y -= arrow_h

    yv = head("query")
    ax.text(
        NARROW_WIDTH / 2,
        yv,
        ex["query"],
        ha="center",
        va="center",
        fontsize=PT_DOWN,
        color=col["text"],
        bbox=dict(boxstyle="round", fc="none", ec=col["query"]),
    )
    y -= stage_h
    arrow("compare with every key")
    yv = head("keys")
    for i, x in enumerate(xs):
        ax.text(
            x,
            yv,
            ex["keys"][i].replace(", ", ",\n"),  # a column vector: two lines fit its column
            ha="center",
            va="center",
            fontsize=PT_DOWN,
            color=col["masked"] if i >= valid else col["text"],
        )
    y -= stage_h
    arrow(ex["scoring"])
    yv = head("scores")
    for i, x in enumerate(xs):
        masked = i >= valid
        ax.text(
            x,
            yv,
            ex["scores"][i] + ("\n(masked)" if masked else ""),  # 2 lines: its column
            ha="center",
            va="center",
            fontsize=PT_DOWN,
            color=col["masked"] if masked else col["text"],
        )
    y -= stage_h
    arrow("softmax" + (" over the valid keys" if valid < n else ""))
    yv = head("weights", extra=f"sum = {weights.sum():.2f}")
    span = (NARROW_WIDTH - left) / n * 0.45  # a bar's length at weight 1
    for i, x in enumerate(xs):
        ax.add_patch(
            Rectangle(
                (x + 0.02, yv - 0.1),
                span * weights[i],
                0.2,
                color=col["bar"],
                alpha=col["bar_alpha"],
                lw=0,
            )
        )
        ax.text(
            x - 0.02,
            yv,
            f"{weights[i]:.2f}",
            ha="right",
            va="center",
            fontsize=PT_DOWN,
            color=col["text"],
        )
    y -= stage_h
    ax.text(
        left + 0.25,
        y - arrow_h / 2 + 0.05,
        "× each weight times its value",
        ha="left",
        va="center",
        fontsize=PT_DOWN,
        color=col["arrow"],
    )
    y -= arrow_h - 0.1
    yv = head("values")
    for i, x in enumerate(xs):
        ax.text(
            x,
            yv,
            ex["values"][i].replace(", ", ",\n"),
            ha="center",
            va="center",
            fontsize=PT_DOWN,
            color=col["masked"] if i >= valid else col["text"],
        )
    y -= stage_h
    arrow("weighted sum of the values")
    yv = head("output")
    ax.text(
        NARROW_WIDTH / 2,
        yv,
        ex["output"],
        ha="center",
        va="center",
        fontsize=PT_DOWN,
        color=col["text"],
        bbox=dict(boxstyle="round", fc="none", ec=col["output"]),
    )
    finish_figure(fig, theme)
    return fig
