"""`jupyter-book build`, with Sphinx reading the pages on several processes.

Jupyter Book 1.x runs Sphinx on one process (its ``build_sphinx`` takes ``jobs`` but the CLI
never passes it). The book publishes the committed, executed notebooks (``execute_notebooks:
"off"``; nbval re-executes them in ``make test``), so reading a page is parsing it, but the
chapters' saved figures and widget states still make reading the heaviest part of the build.
This passes ``jobs`` through: Sphinx's parallel read splits the pages into one chunk per
process.

Sphinx reads in parallel only if every extension declares itself safe for it; one that does
not makes it warn (and `-W` fail the build). Jupyter Book always loads two that declare
nothing, and both are safe, so this declares them (and nothing else):

- `sphinx_multitoc_numbering` replaces Sphinx's `TocTreeCollector.assign_section_numbers`
  with one that numbers chapters across toctrees. That runs in the main process after the
  reads are merged; its only state is set on `builder-inited`, before any worker forks.
- `sphinx_jupyterbook_latex` adds nodes, config values and transforms that change only the
  document being read (or act only for the LaTeX builder); it keeps nothing in the
  environment that a worker would have to merge back.

Usage: python web/build_book.py [--jobs N] <jupyter-book build arguments>
(`make book` runs it with the machine's core count; `--jobs 1` is jupyter-book itself.)
"""

from __future__ import annotations

import functools
import os
import sys


def _declared_parallel_safe(setup):
    def declared(app):
        meta = setup(app) or {}
        return {**meta, "parallel_read_safe": True, "parallel_write_safe": True}

    return declared


def main(argv: list[str]) -> int:
    jobs = os.cpu_count() or 1
    if argv[:1] == ["--jobs"]:
        try:
            jobs = int(argv[1])
        except (IndexError, ValueError):
            raise SystemExit(f"build_book: --jobs takes a whole number; got {argv[1:2]}") from None
        if jobs < 1:
            raise SystemExit(f"build_book: --jobs must be at least 1; got {jobs}")
        argv = argv[2:]
    import sphinx_jupyterbook_latex
    import sphinx_multitoc_numbering

    for ext in (sphinx_multitoc_numbering, sphinx_jupyterbook_latex):
        ext.setup = _declared_parallel_safe(ext.setup)

    import jupyter_book.sphinx as book_sphinx
    from jupyter_book.cli.main import main as cli

    # jupyter_book.cli.main imports build_sphinx from that module when it builds
    book_sphinx.build_sphinx = functools.partial(book_sphinx.build_sphinx, jobs=jobs)
    return cli(["build", *argv])  # exits with the build's status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
