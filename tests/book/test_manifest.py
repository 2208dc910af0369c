"""The chapter manifest (scoringbook/manifest.py) against everything that lists chapters.

Fast and torch-free (a few seconds): it reads files, never imports a chapter's module, so a
forgotten entry fails here, named, before any notebook runs or the book is built. Held to the
manifest: ``_toc.yml``, ``chapters/*.md`` and ``.ipynb`` (headings, the Colab set-up cell,
exercises, trained and timed sections, the explorers each notebook saves), the chapter lists
of ``intro.md`` and ``README.md``, every module of ``scoringbook/`` (its ``chNN_`` prefix, the
builders the manifest names), the spread benchmark's chapters, and the files the "How to add"
sections of ARCHITECTURE.md name.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from scoringbook import manifest as M

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ROOT / "chapters"
BOOK = ROOT / "scoringbook"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
STEMS = [c.stem for c in M.CHAPTERS]


def _differ(what: str, have: list, want: list) -> str:
    missing = [x for x in want if x not in have]
    extra = [x for x in have if x not in want]
    return (
        f"{what}: missing {missing}, not in scoringbook/manifest.py {extra}"
        if missing or extra
        else f"{what}: same entries in another order: {have} vs the manifest's {want}"
    )


def _md_cells(stem: str) -> list[tuple[str, list[str], str]]:
    """(kind, tags, source) of each cell of a MyST chapter: code cells and the text between."""
    text = (CHAPTERS / f"{stem}.md").read_text(encoding="utf8")
    cells = []
    pattern = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```\s*$", re.S | re.M)
    at = 0
    for m in pattern.finditer(text):
        cells.append(("markdown", [], text[at : m.start()]))
        body = m.group(1)
        tags: list[str] = []
        if body.startswith("---\n"):  # a YAML front block
            head, _, body = body[4:].partition("\n---\n")
            tags = (yaml.safe_load(head) or {}).get("tags", [])
        else:
            while body.startswith(":"):
                line, _, body = body.partition("\n")
                if line.startswith(":tags:"):
                    tags = yaml.safe_load(line[len(":tags:") :])
        cells.append(("code", tags, body.strip("\n")))
        at = m.end()
    cells.append(("markdown", [], text[at:]))
    return cells


def _notebook(stem: str) -> dict:
    return json.loads((CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf8"))


def _defs(module: str) -> set[str]:
    tree = ast.parse((BOOK / f"{module}.py").read_text(encoding="utf8"))
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


# ----------------------------------------------------------------------------- the manifest
def test_the_manifest_is_consistent_and_imports_no_torch():
    assert "torch" not in sys.modules or "scoringbook.registry" in sys.modules, (
        "importing scoringbook.manifest must not import torch"
    )
    assert [c.number for c in M.CHAPTERS] == list(range(1, len(M.CHAPTERS) + 1)), (
        "scoringbook/manifest.py: chapters must be numbered 1, 2, ... in order"
    )
    for c in M.CHAPTERS:
        assert re.fullmatch(rf"{c.number:02d}_[a-z0-9_]+", c.stem), (
            f"chapter {c.number}: stem {c.stem!r} must start with {c.number:02d}_"
        )
    names = [e.name for e in M.explorers()]
    assert len(names) == len(set(names)), f"explorer names must be unique: {names}"
    for c in M.CHAPTERS:
        for e in c.explorers:
            assert e.module in c.modules, (
                f"explorer {e.name!r} (chapter {c.number}) is built by {e.module!r}, which "
                f"is not one of chapter {c.number}'s modules {c.modules}"
            )
        for name in c.not_called:
            module = name.split(".")[1]
            assert module in c.modules, f"not_called {name!r}: not a chapter {c.number} module"


# ----------------------------------------------------------------------------- pages
def test_toc_lists_every_chapter_once_in_order_and_only_the_declared_other_pages():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf8"))
    files = [toc["root"]]

    def walk(entries):
        for e in entries or []:
            if "file" in e:
                files.append(e["file"])
            walk(e.get("sections"))
            walk(e.get("chapters"))

    walk(toc.get("chapters"))
    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    files = [re.sub(r"\.(ipynb|md)$", "", f) for f in files]
    chapters = [f.removeprefix("chapters/") for f in files if f.startswith("chapters/")]
    others = [f for f in files if not f.startswith("chapters/")]
    assert chapters == STEMS, _differ("_toc.yml's chapters", chapters, STEMS)
    assert sorted(others) == sorted(M.OTHER_PAGES), _differ(
        "_toc.yml's other pages (manifest.OTHER_PAGES)", others, list(M.OTHER_PAGES)
    )
    assert toc["root"] == M.OTHER_PAGES[0], f"_toc.yml's root must be {M.OTHER_PAGES[0]!r}"
    for page in M.OTHER_PAGES:
        assert (ROOT / f"{page}.md").exists(), f"manifest.OTHER_PAGES: {page}.md is missing"


@pytest.mark.parametrize("suffix", [".md", ".ipynb"])
def test_every_chapter_file_is_in_the_manifest_and_back(suffix):
    stems = sorted(p.stem for p in CHAPTERS.glob(f"*{suffix}"))
    assert stems == sorted(STEMS), _differ(f"chapters/*{suffix}", stems, STEMS)


@pytest.mark.parametrize("c", M.CHAPTERS, ids=STEMS)
def test_the_chapter_heading_is_its_number_and_title(c):
    text = (CHAPTERS / f"{c.stem}.md").read_text(encoding="utf8")
    headings = re.findall(r"^# (.+)$", text, re.M)
    assert headings and headings[0] == f"{c.number}. {c.title}", (
        f"{c.md}: its first heading must be '# {c.number}. {c.title}' (the manifest); "
        f"got {headings[:1]}"
    )


def test_intro_lists_every_chapter_in_order():
    text = (ROOT / "intro.md").read_text(encoding="utf8")
    rows = [int(n) for n in re.findall(r"^\| (\d+) \|", text, re.M)]
    want = [c.number for c in M.CHAPTERS]
    assert rows == want, _differ("intro.md's table of chapters (rows '| N | ...')", rows, want)


def test_readme_lists_every_chapter_in_order():
    text = (ROOT / "README.md").read_text(encoding="utf8")
    listed = re.findall(r"^\d+\. `(\d\d_[a-z0-9_]+)` — ", text, re.M)
    assert listed == STEMS, _differ("README.md's chapter list ('N. `stem` — ...')", listed, STEMS)
    numbers = [int(n) for n in re.findall(r"^(\d+)\. `\d\d_[a-z0-9_]+` — ", text, re.M)]
    assert numbers == [c.number for c in M.CHAPTERS], f"README.md: numbered {numbers}"


# ----------------------------------------------------------------------------- chapter cells
@pytest.mark.parametrize("c", M.CHAPTERS, ids=STEMS)
def test_the_colab_setup_cell_is_the_manifests(c):
    code = [(tags, src) for kind, tags, src in _md_cells(c.stem) if kind == "code"]
    assert code, f"{c.md}: no code cell"
    tags, src = code[0]
    assert src == M.COLAB_SETUP, (
        f"{c.md}: the first code cell must be manifest.COLAB_SETUP exactly (copy it from "
        "scoringbook/manifest.py)"
    )
    assert "remove-cell" in tags, f"{c.md}: the Colab set-up cell must be tagged remove-cell"
    first = next(x for x in _notebook(c.stem)["cells"] if x["cell_type"] == "code")
    assert "".join(first["source"]).strip("\n") == M.COLAB_SETUP, (
        f"chapters/{c.notebook}: the first code cell is not manifest.COLAB_SETUP"
    )


@pytest.mark.parametrize("c", M.CHAPTERS, ids=STEMS)
def test_exercises_and_the_trained_and_timed_sections_are_where_the_manifest_says(c):
    text = (CHAPTERS / f"{c.stem}.md").read_text(encoding="utf8")
    has = re.search(r"^## Exercises?$", text, re.M) is not None
    assert has == c.exercises, (
        f"{c.md}: manifest says exercises={c.exercises}, the chapter "
        f"{'has' if has else 'has no'} '## Exercises' section"
    )
    for what, section in (("trained", c.trained), ("timed", c.timed)):
        if section is None:
            continue
        for heading in (section.start, section.end):
            if heading is not None:
                assert f"\n{heading}\n" in text, (
                    f"{c.md}: the {what} section's heading {heading!r} (manifest) is not in it"
                )


@pytest.mark.parametrize("c", M.CHAPTERS, ids=STEMS)
def test_the_notebook_saves_exactly_the_manifests_explorers(c):
    """What the book publishes is the notebooks' saved widget state: every explorer saved
    there must be in the manifest (so PUBLISHED and the browser's TRAINED include it), and
    every explorer of the manifest must be saved."""
    nb = _notebook(c.stem)
    states = nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    saved = [
        m["state"]["name"]
        for m in states.values()
        if m.get("state", {}).get("name") and "spec" in m["state"] and "data" in m["state"]
    ]
    want = [e.name for e in c.explorers]
    assert sorted(saved) == sorted(want), _differ(f"chapters/{c.notebook}'s saved explorers",
                                                  saved, want)  # fmt: skip


# ----------------------------------------------------------------------------- modules
def test_every_module_is_a_chapters_or_declared_shared():
    modules = sorted(p.stem for p in BOOK.glob("*.py"))
    for m in modules:
        prefix = re.match(r"ch(\d\d)_", m)
        if prefix:
            n = int(prefix.group(1))
            owner = next((c for c in M.CHAPTERS if c.number == n), None)
            assert owner is not None, f"scoringbook/{m}.py: there is no chapter {n}"
            assert m in owner.modules, (
                f"scoringbook/{m}.py is not in chapter {n}'s modules {owner.modules} "
                "(scoringbook/manifest.py)"
            )
        else:
            assert m in M.SHARED_MODULES, (
                f"scoringbook/{m}.py: a module without a chNN_ prefix must be listed in "
                "manifest.SHARED_MODULES (or be named for its chapter)"
            )
    for c in M.CHAPTERS:
        for m in c.modules:
            assert m.startswith(f"ch{c.number:02d}_"), (
                f"chapter {c.number}'s module {m!r} must be named ch{c.number:02d}_..."
            )
            assert (BOOK / f"{m}.py").exists(), f"chapter {c.number}: scoringbook/{m}.py missing"
    for m in M.SHARED_MODULES:
        assert (BOOK / f"{m}.py").exists(), f"manifest.SHARED_MODULES: scoringbook/{m}.py missing"


@pytest.mark.parametrize("e", M.explorers(), ids=[e.name for e in M.explorers()])
def test_the_builders_the_manifest_names_exist(e):
    defs = _defs(e.module)
    want = [e.declaration] + ([e.run] if e.run else [])
    if e.kind != M.TRAINED:
        want.append(f"{e.name}_explorer")
    missing = [f for f in want if f not in defs]
    assert not missing, f"explorer {e.name!r}: scoringbook/{e.module}.py defines no {missing}"


def test_the_spread_benchmark_measures_trained_chapters():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import spread_trained
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    trained = [c.stem for c in M.CHAPTERS if c.trained]
    assert set(spread_trained.MEASURED_HERE) <= set(trained), (
        f"benchmarks/spread_trained.py MEASURED_HERE {spread_trained.MEASURED_HERE}: not "
        f"chapters with a trained section {trained}"
    )


# ----------------------------------------------------------------------------- docs
def _how_to(title: str) -> str:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf8")
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert m, f"ARCHITECTURE.md has no '## {title}' section"
    return m.group(1)


@pytest.mark.parametrize("title", ["How to add a chapter", "How to add a scoring function"])
def test_the_files_how_to_sections_name_exist(title):
    section = _how_to(title)
    paths = re.findall(r"`([\w./-]+/[\w.-]+|[\w-]+\.(?:py|md|yml|toml|js|ipynb))`", section)
    assert paths, f"ARCHITECTURE.md '{title}' names no file"
    for p in paths:
        pattern = p.replace("NN", "[0-9][0-9]").replace("_x", "_*")
        found = list(ROOT.glob(pattern)) if any(ch in pattern for ch in "*[") else [ROOT / p]
        assert found and all(f.exists() for f in found), (
            f"ARCHITECTURE.md '{title}' names {p!r}, which does not exist"
        )
