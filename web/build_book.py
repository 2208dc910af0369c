"""`jupyter-book build`, with Sphinx reading the pages on several processes.

Jupyter Book 1.x runs Sphinx on one process (its ``build_sphinx`` takes ``jobs`` but the CLI
never passes it). Reading a chapter executes it (``execute_notebooks: force``), so one process
runs the six chapters one after another. This passes ``jobs`` through: Sphinx's parallel read
splits the pages into one chunk per process, and myst-nb executes each chunk's notebooks in
its own process. Every extension the book uses declares itself parallel-read safe; if one did
not, Sphinx would warn and `-W` would fail the build.

Usage: python web/build_book.py [--jobs N] <jupyter-book build arguments>
(`make book` runs it with the machine's core count; `--jobs 1` is jupyter-book itself.)
"""

from __future__ import annotations

import functools
import os
import sys


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
    import jupyter_book.sphinx
    from jupyter_book.cli.main import main as jupyter_book

    # jupyter_book.cli.main imports build_sphinx from this module when it builds
    jupyter_book.sphinx.build_sphinx = functools.partial(
        jupyter_book.sphinx.build_sphinx, jobs=jobs
    )
    return jupyter_book(["build", *argv])  # exits with the build's status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
