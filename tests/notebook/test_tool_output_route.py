"""What a running tool prints reaches its card one way: the runtime's live-output sink.

The cell sets ``tool_output_sink`` to the view's ``tool_output_text`` once around a run; a shell
streams into it, and a function tool's ``print()`` (sync on a worker thread, or async) is routed
into it by the cell's stdout proxy, so the view has a single entry for tool output.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from jupyter_agents import Agent, Runner, tool
from jupyter_agents.notebook.cells import _tool_output
from jupyter_agents.notebook.cells.cell import _printing_to_cards
from jupyter_agents.notebook.view.run_view import RunView
from jupyter_agents.runtime.tools.live_output import tool_output_sink
from jupyter_agents.testing import ScriptedModel, text, tool_call


@tool
def weather(city: str) -> str:
    """Weather (sync: runs on a worker thread)."""
    print(f"looking up {city}")
    return "sunny"


@tool
async def forecast(city: str) -> str:
    """Forecast (async: runs on the loop)."""
    print(f"asking about {city}", flush=True)
    return "rain"


@contextmanager
def proxy() -> Iterator[None]:
    """The cell's stdout proxy, installed inside the test (pytest swaps the streams per phase)."""
    _tool_output.install()
    try:
        yield
    finally:
        _tool_output.uninstall()


def agent() -> Agent[Any]:
    calls = [
        tool_call("weather", {"city": "Oslo"}, "w1"),
        tool_call("forecast", {"city": "Rome"}, "f1"),
    ]
    model = ScriptedModel([calls, [text("ok")]])
    return _printing_to_cards(Agent(name="a", model=model, tools=[weather, forecast]))


async def test_printed_text_takes_the_runtime_sink(capsys: Any) -> None:
    seen: list[tuple[str, str]] = []
    token = tool_output_sink.set(lambda call_id, chunk: seen.append((call_id, chunk)))
    try:
        with proxy():
            await Runner.run(agent(), "go")
            print("not from a tool")
    finally:
        tool_output_sink.reset(token)
    by_call = {c: "".join(t for i, t in seen if i == c) for c, _t in seen}
    assert by_call == {"w1": "looking up Oslo\n", "f1": "asking about Rome\n"}
    assert capsys.readouterr().out == "not from a tool\n"  # outside a call: the real stream


async def test_printed_text_lands_in_the_card() -> None:
    view = RunView(agent="a", model="m")
    result = Runner.run_streamed(agent(), "go")
    token = tool_output_sink.set(view.tool_output_text)  # as the cell does, once
    try:
        with proxy():
            async for event in result.stream_events():
                view.on_event(event)
    finally:
        tool_output_sink.reset(token)
    view.finish("done")
    cards = {b["call_id"]: b for b in view.widget.blocks if b.get("kind", "tool") == "tool"}
    assert cards["w1"]["printed"] == "looking up Oslo\n"
    assert cards["f1"]["printed"] == "asking about Rome\n"


@tool
def broken(city: str) -> str:
    """Always fails."""
    raise RuntimeError(f"no data for {city}")


async def test_a_failing_tool_still_ends_with_status_error() -> None:
    model = ScriptedModel([[tool_call("broken", {"city": "Oslo"}, "b1")], [text("ok")]])
    wrapped = _printing_to_cards(Agent(name="a", model=model, tools=[broken]))
    with proxy():
        result = await Runner.run(wrapped, "go")
    (output,) = [i for i in result.new_items if i.type == "tool_call_output_item"]
    # The run, not the tool's own invoker, words the error, so the call is recorded as failed.
    assert output.status == "error"
    assert output.error is not None and output.error.type == "RuntimeError"
    assert "no data for Oslo" in output.raw_item["output"]
