"""Stopping a run tells the truth about its tools: a sync tool that cannot be stopped is
reported as going on in the background until it really ends; a killable one is stopped with
everything it started."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_agents import Agent, FunctionTool, Runner, tool
from jupyter_agents.runtime.tools.background import (
    BackgroundCall,
    BackgroundEnd,
    background_call_sink,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call


@pytest.fixture
def reported() -> Iterator[list[BackgroundCall]]:
    """The calls the runtime reports as going on in the background (the sink a view sets)."""
    calls: list[BackgroundCall] = []
    token = background_call_sink.set(calls.append)
    yield calls
    background_call_sink.reset(token)


def gated_writer(target: Path) -> tuple[FunctionTool, threading.Event, threading.Event]:
    """A sync tool that writes ``target`` once released: the tool, its started and release
    events."""
    started, release = threading.Event(), threading.Event()

    @tool
    def write_file(content: str) -> str:
        """Write the file."""
        started.set()
        if not release.wait(30):
            raise TimeoutError("never released")
        target.write_text(content)
        return f"wrote {len(content)} characters"

    return write_file, started, release


async def ended(call: BackgroundCall) -> BackgroundEnd:
    """How ``call`` ends (on this loop, as the runtime promises)."""
    done: asyncio.Future[BackgroundEnd] = asyncio.get_running_loop().create_future()
    call.when_done(done.set_result)
    return await asyncio.wait_for(done, 20)


async def test_a_stopped_sync_tool_is_reported_until_its_side_effect_happens(
    tmp_path: Path, reported: list[BackgroundCall]
) -> None:
    target = tmp_path / "effect.txt"
    write_file, started, release = gated_writer(target)
    model = ScriptedModel([[tool_call("write_file", {"content": "hello"}, "w1")], [text("ok")]])
    run = asyncio.ensure_future(Runner.run(Agent(name="a", model=model, tools=[write_file]), "go"))
    assert await asyncio.to_thread(started.wait, 20)
    run.cancel()  # an interrupt
    with pytest.raises(asyncio.CancelledError):
        await run
    (call,) = reported
    assert (call.call_id, call.tool_name, call.reason) == ("w1", "write_file", "stopped")
    assert not call.done and not target.exists()  # still running, nothing happened yet
    release.set()
    end = await ended(call)
    assert end == BackgroundEnd(output="wrote 5 characters")
    assert target.read_text() == "hello"  # the side effect did happen, after the run ended


async def test_stopping_a_streamed_run_reports_its_sync_tool_too(
    tmp_path: Path, reported: list[BackgroundCall]
) -> None:
    write_file, started, release = gated_writer(tmp_path / "effect.txt")
    model = ScriptedModel([[tool_call("write_file", {"content": "x"}, "w1")], [text("ok")]])
    result = Runner.run_streamed(Agent(name="a", model=model, tools=[write_file]), "go")

    async def consume() -> None:
        async for _event in result.stream_events():
            pass

    consumer = asyncio.ensure_future(consume())
    assert await asyncio.to_thread(started.wait, 20)
    result.cancel()  # Stop
    await consumer
    assert result.is_cancelled
    (call,) = reported
    assert call.reason == "stopped" and not call.done
    release.set()
    assert (await ended(call)).output == "wrote 1 characters"


async def test_a_sync_tool_that_timed_out_is_reported_with_what_it_raised_later(
    reported: list[BackgroundCall],
) -> None:
    release = threading.Event()

    @tool(timeout=0.1)
    def slow() -> str:
        """Slow, then fails."""
        release.wait(30)
        raise ValueError("disk full")

    model = ScriptedModel([[tool_call("slow", call_id="s1")], [text("ok")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[slow]), "go")
    (output,) = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert output.status == "timeout"
    (call,) = reported
    assert (call.call_id, call.reason) == ("s1", "timeout")
    release.set()
    end = await ended(call)
    assert isinstance(end.error, ValueError) and str(end.error) == "disk full"


async def test_calls_that_end_in_time_or_never_start_are_not_reported(
    reported: list[BackgroundCall],
) -> None:
    @tool
    def quick() -> str:
        """Quick."""
        return "ok"

    hanging = asyncio.Event()

    @tool
    async def hang() -> str:
        """Async: cancelled for real."""
        hanging.set()
        await asyncio.Event().wait()
        return "never"

    model = ScriptedModel([[tool_call("quick")], [tool_call("hang")], [text("ok")]])
    run = asyncio.ensure_future(Runner.run(Agent(name="a", model=model, tools=[quick, hang]), "go"))
    await asyncio.wait_for(hanging.wait(), 20)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert reported == []


async def test_without_a_sink_the_call_is_logged_and_so_is_its_end(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    write_file, started, release = gated_writer(tmp_path / "effect.txt")
    model = ScriptedModel([[tool_call("write_file", {"content": "abc"}, "w1")], [text("ok")]])
    caplog.set_level(logging.WARNING, "jupyter_agents")
    run = asyncio.ensure_future(Runner.run(Agent(name="a", model=model, tools=[write_file]), "go"))
    assert await asyncio.to_thread(started.wait, 20)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert "'write_file' (call w1) is still running in the background" in caplog.text
    logged = asyncio.get_running_loop().create_future()

    class Finished(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "finished in the background" in record.getMessage():
                logged.get_loop().call_soon_threadsafe(logged.set_result, record.getMessage())

    handler = Finished()
    logging.getLogger("jupyter_agents").addHandler(handler)
    try:
        release.set()
        message = await asyncio.wait_for(logged, 20)
    finally:
        logging.getLogger("jupyter_agents").removeHandler(handler)
    assert "returned 'wrote 3 characters'" in message


# -- killable tools ----------------------------------------------------------------------------

GRANDCHILD = """
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)  # like a program started in the background by sh
pid_file, gate, marker = sys.argv[1:]
open(pid_file + ".tmp", "w").write(str(os.getpid()))
os.rename(pid_file + ".tmp", pid_file)
while not os.path.exists(gate):
    time.sleep(0.02)
open(marker, "w").write("side effect")
"""


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def wait_until(condition: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting: {what}"
        time.sleep(0.02)  # polling another process's state: there is nothing to wait on


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_stopping_a_killable_tool_stops_the_programs_it_started(tmp_path: Path) -> None:
    pid_file, gate, marker = tmp_path / "pid", tmp_path / "gate", tmp_path / "marker"

    @tool(killable=True)
    def sync_files() -> str:
        """Starts a program and waits for it."""
        args = [sys.executable, "-c", GRANDCHILD, str(pid_file), str(gate), str(marker)]
        subprocess.run(args, check=True)
        return "synced"

    model = ScriptedModel([[tool_call("sync_files")], [text("ok")]])
    run = asyncio.ensure_future(Runner.run(Agent(name="a", model=model, tools=[sync_files]), "go"))
    await asyncio.to_thread(wait_until, pid_file.exists, 20, "the program started")
    pid = int(pid_file.read_text())
    try:
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        await asyncio.to_thread(wait_until, lambda: not running(pid), 5, "the program ended")
        gate.touch()  # what would let it do its side effect: nothing is left to do it
        assert not marker.exists()
    finally:
        if running(pid):
            os.kill(pid, 9)
