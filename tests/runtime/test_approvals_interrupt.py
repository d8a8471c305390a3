"""Interruptions: without a handler the run pauses; RunState decides and resumes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    InMemorySession,
    Runner,
    RunState,
    ToolApprovalItem,
    UserError,
    tool,
)
from jupyter_agents.testing import ScriptedModel, tool_call

from ..recorded import scripted_requests
from .approval_agents import AFTER_RESUME, FIRST_TURNS, email, mail_agent, sent

HERE = Path(__file__).parent


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def outputs(result: Any) -> list[Any]:
    return [i.raw_item["output"] for i in result.new_items if i.type == "tool_call_output_item"]


async def pause() -> tuple[Agent, Any]:
    agent = mail_agent([*FIRST_TURNS, *AFTER_RESUME])
    return agent, await Runner.run(agent, "email ana and bob")


async def test_a_gated_call_pauses_the_run_and_the_rest_of_the_turn_runs() -> None:
    agent, result = await pause()
    assert result.final_output is None
    (item,) = result.interruptions
    assert isinstance(item, ToolApprovalItem)
    assert (item.tool_name, item.call_id, item.agent) == ("send_email", "c1", agent)
    assert item.arguments == {"to": "ana@example.com", "body": "hi"}
    assert outputs(result) == ["sunny in Paris"]
    assert sent() == []


async def test_approve_and_resume_runs_the_call_then_the_conversation_goes_on() -> None:
    agent, result = await pause()
    state = result.to_state()
    assert state.approve(state.interruptions[0]) is True

    second = await Runner.run(agent, state)
    assert sent() == [{"to": "ana@example.com", "body": "hi"}]
    # The model asks for bob next: a new call, a new interruption.
    assert [i.call_id for i in second.interruptions] == ["c2"]
    state = second.to_state()
    state.reject(state.interruptions[0], message="not bob")
    third = await Runner.run(agent, state)

    assert third.final_output == "All done."
    assert [m["to"] for m in sent()] == ["ana@example.com"]
    assert outputs(third)[-1].endswith("Reason: not bob")
    model_input = scripted_requests(agent)[-1].input
    call_ids = [i["call_id"] for i in model_input if i.get("type") == "function_call"]
    output_ids = [i["call_id"] for i in model_input if i.get("type") == "function_call_output"]
    assert sorted(call_ids) == sorted(output_ids)  # every call got exactly one output
    assert third.context_wrapper.usage.requests == 3


async def test_a_decided_call_does_not_ask_its_needs_approval_again_on_resume() -> None:
    asked: list[str] = []

    async def review(ctx: Any, arguments: dict[str, Any], call_id: str) -> bool:
        asked.append(call_id)
        return True

    @tool(needs_approval=review)
    def publish(text: str) -> str:
        """Publish."""
        return f"published {text}"

    model = ScriptedModel([[tool_call("publish", {"text": "a"}, "p1")], ["done"]])
    agent = Agent(name="p", model=model, tools=[publish])
    result = await Runner.run(agent, "go")
    state = result.to_state()
    state.approve(state.interruptions[0])
    resumed = await Runner.run(agent, state)
    assert outputs(resumed) == ["published a"]
    assert asked == ["p1"]  # once, when the call was made: the decision answers it on resume


async def test_undecided_calls_interrupt_again() -> None:
    agent, result = await pause()
    again = await Runner.run(agent, result.to_state())
    assert [i.call_id for i in again.interruptions] == ["c1"]
    assert sent() == []
    assert len(scripted_requests(agent)) == 1  # no model call while still waiting


async def test_always_decisions_carry_across_resume() -> None:
    agent, result = await pause()
    state = result.to_state()
    state.approve(state.interruptions[0], always=True)
    final = await Runner.run(agent, state)
    assert final.final_output == "All done."
    assert [m["to"] for m in sent()] == ["ana@example.com", "bob@example.com"]


async def test_edited_arguments_on_resume_are_validated() -> None:
    agent, result = await pause()
    state = result.to_state()
    with pytest.raises(UserError, match="Edited arguments refused"):
        state.approve(state.interruptions[0], arguments={"to": 42})
    assert state.approve(state.interruptions[0], arguments={"to": "eve@example.com", "body": "x"})
    await Runner.run(agent, state)
    assert sent()[0] == {"to": "eve@example.com", "body": "x"}


async def test_duplicate_late_and_unknown_decisions_are_ignored() -> None:
    agent, result = await pause()
    state = result.to_state()
    item = state.interruptions[0]
    assert state.approve(item) is True
    assert state.reject(item) is False  # the first decision stands
    assert state.approve("no-such-call") is False
    stale = ToolApprovalItem(
        agent=agent, raw_item=email("x@example.com", "zzz").__class__, tool_name="send_email"
    )
    assert state.approve(stale.raw_item) is False
    await Runner.run(agent, state)
    assert len(sent()) == 1


async def test_to_state_without_interruptions_is_a_user_error() -> None:
    from jupyter_agents.testing import ScriptedModel

    result = await Runner.run(Agent(name="a", model=ScriptedModel(["hi"])), "x")
    with pytest.raises(UserError, match="no interruptions"):
        result.to_state()


async def test_streamed_runs_pause_and_resume_too() -> None:
    agent = mail_agent([*FIRST_TURNS, *AFTER_RESUME])
    streamed = Runner.run_streamed(agent, "go")
    names = [e.name async for e in streamed.stream_events() if e.type == "run_item_stream_event"]
    assert names == ["tool_called", "tool_called", "tool_approval_requested", "tool_output"]
    assert [i.call_id for i in streamed.interruptions] == ["c1"]
    state = streamed.to_state()
    state.approve(state.interruptions[0], always=True)
    resumed = Runner.run_streamed(agent, state)
    async for _ in resumed.stream_events():
        pass
    assert resumed.final_output == "All done."


async def test_json_round_trip_and_version_checks() -> None:
    agent, result = await pause()
    text = result.to_state().to_string()
    data = json.loads(text)
    assert result.to_state().to_json()["jupyter_agents"]["state_id"]  # the same, as a dict
    assert data["$schemaVersion"] == "1.21"  # the SDK's schema
    restored = RunState.from_json(agent, text)
    assert [i.call_id for i in restored.interruptions] == ["c1"]
    assert restored.context_wrapper.usage.requests == 1

    data["$schemaVersion"] = "2.0"
    with pytest.raises(UserError, match="cannot read"):
        RunState.from_json(agent, json.dumps(data))
    data["$schemaVersion"] = []  # not a string: named by its type, no TypeError from a lookup
    with pytest.raises(UserError, match=r"schema version of type list, which .* cannot read"):
        RunState.from_json(agent, json.dumps(data))
    with pytest.raises(UserError, match="not a saved RunState"):
        RunState.from_json(agent, '{"hello": 1}')
    with pytest.raises(UserError, match="was running"):
        RunState.from_json(Agent(name="other"), text)


RESUME_SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
from runtime.approval_agents import AFTER_RESUME, mail_agent, sent
from jupyter_agents import Runner, RunState

agent = mail_agent(AFTER_RESUME)
state = RunState.from_json(agent, open("state.json").read())
state.approve(state.interruptions[0], always=True)
result = Runner.run_sync(agent, state)
print(json.dumps({{"final": result.final_output, "sent": sent(),
                  "requests": result.context_wrapper.usage.requests}}))
"""


async def test_resume_from_json_in_a_fresh_interpreter(tmp_path: Path) -> None:
    _, result = await pause()
    (tmp_path / "state.json").write_text(result.to_state().to_string())
    script = RESUME_SCRIPT.format(tests=str(HERE.parent))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["final"] == "All done."
    assert [m["to"] for m in report["sent"]] == ["ana@example.com", "bob@example.com"]
    assert report["requests"] == 3  # usage survived the restart


async def test_a_state_resumes_only_once() -> None:
    agent, result = await pause()
    state = result.to_state()
    state.approve(state.interruptions[0], always=True)
    await Runner.run(agent, state)
    with pytest.raises(UserError, match="already resumed"):
        await Runner.run(agent, state)
    assert len(sent()) == 2  # ana, then bob (always): nothing ran twice


async def test_undecided_lists_only_calls_without_a_decision() -> None:
    from .approval_agents import mail_agent as make

    agent = make([[email("a@x.org", "c1"), email("b@x.org", "c2")], ["ok"]])
    result = await Runner.run(agent, "go")
    state = result.to_state()
    state.approve("c1")
    assert [i.call_id for i in state.undecided] == ["c2"]
    assert "c2" in repr(state) and "c1" not in repr(state)


def test_decision_options_are_keyword_only() -> None:
    from jupyter_agents import ApprovalDecision

    with pytest.raises(TypeError):
        ApprovalDecision.approve({"to": "x"})  # type: ignore[arg-type,call-arg]
    with pytest.raises(UserError, match="always must be True or False"):
        ApprovalDecision.approve(always="yes")  # type: ignore[arg-type]
    assert ApprovalDecision.reject("why").message == "why"


async def test_a_handoff_in_a_paused_turn_happens_on_resume() -> None:
    from jupyter_agents.testing import ScriptedModel, text, tool_call

    from .approval_agents import send_email

    billing = Agent(name="billing", model=ScriptedModel([[text("Billing here.")]]))
    agent = Agent(
        name="mail",
        tools=[send_email],
        handoffs=[billing],
        model=ScriptedModel([[email("ana@example.com", "c1"), tool_call("transfer_to_billing")]]),
    )
    paused = await Runner.run(agent, "email and hand off")
    state = RunState.from_json(agent, paused.to_state().to_json())
    state.approve("c1")
    resumed = await Runner.run(agent, state)
    assert resumed.final_output == "Billing here." and resumed.last_agent is billing
    sent_input = scripted_requests(billing)[0].input
    calls = [i["call_id"] for i in sent_input if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in sent_input if i.get("type") == "function_call_output"]
    assert sorted(calls) == sorted(outputs)  # the handoff call got its output too


async def test_a_resumed_run_saves_the_whole_run_to_its_session_once() -> None:
    session = InMemorySession("resume")
    await session.add_items([{"role": "user", "content": "earlier"}])
    agent = mail_agent([[email("ana@example.com", "c1")], ["sent"]])
    first = await Runner.run(agent, "mail Ana", session=session)
    assert first.interruptions and len(await session.get_items()) == 1  # a paused run saves nothing

    state = first.to_state()
    state.approve(first.interruptions[0])
    restored = RunState.from_json(agent, state.to_json())  # as if saved and loaded later
    resumed = await Runner.run(agent, restored, session=session)

    assert resumed.final_output == "sent"
    saved = await session.get_items()
    assert [i.get("content") for i in saved if i.get("role") == "user"] == ["earlier", "mail Ana"]
    assert [i.get("type") for i in saved[2:]] == [
        "function_call",
        "function_call_output",
        "message",
    ]
    assert saved[-1]["role"] == "assistant"
