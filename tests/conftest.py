"""Shared fixtures. The autouse guard keeps every test off the network (loopback only)."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_agents.testing.network_guard import block_network


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    block_network(monkeypatch)
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_DEFAULT_MODEL",
        "JUPYTER_AGENTS_OPENAI_API",
    ):
        monkeypatch.delenv(name, raising=False)
    # LiteLLM fetches its cost map (and tokenizers) from the internet unless told not to.
    monkeypatch.setenv("LITELLM_OFFLINE_MODE", "true")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
def openai_server() -> Any:
    """A started local OpenAI-compatible server (see jupyter_agents.testing.server)."""
    from jupyter_agents.testing.server import fake_openai_server

    with fake_openai_server() as server:
        yield server
