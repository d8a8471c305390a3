"""A tool says how far it has got with ``ToolContext.report_progress``: whoever shows the run
(the notebook's card, through ``tool_progress_sink``) gets each report with the call's id, from
the tool's thread too; with nobody listening it does nothing."""

from __future__ import annotations

from typing import Any

from jupyter_agents import Agent, Runner, ToolContext, tool
from jupyter_agents.runtime.tools.live_output import tool_progress_sink
from jupyter_agents.testing import ScriptedModel, text, tool_call


@tool
def crunch(ctx: ToolContext[Any], files: int) -> str:
    """Crunch some files (in a thread: a plain function)."""
    for done in range(1, files + 1):
        ctx.report_progress(done, files, f"file {done}")
    return "crunched"


@tool
async def scan(ctx: ToolContext[Any]) -> str:
    """Scan, not knowing how much there is."""
    ctx.report_progress(42, message="rows so far")
    return "scanned"


def agent() -> Agent[Any]:
    model = ScriptedModel(
        [
            [tool_call("crunch", {"files": 3}, call_id="c1"), tool_call("scan", {}, call_id="s1")],
            [text("Done.")],
        ]
    )
    return Agent(name="a", model=model, tools=[crunch, scan])


async def test_each_report_reaches_the_sink_with_its_call() -> None:
    seen: list[tuple[str, float, float | None, str]] = []
    token = tool_progress_sink.set(lambda *said: seen.append(said))
    try:
        result = await Runner.run(agent(), "go")
    finally:
        tool_progress_sink.reset(token)
    assert result.final_output == "Done."
    assert sorted(seen) == [
        ("c1", 1.0, 3.0, "file 1"),
        ("c1", 2.0, 3.0, "file 2"),
        ("c1", 3.0, 3.0, "file 3"),
        ("s1", 42.0, None, "rows so far"),
    ]


async def test_with_nobody_listening_a_report_does_nothing() -> None:
    assert (await Runner.run(agent(), "go")).final_output == "Done."
