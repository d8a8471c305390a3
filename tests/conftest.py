"""Shared fixtures. The autouse guard keeps every test off the network (loopback only); the
hooks below mark each test by what it needs or costs, and refuse a process a test starts without
the mark it needs (tests/marks.py). Every test, and every kernel or server it starts, sees an
empty Jupyter configuration folder: the person's own AGENTS.md, skills or settings never reach
a test."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents.testing.network_guard import block_network

from . import marks


def pytest_configure(config: pytest.Config) -> None:
    marks.install()
    os.environ["JUPYTER_CONFIG_DIR"] = tempfile.mkdtemp(prefix="ja-test-config-")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # A file whose path marks -m deselects is not even imported (Ray alone takes seconds).
    return True if marks.ignored(collection_path, config) else None


@pytest.hookimpl(tryfirst=True)  # before -m deselects by these marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    marks.apply(config, items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with marks.running(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with marks.running(item):
        return (yield)


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
    # set_default_openai_client(client) makes the client's key the one traces would be exported
    # to OpenAI with (use_for_tracing): process state that one test would leave to the next.
    monkeypatch.setattr("jupyter_agents.runtime.tracing_key._key", [None])


@pytest.fixture
def openai_server() -> Any:
    """A started local OpenAI-compatible server (see jupyter_agents.testing.server)."""
    from jupyter_agents.testing.server import fake_openai_server

    with fake_openai_server() as server:
        yield server
