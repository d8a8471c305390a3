"""Nested handoff history (``nest_handoff_history`` and its markers), ``input_items`` of a
handoff filter, ``remove_all_tools``' reach, and the run items' SDK behaviours (weak agents,
``created_by`` left out on replay, tool search items)."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
)

from jupyter_agents import (
    Agent,
    HandoffInputData,
    HandoffOutputItem,
    ItemHelpers,
    MessageOutputItem,
    ModelResponse,
    ReasoningItem,
    Runner,
    ToolCallItem,
    ToolCallOutputItem,
    ToolSearchCallItem,
    ToolSearchOutputItem,
    get_conversation_history_wrappers,
    handoff,
    handoff_filters,
    nest_handoff_history,
    reset_conversation_history_wrappers,
    set_conversation_history_wrappers,
)
from jupyter_agents.handoffs import history
from jupyter_agents.testing import ScriptedModel, text, tool_call

from ..recorded import scripted_requests

AGENT = Agent(name="a")


def message(content: str) -> MessageOutputItem:
    raw = ResponseOutputMessage(
        id="m",
        content=[ResponseOutputText(text=content, annotations=[], type="output_text")],
        role="assistant",
        status="completed",
        type="message",
    )
    return MessageOutputItem(agent=AGENT, raw_item=raw)


def tool_output(content: str) -> ToolCallOutputItem:
    raw = {"type": "function_call_output", "call_id": "c1", "output": content}
    return ToolCallOutputItem(agent=AGENT, raw_item=raw, output=content)


def data(
    history: Any = (), pre: tuple[Any, ...] = (), new: tuple[Any, ...] = ()
) -> HandoffInputData:
    return HandoffInputData(input_history=history, pre_handoff_items=pre, new_items=new)


def items(d: HandoffInputData) -> list[dict[str, Any]]:
    assert isinstance(d.input_history, tuple)
    return list(d.input_history)


class Capture:
    """A history mapper that records the transcript it is given and returns it."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def __call__(self, transcript: list[Any]) -> list[Any]:
        self.seen.extend(transcript)
        return transcript


def test_nesting_summarizes_the_history_and_keeps_the_turns_messages() -> None:
    before = data(
        ({"role": "user", "content": "Hello"},),
        pre=(message("First reply"), tool_output("42")),
        new=(message("Passing you on"),),
    )
    nested = nest_handoff_history(before)
    summary, kept = items(nested)
    start, end = get_conversation_history_wrappers()
    assert summary["role"] == "assistant"
    lines = summary["content"].splitlines()
    assert lines[1] == start == "<CONVERSATION HISTORY>"
    assert lines[-1] == end
    assert lines[2] == "1. user: Hello"
    assert "First reply" in lines[3] and '"42"' in lines[4]
    assert kept["content"][0]["text"] == "Passing you on"
    assert nested.pre_handoff_items == () and nested.input_items == ()
    assert nested.new_items == before.new_items


def test_nesting_again_reads_the_summary_back_instead_of_nesting_it() -> None:
    first = nest_handoff_history(
        data(({"role": "user", "name": "Alice", "content": "line one\n2. line two"},))
    )
    capture = Capture()
    second = nest_handoff_history(
        data((*items(first), {"role": "user", "content": "More"})), history_mapper=capture
    )
    assert capture.seen == [
        {"role": "user", "name": "Alice", "content": "line one\n2. line two"},
        {"role": "user", "content": "More"},
    ]
    assert items(second) == capture.seen
    # Text that only quotes the markers is a message, not a summary.
    quoting = {
        "role": "assistant",
        "content": "See:\n<CONVERSATION HISTORY>\n</CONVERSATION HISTORY>",
    }
    capture = Capture()
    nest_handoff_history(data((quoting,)), history_mapper=capture)
    assert capture.seen == [quoting]


def test_custom_markers_are_written_and_read_back() -> None:
    set_conversation_history_wrappers(start="<<S>>")
    try:
        assert get_conversation_history_wrappers() == ("<<S>>", "</CONVERSATION HISTORY>")
        nested = nest_handoff_history(data(({"role": "user", "content": "Hi"},)))
        assert items(nested)[0]["content"].splitlines()[1] == "<<S>>"
        again = nest_handoff_history(nested)
        assert items(again)[0]["content"].count("<<S>>") == 1
    finally:
        reset_conversation_history_wrappers()
    assert history.get_conversation_history_wrappers()[0] == "<CONVERSATION HISTORY>"


def test_an_empty_history_says_so() -> None:
    (summary,) = items(nest_handoff_history(data()))
    assert "(no previous turns recorded)" in summary["content"]


def test_remove_all_tools_drops_reasoning_tool_search_and_filters_input_items() -> None:
    reasoning = ReasoningItem(
        agent=AGENT, raw_item=ResponseReasoningItem(id="r", summary=[], type="reasoning")
    )
    search = ToolSearchCallItem(agent=AGENT, raw_item={"type": "tool_search_call"})
    kept = message("kept")
    before = data(
        (
            {"role": "user", "content": "Hi"},
            {"type": "reasoning", "id": "r", "summary": []},
            {"type": "tool_search_output", "tools": []},
            {"type": "program", "id": "p"},
        ),
        pre=(reasoning, search, kept),
        new=(kept,),
    ).clone(input_items=(tool_output("x"), kept))
    after = handoff_filters.remove_all_tools(before)
    assert after.input_history == ({"role": "user", "content": "Hi"},)
    assert after.pre_handoff_items == (kept,)
    assert after.input_items == (kept,)
    assert handoff_filters.remove_all_tools(data()).input_items is None


async def test_input_items_replace_new_items_in_what_the_next_agent_sees() -> None:
    def hide_this_turn(d: HandoffInputData) -> HandoffInputData:
        return d.clone(input_items=())

    billing = Agent(name="billing", model=ScriptedModel([[text("ok")]]))
    triage = Agent(
        name="triage",
        model=ScriptedModel([[tool_call("transfer_to_billing", call_id="h1")]]),
        handoffs=[handoff(billing, input_filter=hide_this_turn)],
    )
    result = await Runner.run(triage, "refund")
    assert [i.get("role", i.get("type")) for i in scripted_requests(billing)[0].input] == ["user"]
    # The turn's items are still the run's.
    assert any(isinstance(i, HandoffOutputItem) for i in result.new_items)


async def test_nest_handoff_history_works_as_a_run_filter() -> None:
    billing = Agent(name="billing", model=ScriptedModel([[text("ok")]]))
    triage = Agent(
        name="triage",
        model=ScriptedModel([[tool_call("transfer_to_billing", call_id="h1")]]),
        handoffs=[handoff(billing, input_filter=nest_handoff_history)],
    )
    await Runner.run(triage, "refund please")
    (summary,) = list(scripted_requests(billing)[0].input)
    assert summary["role"] == "assistant"
    assert "1. user: refund please" in summary["content"]
    assert "transfer_to_billing" in summary["content"]


def test_release_agent_keeps_only_weak_references() -> None:
    owner, source, target = Agent(name="o"), Agent(name="s"), Agent(name="t")
    raw = {"type": "function_call_output", "call_id": "c", "output": "x"}
    item: Any = HandoffOutputItem(
        agent=owner, raw_item=raw, source_agent=source, target_agent=target
    )
    item.release_agent()
    assert (item.agent, item.source_agent, item.target_agent) == (owner, source, target)
    refs = [weakref.ref(a) for a in (owner, source, target)]
    del owner, source, target
    gc.collect()
    assert [r() for r in refs] == [None, None, None]
    assert (item.agent, item.source_agent, item.target_agent) == (None, None, None)


def test_replayed_items_leave_out_created_by_without_changing_the_original() -> None:
    call = ResponseFunctionToolCall.model_validate(
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}", "created_by": "s"}
    )
    assert "created_by" not in ToolCallItem(agent=AGENT, raw_item=call).to_input_item()
    chunk = {"stdout": "hi", "stderr": "", "created_by": "s"}
    raw = {"type": "shell_call_output", "call_id": "c", "status": "completed", "output": [chunk]}
    replayed = ToolCallOutputItem(agent=AGENT, raw_item=raw, output="hi").to_input_item()
    assert replayed == {
        "type": "shell_call_output",
        "call_id": "c",
        "output": [{"stdout": "hi", "stderr": ""}],
    }
    assert chunk["created_by"] == "s" and raw["status"] == "completed"
    plain = {"type": "function_call_output", "call_id": "c", "output": "x"}
    assert ToolCallOutputItem(agent=AGENT, raw_item=plain).to_input_item() is plain
    search = {"type": "tool_search_output", "tools": [], "created_by": "server"}
    response = ModelResponse(output=[search])
    assert response.to_input_items() == [{"type": "tool_search_output", "tools": []}]
    assert ToolSearchOutputItem(agent=AGENT, raw_item=search).to_input_item() == {
        "type": "tool_search_output",
        "tools": [],
    }


def test_call_ids_and_names_read_dicts_and_hosted_calls() -> None:
    raw = {"type": "function_call", "name": "f", "call_id": "c1", "arguments": "{}"}
    assert ToolCallItem(agent=AGENT, raw_item=raw).tool_name == "f"
    assert ToolCallItem(agent=AGENT, raw_item=raw).call_id == "c1"
    hosted = {"type": "file_search_call", "id": "fs_1"}
    assert ToolCallItem(agent=AGENT, raw_item=hosted).call_id == "fs_1"
    no_id = {"type": "function_call_output", "output": "x"}
    assert ToolCallOutputItem(agent=AGENT, raw_item=no_id).call_id is None


def test_input_to_new_input_list_copies_deeply() -> None:
    original: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "input_text", "text": "a"}]}
    ]
    copied = ItemHelpers.input_to_new_input_list(original)
    copied[0]["content"][0]["text"] = "b"
    assert original[0]["content"][0]["text"] == "a"
