"""Tool timeouts tell the truth: threads may still finish, killable tools are stopped."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    RunConfig,
    Runner,
    RunResultBase,
    ToolCallOutputItem,
    UserError,
    tool,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call


def outputs(result: RunResultBase) -> list[ToolCallOutputItem]:
    return [i for i in result.new_items if isinstance(i, ToolCallOutputItem)]


async def test_a_sync_tool_on_a_thread_is_reported_as_possibly_still_running() -> None:
    release, finished = threading.Event(), threading.Event()

    @tool(timeout=0.1)
    def slow() -> str:
        """Slow."""
        release.wait(10)
        finished.set()
        return "late"

    model = ScriptedModel([[tool_call("slow")], [text("ok")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[slow]), "go")
    (output,) = outputs(result)
    assert output.status == "timeout"
    assert "may still complete in the background" in output.raw_item["output"]
    release.set()
    assert await asyncio.to_thread(finished.wait, 10)  # and indeed it did


async def test_the_run_default_tool_timeout_applies_and_can_change() -> None:
    @tool
    async def hang() -> str:
        """Hangs."""
        await asyncio.Event().wait()
        return "never"

    model = ScriptedModel([[tool_call("hang")], [text("ok")]])
    config = RunConfig(tool_timeout=0.1)
    result = await Runner.run(Agent(name="a", model=model, tools=[hang]), "go", run_config=config)
    (output,) = outputs(result)
    assert output.status == "timeout"
    assert output.raw_item["output"] == "Tool 'hang' did not finish within 0.1 s and was stopped."
    assert RunConfig().tool_timeout == 600.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_killable_tool_is_killed_on_timeout(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"

    @tool(timeout=0.5, killable=True)
    def stubborn() -> str:
        """Never gives up."""
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)
        return "never"

    model = ScriptedModel([[tool_call("stubborn")], [text("ok")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[stubborn]), "go")
    (output,) = outputs(result)
    assert output.status == "timeout"
    assert (
        output.raw_item["output"] == "Tool 'stubborn' did not finish within 0.5 s and was stopped."
    )
    pid = int(pid_file.read_text())
    assert pid != os.getpid() and not _alive(pid)


async def test_stopping_the_run_kills_a_killable_tool(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"

    @tool(killable=True)
    def stubborn() -> str:
        """Never gives up."""
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)
        return "never"

    model = ScriptedModel([[tool_call("stubborn")], [text("ok")]])
    run = asyncio.create_task(Runner.run(Agent(name="a", model=model, tools=[stubborn]), "go"))
    deadline = time.monotonic() + 20
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert not _alive(int(pid_file.read_text()))


async def test_a_killable_tool_returns_prints_and_raises_like_a_normal_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    @tool(killable=True)
    def square(x: int) -> int:
        """Square."""
        print("computing", x)
        return x * x

    @tool(killable=True)
    def broken() -> str:
        """Raises."""
        raise ValueError("bad input")

    model = ScriptedModel([[tool_call("square", {"x": 7}), tool_call("broken")], [text("ok")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[square, broken]), "go")
    ok, failed = outputs(result)
    assert ok.output == 49 and ok.status == "ok"
    assert "computing 7" in capsys.readouterr().out
    assert failed.status == "error" and failed.error is not None
    assert failed.error.type == "ValueError" and failed.error.message == "bad input"
    assert failed.error.traceback is not None and "raise ValueError" in failed.error.traceback


def test_killable_is_for_sync_functions() -> None:
    async def f() -> str:
        return ""

    with pytest.raises(UserError, match="killable=True is for plain"):
        tool(killable=True)(f)


async def test_a_tool_that_raises_keeps_its_traceback_for_people() -> None:
    @tool
    def explode(n: int) -> str:
        """Explodes."""
        return str(1 // n)

    model = ScriptedModel([[tool_call("explode", {"n": 0})], [text("ok")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[explode]), "go")
    (output,) = outputs(result)
    assert output.status == "error" and output.error is not None
    assert output.error.type == "ZeroDivisionError"
    assert output.error.traceback is not None
    assert "return str(1 // n)" in output.error.traceback
    assert "jupyter_agents" not in output.error.traceback
    assert "Traceback" not in output.raw_item["output"]  # the model gets the short message


async def test_the_traceback_of_a_sync_tool_leaves_out_the_worker_thread() -> None:
    @tool
    def explode_sync(n: int) -> str:
        """Explodes on a thread."""
        return str(1 // n)

    model = ScriptedModel([[tool_call("explode_sync", {"n": 0})], [text("ok")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[explode_sync]), "go")
    (output,) = outputs(result)
    assert output.error is not None and output.error.traceback is not None
    assert "return str(1 // n)" in output.error.traceback
    assert "concurrent" not in output.error.traceback and "thread.py" not in output.error.traceback


async def test_the_shared_watchdog_times_out_calls_and_leaves_the_task_usable() -> None:
    from jupyter_agents.runtime._run.tool_checks import Watchdog

    watchdog = Watchdog(tick=0.01)
    assert await watchdog.run(asyncio.Event().wait(), 0.05) == (False, None)
    assert await watchdog.run(asyncio.sleep(0, result="done"), 0.05) == (True, "done")
    await asyncio.sleep(0.02)  # the task was uncancelled: it can still wait

    async def stubborn() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            return "swallowed"
        return "never"

    assert await watchdog.run(stubborn(), 0.05) == (True, "swallowed")
    await asyncio.sleep(0.02)


async def test_a_real_stop_during_a_watched_call_still_cancels() -> None:
    from jupyter_agents.runtime._run.tool_checks import Watchdog

    watchdog = Watchdog(tick=0.01)
    started = asyncio.Event()

    async def call() -> object:
        started.set()
        return await watchdog.run(asyncio.Event().wait(), 600)

    task = asyncio.ensure_future(call())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_long_default_timeouts_use_the_loops_watchdog() -> None:
    from jupyter_agents.runtime._run import tool_checks

    seen: list[float] = []
    dog = tool_checks.watchdog()
    run = dog.run

    async def recording(awaitable: Awaitable[Any], seconds: float) -> tuple[bool, Any]:
        seen.append(seconds)
        return await run(awaitable, seconds)

    @tool
    async def quick() -> str:
        """Quick."""
        return "ok"

    dog.run = recording  # type: ignore[method-assign]
    try:
        model = ScriptedModel([[tool_call("quick")], [text("ok")]])
        await Runner.run(Agent(name="a", model=model, tools=[quick]), "go")
    finally:
        dog.run = run  # type: ignore[method-assign]
    assert seen == [600.0]
