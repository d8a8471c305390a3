"""What a run waits for, from 5 s on: the line its card and the runs panel show (the model at
which server and attempt, a tool, the person), with a hand-driven clock."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace as NS
from typing import Any

import pytest

from jupyter_agents import Agent, Runner, tool
from jupyter_agents.notebook.run_registry import RunRegistry
from jupyter_agents.notebook.runs_contract import RunReport
from jupyter_agents.notebook.view.run_view import RunView
from jupyter_agents.notebook.view.waiting import SHOW_AFTER, ToolClock, WaitWatch, waiting_for
from jupyter_agents.runtime.model_wait import ModelWait
from jupyter_agents.testing import ScriptedModel, text, tool_call

LOCAL = NS(base_url="http://127.0.0.1:8000/v1")
"""A model that says where its server is."""


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def wall(self) -> float:
        return 1_000_000.0 + self.now


@pytest.mark.parametrize(
    ("model", "tools", "person", "expected"),
    [
        (None, {}, None, None),
        (
            ModelWait(LOCAL, 3, 1.0),
            {},
            None,
            ("model", "waiting for the model at 127.0.0.1:8000", 1.0),
        ),
        (
            ModelWait(LOCAL, 3, 1.0, attempt=2),
            {},
            None,
            ("model", "waiting for the model at 127.0.0.1:8000 · attempt 2 of 3", 1.0),
        ),
        (
            ModelWait(NS(model="ollama/llama3.2", base_url=None), 1, 2.0),
            {},
            None,
            ("model", "waiting for the model ollama/llama3.2", 2.0),
        ),
        (ModelWait(NS(), 1, 2.0), {}, None, ("model", "waiting for the model", 2.0)),
        (None, {"c1": ("lookup", 4.0)}, None, ("tool", "waiting for tool lookup", 4.0)),
        (
            None,
            {"c2": ("fetch", 5.0), "c1": ("lookup", 4.0), "c3": ("lookup", 6.0)},
            None,
            ("tool", "waiting for tools lookup, fetch", 4.0),
        ),
        (
            None,
            {f"c{i}": (f"t{i}", float(i)) for i in range(5)},
            None,
            ("tool", "waiting for tools t0, t1, t2 and 2 more", 0.0),
        ),
        (  # the person first: only they can move the run on
            ModelWait(LOCAL, 3, 1.0),
            {"c1": ("lookup", 4.0)},
            ("your approval", 7.0),
            ("person", "waiting for your approval", 7.0),
        ),
        (  # a model call waits while no tool runs: a stale tool entry does not hide it
            ModelWait(LOCAL, 3, 9.0),
            {"c1": ("lookup", 4.0)},
            None,
            ("model", "waiting for the model at 127.0.0.1:8000", 9.0),
        ),
    ],
)
def test_what_the_run_waits_for(
    model: ModelWait | None,
    tools: dict[str, tuple[str, float]],
    person: tuple[str, float] | None,
    expected: tuple[str, str, float] | None,
) -> None:
    waiting = waiting_for(model, tools, person)
    got = None if waiting is None else (waiting.on, waiting.text, waiting.since)
    assert got == expected


class FakeView:
    def __init__(self) -> None:
        self.waits: list[Any] = []

    def set_wait(self, wait: Any) -> None:
        self.waits.append(wait)

    def card_ref(self) -> None:
        return None


def watched() -> Any:
    """A watch on a fresh run: ``w.watch``, ``w.view``, ``w.runs``, ``w.record``, ``w.clock``
    and ``w.heard`` (what the run list's listeners got)."""
    clock, view, runs = Clock(), FakeView(), RunRegistry()
    record = runs.start(view, "cell-1", "agent", "model")  # type: ignore[arg-type]
    heard: list[RunReport] = []
    runs.listen(heard.append)
    watch = WaitWatch(view, runs, record, clock=clock, wall=clock.wall)  # type: ignore[arg-type]
    return NS(watch=watch, view=view, runs=runs, record=record, clock=clock, heard=heard)


def test_a_model_wait_shows_from_five_seconds_on_and_follows_its_attempts() -> None:
    w = watched()
    wait = ModelWait(LOCAL, 3, w.clock.now)
    w.clock.now += SHOW_AFTER - 0.1
    w.watch.check(wait)
    assert w.view.waits == [] and w.record.wait is None  # a short wait says nothing
    w.clock.now += 0.1
    w.watch.check(wait)
    line = {
        "on": "model",
        "text": "waiting for the model at 127.0.0.1:8000",
        "since": 1_000_100_000,
    }
    assert w.view.waits == [line] and w.record.wait == line
    assert w.heard[-1]["wait"] == line
    w.clock.now += 1
    w.watch.check(wait)
    assert len(w.view.waits) == 1  # the same wait is not sent again: frontends tick the time
    wait.attempt = 2
    w.clock.now += 30
    w.watch.check(wait)
    assert w.view.waits[-1]["text"].endswith("· attempt 2 of 3")
    assert w.view.waits[-1]["since"] == line["since"]  # the call's wait, from its start
    w.watch.check(None)  # the answer started
    assert w.view.waits[-1] is None and w.record.wait is None and w.heard[-1]["wait"] is None
    assert len(w.view.waits) == 3


def test_the_person_and_tools_are_waited_for_too() -> None:
    w = watched()
    w.record.pending["r1"] = {"request": "r1", "call": "c1", "tool": "send", "arguments": "{}"}
    w.watch.check(None)
    w.clock.now += SHOW_AFTER
    w.watch.check(None)
    assert w.view.waits[-1]["text"] == "waiting for your approval"
    w.record.pending["r1"]["question"] = "Which city?"
    w.watch.check(None)
    assert w.view.waits[-1]["text"] == "waiting for your answer"
    w.record.pending.clear()
    w.watch.check(None)
    assert w.view.waits[-1] is None

    call, lookup = NS(tool_call_id="c2"), NS(name="lookup")
    asyncio.run(w.watch.tools.on_tool_start(call, None, lookup))
    w.clock.now += SHOW_AFTER
    w.watch.check(None)
    assert w.view.waits[-1] == {
        "on": "tool",
        "text": "waiting for tool lookup",
        "since": 1_000_105_000,
    }
    asyncio.run(w.watch.tools.on_tool_end(call, None, lookup, "ok"))
    w.watch.check(None)
    assert w.view.waits[-1] is None


def test_the_end_of_a_run_clears_its_wait() -> None:
    w = watched()
    wait = ModelWait(LOCAL, 3, w.clock.now)
    w.clock.now += SHOW_AFTER
    w.watch.check(wait)
    assert w.record.wait is not None
    w.runs.update(w.record, status="failed")
    assert w.record.wait is None and w.heard[-1]["wait"] is None


def test_a_view_that_cannot_show_a_wait_never_breaks_the_run() -> None:
    w = watched()
    w.view.set_wait = None
    w.clock.now += SHOW_AFTER
    w.watch.check(ModelWait(LOCAL, 1, w.clock.now - SHOW_AFTER))  # logged, not raised


def test_the_run_view_shows_the_wait_in_its_header_until_it_finishes() -> None:
    view = RunView(agent="a", model="m")
    line = {"on": "tool", "text": "waiting for tool lookup", "since": 1}
    view.set_wait(line)  # type: ignore[arg-type]
    view.flush()
    assert view.widget.header["wait"] == line
    view.set_wait(None)
    view.flush()
    assert "wait" not in view.widget.header
    view.set_wait(line)  # type: ignore[arg-type]
    view.finish("done")
    assert "wait" not in view.widget.header


async def test_the_tool_clock_sees_a_real_run_s_calls_start_and_end() -> None:
    seen: list[dict[str, tuple[str, float]]] = []
    clock = ToolClock()

    @tool
    async def lookup(city: str) -> str:
        """Look a city up."""
        seen.append(dict(clock.running))
        return "sunny"

    model = ScriptedModel([[tool_call("lookup", {"city": "Paris"}, "c1")], [text("done")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[lookup]), "go", hooks=clock)
    assert result.final_output == "done"
    assert [list(s) for s in seen] == [["c1"]] and seen[0]["c1"][0] == "lookup"
    assert clock.running == {}
