"""The import graph of attnlib and scoringbook, read from the source (fast, imports nothing).

Every ``import`` counts, at module level or inside a function (a late import hides a cycle,
it does not remove it). Layers, lowest first::

    attnlib (core: masking, scoring, attention, kernels, transformer, _validate, ...)
    < attnlib.plotting < attnlib.widgets < scoringbook (the book's machinery)

- no cycle among the modules of attnlib and scoringbook (beyond the exact list ``CYCLES``);
- no module imports one of a layer above it, except the lines of ``UPWARD``;
- no package imports another package's private names (a ``_module`` or a ``_name``), except
  today's in ``PRIVATE`` (kept exact: the test fails when one goes, so the list only shrinks);
- benchmarks import nothing from tests/;
- no room (a ``.py`` of attnlib/ or scoringbook/) is over 550 lines, except ``OVERSIZE``
  (kept exact too).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("attnlib", "scoringbook")
ROOM = 550

#: (importer, imported): the one upward import allowed. d2l's ``d2l.show_heatmaps`` is
#: ``attnlib.show_heatmaps``, resolved on first use (a module ``__getattr__``) so that
#: ``import attnlib`` does not load matplotlib.
UPWARD = {("attnlib", "attnlib.plotting")}

#: (importer, attnlib's private module it imports from): none. The book's figures are drawn
#: with the public figure kit (attnlib.plotting.kit); issue 38 replaced scoringbook's uses of
#: attnlib._validate, _rng and _checks with public names. The list is exact and only shrinks.
PRIVATE: set[tuple[str, str]] = set()

#: rooms over the limit today; kept exact (empty: every room is within the limit)
OVERSIZE: set[str] = set()

#: import cycles today; kept exact (empty: there are none)
CYCLES: list[list[str]] = []


def _layer(module: str) -> int:
    if module.startswith("scoringbook"):
        return 3
    if module.startswith("attnlib.widgets"):
        return 2
    if module.startswith("attnlib.plotting"):
        return 1
    return 0


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(module: str, path: Path) -> list[tuple[str, str, int]]:
    """(imported module, imported dotted name, line) for each import in ``module``."""
    is_pkg = path.name == "__init__.py"
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                out.append((alias.name, alias.name, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if is_pkg else module.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join(here + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                target = full if full in MODULES else base
                out.append((target, full, node.lineno))
    return out


def _graph() -> dict[str, set[str]]:
    return {
        m: {t for t, _, _ in _imports(m, p) if t in MODULES and t != m} for m, p in MODULES.items()
    }


def test_the_graph_is_read():
    # the reader finds the imports it must: without them the checks below would pass on nothing
    graph = _graph()
    assert "attnlib.masking" in graph["attnlib"]
    assert "scoringbook.seq2seq" in graph["scoringbook.ch07_dates"]
    assert "attnlib.plotting" in graph["attnlib"]  # the late import in a function counts


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    found = _cycles(_graph())
    assert found == CYCLES, (
        f"import cycles: {[c for c in found if c not in CYCLES]} (break them: a module imports "
        f"downward only); listed ones that are gone (remove them from CYCLES): "
        f"{[c for c in CYCLES if c not in found]}"
    )


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_from_a_layer_above_it():
    found = {
        (m, t)
        for m, p in MODULES.items()
        for t, _, _ in _imports(m, p)
        if t in MODULES and _layer(t) > _layer(m)
    }
    assert found == UPWARD, (
        f"upward imports not allowed: {sorted(found - UPWARD)}; "
        f"allowed ones that are gone (remove them from UPWARD): {sorted(UPWARD - found)}"
    )


def _private(name: str) -> str | None:
    """The dotted path up to the first private part (``attnlib._validate`` of
    ``attnlib._validate.describe``), or None when no part is private."""
    parts = name.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[: i + 1])
    return None


def test_no_package_imports_another_packages_private_names():
    found = set()
    for m, p in MODULES.items():
        for _target, full, _ in _imports(m, p):
            other = full.split(".")[0]
            if other in PACKAGES and other != m.split(".")[0] and _private(full):
                found.add((m, _private(full)))
    assert found == PRIVATE, (
        f"new imports of another package's private names: {sorted(found - PRIVATE)}; "
        f"listed ones that are gone (remove them from PRIVATE): {sorted(PRIVATE - found)}"
    )


def test_benchmarks_import_nothing_from_tests():
    # a test helper or a test folder (``from book.test_saved_state import ...``)
    helpers = {p.stem for p in (ROOT / "tests").rglob("*.py")} | {
        p.name for p in (ROOT / "tests").iterdir() if p.is_dir()
    }
    bad = []
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        text = path.read_text(encoding="utf8")
        if "tests" in {s.strip("\"' ") for s in text.split("/")} or '"tests"' in text:
            bad.append(f"{path.name}: puts tests/ on its path")
        for node in ast.walk(ast.parse(text)):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            for n in names:
                if n.split(".")[0] == "tests" or n.split(".")[0] in helpers:
                    bad.append(f"{path.name}:{node.lineno} imports {n}")
    assert not bad, bad


@pytest.mark.parametrize("pkg", PACKAGES)
def test_no_room_over_550_lines(pkg):
    big = {
        str(p.relative_to(ROOT))
        for p in (ROOT / pkg).rglob("*.py")
        if len(p.read_text(encoding="utf8").splitlines()) > ROOM
    }
    listed = {f for f in OVERSIZE if f.startswith(f"{pkg}/")}
    assert big == listed, (
        f"{pkg}: rooms over {ROOM} lines not listed: {sorted(big - listed)} (split by concept); "
        f"listed ones now within (remove them from OVERSIZE): {sorted(listed - big)}"
    )


def test_attnlib_holds_no_book_machinery():
    assert not (ROOT / "attnlib" / "book").exists(), "the book's machinery lives in scoringbook/"
    assert not [m for m in MODULES if m.startswith("attnlib") and "scoringbook" in str(
        [t for t, _, _ in _imports(m, MODULES[m])])], "attnlib imports scoringbook"  # fmt: skip
