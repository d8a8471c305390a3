"""The notebook agent's editing tools: ``insert_cell``, ``edit_cell``, ``delete_cell`` and
``move_cell``. Each asks first (the run's approvals, like any tool) with a card that shows the
change as a diff of the cell's source, and each is applied by the frontend that holds the
document, in one step it checks against the document as it is then:

- an edit or a delete names the version of the cell the model read (``read_cell`` gives it);
  if the cell changed since (the person typed in it), nothing is applied and the model gets
  the cell's source now;
- the agent's own cell and cells running now are never edited, deleted or moved;
- an id that does not exist is one line naming the nearest ids.

The diff on the card comes from the sources the model read (by version): a card never asks the
frontend anything, and the change applied is checked against that same version.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from typing import Any, Literal

from ..runtime.tools import FunctionTool, function_tool
from ..runtime.tools.display import DisplayPart, PartType, ToolDisplay
from .cell_outputs import cell_source, cell_version
from .document_comm import DocumentChannel, NoFrontend

__all__ = ["CellChangeTool", "Refusal", "editing_tools", "missing_cell", "source_read"]

CellType = Literal["code", "markdown", "raw"]

DIFF_CONTEXT = 3
"""Unchanged lines shown around each change on a card."""

RUNNING = "Not applied: that cell is running now; it cannot be changed."

Describe = Callable[[dict[str, Any], Callable[[str], str | None]], str]
"""What a change's card shows, from its arguments and the sources read (by version)."""


def editing_tools(
    document: Callable[[], DocumentChannel], own_cell: Callable[[], str]
) -> list[FunctionTool]:
    """The four editing tools, reaching the frontend through ``document()``."""

    async def insert_cell(
        cell_type: CellType,
        source: str,
        after_id: str | None = None,
        before_id: str | None = None,
    ) -> str:
        """Insert a new cell into the notebook (it is not run). The user approves it first.

        Args:
            cell_type: "code" or "markdown" (or "raw").
            source: The new cell's source.
            after_id: Put it after this cell (an id from list_cells).
            before_id: Put it before this cell. Give neither to put it at the end.
        """
        if after_id is not None and before_id is not None:
            return "Give after_id or before_id, not both."
        source = line_feeds(source)
        args = {"cell_type": cell_type, "source": source, "after": after_id, "before": before_id}
        return await _change(document, "insert", args, after_id or before_id)

    async def edit_cell(id: str, version: str, new_source: str) -> str:
        """Replace a cell's source. Name the version read_cell gave: if the user changed the
        cell since, nothing is applied and you get its source now. The user approves it first.

        Args:
            id: The cell's id.
            version: The cell's version, from read_cell.
            new_source: The cell's whole new source.
        """
        if id == own_cell():
            return "The agent's own cell cannot be edited."
        expected = await source_read(document, id, version)
        if not isinstance(expected, str):
            return expected.message
        args = {"id": id, "expected": expected, "source": line_feeds(new_source)}
        return await _change(document, "edit", args, id)

    async def delete_cell(id: str, version: str) -> str:
        """Delete a cell. Name the version read_cell gave. The user approves it first.

        Args:
            id: The cell's id.
            version: The cell's version, from read_cell.
        """
        if id == own_cell():
            return "The agent's own cell cannot be deleted."
        expected = await source_read(document, id, version)
        if not isinstance(expected, str):
            return expected.message
        return await _change(document, "delete", {"id": id, "expected": expected}, id)

    async def move_cell(id: str, after_id: str | None = None) -> str:
        """Move a cell after another one (or to the top). The user approves it first.

        Args:
            id: The cell to move.
            after_id: The cell it goes after; none: the top of the notebook.
        """
        if id == own_cell():
            return "The agent's own cell cannot be moved."
        return await _change(document, "move", {"id": id, "after": after_id}, id)

    tools: list[FunctionTool] = []
    for func, describe in (
        (insert_cell, _insert_diff),
        (edit_cell, _edit_diff),
        (delete_cell, _delete_diff),
        (move_cell, _move_diff),
    ):
        made = function_tool(needs_approval=True)(func)
        fields = {f.name: getattr(made, f.name) for f in dataclasses.fields(FunctionTool)}
        tools.append(CellChangeTool(**fields, describe_change=describe, document=document))
    return tools


@dataclasses.dataclass
class CellChangeTool(FunctionTool):
    """A function tool whose card shows the change it makes to a cell as a diff (a subclass,
    so copies of the tool, such as the notebook cell's, keep it)."""

    describe_change: Describe | None = None
    document: Callable[[], DocumentChannel] | None = None
    part: PartType = "diff"
    """The card part the description is (``"code"`` for the cells ``run_cells`` runs)."""
    language: str | None = None

    def describe_call(self, display: ToolDisplay) -> ToolDisplay:
        """The card's view: the change as a diff part, before the output."""
        if self.describe_change is None:
            return display
        arguments = display.arguments if isinstance(display.arguments, dict) else {}
        try:
            channel = self.document() if self.document is not None else None
        except NoFrontend:
            channel = None
        read = channel.source_of if channel is not None else _unknown
        text = self.describe_change(arguments, read)
        part = DisplayPart(self.part, text, language=self.language, role="call")
        return dataclasses.replace(display, parts=(part, *display.parts))


def line_feeds(text: str) -> str:
    """``text`` with plain line feeds: a notebook editor shows ``\r\n`` and ``\r`` as one
    line break while the cell's source keeps them, and later changes land at the wrong place."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if isinstance(text, str) else text


def _unknown(version: str) -> str | None:
    return None


async def _change(
    document: Callable[[], DocumentChannel], op: str, args: dict[str, Any], about: str | None
) -> str:
    """Ask the frontend for one change; what the model is told."""
    try:
        channel = document()
        reply = await channel.request(op, args)
    except NoFrontend as e:
        return str(e)
    if reply.get("missing") is not None:
        return await missing_cell(channel, str(reply["missing"]))
    if reply.get("refused"):
        return f"Not applied: {str(reply['refused'])[:300]}"
    if reply.get("stale"):
        now = str(reply.get("source", ""))
        return (
            f"Not applied: cell {about} changed since you read it (the user may have typed in "
            f"it). Its version is now {cell_version(now)} and its source:\n{now}\n"
            "Send the change again against this version if it still applies."
        )
    if reply.get("done") is not True:
        return "The notebook's frontend did not apply the change; try again."
    cell = str(reply.get("cell", about or ""))
    source = reply.get("source")
    if isinstance(source, str):
        channel.remember(source)  # the model knows it: it can edit or run it by this version
    version = f" (version now {cell_version(source)})" if isinstance(source, str) else ""
    return {
        "insert": f"Inserted cell {cell}{version}; it has not run.",
        "edit": f"Edited cell {cell}{version}.",
        "delete": f"Deleted cell {cell}.",
        "move": f"Moved cell {cell}.",
    }.get(op, "Done.")


@dataclasses.dataclass(frozen=True)
class Refusal:
    """Why a change is not made: what the model is told."""

    message: str


async def source_read(
    document: Callable[[], DocumentChannel], cell: str, version: str
) -> str | Refusal:
    """The source the model read as ``version`` (what the frontend checks the cell still
    holds), or why there is none: a version that is no source read from this notebook."""
    try:
        channel = document()
        known = channel.source_of(version)
        if known is not None:
            return known
        cells = await channel.cells()  # perhaps read before the kernel last remembered it
    except NoFrontend as e:
        return Refusal(str(e))
    known = channel.source_of(version)
    if known is not None:
        return known
    current = next((c for c in cells if c.get("id") == cell), None)
    if current is None:
        return Refusal(await missing_cell(channel, cell))
    if current.get("executing") is True:
        return Refusal(RUNNING)
    now = cell_source(current)
    return Refusal(
        f"Not applied: {version!r} is not a version of cell {cell} (read_cell gives it). Its "
        f"version is {cell_version(now)} and its source:\n{now}"
    )


async def missing_cell(channel: DocumentChannel, id: str) -> str:
    try:
        ids = [str(c["id"]) for c in await channel.cells()]
    except NoFrontend:
        ids = []
    close = difflib.get_close_matches(id, ids, n=3, cutoff=0.3)
    hint = f" The nearest: {', '.join(close)}." if close else ""
    return f"No cell with id {id!r}; nothing changed.{hint} (list_cells shows them.)"


# -- cards ---------------------------------------------------------------------------------


def _lines(source: str, mark: str) -> list[str]:
    return [mark + line for line in source.splitlines()] or [mark]


def _insert_diff(args: dict[str, Any], read: Callable[[str], str | None]) -> str:
    where = (
        f"after {args['after_id']}"
        if args.get("after_id")
        else f"before {args['before_id']}"
        if args.get("before_id")
        else "at the end"
    )
    header = f"create_cell ({args.get('cell_type', 'code')}, {where})"
    return "\n".join([header, *_lines(str(args.get("source", "")), "+")])


def _edit_diff(args: dict[str, Any], read: Callable[[str], str | None]) -> str:
    header = f"update_cell {args.get('id', '?')}"
    new = str(args.get("new_source", ""))
    old = read(str(args.get("version", "")))
    if old is None:  # a version the model never read: it will be refused as stale
        return "\n".join([f"{header} (a version never read: it will not apply)", *_lines(new, "+")])
    diff = difflib.unified_diff(
        old.splitlines(), new.splitlines(), "before", "after", n=DIFF_CONTEXT, lineterm=""
    )
    body = [line for line in diff if not line.startswith(("--- ", "+++ "))]
    return "\n".join([header, *(body or [" (no change)"])])


def _delete_diff(args: dict[str, Any], read: Callable[[str], str | None]) -> str:
    old = read(str(args.get("version", "")))
    header = f"delete_cell {args.get('id', '?')}"
    return "\n".join([header, *(_lines(old, "-") if old is not None else [])])


def _move_diff(args: dict[str, Any], read: Callable[[str], str | None]) -> str:
    where = f"after {args['after_id']}" if args.get("after_id") else "to the top"
    return f"move_cell {args.get('id', '?')} {where}"
