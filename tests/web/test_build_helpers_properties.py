"""The Python build helpers' smaller functions, against oracles written here:

- web/optimize_images.py ``shrink``: over generated images (few or many colours, with and
  without transparency), a palette version is returned only when it is smaller and faithful
  (mean error <= 1, 99.5th percentile <= 12 per channel, measured here with numpy on the
  decoded files); ``webp``: what it returns decodes to exactly the image's pixels;
- web/book_ext.py ``narrow_media``: the media query's width is the smallest whole px width
  from 600 on at which the wide figure, shrunk to the column (width - 32 px), shows its
  smallest text at MIN_LABEL_PX or more, at most 992; ``visit_hide_cell_input`` writes the
  prompts escaped (a prompt holding "<", "&" or quotes stays text); ``fold_code_runs``: over
  generated sections of paragraphs, anchors and code cells of every hidden shape, the reader
  meets the same shown text in the same order, and every toggle of the section hides what
  the toggles it replaces hid, with no two toggles left in a row; ``first_figure``: over
  generated documents of paragraphs, figures, other images, explorers and other raw HTML, the
  page's first picture when it is a figure, else None; ``first_figure_preload``: at any viewport
  width, in each mode, the preloads whose media match are exactly the PNG the figure's
  <picture> shows there (the oracle picks as a browser does: the narrow <source> when its media
  matches, else the <img>);
- web/build_book.py: a bad ``--jobs`` is refused naming the option and the value.
"""

from __future__ import annotations

import importlib.util
import io
import math
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from _depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"web_{name}", ROOT / "web" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


optimize = _load("optimize_images")
book_ext = _load("book_ext")
build_book = _load("build_book")

PROPS = settings(
    derandomize=True,
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def images(draw):
    h, w = draw(st.integers(1, 24)), draw(st.integers(1, 24))
    n_colours = draw(st.sampled_from([1, 2, 5, 40, 400]))
    alpha = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    palette = rng.integers(0, 256, size=(n_colours, 4), dtype=np.uint8)
    if not alpha:
        palette[:, 3] = 255
    pixels = palette[rng.integers(0, n_colours, size=(h, w))]
    mode = "RGBA" if alpha else "RGB"
    im = Image.fromarray(pixels if alpha else pixels[..., :3], mode)
    out = io.BytesIO()
    im.save(out, format="PNG")
    return out.getvalue()


def _pixels(data: bytes, mode: str) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert(mode), dtype=np.int16)


@PROPS
@given(images())
def test_palette_only_when_smaller_and_faithful(data):
    res = optimize.shrink(data)
    if res is None:
        return
    new, mean, p995 = res
    assert len(new) < len(data), "a palette PNG that is not smaller"
    assert Image.open(io.BytesIO(new)).mode == "P"
    mode = "RGBA" if Image.open(io.BytesIO(data)).mode == "RGBA" else "RGB"
    err = np.abs(_pixels(new, mode) - _pixels(data, mode))
    assert err.mean() <= optimize.MEAN_TOL and np.percentile(err, 99.5) <= optimize.P995_TOL
    assert math.isclose(err.mean(), mean, abs_tol=1e-9), (err.mean(), mean)


@PROPS
@given(images())
def test_webp_is_lossless(data):
    new = optimize.webp(data)
    if new is None:
        return
    assert len(new) < len(data)
    mode = "RGBA" if Image.open(io.BytesIO(data)).mode == "RGBA" else "RGB"
    assert np.array_equal(_pixels(new, mode), _pixels(data, mode))


@PROPS
@given(st.floats(1e-4, 1.0, allow_nan=False))
def test_narrow_media_width(scale):
    got = book_ext.narrow_media(scale)
    m = re.fullmatch(r"\(max-width: (\d+)\.98px\)", got)
    assert m, got
    width = int(m.group(1)) + 1
    want = 992
    for w in range(600, 993):
        if scale * (w - book_ext.PAGE_PADDING) >= book_ext.MIN_LABEL_PX - 1e-9:
            want = w
            break
    assert width == want, f"scale {scale}: {got}, want max-width {want - 0.02:.2f}px"


# ``book_ext.first_figure_preload``: what the head's colour-mode script preloads for a page that
# opens on a figure. The oracle is the browser's choice in a <picture>: the narrow <source> when
# its media query matches the viewport, else the <img>; the media queries of the preloads are
# evaluated here by their own reading of the two forms the build writes.
def _matches(media: str, width: float) -> bool:
    if media == "":
        return True
    m = re.fullmatch(r"(not all and )?\(max-width: ([\d.]+)px\)", media)
    assert m, f"a media query the oracle does not know: {media!r}"
    return (width <= float(m.group(2))) != bool(m.group(1))


@st.composite
def pictures(draw):
    """figure_pictures' shape: a light picture (theme "" when there is no dark one) and maybe
    a dark one, each maybe with a narrow variant under narrow_media(scale)."""
    media = book_ext.narrow_media(draw(st.floats(1e-3, 0.1)))
    themes = ["light", "dark"] if draw(st.booleans()) else [""]
    out = {}
    for theme in themes:
        pic = {"src": f"../_images/{theme or 'only'}-wide.png"}
        if draw(st.booleans()):
            pic.update(narrow=f"../_images/{theme or 'only'}-narrow.png", media=media)
        out[theme] = pic
    return out


@PROPS
@given(pictures(), st.lists(st.integers(240, 2000), min_size=1, max_size=8))
def test_first_figure_preload_fetches_exactly_the_picture_shown(pics, widths):
    got = book_ext.first_figure_preload(pics)
    assert set(got) == {"light", "dark"}, got
    for mode in ("light", "dark"):
        pic = pics.get(mode) or pics[""]
        edges = []
        if "media" in pic:
            edge = float(re.search(r"([\d.]+)px", pic["media"]).group(1))
            edges = [math.floor(edge), math.ceil(edge), edge]
        for width in [*widths, *edges]:
            shown = (
                pic["narrow"] if "narrow" in pic and _matches(pic["media"], width) else pic["src"]
            )
            fetched = [url for url, media in got[mode] if _matches(media, width)]
            assert fetched == [shown], (mode, width, pics, got)


def _doctree(kinds):
    """A document of sections holding, in order, the given kinds of node: a paragraph, an
    attnlib figure (figure_variants), another image, an explorer (a widget view's raw
    <script>), other raw HTML."""
    from docutils import nodes

    doc = nodes.section()
    made = []
    section = doc
    for k, kind in enumerate(kinds):
        if k % 3 == 0:  # now and then a nested section
            section = nodes.section()
            doc += section
        if kind == "para":
            node = nodes.paragraph(text=f"p{k}")
        elif kind == "figure":
            node = book_ext.figure_variants(label_scale=0.03, variants=[])
            node += nodes.image(uri=f"f{k}.png", width="100", height="50")
        elif kind == "image":
            node = nodes.image(uri=f"i{k}.png")
        elif kind == "explorer":
            node = nodes.raw(
                text=f'<script type="{book_ext.WIDGET_VIEW}">{{"model_id": "{k}"}}</script>',
                format="html",
            )
        else:
            node = nodes.raw(text="<div>not a picture</div>", format="html")
        out = nodes.container()
        out += node
        section += out
        made.append(node)
    return doc, made


@PROPS
@given(st.lists(st.sampled_from(["para", "figure", "image", "explorer", "html"]), max_size=10))
def test_first_figure_is_the_first_picture_when_a_figure(kinds):
    doc, made = _doctree(kinds)
    pictures = [
        (kind, node) for kind, node in zip(kinds, made) if kind in ("figure", "image", "explorer")
    ]
    want = pictures[0][1] if pictures and pictures[0][0] == "figure" else None
    assert book_ext.first_figure(doc) is want, (kinds, book_ext.first_figure(doc))


class Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = []
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        if data.strip():
            self.text.append(data)


PROMPT = st.lists(
    st.sampled_from(["Show", "<b>", "&amp;", "&", '"', "'", " ", "code"]), max_size=5
)


@PROPS
@given(PROMPT.map("".join), PROMPT.map("".join), st.lists(st.sampled_from(["a", "b-c"])))
def test_hidden_code_prompts_stay_text(show, hide, classes):
    out = type("Writer", (), {"body": []})()
    book_ext.visit_hide_cell_input(
        out, {"classes": classes, "prompt_show": show, "prompt_hide": hide}
    )
    p = Text()
    p.feed("".join(out.body))
    p.close()
    assert p.tags == ["details", "summary", "p", "p"], p.tags
    assert p.text == [t for t in (show, hide) if t.strip()], (show, hide, p.text)


@pytest.mark.parametrize("argv", [["--jobs"], ["--jobs", "x"], ["--jobs", "0"], ["--jobs", "-2"]])
def test_build_book_refuses_a_bad_jobs(argv):
    with pytest.raises(SystemExit) as e:
        build_book.main([*argv, "."])
    assert "--jobs" in str(e.value) and "build_book" in str(e.value), e.value


# ``book_ext.fold_code_runs`` over generated sections. A section is a run of paragraphs,
# invisible anchors and code cells shaped as myst-nb's HideInputCells leaves them: hidden input
# with no output, hidden input then a shown output, a wholly hidden cell (input and output), a
# shown input then a hidden output, a shown cell. Each piece of text is numbered. The reader's
# sequence of a section is what they meet in order: ("V", text) for text that shows, ("H",
# [texts]) for a toggle and what it hides; the oracle merges toggles with only invisible nodes
# between them, which must be exactly what the transformed section reads as.
CELL_SHAPES = ["in", "in+out", "all", "out", "shown", "para", "anchor", "solution"]


def _section(shapes):
    from docutils import nodes
    from myst_nb.sphinx_ import HideCodeCellNode

    counter = iter(range(10_000))

    def leaf(kind):
        box = nodes.container(nb_element=f"cell_code_{kind}")
        box += nodes.paragraph(text=f"{kind}{next(counter)}")
        return box

    def hide(*parts):
        h = HideCodeCellNode(prompt_show="Show code cell x", prompt_hide="Hide code cell x")
        h.extend(parts)
        return h

    section = nodes.section()
    for shape in shapes:
        if shape == "para":
            section += nodes.paragraph(text=f"para{next(counter)}")
            continue
        if shape == "anchor":
            section += nodes.target(ids=[f"t{next(counter)}"])
            continue
        if shape == "solution":  # a folded solution (hidden input, no output): never grouped
            cell = nodes.container(nb_element="cell_code", classes=["cell", "tag_solution"])
            cell["ids"] = [f"cell{next(counter)}"]
            box = nodes.container(nb_element="cell_code_source")
            box += nodes.paragraph(text=f"solution{next(counter)}")
            cell += hide(box)
            section += cell
            continue
        cell = nodes.container(nb_element="cell_code", classes=["cell", "tag_x"])
        cell["ids"] = [f"cell{next(counter)}"]
        cell.extend(
            {
                "in": lambda: [hide(leaf("source"))],
                "in+out": lambda: [hide(leaf("source")), leaf("output")],
                "all": lambda: [hide(leaf("source"), leaf("output"))],
                "out": lambda: [leaf("source"), hide(leaf("output"))],
                "shown": lambda: [leaf("source"), leaf("output")],
            }[shape]()
        )
        section += cell
    return section


def _reading(node):
    from docutils import nodes
    from myst_nb.sphinx_ import HideCodeCellNode

    out = []
    for child in node.children:
        if isinstance(child, HideCodeCellNode):
            out.append(("H", [p.astext() for p in child.findall(nodes.paragraph)]))
        elif isinstance(child, nodes.paragraph):
            out.append(("V", child.astext()))
        elif isinstance(child, nodes.Element):
            out.extend(_reading(child))
    return out


def _merged(reading):
    def solution(what):
        return any(t.startswith("solution") for t in what)

    out = []
    for kind, what in reading:
        if (
            kind == "H"
            and out
            and out[-1][0] == "H"
            and not solution(what)
            and not solution(out[-1][1])
        ):
            out[-1] = ("H", out[-1][1] + what)
        else:
            out.append((kind, list(what) if kind == "H" else what))
    return out


@PROPS
@given(st.lists(st.sampled_from(CELL_SHAPES), max_size=12))
def test_hidden_code_in_a_row_shares_one_toggle(shapes):
    from docutils import nodes
    from myst_nb.sphinx_ import HideCodeCellNode

    section = _section(shapes)
    ids_before = sorted(i for n in section.findall(nodes.Element) for i in n["ids"])
    want = _merged(_reading(section))
    made = book_ext.fold_code_runs(section)
    assert _reading(section) == want, (shapes, _reading(section), want)
    groups = [n for n in section.findall(HideCodeCellNode) if "attn-folded" in n["classes"]]
    assert made == len(groups), (made, section.pformat())
    assert sorted(i for n in section.findall(nodes.Element) for i in n["ids"]) == ids_before
    for group in groups:
        cells = [c for c in group.children if "attn-folded-cell" in c["classes"]]
        assert len(cells) == len(group.children) >= 2, group.pformat()
        with_output = any(p.astext().startswith("output") for p in group.findall(nodes.paragraph))
        want_words = "the code and output" if with_output else "the code"
        assert group["prompt_show"] == f"Show {want_words} ({len(cells)} cells)"
        assert group["prompt_hide"] == f"Hide {want_words} ({len(cells)} cells)"
    # no cell is left empty
    for cell in section.findall(nodes.container):
        assert cell.children or cell.get("nb_element") != "cell_code", section.pformat()


def test_an_exercise_solution_keeps_its_own_toggle():
    """Chapter 5's shape: the second attempt (wholly hidden), then the solution (hidden
    input): grouped, opening the attempt showed the answer (a cold read found it)."""
    section = _section(["in", "all", "solution", "in"])
    before = _reading(section)  # four toggles
    assert [k for k, _ in before] == ["H"] * 4 and before[2][1][0].startswith("solution")
    assert book_ext.fold_code_runs(section) == 1
    assert _reading(section) == [("H", before[0][1] + before[1][1]), before[2], before[3]]


def test_fold_code_runs_on_two_hidden_cells_then_an_output():
    """A worked example, the shape above most chapters' first picture: the imports (hidden, no
    output), then the picture's cell (hidden source, shown output)."""
    section = _section(["in", "in+out"])
    assert book_ext.fold_code_runs(section) == 1
    assert _reading(section) == [("H", ["source1", "source3"]), ("V", "output4")]


@pytest.mark.parametrize(
    "shape, words",
    [
        ("in", "the code"),
        ("in+out", "the code"),
        ("all", "the code and output"),
        ("out", "the output"),
        ("solution", "the code"),
    ],
)
def test_a_toggle_of_one_cell_says_what_it_holds(shape, words):
    """myst-nb's "Show code cell source / outputs / content" becomes the words a grouped toggle
    uses, without a count: one vocabulary for folded code (issue 39, a cold read)."""
    from myst_nb.sphinx_ import HideCodeCellNode

    section = _section([shape])
    assert book_ext.fold_code_runs(section) == 0
    (hide,) = section.findall(HideCodeCellNode)
    book_ext.name_toggle(hide)
    assert (hide["prompt_show"], hide["prompt_hide"]) == (f"Show {words}", f"Hide {words}")


def test_fold_words_counts_only_several_cells():
    assert book_ext.fold_words(1, False) == ("Show the code", "Hide the code")
    assert book_ext.fold_words(3, True) == (
        "Show the code and output (3 cells)",
        "Hide the code and output (3 cells)",
    )
    assert book_ext.fold_words(2, True, with_code=False) == (
        "Show the output (2 cells)",
        "Hide the output (2 cells)",
    )
