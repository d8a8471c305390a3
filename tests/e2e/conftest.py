"""The browser tests' shared fixture: one JupyterLab server and Chromium per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .lab import Session, expecting_session


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    """JupyterLab with the extension, and Chromium; ``expect`` waits up to 30 s."""
    with expecting_session() as s:
        yield s
