"""Run items (``runtime/items.py``): their fields and what they give back as model input."""

from __future__ import annotations

from openai.types.responses import ResponseFunctionToolCall

from jupyter_agents import Agent, ToolCallItem


def test_tool_call_item_title_and_description_stay_out_of_the_model_input() -> None:
    raw = ResponseFunctionToolCall(
        id="fc_1", call_id="call_1", name="my_tool", arguments="{}", type="function_call"
    )
    item = ToolCallItem(
        agent=Agent(name="a"), raw_item=raw, title="My Tool", description="A helpful tool"
    )
    assert (item.title, item.description) == ("My Tool", "A helpful tool")
    given = item.to_input_item()
    assert isinstance(given, dict) and given["type"] == "function_call"
    assert "title" not in given and "description" not in given
    plain = ToolCallItem(agent=Agent(name="a"), raw_item=raw)
    assert (plain.title, plain.description) == (None, None)
