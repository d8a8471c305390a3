"""RP1: replaying a recorded run against running it live, in one process (ours only: the peer
has no recorded runs).

The live run: an agent over the real ``openai`` client (Responses API) and HTTP against the
local OpenAI-compatible test server, 20 tool calls in 10 model turns (two calls per turn, then
an answer), recorded into an in-memory ``Cassette``. The replay: the same run from that
recording in ``strict`` mode (the test of "no model request": the server's request count does
not move). Two kinds of live run:

- ``live_ms`` / ``replay_pct``: the server answers at once, so the live run is only the
  framework, HTTP and JSON: the least a live run can cost, the worst case for the ratio;
- ``live_model_ms`` / ``replay_pct_model``: each model reply takes 150 ms before its first
  byte, a fast hosted model (real ones take longer): the ratio a person sees.

Each round records once and replays once; the replay's time is the median of its rounds.
"""

from __future__ import annotations

import time
from typing import Any

from .._common import Impl, Measured, main

WORKLOAD = "RP1"

TURNS, CALLS_PER_TURN = 10, 2
MODEL_LATENCY = 0.15


def _replies(latency: float) -> list[Any]:
    from jupyter_agents.testing.server import Reply, ReplyText, ReplyToolCall

    replies = [
        Reply(
            [
                ReplyToolCall("lookup", {"n": turn * CALLS_PER_TURN + i})
                for i in range(CALLS_PER_TURN)
            ],
            delay=latency,
        )
        for turn in range(TURNS)
    ]
    return [*replies, Reply([ReplyText("All looked up.")], delay=latency)]


async def _round(server: Any, latency: float) -> tuple[float, float]:
    import openai

    from jupyter_agents import Agent, Cassette, OpenAIResponsesModel, RunConfig, Runner, tool

    @tool
    def lookup(n: int) -> str:
        """Look a number up."""
        return f"value {n * n}"

    client = openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0)
    agent = Agent(
        name="a",
        model=OpenAIResponsesModel("gpt-test", openai_client=client),
        tools=[lookup],
    )
    server.enqueue(*_replies(latency))
    recording = Cassette(mode="record")
    started = time.perf_counter()
    live = await Runner.run(
        agent, "Look up 0 to 19.", run_config=RunConfig(replay=recording), max_turns=20
    )
    live_ms = (time.perf_counter() - started) * 1000
    asked = len(server.model_requests)
    replay = Cassette(runs=recording.runs, mode="strict")
    started = time.perf_counter()
    again = await Runner.run(
        agent, "Look up 0 to 19.", run_config=RunConfig(replay=replay), max_turns=20
    )
    replay_ms = (time.perf_counter() - started) * 1000
    if len(server.model_requests) != asked or again.final_output != live.final_output:
        raise RuntimeError("the replay asked the model, or answered differently")
    calls = sum(1 for i in again.new_items if i.type == "tool_call_output_item")
    if calls != TURNS * CALLS_PER_TURN:
        raise RuntimeError(f"expected {TURNS * CALLS_PER_TURN} tool calls, the run made {calls}")
    await client.close()
    return live_ms, replay_ms


async def measure(impl: Impl, quick: bool) -> Measured:
    from jupyter_agents.testing.server import FakeOpenAIServer

    rounds = 2 if quick else 10
    metrics: dict[str, list[float]] = {
        "live_ms": [],
        "replay_ms": [],
        "replay_pct": [],
        "live_model_ms": [],
        "replay_pct_model": [],
    }
    with FakeOpenAIServer() as server:
        await _round(server, 0.0)  # warm-up: imports, the client's connection pool
        for _ in range(rounds):
            live, replay = await _round(server, 0.0)
            metrics["live_ms"].append(live)
            metrics["replay_ms"].append(replay)
            metrics["replay_pct"].append(100 * replay / live)
        for _ in range(max(1, rounds // 5)):
            live, replay = await _round(server, MODEL_LATENCY)
            metrics["live_model_ms"].append(live)
            metrics["replay_pct_model"].append(100 * replay / live)
    return Measured(
        metrics=metrics,
        info={"turns": TURNS, "tool_calls": TURNS * CALLS_PER_TURN, "latency_s": MODEL_LATENCY},
    )


if __name__ == "__main__":
    main(WORKLOAD, measure)
