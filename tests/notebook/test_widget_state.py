"""The widget state has one description, and both sides keep to it.

``notebook/view/widget_state.py`` types the header, blocks and messages; the widget's JavaScript is
type-checked (``tsc``, ``checkJs``) against ``labextension/src/widget/state.d.ts``, which is
generated from those types. A field renamed on one side only fails here: in Python, the
declarations no longer match the committed file (and a real run's state no longer fits the
types); in JavaScript, ``tsc`` finds a field the types do not have.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import ConfigDict, TypeAdapter

from jupyter_agents import (
    Agent,
    ApplyPatchTool,
    ApprovalDecision,
    Runner,
    Tool,
    WorkspaceEditor,
    tool,
)
from jupyter_agents.notebook.saved import transcript
from jupyter_agents.notebook.view import _state_ts, display_text
from jupyter_agents.notebook.view.run_view import RunView
from jupyter_agents.notebook.view.widget_state import Block, Header, PartType
from jupyter_agents.runtime.approvals import OnLoop
from jupyter_agents.testing import ScriptedModel, output_item, reasoning, text, tool_call
from jupyter_agents.testing.scripted import ScriptedOutput

from ..prerequisites import needs

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"
TSC = LABEXTENSION / "node_modules" / ".bin" / "tsc"
STRICT = ConfigDict(extra="forbid")
HEADERS = TypeAdapter(list[Header], config=STRICT)  # a list: the config reaches what it holds
BLOCKS = TypeAdapter(list[Block], config=STRICT)


def test_the_committed_declarations_are_the_python_types() -> None:
    committed = (LABEXTENSION / "src/widget/state.d.ts").read_text(encoding="utf-8")
    assert committed == _state_ts.render(), (
        "labextension/src/widget/state.d.ts is stale: run "
        "`python -m jupyter_agents.notebook.view._state_ts labextension/src/widget/state.d.ts`"
    )


@needs(
    TSC.exists() and shutil.which("node") is not None, "Node and `jlpm install` in labextension/"
)
def test_the_widget_sources_type_check_against_the_declarations() -> None:
    done = subprocess.run(
        [str(TSC), "-p", "tsconfig.widget.json"],
        cwd=LABEXTENSION,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_part_type_has_one_renderer_in_each_python_frontend() -> None:
    # The widget's renderers are a Record<PartType, ...> (parts.js): tsc above finds a gap there.
    types = set(typing.get_args(PartType))
    assert set(transcript.PART_HTML) == types
    assert set(display_text.PART_TEXT) == types


@tool
def weather(city: str) -> str:
    """Weather."""
    print(f"looking up {city}")
    return f"sunny in {city}"


@tool
def divide(a: float, b: float) -> float:
    """Divide."""
    return a / b


@tool(needs_approval=True)
def send(to: str) -> str:
    """Send."""
    return f"sent to {to}"


def patch_call() -> Any:
    operation = {"type": "create_file", "path": "new.txt", "diff": "+hello\n"}
    return output_item(
        {
            "type": "apply_patch_call",
            "id": "ap_1",
            "call_id": "p1",
            "status": "completed",
            "operation": operation,
        }
    )


async def test_the_state_of_a_real_run_fits_the_types(tmp_path: Path) -> None:
    turns: list[list[ScriptedOutput]] = [
        [reasoning("Plan."), text("Looking."), tool_call("weather", {"city": "Oslo"}, "w1")],
        [tool_call("divide", {"a": 1, "b": 0}, "d1"), tool_call("send", {"to": "a"}, "s1")],
        [tool_call("send", {"to": "b"}, "s2"), patch_call()],
        [text("Done.")],
    ]
    view = RunView(agent="a", model="m", flush_interval=0)
    seen: list[tuple[Any, Any]] = []
    view.widget.observe(
        lambda _change: seen.append((view.widget.header, view.widget.blocks)),
        names=["header", "blocks"],
    )
    answers = iter([ApprovalDecision.approve(), ApprovalDecision.reject("no")])

    def approve_then_reject(request: Any) -> Any:
        waiting = view.inbox(request)
        view.add_notice("asked", "warning")
        asyncio.get_running_loop().call_soon(view.decide, request.request_id, next(answers))
        return waiting

    editor = WorkspaceEditor(tmp_path)
    tools: list[Tool] = [weather, divide, send, ApplyPatchTool(editor, approval_policy="never")]
    agent = Agent(name="a", model=ScriptedModel(turns), tools=tools)
    result = Runner.run_streamed(agent, "go", approval_handler=OnLoop(approve_then_reject))
    async for event in result.stream_events():
        view.on_event(event)
    view.tool_output_text("w1", "printed late\n")
    view.set_usage(result.context_wrapper.usage)
    view.finish("done")
    assert len(seen) > 3
    for header, blocks in seen:  # every sync, live and final
        HEADERS.validate_python([header])
        BLOCKS.validate_python(blocks)
    kinds = {b.get("kind", "tool") for b in view.widget.blocks}
    assert kinds == {"reasoning", "text", "tool", "notice"}
    parts = {p["type"] for b in view.widget.blocks for p in b.get("parts", [])}
    assert parts == {"text", "diff"}


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ({"id": "k1", "output": "the version-1 field"}, "output"),
        ({"id": "k1", "parts": [{"type": "html", "text": "<b>"}]}, "html"),
        ({"id": "k1", "parts": [{"type": "text", "text": "x", "role": "output"}]}, "role"),
        ({"id": "k1", "status": "exploded"}, "status"),
        ({"id": "n:1", "kind": "notice", "level": "loud", "text": "x"}, "level"),
    ],
)
def test_the_types_refuse_what_the_widget_does_not_know(
    block: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        BLOCKS.validate_python([block])
