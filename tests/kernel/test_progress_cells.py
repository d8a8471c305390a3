"""A tool's progress on its card in a real kernel: ``ctx.report_progress`` in a notebook tool
puts ``progress`` on the card's state (the bar the widget draws while the call runs)."""

from __future__ import annotations

import pytest

from .frontend import Frontend
from .test_agent_cells import final_state, shown_card, start

pytestmark = pytest.mark.kernel

TOOL = '''
from jupyter_agents import ToolContext

@tool
def crunch(ctx: ToolContext, files: int) -> str:
    """Crunch files."""
    for done in range(1, files + 1):
        ctx.report_progress(done, files, f"file {done} <b>bold</b>")
    return "crunched"

demo = ScriptedModel([[tool_call("crunch", {"files": 4}, call_id="p1")], [text("Done.")]])
%agent model demo
'''


def test_a_tools_progress_is_on_its_card(fe: Frontend) -> None:
    fe.run(TOOL)
    cell, comm = start(fe, "%%agent\nCrunch four files.")
    fe.hello(comm)
    assert fe.reply(cell)["content"]["status"] == "ok"
    card = shown_card(final_state(fe, comm), "p1")
    assert card["progress"] == {"done": 4.0, "total": 4.0, "message": "file 4 <b>bold</b>"}
    fe.run("%agent tools remove crunch")
