"""What tests need from the machine (bubblewrap, Chromium, ...). Missing, a test skips on a
developer's machine and fails under CI: `.ci/run` installs all of it, so a skip there would
hide a broken install step."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

__all__ = ["fail_or_skip", "needs", "needs_bwrap", "under_ci"]


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def fail_or_skip(message: str) -> NoReturn:
    """A prerequisite is missing: fail under CI, skip elsewhere."""
    if under_ci():
        pytest.fail(f"{message} (CI is set, so this fails instead of skipping)", pytrace=False)
    pytest.skip(message)


def needs(present: bool, what: str) -> pytest.MarkDecorator:
    """Skip when ``what`` is missing, except under CI (where the test runs, and fails)."""
    return pytest.mark.skipif(not present and not under_ci(), reason=f"needs {what}")


needs_bwrap = pytest.mark.bwrap
"""The test runs real bubblewrap: the ``bwrap`` mark, which also skips it where bubblewrap is
missing (and fails it under CI): tests/marks.py adds the skip to every test so marked."""
