"""A system-prompt preamble for agents that hand off to each other."""

from __future__ import annotations

__all__ = ["RECOMMENDED_PROMPT_PREFIX", "prompt_with_handoff_instructions"]

RECOMMENDED_PROMPT_PREFIX = (
    "# System context\n"
    "You are one of several cooperating agents. Each agent has its own instructions and "
    "tools, and can pass the conversation to another agent with a transfer_to_<agent> tool "
    "when the request is better handled there. Transfers happen behind the scenes: do not "
    "mention them to the user."
)
"""Put it in front of the instructions of agents that take part in handoffs."""


def prompt_with_handoff_instructions(prompt: str) -> str:
    """``prompt`` with ``RECOMMENDED_PROMPT_PREFIX`` in front."""
    return f"{RECOMMENDED_PROMPT_PREFIX}\n\n{prompt}"
