"""Agents shared by the interruption tests and the fresh-interpreter resume script."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jupyter_agents import Agent, tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

LOG = Path("sent.log")


@tool(needs_approval=True)
def send_email(to: str, body: str) -> str:
    """Send an email."""
    with LOG.open("a") as f:
        f.write(json.dumps({"to": to, "body": body}) + "\n")
    return f"sent to {to}"


@tool
def get_weather(city: str) -> str:
    """Weather."""
    return f"sunny in {city}"


def sent() -> list[dict[str, Any]]:
    if not LOG.exists():
        return []
    return [json.loads(line) for line in LOG.read_text().splitlines()]


def email(to: str, call_id: str) -> Any:
    return tool_call("send_email", {"to": to, "body": "hi"}, call_id=call_id)


def mail_agent(turns: list[Any]) -> Agent:
    return Agent(name="mail", model=ScriptedModel(turns), tools=[send_email, get_weather])


FIRST_TURNS = [[email("ana@example.com", "c1"), tool_call("get_weather", {"city": "Paris"})]]
"""What the model does before the pause."""

AFTER_RESUME = [[email("bob@example.com", "c2")], [text("All done.")]]
"""What the model does after the resume."""
