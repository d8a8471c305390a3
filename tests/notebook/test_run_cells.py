"""``run_cells`` in a real run of ``python -m jupyter_agents.headless``: the scripted model
inserts a cell and runs it (and one that was already there) while its own cell is running; the
outputs land in those cells of the executed notebook with their execution counts, the model
gets them back, and cells it must not run are refused in one line."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from jupyter_agents.notebook.saved.run_document import decode
from jupyter_agents.notebook.workspace.cell_outputs import cell_version

from .test_notebook_tools import run_headless

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(180)]

NEW = """import math
from IPython.display import Markdown, display
print('hello from', x)
display(Markdown('**shown**'))
math.sqrt(x * 16)"""

SETUP = """%load_ext jupyter_agents
import re
from jupyter_agents.testing import ScriptedModel, text, tool_call

def step(request):
    done = sum(1 for item in request.input if item.get("type") == "function_call_output")
    said = request.input[-1].get("output", "") if done else ""
    if done == 0:
        return [tool_call("insert_cell", {"cell_type": "code", "source": NEW,
                                          "after_id": "data"}, "c0")]
    if done == 1:
        cell, version = re.search(r"Inserted cell (\\S+) \\(version now (\\w+)\\)", said).groups()
        return [tool_call("run_cells", {"cells": [{"id": "data", "version": DATA_V},
                                                  {"id": cell, "version": version}]}, "c1")]
    if done == 2:
        return [tool_call("run_cells", {"cells": [{"id": "show", "version": SHOW_V}]}, "c2")]
    if done == 3:
        return [tool_call("run_cells", {"cells": [{"id": "agent", "version": "x"}]}, "c3")]
    if done == 4:
        return [tool_call("run_cells", {"cells": [{"id": "data", "version": "0123"}]}, "c4")]
    return [text("Ran them.")]

demo = ScriptedModel(respond=step)
%agent model demo
%agent tools add notebook"""

SHOW = "for r in demo.requests[2:6]:\n    print('===', r.input[-1]['output'])"


def test_the_agent_runs_cells_and_their_outputs_land_in_them(tmp_path: Path) -> None:
    setup = (
        f"NEW = {NEW!r}\nDATA_V = {cell_version('x = 1')!r}\nSHOW_V = {cell_version(SHOW)!r}\n"
        + SETUP
    )
    sources = [
        ("setup", setup),
        ("data", "x = 1"),
        ("agent", "%%agent --max-turns 10\nBuild it."),
        ("show", SHOW),
    ]
    cells = [nbformat.v4.new_code_cell(source) for _id, source in sources]
    out = run_headless(tmp_path, cells, [cell_id for cell_id, _source in sources])
    assert [c.get("id") for c in out.cells][:2] == ["setup", "data"]
    new = out.cells[2]
    assert new.source == NEW
    kinds = [o["output_type"] for o in new.outputs]
    assert kinds == ["stream", "display_data", "execute_result"], new.outputs
    assert new.outputs[0]["text"] == "hello from 1\n"
    assert new.outputs[1]["data"]["text/markdown"] == "**shown**"
    assert new.outputs[2]["data"]["text/plain"] == "4.0"
    data, agent = out.cells[1], out.cells[3]
    # counts go on from the agent's: data ran again, then the new cell; the agent's cell
    # ends with the count after them (IPython counts a cell as it starts)
    assert isinstance(data.execution_count, int) and new.execution_count == data.execution_count + 1
    assert new.outputs[2]["execution_count"] == new.execution_count
    assert agent.execution_count == new.execution_count + 1
    told = "".join(o.get("text", "") for o in out.cells[4].outputs).split("=== ")[1:]
    assert told[0].startswith(f"Cell data ran as [{data.execution_count}]. No output.")
    assert f"Cell {new['id']} ran as [{new.execution_count}]. Output:\nhello from 1" in told[0]
    assert "4.0" in told[0]
    assert told[1].startswith("Not run: that cell runs later in this run of the notebook")
    assert told[2].startswith("Not run: the agent's own cell cannot be run by the agent.")
    assert told[3].startswith("Not run: cell data is not at version 0123")
    assert agent.outputs  # the run's transcript
    saved = decode(agent.outputs[0]["data"]["application/vnd.jupyter-agents.run+json"])
    cards = [b for b in saved["blocks"] if b.get("name") == "run_cells"]
    code = [p["text"] for p in cards[0]["parts"] if p.get("type") == "code"]
    assert code == ["# cell data\nx = 1", f"# cell {new['id']}\n{NEW}"]  # one part a cell


RESTART = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text, tool_call
demo = ScriptedModel([
    [tool_call("restart_kernel", {"reason": "a clean slate"}, "k1")],
    [text("Restarting.")],
])
%agent model demo
%agent tools add notebook"""


def test_restart_kernel_restarts_once_the_agents_cell_ends(tmp_path: Path) -> None:
    sources = [
        ("setup", RESTART),
        ("data", "x = 1"),
        ("agent", "%%agent\nStart over."),
        ("check", "print('x' in globals())"),
    ]
    cells = [nbformat.v4.new_code_cell(source) for _id, source in sources]
    out = run_headless(tmp_path, cells, [cell_id for cell_id, _source in sources])
    agent, check = out.cells[2], out.cells[3]
    saved = decode(agent.outputs[0]["data"]["application/vnd.jupyter-agents.run+json"])
    (card,) = [b for b in saved["blocks"] if b.get("name") == "restart_kernel"]
    assert card["approval"]["state"] == "approved" and card["approval"].get("always") is not True
    assert "The kernel restarts when this agent cell ends" in str(card)
    assert check.outputs[0]["text"] == "False\n"  # the fresh kernel: x is gone
    assert check.execution_count == 1
