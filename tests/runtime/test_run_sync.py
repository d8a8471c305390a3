"""Runner.run_sync: from plain code, inside a running loop (a notebook cell), interrupted."""

from __future__ import annotations

import asyncio
import contextvars
import threading

from jupyter_agents import Agent, Runner, UserError, tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="none")


def test_run_sync_from_plain_code_and_repeatedly() -> None:
    for i in range(3):
        result = Runner.run_sync(Agent(name="a", model=ScriptedModel([f"answer {i}"])), "q")
        assert result.final_output == f"answer {i}"


async def test_run_sync_inside_a_running_loop_uses_a_worker_loop() -> None:
    outer_loop = asyncio.get_running_loop()
    seen: dict[str, object] = {}

    @tool
    async def where() -> str:
        """Report the loop and thread."""
        seen["loop"] = asyncio.get_running_loop()
        seen["thread"] = threading.current_thread().name
        seen["request_id"] = request_id.get()
        return "here"

    request_id.set("cell-42")
    model = ScriptedModel([[tool_call("where")], [text("done")]])
    result = Runner.run_sync(Agent(name="a", model=model, tools=[where]), "q")

    assert result.final_output == "done"
    assert seen["loop"] is not outer_loop
    assert seen["thread"] == "jupyter_agents-run_sync"
    assert seen["request_id"] == "cell-42"


async def test_run_sync_inside_a_loop_raises_the_runs_error() -> None:
    import pytest

    from jupyter_agents import MaxTurnsExceeded

    model = ScriptedModel([[tool_call("missing")]] * 3)
    with pytest.raises(MaxTurnsExceeded):
        Runner.run_sync(Agent(name="a", model=model), "q", max_turns=2)


def test_run_sync_interrupted_cancels_the_run() -> None:
    import os
    import signal

    import pytest

    cancelled = threading.Event()
    started = threading.Event()

    @tool
    async def wait() -> str:
        """Wait until cancelled."""
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    def interrupt_when_started() -> None:
        if started.wait(timeout=60):
            os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C

    # Python's own Ctrl-C handler, whatever an earlier test in this process left installed
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=interrupt_when_started, daemon=True).start()
        model = ScriptedModel([[tool_call("wait")]])
        with pytest.raises(KeyboardInterrupt):
            Runner.run_sync(Agent(name="a", model=model, tools=[wait]), "q")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert cancelled.is_set()


async def test_run_sync_inside_a_loop_passes_timeout_errors_through() -> None:
    import pytest

    @tool(failure_error_function=None)
    async def times_out() -> str:
        """Raises TimeoutError."""
        raise TimeoutError("tool timed out")

    model = ScriptedModel([[tool_call("times_out")]])
    with pytest.raises(UserError, match="tool timed out") as raised:
        Runner.run_sync(Agent(name="a", model=model, tools=[times_out]), "q")
    assert isinstance(raised.value.__cause__, TimeoutError)
