"""A paused run that touches every part of a saved ``RunState``, and the agents it needs.

``python -m tests.security.saved_states`` wrote ``tests/fixtures/run_state/v1.json`` with the
code of commit 7471edc (before the state format was defined once, issue 38); the file is
kept as that code wrote it, so ``test_saved_state_format.py`` proves states saved then still
load and are written again byte for byte. The run needs bubblewrap (its shell call is stopped
by a read-only sandbox and asks to leave it); loading the fixture does not.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from jupyter_agents import (
    Agent,
    HostedMCPTool,
    Runner,
    RunState,
    ShellTool,
    SQLiteSession,
    handoff,
    tool,
)
from jupyter_agents.runtime.usage import InputTokensDetails, OutputTokensDetails, Usage
from jupyter_agents.testing import ScriptedModel, output_item, reasoning, text, tool_call

FIXTURE = Path(__file__).parent.parent / "fixtures" / "run_state" / "v1.json"
"""The state the code of commit 7471edc saved."""

MCP = {
    "type": "mcp",
    "server_label": "wiki",
    "server_url": "https://mcp.example.com/sse",
    "require_approval": "always",
}


@tool
def look(city: str) -> str:
    """Look at a city."""
    return f"sunny in {city}"


@tool
def boom() -> str:
    """Fail."""
    raise RuntimeError("it broke")


@tool(needs_approval=True)
def pay(amount: int, to: str) -> str:
    """Pay someone."""
    return f"paid {amount} to {to}"


def agents(
    boss_turns: list[Any] | None = None, cashier_turns: list[Any] | None = None
) -> Agent[Any]:
    """The boss: plain, failing and gated tools, an agent tool (the cashier, which pays), a
    shell stopped by a read-only sandbox, a hosted MCP server and a handoff."""
    cashier = Agent(name="cashier", model=ScriptedModel(cashier_turns or []), tools=[pay])
    helper = Agent(name="helper", model=ScriptedModel([]))
    shell = ShellTool(
        approval_policy="on-failure", sandbox_mode="read-only", workspace=tempfile.gettempdir()
    )
    return Agent(
        name="boss",
        model=ScriptedModel(boss_turns or [], price_provider="openai", name="gpt-4o-mini"),
        tools=[
            look,
            boom,
            pay,
            cashier.as_tool("cash", "Ask the cashier."),
            shell,
            HostedMCPTool(MCP),
        ],
        handoffs=[handoff(helper)],
    )


BOSS_TURNS = [
    [
        reasoning("plan it"),
        text("Looking first."),
        tool_call("look", {"city": "Oslo"}, "l1"),
        tool_call("pay", {"amount": 1, "to": "al"}, "p0"),
        tool_call("pay", {"amount": 2, "to": "cy"}, "p2"),
    ],
    [tool_call("boom", {}, "b1")],
    [
        tool_call("pay", {"amount": 3, "to": "bo"}, "c1"),
        tool_call("cash", {"input": "pay bo 9"}, "o1"),
        output_item(
            {
                "type": "shell_call",
                "id": "sh_1",
                "call_id": "s1",
                "status": "completed",
                "action": {"commands": ["echo x > made.txt"], "timeout_ms": 5000},
            }
        ),
        output_item(
            {
                "type": "mcp_approval_request",
                "id": "mcpr_1",
                "server_label": "wiki",
                "name": "ask",
                "arguments": json.dumps({"question": "What is MCP?"}),
            }
        ),
        tool_call("transfer_to_helper", {}, "h1"),
    ],
]
CASHIER_TURNS = [[tool_call("pay", {"amount": 9, "to": "bo"}, "n1")]]


def _usage(_request: Any) -> Usage:
    return Usage(
        requests=1,
        input_tokens=10,
        output_tokens=5,
        input_tokens_details=InputTokensDetails(cached_tokens=2, cache_write_tokens=1),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=3),
    )


async def paused_state(workspace: Path) -> RunState:
    """The run, paused twice: on two payments (one approved, one rejected), then on five
    calls (a payment and a hosted MCP call decided, the others not)."""
    boss = agents(BOSS_TURNS, CASHIER_TURNS)
    assert isinstance(boss.model, ScriptedModel)
    boss.model.usage = _usage
    for t in boss.tools:
        if isinstance(t, ShellTool):
            t.workspace = str(workspace)
    session = SQLiteSession("saved-state")
    await session.add_items([{"role": "user", "content": "earlier"}])
    first = await Runner.run(boss, [{"role": "user", "content": "go"}], session=session)
    before = first.to_state()
    before.approve("p0")
    before.reject("p2", message="too much")
    second = await Runner.run(boss, before, session=session)
    state = second.to_state()
    state.approve("c1", always=True, arguments={"amount": 4, "to": "bo"})
    state.reject("mcpr_1", message="not now")
    return state


def main() -> None:
    """Write the fixture from the code checked out now."""
    with tempfile.TemporaryDirectory() as folder:
        state = asyncio.run(paused_state(Path(folder)))
    FIXTURE.write_text(state.to_string() + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE}", file=sys.stderr)


if __name__ == "__main__":
    main()
