"""The notebook agent's ``run_cells`` and ``restart_kernel``.

``run_cells`` runs code cells in the user's kernel as if the person had run them (their outputs
appear in the notebook, the execution count goes on) while the agent's own cell keeps running
(``cell_runner.py``), and gives the model what they showed.

It asks first, like every change, with a card made when it asks (``cell_cards.py``): the code
of each cell as the frontend holds it then, whole. The model names the version of each cell it
read (``read_cell``, ``insert_cell`` or ``edit_cell`` gives it); a cell that holds another
source is refused before anyone is asked. What runs is the source the card showed, and only
while the cell still holds it: the frontend checks each cell as it starts, and refuses one the
person changed since. It stops at the first cell that fails, as Run All does.

``restart_kernel`` asks every time (no "always" covers it) and restarts the kernel when the
agent's cell ends (the frontend does it, so the run's record is kept in the cell).
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from typing import Any

from typing_extensions import TypedDict  # pydantic reads its fields on Python < 3.12

from ...runtime.context import ToolContext
from ...runtime.tools import FunctionTool, function_tool
from ...runtime.tools.outputs import ToolOutput, ToolOutputText
from ..document_contract import Output
from .cell_cards import CardBook, ShownCell, label, run_card
from .cell_outputs import model_outputs
from .cell_runner import CellRun, CellRunner
from .document_comm import DocumentChannel, NoFrontend, Reply, outcome
from .notebook_edits import approved_card, cell_tool, missing_cell, stale_message
from .visibility import HIDDEN, may_show

__all__ = ["CellToRun", "running_tools"]

OUTPUT_CHARS = 6000
"""Text kept of each cell's outputs for the model (head and tail)."""


class CellToRun(TypedDict):
    """One cell to run: its id and the version the model read."""

    id: str
    version: str


def running_tools(
    document: Callable[[], DocumentChannel],
    own_cell: Callable[[], str],
    runner: Callable[[], CellRunner | None],
) -> list[FunctionTool]:
    """``run_cells``, reaching the frontend through ``document()`` and the kernel through
    ``runner()`` (None outside a kernel)."""
    cards = CardBook()

    async def run_cells(ctx: ToolContext[Any], cells: list[CellToRun]) -> str | list[ToolOutput]:
        """Run code cells in the notebook's kernel, in order, as if the user ran them: their
        outputs appear in the notebook and you get them back. Name the version of each cell
        you read (read_cell gives it; so do insert_cell and edit_cell). Stops at the first
        cell that fails. The user approves it first.

        Args:
            cells: The cells to run, in order, each {"id": ..., "version": ...}.
        """
        card = approved_card(cards, ctx, "run")
        if isinstance(card, str):
            return card
        chosen = _on_card(card.cells, cells)
        if isinstance(chosen, str):
            return chosen
        kernel = runner()
        if kernel is None:
            return "run_cells needs the notebook's IPython kernel (%load_ext jupyter_agents)."
        try:
            channel = document()
        except NoFrontend as e:
            return str(e)
        said: list[ToolOutput] = []
        for cell in chosen:
            if await _run_one(channel, kernel, cell, said):
                break
        return _answer(said)

    async def restart_kernel(reason: str) -> str:
        """Restart the notebook's kernel when this agent cell ends: every variable is lost, and
        cells must be run again. The user approves it first, every time.

        Args:
            reason: Why the kernel needs a restart (the user sees it).
        """
        try:
            reply = await document().request({"op": "restart", "args": {"after": own_cell()}})
        except NoFrontend as e:
            return str(e)
        said = outcome(reply)
        if said is not None and "refused" in said:
            return f"Not restarted: {said['refused'][:300]}"
        if said is None or "done" not in said:
            return "The notebook's frontend did not take the restart; nothing happens."
        return (
            "The kernel restarts when this agent cell ends: every variable will be gone. "
            "Finish your answer now, and say which cells to run again."
        )

    restart = dataclasses.replace(
        function_tool(needs_approval=True)(restart_kernel), always_asks=True
    )
    return [cell_tool(run_cells, run_card, document, own_cell, cards), restart]


def _on_card(shown: tuple[ShownCell, ...], named: Any) -> list[ShownCell] | str:
    """The cells to run, as the card showed them, in the order the approved arguments name
    them (edited arguments may leave some out, never add one the card did not show)."""
    by_id = {cell.id: cell for cell in shown}
    chosen = []
    for ref in named if isinstance(named, list) else []:
        key = ref.get("id") if isinstance(ref, dict) else None
        cell = by_id.get(key) if isinstance(key, str) else None
        if cell is None:
            name = label(str(key))
            return f"Not run: cell {name} was not on the card the user approved; nothing ran."
        chosen.append(cell)
    return chosen or "Not run: no cell left to run; nothing ran."


async def _run_one(
    channel: DocumentChannel, kernel: CellRunner, cell: ShownCell, said: list[ToolOutput]
) -> bool:
    """Run one cell, its source as the card showed it, adding what the model is told to
    ``said``; whether to stop here."""
    token = uuid.uuid4().hex[:16]
    try:
        reply = await channel.request(
            {"op": "run", "args": {"id": cell.id, "expected": cell.source, "run": token}}
        )
    except NoFrontend as e:
        said.append(ToolOutputText(str(e)))
        return True
    refused = await _refused(channel, reply, cell.id)
    if refused is not None:
        said.append(ToolOutputText(refused))
        return True
    parent = kernel.kernel.get_parent("shell")

    def relay(msg_type: str, content: dict[str, Any]) -> None:
        message: Output = {"type": "output", "run": token, "msg_type": msg_type, "content": content}
        channel.notify(message, parent)

    outcome: CellRun | None = None
    try:
        outcome = await kernel.run(cell.source, cell.id, relay)
    finally:
        count = outcome.execution_count if outcome is not None else None
        try:
            await channel.request({"op": "ran", "args": {"run": token, "execution_count": count}})
        except NoFrontend:
            pass
    said.extend(_told(label(cell.id), outcome))
    return outcome.error is not None


async def _refused(channel: DocumentChannel, reply: Reply, cell: str) -> str | None:
    """Why the frontend did not start the cell (None: it did)."""
    said = outcome(reply)
    if said is None:
        return "The notebook's frontend did not start the cell; try again."
    if "missing" in said:
        return await missing_cell(channel, said["missing"], did="ran")
    if "refused" in said:
        return f"Not run: {' '.join(said['refused'].split())[:300]}"
    if "stale" in said:
        return stale_message("run", cell)
    return None


def _told(cell: str, outcome: CellRun) -> list[ToolOutput]:
    count = f" as [{outcome.execution_count}]" if outcome.execution_count is not None else ""
    if outcome.interrupted:
        head = f"Cell {cell} was interrupted{count} (the user pressed stop)."
    elif outcome.error is not None:
        head = f"Cell {cell} ran{count} and failed: {outcome.error}"
    else:
        head = f"Cell {cell} ran{count}."
    if not outcome.outputs:
        return [ToolOutputText(f"{head} No output.")]
    if not may_show("outputs"):
        return [ToolOutputText(f"{head} Output: {HIDDEN['outputs']}.")]
    content = model_outputs(outcome.outputs, max_chars=OUTPUT_CHARS)
    if isinstance(content, str):
        return [ToolOutputText(f"{head} Output:\n{content}")]
    return [ToolOutputText(f"{head} Output:"), *content]


def _answer(said: list[ToolOutput]) -> str | list[ToolOutput]:
    if all(isinstance(part, ToolOutputText) for part in said):
        return "\n\n".join(part.text for part in said if isinstance(part, ToolOutputText))
    return said
