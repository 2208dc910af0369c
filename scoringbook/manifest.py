"""The book's chapters, listed once: the one place that says what each chapter is and has.

Everything that enumerates chapters or explorers reads :data:`CHAPTERS`: the registry
(:mod:`scoringbook.registry`), the tests (which explorers to build, which are computed in
the page, which a notebook saves, which sections of prose may type no trained number, what
the contract harness does not call), the browser fixtures (pages by name) and the spread
benchmark. ``tests/book/test_manifest.py`` holds ``_toc.yml``, ``chapters/*.md`` and
``.ipynb``, the chapter lists of ``intro.md`` and ``README.md``, the notebooks' saved
explorers and each module's chapter prefix to it, and names what is missing.

This module imports nothing but the standard library: reading it costs no torch import.

Kinds of explorer:

- ``stored``: every frame computed in Python when the notebook runs and saved in it;
- ``live``: the page computes each frame (:mod:`attnlib.widgets.live`);
- ``trained``: stored frames of a training run (the chapter's run, which another processor
  would not reproduce exactly: the browser compares the page with the saved frames).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

__all__ = [
    "STORED",
    "LIVE",
    "TRAINED",
    "KINDS",
    "Explorer",
    "Section",
    "Chapter",
    "CHAPTERS",
    "SHARED_MODULES",
    "OTHER_PAGES",
    "COLAB_SETUP",
    "chapter",
    "explorers",
    "explorer",
    "chapter_of",
]

STORED, LIVE, TRAINED = "stored", "live", "trained"
KINDS = (STORED, LIVE, TRAINED)


@dataclass(frozen=True)
class Explorer:
    """One explorer of a chapter.

    ``name`` is its name in the registry, in the saved widget state and in the page.
    ``module`` (a module of :mod:`scoringbook`) holds its builders: ``declaration``
    (default ``<name>_declaration``) returns its :class:`attnlib.widgets.Declaration`;
    with ``run`` set, it is called as ``declaration(run())`` (``run`` trains the chapter's
    model once). A stored or live explorer also has ``<name>_explorer`` (the widget).
    """

    name: str
    kind: str
    module: str
    declaration: str = ""
    run: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Explorer: kind must be one of {KINDS}; got {self.kind!r}")
        if not self.declaration:
            object.__setattr__(self, "declaration", f"{self.name}_declaration")


@dataclass(frozen=True)
class Section:
    """A stretch of a chapter's prose, from the heading ``start`` to ``end`` (None: to the
    end of the chapter), each a whole heading line as written in the ``.md``."""

    start: str
    end: str | None = None


@dataclass(frozen=True)
class Chapter:
    """One chapter.

    ``stem``: ``chapters/<stem>.md`` and ``.ipynb``; ``title``: its ``# N. Title`` heading
    without the number; ``modules``: the modules of :mod:`scoringbook` named for it
    (``chNN_*``); ``explorers``: in the order the chapter shows them; ``trained``: the
    sections whose numbers come from a training run (glued, never typed; claims checked);
    ``timed``: sections that glue timings (glued, never typed; no claim checked);
    ``typed``: numbers those sections may type, each with why it is not a measurement;
    ``not_called``: public callables the contract harness does not call, with why;
    ``exercises``: whether it ends with an ``## Exercises`` section.
    """

    number: int
    stem: str
    title: str
    modules: tuple[str, ...] = ()
    explorers: tuple[Explorer, ...] = ()
    trained: Section | None = None
    timed: Section | None = None
    typed: dict[str, str] = field(default_factory=dict)
    not_called: dict[str, str] = field(default_factory=dict)
    exercises: bool = True

    @property
    def md(self) -> str:
        return f"chapters/{self.stem}.md"

    @property
    def notebook(self) -> str:
        return f"{self.stem}.ipynb"

    @property
    def page(self) -> str:
        """The built page, relative to the book's root: ``chapters/<stem>.html``."""
        return f"chapters/{self.stem}.html"


CHAPTERS: tuple[Chapter, ...] = (
    Chapter(
        1,
        "01_queries_keys_values",
        "Queries, keys and values",
        modules=("ch01_queries_keys_values", "ch01_exercises"),
        explorers=(
            Explorer("soft_lookup", LIVE, "ch01_queries_keys_values"),
            Explorer("softmax_temperature", STORED, "ch01_queries_keys_values"),
        ),
    ),
    Chapter(
        2,
        "02_attention_pooling",
        "Attention pooling by similarity: Nadaraya-Watson kernel regression",
        modules=("ch02_attention_pooling", "ch02_exercises"),
        explorers=(
            Explorer("kernel_regression", LIVE, "ch02_attention_pooling"),
            Explorer("bandwidth_training", STORED, "ch02_attention_pooling"),
        ),
        trained=Section("## Learning the bandwidth", "## Summary"),
    ),
    Chapter(
        3,
        "03_masked_softmax",
        "Masked softmax",
        modules=("ch03_masked_softmax",),
        explorers=(Explorer("masking", LIVE, "ch03_masked_softmax"),),
    ),
    Chapter(
        4,
        "04_additive_attention",
        "Additive attention",
        modules=("ch04_additive_attention",),
        explorers=(Explorer("additive_attention", STORED, "ch04_additive_attention"),),
    ),
    Chapter(
        5,
        "05_scaled_dot_product_attention",
        "Scaled dot-product attention",
        modules=("ch05_scaled_dot_product",),
        explorers=(
            Explorer("scoring_comparison", LIVE, "ch05_scaled_dot_product"),
            Explorer("scaling", STORED, "ch05_scaled_dot_product"),
        ),
        timed=Section("### Additive or dot product: speed", "## Summary"),
    ),
    Chapter(
        6,
        "06_scoring_family",
        "The family of scoring functions, and how to choose one",
        modules=("ch06_scoring_family", "ch06_explorers"),
        explorers=(
            Explorer("long_key", LIVE, "ch06_explorers"),
            Explorer("scaling_d", STORED, "ch06_explorers"),
        ),
        trained=Section("### A small reproduction", "## Summary"),
        timed=Section("## What each costs, and which to pick", "## Why √d, and not d or 1"),
        typed={"0.2": "the timing loop's budget per score (seconds), a setting"},
        not_called={
            "scoringbook.ch06_scoring_family.measure_costs": "starts a Python subprocess "
            "(importing torch) to measure peak memory: seconds per call; "
            "tests/book/test_ch06_scoring_family.py calls it validly and with bad sizes, d, "
            "repeats",
        },
    ),
    Chapter(
        7,
        "07_bahdanau_attention",
        "Bahdanau attention learns to align",
        modules=("ch07_bahdanau", "ch07_dates", "ch07_diagram", "ch07_exercises"),
        explorers=(
            Explorer("decode_step", STORED, "ch07_bahdanau"),
            Explorer(
                "alignment_playback",
                TRAINED,
                "ch07_bahdanau",
                declaration="chapter_playback_declaration",
            ),
        ),
        trained=Section("## Training"),
        typed={"2.56": "ln 13, the loss of guessing among 13 symbols"},
        not_called={
            "scoringbook.ch07_bahdanau.chapter_playback_declaration": "trains chapter 7's "
            "model (~10 s); its generator promise: tests/contract/test_fixes.py",
        },
    ),
    Chapter(
        8,
        "08_attention_and_length",
        "Why attention helps on longer inputs",
        modules=("ch08_lengths", "ch08_numbers"),
        explorers=(
            Explorer(
                "length_experiment",
                TRAINED,
                "ch08_lengths",
                declaration="chapter_length_declaration",
            ),
        ),
        trained=Section("## Longer inputs: accuracy against length"),
        typed={
            "0.02": "the length experiment's learning rate, a setting",
            "10.7": "d2l's section 10.7",
        },
        not_called={
            "scoringbook.ch08_lengths.chapter_length_declaration": "trains chapter 8's six "
            "number models (tens of seconds); tests/book/test_ch08_lengths.py runs it",
        },
    ),
    Chapter(
        9,
        "09_multi_head_attention",
        "Multi-head attention",
        modules=("ch09_diagram", "ch09_exercises"),
    ),
    Chapter(
        10,
        "10_induction_heads",
        "Heads that learn: induction heads",
        modules=("ch10_model", "ch10_scores", "ch10_multihead", "ch10_exercises"),
        explorers=(
            Explorer("heads_playback", TRAINED, "ch10_multihead", run="chapter_run"),
            Explorer("heads", TRAINED, "ch10_multihead", run="chapter_run"),
            Explorer("ablation", TRAINED, "ch10_multihead", run="chapter_run"),
        ),
        trained=Section("## A model that must look back", "## Summary"),
        typed={
            "3.0": "ln 20, the loss of guessing among 20 tokens",
        },
        not_called={
            "scoringbook.ch10_model.chapter_run": "trains chapter 10's model (~10 s); its "
            "tiny form, train(steps=2), is called and chapter 10's notebook runs it",
        },
    ),
)

#: Modules of :mod:`scoringbook` that serve more than one chapter (no ``chNN_`` prefix).
SHARED_MODULES = (
    "__init__",
    "manifest",
    "registry",
    "claims",
    "glue",
    "diagrams",
    "seq2seq",
    "_checking",
    "_common",
    "_date_vocab",
    "_pipeline_layouts",
    "_seq2seq_inputs",
)

#: Pages of the book that are not chapters, as ``_toc.yml`` names them (the root first).
OTHER_PAGES = ("intro", "closing", "notation")

#: The first code cell of every chapter (tagged ``remove-cell``): installs attnlib where it
#: is missing (Colab, Binder) and turns on the book's figures. The URL must match
#: ``repository.url`` in ``_config.yml``.
COLAB_SETUP = """\
# Setup for Colab/Binder: install attnlib (the book's library) if it is
# missing. Does nothing (and prints nothing) where attnlib is already
# installed, e.g. in the repo's venv. --no-deps keeps the platform's own torch,
# numpy, matplotlib and ipywidgets (our pins would replace Colab's torch). The
# URL must match repository.url in _config.yml.
import importlib.util

if importlib.util.find_spec("attnlib") is None:
    %pip install -q anywidget==0.11.0
    %pip install -q --no-deps "attnlib @ git+https://github.com/attnlib/attention-scoring-book@main"
    importlib.invalidate_caches()

# Figures as 2x PNGs, shown at their 1x size: crisp on high-DPI screens.
# attnlib's figures also carry a dark variant and, when wide, a phone-width
# one: the book shows them in dark mode and on narrow screens.
%config InlineBackend.figure_formats = ["retina"]
from attnlib.plotting.variants import book_figures

book_figures()"""


def chapter(key: int | str) -> Chapter:
    """The chapter with this number, or this stem (``"07_bahdanau_attention"``)."""
    if not isinstance(key, str):
        try:
            if isinstance(key, bool):
                raise TypeError
            key = operator.index(key)  # an int, a numpy integer or a 0-d integer tensor
        except TypeError:
            raise TypeError(
                f"chapter: key must be a chapter's number (int) or stem (str); got "
                f"{type(key).__name__} {key!r}"
            ) from None
    for c in CHAPTERS:
        if key in (c.number, c.stem):
            return c
    raise ValueError(
        f"chapter: key must be one of the numbers 1..{len(CHAPTERS)} or stems "
        f"{[c.stem for c in CHAPTERS]} (scoringbook/manifest.py); got {key!r}"
    )


def explorers(*kinds: str) -> list[Explorer]:
    """Every explorer of the book in reading order, or only those of the given kinds."""
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise ValueError(f"explorers: kinds must be among {KINDS}; got {bad}")
    return [e for c in CHAPTERS for e in c.explorers if not kinds or e.kind in kinds]


def explorer(name: str, *, fn: str = "explorer") -> Explorer:
    """The explorer named ``name``."""
    if not isinstance(name, str):
        raise TypeError(f"{fn}: name must be an explorer's name (str); got {type(name).__name__}")
    for e in explorers():
        if e.name == name:
            return e
    raise ValueError(
        f"{fn}: name must be one of the explorers {[e.name for e in explorers()]} "
        f"(scoringbook/manifest.py); got {name!r}"
    )


def chapter_of(name: str) -> Chapter:
    """The chapter that shows the explorer ``name``."""
    explorer(name, fn="chapter_of")
    return next(c for c in CHAPTERS if any(e.name == name for e in c.explorers))
