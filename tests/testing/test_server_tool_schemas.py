"""The fake server refuses function tools the OpenAI API refuses, with the API's kind of
message, through the real openai client; and accepts good ones in both wire formats."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionMessageParam
from openai.types.responses import FunctionToolParam

from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, fake_openai_server

pytestmark = pytest.mark.http

GOOD_STRICT = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
    "required": ["city", "days"],
    "additionalProperties": False,
}
GOOD_LAX = {"type": "object", "properties": {"tags": {"type": "array", "items": {}}, "any": {}}}


def client(server: FakeOpenAIServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0)


def responses_tool(parameters: Any, strict: bool, name: str = "f") -> FunctionToolParam:
    return {"type": "function", "name": name, "parameters": parameters, "strict": strict}


@pytest.mark.parametrize(
    ("parameters", "strict", "name", "problem"),
    [
        (
            {"type": "object", "properties": {"xs": {"type": "array"}}},
            False,
            "f",
            "In context=('properties', 'xs'), array schema missing items.",
        ),
        ({"type": "string"}, False, "f", "schema must be a JSON Schema of 'type: \"object\"'"),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}},
            True,
            "f",
            "'additionalProperties' is required to be supplied and to be false",
        ),
        ({**GOOD_STRICT, "required": ["city"]}, True, "f", "Missing 'days'"),
        (
            {
                "type": "object",
                "properties": {"v": {}},
                "required": ["v"],
                "additionalProperties": False,
            },
            True,
            "f",
            "schema must have a 'type' key",
        ),
        (GOOD_LAX, False, "bad name", "string does not match pattern"),
    ],
)
def test_bad_tools_are_refused_and_use_no_reply(
    parameters: Any, strict: bool, name: str, problem: str
) -> None:
    with fake_openai_server() as server:
        server.enqueue(Reply([ReplyText("ok")]))
        with pytest.raises(openai.BadRequestError) as caught:
            client(server).responses.create(
                model="gpt-test", input="x", tools=[responses_tool(parameters, strict, name)]
            )
        assert problem in str(caught.value)
        assert caught.value.code == "invalid_function_parameters"
        assert server.pending_replies == 1  # the scripted reply is still there
        client(server).responses.create(model="gpt-test", input="x")


@pytest.mark.parametrize(("parameters", "strict"), [(GOOD_STRICT, True), (GOOD_LAX, False)])
def test_good_tools_pass_in_both_wire_formats(parameters: Any, strict: bool) -> None:
    with fake_openai_server() as server:
        server.enqueue(Reply([ReplyText("one")]), Reply([ReplyText("two")]))
        answer = client(server).responses.create(
            model="gpt-test", input="x", tools=[responses_tool(parameters, strict)]
        )
        assert answer.output_text == "one"
        chat = client(server).chat.completions.create(
            model="gpt-test",
            messages=[{"role": "user", "content": "x"}],
            tools=[
                {
                    "type": "function",
                    "function": {"name": "f", "parameters": parameters, "strict": strict},
                }
            ],
        )
        assert chat.choices[0].message.content == "two"


def test_chat_form_is_checked_too() -> None:
    lax_array: dict[str, object] = {"type": "object", "properties": {"xs": {"type": "array"}}}
    tool: ChatCompletionFunctionToolParam = {
        "type": "function",
        "function": {"name": "f", "parameters": lax_array},
    }
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "x"}]
    with (
        fake_openai_server() as server,
        pytest.raises(openai.BadRequestError, match="array schema missing items"),
    ):
        client(server).chat.completions.create(model="gpt-test", messages=messages, tools=[tool])


def test_validation_can_be_turned_off() -> None:
    with FakeOpenAIServer(validate_tool_schemas=False) as server:
        server.enqueue(Reply([ReplyText("ok")]))
        answer = client(server).responses.create(
            model="gpt-test", input="x", tools=[responses_tool({"type": "string"}, False)]
        )
        assert answer.output_text == "ok"
