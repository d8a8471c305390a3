"""The tool-kind seam: a new kind of tool is one kind object plus one registration."""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import pytest

from jupyter_agents import (
    Agent,
    ModelBehaviorError,
    RunConfig,
    Runner,
    Tool,
    ToolCallOutputItem,
    UserError,
    tool,
)
from jupyter_agents.models.openai_responses import Converter
from jupyter_agents.runtime.models._openai_params import chat_tools
from jupyter_agents.runtime.tools.kinds import (
    FUNCTION,
    DisplayPart,
    ParsedCall,
    ToolCapabilities,
    ToolDisplay,
    ToolKind,
    describe_call,
    kind_for_call,
    register_tool_kind,
    tool_kinds,
)
from jupyter_agents.testing import ScriptedModel, output_item, text, tool_call


@dataclass
class EchoTool(ToolCapabilities):
    """A tool of a made-up kind: the model sends free text, the tool shouts it back."""

    name: str = "echo"
    needs_approval: Any = False


def as_tool(echo: EchoTool) -> Tool:
    """``Tool`` is the union of the built-in kinds' tool classes, so a tool of a kind registered
    at run time is outside it: a user's own kind needs this cast too (the package's gap)."""
    return cast("Tool", echo)


class EchoKind(ToolKind[EchoTool, str]):
    def __init__(self) -> None:
        super().__init__(
            name="echo", tool_classes=(EchoTool,), call_types=("custom_tool_call",), executable=True
        )

    def responses_param(self, tool: EchoTool) -> dict[str, Any]:
        return {"type": "custom", "name": tool.name}

    def parse_call(self, raw: Any) -> ParsedCall:
        return ParsedCall(name=raw.name, call_id=raw.call_id, arguments=raw.input)

    def parsed_arguments(self, arguments: str) -> dict[str, Any]:
        return {"input": arguments}

    async def invoke(self, tool: EchoTool, ctx: Any, arguments: str) -> str:
        return arguments.upper()

    def output_item(self, call: ParsedCall, value: str) -> dict[str, Any]:
        return {"type": "custom_tool_call_output", "call_id": call.call_id, "output": value}

    def describe(self, raw: Any, output: object = None) -> ToolDisplay:
        parts = () if output is None else (DisplayPart("terminal", str(output)),)
        return ToolDisplay("echo", raw.name, raw.input, parts)


@pytest.fixture
def echo_kind() -> Iterator[EchoKind]:
    kind = EchoKind()
    before = tool_kinds()
    register_tool_kind(kind)
    yield kind
    from jupyter_agents.runtime.tools import kinds

    kinds._registry.kinds = list(before)
    kinds._registry.by_call_type.pop("custom_tool_call", None)


def echo_call(text_: str, call_id: str = "e1") -> Any:
    return output_item(
        {"type": "custom_tool_call", "call_id": call_id, "name": "echo", "input": text_}
    )


async def test_a_registered_kind_is_offered_run_and_answered(echo_kind: EchoKind) -> None:
    model = ScriptedModel([[echo_call("hello")], [text("done")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[as_tool(EchoTool())]), "go")
    assert model.requests[0].tools[0].name == "echo"
    call, output = result.new_items[0], result.new_items[1]
    assert isinstance(output, ToolCallOutputItem)
    assert output.output == "HELLO" and output.status == "ok"
    assert output.raw_item == {
        "type": "custom_tool_call_output",
        "call_id": "e1",
        "output": "HELLO",
    }
    assert model.requests[1].input[-1] == output.raw_item
    display = describe_call(call, output)
    assert display == ToolDisplay("echo", "echo", "hello", (DisplayPart("terminal", "HELLO"),))
    converted = Converter.convert_tools([as_tool(EchoTool())], [])
    assert converted.tools == [{"type": "custom", "name": "echo"}]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert chat_tools([as_tool(EchoTool())], set()) == []
    assert "left out: echo" in str(caught[0].message)


async def test_approval_is_the_same_for_every_kind(echo_kind: EchoKind) -> None:
    model = ScriptedModel([[echo_call("rm -rf")], [text("done")]])
    agent = Agent(name="a", model=model, tools=[as_tool(EchoTool(needs_approval=True))])
    first = await Runner.run(agent, "go")
    (waiting,) = first.interruptions
    assert (waiting.tool_name, waiting.arguments) == ("echo", {"input": "rm -rf"})
    state = first.to_state()
    state.reject(waiting, message="no")
    resumed = await Runner.run(agent, state)
    (output,) = [i for i in resumed.new_items if isinstance(i, ToolCallOutputItem)]
    assert output.status == "rejected" and output.raw_item["type"] == "custom_tool_call_output"


async def test_a_call_type_nobody_claims_is_a_model_behavior_error() -> None:
    assert kind_for_call("custom_tool_call") is None  # no built-in kind runs custom tools
    custom = output_item(
        {"type": "custom_tool_call", "call_id": "c1", "id": "ct_1", "name": "x", "input": "hi"}
    )
    model = ScriptedModel([[custom]])
    with pytest.raises(ModelBehaviorError, match="'custom_tool_call' item, but no tool"):
        await Runner.run(Agent(name="a", model=model), "go")


async def test_hosted_calls_are_claimed_and_never_run_here(caplog: Any) -> None:
    search = output_item(
        {
            "type": "web_search_call",
            "id": "ws_1",
            "status": "completed",
            "action": {"type": "search", "query": "jupyter"},
        }
    )
    model = ScriptedModel([[search], [text("found it")]])
    result = await Runner.run(Agent(name="a", model=model), "go")
    hosted = kind_for_call("web_search_call")
    assert hosted is not None and hosted.executable is False
    assert [i.type for i in result.new_items] == ["tool_call_item", "message_output_item"]
    assert result.final_output == "found it"


def test_function_tools_describe_their_arguments() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    assert FUNCTION.responses_param(add)["name"] == "add"
    chat_param = FUNCTION.chat_param(add)
    assert chat_param is not None and chat_param["function"]["name"] == "add"


async def test_unknown_context_items_are_logged_not_silently_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    compaction = output_item({"type": "compaction", "id": "c_1", "encrypted_content": "x"})
    model = ScriptedModel([[compaction, text("hi")]])
    with caplog.at_level(logging.WARNING, logger="jupyter_agents"):
        result = await Runner.run(Agent(name="a", model=model), "go")
    assert result.final_output == "hi"
    assert "Ignoring a 'compaction' item" in caplog.text


class ChatEchoKind(EchoKind):
    """The echo kind with a Chat Completions form: a function tool taking ``{"input": ...}``."""

    def chat_param(self, tool: EchoTool) -> dict[str, Any] | None:
        schema = {"type": "object", "properties": {"input": {"type": "string"}}}
        return {"type": "function", "function": {"name": tool.name, "parameters": schema}}

    def parse_chat_call(self, raw: Any) -> ParsedCall:
        arguments = json.loads(raw.arguments or "{}").get("input", "")
        return ParsedCall(name=raw.name, call_id=raw.call_id, arguments=arguments)


@pytest.fixture
def chat_echo_kind() -> Iterator[ChatEchoKind]:
    kind = ChatEchoKind()
    before = tool_kinds()
    register_tool_kind(kind)
    yield kind
    from jupyter_agents.runtime.tools import kinds

    kinds._registry.kinds = list(before)
    kinds._registry.by_call_type.pop("custom_tool_call", None)


async def test_a_kind_with_a_chat_form_runs_calls_that_come_as_function_calls(
    chat_echo_kind: ChatEchoKind,
) -> None:
    model = ScriptedModel([[tool_call("echo", {"input": "hi there"}, call_id="f1")], ["ok"]])
    result = await Runner.run(Agent(name="a", model=model, tools=[as_tool(EchoTool())]), "go")
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem)
    assert output.output == "HI THERE" and output.status == "ok"  # the kind's invoke ran
    assert output.raw_item == {
        "type": "function_call_output",
        "call_id": "f1",
        "output": "HI THERE",
    }
    assert model.requests[1].input[-1] == output.raw_item
    assert chat_tools([as_tool(EchoTool())], set())[0]["function"]["name"] == "echo"


async def test_a_function_call_to_a_kind_without_a_chat_form_is_not_run(
    echo_kind: EchoKind,
) -> None:
    model = ScriptedModel([[tool_call("echo", {"input": "hi"}, call_id="f1")], ["ok"]])
    agent = Agent(name="a", model=model, tools=[as_tool(EchoTool())])
    tell = RunConfig(tool_not_found_behavior="return_error_to_model")
    result = await Runner.run(agent, "go", run_config=tell)
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem)
    assert output.status == "error" and "not available" in output.output


def test_the_tool_type_covers_every_registered_kinds_tools() -> None:
    from typing import get_args

    from jupyter_agents.runtime.tools import Tool
    from jupyter_agents.runtime.tools.kinds import tool_kinds

    members = get_args(Tool)
    built_in = [
        (kind.name, cls)
        for kind in tool_kinds()
        for cls in kind.tool_classes
        if cls.__module__.startswith("jupyter_agents.")  # not kinds these tests register
    ]
    assert len(built_in) >= 6
    for name, cls in built_in:
        assert issubclass(cls, members), (name, cls.__name__)


def test_a_kind_whose_tools_declare_nothing_is_refused_when_it_is_registered() -> None:
    @dataclass
    class Plain:  # name and needs_approval, but not a ToolCapabilities
        name: str = "plain"
        needs_approval: Any = False

    undeclared = cast(Any, (Plain,))  # what a kind written without the types would pass
    kind = ToolKind[Any, Any](name="plain", tool_classes=undeclared, call_types=("plain_call",))
    before = tool_kinds()
    with pytest.raises(UserError, match="does not subclass ToolCapabilities"):
        register_tool_kind(kind)
    assert tool_kinds() == before and kind_for_call("plain_call") is None


def test_every_tool_the_person_writes_declares_its_capabilities() -> None:
    from typing import get_args

    from jupyter_agents.runtime.mcp.tool import MCPTool
    from jupyter_agents.runtime.tools import Tool
    from jupyter_agents.runtime.tools.ask_user import AskUserTool
    from jupyter_agents.runtime.tools.hosted import WebSearchTool
    from jupyter_agents.runtime.tools.shell.shell_tool import ShellTool

    @tool
    def lookup(key: str) -> str:
        """Look a key up."""
        return key

    inner = Agent(name="inner")
    agent_tool = inner.as_tool(tool_name="ask_inner", tool_description="Ask.")
    assert all(issubclass(cls, ToolCapabilities) for cls in get_args(Tool))
    assert issubclass(MCPTool, ToolCapabilities)
    for made in (lookup, agent_tool, AskUserTool(), WebSearchTool(), ShellTool()):
        assert isinstance(made, ToolCapabilities), made
    # what a tool says of itself, and the defaults of what it leaves alone
    assert agent_tool.forwards_events and agent_tool.nested_agent() is inner
    assert not lookup.forwards_events and lookup.nested_agent() is None
    assert lookup.runs_in_thread and lookup.replay is None and lookup.timeout is None
    asks = AskUserTool()
    assert asks.always_asks and asks.question_for({"question": "Which?"}) is not None
    shell = ShellTool()
    assert shell.validate_arguments({"x": 1}) is None and shell.describe_this_call is None
    assert (shell.description, shell.params_json_schema, shell.timeout) == (None, None, None)
    assert shell.rejection_text("no") is None and shell.question_for({}) is None


def test_tool_item_types_come_from_the_registry() -> None:
    from jupyter_agents.runtime.tools.kinds import tool_item_types

    types = tool_item_types()
    for expected in (
        "function_call",
        "function_call_output",
        "shell_call",
        "shell_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "computer_call",
        "computer_call_output",
        "web_search_call",  # hosted: the call item holds its result
    ):
        assert expected in types
    assert "web_search_call_output" not in types and "message" not in types
