"""Heatmaps of attention weights: :func:`show_heatmaps` (d2l's name and call)."""

from __future__ import annotations

import numbers
import re
from collections.abc import Sequence

import matplotlib
import numpy as np
from matplotlib.colors import Colormap, Normalize
from matplotlib.figure import Figure

from attnlib.domains import Real, StrList, declare
from attnlib.plotting._figure import (
    FIGSIZE,
    NARROW_WIDTH,
    OPTIONAL_TEXT,
    TEXT,
    _check_figsize,
    _check_finite,
    _drawn,
    _finish,
    _integer_ticks,
    _new_figure,
    _to_numpy,
    data,
    names_its_refusals,
)
from attnlib.plotting._theme import TICK_PT, TITLE_PT


def wrap_title(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` characters, broken at spaces only outside
    ``$...$`` maths (a newline inside maths breaks mathtext); a longer word or formula
    stays whole on its own line."""
    words: list[str] = []
    for w in text.split():
        # inside maths while the line so far holds an odd number of unescaped $
        if words and re.sub(r"\\\$", "", words[-1]).count("$") % 2 == 1:
            words[-1] += " " + w
        else:
            words.append(w)
    lines: list[str] = []
    for w in words:
        if lines and len(lines[-1]) + 1 + len(w) <= width:
            lines[-1] += " " + w
        else:
            lines.append(w)
    return "\n".join(lines)


__all__ = ["show_heatmaps"]


@declare(
    matrices=data("(rows, cols, n_queries, n_keys) finite values, tensor, array or lists"),
    xlabel=TEXT,
    ylabel=TEXT,
    titles=data("one title per panel or per column (strings), or None"),
    figsize=FIGSIZE,
    cmap=data("a matplotlib colour map or its name, or None"),
    vmin=Real(optional=True),
    vmax=Real(optional=True),
    colorbar_label=TEXT,
    xticklabels=StrList(optional=True),
    yticklabels=StrList(optional=True),
    suptitle=OPTIONAL_TEXT,
)
@names_its_refusals
def show_heatmaps(
    matrices,
    xlabel: str,
    ylabel: str,
    titles: Sequence[str] | Sequence[Sequence[str]] | None = None,
    figsize: tuple[float, float] = (2.5, 2.5),
    cmap: str | None = None,
    *,
    vmin: float | None = None,
    vmax: float | None = None,
    colorbar_label: str = "attention weight",
    xticklabels: Sequence[str] | None = None,
    yticklabels: Sequence[str] | None = None,
    suptitle: str | None = None,
) -> Figure:
    r"""Draw a grid of matrices (usually attention weights) as heatmaps with one colour bar.

    Panel ``(i, j)`` shows ``matrices[i, j]``, an ``(n_queries, n_keys)`` matrix with
    queries as rows (y axis, query 0 at the top) and keys as columns (x axis), as in every
    weight matrix of the book. All panels share one colour scale and one labelled colour
    bar, so equal colours mean equal values across panels. Ticks are integer indices
    (every index up to 10 rows or columns, a readable subset beyond).

    Reference (what is drawn, in plain code)::

        for i, j in product(range(rows), range(cols)):
            axes[i, j].imshow(matrices[i, j], cmap=cmap, vmin=vmin, vmax=vmax)

    Args:
        matrices: tensor or array, 2-D, 3-D or 4-D (d2l's layout):

            - ``(rows, cols, n_queries, n_keys)``: a ``rows x cols`` grid of panels;
            - ``(cols, n_queries, n_keys)``: one row of panels, one per leading index
              (e.g. a batch of weights ``(batch, n_queries, n_keys)`` side by side);
            - ``(n_queries, n_keys)``: a single panel.

            Tensors that require grad are fine (they are detached). Values must be finite.
        xlabel: label of the x axis (keys): under the panel, or once under a row of
            several panels (``fig.supxlabel``; one per panel would collide; on a phone,
            with the colour bar below, from the left under the first column).
        ylabel: label of the y axis (queries), written left of the first column.
        titles: optional panel titles: one per column (``len(titles) == cols``, every row
            of a column shares its title), or one per panel as a ``rows x cols`` list of
            lists.
        figsize: size of the whole figure in inches ``(width, height)``.
        cmap: a matplotlib colour map (its name or a ``Colormap``), drawn linearly from
            ``vmin`` to ``vmax``. Default
            (``None``): the explorers' weight scale (``attnlib.plotting._theme``): light to
            dark red on a light page (matplotlib ``"Reds"``), dark purple to light yellow on
            a dark one, a value at ``u ** GAMMA`` along it, ``u = (v - vmin) / (vmax -
            vmin)`` (linear when a value is negative).
        vmin, vmax: ends of the shared colour scale. By default ``vmin`` is 0 when no value
            is negative (weights: white means "no attention") and otherwise the smallest
            value; ``vmax`` is the largest value over all panels. If the two coincide
            (a constant matrix) ``vmax = vmin + 1``.
        colorbar_label: label of the colour bar. With the default scale it gains the scale's
            note, ``(colour ∝ value^0.6: small values stand out)``: on a line of its own
            beside a bar at the right; under a phone's bar (flat, below the panels) broken
            after the colon instead, so that no line is wider than the column.
        xticklabels: optional names of the keys (e.g. the tokens of a sentence), one per
            column (``len(xticklabels) == n_keys``), shown under every panel (a reader never
            looks down the grid to learn what a column is); default: the indices.
        yticklabels: optional names of the queries, one per row
            (``len(yticklabels) == n_queries``); default: the indices.
        suptitle: optional title over all panels.

    On a phone (the narrow variant of a figure wider than 4.2 in, see
    :mod:`attnlib.plotting.variants`) three panels or more go two a row when their titles are
    short and their keys few, or named in at most two characters: such named ticks are then
    staggered, every other one a line lower (x) or a label further left (y), so that each
    keeps its name at a readable size: up to STAGGER_PT (10.5 pt, 13.7 CSS px at 390 px, a
    capital letter about 10 px tall) as far as two cells leave room, the panels made tall
    enough for it; every panel then names its keys.

    Shape legend: ``rows`` and ``cols`` are the panel grid, ``n_queries`` the rows and
    ``n_keys`` the columns of each matrix.

    Returns:
        The :class:`~matplotlib.figure.Figure` (its axes: the panels row by row, then the
        colour bar).

    Example::

        >>> import torch
        >>> m = torch.eye(3).reshape(1, 1, 3, 3)  # (rows, cols, n_queries, n_keys)
        >>> fig = show_heatmaps(m, "keys", "queries")
        >>> len(fig.axes)  # one panel and the colour bar
        2
        >>> fig.axes[1].get_ylabel().splitlines()  # the label says the scale is not linear
        ['attention weight', '(colour ∝ value^0.6: small values stand out)']
    """
    data = _to_numpy(matrices, "matrices")
    if data.ndim == 2:
        data = data[None, None]  # (n_queries, n_keys) -> (1, 1, n_queries, n_keys)
    elif data.ndim == 3:
        data = data[None]  # (cols, n_queries, n_keys) -> (1, cols, n_queries, n_keys)
    elif data.ndim != 4:
        raise ValueError(
            "matrices must be 4-D (rows, cols, n_queries, n_keys), 3-D (cols, n_queries, "
            "n_keys) "
            f"or 2-D (n_queries, n_keys), got shape {tuple(data.shape)}"
        )
    if data.size == 0:
        raise ValueError(
            "matrices must not be empty: (rows, cols, n_queries, n_keys) = "
            f"{tuple(data.shape)} has a zero"
        )
    _check_finite(data, "matrices")
    rows, cols, n_queries, n_keys = data.shape
    for name, value in (
        ("xlabel", xlabel),
        ("ylabel", ylabel),
        ("colorbar_label", colorbar_label),
    ):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if titles is not None and not isinstance(titles, str) and _is_grid(titles):
        if len(titles) != rows or any(len(t) != cols for t in titles):
            raise ValueError(
                f"titles as a grid must have {rows} rows of {cols} titles (one per panel of "
                f"matrices' (rows, cols) = {(rows, cols)}), got "
                f"{[len(t) for t in titles]} titles per row"
            )
        titles_to_check = None
    else:
        titles_to_check = titles
    if suptitle is not None and not isinstance(suptitle, str):
        raise TypeError(f"suptitle must be a str or None, got {type(suptitle).__name__}")
    for name, labels, n, what in (
        ("titles", titles_to_check, cols, "column of panels"),
        ("xticklabels", xticklabels, n_keys, "key (n_keys)"),
        ("yticklabels", yticklabels, n_queries, "query (n_queries)"),
    ):
        if labels is None:
            continue
        if isinstance(labels, str) or not isinstance(labels, Sequence):
            raise TypeError(
                f"{name} must be a list of str, one per {what} ({n}), got {type(labels).__name__}"
            )
        if len(labels) != n:
            raise ValueError(
                f"{name} must have one entry per {what}: expected {n} "
                "(matrices has shape (rows, cols, n_queries, n_keys) = "
                f"{tuple(data.shape)}), got {len(labels)}"
            )
    figsize = _check_figsize(figsize, "show_heatmaps")
    for name, value in (("vmin", vmin), ("vmax", vmax)):
        if value is not None and not (isinstance(value, numbers.Real) and np.isfinite(value)):
            raise TypeError(f"{name} must be a finite number or None, got {value!r}")
    lo = float(data.min())
    hi = float(data.max())
    if vmin is None:
        vmin = 0.0 if lo >= 0 else lo
    if vmax is None:
        vmax = hi if hi > vmin else vmin + 1.0
    if not vmax > vmin:
        raise ValueError(f"vmax must be greater than vmin, got vmin={vmin}, vmax={vmax}")
    if cmap is not None and not isinstance(cmap, (str, Colormap)):
        raise TypeError(
            "cmap must be a matplotlib colour map (a name or a matplotlib.colors.Colormap) "
            f"or None, got {type(cmap).__name__}"
        )
    if isinstance(cmap, str) and cmap not in matplotlib.colormaps:
        raise ValueError(f"cmap must name a matplotlib colour map, got {cmap!r}")
    power = cmap is None and lo >= 0

    def draw(theme, narrow, managed):
        return _draw_heatmaps(
            data,
            xlabel,
            ylabel,
            titles,
            figsize,
            cmap,
            power,
            vmin,
            vmax,
            colorbar_label,
            xticklabels,
            yticklabels,
            suptitle,
            theme,
            narrow,
            managed,
        )

    return _drawn(draw)


#: Named ticks a narrow figure may put two panels a row with: at most this many keys (or
#: queries), each named in at most two characters (a letter, a digit), staggered on two lines.
STAGGER_MAX_TICKS, STAGGER_MAX_CHARS = 24, 2
#: Staggered names are drawn up to this size (pt), larger than TICK_PT: at 9 pt a capital
#: letter was about 8 CSS px tall on a 390-px phone (chapter 10's heads, a cold read), at
#: 10.5 pt about 10 px.
STAGGER_PT = 10.5


def _stagger_pt(panel_w: float, n_keys: int, labels) -> float:
    """The size (pt) of staggered names in a panel ``panel_w`` in wide: two cells per name on
    a line, less 1.5 pt between neighbours, hold the widest name (measured in the default
    font); never under TICK_PT, never over STAGGER_PT."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    measure, prop = TextToPath(), FontProperties(size=10)
    names = {str(t) for named in labels if named is not None for t in named if str(t)}
    em = max((measure.get_text_width_height_descent(t, prop, False)[0] / 10 for t in names),
             default=1.0)  # fmt: skip
    fits = (2 * panel_w * 72 / max(n_keys, 1) - 1.5) / max(em, 0.3)
    return min(STAGGER_PT, max(TICK_PT, fits))


def _stagger(xticklabels, yticklabels, n_keys: int, n_queries: int) -> bool:
    """Whether named ticks fit two panels a row on a phone when every other one is moved one
    line down (x) or one label left (y): few, and each at most two characters."""
    named = [t for t in (xticklabels, yticklabels) if t is not None]
    return (
        bool(named)
        and max(n_keys, n_queries) <= STAGGER_MAX_TICKS
        and all(len(str(t)) <= STAGGER_MAX_CHARS for labels in named for t in labels)
    )


def _sparse(labels) -> bool:
    """Tick labels that name a few rows only (the rest blank), each in a few characters:
    they fit a small panel without staggering ("0", "1", ... every tenth query)."""
    shown = [str(t) for t in labels if str(t)]
    return len(shown) <= 8 and all(len(t) <= 4 for t in shown)


def _narrow_columns(n_panels: int, n_keys: int, n_queries: int, titles, xticklabels,
                    yticklabels) -> int:  # fmt: skip
    """Panels per row in a narrow (phone) figure: two small panels side by side when there
    are at least three (or two maps of at most 12 x 12), their titles are short and their
    keys are few, sparsely named or named by short labels (staggered, :func:`_stagger`), else
    one: a phone screen then holds them all."""
    flat = (
        [t for row in titles for t in row] if titles is not None and _is_grid(titles) else titles
    )
    short = flat is None or all(len(str(t)) <= 16 for t in flat)
    sparse = xticklabels is None and yticklabels is not None and _sparse(yticklabels)
    plain = xticklabels is None and (yticklabels is None or sparse) and n_keys <= 60
    fits = plain or _stagger(xticklabels, yticklabels, n_keys, n_queries)
    small = n_panels == 2 and max(n_keys, n_queries) <= 12
    return 2 if (n_panels >= 3 or small) and short and fits else 1


def _stagger_ticks(axis, pad: float) -> None:
    """Every other named tick of ``axis`` one label further out (``pad`` points more), so
    neighbours whose labels are wider than a cell never touch."""
    for k, tick in enumerate(axis.get_major_ticks()):
        if k % 2:
            tick.set_pad(tick.get_pad() + pad)


def _draw_heatmaps(
    data,
    xlabel,
    ylabel,
    titles,
    figsize,
    cmap,
    power,
    vmin,
    vmax,
    colorbar_label,
    xticklabels,
    yticklabels,
    suptitle,
    theme,
    narrow,
    managed,
):
    """Draw show_heatmaps' figure for ``theme``; ``narrow``: re-laid for a phone's column
    (panels wrapped into fewer per row, the colour bar under them)."""
    rows, cols, n_queries, n_keys = data.shape
    panels = [(i, j) for i in range(rows) for j in range(cols)]  # row by row
    grid_titles = None
    if titles is not None:
        grid_titles = [list(t) for t in titles] if _is_grid(titles) else [list(titles)] * rows
    staggered, tick_pt = False, TICK_PT
    if narrow and figsize[0] > NARROW_WIDTH:
        ncols = _narrow_columns(len(panels), n_keys, n_queries, titles, xticklabels, yticklabels)
        staggered = ncols > 1 and (xticklabels is not None or yticklabels is not None)
        staggered = staggered and not (xticklabels is None and _sparse(yticklabels))
        nrows = -(-len(panels) // ncols)
        wide_w = max(0.6, (figsize[0] - 1.3) / cols)
        wide_h = max(0.6, (figsize[1] - 0.8) / rows)
        aspect = min(1.1, max(0.45, wide_h / wide_w))
        panel_w = (NARROW_WIDTH - 1.0) / ncols
        # keys under every row of panels: named ones turned upright, or on two lines when
        # staggered; index ticks when two panels share a row
        ticks = 0.3 if staggered else 0.25 if xticklabels is not None else 0.2 if ncols > 1 else 0
        if staggered:
            tick_pt = _stagger_pt(panel_w, n_keys, (xticklabels, yticklabels))
            ticks += 2 * (tick_pt - TICK_PT) / 72  # two lines of larger names
            if yticklabels is not None:  # every other row's names a line (1.1 em) apart
                aspect = max(aspect, n_queries * 1.1 * tick_pt / 144 / panel_w)
        height = nrows * (aspect * panel_w + 0.5 + ticks) + 0.5 + 0.6 + (0.4 if suptitle else 0)
        size, where, bar = (
            (NARROW_WIDTH, height),
            [(k // ncols, k % ncols) for k in range(len(panels))],
            "bottom",
        )
        panel_width = panel_w
    else:
        ncols, nrows = cols, rows
        size, where, bar = figsize, panels, "right"
        panel_width = max(0.6, (figsize[0] - 1.3) / cols)
    # a title longer than its panel is wide wraps (about 0.55 em per character)
    chars = max(10, int(panel_width * 72 / (0.55 * TITLE_PT)))
    fig = _new_figure(size, managed)
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    colours = theme.weights_cmap() if cmap is None else cmap
    norm = theme.weights_norm(vmin, vmax) if power else Normalize(vmin, vmax)
    image = None
    used = set()
    for (i, j), (r, c) in zip(panels, where):
        ax = axes[r, c]
        used.add((r, c))
        image = ax.imshow(
            data[i, j], cmap=colours, norm=norm, interpolation="nearest", aspect="auto"
        )
        _integer_ticks(ax.xaxis, n_keys)
        _integer_ticks(ax.yaxis, n_queries)
        if xticklabels is not None:
            ax.set_xticks(
                range(n_keys), [str(t) for t in xticklabels], rotation=0 if staggered else 90
            )
            if staggered:
                _stagger_ticks(ax.xaxis, 1.15 * tick_pt)  # one line down
        if yticklabels is not None:
            ax.set_yticks(range(n_queries), [str(t) for t in yticklabels])
            if staggered:
                _stagger_ticks(ax.yaxis, 0.7 * tick_pt * STAGGER_MAX_CHARS)  # one label left
        if c == 0:
            ax.set_ylabel(ylabel)
        if grid_titles is not None:
            ax.set_title(wrap_title(str(grid_titles[i][j]), chars))
    for r in range(nrows):
        for c in range(ncols):
            if (r, c) not in used:
                axes[r, c].remove()
    # the x label: once under a row of several panels (one label per panel would collide);
    # in a narrow figure (the colour bar below), under each column's bottom panel
    bottom = {}
    for r, c in used:
        bottom[c] = max(bottom.get(c, r), r)
    for c, r in bottom.items():
        axes[r, c].xaxis.set_tick_params(labelbottom=True)
    # named keys, or a phone's panels two a row with the colour bar below: every panel names
    # its keys, so that none is read off a panel further down
    if xticklabels is not None or (bar == "bottom" and ncols > 1):
        for r, c in used:
            axes[r, c].xaxis.set_tick_params(labelbottom=True)
    if ncols > 1 and bar == "right":
        fig.supxlabel(xlabel)
    elif ncols > 1:  # a phone's panels side by side, the colour bar below them: one label,
        # from the left edge of the first column's bottom panel (one per column collided:
        # chapter 9's "encoder positions (keys)encoder positions (keys)")
        axes[bottom[0], 0].set_xlabel(xlabel, loc="left")
    else:
        for c, r in bottom.items():
            axes[r, c].set_xlabel(xlabel)
    live = [axes[r, c] for r, c in sorted(used)]
    if bar == "right":
        colorbar = fig.colorbar(image, ax=live, shrink=0.8)
    else:
        colorbar = fig.colorbar(image, ax=live, location="bottom", shrink=0.8, aspect=30)
    if power:  # ticks spread along the bar (a power law crowds evenly spaced values at its top)
        colorbar.set_ticks(_spread_ticks(norm, vmin, vmax))
        # the scale is not linear: the bar says so, and why (small weights stay visible)
        note = power_note(theme.gamma)
        if bar == "bottom":  # flat under the panels: the note's clause on the label's line,
            # so that no line is wider than a phone's column (chapter 6's map: 410 px)
            head, _, tail = note.partition(": ")
            colorbar.set_label(f"{colorbar_label} {head}:\n{tail}")
        else:
            colorbar.set_label(f"{colorbar_label}\n{note}")
    else:
        colorbar.set_label(colorbar_label)
    if suptitle:
        fig.suptitle(suptitle)
    _finish(fig, theme)
    if staggered:  # after the theme's sizes: the staggered names larger (STAGGER_PT)
        for ax in live:
            for axis in ("x", "y"):
                if (xticklabels if axis == "x" else yticklabels) is not None:
                    ax.tick_params(axis=axis, labelsize=tick_pt)
    return fig


def power_note(gamma: float) -> str:
    """The line a power-law colour bar carries under its label."""
    return f"(colour ∝ value^{gamma:g}: small values stand out)"


def _spread_ticks(norm, vmin: float, vmax: float, gap: float = 0.15) -> list[float]:
    """Round tick values between vmin and vmax, at least ``gap`` of the bar apart."""
    from matplotlib.ticker import MaxNLocator

    candidates = [
        v for v in MaxNLocator(nbins=8).tick_values(vmin, vmax) if vmin <= v <= vmax + 1e-12
    ]
    kept = []
    for v in reversed(candidates):  # from the top: the largest value is the one to name
        if not kept or float(norm(kept[-1])) - float(norm(v)) >= gap:
            kept.append(float(v))
    return sorted(kept)


def _is_grid(titles) -> bool:
    return len(titles) > 0 and all(
        isinstance(t, Sequence) and not isinstance(t, str) for t in titles
    )
