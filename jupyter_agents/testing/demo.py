"""Scripted stand-ins for a real model in the shipped notebooks.

``quickstart_model`` answers the quickstart's prompts the way a capable model would (look up
the weather, email it, answer follow-ups); ``copilot_model`` (in ``copilot_demo``) answers the
copilot notebook's chat, Fix and Ctrl+I. Both answer from rules on the conversation so far, so
cells can be re-run in any order. They are demos, not language models: other prompts get a
short note saying so.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .scripted import ReceivedRequest, ScriptedModel, text, tool_call

__all__ = ["quickstart_model", "since_last_prompt", "tool_outputs"]

CITIES = ("Paris", "Oslo", "Tokyo", "Lima", "Cairo")


def since_last_prompt(items: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The last user message's text and the items after it (this turn's calls and outputs)."""
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if item.get("role") == "user" and isinstance(item.get("content"), str):
            return item["content"], items[index + 1 :]
    return "", []


def tool_outputs(items: list[dict[str, Any]]) -> list[str]:
    """What each tool call among ``items`` returned, in order."""
    return [str(i.get("output", "")) for i in items if i.get("type") == "function_call_output"]


def _respond(request: ReceivedRequest) -> list[Any]:
    prompt, turn = since_last_prompt(request.input)
    lower = prompt.lower()
    outputs = tool_outputs(turn)
    cities = [c for c in CITIES if c.lower() in lower]
    email = re.search(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", prompt)
    if "weather" in lower or "warm" in lower:
        if not outputs and cities:
            return [tool_call("get_weather", {"city": c}) for c in cities]
        if email and len(outputs) == len(cities):
            body = "Weather report: " + "; ".join(outputs)
            return [tool_call("send_email", {"to": email.group(), "body": body})]
        if outputs:
            report = "\n".join(f"- **{c}**: {o}" for c, o in zip(cities, outputs, strict=False))
            sent = ""
            if email and len(outputs) > len(cities):
                sent = _email_outcome(email.group(), outputs[-1])
            return [text(f"Here is the weather:\n\n{report}\n\n{sent}".strip())]
    if "write" in lower or "email" in lower:
        mails = _mails(request.input)
        if mails:
            last, outcome = mails[-1]
            if not _was_sent(outcome):
                return [text(f"Nothing: the email to **{last['to']}** was not sent.")]
            return [text(f"I wrote to **{last['to']}**:\n\n> {last['body']}")]
    return [
        text(
            "I am the quickstart's scripted demo model, so I only know the quickstart's "
            "questions. Set OPENAI_API_KEY (or OPENAI_BASE_URL) to talk to a real model."
        )
    ]


def _was_sent(output: str) -> bool:
    return not (_not_approved(output) or output.startswith(("An error", "Tool ")))


def _not_approved(output: str) -> bool:
    return "rejected this call" in output or "did not run" in output


def _email_outcome(to: str, output: str) -> str:
    """What to say about the email, from what the tool call actually returned."""
    if "No notebook frontend" in output:
        return (
            f"The email to {to} was not sent: no notebook frontend showed the run, so nobody "
            "could approve it in time."
        )
    if "denied by %%agent --approve deny" in output:
        return f"The email to {to} was not sent: this cell denies every approval."
    if _not_approved(output):
        reason = output.split("Reason: ", 1)[1] if "Reason: " in output else ""
        return f"The email to {to} was not sent: you rejected it" + (
            f" ({reason.rstrip('.')})." if reason else "."
        )
    if not _was_sent(output):
        return f"The email to {to} was not sent: {output}"
    return f"I emailed it to {to}."


def _mails(items: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """Each send_email call with what it returned."""
    outputs = {
        i.get("call_id"): str(i.get("output", ""))
        for i in items
        if i.get("type") == "function_call_output"
    }
    return [
        (json.loads(c["arguments"]), outputs.get(c.get("call_id"), ""))
        for c in items
        if c.get("type") == "function_call" and c.get("name") == "send_email"
    ]


def quickstart_model(delay: float = 0.02) -> ScriptedModel:
    """A ScriptedModel that plays a capable model for the quickstart's prompts."""
    return ScriptedModel([_respond] * 10_000, delay=delay, chunk_size=3, name="demo-model")
