"""Reusable prompts stored on the OpenAI platform (``Agent(prompt=...)``, Responses API only)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, Union

from typing_extensions import NotRequired, TypedDict

from ._util import call_maybe_async
from .context import RunContextWrapper
from .errors import UserError

if TYPE_CHECKING:
    from .agent import Agent

__all__ = ["DynamicPromptFunction", "GenerateDynamicPromptData", "Prompt", "resolve_prompt"]


class Prompt(TypedDict):
    """A stored prompt: its id, and optionally a version and the variables it fills in."""

    id: str
    """The prompt's id, e.g. ``"pmpt_123"``."""

    version: NotRequired[str]
    """A version of the prompt (default: its current one)."""

    variables: NotRequired[dict[str, Any]]
    """Values for the prompt's variables (text, or input content parts)."""


@dataclass
class GenerateDynamicPromptData:
    """What a ``DynamicPromptFunction`` receives."""

    context: RunContextWrapper[Any]
    """The run's context."""

    agent: Agent[Any]
    """The agent the prompt is for."""


DynamicPromptFunction: TypeAlias = Callable[
    [GenerateDynamicPromptData], Union[Prompt, Awaitable[Prompt]]
]
"""``(data) -> Prompt`` (sync or async), asked before every model call."""


def check_prompt(agent_name: str, prompt: Any) -> None:
    """Refuse a prompt that is neither a ``Prompt`` dict nor a function."""
    if prompt is None or callable(prompt):
        return
    _checked(agent_name, prompt, "prompt")


def _checked(agent_name: str, prompt: Any, what: str) -> dict[str, Any]:
    if not isinstance(prompt, dict) or not isinstance(prompt.get("id"), str):
        raise UserError(
            f"Agent {agent_name!r}: {what} must be a dict with a string 'id', such as "
            f"{{'id': 'pmpt_123', 'version': '2'}}; got {prompt!r:.80}."
        )
    extra = set(prompt) - {"id", "version", "variables"}
    if extra:
        raise UserError(
            f"Agent {agent_name!r}: {what} has unknown key(s) {', '.join(sorted(extra))}; "
            "known: id, version, variables."
        )
    return prompt


async def resolve_prompt(
    agent: Agent[Any], run_context: RunContextWrapper[Any]
) -> dict[str, Any] | None:
    """The prompt to send for ``agent``'s next model call (functions are asked each time):
    ``{"id": ..., "version": ..., "variables": ...}``, None where the prompt has no value."""
    prompt: Any = agent.prompt
    if prompt is None:
        return None
    what = "prompt"
    if callable(prompt):
        prompt = await call_maybe_async(prompt, GenerateDynamicPromptData(run_context, agent))
        what = "the prompt function's result"
    checked = _checked(agent.name, prompt, what)
    # The SDK's shape: the three keys, None for what the prompt leaves to its defaults.
    return {
        "id": checked["id"],
        "version": checked.get("version"),
        "variables": checked.get("variables"),
    }
