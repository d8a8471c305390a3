"""Fixtures for runtime tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jupyter_agents.runtime import retry as retry_module
from jupyter_agents.runtime.models import provider
from tests.runtime.session_servers import kind, make, pg_url, redis_url

__all__ = ["kind", "make", "pg_url", "redis_url"]  # fixtures for the session tests


@pytest.fixture(autouse=True)
def _fresh_openai_defaults() -> Iterator[None]:
    """Each test starts with the module-level OpenAI defaults unset."""
    saved = dict(provider._settings)
    provider._settings.update(api=None, client=None, key=None)
    provider._reset()
    yield
    provider._settings.update(saved)
    provider._reset()


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The delays the run waits before each retry, recorded instead of slept."""
    recorded: list[float] = []

    async def record(delay: float) -> None:
        recorded.append(delay)

    monkeypatch.setattr(retry_module, "wait", record)
    return recorded
