"""What the SDK's ``tests/conftest.py`` does, with this project's public API: the pytest plugin
``sdk_tests`` loads in place of that file when it runs the SDK's tests with ``agents`` aliased.

The SDK's file sets its internals directly (a trace provider, ``_openai_shared``'s globals);
this one reaches the same state through public functions: the tests' span processor is the only
trace processor, each test starts with no spans and the OpenAI defaults unset, a default
``OPENAI_API_KEY`` is present, the OpenAI models refuse to be called unless a test is marked
``allow_call_model_methods``, and nothing may leave the machine (``network_guard``).

The SDK's sandbox agents are not here (a missing feature), but ``test_agent_tracing.py`` imports
``agents.sandbox.runtime.SandboxRuntime`` at its top for one test: the plugin puts a placeholder
module there (``SANDBOX_PLACEHOLDER``) whose ``SandboxRuntime`` raises when used, so that file's
other tests run. The product has no ``agents.sandbox``; the one test counts as the missing
feature (``_sdk_report.MISSING_FEATURE_TESTS``).
"""

from __future__ import annotations

import importlib
import os
import sys
import types
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


SANDBOX_PLACEHOLDER = "agents.sandbox.runtime"
"""The module the plugin stands in for (with its package ``agents.sandbox``)."""


class SandboxRuntime:
    """The placeholder for the SDK's sandbox runtime: any use raises (a missing feature)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            "the SDK's sandbox agents (agents.sandbox) are not in jupyter_agents: a missing feature"
        )

    def __class_getitem__(cls, item: Any) -> type[SandboxRuntime]:
        return cls


def _sandbox_placeholder() -> None:
    """``agents.sandbox`` (no names; its other submodules are missing) and
    ``agents.sandbox.runtime`` holding only the placeholder ``SandboxRuntime``."""
    if SANDBOX_PLACEHOLDER in sys.modules:
        return
    package = types.ModuleType("agents.sandbox", "Placeholder: the SDK's sandbox agents.")
    package.__path__ = []
    runtime = types.ModuleType(SANDBOX_PLACEHOLDER, "Placeholder: the SDK's sandbox agents.")
    runtime.SandboxRuntime = SandboxRuntime  # type: ignore[attr-defined]
    package.runtime = runtime  # type: ignore[attr-defined]
    sys.modules["agents.sandbox"] = package
    sys.modules[SANDBOX_PLACEHOLDER] = runtime


def pytest_configure(config: pytest.Config) -> None:
    """The SDK's environment: no proxy, a placeholder API key, the sandbox placeholder."""
    for name in (*_PROXY_VARIABLES, "https_proxy"):
        os.environ.pop(name, None)
    os.environ.setdefault("OPENAI_API_KEY", "test_key")
    _sandbox_placeholder()


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
