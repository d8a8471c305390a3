"""Run modes (``RunConfig.mode``): ``ask`` runs only tools that change nothing, ``plan`` adds a
plan a person approves before anything acts, ``agent`` is unrestricted by the mode.

The attacker here is the model: in ``ask`` mode it calls every kind of tool that acts (a
function tool, the shell, apply_patch, an agent tool, a tool of another agent it hands off to,
an unknown name, a read-only tool's name in the shell's form), with arguments and ids chosen to
slip through; each is refused without anyone being asked and nothing changes. A saved state
cannot make a resumed run freer than the mode it is resumed with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    ApplyPatchTool,
    ApprovalDecision,
    ApprovalRequest,
    PlanTool,
    RunConfig,
    Runner,
    RunState,
    ShellTool,
    ToolCallOutputItem,
    UserError,
    WebSearchTool,
    WorkspaceEditor,
    handoff,
    latest_plan,
    tool,
)
from jupyter_agents.runtime.modes import MODES, stricter
from jupyter_agents.runtime.tools.plan import PLAN_UPDATED
from jupyter_agents.testing import ScriptedModel, output_item, tool_call

changed: list[str] = []


@tool
def write_file(name: str, text: str) -> str:
    """Write a file."""
    changed.append(name)
    return "written"


@tool(read_only=True)
def read_file(name: str) -> str:
    """Read a file."""
    return f"contents of {name}"


@tool(needs_approval=True)
def pay(amount: int) -> str:
    """Pay."""
    changed.append(f"paid {amount}")
    return "paid"


@pytest.fixture(autouse=True)
def _clear() -> None:
    changed.clear()


def asked_nobody(request: ApprovalRequest) -> ApprovalDecision:
    raise AssertionError(f"nobody may be asked in ask mode, but {request.tool_name} asked")


def outputs(result: Any) -> dict[str, ToolCallOutputItem]:
    return {
        str(item.call_id): item for item in result.new_items if isinstance(item, ToolCallOutputItem)
    }


def steps(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {"plan": [{"step": s, "status": status} for s, status in pairs]}


PLAN = steps(("Read the data", "pending"), ("Write the report", "pending"))


# -- ask --------------------------------------------------------------------------------------


async def test_ask_mode_offers_only_read_only_tools() -> None:
    model = ScriptedModel([["Nothing to do."]])
    agent = Agent(
        name="a",
        model=model,
        tools=[write_file, read_file, pay, PlanTool(), WebSearchTool(), ShellTool()],
    )
    await Runner.run(agent, "hi", run_config=RunConfig(mode="ask"))
    assert sorted(model.requests[0].tool_names) == ["read_file", "web_search"]


async def test_ask_mode_refuses_every_call_that_could_change_something(tmp_path: Path) -> None:
    outside = tmp_path / "patched.txt"
    outside.write_text("before\n")
    nested_model = ScriptedModel([[tool_call("write_file", {"name": "n", "text": "x"})], ["ok"]])
    helper = Agent(name="helper", model=nested_model, tools=[write_file])
    shell = output_item(
        {
            "type": "shell_call",
            "id": "sh_1",
            "call_id": "s1",
            "status": "completed",
            "action": {"commands": [f"echo pwned > {tmp_path}/shell.txt"], "timeout_ms": None},
        }
    )
    patch = output_item(
        {
            "type": "apply_patch_call",
            "id": "ap_1",
            "call_id": "p1",
            "status": "completed",
            "operation": {
                "type": "update_file",
                "path": "patched.txt",
                "diff": "-before\n+after\n",
            },
        }
    )
    model = ScriptedModel(
        [
            [
                tool_call("write_file", {"name": "x", "text": "y"}, call_id="w1"),
                tool_call("pay", {"amount": 5}, call_id="p-pay"),
                tool_call("helper", {"input": "write it"}, call_id="h1"),
                tool_call("update_plan", PLAN, call_id="u1"),
                tool_call("no_such_tool", {}, call_id="x1"),
                tool_call("read_file", {"name": "data.csv"}, call_id="r1"),
                shell,
                patch,
            ],
            ["I could only read."],
        ]
    )
    agent = Agent(
        name="a",
        model=model,
        tools=[
            write_file,
            read_file,
            pay,
            PlanTool(),
            helper.as_tool("helper", "A helper."),
            ShellTool(workspace=tmp_path, approval_policy="never"),
            ApplyPatchTool(WorkspaceEditor(tmp_path), approval_policy="never"),
        ],
    )
    result = await Runner.run(
        agent, "change things", run_config=RunConfig(mode="ask", approval_handler=asked_nobody)
    )
    got = outputs(result)
    assert got["r1"].status == "ok" and got["r1"].output == "contents of data.csv"
    for call_id in ("w1", "p-pay", "h1", "u1", "x1", "s1", "p1"):
        assert got[call_id].status == "rejected", (call_id, got[call_id].output)
        assert str(got[call_id].output).startswith("ask mode: "), got[call_id].output
        error = got[call_id].error
        assert error is not None and error.type == "ModeRefused"
    assert changed == []
    assert nested_model.requests == []  # the agent tool's run never started
    assert not (tmp_path / "shell.txt").exists()
    assert outside.read_text() == "before\n"
    told = [i for i in model.requests[1].input if i.get("call_id") == "w1" and "output" in i]
    assert "write_file is not one of the tools that only read, so it was not run" in str(
        told[0]["output"]
    )


async def test_a_handoff_keeps_the_mode() -> None:
    writer_model = ScriptedModel(
        [[tool_call("write_file", {"name": "x", "text": "y"}, call_id="w2")], ["done"]]
    )
    writer = Agent(name="writer", model=writer_model, tools=[write_file])
    model = ScriptedModel([[tool_call("transfer_to_writer", {}, call_id="t1")]])
    triage = Agent(name="triage", model=model, handoffs=[handoff(writer)])
    result = await Runner.run(triage, "write", run_config=RunConfig(mode="ask"))
    assert writer_model.requests[0].tool_names == []
    assert outputs(result)["w2"].status == "rejected" and changed == []


async def test_a_state_cannot_make_a_resumed_run_freer(tmp_path: Path) -> None:
    model = ScriptedModel([[tool_call("pay", {"amount": 7}, call_id="p1")], ["paid"]])
    agent = Agent(name="a", model=model, tools=[pay])
    paused = await Runner.run(agent, "pay")  # agent mode, no handler: pauses for approval
    saved = paused.to_state().to_json()
    state = RunState.from_json(agent, saved)
    state.approve(state.get_interruptions()[0])
    result = await Runner.run(agent, state, run_config=RunConfig(mode="ask"))
    assert outputs(result)["p1"].status == "rejected" and changed == []
    assert str(outputs(result)["p1"].output).startswith("ask mode: pay")


async def test_a_forged_mode_in_a_saved_state_is_refused() -> None:
    model = ScriptedModel([[tool_call("update_plan", PLAN, call_id="u1")], ["ok"]])
    agent = Agent(name="a", model=model, tools=[PlanTool()])
    paused = await Runner.run(agent, "plan", run_config=RunConfig(mode="plan"))
    saved = paused.to_state().to_string()
    forged = saved.replace('"mode": "plan"', '"mode": "root"')
    assert forged != saved
    with pytest.raises(UserError, match=r"damaged: jupyter_agents\.mode"):
        RunState.from_json(agent, forged)
    freed = saved.replace(', "mode": "plan"', "")  # an agent-mode state writes no mode
    assert freed != saved
    state = RunState.from_json(agent, freed)  # resumed in plan mode, the plan still asks
    result = await Runner.run(agent, state, run_config=RunConfig(mode="plan"))
    assert result.interruptions and result.interruptions[0].tool_name == "update_plan"


def test_stricter_is_the_mode_that_allows_less() -> None:
    assert [stricter(a, b) for a in MODES for b in MODES] == [
        "ask", "ask", "ask", "ask", "plan", "plan", "ask", "plan", "agent",
    ]  # fmt: skip


def test_an_unknown_mode_is_one_line() -> None:
    config = RunConfig(mode="yolo")  # type: ignore[arg-type]
    with pytest.raises(UserError, match=r"RunConfig\.mode must be 'ask', 'plan' or 'agent'"):
        Runner.run_sync(Agent(name="a", model=ScriptedModel([["x"]])), "x", run_config=config)


# -- plan -------------------------------------------------------------------------------------


def plan_agent(model: ScriptedModel) -> Agent[Any]:
    return Agent(name="p", model=model, tools=[write_file, read_file, PlanTool()])


async def test_plan_mode_acts_only_after_the_plan_is_approved() -> None:
    seen: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> ApprovalDecision:
        seen.append(request)
        assert changed == []  # nothing acted before the plan was approved
        return ApprovalDecision.approve()

    model = ScriptedModel(
        [
            [tool_call("write_file", {"name": "early", "text": "x"}, call_id="w0")],
            [tool_call("update_plan", PLAN, call_id="u1")],
            [tool_call("write_file", {"name": "report", "text": "x"}, call_id="w1")],
            ["Done."],
        ]
    )
    result = await Runner.run(
        plan_agent(model), "report", run_config=RunConfig(mode="plan", approval_handler=approve)
    )
    assert sorted(model.requests[0].tool_names) == ["read_file", "update_plan"]
    assert outputs(result)["w0"].status == "rejected"  # before the plan: refused, not asked
    assert [r.tool_name for r in seen] == ["update_plan"]
    assert seen[0].plan_review and not seen[0].allows_always
    assert sorted(model.requests[2].tool_names) == ["read_file", "update_plan", "write_file"]
    told = outputs(result)["u1"].output
    assert told.startswith("The person approved this plan; you may act now.")
    assert "○ Write the report" in told
    assert changed == ["report"] and result.final_output == "Done."


async def test_an_edited_plan_is_what_the_model_gets() -> None:
    edited = steps(("Read the data", "pending"), ("Ask Ana first", "pending"))

    def edit(request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision.approve(arguments=edited)

    model = ScriptedModel([[tool_call("update_plan", PLAN, call_id="u1")], ["ok"]])
    result = await Runner.run(
        plan_agent(model), "x", run_config=RunConfig(mode="plan", approval_handler=edit)
    )
    told = outputs(result)["u1"].output
    assert told.startswith("The person approved this plan after editing it")
    assert "○ Ask Ana first" in told and "Write the report" not in told
    assert [s.step for s in latest_plan(result).steps] == ["Read the data", "Ask Ana first"]  # type: ignore[union-attr]
    answer = [i for i in model.requests[1].input if i.get("call_id") == "u1" and "output" in i]
    assert "○ Ask Ana first" in str(answer[0]["output"])  # what the model reads next


async def test_an_invalid_edit_is_refused_and_asked_again() -> None:
    answers = iter([{"plan": "not a list"}, steps(("Only step", "pending"))])
    errors: list[str | None] = []

    def edit(request: ApprovalRequest) -> ApprovalDecision:
        errors.append(request.error)
        return ApprovalDecision.approve(arguments=next(answers))

    model = ScriptedModel([[tool_call("update_plan", PLAN, call_id="u1")], ["ok"]])
    result = await Runner.run(
        plan_agent(model), "x", run_config=RunConfig(mode="plan", approval_handler=edit)
    )
    assert errors[0] is None and '"plan" must be a list' in str(errors[1])
    assert "○ Only step" in outputs(result)["u1"].output


async def test_a_rejected_plan_ends_the_run_with_the_reason() -> None:
    def reject(request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision.reject("too risky, ask Ana")

    model = ScriptedModel([[tool_call("update_plan", PLAN, call_id="u1")], ["never asked"]])
    result = await Runner.run(
        plan_agent(model), "x", run_config=RunConfig(mode="plan", approval_handler=reject)
    )
    assert result.final_output == "The plan was rejected: too risky, ask Ana"
    assert len(model.requests) == 1 and changed == []


async def test_a_plan_is_never_decided_by_a_standing_or_callback_decision() -> None:
    calls: list[str] = []
    plan_tool = PlanTool()

    def callback(ctx: Any, item: Any) -> dict[str, bool]:
        calls.append("callback")
        return {"approve": True}

    plan_tool.on_approval = callback
    model = ScriptedModel([[tool_call("update_plan", PLAN, call_id="u1")], ["ok"]])
    agent = Agent(name="p", model=model, tools=[plan_tool])
    result = await Runner.run(agent, "x", run_config=RunConfig(mode="plan"))  # no handler
    assert calls == [] and result.interruptions  # paused for a person, callback not asked
    assert result.interruptions[0].tool_name == "update_plan"


async def test_a_paused_plan_resumes_into_agent_mode() -> None:
    model = ScriptedModel(
        [
            [tool_call("update_plan", PLAN, call_id="u1")],
            [tool_call("write_file", {"name": "r", "text": "x"}, call_id="w1")],
            ["Done."],
        ]
    )
    agent = plan_agent(model)
    paused = await Runner.run(agent, "x", run_config=RunConfig(mode="plan"))
    state = RunState.from_json(agent, paused.to_state().to_json())
    state.approve(state.get_interruptions()[0])
    result = await Runner.run(agent, state, run_config=RunConfig(mode="plan"))
    assert changed == ["r"] and result.final_output == "Done."


async def test_in_agent_mode_the_plan_tool_asks_nobody() -> None:
    model = ScriptedModel([[tool_call("update_plan", PLAN, call_id="u1")], ["ok"]])
    result = await Runner.run(
        plan_agent(model), "x", run_config=RunConfig(approval_handler=asked_nobody)
    )
    assert outputs(result)["u1"].output == PLAN_UPDATED


# -- batches ----------------------------------------------------------------------------------


async def test_a_batch_in_ask_mode_changes_nothing_on_any_row(tmp_path: Path) -> None:
    from jupyter_agents import arun_batch

    def respond(request: Any) -> Any:
        if any(i.get("type") == "function_call_output" for i in request.input):
            return ["read only"]
        return [tool_call("write_file", {"name": request.user_text, "text": "x"})]

    agent = Agent(name="b", model=ScriptedModel(respond=respond), tools=[write_file, read_file])
    result = await arun_batch(
        agent,
        ["a", "b", "c"],
        run_config=RunConfig(mode="ask"),
        approve="auto",
        progress=None,
        cache=tmp_path / "rows.db",
    )
    assert [r.status for r in result.rows] == ["ok", "ok", "ok"]
    assert changed == []


async def test_a_batch_refuses_plan_mode_in_one_line() -> None:
    from jupyter_agents import arun_batch

    agent = Agent(name="b", model=ScriptedModel([["x"]]))
    with pytest.raises(UserError, match="asks once"):
        await arun_batch(agent, ["a"], run_config=RunConfig(mode="plan"), progress=None)


# -- replay -----------------------------------------------------------------------------------


async def test_a_recorded_plan_run_replays_its_mode_plan_and_approval(tmp_path: Path) -> None:
    from jupyter_agents import Cassette, ReplayMismatch

    edited = steps(("Only read", "pending"))

    def script() -> ScriptedModel:
        return ScriptedModel(
            [
                [tool_call("update_plan", PLAN, call_id="u1")],
                [tool_call("write_file", {"name": "r", "text": "x"}, call_id="w1")],
                ["Done."],
            ]
        )

    path = tmp_path / "runs.json"
    config = RunConfig(mode="plan", replay=Cassette(path, mode="record"))
    recorded = await Runner.run(
        plan_agent(script()),
        "x",
        run_config=config,
        approval_handler=lambda r: ApprovalDecision.approve(arguments=edited),
    )
    assert recorded.mode == "agent" and changed == ["r"]
    changed.clear()
    silent = ScriptedModel([])
    replayed = await Runner.run(
        plan_agent(silent),
        "x",
        run_config=RunConfig(mode="plan", replay=Cassette(path, mode="strict")),
        approval_handler=asked_nobody,
    )
    assert silent.requests == []  # no model request, nobody asked: the recording answered
    assert replayed.mode == "agent" and replayed.final_output == "Done."
    assert [s.step for s in latest_plan(replayed).steps] == ["Only read"]  # type: ignore[union-attr]
    assert outputs(replayed)["u1"].output == outputs(recorded)["u1"].output
    assert changed == []  # write_file answered from the recording (the cassette's default)
    with pytest.raises(ReplayMismatch):
        await Runner.run(  # another mode is another run: strict replay refuses it
            plan_agent(ScriptedModel([])),
            "x",
            run_config=RunConfig(mode="ask", replay=Cassette(path, mode="strict")),
        )
