"""``ask`` mode with the notebook's own tools, on a real kernel with a real document frontend
(``python -m jupyter_agents.headless``, approvals automatic): a scripted model calling
``insert_cell``, ``run_cells``, the shell and ``notebook_python`` gets refusals and the notebook
is unchanged, while ``read_cell`` and ``list_variables`` work."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from .test_notebook_tools import run_headless

SETUP = """%load_ext jupyter_agents
from jupyter_agents import ShellTool
from jupyter_agents.notebook.host import current_host
from jupyter_agents.testing import ScriptedModel, output_item, text, tool_call
shell = output_item({"type": "shell_call", "id": "sh_1", "call_id": "s1", "status": "completed",
                     "action": {"commands": ["echo pwned > pwned.txt"], "timeout_ms": None}})
demo = ScriptedModel([
    [tool_call("insert_cell", {"cell_type": "code", "source": "x = 0"}, "i1"),
     tool_call("run_cells", {"cells": [{"id": "data", "version": "v"}]}, "r1"),
     tool_call("notebook_python", {"code": "x = 0"}, "p1"),
     shell,
     tool_call("read_cell", {"id": "data"}, "c1"),
     tool_call("list_variables", {}, "v1")],
    [text("I only read.")],
])
%agent model demo
%agent tools add notebook
%agent tools add notebook_python
current_host().toolbox.add(ShellTool(approval_policy="never"), "test")
%agent mode ask"""

SHOW = """import json
answers = {i["call_id"]: i["output"] for i in demo.requests[1].input if "output" in i}
print(json.dumps({"answers": answers, "x": x, "offered": demo.requests[0].tool_names}))"""


@pytest.mark.kernel
@pytest.mark.timeout(180)
def test_ask_mode_refuses_every_change_and_reads(tmp_path: Path) -> None:
    cells = [
        nbformat.v4.new_code_cell(SETUP),
        nbformat.v4.new_code_cell("x = 41"),
        nbformat.v4.new_code_cell("%%agent\nChange everything."),
        nbformat.v4.new_code_cell(SHOW),
    ]
    out = run_headless(tmp_path, cells, ["setup", "data", "agent", "show"])
    assert [c.id for c in out.cells] == ["setup", "data", "agent", "show"]  # nothing inserted
    shown = json.loads("".join(o.get("text", "") for o in out.cells[3].outputs))
    answers = shown["answers"]
    for call_id, tool in (("i1", "insert_cell"), ("r1", "run_cells"), ("p1", "notebook_python")):
        assert answers[call_id].startswith(f"ask mode: {tool} is not one of the"), answers
        assert "switch with %agent mode agent" in answers[call_id]
    assert "ask mode: shell is not one of the" in str(answers["s1"])
    assert answers["c1"].startswith("cell data (code [2], version ") and "x = 41" in answers["c1"]
    assert "x: int" in answers["v1"]
    assert shown["x"] == 41  # notebook_python and run_cells did not run
    assert not (tmp_path / "pwned.txt").exists()
    reading = ["ask_user", "inspect_variable", "list_cells", "list_notebooks", "list_variables"]
    assert sorted(shown["offered"]) == [*reading, "read_cell"]
