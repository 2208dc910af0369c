"""requirements.lock is requirements.txt resolved, and what the tests run on.

requirements.txt holds the direct requirements; ``make lock`` (pip-compile) resolves them into
requirements.lock, exact pins of every package ``make install`` puts in .venv, pip and
setuptools included, and records requirements.txt's sha256 in the lock's header. These tests
fail, naming ``make lock``, when the two disagree: a requirement missing from the lock or
locked at a version its specifier does not admit, a lock line that is not an exact pin, a
package pinned twice, or a requirements.txt edited since the lock was made. pyproject.toml's
dependencies must stay ranges (attnlib is a library) that admit the locked versions.

Each check takes its files as parameters; the ``*_fails_*`` tests run it on broken copies in a
temporary folder, so each check is seen failing.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ROOT / "requirements.txt"
LOCK = ROOT / "requirements.lock"
PYPROJECT = ROOT / "pyproject.toml"

HASH_LINE = re.compile(r"^# requirements\.txt sha256: ([0-9a-f]{64})$", re.MULTILINE)
FIX = "run `make lock`"


def _lines(path: Path):
    """(line number, requirement text) for each line that is not blank or a comment."""
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = raw.split(" #", 1)[0].strip()
        if text and not text.startswith("#"):
            yield number, text


def read_lock(lock: Path) -> tuple[dict[str, Version], list[str]]:
    """The lock's pins by canonical name, and its problems: a line that is not exactly
    ``name==version``, a package pinned twice, a local version label (``+cpu``)."""
    pins: dict[str, Version] = {}
    problems: list[str] = []
    for number, text in _lines(lock):
        where = f"{lock.name}:{number}: {text!r}"
        try:
            req = Requirement(text)
        except InvalidRequirement:
            problems.append(f"{where} is not a requirement, let alone an exact pin")
            continue
        specs = list(req.specifier)
        if (
            req.url
            or req.extras
            or req.marker
            or len(specs) != 1
            or specs[0].operator != "=="
            or "*" in specs[0].version
        ):
            problems.append(f"{where} is not an exact pin (name==version): {FIX}")
            continue
        version = Version(specs[0].version)
        if version.local:
            problems.append(
                f"{where} carries a local version label (+{version.local}), which no other "
                f"platform has; `make lock` drops it (=={version.public} still matches {version})"
            )
        name = canonicalize_name(req.name)
        if name in pins:
            problems.append(f"{where}: {name} is pinned twice: {FIX}")
        else:
            pins[name] = version
    return pins, problems


def requirement_problems(requirements: Path, lock: Path) -> list[str]:
    """Each requirement of requirements.txt is in the lock, at a version it admits."""
    pins, _ = read_lock(lock)
    problems = []
    for number, text in _lines(requirements):
        where = f"{requirements.name}:{number}: {text!r}"
        try:
            req = Requirement(text)
        except InvalidRequirement:
            problems.append(f"{where} is not a requirement this test can check against the lock")
            continue
        if req.marker is not None and not req.marker.evaluate():
            continue
        name = canonicalize_name(req.name)
        if name not in pins:
            problems.append(f"{where} has no exact pin in {lock.name}: {FIX}")
        elif not req.specifier.contains(pins[name], prereleases=True):
            problems.append(f"{where}, but {lock.name} pins {name}=={pins[name]}: {FIX}")
    return problems


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def hash_problems(requirements: Path, lock: Path) -> list[str]:
    """The lock records the sha256 of the requirements.txt it was made from, which is the
    current one (so an edit of requirements.txt without `make lock` fails)."""
    recorded = HASH_LINE.findall(lock.read_text(encoding="utf-8"))
    if len(recorded) != 1:
        return [
            f"{lock.name} records {len(recorded)} sha256 lines of {requirements.name} "
            f"('# requirements.txt sha256: ...'), not one: {FIX}"
        ]
    current = sha256_of(requirements)
    if recorded[0] != current:
        return [
            f"{requirements.name} changed since {lock.name} was made (sha256 "
            f"{recorded[0][:12]}... recorded, {current[:12]}... now): {FIX}"
        ]
    return []


def pyproject_problems(pyproject: Path, lock: Path) -> list[str]:
    """pyproject.toml's dependencies are ranges, not pins, and admit the locked versions;
    its build requirements (attnlib is built with the locked setuptools) are locked too."""
    meta = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    pins, _ = read_lock(lock)
    problems = []
    for kind, deps in (
        ("[project].dependencies", meta["project"].get("dependencies", [])),
        ("[build-system].requires", meta["build-system"].get("requires", [])),
    ):
        for dep in deps:
            req = Requirement(dep)
            where = f"{pyproject.name} {kind}: {dep!r}"
            if kind.startswith("[project]") and any(
                s.operator in ("==", "===") for s in req.specifier
            ):
                problems.append(
                    f"{where} pins one version; a library states the range it works with "
                    f"(the exact pins live in requirements.txt and requirements.lock)"
                )
                continue
            name = canonicalize_name(req.name)
            if name not in pins:
                problems.append(
                    f"{where} is not in {lock.name}: add it to requirements.txt, {FIX}"
                )
            elif not req.specifier.contains(pins[name], prereleases=True):
                problems.append(f"{where} does not admit the locked {name}=={pins[name]}")
    return problems


# --- the committed files ---------------------------------------------------------------------


def test_every_line_of_the_lock_is_one_exact_pin():
    pins, problems = read_lock(LOCK)
    assert not problems, "\n".join(problems)
    assert {"pip", "setuptools", "torch"} <= set(pins), "make install takes these from the lock"


def test_the_lock_holds_every_requirement_at_an_admitted_version():
    problems = requirement_problems(REQUIREMENTS, LOCK)
    assert not problems, "\n".join(problems)


def test_the_lock_was_made_from_the_current_requirements_txt():
    problems = hash_problems(REQUIREMENTS, LOCK)
    assert not problems, "\n".join(problems)


def test_pyproject_states_ranges_that_admit_the_locked_versions():
    problems = pyproject_problems(PYPROJECT, LOCK)
    assert not problems, "\n".join(problems)


def test_the_running_environment_has_the_locked_versions():
    # `make install` reinstalls from the lock when it is newer than .venv's stamp; a venv
    # installed some other way, or changed by hand since, fails here.
    pins, _ = read_lock(LOCK)
    wrong = []
    for name, version in sorted(pins.items()):
        try:
            installed = Version(importlib.metadata.version(name))
        except importlib.metadata.PackageNotFoundError:
            wrong.append(f"{name}=={version} is not installed")
            continue
        # ==2.13.0 admits the local build 2.13.0+cpu, as it does for pip
        if installed.public != version.public or (version.local and installed != version):
            wrong.append(f"{name}=={version} is locked, {installed} is installed")
    assert not wrong, "the environment is not requirements.lock's (make install):\n" + "\n".join(
        wrong
    )


# --- each check, failing on a broken copy ----------------------------------------------------


def _copies(tmp_path: Path, lock=None, requirements=None, pyproject=None):
    """Copies of the three files in tmp_path, each edited by the given function of its text."""
    out = []
    for source, edit in ((LOCK, lock), (REQUIREMENTS, requirements), (PYPROJECT, pyproject)):
        text = source.read_text(encoding="utf-8")
        if edit is not None:
            edited = edit(text)
            assert edited != text, f"the edit of {source.name} changed nothing"
            text = edited
        copy = tmp_path / source.name
        copy.write_text(text, encoding="utf-8")
        out.append(copy)
    return out


def _sub(pattern: str, new: str):
    return lambda text: re.sub(pattern, new, text, count=1, flags=re.MULTILINE)


def _only(problems: list[str], *fragments: str) -> None:
    assert len(problems) == 1, problems
    for fragment in fragments:
        assert fragment in problems[0], (fragment, problems[0])


def test_the_unbroken_copies_pass(tmp_path):
    lock, req, pyproject = _copies(tmp_path)
    assert read_lock(lock)[1] == []
    assert requirement_problems(req, lock) == []
    assert hash_problems(req, lock) == []
    assert pyproject_problems(pyproject, lock) == []


def test_a_lock_missing_a_requirement_fails(tmp_path):
    lock, req, _ = _copies(tmp_path, lock=_sub(r"^numpy==.*\n", ""))
    _only(
        requirement_problems(req, lock), "'numpy==", "has no exact pin in requirements.lock", FIX
    )


def test_a_lock_at_a_version_the_requirement_refuses_fails(tmp_path):
    lock, req, _ = _copies(tmp_path, lock=_sub(r"^numpy==.*$", "numpy==1.26.4"))
    _only(requirement_problems(req, lock), "requirements.lock pins numpy==1.26.4", FIX)


def test_a_lock_with_a_range_instead_of_a_pin_fails(tmp_path):
    lock, *_ = _copies(tmp_path, lock=_sub(r"^numpy==", "numpy>="))
    _only(read_lock(lock)[1], "'numpy>=", "is not an exact pin", FIX)


def test_a_lock_with_an_option_line_fails(tmp_path):
    lock, *_ = _copies(tmp_path, lock=lambda t: t + "--extra-index-url https://example.org\n")
    _only(read_lock(lock)[1], "--extra-index-url", "is not a requirement")


def test_a_lock_pinning_a_package_twice_fails(tmp_path):
    lock, *_ = _copies(tmp_path, lock=lambda t: t + "NumPy==1.26.4\n")
    _only(read_lock(lock)[1], "numpy is pinned twice", FIX)


def test_a_lock_with_a_local_version_label_fails(tmp_path):
    lock, *_ = _copies(tmp_path, lock=_sub(r"^torch==(.*)$", r"torch==\1+cpu"))
    _only(read_lock(lock)[1], "'torch==", "+cpu", "local version label")


def test_a_requirements_txt_edited_since_the_lock_fails(tmp_path):
    lock, req, _ = _copies(tmp_path, requirements=lambda t: t + "# a comment is an edit too\n")
    _only(hash_problems(req, lock), "requirements.txt changed since requirements.lock", FIX)


@pytest.mark.parametrize("hashes", [0, 2])
def test_a_lock_recording_no_or_two_hashes_fails(tmp_path, hashes):
    def edit(text):
        line = HASH_LINE.search(text).group(0) + "\n"
        return text.replace(line, line * hashes)

    lock, req, _ = _copies(tmp_path, lock=edit)
    _only(hash_problems(req, lock), f"records {hashes} sha256 lines", FIX)


def test_a_requirement_newer_than_the_lock_fails(tmp_path):
    # requirements.txt moved on, the lock was not remade: both the version check and the
    # hash catch it
    lock, req, _ = _copies(tmp_path, requirements=_sub(r"^numpy==.*$", "numpy==99.0"))
    _only(requirement_problems(req, lock), "'numpy==99.0'", FIX)
    _only(hash_problems(req, lock), "changed since", FIX)


def test_a_pyproject_pinning_a_dependency_fails(tmp_path):
    lock, _, pyproject = _copies(tmp_path, pyproject=lambda t: t.replace('"numpy>=', '"numpy=='))
    _only(pyproject_problems(pyproject, lock), "'numpy==", "pins one version")


def test_a_pyproject_range_refusing_the_locked_version_fails(tmp_path):
    lock, _, pyproject = _copies(
        tmp_path, pyproject=lambda t: t.replace('"torch>=2.1"', '"torch<2"')
    )
    _only(pyproject_problems(pyproject, lock), "'torch<2'", "does not admit the locked torch==")


def test_a_pyproject_dependency_missing_from_the_lock_fails(tmp_path):
    lock, _, pyproject = _copies(
        tmp_path, pyproject=lambda t: t.replace('"ipywidgets>=8"', '"ipywidgets>=8", "scipy>=1"')
    )
    _only(pyproject_problems(pyproject, lock), "'scipy>=1'", "is not in requirements.lock")


def test_a_build_requirement_the_lock_refuses_fails(tmp_path):
    lock, _, pyproject = _copies(
        tmp_path, pyproject=_sub(r'"setuptools>=[^"]*"', '"setuptools>=999"')
    )
    _only(pyproject_problems(pyproject, lock), "[build-system]", "'setuptools>=999'")
