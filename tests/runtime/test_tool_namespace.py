"""Namespaced and deferred-loading function tools (``tool_namespace``, ``defer_loading``): the
checks, the Responses API's ``namespace`` entries and ``tool_search`` rules, Chat Completions'
refusal, and calls found by their namespace in a run."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    Runner,
    Tool,
    ToolSearchTool,
    UserError,
    function_tool,
    handoff,
    tool_namespace,
)
from jupyter_agents.models.chatcmpl_converter import Converter as ChatConverter
from jupyter_agents.models.openai_responses import Converter
from jupyter_agents.testing import ModelStep, ScriptedModel, assistant_message, function_call


def _lookup(customer_id: str) -> str:
    """Look a customer up."""
    return f"crm:{customer_id}"


def _bill(customer_id: str) -> str:
    """Look a customer's bill up."""
    return f"billing:{customer_id}"


def _tools() -> tuple[Any, Any]:
    crm = function_tool(name_override="lookup")(_lookup)
    billing = function_tool(name_override="lookup")(_bill)
    return crm, billing


def test_tool_namespace_copies_the_tools_and_checks_its_arguments() -> None:
    tool = function_tool(name_override="lookup")(_lookup)
    [namespaced] = tool_namespace(name=" crm ", description=" CRM tools. ", tools=[tool])
    assert namespaced is not tool and tool._tool_namespace is None
    assert namespaced._tool_namespace == "crm"
    assert namespaced._tool_namespace_description == "CRM tools."
    assert namespaced.qualified_name == "crm.lookup" and tool.qualified_name == "lookup"
    with pytest.raises(UserError, match="non-empty namespace name"):
        tool_namespace(name=" ", description="d", tools=[tool])
    with pytest.raises(UserError, match="non-empty description"):
        tool_namespace(name="crm", description=None, tools=[tool])
    with pytest.raises(UserError, match="only supports FunctionTool"):
        tool_namespace(name="crm", description="d", tools=[ToolSearchTool()])  # type: ignore[list-item]
    with pytest.raises(UserError, match=r"reserves the synthetic namespace `lookup\.lookup`"):
        tool_namespace(name="lookup", description="d", tools=[tool])


def test_namespaced_tools_are_sent_in_one_namespace_entry() -> None:
    eager = function_tool(name_override="lookup")(_lookup)
    deferred = function_tool(name_override="bill", defer_loading=True)(_bill)
    converted = Converter.convert_tools(
        [
            *tool_namespace(name="crm", description="CRM.", tools=[eager, deferred]),
            ToolSearchTool(),
        ],
        [],
    )
    assert converted.tools == [
        {
            "type": "namespace",
            "name": "crm",
            "description": "CRM.",
            "tools": [
                {
                    "type": "function",
                    "name": "lookup",
                    "description": eager.description,
                    "parameters": eager.params_json_schema,
                    "strict": True,
                },
                {
                    "type": "function",
                    "name": "bill",
                    "description": deferred.description,
                    "parameters": deferred.params_json_schema,
                    "strict": True,
                    "defer_loading": True,
                },
            ],
        },
        {"type": "tool_search"},
    ]


def test_tool_search_rules_on_the_responses_api() -> None:
    deferred = function_tool(name_override="lookup", defer_loading=True)(_lookup)
    eager = function_tool(name_override="bill")(_bill)
    with pytest.raises(UserError, match="require ToolSearchTool"):
        Converter.convert_tools([deferred], [])
    with pytest.raises(UserError, match="at least one searchable Responses surface"):
        Converter.convert_tools([eager, ToolSearchTool()], [])
    with pytest.raises(UserError, match="Only one ToolSearchTool"):
        Converter.convert_tools([deferred, ToolSearchTool(), ToolSearchTool()], [])
    assert Converter.convert_tools(
        [ToolSearchTool()], [], allow_opaque_tool_search_surface=True
    ).tools == [{"type": "tool_search"}]
    sent = Converter.convert_tools([deferred, ToolSearchTool()], []).tools
    assert sent[0]["defer_loading"] is True
    # A namespace without deferred tools needs no tool search.
    [crm] = tool_namespace(name="crm", description="CRM.", tools=[eager])
    assert Converter.convert_tools([crm], []).tools[0]["type"] == "namespace"


def test_ambiguous_namespaces_are_refused() -> None:
    a = tool_namespace(name="crm", description="One.", tools=[function_tool(_lookup)])
    b = tool_namespace(name="crm", description="Two.", tools=[function_tool(_bill)])
    with pytest.raises(UserError, match="must share the same description"):
        Converter.convert_tools([*a, *b], [])
    dotted = function_tool(name_override="crm._lookup")(_bill)
    with pytest.raises(UserError, match=r"qualified name `crm\._lookup`"):
        Converter.convert_tools([*a, dotted], [])
    first = function_tool(name_override="x", defer_loading=True)(_lookup)
    second = function_tool(name_override="x", defer_loading=True)(_bill)
    with pytest.raises(UserError, match="deferred top-level tool name `x`"):
        Converter.convert_tools([first, second, ToolSearchTool()], [])


def test_tool_choice_rules_for_namespaces_and_deferred_tools() -> None:
    crm, _ = _tools()
    namespaced = tool_namespace(name="crm", description="CRM.", tools=[crm])
    for choice in ("crm", "lookup"):
        with pytest.raises(UserError, match="not a namespace wrapper"):
            Converter.convert_tool_choice(choice, tools=namespaced)
    top = function_tool(name_override="lookup")(_bill)
    assert Converter.convert_tool_choice("lookup", tools=[*namespaced, top]) == {
        "type": "function",
        "name": "lookup",
    }
    deferred = function_tool(name_override="bill", defer_loading=True)(_bill)
    with pytest.raises(UserError, match="deferred-loading function tools"):
        Converter.convert_tool_choice("bill", tools=[deferred, ToolSearchTool()])
    with pytest.raises(UserError, match="tool_choice='required'"):
        Converter.convert_tool_choice("required", tools=[deferred])
    assert Converter.convert_tool_choice("required", tools=[deferred, ToolSearchTool()]) == (
        "required"
    )
    agent = Agent(name="lookup")
    assert Converter.convert_tool_choice(
        "transfer_to_lookup", tools=namespaced, handoffs=[handoff(agent)]
    ) == {"type": "function", "name": "transfer_to_lookup"}


def test_chat_completions_refuses_responses_only_tools() -> None:
    crm, _ = _tools()
    [namespaced] = tool_namespace(name="crm", description="CRM.", tools=[crm])
    with pytest.raises(UserError, match=r"tool_namespace\(\).*`crm.lookup` cannot be used"):
        ChatConverter.tool_to_openai(namespaced)
    deferred = function_tool(defer_loading=True)(_lookup)
    with pytest.raises(UserError, match="defer_loading=True"):
        ChatConverter.tool_to_openai(deferred)
    assert ChatConverter.tool_to_openai(crm)["function"]["name"] == "lookup"


async def test_a_run_finds_calls_by_their_namespace() -> None:
    crm, billing = _tools()
    tools: list[Tool] = [
        *tool_namespace(name="crm", description="CRM.", tools=[crm]),
        *tool_namespace(name="billing", description="Billing.", tools=[billing]),
    ]
    model = ScriptedModel(
        [
            ModelStep(
                output=[
                    function_call("lookup", {"customer_id": "7"}, call_id="a", namespace="billing"),
                    function_call("lookup", {"customer_id": "8"}, call_id="b", namespace="crm"),
                ]
            ),
            ModelStep(output=[assistant_message("done")]),
        ]
    )
    result = await Runner.run(Agent(name="a", model=model, tools=tools), "go")
    outputs = {
        i.raw_item["call_id"]: i.output
        for i in result.new_items
        if i.type == "tool_call_output_item"
    }
    assert outputs == {"a": "billing:7", "b": "crm:8"}


async def test_a_deferred_top_level_call_with_its_own_name_as_namespace() -> None:
    deferred = function_tool(name_override="lookup", defer_loading=True)(_lookup)
    model = ScriptedModel(
        [
            ModelStep(
                output=[
                    function_call("lookup", {"customer_id": "1"}, call_id="c", namespace="lookup")
                ]
            ),
            ModelStep(output=[assistant_message("done")]),
        ]
    )
    agent = Agent(name="a", model=model, tools=[deferred, ToolSearchTool()])
    result = await Runner.run(agent, "go")
    [output] = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert output.output == "crm:1"


async def test_an_always_decision_covers_one_namespace_only() -> None:
    crm = function_tool(name_override="lookup", needs_approval=True)(_lookup)
    billing = function_tool(name_override="lookup", needs_approval=True)(_bill)
    tools: list[Tool] = [
        *tool_namespace(name="crm", description="CRM.", tools=[crm]),
        *tool_namespace(name="billing", description="Billing.", tools=[billing]),
    ]
    model = ScriptedModel(
        [
            ModelStep(
                output=[function_call("lookup", {"customer_id": "1"}, call_id="a", namespace="crm")]
            ),
            ModelStep(
                output=[
                    function_call("lookup", {"customer_id": "2"}, call_id="b", namespace="billing"),
                    function_call("lookup", {"customer_id": "3"}, call_id="c", namespace="crm"),
                ]
            ),
            ModelStep(output=[assistant_message("done")]),
        ]
    )
    agent = Agent(name="a", model=model, tools=tools)
    first = await Runner.run(agent, "go")
    [asked] = first.interruptions
    state = first.to_state()
    state.approve(asked, always=True)
    second = await Runner.run(agent, state)
    # crm's standing decision ran crm's next call; billing's call still asks.
    assert [i.raw_item.call_id for i in second.interruptions] == ["b"]
    outputs = [i.output for i in second.new_items if i.type == "tool_call_output_item"]
    assert "crm:3" in outputs and "billing:2" not in outputs


def test_a_stored_prompt_may_hold_what_tool_search_finds() -> None:
    from jupyter_agents.model_settings import ModelSettings
    from jupyter_agents.runtime.models.interface import ModelRequest
    from jupyter_agents.runtime.models.openai_responses import OpenAIResponsesModel

    model = OpenAIResponsesModel("gpt-5")
    with_prompt = ModelRequest(
        None, "hi", ModelSettings(), [ToolSearchTool()], prompt={"id": "pmpt_1"}
    )
    assert model._params(with_prompt)["tools"] == [{"type": "tool_search"}]
    with pytest.raises(UserError, match="searchable Responses surface"):
        model._params(ModelRequest(None, "hi", ModelSettings(), [ToolSearchTool()]))
