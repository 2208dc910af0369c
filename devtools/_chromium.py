"""Shared by every browser test: where Chromium is, how to launch it, and the skip rule.

Locally a browser test skips, saying what is missing; with CI=true it fails instead, so
nothing the browser tests check can silently drop out of a CI run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Debian's chromium-headless-shell (Playwright's own download does not work here): the old
# headless mode, without the full browser's windowing and compositing machinery. It renders the
# pages with the same Blink as Debian's chromium (one source package, one version). Loading every
# book page once at 1280 x 900 light and once at 390 x 844 dark took 12.5 and 12.7 CPU-s with it
# against 37.0 and 40.2 with /usr/bin/chromium --headless (2026-11-28, issue 36; the browser
# tests are CPU-bound on two cores). .ci/run installs it where it is missing.
CHROMIUM = Path("/usr/bin/chromium-headless-shell")
# Flags that keep Chromium quiet on a closed network (no background requests). Playwright adds
# its own (chromiumSwitches: no background timers' throttling, no renderer backgrounding, its
# --disable-features list, headless, ...) before these; a --disable-features here would replace
# its list, not add to it. Tried for CPU on 2026-11-28 (issue 36), loading every book page once
# at 1280 x 900 light and at 390 x 844 dark, two rounds each, 37-43 CPU-s per round on a loaded
# machine: --renderer-process-limit=1 with site isolation off, site isolation off alone,
# --in-process-gpu, --num-raster-threads=1, --disable-renderer-accessibility with
# --disable-smooth-scrolling. None cut CPU beyond the rounds' own spread (+-3 s), so none is
# kept; nor does a device scale factor of 1 instead of 1.75 for the page-weight fixture's phone
# (25.2 against 26.3 CPU-s, the same bytes per page).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--metrics-recording-only",
]
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def unavailable(reason: str):
    """Skip the test locally, fail it with CI=true."""
    if IN_CI:
        pytest.fail(f"browser tests cannot run with CI=true: {reason}", pytrace=False)
    pytest.skip(f"browser tests skipped: {reason}")
