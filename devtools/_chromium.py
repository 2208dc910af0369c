"""Shared by every browser test: where Chromium is, how to launch it, and the skip rule.

Locally a browser test skips, saying what is missing; with CI=true it fails instead, so
nothing the browser tests check can silently drop out of a CI run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path(
    "/usr/bin/chromium"
)  # Debian's package; Playwright's own download does not work here
# Flags that keep Chromium quiet on a closed network (no background requests).
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
