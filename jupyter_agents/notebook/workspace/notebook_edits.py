"""The notebook agent's editing tools: ``insert_cell``, ``edit_cell``, ``delete_cell`` and
``move_cell``. Each asks first (the run's approvals, like any tool) with a card made when it
asks, from the cells as the frontend holds them then (``cell_cards.py``), and each is applied
by the frontend that holds the document, in one step it checks against the document as it is
then:

- the call acts only on the sources its card showed: the cell an edit, delete or move changes
  and the cell an insert or a move goes after must still hold them, or nothing is applied (the
  person typed since) and the model is told in one line;
- the model names the version of the cell it read (``read_cell`` gives it): a cell that holds
  another source is refused before anyone is asked;
- the agent's own cell and cells running now are never edited, deleted or moved;
- an id that does not exist is one line naming the nearest ids.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from ...runtime.approvals import approved_call
from ...runtime.context import ToolContext
from ...runtime.replay.signing import inserted_mark
from ...runtime.tools import FunctionTool, function_tool
from ...runtime.tools.display import ToolDisplay
from ..document_contract import CellType, DeleteCall, EditCall, InsertArgs, InsertCall, MoveCall
from .cell_cards import (
    CardBook,
    CellCard,
    MakeCard,
    delete_card,
    edit_card,
    insert_card,
    label,
    line_feeds,
    move_card,
    quoted,
)
from .cell_outputs import cell_version
from .document_comm import DocumentChannel, NoFrontend, outcome

__all__ = [
    "CellChangeTool",
    "approved_card",
    "cell_tool",
    "editing_tools",
    "line_feeds",
    "missing_cell",
    "stale_message",
]

Document = Callable[[], DocumentChannel]


@dataclasses.dataclass
class CellChangeTool(FunctionTool):
    """A cell tool whose card is made when its call asks and kept for that call (a subclass,
    so copies of the tool, such as the notebook cell's, keep its book of cards)."""

    cards: CardBook = dataclasses.field(default_factory=CardBook)
    """The cards made for its calls."""

    approved_on_its_card: ClassVar[bool] = True
    """What a call does shows only on its card (the code it runs, the lines it changes, read
    when it asks; its arguments hold only ids and versions): views that show the arguments
    alone (the runs panel, a notification) may reject it, never approve it."""

    def describe_this_call(self, display: ToolDisplay, call: object) -> ToolDisplay:
        """The card's view of ``call``: the parts made when it asked (before that, and for a
        call refused without asking, its arguments)."""
        card = self.cards.get(call)
        if card is None or not card.parts:
            return display
        origin = card.notebook.rsplit("/", 1)[-1] if card.notebook else display.origin
        return dataclasses.replace(display, parts=(*card.parts, *display.parts), origin=origin)


def cell_tool(
    func: Callable[..., Awaitable[Any]],
    make: MakeCard,
    document: Document,
    own_cell: Callable[[], str],
    cards: CardBook,
) -> CellChangeTool:
    """``func`` as a tool that asks with a card ``make`` makes from the cells the frontend
    sends when the call asks; ``func`` gets the call's context and finds its card in
    ``cards`` (``approved_card``)."""

    async def ask(ctx: ToolContext[Any] | None, arguments: Any, _call_id: str) -> bool:
        call = _call_of(ctx)
        card = cards.get(call)
        if card is None:  # made once: a resumed or escalated call keeps the card it showed
            card = await _make(document, make, arguments, own_cell())
            cards.put(call, card)
        return card.refusal is None  # a refused call is not asked about: it does nothing

    made = function_tool(func)
    fields = {f.name: getattr(made, f.name) for f in dataclasses.fields(FunctionTool)}
    fields["needs_approval"] = ask
    return CellChangeTool(**fields, cards=cards)


async def _make(document: Document, make: MakeCard, arguments: Any, own: str) -> CellCard:
    try:
        channel = document()
        cells = await channel.cells()
    except NoFrontend as e:
        return CellCard(refusal=str(e))
    card = make(arguments if isinstance(arguments, dict) else {}, cells, own)
    return dataclasses.replace(card, notebook=channel.notebook)


def _call_of(ctx: ToolContext[Any] | None) -> object:
    """What a call's card is kept by: its call item (the context itself without one)."""
    call = getattr(ctx, "tool_call", None)
    return call if call is not None else ctx


def approved_card(cards: CardBook, ctx: ToolContext[Any] | None, verb: str) -> CellCard | str:
    """The card of the call ``ctx`` is for, when a person approved that very call; else what
    the model is told (the card's refusal, or why nothing is done)."""
    card = cards.get(_call_of(ctx))
    if card is None:
        return f"Not {verb}: no card was shown for this call; call the tool again."
    if card.refusal is not None:
        return card.refusal
    if ctx is None or approved_call.get() != ctx.tool_call_id:
        return f"Not {verb}: nobody approved this call."
    return card


def editing_tools(document: Document, own_cell: Callable[[], str]) -> list[FunctionTool]:
    """The four editing tools, reaching the frontend through ``document()``."""
    cards = CardBook()

    async def insert_cell(
        ctx: ToolContext[Any],
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
        card = approved_card(cards, ctx, "applied")
        if isinstance(card, str):
            return card
        anchor = card.anchor
        named = after_id if after_id is not None else before_id
        side = None if named is None else "after" if after_id is not None else "before"
        if (named, side) != ((anchor.id, card.side) if anchor is not None else (None, None)):
            return _not_on_card(named)
        written = line_feeds(source)
        args: InsertArgs = {
            "cell_type": cell_type,
            "source": written,
            "after": after_id,
            "before": before_id,
            "id": inserted_id(own_cell(), ctx.tool_call_id),
            "mark": inserted_mark(written),  # the frontend writes it as given
        }
        if anchor is not None:
            args["expected"] = anchor.source
        call: InsertCall = {"op": "insert", "args": args}
        return await _change(document, call, anchor.id if anchor else None)

    async def edit_cell(ctx: ToolContext[Any], id: str, version: str, new_source: str) -> str:
        """Replace a cell's source. Name the version read_cell gave: if the user changed the
        cell since, nothing is applied. The user approves it first.

        Args:
            id: The cell's id.
            version: The cell's version, from read_cell.
            new_source: The cell's whole new source.
        """
        card = approved_card(cards, ctx, "applied")
        if isinstance(card, str):
            return card
        (cell,) = card.cells
        if id != cell.id:
            return _not_on_card(id)
        call: EditCall = {
            "op": "edit",
            "args": {"id": id, "expected": cell.source, "source": line_feeds(new_source)},
        }
        return await _change(document, call, id)

    async def delete_cell(ctx: ToolContext[Any], id: str, version: str) -> str:
        """Delete a cell. Name the version read_cell gave. The user approves it first.

        Args:
            id: The cell's id.
            version: The cell's version, from read_cell.
        """
        card = approved_card(cards, ctx, "applied")
        if isinstance(card, str):
            return card
        (cell,) = card.cells
        if id != cell.id:
            return _not_on_card(id)
        call: DeleteCall = {"op": "delete", "args": {"id": id, "expected": cell.source}}
        return await _change(document, call, id)

    async def move_cell(ctx: ToolContext[Any], id: str, after_id: str | None = None) -> str:
        """Move a cell after another one (or to the top). The user approves it first.

        Args:
            id: The cell to move.
            after_id: The cell it goes after; none: the top of the notebook.
        """
        card = approved_card(cards, ctx, "applied")
        if isinstance(card, str):
            return card
        (cell,) = card.cells
        anchor = card.anchor
        if id != cell.id or after_id != (anchor.id if anchor else None):
            return _not_on_card(id if id != cell.id else after_id)
        call: MoveCall = {
            "op": "move",
            "args": {"id": id, "expected": cell.source, "after": after_id},
        }
        if anchor is not None:
            call["args"]["after_expected"] = anchor.source
        return await _change(document, call, id)

    return [
        cell_tool(insert_cell, insert_card, document, own_cell, cards),
        cell_tool(edit_cell, edit_card, document, own_cell, cards),
        cell_tool(delete_cell, delete_card, document, own_cell, cards),
        cell_tool(move_cell, move_card, document, own_cell, cards),
    ]


def inserted_id(agent_cell: str, call_id: str) -> str:
    """The id an ``insert_cell`` call asks its new cell to have: made from the agent's cell and
    the call's id, so the replay of a recorded run asks for the same one, and a frontend that
    already holds that cell with that text (the notebook as the recorded run left it) keeps
    it instead of inserting it twice."""
    digest = hashlib.sha256(f"{agent_cell}\0{call_id}".encode()).hexdigest()
    return f"ja-{digest[:20]}"


def _not_on_card(cell_id: Any) -> str:
    shown = label(str(cell_id)) if cell_id is not None else "(none)"
    return f"Not applied: cell {shown} was not on the card the user approved; nothing changed."


def stale_message(verb: str, cell_id: Any) -> str:
    """What the model is told when a cell changed after its card was shown (one line)."""
    did = "ran" if verb == "run" else "changed"
    return (
        f"Not {verb}: cell {label(str(cell_id))} changed since the card showed it (the user may "
        f"have typed in it); nothing {did}. Read it again with read_cell."
    )


async def _change(
    document: Document, call: InsertCall | EditCall | DeleteCall | MoveCall, about: str | None
) -> str:
    """Ask the frontend for one change; what the model is told."""
    try:
        channel = document()
        said = outcome(await channel.request(call))
    except NoFrontend as e:
        return str(e)
    if said is None:
        return "The notebook's frontend did not apply the change; try again."
    if "missing" in said:
        return await missing_cell(channel, said["missing"])
    if "refused" in said:
        return f"Not applied: {_one_line(said['refused'])}"
    if "stale" in said:
        return stale_message("applied", said["cell"] or about)
    cell = label(said.get("cell", about or ""))
    source = said.get("source")
    version = f" (version now {cell_version(source)})" if source is not None else ""
    return {
        "insert": f"Inserted cell {cell}{version}; it has not run.",
        "edit": f"Edited cell {cell}{version}.",
        "delete": f"Deleted cell {cell}.",
        "move": f"Moved cell {cell}.",
    }[call["op"]]


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())[:300]


async def missing_cell(channel: DocumentChannel, id: str, did: str = "changed") -> str:
    """One line for a cell that is not there, naming the nearest ids."""
    try:
        ids = [str(c["id"]) for c in await channel.cells()]
    except NoFrontend:
        ids = []
    close = difflib.get_close_matches(id, ids, n=3, cutoff=0.3)
    hint = f" The nearest: {', '.join(label(i) for i in close)}." if close else ""
    return f"No cell with id {quoted(id)}; nothing {did}.{hint} (list_cells shows them.)"
