"""Context that never overflows: a 200-turn run on a 2,000-token window compacts its older
conversation into summaries the model writes, never sends more than the window, never parts a
tool call from its output, keeps every original item in its result, and replays offline from
its recording; the cut and the window are as the module says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import Agent, Cassette, RunConfig, Runner, UserError, tool
from jupyter_agents.runtime.compaction import (
    SUMMARY_INSTRUCTIONS,
    SUMMARY_PREFIX,
    Compaction,
    estimate_tokens,
    known_window,
    split_point,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.scripted import ReceivedRequest

WINDOW = 2_000
TURNS = 200


@tool
def step(n: int) -> str:
    """Do step n."""
    return f"step {n} done: " + "x" * 300


def valid(items: list[Any]) -> bool:
    """Every tool output has its call earlier in the same input."""
    calls: set[str] = set()
    for item in items:
        if item.get("type") == "function_call":
            calls.add(item["call_id"])
        elif item.get("type") == "function_call_output" and item["call_id"] not in calls:
            return False
    return True


class Worker:
    """A model that calls ``step`` 200 times, then says it is done; it refuses a request over
    the window (as a provider does), and writes summaries when asked."""

    def __init__(self) -> None:
        self.steps = 0
        self.sent: list[list[Any]] = []
        self.summaries = 0

    def __call__(self, request: ReceivedRequest) -> Any:
        if request.system_instructions == SUMMARY_INSTRUCTIONS:
            self.summaries += 1
            return [text(f"Steps done so far: up to step {self.steps}. Keep going.")]
        size = estimate_tokens(request.system_instructions, request.input, [step])
        if size > WINDOW:
            raise UserError(f"context_length_exceeded: {size} tokens > {WINDOW}")
        self.sent.append(request.input)
        if self.steps == TURNS:
            return [text("done")]
        self.steps += 1
        return [tool_call("step", {"n": self.steps}, call_id=f"c{self.steps}")]


def config(**more: Any) -> RunConfig:
    return RunConfig(compaction=Compaction(window=WINDOW, keep_recent=4), **more)


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_200_turn_run_on_a_small_window_compacts_and_completes(streamed: bool) -> None:
    worker = Worker()
    agent = Agent(name="a", instructions="Work.", model=ScriptedModel(respond=worker), tools=[step])
    if streamed:
        result: Any = Runner.run_streamed(
            agent, "Do 200 steps.", max_turns=TURNS + 5, run_config=config()
        )
        seen = [e async for e in result.stream_events() if e.type == "context_compacted_event"]
    else:
        result = await Runner.run(agent, "Do 200 steps.", max_turns=TURNS + 5, run_config=config())
        seen = None
    assert result.final_output == "done" and worker.steps == TURNS
    assert len(result.compactions) == worker.summaries >= 10
    if seen is not None:
        assert [e.compacted for e in seen] == result.compactions
    assert all(valid(items) for items in worker.sent)
    later = [
        items for items in worker.sent if items and SUMMARY_PREFIX in str(items[0].get("content"))
    ]
    assert later, "no request carried a summary"
    outputs = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert len(outputs) == TURNS  # the original is kept: only what was sent was compacted
    first = result.compactions[0]
    assert first.tokens_before > 0.8 * WINDOW > first.tokens_after and first.window == WINDOW


async def test_a_compacted_run_replays_offline_from_its_recording(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    worker = Worker()
    agent = Agent(name="a", instructions="Work.", model=ScriptedModel(respond=worker), tools=[step])
    await Runner.run(
        agent,
        "Do 200 steps.",
        max_turns=TURNS + 5,
        run_config=config(replay=Cassette(path, mode="record")),
    )
    silent = ScriptedModel([])
    again = await Runner.run(
        agent.clone(model=silent),
        "Do 200 steps.",
        max_turns=TURNS + 5,
        run_config=config(replay=Cassette(path, mode="strict")),
    )
    assert again.final_output == "done" and silent.requests == []
    assert len(again.compactions) == worker.summaries


async def test_under_the_threshold_or_with_no_known_window_nothing_is_compacted() -> None:
    model = ScriptedModel([[tool_call("step", {"n": 1})], [text("ok")]], name="no-such-model")
    agent = Agent(name="a", model=model, tools=[step])
    result = await Runner.run(agent, "Go.", run_config=RunConfig(compaction=Compaction()))
    assert result.compactions == [] and result.final_output == "ok"
    assert known_window("gpt-4o-mini") == 128_000 and known_window("no-such-model") is None


def test_the_cut_keeps_calls_with_their_outputs_and_reasoning_with_what_follows() -> None:
    def call(n: int) -> dict[str, Any]:
        return {"type": "function_call", "call_id": f"c{n}", "name": "f", "arguments": "{}"}

    def out(n: int) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": f"c{n}", "output": "ok"}

    user = {"role": "user", "content": "hi"}
    reasoning = {"type": "reasoning", "summary": []}
    items = [user, call(1), out(1), reasoning, call(2), call(3), out(2), out(3)]
    assert split_point(items, 2) == 3  # out(2), out(3) need both calls, and the reasoning
    assert split_point(items, 1) == 3
    assert split_point(items, 7) == 1
    assert split_point([user], 1) == 0


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"window": 100}, "window must be a number of tokens, at least 256"),
        ({"threshold": 1.5}, "threshold must be between 0.1 and 1.0"),
        ({"keep_recent": 0}, "keep_recent must be at least 1"),
    ],
)
def test_bad_settings_are_one_line(options: dict[str, Any], said: str) -> None:
    with pytest.raises(UserError, match=said):
        Compaction(**options)


def test_the_estimate_counts_instructions_items_and_tool_schemas() -> None:
    items = [{"role": "user", "content": "a" * 400}]
    bare = estimate_tokens(None, items, [])
    assert bare == len(json.dumps(items)) // 4 + 1
    assert estimate_tokens("b" * 400, items, [step]) > bare + 100


async def test_a_session_keeps_the_original_and_the_next_run_compacts_again(tmp_path: Path) -> None:
    from jupyter_agents import SQLiteSession

    session = SQLiteSession("long", tmp_path / "s.db")
    worker = Worker()
    agent = Agent(name="a", instructions="Work.", model=ScriptedModel(respond=worker), tools=[step])
    first = await Runner.run(
        agent, "Do 200 steps.", max_turns=TURNS + 5, run_config=config(), session=session
    )
    kept = await session.get_items()
    assert len(kept) == 1 + 2 * TURNS + 1  # the prompt, every call and output, the answer
    assert not any(SUMMARY_PREFIX in str(i.get("content")) for i in kept)  # no summary stored
    worker.steps = TURNS  # the next run answers at once, from the whole history
    again = await Runner.run(agent, "Anything left?", run_config=config(), session=session)
    assert again.final_output == "done" and len(again.compactions) == 1 and first.compactions
    assert valid(worker.sent[-1]) and SUMMARY_PREFIX in str(worker.sent[-1][0].get("content"))
