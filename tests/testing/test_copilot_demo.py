"""The copilot notebook's demo model answers the prompts the chat and the assists really build
(from the notebook's own cells): it explains the active cell, fixes the failing cell with an
edit that runs, writes a ranking into the empty cell, and says it is a demo for anything else."""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

import nbformat

from jupyter_agents import Agent, Runner, tool
from jupyter_agents.notebook.assists.prompt import fix_prompt, generate_prompt
from jupyter_agents.notebook.chat.mentions import context_text
from jupyter_agents.notebook.chat.request import ChatRequest
from jupyter_agents.notebook.workspace.cell_outputs import cell_version
from jupyter_agents.testing.copilot_demo import DEMO_NOTE, copilot_model

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "copilot.ipynb"


def cells() -> dict[str, Any]:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    return {c.id: c for c in nb.cells}


def data() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(cells()["data"].source, namespace)
    return namespace


class Notebook:
    """edit_cell and run_cells as the notebook tools answer (the real ones need a page)."""

    def __init__(self) -> None:
        self.sources: dict[str, str] = {}
        self.ran: list[dict[str, str]] = []

        @tool
        def edit_cell(id: str, version: str, new_source: str) -> str:
            """Replace a cell's source."""
            self.sources[id] = new_source
            return f"Edited cell {id} (version now {cell_version(new_source)})."

        @tool(strict_mode=False)
        def run_cells(cells: list[dict[str, str]]) -> str:
            """Run cells."""
            self.ran += cells
            return "cell fix ran: text: \"{'Paris': 10.0, 'Lima': 19.0}\""

        self.tools = [edit_cell, run_cells]


async def ask(prompt: str) -> tuple[str, Notebook]:
    notebook = Notebook()
    agent = Agent(name="copilot", model=copilot_model(delay=0), tools=[*notebook.tools])
    result = await Runner.run(agent, prompt)
    return str(result.final_output), notebook


def failed(cell: Any, namespace: dict[str, Any]) -> dict[str, Any]:
    """``cell`` with the error output running it gives."""
    try:
        exec(cell.source, namespace)
    except ZeroDivisionError as e:
        lines = traceback.format_exception(e)
        error = {"output_type": "error", "ename": "ZeroDivisionError", "evalue": str(e)}
        return {**cell, "outputs": [{**error, "traceback": lines}]}
    raise AssertionError("the cell for Fix does not fail")


async def test_the_chat_explains_the_active_cell() -> None:
    request = ChatRequest(thread="t", message="What does this cell do?", active_cell="data")
    context = context_text(request, {}, list(cells().values()), NOTEBOOK.parent)
    answer, _ = await ask(f"{request.message}\n\n{context}")
    assert answer.startswith("Cell 14 sets `orders` to a dict of 3 entries (Paris, Oslo, Lima)")
    assert "sets `revenue` to a dict of 3 entries" in answer


async def test_fix_edits_the_failing_cell_into_one_that_runs_then_runs_it() -> None:
    namespace = data()
    cell = failed(cells()["fix"], namespace)
    answer, notebook = await ask(fix_prompt(cell, 16, namespace))
    fixed = notebook.sources["fix"]
    exec(fixed, namespace)
    assert namespace["per_order"] == {"Paris": 10.0, "Lima": 19.0}
    assert notebook.ran == [{"id": "fix", "version": cell_version(fixed)}]
    assert answer.startswith("Fixed: a city with no orders")


async def test_ctrl_i_writes_a_ranking_into_the_empty_cell() -> None:
    prompt = generate_prompt(cells()["write"], 18, "Rank the cities by revenue")
    answer, notebook = await ask(prompt)
    namespace = data()
    exec(notebook.sources["write"], namespace)
    assert namespace["ranked"] == [("Paris", 120), ("Lima", 95), ("Oslo", 80)]
    assert notebook.ran == []  # written, not run
    assert answer == "Written: run the cell to see the result."


async def test_anything_else_gets_the_demo_note_and_no_tool_call() -> None:
    broken = {"id": "x", "source": "1 / 0", "outputs": failed_output()}
    for prompt in ("Hello", fix_prompt(broken, 0, {}), generate_prompt(broken, 0, "a poem")):
        answer, notebook = await ask(prompt)
        assert (answer, notebook.sources) == (DEMO_NOTE, {})


def failed_output() -> list[dict[str, Any]]:
    return [{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "", "traceback": []}]
