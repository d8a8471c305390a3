"""The agent of the durable-run tests, shared by the test process and the process it kills
(``python -m tests.runtime.durable_agent WORK SCENARIO``): a run that fetches rows, then writes
a report, then answers. Each tool counts its runs in ``WORK/count``, which outlives a killed
process; the model answers from the request (how many tool outputs it holds), so a resumed run
meets the same replies."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from jupyter_agents import Agent, RunConfig, Runner, tool
from jupyter_agents.runtime.approvals import ApprovalRequest
from jupyter_agents.runtime.durable import RunJournal
from jupyter_agents.testing import ScriptedModel, text, tool_call

FINAL = "Done: 42 rows, and the report is written."


def count(work: Path, name: str) -> int:
    """How many times tool ``name`` ran (a line each)."""
    path = work / "count"
    return path.read_text().split().count(name) if path.exists() else 0


def make_agent(work: Path, *, asks: bool) -> Agent[Any]:
    """The agent; ``asks``: its report tool waits for a person's approval."""

    @tool
    def fetch_rows() -> str:
        """Fetch the rows."""
        with (work / "count").open("a") as f:
            f.write("fetch\n")
        return "42 rows"

    @tool(needs_approval=asks)
    def write_report(rows: int) -> str:
        """Write the report."""
        with (work / "count").open("a") as f:
            f.write("report\n")
        if (work / "block").exists():  # the process is killed while this runs
            (work / "report-started").touch()
            time.sleep(600)
        return "report written"

    def respond(request: Any) -> Any:
        outputs = sum(
            1
            for item in request.input
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        )
        if outputs == 0:
            return tool_call("fetch_rows", {}, call_id="a1")
        if outputs == 1:
            return tool_call("write_report", {"rows": 42}, call_id="b1")
        return text(FINAL)

    return Agent(
        name="reporter", model=ScriptedModel(respond=respond), tools=[fetch_rows, write_report]
    )


def waiting_handler(work: Path) -> Any:
    """An approval handler that never answers (marks that it was asked)."""

    async def ask(request: ApprovalRequest) -> Any:
        (work / "asked").touch()
        await asyncio.Event().wait()

    return ask


async def run_until_killed(work: Path, scenario: str) -> None:
    journal = RunJournal(work / "runs.sqlite")
    asks = scenario == "asks"
    if not asks:
        (work / "block").touch()
    agent = make_agent(work, asks=asks)
    config = RunConfig(durable=journal.begin({"prompt": "Report on the rows."}))
    await Runner.run(
        agent, "Report on the rows.", run_config=config, approval_handler=waiting_handler(work)
    )


if __name__ == "__main__":
    asyncio.run(run_until_killed(Path(sys.argv[1]), sys.argv[2]))
