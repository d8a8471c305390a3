"""``tool_use_behavior`` for every kind of tool the run executes, not only function tools.

``"stop_on_first_tool"`` and ``StopAtTools`` used to look at function tools only: a class-based
tool, a shell or a patch never ended the run, so a one-call run (how ``%agent mcp serve`` runs
a served tool) asked the model again and again until ``max_turns``, running the tool each time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    ApplyPatchOperation,
    ApplyPatchResult,
    ApplyPatchTool,
    ApprovalDecision,
    BaseTool,
    FunctionToolResult,
    RunConfig,
    Runner,
    ShellCommandOutput,
    ShellCommandRequest,
    ShellResult,
    ShellTool,
    StopAtTools,
    ToolsToFinalOutputResult,
    function_tool,
)
from jupyter_agents.testing import ScriptedModel, output_item, text, tool_call


@dataclass
class Kind:
    """One kind of tool: a fresh tool that counts its runs, and a model call of it."""

    name: str
    make: Callable[[list[str]], Any]
    call: Callable[[], Any]
    output: Any
    """What the run's final output is when this tool's call ends it."""


def _function(runs: list[str]) -> Any:
    @function_tool
    def lookup(key: str) -> str:
        """Look a key up."""
        runs.append(key)
        return f"value of {key}"

    return lookup


def _base_tool(runs: list[str]) -> Any:
    class Lookup(BaseTool):
        name = "lookup"
        parameters = {"type": "object", "properties": {"key": {"type": "string"}}}

        def call(self, params: dict[str, Any], **kwargs: Any) -> str:
            runs.append(params["key"])
            return f"value of {params['key']}"

    return Lookup()


def _shell(runs: list[str]) -> Any:
    def executor(request: ShellCommandRequest) -> ShellResult:
        runs.extend(request.commands)
        return ShellResult([ShellCommandOutput("listed\n", "", 0, c) for c in request.commands])

    return ShellTool(executor=executor, approval_policy="never")


def _apply_patch(runs: list[str]) -> Any:
    class Recorder:
        def create_file(self, operation: ApplyPatchOperation) -> str:
            runs.append(operation.path)
            return "made"

        def update_file(self, operation: ApplyPatchOperation) -> str:
            return "changed"

        def delete_file(self, operation: ApplyPatchOperation) -> str:
            return "deleted"

    return ApplyPatchTool(Recorder())


def _shell_call() -> Any:
    return output_item(
        {
            "type": "shell_call",
            "id": "sh_1",
            "call_id": "s1",
            "status": "completed",
            "action": {"commands": ["ls"], "timeout_ms": None},
        }
    )


def _patch_call() -> Any:
    operation = {"type": "create_file", "path": "a.txt", "diff": "+x\n"}
    return output_item(
        {
            "type": "apply_patch_call",
            "id": "ap_1",
            "call_id": "p1",
            "status": "completed",
            "operation": operation,
        }
    )


KINDS = [
    Kind("lookup", _function, lambda: tool_call("lookup", {"key": "k"}), "value of k"),
    Kind("lookup", _base_tool, lambda: tool_call("lookup", {"key": "k"}), "value of k"),
    Kind("shell", _shell, _shell_call, ShellResult),
    Kind("apply_patch", _apply_patch, _patch_call, ApplyPatchResult),
]
IDS = ["function", "base_tool", "shell", "apply_patch"]


def approve_all(request: Any) -> ApprovalDecision:
    return ApprovalDecision.approve()


async def run(kind: Kind, behavior: Any) -> tuple[Any, ScriptedModel, list[str]]:
    runs: list[str] = []
    # A model that would call the tool every time it is asked: only the behavior stops it.
    model = ScriptedModel([[kind.call()] for _ in range(5)] + [[text("done")]])
    agent = Agent(name="a", model=model, tools=[kind.make(runs)], tool_use_behavior=behavior)
    result = await Runner.run(
        agent,
        "go",
        max_turns=4,
        run_config=RunConfig(approval_policy="never"),
        approval_handler=approve_all,
    )
    return result, model, runs


def assert_tool_output(kind: Kind, output: Any) -> None:
    if isinstance(kind.output, type):
        assert isinstance(output, kind.output), output
    else:
        assert output == kind.output


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
@pytest.mark.parametrize(
    "behavior",
    ["stop_on_first_tool", "stop_at_it"],
)
async def test_a_call_of_any_kind_ends_the_run_when_told_to(kind: Kind, behavior: str) -> None:
    chosen: Any = StopAtTools([kind.name]) if behavior == "stop_at_it" else behavior
    result, model, runs = await run(kind, chosen)
    assert len(model.requests) == 1 and len(runs) == 1
    assert_tool_output(kind, result.final_output)


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_stop_at_other_tools_asks_the_model_again(kind: Kind) -> None:
    with pytest.raises(Exception, match=r"Max turns \(4\)"):
        await run(kind, StopAtTools(["something_else"]))


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_behavior_function_sees_calls_of_every_kind(kind: Kind) -> None:
    seen: list[tuple[str, Any]] = []

    def decide(ctx: Any, results: list[FunctionToolResult]) -> ToolsToFinalOutputResult:
        seen.extend((r.tool.name, r.output) for r in results)
        return ToolsToFinalOutputResult(is_final_output=True, final_output="decided")

    result, model, runs = await run(kind, decide)
    assert len(model.requests) == 1
    assert result.final_output == "decided" and len(runs) == 1
    assert [name for name, _ in seen] == [kind.name]
    assert_tool_output(kind, seen[0][1])


async def test_the_first_call_in_call_order_is_the_output_whatever_its_kind() -> None:
    runs: list[str] = []
    model = ScriptedModel([[_shell_call(), tool_call("lookup", {"key": "k"})], [text("done")]])
    agent = Agent(
        name="a",
        model=model,
        tools=[_shell(runs), _function(runs)],
        tool_use_behavior="stop_on_first_tool",
    )
    result = await Runner.run(agent, "go")
    assert isinstance(result.final_output, ShellResult) and sorted(runs) == ["k", "ls"]
    assert len(model.requests) == 1
