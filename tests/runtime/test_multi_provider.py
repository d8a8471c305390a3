"""MultiProvider: a model name's prefix picks its provider (the run's default provider)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from jupyter_agents import (
    Agent,
    Model,
    ModelProvider,
    ModelRetryPolicy,
    MultiProvider,
    MultiProviderMap,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    UserError,
    set_default_openai_responses_transport,
)
from jupyter_agents.extensions.models.litellm_model import LitellmModel
from jupyter_agents.extensions.models.litellm_provider import LitellmProvider
from jupyter_agents.runtime._run.model_call import resolve_model
from jupyter_agents.testing import ScriptedModel


def test_litellm_names_become_litellm_models_without_the_prefix() -> None:
    model = MultiProvider().get_model("litellm/anthropic/claude-sonnet-4-5")
    assert isinstance(model, LitellmModel) and model.model == "anthropic/claude-sonnet-4-5"
    assert isinstance(LitellmProvider().get_model("gemini/gemini-2.5-flash"), LitellmModel)


@pytest.mark.parametrize(
    ("name", "sent"),
    [
        ("gpt-4.1", "gpt-4.1"),
        ("openai/gpt-4.1", "gpt-4.1"),
        ("meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B"),  # a vLLM name, sent whole
    ],
)
def test_other_names_go_to_the_openai_provider(name: str, sent: str) -> None:
    model = MultiProvider().get_model(name)
    assert isinstance(model, OpenAIResponsesModel) and model.model == sent


def test_prefix_modes_and_the_openai_settings() -> None:
    whole = MultiProvider(openai_prefix_mode="model_id", openai_use_responses=False)
    model = whole.get_model("openai/gpt-4.1")
    assert isinstance(model, OpenAIChatCompletionsModel) and model.model == "openai/gpt-4.1"
    with pytest.raises(UserError, match="Unknown model name prefix 'mistral'"):
        MultiProvider(unknown_prefix_mode="error").get_model("mistral/large")
    with pytest.raises(UserError, match="unknown_prefix_mode must be"):
        MultiProvider(unknown_prefix_mode="ignore")  # type: ignore[arg-type]


class Fixed(ModelProvider):
    def get_model(self, model_name: str | None) -> Model:
        return ScriptedModel(["hi"], name=f"fixed:{model_name}")


def test_a_provider_map_prefix_comes_first() -> None:
    mapping = MultiProviderMap()
    mapping.add_provider("litellm", Fixed())
    assert mapping.has_prefix("litellm") and list(mapping.get_mapping()) == ["litellm"]
    model = MultiProvider(provider_map=mapping).get_model("litellm/anthropic/claude")
    assert model.name == "fixed:anthropic/claude"  # type: ignore[attr-defined]
    mapping.remove_provider("litellm")
    assert not mapping.has_prefix("litellm")


def test_the_run_resolves_prefixed_names_and_the_default_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = Agent(name="a", model="litellm/anthropic/claude-sonnet-4-5")
    assert isinstance(resolve_model(agent, RunConfig()), LitellmModel)
    monkeypatch.setenv("OPENAI_DEFAULT_MODEL", "litellm/gemini/gemini-2.5-flash")
    model = resolve_model(Agent(name="b"), RunConfig())
    assert isinstance(model, LitellmModel) and model.model == "gemini/gemini-2.5-flash"


class Closing(ModelProvider):
    """A provider that counts its ``aclose`` calls (and can fail them)."""

    def __init__(self, model: Model | None = None, error: Exception | None = None) -> None:
        self.model = model or ScriptedModel(["done"])
        self.error = error
        self.closed = 0

    def get_model(self, model_name: str | None) -> Model:
        return self.model

    async def aclose(self) -> None:
        self.closed += 1
        if self.error is not None:
            raise self.error


@pytest.mark.parametrize("run_config", [None, {"tracing_disabled": True}])
async def test_a_provider_the_run_made_is_closed_when_it_ends(
    monkeypatch: pytest.MonkeyPatch, run_config: dict[str, object] | None
) -> None:
    closed: list[MultiProvider] = []

    async def record(provider: MultiProvider) -> None:
        closed.append(provider)

    monkeypatch.setattr(MultiProvider, "aclose", record)
    agent = Agent(name="a", model=ScriptedModel(["done"]))
    result = await Runner.run(agent, "hi", run_config=run_config)
    assert result.final_output == "done" and len(closed) == 1
    streamed = Runner.run_streamed(Agent(name="a", model=ScriptedModel(["done"])), "hi")
    async for _ in streamed.stream_events():
        pass
    assert len(closed) == 2


@pytest.mark.parametrize("as_dict", [False, True])
async def test_a_provider_you_pass_stays_open(as_dict: bool) -> None:
    provider = Closing(ScriptedModel(["one", "two"]))
    config = {"model_provider": provider} if as_dict else RunConfig(model_provider=provider)
    agent = Agent(name="a", model="any-name")
    assert (await Runner.run(agent, "1", run_config=config)).final_output == "one"
    assert (await Runner.run(agent, "2", run_config=config)).final_output == "two"
    assert provider.closed == 0


async def test_a_failure_to_close_is_logged_and_the_run_error_kept(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def fail(provider: MultiProvider) -> None:
        raise RuntimeError("close failed")

    monkeypatch.setattr(MultiProvider, "aclose", fail)
    broken = Agent(name="a", model=ScriptedModel([RuntimeError("run failed")]))
    config = {"model_retry": ModelRetryPolicy(max_attempts=1)}
    with caplog.at_level(logging.WARNING), pytest.raises(RuntimeError, match="run failed"):
        await Runner.run(broken, "hi", run_config=config)
    assert "Failed to close model provider created for run: close failed" in caplog.text


async def test_multi_provider_aclose_closes_each_provider_it_holds_once() -> None:
    failing, fine = Closing(error=RuntimeError("first")), Closing()
    mapping = MultiProviderMap()
    mapping.add_provider("a", failing)
    mapping.add_provider("b", fine)
    mapping.add_provider("c", fine)
    with pytest.raises(RuntimeError, match="first"):
        await MultiProvider(provider_map=mapping).aclose()
    assert (failing.closed, fine.closed) == (1, 1)
    await MultiProvider().aclose()  # holds nothing of its own: the shared default stays open


def test_a_dict_run_config_with_an_unknown_field_is_a_user_error() -> None:
    agent = Agent(name="a", model=ScriptedModel(["done"]))
    with pytest.raises(UserError, match="RunConfig's field names"):
        Runner.run_streamed(agent, "hi", run_config={"no_such_field": 1})


def test_the_responses_transport_is_http_only() -> None:
    set_default_openai_responses_transport("http")
    with pytest.raises(UserError, match="websocket is not available"):
        set_default_openai_responses_transport("websocket")
    with pytest.raises(ValueError, match="Expected one of"):
        set_default_openai_responses_transport("carrier-pigeon")  # type: ignore[arg-type]


async def test_closing_finishes_when_the_run_is_cancelled_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started, release, finished = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def slow(provider: MultiProvider) -> None:
        started.set()
        await release.wait()
        finished.set()

    monkeypatch.setattr(MultiProvider, "aclose", slow)
    run = asyncio.create_task(Runner.run(Agent(name="a", model=ScriptedModel(["done"])), "hi"))
    await started.wait()
    run.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert finished.is_set()
