"""A sync tool the run stopped waiting for: its card and the run list say it goes on in the
background until it ends, then what it did; the kernel stays active for the server meanwhile."""

from __future__ import annotations

import asyncio
import io
import threading
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest

from jupyter_agents import Agent, Runner, tool
from jupyter_agents.notebook.run_registry import RunRegistry
from jupyter_agents.notebook.runs_comm import ACTIVITY_INTERVAL, Heartbeat, activity_interval
from jupyter_agents.notebook.runs_contract import RunReport
from jupyter_agents.notebook.saved import run_document
from jupyter_agents.notebook.view.run_view import RunView
from jupyter_agents.notebook.view.text_view import TextView
from jupyter_agents.runtime.tools.background import BackgroundCall, background_call_sink
from jupyter_agents.testing import ScriptedModel, text, tool_call


def gated_writer(
    target: Path, timeout: float | None = None
) -> tuple[Any, threading.Event, threading.Event]:
    started, release = threading.Event(), threading.Event()

    @tool(timeout=timeout)
    def write_file(content: str) -> str:
        """Write the file."""
        started.set()
        if not release.wait(30):
            raise TimeoutError("never released")
        target.write_text(content)
        return f"wrote {len(content)} characters"

    return write_file, started, release


class Shown:
    """The view's display handle: each bundle it is given, and an event per update."""

    def __init__(self) -> None:
        self.bundles: list[dict[str, Any]] = []
        self.updated = asyncio.Event()

    def update(self, bundle: dict[str, Any], raw: bool) -> None:
        self.bundles.append(bundle)
        self.updated.set()

    async def next(self) -> dict[str, Any]:
        self.updated.clear()
        await asyncio.wait_for(self.updated.wait(), 20)
        return self.bundles[-1]


def card_of(bundle: dict[str, Any], call_id: str) -> dict[str, Any]:
    """The tool card of ``call_id`` in a final output's run document (defaults filled in)."""
    document = run_document.decode(bundle[run_document.MIME_TYPE])
    (card,) = [b for b in document["blocks"] if b.get("call_id") == call_id]
    return {"status": "done", **card}


async def test_an_interrupted_sync_tool_shows_until_it_ends_then_what_it_did(
    tmp_path: Path,
) -> None:
    target = tmp_path / "effect.txt"
    write_file, started, release = gated_writer(target)
    view, shown, runs = RunView(agent="a", model="m"), Shown(), RunRegistry()
    view._handle = shown
    record = runs.start(view, "cell-1", "a", "m")
    heard: list[RunReport] = []
    over = asyncio.Event()  # the run list heard that nothing goes on any more

    def hear(run: RunReport) -> None:
        heard.append(run)
        if run["status"] == "cancelled" and not run["background_calls"]:
            over.set()

    runs.listen(hear)

    def went_on(call: BackgroundCall) -> None:  # what the cell driver sets around its run
        view.left_running(call)
        runs.left_running(record, call)

    model = ScriptedModel([[tool_call("write_file", {"content": "hello"}, "w1")], [text("ok")]])
    agent = Agent(name="a", model=model, tools=[write_file])

    async def drive() -> None:
        token = background_call_sink.set(went_on)
        try:
            async for event in Runner.run_streamed(agent, "go").stream_events():
                view.on_event(event)
        finally:
            background_call_sink.reset(token)

    run = asyncio.ensure_future(drive())
    assert await asyncio.to_thread(started.wait, 20)
    run.cancel()  # Interrupt
    with pytest.raises(asyncio.CancelledError):
        await run
    view.finish("cancelled", "interrupted")
    runs.update(record, status="cancelled")
    (final,) = shown.bundles
    card = card_of(final, "w1")
    assert card["status"] == "background"
    assert card["note"].startswith("the run was stopped, but a thread cannot be stopped")
    assert "1 still running in the background" in final["text/plain"]
    assert "still running in the background" in final["text/html"]
    assert heard[-1]["status"] == "cancelled"
    assert heard[-1]["background_calls"] == [{"call": "w1", "tool": "write_file"}]
    assert runs.live() and not target.exists()

    release.set()
    later = await shown.next()  # the finished view is redrawn in place
    card = card_of(later, "w1")
    assert card["status"] == "done"
    assert (
        card["note"] == "finished in the background after the run was stopped: wrote 5 characters"
    )
    assert "still running" not in later["text/plain"]
    assert target.read_text() == "hello"
    await asyncio.wait_for(over.wait(), 20)  # the run list hears it too (its own callback)
    assert heard[-1]["background_calls"] == [] and not runs.live()


async def test_a_timed_out_sync_tool_keeps_its_status_and_notes_its_late_end(
    tmp_path: Path,
) -> None:
    write_file, _started, release = gated_writer(tmp_path / "effect.txt", timeout=0.1)
    view = RunView(agent="a", model="m")
    view._handle = shown = Shown()
    model = ScriptedModel([[tool_call("write_file", {"content": "x"}, "w1")], [text("ok")]])
    token = background_call_sink.set(view.left_running)
    try:
        result = Runner.run_streamed(Agent(name="a", model=model, tools=[write_file]), "go")
        async for event in result.stream_events():
            view.on_event(event)
    finally:
        background_call_sink.reset(token)
    view.finish("done")
    card = card_of(shown.bundles[-1], "w1")
    assert card["status"] == "timeout"
    assert card["note"].startswith("still running in the background (a thread cannot be stopped)")
    release.set()
    card = card_of(await shown.next(), "w1")
    assert card["status"] == "timeout"  # what the model was told stays as it was
    assert card["note"] == "finished in the background after it timed out: wrote 1 characters"


async def test_the_terminal_view_says_it_too(tmp_path: Path) -> None:
    write_file, started, release = gated_writer(tmp_path / "effect.txt")
    out = io.StringIO()
    view = TextView(agent="a", model="m", write=out.write)
    said = asyncio.Event()
    loop = asyncio.get_running_loop()
    model = ScriptedModel([[tool_call("write_file", {"content": "x"}, "w1")], [text("ok")]])

    def went_on(call: BackgroundCall) -> None:
        view.left_running(call)
        call.when_done(lambda _end: loop.call_soon(said.set))  # after the view's own line

    token = background_call_sink.set(went_on)
    run = asyncio.ensure_future(Runner.run(Agent(name="a", model=model, tools=[write_file]), "go"))
    background_call_sink.reset(token)
    assert await asyncio.to_thread(started.wait, 20)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert "[warning] write_file is still running in the background" in out.getvalue()
    release.set()
    await asyncio.wait_for(said.wait(), 20)
    assert (
        "[info] write_file finished in the background after the run was stopped: "
        "wrote 1 characters" in out.getvalue()
    )


# -- keeping the kernel active for the server's culling ----------------------------------------


async def test_the_heartbeat_beats_while_something_is_live_and_stops_after() -> None:
    live, beats, beaten, asked_after = True, [], asyncio.Event(), asyncio.Event()

    def send() -> None:
        beats.append(asyncio.get_running_loop().time())
        if len(beats) >= 3:
            beaten.set()

    def is_live() -> bool:
        if not live:
            asked_after.set()
        return live

    heart = Heartbeat(send, is_live, 0.01, asyncio.get_running_loop())
    heart.check()
    heart.check()  # one timer however often it is checked
    await asyncio.wait_for(beaten.wait(), 10)
    live = False
    count = len(beats)
    await asyncio.wait_for(asked_after.wait(), 10)  # the next beat finds nothing live
    assert len(beats) == count and heart._timer is None  # and stops: no timer left


def test_the_heartbeat_never_beats_when_turned_off_or_nothing_is_live() -> None:
    calls: list[Any] = []
    loop = NS(is_closed=lambda: False, call_soon_threadsafe=calls.append)
    Heartbeat(lambda: None, lambda: True, 0, loop).check()  # type: ignore[arg-type]
    assert calls == []
    heart = Heartbeat(lambda: None, lambda: False, 1, loop)  # type: ignore[arg-type]
    heart.check()
    (arm,) = calls
    arm()
    assert heart._timer is None


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("", ACTIVITY_INTERVAL),
        ("5", 5.0),
        ("0", 0.0),
        ("0.5", 0.5),
        ("-1", ACTIVITY_INTERVAL),
        ("soon", ACTIVITY_INTERVAL),
        ("inf", ACTIVITY_INTERVAL),
        ("nan", ACTIVITY_INTERVAL),
    ],
)
def test_the_activity_interval_comes_from_the_environment(value: str, seconds: float) -> None:
    assert activity_interval({"JUPYTER_AGENTS_ACTIVITY_INTERVAL": value}) == seconds


def test_a_run_record_is_live_while_it_runs_or_left_a_call_running() -> None:
    runs = RunRegistry()
    record = runs.start(NS(card_ref=lambda: None), "c", "a", "m")
    assert runs.live()
    runs.update(record, status="done")
    assert not runs.live()
    record.background["w1"] = "write_file"
    assert runs.live()
