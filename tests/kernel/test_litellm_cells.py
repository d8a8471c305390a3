"""An Anthropic model through LiteLLM in a real kernel: ``%agent model`` set to a
``LitellmModel`` pointed at the local fake Messages API; the widget gets the streamed text, the
tool cards and the approval, as with the OpenAI models."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jupyter_agents.testing.anthropic_server import FakeAnthropicServer, fake_anthropic_server
from jupyter_agents.testing.server import Reply, ReplyText, ReplyToolCall

from .conftest import SETUP, kernel_value
from .frontend import Frontend
from .test_agent_cells import decide, final_state, start, texts, tool_card, waiting_for

pytestmark = pytest.mark.kernel

LITELLM_OFFLINE = {"LITELLM_OFFLINE_MODE": "true", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAnthropicServer]:
    with fake_anthropic_server() as started:
        yield started


@pytest.fixture(scope="module")
def fe(server: FakeAnthropicServer) -> Iterator[Frontend]:
    frontend = Frontend(env={"JUPYTER_AGENTS_APPROVAL_GRACE": "3", **LITELLM_OFFLINE})
    try:
        frontend.run(SETUP, timeout=60)
        frontend.run(
            "from jupyter_agents.extensions.models.litellm_model import LitellmModel\n"
            f"claude = LitellmModel('anthropic/claude-sonnet-4-5', base_url={server.api_base!r},"
            f" api_key={server.api_key!r})\n"
            "%agent model claude"
        )
        yield frontend
    finally:
        frontend.close()


def test_a_claude_run_streams_into_the_widget_and_waits_for_approval(
    fe: Frontend, server: FakeAnthropicServer
) -> None:
    answer = "It is sunny in Paris, and I emailed Ana about it. " * 4
    server.enqueue(
        ReplyToolCall("get_weather", {"city": "Paris"}, call_id="toolu_w"),
        ReplyToolCall("send_email", {"to": "ana@example.com", "body": "Sunny"}, call_id="toolu_e"),
        Reply([ReplyText(answer)], chunk_size=4, delay_between_chunks=0.03),
    )
    cell, comm = start(fe, "%%agent\nWhat's the weather in Paris? Email it to ana@example.com.")
    fe.hello(comm)
    card = waiting_for(fe, comm, "toolu_e")
    assert "ana@example.com" in card["args"]
    weather = tool_card(fe.state(comm), "toolu_w")
    assert weather is not None and weather["status"] == "done"
    decide(fe, comm, "toolu_e", True)
    fe.wait_for(lambda: 0 < len(texts(fe, comm)) < len(answer), what="text streaming in")
    assert fe.state(comm)["header"]["status"] == "running"  # shown before the run ended
    assert fe.reply(cell)["content"]["status"] == "ok"
    state = final_state(fe, comm)
    assert state["header"]["status"] == "done"
    assert texts(fe, comm) == answer
    assert kernel_value(fe, "sent") == [("ana@example.com", "Sunny")]
    paths = {r.path for r in server.model_requests}
    assert paths == {"/v1/messages"} and len(server.model_requests) == 3
