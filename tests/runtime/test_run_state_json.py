"""``RunState.to_json`` in the SDK's shape: a dict (``to_string`` the text), and the context
saved only through a serializer and rebuilt through a deserializer."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from jupyter_agents import Agent, RunContextWrapper, Runner, RunState, UserError, tool
from jupyter_agents.runtime.run_state import CURRENT_SCHEMA_VERSION
from jupyter_agents.testing import ScriptedModel, text, tool_call


@dataclass
class Account:
    owner: str
    token: str


def paused_agent(ran: list[str]) -> Agent[Any]:
    @tool(needs_approval=True)
    def pay(ctx: RunContextWrapper[Any], amount: int) -> str:
        """Pay."""
        ran.append(f"{ctx.context.owner}:{amount}")
        return "paid"

    model = ScriptedModel([[tool_call("pay", {"amount": 5}, call_id="c1")], [text("done")]])
    return Agent(name="a", model=model, tools=[pay])


async def test_to_json_is_a_dict_and_to_string_its_text() -> None:
    agent = paused_agent([])
    state = (await Runner.run(agent, "go", context=Account("ana", "secret"))).to_state()
    saved = state.to_json()
    assert isinstance(saved, dict) and saved["$schemaVersion"] == CURRENT_SCHEMA_VERSION == "1.21"
    assert json.loads(state.to_string()) == saved
    # the context object is not saved without a serializer
    assert saved["context"]["context"] == {} and saved["context"]["context_meta"]["omitted"]
    assert "secret" not in state.to_string()
    loaded = await RunState.from_json(agent, saved)
    assert loaded.context_wrapper.context is None
    assert [i.call_id for i in loaded.interruptions] == ["c1"]


async def test_the_context_goes_through_the_serializer_and_back() -> None:
    ran: list[str] = []
    agent = paused_agent(ran)
    state = (await Runner.run(agent, "go", context=Account("ana", "secret"))).to_state()
    seen: list[Any] = []

    def dump(account: Account) -> dict[str, Any]:
        seen.append(account)
        return {"owner": account.owner}

    saved = state.to_json(context_serializer=dump)
    assert saved["context"]["context"] == {"owner": "ana"}
    assert seen == [state.context_wrapper.context]
    text = state.to_string(context_serializer=dump)
    assert json.loads(text)["context"]["context"] == {"owner": "ana"}

    loaded = RunState.from_json(
        agent, saved, context_deserializer=lambda d: Account(d["owner"], "restored")
    )
    assert loaded.context_wrapper.context == Account("ana", "restored")
    assert ran == []  # loading runs nothing
    loaded.approve(loaded.interruptions[0])
    result = await Runner.run(agent, loaded)
    assert result.final_output == "done" and ran == ["ana:5"]

    plain = RunState.from_string(agent, json.dumps(saved))
    assert plain.context_wrapper.context == {"owner": "ana"}  # no deserializer: the mapping
    override = RunState.from_json(agent, saved, context_override={"owner": "bo"})
    assert override.context_wrapper.context == {"owner": "bo"}
    wrapped = RunState.from_json(
        agent, saved, context_override=RunContextWrapper(Account("cy", "t"))
    )
    assert wrapped.context_wrapper.context == Account("cy", "t")


async def test_strict_context_and_failing_serializers_are_user_errors() -> None:
    agent = paused_agent([])
    state = (await Runner.run(agent, "go", context=Account("ana", "secret"))).to_state()
    with pytest.raises(UserError, match="strict_context"):
        state.to_json(strict_context=True)
    with pytest.raises(UserError, match="must return a mapping"):
        state.to_json(context_serializer=lambda c: [c.owner])  # type: ignore[arg-type,return-value]

    def broken(account: Account) -> dict[str, Any]:
        raise RuntimeError("no")

    with pytest.raises(UserError, match="serializer failed"):
        state.to_json(context_serializer=broken)
    saved = state.to_json(context_serializer=lambda c: {"owner": c.owner})
    with pytest.raises(UserError, match="context_deserializer"):
        RunState.from_json(agent, saved, strict_context=True)
    with pytest.raises(UserError, match="deserializer failed"):
        RunState.from_json(agent, saved, context_deserializer=lambda d: d["missing"])
    with pytest.raises(UserError, match="damaged: context"):
        RunState.from_json(agent, {**saved, "context": ["not", "a", "mapping"]})


async def test_a_saved_call_names_its_fields_by_python_name_or_alias() -> None:
    agent = paused_agent([])
    saved = (await Runner.run(agent, "go")).to_state().to_json()
    (call,) = [i for i in saved["generated_items"] if i["type"] == "tool_call_item"]
    for key, value in (("async_", True), ("async", False)):
        call["raw_item"].pop("async_", None)
        call["raw_item"].pop("async", None)
        call["raw_item"][key] = value
        state = RunState.from_json(agent, saved)
        raw = state.interruptions[0].raw_item
        assert raw.async_ is value and "async_" not in (raw.model_extra or {})


@pytest.mark.parametrize("through", ["live", "json"])
async def test_a_resumed_runs_raw_responses_start_with_those_before_the_pause(
    through: str,
) -> None:
    agent = paused_agent([])
    first = await Runner.run(agent, "go")
    state = first.to_state()
    if through == "json":
        saved = state.to_json()
        assert saved["model_responses"][0]["output"][0]["call_id"] == "c1"
        assert saved["last_model_response"] == saved["model_responses"][-1]
        state = RunState.from_json(agent, saved)
    state.approve(state.interruptions[0])
    resumed = await Runner.run(agent, state)
    assert [r.output[0].type for r in resumed.raw_responses] == ["function_call", "message"]
    assert resumed.raw_responses[0].output[0].call_id == "c1"
    assert len(first.raw_responses) == 1  # the first result stays as it was


def _as_the_sdk_wrote_it(saved: dict[str, Any]) -> dict[str, Any]:
    """A document of the SDK's schema without this project's entry (the SDK writes none)."""
    doc: dict[str, Any] = json.loads(json.dumps(saved))
    del doc["jupyter_agents"]
    return doc


async def test_a_state_the_sdk_wrote_loads_from_its_own_fields() -> None:
    ran: list[str] = []
    agent = paused_agent(ran)
    state = (await Runner.run(agent, "go", context=Account("ana", "t"))).to_state()
    doc = _as_the_sdk_wrote_it(state.to_json())
    doc["context"]["approvals"] = {"pay": {"approved": ["c1"], "rejected": []}}
    loaded = RunState.from_json(agent, doc, context=Account("ana", "t"))
    assert [i.call_id for i in loaded.interruptions] == ["c1"] and loaded.undecided == []
    assert ran == []  # loading runs nothing
    assert loaded.progress.model_input == state.progress.model_input
    result = await Runner.run(agent, loaded)
    assert result.final_output == "done" and ran == ["ana:5"]


@pytest.mark.parametrize(
    "approvals",
    [
        {"pay": {"approved": ["other"], "rejected": []}},  # another call id
        {"look": {"approved": ["c1"], "rejected": []}},  # another tool
    ],
)
async def test_an_sdk_approval_applies_only_to_the_waiting_call_it_names(
    approvals: dict[str, Any],
) -> None:
    agent = paused_agent([])
    state = (await Runner.run(agent, "go")).to_state()
    doc = _as_the_sdk_wrote_it(state.to_json())
    doc["context"]["approvals"] = approvals
    loaded = RunState.from_json(agent, doc)
    assert [i.call_id for i in loaded.undecided] == ["c1"]
    assert loaded.ledger.calls == {}


async def test_the_waiting_function_calls_are_the_sdks_last_processed_response() -> None:
    agent = paused_agent([])
    state = (await Runner.run(agent, "go")).to_state()
    state.approve(state.interruptions[0])
    saved = state.to_json()
    processed = saved["last_processed_response"]
    assert [f["tool"]["name"] for f in processed["functions"]] == ["pay"]
    assert [f["tool_call"]["call_id"] for f in processed["functions"]] == ["c1"]
    assert [i["raw_item"]["call_id"] for i in processed["new_items"]] == ["c1"]
    assert processed["interruptions"] == saved["current_step"]["data"]["interruptions"]
    # the decision travels in this project's entry only: the SDK asks again
    assert saved["jupyter_agents"]["ledger"]["calls"]["c1"]["approved"] is True
