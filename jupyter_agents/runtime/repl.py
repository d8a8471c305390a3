"""``run_demo_loop``: talk to an agent from a terminal, one line at a time."""

from __future__ import annotations

from typing import Any

from .agent import Agent
from .events import AgentUpdatedStreamEvent, RawResponsesStreamEvent, RunItemStreamEvent
from .items import TResponseInputItem
from .result import RunResult, RunResultStreaming
from .run import DEFAULT_MAX_TURNS, Runner

__all__ = ["run_demo_loop"]


async def _streamed_turn(result: RunResultStreaming) -> None:
    """Print the text as it comes, and a line for each tool call, output and handoff."""
    async for event in result.stream_events():
        if isinstance(event, RawResponsesStreamEvent):
            if getattr(event.data, "type", None) == "response.output_text.delta":
                print(getattr(event.data, "delta", ""), end="", flush=True)
        elif isinstance(event, RunItemStreamEvent):
            if event.item.type == "tool_call_item":
                print("\n[tool called]", flush=True)
            elif event.item.type == "tool_call_output_item":
                print(f"\n[tool output: {event.item.output}]", flush=True)
        elif isinstance(event, AgentUpdatedStreamEvent):
            print(f"\n[Agent updated: {event.new_agent.name}]", flush=True)
    print()


async def run_demo_loop(
    agent: Agent[Any],
    *,
    stream: bool = True,
    context: Any = None,
    max_turns: int | None = DEFAULT_MAX_TURNS,
) -> None:
    """Chat with ``agent`` in the terminal: each line read (``input(" > ")``) is a user turn,
    the conversation (and the agent a handoff moved to) carries over to the next. Empty lines
    are skipped; ``exit``, ``quit``, end of input or Ctrl-C stop.

    Args:
        agent: The agent to start with.
        stream: Print the answer as it streams (with a line per tool call, tool output and
            agent change); False prints each final output once the turn ends.
        context: The run context, passed to every run.
        max_turns: Each run's turn limit (None: ``RunConfig``'s or the default).
    """
    current = agent
    items: list[TResponseInputItem] = []
    while True:
        try:
            line = input(" > ")  # read on the loop's thread, so Ctrl-C stops it at once
        except (EOFError, KeyboardInterrupt):
            print()
            return
        if line.strip().lower() in {"exit", "quit"}:
            return
        if not line.strip():
            continue
        items.append({"role": "user", "content": line})
        result: RunResult | RunResultStreaming
        if stream:
            result = Runner.run_streamed(current, items, context=context, max_turns=max_turns)
            await _streamed_turn(result)
        else:
            result = await Runner.run(current, items, context=context, max_turns=max_turns)
            if result.final_output is not None:
                print(result.final_output)
        current = result.last_agent
        items = result.to_input_list()
