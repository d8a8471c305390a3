"""The notebook agent's ``run_cells`` and ``restart_kernel``.

``run_cells`` runs code cells in the user's kernel as if the person had run them (their outputs
appear in the notebook, the execution count goes on) while the agent's own cell keeps running
(``cell_runner.py``), and gives the model what they showed.

It asks first, like every change, with a card that shows the code that will run: for each cell
the version the model read (``read_cell``, ``insert_cell`` or ``edit_cell`` gives it). The
frontend refuses a cell that changed since, so what runs is what the person approved. It stops
at the first cell that fails, as Run All does.

``restart_kernel`` asks every time (no "always" covers it) and restarts the kernel when the
agent's cell ends (the frontend does it, so the run's record is kept in the cell).
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from typing import Any

from typing_extensions import TypedDict  # pydantic reads its fields on Python < 3.12

from ..runtime.tools import FunctionTool, function_tool
from ..runtime.tools.outputs import ToolOutput, ToolOutputText
from .cell_outputs import model_outputs
from .cell_runner import CellRun, CellRunner
from .document_comm import DocumentChannel, NoFrontend
from .notebook_edits import CellChangeTool, Refusal, missing_cell, source_read

__all__ = ["CellToRun", "running_tools"]

MAX_CELLS = 20
"""The most cells one call runs."""

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

    async def run_cells(cells: list[CellToRun]) -> str | list[ToolOutput]:
        """Run code cells in the notebook's kernel, in order, as if the user ran them: their
        outputs appear in the notebook and you get them back. Name the version of each cell
        you read (read_cell gives it; so do insert_cell and edit_cell). Stops at the first
        cell that fails. The user approves it first.

        Args:
            cells: The cells to run, in order, each {"id": ..., "version": ...}.
        """
        if not cells:
            return "Name at least one cell to run."
        if len(cells) > MAX_CELLS:
            return f"Run at most {MAX_CELLS} cells in one call."
        kernel = runner()
        if kernel is None:
            return "run_cells needs the notebook's IPython kernel (%load_ext jupyter_agents)."
        try:
            channel = document()
        except NoFrontend as e:
            return str(e)
        said: list[ToolOutput] = []
        for ref in cells:
            stop = await _run_one(channel, document, kernel, own_cell(), ref, said)
            if stop:
                break
        return _answer(said)

    async def restart_kernel(reason: str) -> str:
        """Restart the notebook's kernel when this agent cell ends: every variable is lost, and
        cells must be run again. The user approves it first, every time.

        Args:
            reason: Why the kernel needs a restart (the user sees it).
        """
        try:
            reply = await document().request("restart", {"after": own_cell()})
        except NoFrontend as e:
            return str(e)
        if reply.get("refused"):
            return f"Not restarted: {str(reply['refused'])[:300]}"
        if reply.get("done") is not True:
            return "The notebook's frontend did not take the restart; nothing happens."
        return (
            "The kernel restarts when this agent cell ends: every variable will be gone. "
            "Finish your answer now, and say which cells to run again."
        )

    made = function_tool(needs_approval=True)(run_cells)
    fields = {f.name: getattr(made, f.name) for f in dataclasses.fields(FunctionTool)}
    tool = CellChangeTool(
        **fields, describe_change=_run_card, document=document, part="code", language="python"
    )
    restart = dataclasses.replace(
        function_tool(needs_approval=True)(restart_kernel), always_asks=True
    )
    return [tool, restart]


async def _run_one(
    channel: DocumentChannel,
    document: Callable[[], DocumentChannel],
    kernel: CellRunner,
    own: str,
    ref: Any,
    said: list[ToolOutput],
) -> bool:
    """Run one cell, adding what the model is told to ``said``; whether to stop here."""
    cell = str(ref.get("id", "")) if isinstance(ref, dict) else ""
    version = str(ref.get("version", "")) if isinstance(ref, dict) else ""
    if cell == own:
        said.append(ToolOutputText("Not run: the agent's own cell cannot be run by the agent."))
        return True
    source = await source_read(document, cell, version)
    if isinstance(source, Refusal):
        told = source.message.replace("Not applied:", "Not run:", 1)
        said.append(ToolOutputText(told.replace("cannot be changed", "cannot run again now")))
        return True
    if source.lstrip().startswith("%%agent"):
        said.append(ToolOutputText(f"Not run: cell {cell} is an agent cell; run it yourself."))
        return True
    token = uuid.uuid4().hex[:16]
    try:
        reply = await channel.request("run", {"id": cell, "expected": source, "run": token})
    except NoFrontend as e:
        said.append(ToolOutputText(str(e)))
        return True
    refused = await _refused(channel, reply, cell)
    if refused is not None:
        said.append(ToolOutputText(refused))
        return True
    parent = kernel.kernel.get_parent("shell")

    def relay(msg_type: str, content: dict[str, Any]) -> None:
        message = {"type": "output", "run": token, "msg_type": msg_type, "content": content}
        channel.notify(message, parent)

    outcome: CellRun | None = None
    try:
        outcome = await kernel.run(source, cell, relay)
    finally:
        count = outcome.execution_count if outcome is not None else None
        try:
            await channel.request("ran", {"run": token, "execution_count": count})
        except NoFrontend:
            pass
    said.extend(_told(cell, outcome))
    return outcome.error is not None


async def _refused(channel: DocumentChannel, reply: dict[str, Any], cell: str) -> str | None:
    if reply.get("missing") is not None:
        return (await missing_cell(channel, str(reply["missing"]))).replace(
            "nothing changed", "nothing ran"
        )
    if reply.get("refused"):
        return f"Not run: {str(reply['refused'])[:300]}"
    if reply.get("stale"):
        return (
            f"Not run: cell {cell} changed since you read it (the user may have typed in it); "
            "read it again."
        )
    if reply.get("done") is not True:
        return "The notebook's frontend did not start the cell; try again."
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
    content = model_outputs(outcome.outputs, max_chars=OUTPUT_CHARS)
    if isinstance(content, str):
        return [ToolOutputText(f"{head} Output:\n{content}")]
    return [ToolOutputText(f"{head} Output:"), *content]


def _answer(said: list[ToolOutput]) -> str | list[ToolOutput]:
    if all(isinstance(part, ToolOutputText) for part in said):
        return "\n\n".join(part.text for part in said if isinstance(part, ToolOutputText))
    return said


def _run_card(args: dict[str, Any], read: Callable[[str], str | None]) -> str:
    """The code a ``run_cells`` call will run, cell by cell, as the card shows it."""
    blocks = []
    cells = args.get("cells")
    for ref in cells if isinstance(cells, list) else []:
        if not isinstance(ref, dict):
            continue
        source = read(str(ref.get("version", "")))
        if source is None:
            blocks.append(f"# cell {ref.get('id', '?')}: a version never read (it will not run)")
        else:
            blocks.append(f"# cell {ref.get('id', '?')}\n{source}")
    return "\n\n".join(blocks) or "# no cells"
