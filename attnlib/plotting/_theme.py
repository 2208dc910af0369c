"""Light and dark themes of attnlib's figures, and the sizes of their text.

A figure is drawn for a light page (white, as matplotlib draws by default) or for a dark one
(the explorers' dark card). Both themes use the explorers' colour scale for attention weights
(attnlib/static/src/heatmap.js: light = matplotlib "Reds", dark = an "inferno"-like ramp from
the dark card's colour), so a static heatmap and an explorer on the same page paint one weight
in one colour. ``tests/library/test_plotting_variants.py``
(``test_heatmap_colours_run_along_the_scale``) checks the ramps.

Every text is at least :data:`SMALLEST_PT` points, every series colour keeps at least 3:1
contrast against the background (WCAG 1.4.11: lines are graphical objects a reader needs).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Theme", "LIGHT", "DARK", "THEMES", "series_colour", "contrast"]

#: The explorers' weight scale on a light page (attnlib/static/src/colours.js REDS:
#: matplotlib "Reds" sampled at 9 points from 0.05 to 1, so a zero weight is a step off white).
REDS = (
    "#ffede5",
    "#fdd3c1",
    "#fcaf93",
    "#fc8969",
    "#f96044",
    "#ea362a",
    "#c7171c",
    "#a10e15",
    "#67000d",
)
#: The explorers' weight scale on a dark page (colours.js INFERNO: matplotlib "inferno" sampled
#: at 17 points from 0.2 to 1; its darkest purples would merge with the dark card).
DARK_STOPS = (
    "#420a68", "#57106e", "#6a176e", "#7f1e6c", "#932667", "#a82e5f", "#bc3754", "#cc4248",
    "#dd513a",
    "#ea632a", "#f37819", "#f98e09", "#fca50a", "#fbbe23", "#f6d746", "#f1ef75", "#fcffa4",
)  # fmt: skip
#: A weight v in [vmin, vmax] takes the colour at u ** GAMMA along the stops,
#: u = (v - vmin) / (vmax - vmin) (colours.js GAMMA: a 0.05 weight >= 1.5:1 against the dark card).
GAMMA = 0.6

#: Text sizes in points. Nothing is smaller than SMALLEST_PT: at 390 px wide a figure drawn
#: NARROW_WIDTH wide (a narrow variant) shows it at >= 10.5 CSS px.
SMALLEST_PT = 9.0
TICK_PT = 9.0
LABEL_PT = 10.0
LEGEND_PT = 9.0
TITLE_PT = 10.5
SUPTITLE_PT = 11.0


@dataclass(frozen=True)
class Theme:
    """Colours of one page mode.

    Attributes:
        name: ``"light"`` or ``"dark"``.
        background: figure and axes face colour.
        foreground: text, axes frame and ticks; a series declared black takes it.
        muted: secondary text and arrows (>= 4.5:1 on the background).
        grid: grid lines.
        points: training points and other grey markers (>= 3:1 on the background).
        weights: colour stops of the weight scale, small to large.
        gamma: the scale's power law (a weight's position along the stops is u ** gamma).
    """

    name: str
    background: str
    foreground: str
    muted: str
    grid: str
    points: str
    weights: tuple[str, ...]
    gamma: float = GAMMA

    def weights_cmap(self):
        """The weight scale as a matplotlib colour map (256 steps between the stops)."""
        from matplotlib.colors import LinearSegmentedColormap

        return LinearSegmentedColormap.from_list(
            f"attnlib_weights_{self.name}", self.weights, N=256
        )

    def weights_norm(self, vmin: float, vmax: float):
        """The power-law normalisation of the weight scale between ``vmin`` and ``vmax``."""
        from matplotlib.colors import PowerNorm

        return PowerNorm(self.gamma, vmin=vmin, vmax=vmax, clip=True)


#: A light page: matplotlib's own look (white, black text).
LIGHT = Theme(
    "light",
    background="#ffffff",
    foreground="#000000",
    muted="#4d4d4d",
    grid="#e3e3e3",
    points="#8a8a8a",
    weights=REDS,
)
#: A dark page: the explorers' dark card (explorer.css --attn-bg / --attn-fg / --attn-muted).
DARK = Theme(
    "dark",
    background="#1b1b1f",
    foreground="#e6e6e6",
    muted="#b5b5b5",
    grid="#3a3a40",
    points="#8e8e96",
    weights=DARK_STOPS,
)
THEMES = {"light": LIGHT, "dark": DARK}


def _luminance(colour) -> float:
    from matplotlib.colors import to_rgb

    c = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in to_rgb(colour)]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def contrast(a, b) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def series_colour(colour, theme: Theme, minimum: float = 3.0) -> str:
    """``colour`` as drawn in ``theme``: black becomes the theme's text colour; any other
    colour is mixed towards the text colour just enough (steps of 2 %) to reach ``minimum``
    contrast against the background, so its hue stays recognisable."""
    from matplotlib.colors import to_hex, to_rgb

    if to_hex(colour) == "#000000":
        return theme.foreground
    rgb, target = to_rgb(colour), to_rgb(theme.foreground)
    for step in range(51):
        t = step / 50
        mixed = tuple((1 - t) * a + t * b for a, b in zip(rgb, target))
        if contrast(mixed, theme.background) >= minimum:
            return to_hex(mixed)
    return theme.foreground  # pragma: no cover - the text colour itself passes
