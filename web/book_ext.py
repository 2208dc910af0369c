"""Sphinx extension of the book (listed under ``sphinx.local_extensions`` in _config.yml).

1. Renders myst-nb's hidden-code toggles without the fixed
   ``aria-label="Toggle hidden content"`` on their ``<summary>``: the label hid the visible
   text from assistive technology and made the accessible name differ from what is shown
   (axe-core: label-content-name-mismatch). The summary's name is now its visible text.

2. Folds runs of hidden code under one toggle (``FoldCodeRuns``). myst-nb folds each hidden
   cell under its own toggle, so hidden cells in a row were a stack of identical buttons (two
   of them above most chapters' first picture). Where two or more toggles would sit together,
   with nothing a reader sees between them, their hidden parts move under ONE ``<details>``
   whose words say what it holds ("Show the code (2 cells)", "Show the code and output
   (3 cells)"); outputs that were shown stay shown, where they were::

       <div class="cell attn-folded docutils container">
         <details class="admonition hide attn-folded above-input"><summary>...</summary>
           <div class="cell attn-folded-cell tag_hide-input ...">  (one per cell: its hidden
             <div class="cell_input ...">...</div>                    input and/or output)
           </div> ...
         </details></div>

   A cell with nothing left once its hidden part has moved is removed (its ids go with the
   part). A cell tagged ``solution`` (an exercise's folded solution) is never grouped: opening
   the attempt before it must not show the answer. tests/browser/reading/test_folded_code.py
   checks every page.

   Every other toggle (one cell's hidden part) gets the same words in place of myst-nb's
   "Show code cell source / outputs / content": "Show the code", "Show the output", "Show the
   code and output" ("Hide ..." once open), so the book has one vocabulary for folded code.

3. Writes attnlib's figures with their variants. A figure displayed with
   :func:`attnlib.plotting.book_figures` active carries, in its output's metadata
   (``metadata["image/png"]["attnlib"]``), the same figure drawn for a dark page and, when
   the figure is too wide to read on a phone, re-laid for a narrow column (see
   attnlib.plotting). Each is written to ``_images/`` like the main PNG and the output
   becomes::

       <a class="image-reference only-light" href="LIGHT-WIDE.png">     (tap: the bare PNG)
         <picture class="attn-figure only-light">
           <source media="(max-width: 599.98px)" srcset="LIGHT-NARROW.png" width height
                   data-label-scale="...">
           <img class="only-light" src="LIGHT-WIDE.png" width height loading="lazy"
                data-label-scale="..." alt="...">
         </picture></a>
       <a class="image-reference only-dark" ...> the same with the dark PNGs </a>

   The page shell (web/theme/attnbook) shows ``.only-light`` in light mode (and without
   JavaScript) and ``.only-dark`` in dark mode; the other one is ``display: none``, so its
   lazy image is never fetched. The ``<source>`` is picked by the browser from the viewport
   width, so a phone fetches the narrow PNG and a desktop the wide one, never both.
   ``data-label-scale`` is the figure's smallest text size (CSS px) per CSS px of the
   picture's width: the browser tests multiply it by the width a figure is shown at.

4. Gives the page template ``attn_first_figure`` (``html-page-context``): when the page's
   first picture is such a figure (no explorer and no other image before it), its PNGs per
   mode, each with the media query it shows under (``first_figure_preload``). The head's
   colour-mode script (web/theme/attnbook/layout.html) preloads the mode's PNGs: a lazy image
   on the first screen is fetched only once layout finds it (the figure, the largest paint of
   chapters 1, 6 and 9 on a phone, came at 1.1-2.3 s on Lighthouse's mobile profile). Only the
   PNG the ``<picture>`` shows is fetched: the media queries are the ``<source>``'s and its
   complement. A page that opens on an explorer preloads nothing (its first figure may be
   screens further down).
"""

from __future__ import annotations

import hashlib
import math
from binascii import a2b_base64
from html import escape

from docutils import nodes
from myst_nb.core.render import NbElementRenderer
from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput
from sphinx.transforms.post_transforms import SphinxPostTransform

#: the MIME type of a widget view (an explorer) in a notebook's outputs
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: The smallest text a figure may show (CSS px); tests/browser/reading/test_figures.py checks it.
MIN_LABEL_PX = 9.0
#: Below 992 px (no side columns) the page shell's text column is the viewport less 2 x 16 px.
PAGE_PADDING = 32


def narrow_media(wide_label_scale: float) -> str:
    """The media query under which a figure shows its narrow variant: every viewport below
    600 px (phones), and up to 992 px while the wide picture, shrunk to the column, would
    show text under MIN_LABEL_PX. (From 992 px on the column is 624-736 px wide, in the page
    shell web/theme/attnbook.)"""
    needed = MIN_LABEL_PX / wide_label_scale + PAGE_PADDING
    width = min(992, max(600, math.ceil(needed)))
    return f"(max-width: {width - 0.02:.2f}px)"


def visit_hide_cell_input(self, node) -> None:
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append("<summary>\n")
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def _is_cell(node) -> bool:
    return isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"


def _shows_nothing(node) -> bool:
    """Whether ``node`` renders nothing a reader sees: a comment, an anchor without text, an
    output box with nothing in it."""
    if isinstance(node, (nodes.comment, nodes.target)):
        return not node.astext().strip()
    if isinstance(node, nodes.container) and node.get("nb_element") == "cell_code_output":
        return not node.children
    return False


def fold_words(cells: int, with_output: bool, with_code: bool = True) -> tuple[str, str]:
    """A code toggle's words, closed and open: what it holds and, for more than one cell, how
    many ("Show the code", "Show the output", "Show the code and output (3 cells)"). The one
    vocabulary of every hidden part of a code cell in the book, grouped or alone."""
    what = (
        "the code and output"
        if with_code and with_output
        else "the output"
        if with_output
        else "the code"
    )
    count = f" ({cells} cells)" if cells > 1 else ""
    return f"Show {what}{count}", f"Hide {what}{count}"


def _holds(hide) -> tuple[bool, bool]:
    """(code, output): whether a hidden part holds a cell's source, its output."""
    kinds = {c.get("nb_element") for c in hide.children if isinstance(c, nodes.container)}
    return "cell_code_source" in kinds, "cell_code_output" in kinds


def name_toggle(hide) -> None:
    """Gives a toggle of one cell (myst-nb's "Show code cell source / outputs / content")
    the book's words for what it holds (fold_words)."""
    code, output = _holds(hide)
    hide["prompt_show"], hide["prompt_hide"] = fold_words(1, output, code or not output)


#: the class myst-nb gives a code cell tagged ``solution`` (an exercise's folded solution)
SOLUTION_TAG = "tag_solution"


def fold_code_runs(parent: nodes.Element) -> int:
    """Groups, among ``parent``'s children, each run of two or more hidden parts of code cells
    (myst-nb's HideCodeCellNode) with nothing visible between them under one toggle (see the
    module's docstring). Returns the number of groups made."""
    # the parent's flow, in order: ("H", cell, hide node), ("V", ...) for what a reader sees;
    # what shows nothing is left out (and stays where it is)
    flow = []
    for child in parent.children:
        if _is_cell(child) and SOLUTION_TAG in child["classes"]:
            # an exercise's solution keeps its own toggle: opening the attempt before it (or
            # the code after it) must not show it; no group reaches across it
            flow.append(("V", child, None))
        elif _is_cell(child):
            for part in child.children:
                if isinstance(part, HideCodeCellNode):
                    flow.append(("H", child, part))
                elif not _shows_nothing(part):
                    flow.append(("V", child, part))
        elif not _shows_nothing(child):
            flow.append(("V", child, None))
    runs, run = [], []
    for item in [*flow, ("V", None, None)]:
        if item[0] == "H":
            run.append(item)
            continue
        if len(run) >= 2:
            runs.append(run)
        run = []
    for run in runs:
        first_cell, first_hide = run[0][1], run[0][2]
        shown_before = any(
            kind == "V"
            and cell is first_cell
            and first_cell.index(part) < first_cell.index(first_hide)
            for kind, cell, part in flow
        )
        cells = list(dict.fromkeys(cell for _, cell, _ in run))
        held = [_holds(hide) for _, _, hide in run]
        with_code = any(code for code, _ in held)
        with_output = any(output for _, output in held)
        show, hide_words = fold_words(len(cells), with_output, with_code)
        toggle = HideCodeCellNode(prompt_show=show, prompt_hide=hide_words)
        toggle["classes"] += ["attn-folded", "above-input"]
        for cell in cells:
            part = nodes.container(
                classes=["cell", "attn-folded-cell"]
                + [c for c in cell["classes"] if c.startswith("tag_")]
            )
            for _, c, hide in run:
                if c is cell:
                    part.extend(list(hide.children))
                    hide.children = []
                    cell.remove(hide)
            if all(_shows_nothing(c) for c in cell.children):
                part["ids"] = list(cell["ids"])
                cell["ids"] = []
            toggle += part
        group = nodes.container(classes=["cell", "attn-folded"])
        group += toggle
        at = parent.index(first_cell) + (1 if shown_before else 0)
        parent.insert(at, group)
        for cell in cells:
            if all(_shows_nothing(c) for c in cell.children):
                parent.remove(cell)
    return len(runs)


class FoldCodeRuns(SphinxPostTransform):
    """Runs after myst-nb's HideInputCells (priority 199) has wrapped the hidden parts."""

    default_priority = 205
    formats = ("html",)

    def run(self, **kwargs) -> None:
        parents = {}
        for hide in list(self.document.findall(HideCodeCellNode)):
            cell = hide.parent
            if _is_cell(cell) and cell.parent is not None:
                parents.setdefault(id(cell.parent), cell.parent)
        for parent in parents.values():
            fold_code_runs(parent)
        # every toggle left of one cell speaks the groups' words
        for hide in self.document.findall(HideCodeCellNode):
            if "attn-folded" not in hide["classes"]:
                name_toggle(hide)


class figure_variants(nodes.General, nodes.Element):
    """A figure and its variants: its children are the image nodes (main first), so Sphinx
    copies every PNG to _images/; the HTML visitor writes them as two <picture> elements."""


_render_image = NbElementRenderer.render_image


def render_image(self, data):
    """myst-nb's image output, plus the variants attnlib put in the output's metadata."""
    out = _render_image(self, data)
    extra = (
        data.output_metadata.get(data.mime_type, {}).get("attnlib")
        if data.mime_type == "image/png"
        else None
    )
    if not extra or len(out) != 1 or not isinstance(out[0], nodes.image):
        return out
    main = out[0]
    main["classes"].append("no-scaled-link")  # figure_variants writes the link itself
    node = figure_variants(label_scale=float(extra["label_scale"]), variants=[])
    node += main
    for v in extra["variants"]:
        png = a2b_base64(v["png"])
        uri = self.write_file(
            [f"{hashlib.sha256(png).hexdigest()}.png"], png, overwrite=False, exists_ok=True
        )
        image = nodes.image(uri=uri, alt=main.get("alt", ""), classes=["no-scaled-link"])
        node += image
        node["variants"].append(
            {
                "theme": v["theme"],
                "layout": v["layout"],
                "width": int(v["width"]),
                "height": int(v["height"]),
                "label_scale": float(v["label_scale"]),
            }
        )
    return [node]


def _px(value) -> int:
    """An image node's width or height ("911" or "911px") in CSS px."""
    return round(float(str(value).removesuffix("px")))


def _image_url(builder, image: nodes.image) -> str:
    """Where the page being written finds ``image``: its copy in _images/, relative to the page."""
    uri = image["uri"]
    if uri in builder.images:
        import posixpath
        import urllib.parse

        return posixpath.join(builder.imgpath, urllib.parse.quote(builder.images[uri]))
    return uri


def figure_pictures(builder, node) -> dict:
    """The pictures a figure_variants node is written as: {theme: {"src": the wide PNG,
    "width", "height", "label_scale", and, with a narrow variant, "narrow": its PNG, "media":
    the media query it shows under, "narrow_width", "narrow_height", "narrow_label_scale"}},
    the themes "light" (or "" when there is no dark variant: one picture for both modes) and
    "dark", in that order (the order they are written)."""
    # (Sphinx wraps a sized image in a link to itself unless it has class no-scaled-link)
    main, *images = [c[0] if isinstance(c, nodes.reference) else c for c in node.children]
    found = {(v["theme"], v["layout"]): (img, v) for img, v in zip(images, node["variants"])}
    wide = {
        "light": (
            main,
            {
                "width": _px(main["width"]),
                "height": _px(main["height"]),
                "label_scale": node["label_scale"],
            },
        )
    }
    if ("dark", "wide") in found:
        wide["dark"] = found[("dark", "wide")]
    out = {}
    for theme, (img, v) in wide.items():
        pic = {
            "src": _image_url(builder, img),
            "width": v["width"],
            "height": v["height"],
            "label_scale": v["label_scale"],
        }
        if (theme, "narrow") in found:
            nimg, nv = found[(theme, "narrow")]
            pic.update(
                narrow=_image_url(builder, nimg),
                media=narrow_media(node["label_scale"]),
                narrow_width=nv["width"],
                narrow_height=nv["height"],
                narrow_label_scale=nv["label_scale"],
            )
        out[theme if "dark" in wide else ""] = pic
    return out


def visit_figure_variants(self, node) -> None:
    first = node.children[0]
    main = first[0] if isinstance(first, nodes.reference) else first
    alt = escape(main.get("alt", ""), quote=True)
    for theme, pic in figure_pictures(self.builder, node).items():
        cls = f"only-{theme}" if theme else ""
        href = pic["src"]
        self.body.append(
            f'<a class="reference internal image-reference attn-figure-link {cls}" href="{href}">'
            f'<picture class="attn-figure {cls}">'
        )
        if "narrow" in pic:
            self.body.append(
                f'<source media="{pic["media"]}" srcset="{pic["narrow"]}" '
                f'width="{pic["narrow_width"]}" height="{pic["narrow_height"]}" '
                f'data-label-scale="{pic["narrow_label_scale"]:.5f}" />'
            )
        self.body.append(
            f'<img class="{cls}" alt="{alt}" src="{href}" width="{pic["width"]}" '
            f'height="{pic["height"]}" data-label-scale="{pic["label_scale"]:.5f}" loading="lazy" '
            'decoding="async" /></picture></a>\n'
        )
    raise nodes.SkipNode


def _is_explorer(node) -> bool:
    """A widget view (myst-nb writes it as a raw <script>): an explorer, drawn there later."""
    return isinstance(node, nodes.raw) and WIDGET_VIEW in node.astext()


def first_figure(doctree):
    """The page's first figure_variants node when it is the page's first picture (no explorer
    and no other image before it), else None."""
    for node in doctree.findall(
        lambda n: isinstance(n, (figure_variants, nodes.image)) or _is_explorer(n)
    ):
        return node if isinstance(node, figure_variants) else None
    return None


def first_figure_preload(pictures: dict) -> dict:
    """What the head's colour-mode script (web/theme/attnbook/layout.html) preloads for a page
    whose first picture is a figure written as ``pictures`` (figure_pictures): per mode
    ("light", "dark"), the PNGs with the media each is shown under, [[url, media or ""], ...].
    The narrow PNG under its media query, the wide one under its complement, so a reader's
    browser fetches exactly the one its <picture> shows."""
    out = {}
    for mode in ("light", "dark"):
        pic = pictures.get(mode) or pictures.get("")
        if pic is None:  # a dark variant without a light one: not written by attnlib
            continue
        if "narrow" in pic:
            out[mode] = [
                [pic["narrow"], pic["media"]],
                [pic["src"], f"not all and {pic['media']}"],
            ]
        else:
            out[mode] = [[pic["src"], ""]]
    return out


def _page_context(app, pagename, templatename, context, doctree) -> None:
    """``attn_first_figure`` for the page template: first_figure_preload of the page's first
    figure, when the page's first picture is one; else None."""
    node = first_figure(doctree) if doctree is not None else None
    context["attn_first_figure"] = (
        first_figure_preload(figure_pictures(app.builder, node)) if node is not None else None
    )


def setup(app):
    app.setup_extension("myst_nb")
    app.add_node(
        HideCodeCellNode, override=True, html=(visit_hide_cell_input, depart_HideCellInput)
    )
    app.add_node(figure_variants, html=(visit_figure_variants, None))
    app.add_post_transform(FoldCodeRuns)
    app.connect("html-page-context", _page_context)
    NbElementRenderer.render_image = render_image
    return {"parallel_read_safe": True, "parallel_write_safe": True}
