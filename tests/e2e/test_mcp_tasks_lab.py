"""An outside agent runs a notebook cell longer than its request timeout, in real JupyterLab:
the notebook serves its tools (``%agent mcp serve --notebook``), the ``mcp`` SDK's own client
(each request allowed 2 s) calls ``run_cells`` on a cell that takes 5 s as an MCP task, the
person approves the call on the serving cell's card, the cell runs in the page, and the client
gets its output by polling the task instead of timing out."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from typing import Any

import pytest

from ..mcp.results import text_of
from ..mcp.test_tasks_kernel import client
from ..mcp.test_tasks_served import follow, start_task
from .lab import ARTIFACTS, Session, expect

pytestmark = pytest.mark.browser

SETUP = """%load_ext jupyter_agents
%agent mcp serve --notebook
import json
print("SERVED " + json.dumps({"url": toolbox_server.url, "headers": toolbox_server.headers}))"""
SLOW = 'import time\ntime.sleep(5)\nprint("the slow cell is done")'


async def outside_agent(served: dict[str, Any]) -> tuple[list[str], Any]:
    async with client(served["url"], served["headers"], timeout=2) as session:
        read = await session.call_tool("read_cell", {"id": "slow"})
        version = re.search(r"version\W+([0-9a-f]{6,})", text_of(read))
        assert version, text_of(read)
        cells = [{"id": "slow", "version": version.group(1)}]
        task_id = await start_task(session, "run_cells", {"cells": cells})
        return await follow(session, task_id)


def test_an_outside_agent_runs_a_long_cell_as_a_task(session: Session) -> None:
    with session.lab("e2e-mcp-tasks") as lab:
        lab.write_notebook("served.ipynb", [SETUP, SLOW], ids=["setup", "slow"])
        lab.open("served.ipynb")
        lab.run_cell(0)
        expect(lab.outputs(0).filter(has_text="SERVED")).to_have_count(1)
        line = lab.outputs(0).filter(has_text="SERVED").inner_text()
        served = json.loads(line.split("SERVED ", 1)[1].splitlines()[0])
        outcome: dict[str, Any] = {}

        def call() -> None:
            try:
                outcome["value"] = asyncio.run(outside_agent(served))
            except BaseException as e:  # reported by the test below
                outcome["error"] = e

        caller = threading.Thread(target=call, daemon=True)
        caller.start()
        card = lab.cell(0).locator(".ja-tool.ja-st-waiting").filter(has_text="run_cells")
        expect(card).to_be_visible()  # the person decides on the serving cell's card
        lab.cell(0).screenshot(path=str(ARTIFACTS / "mcp-task-card.png"))
        card.get_by_role("button", name="Approve", exact=True).click()
        expect(lab.outputs(1)).to_contain_text("the slow cell is done", timeout=30_000)
        caller.join(timeout=60)
        assert "error" not in outcome, outcome.get("error")
        seen, result = outcome["value"]
        assert not result.is_error and "the slow cell is done" in text_of(result)
        assert len(seen) >= 2  # polled while the cell ran: no request waited for it
        assert lab.errors == [], lab.errors
