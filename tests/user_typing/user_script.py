"""What a user writes: checked by ``mypy --strict`` in test_user_types.py (not run by pytest)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from jupyter_agents import Agent, RunConfig, Runner, RunResult, function_tool, tool


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@function_tool(needs_approval=True)
def send(to: str) -> str:
    """Send a note."""
    return f"sent to {to}"


agent: Agent[None] = Agent(name="calc", instructions="Add.", tools=[add, send])
config = RunConfig(max_cost_usd=0.05)


async def main() -> str:
    result: RunResult = await Runner.run(agent, "2 + 2?", run_config=config)
    return str(result.final_output)


if TYPE_CHECKING:
    from typing_extensions import reveal_type

    reveal_type(Runner.run)
    reveal_type(add)
    reveal_type(config.max_cost_usd)

if __name__ == "__main__":
    print(asyncio.run(main()))
