"""A scripted stand-in for a real model in the quickstart notebook.

It answers the quickstart's prompts the way a capable model would (look up the weather, email
it, answer follow-ups), from rules on the conversation so far, so cells can be re-run in any
order. It is a demo, not a language model: other prompts get a short note saying so.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .scripted import ModelRequest, ScriptedModel, text, tool_call

__all__ = ["quickstart_model"]

CITIES = ("Paris", "Oslo", "Tokyo", "Lima", "Cairo")


def _since_last_prompt(items: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if item.get("role") == "user" and isinstance(item.get("content"), str):
            return item["content"], items[index + 1 :]
    return "", []


def _outputs(items: list[dict[str, Any]]) -> list[str]:
    return [str(i.get("output", "")) for i in items if i.get("type") == "function_call_output"]


def _respond(request: ModelRequest) -> list[Any]:
    prompt, turn = _since_last_prompt(request.input)
    lower = prompt.lower()
    outputs = _outputs(turn)
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
            sent = " I emailed it to " + email.group() + "." if email else ""
            if any("rejected" in o for o in outputs):
                sent = " The email was not sent: you rejected it."
            return [text(f"Here is the weather:\n\n{report}\n{sent}".strip())]
    if "write" in lower or "email" in lower:
        calls = [i for i in request.input if i.get("type") == "function_call"]
        mails = [json.loads(c["arguments"]) for c in calls if c.get("name") == "send_email"]
        if mails:
            last = mails[-1]
            return [text(f"I wrote to **{last['to']}**:\n\n> {last['body']}")]
    return [
        text(
            "I am the quickstart's scripted demo model, so I only know the quickstart's "
            "questions. Set OPENAI_API_KEY (or OPENAI_BASE_URL) to talk to a real model."
        )
    ]


def quickstart_model(delay: float = 0.02) -> ScriptedModel:
    """A ScriptedModel that plays a capable model for the quickstart's prompts."""
    return ScriptedModel([_respond] * 10_000, delay=delay, chunk_size=3, name="demo-model")
