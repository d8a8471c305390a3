"""The approval policies against the sandbox modes: who is asked, and where commands run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    ApprovalRequest,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    RunState,
    ShellTool,
    ToolApprovalItem,
)
from jupyter_agents.runtime.sandbox import SandboxPolicy
from jupyter_agents.runtime.sandbox.policy import ExecPolicy
from jupyter_agents.testing import ScriptedModel, output_item
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall

from ..prerequisites import needs_bwrap
from ..recorded import json_body

APPROVALS = ("untrusted", "on-request", "on-failure", "never")
MODES = ("read-only", "workspace-write", "danger-full-access")


def shell_function_call(arguments: dict[str, Any], call_id: str = "c1") -> Any:
    """A call in the shell's function form (the form that can ask to leave the sandbox)."""
    return output_item(
        {
            "type": "function_call",
            "name": "shell",
            "call_id": call_id,
            "arguments": json.dumps(arguments),
        }
    )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "data.txt").write_text("contents\n")
    (tmp_path / "outside").mkdir()
    return root


def command_for(case: str, ws: Path) -> dict[str, Any]:
    if case == "safe":
        return {"commands": ["cat data.txt"]}
    if case == "unsafe":
        return {"commands": ["echo x > made.txt"]}
    if case == "dangerous":
        return {"commands": ["rm -f data.txt"]}
    return {  # escalated: writes outside the workspace, which only works unsandboxed
        "commands": [f"echo x > {ws.parent / 'outside' / 'out.txt'}"],
        "sandbox_permissions": "require_escalated",
        "justification": "write the report next to the workspace",
    }


def expected(approval: str, mode: str, case: str) -> tuple[int, bool]:
    """(how many times a person is asked, whether the command had its effect), everyone
    approving."""
    if case == "safe":
        return 0, True
    if case == "escalated":
        return (0, False) if approval == "never" else (1, True)
    if case == "dangerous":  # asks under every policy; under "never" refused unless unsandboxed
        if approval == "never":
            return 0, mode == "danger-full-access"
        if mode == "read-only":  # approved, then stopped by the sandbox...
            return (2, True) if approval == "on-failure" else (1, False)  # ...or let out
        return 1, True
    if mode == "read-only":  # the write is stopped by the sandbox...
        if approval == "on-failure":
            return 1, True  # ...and the person lets it run again outside
        return (1 if approval == "untrusted" else 0), False
    return (1 if approval == "untrusted" else 0), True


@needs_bwrap
@pytest.mark.parametrize("case", ["safe", "unsafe", "escalated", "dangerous"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("approval", APPROVALS)
async def test_the_policy_matrix(ws: Path, approval: str, mode: str, case: str) -> None:
    asked: list[Any] = []

    def approve(request: Any) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.approve()

    model = ScriptedModel([[shell_function_call(command_for(case, ws))], ["done"]])
    tool = ShellTool(approval_policy=approval, sandbox_mode=mode, workspace=ws)  # type: ignore[arg-type]
    await Runner.run(Agent(name="p", model=model, tools=[tool]), "go", approval_handler=approve)
    answer = model.requests[1].input[-1]["output"]
    times, effect = expected(approval, mode, case)
    assert len(asked) == times, answer
    if case == "safe":
        assert "contents" in answer
    elif case == "unsafe":
        assert (ws / "made.txt").exists() is effect, answer
    elif case == "dangerous":
        assert (ws / "data.txt").exists() is not effect, answer
        if approval == "never" and not effect:
            assert "might destroy data" in answer
    else:
        assert (ws.parent / "outside" / "out.txt").exists() is effect, answer
        if approval == "never":
            assert "not allowed here (approval policy 'never')" in answer
    if case == "escalated" and times:
        assert asked[0].arguments["justification"] == "write the report next to the workspace"


@needs_bwrap
async def test_on_failure_shows_why_and_keeps_the_sandboxed_answer_when_declined(
    ws: Path,
) -> None:
    asked: list[Any] = []

    def reject(request: Any) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.reject()

    model = ScriptedModel([[shell_function_call(command_for("unsafe", ws))], ["done"]])
    tool = ShellTool(approval_policy="on-failure", sandbox_mode="read-only", workspace=ws)
    await Runner.run(Agent(name="p", model=model, tools=[tool]), "go", approval_handler=reject)
    (request,) = asked
    assert request.arguments["sandbox_permissions"] == "require_escalated"
    assert (
        "failed in the read-only sandbox (Read-only file system)"
        in request.arguments["justification"]
    )
    answer = model.requests[1].input[-1]["output"]
    assert "Read-only file system" in answer and "[exit code" in answer  # what the sandbox did
    assert not (ws / "made.txt").exists()


@needs_bwrap
@pytest.mark.parametrize("decision", ["approve", "reject"])
async def test_on_failure_pauses_and_resumes_from_saved_state(ws: Path, decision: str) -> None:
    model = ScriptedModel([[shell_function_call(command_for("unsafe", ws))], ["done"]])
    tool = ShellTool(approval_policy="on-failure", sandbox_mode="read-only", workspace=ws)
    agent = Agent(name="p", model=model, tools=[tool])
    paused = await Runner.run(agent, "go")
    (item,) = paused.interruptions
    assert isinstance(item, ToolApprovalItem)
    assert item.escalation and "Read-only file system" in item.escalation
    assert item.arguments["sandbox_permissions"] == "require_escalated"
    state = RunState.from_json(agent, paused.to_state().to_json())
    (loaded,) = state.interruptions
    assert isinstance(loaded, ToolApprovalItem)
    assert loaded.escalation == item.escalation and loaded.arguments == item.arguments
    getattr(state, decision)(loaded)
    result = await Runner.run(agent, state)
    assert result.final_output == "done"
    assert (ws / "made.txt").exists() is (decision == "approve")
    assert len(model.requests) == 2  # the sandboxed attempt is not asked for again


@needs_bwrap
async def test_an_always_decision_does_not_cover_leaving_the_sandbox(ws: Path) -> None:
    asked: list[Any] = []

    def approve_always(request: Any) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.approve(always=True)

    model = ScriptedModel(
        [
            [shell_function_call(command_for("unsafe", ws), "c1")],
            [shell_function_call(command_for("escalated", ws), "c2")],
            [shell_function_call({"commands": ["touch second.txt"]}, "c3")],
            ["done"],
        ]
    )
    tool = ShellTool(workspace=ws)  # untrusted
    agent = Agent(name="p", model=model, tools=[tool])
    await Runner.run(agent, "go", approval_handler=approve_always)
    assert [r.call_id for r in asked] == ["c1", "c2"]  # c2 asked despite "always"; c3 not
    assert (ws / "second.txt").exists()


@needs_bwrap
async def test_a_dangerous_command_is_decided_alone_like_leaving_the_sandbox(ws: Path) -> None:
    asked: list[Any] = []

    def approve_always(request: Any) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.approve(always=True)

    for name in ("a", "b", "c"):
        (ws / name).mkdir()
    model = ScriptedModel(
        [
            [shell_function_call({"commands": ["touch first.txt"]}, "c1")],
            [shell_function_call({"commands": ["rm -rf a"]}, "c2")],  # asked despite "always"
            [shell_function_call({"commands": ["rm -rf b"]}, "c3")],  # its "always" stood not
            [shell_function_call({"commands": ["touch second.txt"]}, "c4")],  # c1's stands
            ["done"],
        ]
    )
    agent = Agent(name="p", model=model, tools=[ShellTool(workspace=ws)])  # untrusted
    await Runner.run(agent, "go", approval_handler=approve_always)
    assert [r.call_id for r in asked] == ["c1", "c2", "c3"]
    assert [r.allows_always for r in asked] == [True, False, False]
    assert not (ws / "a").exists() and not (ws / "b").exists() and (ws / "c").exists()
    assert (ws / "second.txt").exists()


@needs_bwrap
async def test_the_run_config_sets_the_policy_of_tools_that_leave_it_open(ws: Path) -> None:
    asked: list[ApprovalRequest] = []

    def leave_waiting(request: ApprovalRequest) -> None:
        asked.append(request)

    model = ScriptedModel([[shell_function_call(command_for("unsafe", ws))], ["done"]])
    agent = Agent(name="p", model=model, tools=[ShellTool()])
    config = RunConfig(approval_policy="never", sandbox_mode="read-only", workspace=ws)
    await Runner.run(agent, "go", run_config=config, approval_handler=leave_waiting)
    assert asked == [] and not (ws / "made.txt").exists()  # not asked, and read-only
    assert "Read-only file system" in model.requests[1].input[-1]["output"]
    # The tool's own settings win over the run's.
    own = ShellTool(sandbox_mode="workspace-write", workspace=ws)
    assert own.policy_for(config).sandbox.mode == "workspace-write"
    assert own.policy_for(config).approval == "never"


def test_verdicts(tmp_path: Path) -> None:
    def policy(approval: str, mode: str = "workspace-write") -> ExecPolicy:
        return ExecPolicy(approval, SandboxPolicy(mode, tmp_path))  # type: ignore[arg-type]

    assert policy("untrusted").verdict(safe=True, escalated=False) == "safe"
    assert policy("untrusted").verdict(safe=False, escalated=False) == "asks"
    assert policy("on-request").verdict(safe=False, escalated=False) == "sandboxed"
    assert policy("never", "danger-full-access").verdict(safe=False, escalated=False) == (
        "unsandboxed"
    )
    assert policy("on-failure").verdict(safe=True, escalated=True) == "escalated"
    assert policy("on-request").verdict(safe=False, escalated=False, dangerous=True) == (
        "dangerous"
    )
    assert policy("never").verdict(safe=False, escalated=False, dangerous=True) == "refused"
    assert (
        policy("never", "danger-full-access").verdict(safe=False, escalated=False, dangerous=True)
        == "unsandboxed"
    )


# Codex's render_decision_for_unmatched_command for a command that is neither known safe nor
# escalated: (approval, mode, dangerous) -> "allow" | "prompt" | "forbidden".
CODEX_DECISIONS = [
    *[(a, m, True, "prompt") for a in APPROVALS[:3] for m in MODES],
    ("never", "read-only", True, "forbidden"),
    ("never", "workspace-write", True, "forbidden"),
    ("never", "danger-full-access", True, "allow"),
    *[("untrusted", m, False, "prompt") for m in MODES],
    *[(a, m, False, "allow") for a in APPROVALS[1:] for m in MODES],
]


@pytest.mark.parametrize(("approval", "mode", "dangerous", "decision"), CODEX_DECISIONS)
def test_unmatched_commands_are_decided_as_codex_does(
    tmp_path: Path, approval: str, mode: str, dangerous: bool, decision: str
) -> None:
    policy = ExecPolicy(approval, SandboxPolicy(mode, tmp_path))  # type: ignore[arg-type]
    refused = policy.refuses(escalated=False, dangerous=dangerous)
    asks = policy.asks(safe=False, escalated=False, dangerous=dangerous)
    assert ("forbidden" if refused else "prompt" if asks else "allow") == decision


@needs_bwrap
@pytest.mark.http
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_an_escalation_over_http_in_both_wire_formats(
    openai_server: FakeOpenAIServer, ws: Path, kind: str
) -> None:
    arguments = command_for("escalated", ws)
    openai_server.enqueue(
        Reply([ReplyToolCall("shell", arguments, call_id="e1")]), Reply([ReplyText("Written.")])
    )
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    tool = ShellTool(approval_policy="on-request", workspace=ws, function_form=True)
    agent = Agent(name="p", model=cls("gpt-test", openai_client=client), tools=[tool])
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.approve()

    result = await Runner.run(agent, "go", approval_handler=approve)
    assert result.final_output == "Written." and [r.call_id for r in asked] == ["e1"]
    assert (ws.parent / "outside" / "out.txt").read_text() == "x\n"
    first = json_body(openai_server.model_requests[0])
    offered = first["tools"][0] if kind == "responses" else first["tools"][0]["function"]
    assert offered["name"] == "shell"
    assert "require_escalated" in json.dumps(offered["parameters"])


@needs_bwrap
async def test_a_tool_that_never_asks_still_cannot_leave_the_sandbox(ws: Path) -> None:
    model = ScriptedModel([[shell_function_call(command_for("escalated", ws))], ["done"]])
    tool = ShellTool(approval_policy="on-request", workspace=ws, needs_approval=False)
    await Runner.run(Agent(name="p", model=model, tools=[tool]), "go")
    assert "needs the user's approval" in model.requests[1].input[-1]["output"]
    assert not (ws.parent / "outside" / "out.txt").exists()
