"""Sphinx extension of the book (listed under ``sphinx.local_extensions`` in _config.yml).

Renders myst-nb's hidden-code toggles ("Show code cell source") without the fixed
``aria-label="Toggle hidden content"`` on their ``<summary>``: the label hid the visible text
from assistive technology and made the accessible name differ from what is shown (axe-core:
label-content-name-mismatch). The summary's name is now its visible text.
"""

from __future__ import annotations

from html import escape

from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput


def visit_hide_cell_input(self, node) -> None:
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append("<summary>\n")
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def setup(app):
    app.setup_extension("myst_nb")
    app.add_node(
        HideCodeCellNode, override=True, html=(visit_hide_cell_input, depart_HideCellInput)
    )
    return {"parallel_read_safe": True, "parallel_write_safe": True}
