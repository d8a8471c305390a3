"""The quickstart's demo model says what actually happened to the email."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_agents import Agent, ApprovalDecision, Runner, tool
from jupyter_agents.testing.demo import quickstart_model

PROMPT = "What's the weather in Paris and Oslo? Email it to ana@example.com"


@tool
def get_weather(city: str) -> str:
    """Weather."""
    return f"sunny, 21 °C in {city}"


@tool(needs_approval=True)
def send_email(to: str, body: str) -> str:
    """Send an email."""
    return f"Email sent to {to}"


async def ask(decision: Any) -> tuple[str, str]:
    agent = Agent(name="demo", model=quickstart_model(delay=0), tools=[get_weather, send_email])
    first = await Runner.run(agent, PROMPT, approval_handler=lambda r: decision)
    follow = await Runner.run(agent, [*first.to_input_list(), _user("What did you write?")])
    return str(first.final_output), str(follow.final_output)


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


async def test_the_email_line_is_its_own_paragraph_after_the_list() -> None:
    answer, follow = await ask(True)
    assert answer.endswith("- **Oslo**: sunny, 21 °C in Oslo\n\nI emailed it to ana@example.com.")
    assert follow.startswith("I wrote to **ana@example.com**")


async def test_after_a_rejection_it_says_so_and_never_claims_to_have_written() -> None:
    answer, follow = await ask(ApprovalDecision.reject("not today"))
    assert "was not sent: you rejected it (not today)." in answer
    assert follow == "Nothing: the email to **ana@example.com** was not sent."


@pytest.mark.parametrize("reason", ["No notebook frontend is showing this run, so nobody"])
async def test_after_the_headless_grace_it_does_not_blame_the_user(reason: str) -> None:
    answer, _ = await ask(ApprovalDecision.reject(reason))
    assert "nobody could approve it in time" in answer and "you rejected" not in answer
