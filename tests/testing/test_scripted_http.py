"""``JUPYTER_AGENTS_SCRIPTED_HTTP``: a scripted model's requests go through the real openai
client to the local test server, which answers with the script."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import openai
import pytest

from jupyter_agents import Agent, ModelSettings, Runner, tool
from jupyter_agents.testing import ScriptedModel, scripted_http, text, tool_call
from jupyter_agents.testing.scripted_http import ENV, HEADER

pytestmark = pytest.mark.http


@pytest.fixture(autouse=True)
def _one_server_per_test() -> Iterator[None]:
    yield
    scripted_http.stop_server()  # no server thread outlives the test


@tool
def weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


def agent(model: ScriptedModel) -> Agent[None]:
    return Agent(
        name="forecaster",
        instructions="Be brief.",
        model=model,
        tools=[weather],
        model_settings=ModelSettings(temperature=0.25),
    )


def script() -> ScriptedModel:
    return ScriptedModel(
        [[tool_call("weather", {"city": "Paris"}, "c1")], [text("It is sunny in Paris.")]]
    )


async def test_a_streamed_run_goes_over_http_and_the_script_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV, "1")
    model = script()
    result = Runner.run_streamed(agent(model), "Weather in Paris?")
    deltas = [
        e.data.delta
        async for e in result.stream_events()
        if e.type == "raw_response_event" and e.data.type == "response.output_text.delta"
    ]
    assert result.final_output == "It is sunny in Paris."
    assert "".join(deltas) == "It is sunny in Paris."  # streamed as server-sent events
    server = scripted_http._server
    assert server is not None
    sent = [r for r in server.model_requests if r.headers.get(HEADER)][-2:]
    first, second = (r.body for r in sent)
    assert first is not None and second is not None  # both sent a JSON body
    assert [first["stream"], second["stream"]] == [True, True]
    assert first["instructions"] == "Be brief." and first["temperature"] == 0.25
    assert [t["name"] for t in first["tools"]] == ["weather"]
    assert second["input"][-1] == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": "sunny in Paris",
    }
    # the script saw the real request: tools as objects, the conversation so far
    assert model.requests[0].tool_names == ["weather"]
    assert result.context_wrapper.usage.requests == 2


async def test_a_run_not_streamed_goes_over_http_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "1")
    result = await Runner.run(agent(script()), "Weather in Paris?")
    assert result.final_output == "It is sunny in Paris."
    server = scripted_http._server
    assert server is not None
    last = server.model_requests[-1].body
    assert last is not None and not last.get("stream")


async def test_a_url_where_nothing_listens_fails_every_model_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as s:  # a port nothing listens on once this closes
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv(ENV, f"http://127.0.0.1:{port}/v1")
    model = script()
    with pytest.raises(openai.APIConnectionError):
        await Runner.run(agent(model), "Weather in Paris?")
    assert model.requests == []  # the script was never asked


def test_unset_means_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    assert scripted_http.scripted_base_url() is None
    monkeypatch.setenv(ENV, "0")
    assert scripted_http.scripted_base_url() is None


def test_the_server_refuses_a_request_no_script_waits_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "1")
    base = scripted_http.scripted_base_url()
    client = openai.OpenAI(base_url=base, api_key=scripted_http.API_KEY, max_retries=0)
    with pytest.raises(openai.BadRequestError, match="no scripted request with this token"):
        client.responses.create(model="m", input="hi", extra_headers={HEADER: "forged"})
