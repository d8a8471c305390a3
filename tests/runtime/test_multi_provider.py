"""MultiProvider: a model name's prefix picks its provider (the run's default provider)."""

from __future__ import annotations

import pytest

from jupyter_agents import (
    Agent,
    Model,
    ModelProvider,
    MultiProvider,
    MultiProviderMap,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    UserError,
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
