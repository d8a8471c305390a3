"""Scripted agents for the evaluation tests: each answers a prompt with a plain function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jupyter_agents import Agent, Usage
from jupyter_agents.testing import ScriptedModel, text


def answering(
    name: str, answer: Callable[[str], str], *, usage: Usage | None = None, **agent: Any
) -> Agent[Any]:
    """An agent whose model answers each prompt with ``answer(prompt)`` (priced as gpt-4.1
    when ``usage`` is given)."""
    model = ScriptedModel(
        respond=lambda request: [text(answer(request.user_text))],
        name="gpt-4.1" if usage is not None else "scripted-model",
        usage=usage,
    )
    return Agent(name=name, model=model, **agent)


def model_of(agent: Agent[Any]) -> ScriptedModel:
    """The agent's scripted model."""
    assert isinstance(agent.model, ScriptedModel)
    return agent.model
