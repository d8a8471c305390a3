"""What the SDK's ``tests/conftest.py`` does, with this project's public API: the pytest plugin
``sdk_tests`` loads in place of that file when it runs the SDK's tests with ``agents`` aliased.

The SDK's file sets its internals directly (a trace provider, ``_openai_shared``'s globals);
this one reaches the same state through public functions: the tests' span processor is the only
trace processor, each test starts with no spans and the OpenAI defaults unset, a default
``OPENAI_API_KEY`` is present, the OpenAI models refuse to be called unless a test is marked
``allow_call_model_methods``, and nothing may leave the machine (``network_guard``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from typing import Any

import pytest

from ..runtime.models import provider
from ..runtime.models.openai_chat import OpenAIChatCompletionsModel
from ..runtime.models.openai_responses import OpenAIResponsesModel
from ..runtime.run import set_default_agent_runner
from ..runtime.tracing import set_trace_processors
from .network_guard import block_network

__all__: list[str] = []

_PROXY_VARIABLES = ("ALL_PROXY", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "http_proxy")


def pytest_configure(config: pytest.Config) -> None:
    """The SDK's environment: no proxy, a placeholder API key."""
    for name in (*_PROXY_VARIABLES, "https_proxy"):
        os.environ.pop(name, None)
    os.environ.setdefault("OPENAI_API_KEY", "test_key")


def _span_processor() -> Any:
    """The SDK tests' in-memory span processor (their ``tests/testing_processor.py``)."""
    return importlib.import_module("tests.testing_processor").SPAN_PROCESSOR_TESTING


@pytest.fixture(scope="session", autouse=True)
def setup_span_processor() -> Iterator[None]:
    """Only the tests' processor receives traces."""
    set_trace_processors([_span_processor()])
    yield


@pytest.fixture(autouse=True)
def clear_span_processor() -> None:
    """Each test starts with no spans or traces recorded."""
    processor = _span_processor()
    processor.force_flush()
    processor.shutdown()
    processor.clear()


@pytest.fixture(autouse=True)
def clear_openai_settings() -> Iterator[None]:
    """Each test starts with the OpenAI defaults unset (key, client, API)."""
    saved = dict(provider._settings)
    provider._settings.update(api=None, client=None, key=None)
    provider._reset()
    yield
    provider._settings.update(saved)
    provider._reset()


@pytest.fixture(autouse=True)
def clear_default_runner() -> None:
    """Each test starts with a fresh default ``AgentRunner``."""
    set_default_agent_runner(None)


@pytest.fixture(autouse=True)
def disable_real_model_clients(monkeypatch: pytest.MonkeyPatch, request: Any) -> None:
    """The OpenAI models fail a test that calls them, unless it allows it; and no test may
    reach the network."""
    block_network(monkeypatch)
    if request.node.get_closest_marker("allow_call_model_methods"):
        return

    def refuse(*args: Any, **kwargs: Any) -> Any:
        pytest.fail("Real models should not be used in tests!")

    for model in (OpenAIResponsesModel, OpenAIChatCompletionsModel):
        monkeypatch.setattr(model, "get_response", refuse)
        monkeypatch.setattr(model, "stream_response", refuse)
