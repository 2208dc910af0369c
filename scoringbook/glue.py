"""Glue a number from the run into the chapter's prose: :func:`glue`.

A trained number is a measurement: it differs by processor, thread count and library build,
so the chapters never type one. A cell computes it and glues its text under a name; the
prose inserts it with MyST's ``{glue}`name``` role (myst-nb reads the cell's output when it
builds the page), so the sentence and the table above it come from the same run.

This writes the output myst-nb's own ``myst_nb.glue(name, value, display=False)`` writes,
without importing myst-nb: a reader running the chapter on Colab has no myst-nb, and there
the call only leaves an invisible output.
"""

from __future__ import annotations

import re

from attnlib.domains import Str, declare, describe

__all__ = ["glue", "GLUE_PREFIX"]

#: The MIME prefix under which myst-nb finds glued outputs (``myst_nb.ext.glue``).
GLUE_PREFIX = "application/papermill.record/"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


# an identifier, one non-empty line: checked below
@declare(name=Str(what="an identifier (str)"), text=Str())
def glue(name: str, text: str) -> str:
    """Record ``text`` under ``name`` for the prose's ``{glue}`name``` role, and return it.

    Args:
        name: an identifier (letters, digits and ``_``, not starting with a digit), unique
            within the chapter.
        text: the text the prose shows, already formatted (``f"{acc:.3f}"``): a non-empty
            ``str`` of one line.

    Example::

        >>> glue("accuracy", f"{0.9876:.3f}")
        '0.988'
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(
            f"glue: name must be an identifier such as 'date_accuracy'; got {describe(name)}"
        )
    if not isinstance(text, str):
        raise TypeError(
            f"glue: text must be a str, formatted as the prose shows it (f'{{x:.2f}}'); "
            f"got {describe(text)}"
        )
    if not text.strip() or "\n" in text:
        raise ValueError(f"glue: text must be one non-empty line; got {text!r}")
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # not in IPython: nothing to record into
        return text
    if get_ipython() is not None:
        display(
            {GLUE_PREFIX + "text/plain": text},
            raw=True,
            metadata={"scrapbook": {"name": name, "mime_prefix": GLUE_PREFIX}},
        )
    return text
