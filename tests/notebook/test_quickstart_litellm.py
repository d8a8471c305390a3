"""The quickstart notebook, unchanged, with its agent on an Anthropic model through LiteLLM: the
model name ``litellm/anthropic/claude-sonnet-4-5`` (``OPENAI_DEFAULT_MODEL``) and LiteLLM's
``ANTHROPIC_API_BASE`` pointed at the local fake Messages API, which plays the quickstart's
conversation."""

from __future__ import annotations

import json

import pytest

from jupyter_agents.testing.anthropic_server import fake_anthropic_server
from jupyter_agents.testing.server import Reply, ReplyText, ReplyToolCall

from ..recorded import json_bodies
from .test_quickstart import execute, shown_text, text_of

pytestmark = pytest.mark.kernel

REPORT = "Weather report: sunny, 21 °C"
CONVERSATION = (
    # %%agent What's the weather in Paris? Email it to ana@example.com.
    ReplyToolCall("get_weather", {"city": "Paris"}, call_id="toolu_paris"),
    ReplyToolCall("send_email", {"to": "ana@example.com", "body": REPORT}, call_id="toolu_mail"),
    "Here is the weather:\n\n- **Paris**: sunny, 21 °C\n\nI emailed it to ana@example.com.",
    # %%agent What did you write to Ana?
    f"I wrote to **ana@example.com**:\n\n> {REPORT}",
    # %%agent --new --out answer  What's the weather in each of {cities}?
    Reply(
        [
            ReplyToolCall("get_weather", {"city": "Oslo"}, call_id="toolu_oslo"),
            ReplyToolCall("get_weather", {"city": "Tokyo"}, call_id="toolu_tokyo"),
        ]
    ),
    Reply([ReplyText("- **Oslo**: light rain, 9 °C\n- **Tokyo**: cloudy, 18 °C")]),
)


def tool_results(body: dict[str, object]) -> list[str]:
    """The tool results a Messages API request carries, as text."""
    return [
        json.dumps(block.get("content"), ensure_ascii=False)
        for message in body["messages"]  # type: ignore[attr-defined]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def test_the_quickstart_runs_on_claude_through_litellm() -> None:
    with fake_anthropic_server() as server:
        server.enqueue(*CONVERSATION)
        cells = execute(
            {
                "OPENAI_DEFAULT_MODEL": "litellm/anthropic/claude-sonnet-4-5",
                "ANTHROPIC_API_BASE": server.api_base,
                "ANTHROPIC_API_KEY": server.api_key,
                "LITELLM_OFFLINE_MODE": "true",
                "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                "JUPYTER_AGENTS_APPROVE": "auto",
            }
        )
        requests = server.model_requests
    sent = json_bodies(requests)
    markdown = cells["ask"].outputs[0].data["text/markdown"]
    assert "sunny, 21 °C" in markdown and "I emailed it to ana@example.com." in markdown
    assert "I wrote to ana@example.com" in shown_text(cells["followup"])
    result = text_of(cells["result"])
    assert "light rain, 9 °C" in result and "cloudy, 18 °C" in result
    assert f"emails sent: [{{'to': 'ana@example.com', 'body': '{REPORT}'}}]" in result
    assert len(requests) == 6
    assert {(r.path, b["model"]) for r, b in zip(requests, sent, strict=True)} == {
        ("/v1/messages", "claude-sonnet-4-5")
    }
    assert "sunny, 21 °C" in tool_results(sent[1])[0]  # the tool really ran
    assert "Email sent to ana@example.com" in tool_results(sent[2])[-1]
    followup = json.dumps(sent[3]["messages"], ensure_ascii=False)
    assert "Email it to ana@example.com" in followup  # the conversation went on
    fresh = json.dumps(sent[4]["messages"], ensure_ascii=False)
    assert "ana@example.com" not in fresh  # --new started over
