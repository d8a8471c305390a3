"""The SDK's contracts for the shell tool: ``on_approval``, executors that fail or answer with
text, and output capped at the call's ``max_output_length``."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    Runner,
    ShellCommandOutput,
    ShellCommandRequest,
    ShellResult,
    ShellTool,
    UserError,
)
from jupyter_agents.testing import ScriptedModel, output_item, tool_call


def shell_call(*commands: str, max_output_length: int | None = None) -> Any:
    return output_item(
        {
            "type": "shell_call",
            "id": "sh_1",
            "call_id": "s1",
            "status": "completed",
            "action": {"commands": list(commands), "max_output_length": max_output_length},
        }
    )


async def run(tool: ShellTool, *commands: str, max_output_length: int | None = None) -> Any:
    model = ScriptedModel([[shell_call(*commands, max_output_length=max_output_length)], ["done"]])
    result = await Runner.run(Agent(name="sh", model=model, tools=[tool]), "go")
    return result, model


def answer(model: ScriptedModel) -> dict[str, Any]:
    item = model.requests[1].input[-1]
    assert item["type"] == "shell_call_output" and item["call_id"] == "s1"
    return dict(item)


class Recorder:
    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.requests: list[ShellCommandRequest] = []

    def __call__(self, request: ShellCommandRequest) -> Any:
        self.requests.append(request)
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


ok = ShellResult([ShellCommandOutput("ran\n", "", 0, "rm -rf build")])


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_on_approval_approves_a_call_no_person_is_asked(asynchronous: bool) -> None:
    seen: list[Any] = []

    def decide(ctx: Any, item: Any) -> dict[str, Any]:
        seen.append((ctx, item.tool_name, item.arguments["commands"]))
        return {"approve": True}

    async def decide_async(ctx: Any, item: Any) -> dict[str, Any]:
        return decide(ctx, item)

    executor = Recorder(ok)
    tool = ShellTool(
        executor=executor,
        approval_policy="untrusted",
        on_approval=decide_async if asynchronous else decide,
    )
    result, model = await run(tool, "rm -rf build")  # not known safe: untrusted asks
    assert not result.interruptions and executor.requests[0].commands == ["rm -rf build"]
    assert seen[0][1:] == ("shell", ["rm -rf build"]) and seen[0][0] is not None
    assert answer(model)["output"][0]["stdout"] == "ran\n"


async def test_on_approval_rejects_with_its_reason_and_nothing_runs() -> None:
    executor = Recorder(ok)
    tool = ShellTool(
        executor=executor,
        approval_policy="untrusted",
        on_approval=lambda ctx, item: {"approve": False, "reason": "Not on Fridays."},
    )
    _result, model = await run(tool, "rm -rf build")
    assert executor.requests == []
    stderr = answer(model)["output"][0]["stderr"]
    assert "Not on Fridays." in stderr


@pytest.mark.parametrize("undecided", [None, {}, {"approve": "yes"}, "approve"])
async def test_on_approval_without_a_decision_leaves_the_call_to_a_person(undecided: Any) -> None:
    executor = Recorder(ok)
    tool = ShellTool(
        executor=executor, approval_policy="untrusted", on_approval=lambda ctx, item: undecided
    )
    result, _model = await run(tool, "rm -rf build")
    assert [i.tool_name for i in result.interruptions] == ["shell"]
    assert executor.requests == []


async def test_on_approval_is_not_asked_about_calls_that_need_no_approval() -> None:
    asked: list[Any] = []

    def on_approval(ctx: Any, item: Any) -> dict[str, bool]:
        asked.append(item)
        return {"approve": False}

    tool = ShellTool(executor=Recorder(ok), approval_policy="never", on_approval=on_approval)
    await run(tool, "rm -rf build")
    assert asked == []


async def test_an_on_approval_that_raises_is_a_one_line_user_error() -> None:
    def broken(ctx: Any, item: Any) -> Any:
        raise KeyError("oops")

    tool = ShellTool(executor=Recorder(ok), approval_policy="untrusted", on_approval=broken)
    with pytest.raises(UserError, match="on_approval callback of tool 'shell' raised"):
        await run(tool, "rm -rf build")


async def test_an_executor_that_raises_is_a_failed_output_and_the_run_goes_on() -> None:
    tool = ShellTool(executor=Recorder(RuntimeError("disk on fire")), approval_policy="never")
    result, model = await run(tool, "make")
    output = answer(model)["output"]
    assert output == [
        {"stdout": "", "stderr": "disk on fire", "outcome": {"type": "exit", "exit_code": 1}}
    ]
    assert result.final_output == "done"
    (item,) = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert item.status == "error" and item.error.type == "RuntimeError"


async def test_an_executor_error_is_cut_to_the_calls_max_output_length() -> None:
    tool = ShellTool(executor=Recorder(RuntimeError("x" * 500)), approval_policy="never")
    _result, model = await run(tool, "make", max_output_length=40)
    assert answer(model)["output"][0]["stderr"] == "x" * 40


async def test_an_error_without_a_message_is_named_by_its_class() -> None:
    tool = ShellTool(executor=Recorder(TimeoutError()), approval_policy="never")
    _result, model = await run(tool, "make")
    assert answer(model)["output"][0]["stderr"] == "TimeoutError"


async def test_failure_error_function_none_ends_the_run_with_the_executors_error() -> None:
    tool = ShellTool(
        executor=Recorder(RuntimeError("disk on fire")),
        approval_policy="never",
        failure_error_function=None,
    )
    with pytest.raises(RuntimeError, match="disk on fire"):
        await run(tool, "make")


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_an_executor_may_answer_with_plain_text(asynchronous: bool) -> None:
    async def text(request: ShellCommandRequest) -> str:
        return "all good\n"

    tool = ShellTool(
        executor=text if asynchronous else Recorder("all good\n"), approval_policy="never"
    )
    _result, model = await run(tool, "make", "make test")
    assert answer(model)["output"] == [
        {"stdout": "all good\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
    ]


async def test_a_custom_executors_output_is_capped_head_and_tail() -> None:
    big = "".join(f"line {n}\n" for n in range(10_000))
    reply = ShellResult([ShellCommandOutput(big, "E" * 5_000, 0, "seq")])
    tool = ShellTool(executor=Recorder(reply), approval_policy="never", max_output=1_000)
    _result, model = await run(tool, "seq")
    (output,) = answer(model)["output"]
    assert output["stdout"].startswith("line 0\nline 1\n")
    assert output["stdout"].endswith("line 9999\n")
    assert "characters cut" in output["stdout"] and len(output["stdout"]) < 1_100
    assert len(output["stderr"]) < 1_100 and "characters cut" in output["stderr"]


async def test_the_calls_max_output_length_caps_a_custom_executor_below_the_tools() -> None:
    reply = ShellResult([ShellCommandOutput("a" * 300 + "z" * 300, "", 0, "x")])
    tool = ShellTool(executor=Recorder(reply), approval_policy="never", max_output=10_000)
    _result, model = await run(tool, "x", max_output_length=100)
    stdout = answer(model)["output"][0]["stdout"]
    assert stdout.startswith("a" * 30) and stdout.endswith("z" * 30) and "cut" in stdout
    assert len(stdout) <= 100  # the note of what was cut included


def total(outputs: list[dict[str, Any]]) -> int:
    """Characters of stdout and stderr in a call's answer, all commands together."""
    return sum(len(o["stdout"]) + len(o["stderr"]) for o in outputs)


def lines(first: int, last: int, tag: str) -> str:
    return "".join(f"{tag} {n}\n" for n in range(first, last))


TWO_LOUD_COMMANDS = ShellResult(
    [
        ShellCommandOutput(lines(0, 2_000, "out"), lines(0, 2_000, "err"), 0, "make"),
        ShellCommandOutput(lines(0, 2_000, "OUT"), lines(0, 2_000, "ERR"), 1, "make test"),
    ]
)


@pytest.mark.parametrize(("tool_cap", "call_cap"), [(100_000, 1_000), (1_000, None)])
async def test_the_whole_calls_output_is_bounded_both_streams_of_every_command_together(
    tool_cap: int, call_cap: int | None
) -> None:
    """As in the SDK (one budget for the combined output) and Codex: the call's
    ``max_output_length``, or the tool's ``max_output``, bounds all of it, not each stream."""
    tool = ShellTool(
        executor=Recorder(TWO_LOUD_COMMANDS), approval_policy="never", max_output=tool_cap
    )
    _result, model = await run(tool, "make", "make test", max_output_length=call_cap)
    outputs = answer(model)["output"]
    assert total(outputs) <= 1_000
    for output, tag in zip(outputs, ("out", "OUT"), strict=True):
        assert output["stdout"].startswith(f"{tag} 0\n") and output["stdout"].endswith(
            f"{tag} 1999\n"
        )
        assert "characters cut" in output["stdout"] and len(output["stdout"]) > 200  # a fair share
    assert outputs[1]["stderr"].startswith("ERR 0\n") and outputs[1]["stderr"].endswith(
        "ERR 1999\n"
    )


async def test_a_short_stream_is_kept_whole_and_the_long_ones_share_the_rest() -> None:
    reply = ShellResult([ShellCommandOutput("short\n", "E" * 5_000, 0, "x")])
    tool = ShellTool(executor=Recorder(reply), approval_policy="never")
    _result, model = await run(tool, "x", max_output_length=500)
    (output,) = answer(model)["output"]
    assert output["stdout"] == "short\n"
    assert 400 < len(output["stderr"]) <= 500 - len("short\n")
    assert "4,5" in output["stderr"]  # about 4,500 characters cut, counted from the original


async def test_a_max_output_length_of_zero_keeps_nothing() -> None:
    tool = ShellTool(executor=Recorder(TWO_LOUD_COMMANDS), approval_policy="never")
    _result, model = await run(tool, "make", "make test", max_output_length=0)
    outputs = answer(model)["output"]
    assert total(outputs) == 0 and [o["outcome"]["type"] for o in outputs] == ["exit", "exit"]


async def test_the_function_forms_text_is_bounded_too() -> None:
    tool = ShellTool(executor=Recorder(TWO_LOUD_COMMANDS), approval_policy="never")
    call = tool_call("shell", {"commands": ["make", "make test"], "max_output_length": 600})
    model = ScriptedModel([[call], ["done"]])
    await Runner.run(Agent(name="sh", model=model, tools=[tool]), "go")
    sent = model.requests[1].input[-1]
    assert sent["type"] == "function_call_output" and len(sent["output"]) <= 600
    assert sent["output"].startswith("$ make\nout 0\n")


async def test_an_executor_returning_something_else_is_told_to_the_user() -> None:
    tool = ShellTool(executor=Recorder(42), approval_policy="never", failure_error_function=None)
    with pytest.raises(UserError, match="must return a ShellResult or text, got int"):
        await run(tool, "x")
