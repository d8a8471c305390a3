"""The card of a notebook cell tool's call: made when the call asks, kept for that very call.

``run_cells``, ``edit_cell``, ``insert_cell``, ``delete_cell`` and ``move_cell`` ask a person
first. When the run asks (each tool's ``needs_approval``), the tool reads the cells from the
frontend that holds the notebook, then and there (never from what the kernel read earlier), and
makes the card from them (``make_card``): the code that will run, the lines an edit
replaces or a delete removes, the cell that moves, the cell an insert or a move goes after. The
card is kept for that very call, by its call item (``CardBook``; never by call id or
arguments, which the model chooses), and the call acts on exactly the sources the card showed:
it sends them to the frontend as ``expected``, and the frontend refuses, in the step that makes
the change, a cell that no longer holds them (the person typed in it since).

The model's version (``read_cell`` gives it) only says which source the model meant: a cell
that holds another source is refused before anyone is asked. Nothing the notebook's sender
controls reaches a card unmarked: an id that is not plain is quoted with escapes, and
characters that do not show (control and format characters, bidi overrides, zero-width and
unusual spaces, a carriage return that Python reads as a line break) are marked
``⟨U+XXXX⟩``. A card is shown whole: a call whose card would be longer than ``CARD_CHARS`` is
refused instead of asked.

Cards are pure functions of the call's arguments, the cells the frontend sent and the agent's
own cell id, so they are table-tested without a frontend.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ...runtime.tools.display import DisplayPart
from .cell_outputs import cell_source, cell_version

__all__ = [
    "CARD_CHARS",
    "CardBook",
    "CellCard",
    "MakeCard",
    "ShownCell",
    "delete_card",
    "edit_card",
    "insert_card",
    "label",
    "line_feeds",
    "move_card",
    "quoted",
    "run_card",
    "visible",
]

CARD_CHARS = 50_000
"""The longest card (all its parts): a call that needs a longer one is refused, not asked."""

MAX_CELLS = 20
"""The most cells one ``run_cells`` call runs."""

DIFF_CONTEXT = 3
"""Unchanged lines shown around each change of an edit."""

ANCHOR_LINES = 3
"""Lines shown of the cell an insert or a move goes after (or before)."""

LINES_SAID = 12
"""A cell longer than this says how many lines it has (its box on the card scrolls)."""

_PLAIN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")

RUNNING = "that cell is running now; it cannot be changed."


@dataclasses.dataclass(frozen=True)
class ShownCell:
    """A cell as its card showed it."""

    id: str
    """Its id, as the frontend sent it."""

    source: str
    """Its whole source, as the frontend held it when the card was made."""


@dataclasses.dataclass(frozen=True)
class CellCard:
    """What a cell tool's card shows, and the cells its call may act on."""

    parts: tuple[DisplayPart, ...] = ()
    """The card's parts that show the call (``role="call"``)."""

    cells: tuple[ShownCell, ...] = ()
    """The cells the call acts on, in order: the cells ``run_cells`` runs, or the one cell an
    edit, a delete or a move changes."""

    anchor: ShownCell | None = None
    """The cell an insert or a move goes after (or, for an insert, before); None: the end or
    the top."""

    side: Literal["after", "before"] | None = None
    """Whether the insert goes after or before ``anchor``."""

    notebook: str | None = None
    """The notebook the call acts on, as the frontend holding it named it (the card says it)."""

    refusal: str | None = None
    """Set when the call does nothing (nobody is asked): what the model is told."""


MakeCard = Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]], str], CellCard]
"""Makes a tool's card: ``(arguments, cells as the frontend sent them, own cell id)``."""


class CardBook:
    """The cards of the calls that asked, by call item (the object, not its call id or
    arguments, which two calls may share); the newest ``keep`` are kept."""

    def __init__(self, keep: int = 64) -> None:
        self._keep = keep
        self._cards: OrderedDict[int, tuple[object, CellCard]] = OrderedDict()

    def get(self, call: object) -> CellCard | None:
        """The card made for ``call``, if any."""
        entry = self._cards.get(id(call))
        return entry[1] if entry is not None and entry[0] is call else None

    def put(self, call: object, card: CellCard) -> None:
        """Keep ``card`` for ``call`` (the call item is kept with it: ids stay unique)."""
        self._cards[id(call)] = (call, card)
        self._cards.move_to_end(id(call))
        while len(self._cards) > self._keep:
            self._cards.popitem(last=False)


# -- what the notebook's sender controls, shown ---------------------------------------------


def label(cell_id: str) -> str:
    """A cell id as a card and the model see it: plain ids as they are, any other quoted with
    escapes (one line, no characters that do not show), long ones cut."""
    if _PLAIN_ID.fullmatch(cell_id):
        return cell_id
    quoted = json.dumps(cell_id)
    return quoted if len(quoted) <= 80 else quoted[:79] + '…"'


def quoted(cell_id: str) -> str:
    """A cell id in a sentence: ``'plain'``, or any other as ``label`` quotes it."""
    shown = label(cell_id)
    return f"'{shown}'" if shown == cell_id else shown


def visible(text: str) -> tuple[str, int]:
    """``text`` with every character that does not show marked ``⟨U+XXXX⟩`` (Python's
    non-printable ones: control and format characters, bidi overrides, zero-width and unusual
    spaces, line and paragraph separators; line feeds and tabs are kept), and how many were.
    A carriage return also breaks the line: Python reads it as a line break."""
    if text.isprintable() or all(c.isprintable() or c in "\n\t" for c in text):
        return text, 0
    out: list[str] = []
    marked = 0
    for index, char in enumerate(text):
        if char.isprintable() or char in "\n\t":
            out.append(char)
            continue
        marked += 1
        out.append(f"⟨U+{ord(char):04X}⟩")
        if char == "\r" and text[index + 1 : index + 2] != "\n":
            out.append("\n")
    return "".join(out), marked


def line_feeds(text: str) -> str:
    """``text`` with plain line feeds: a notebook editor shows ``\\r\\n`` and ``\\r`` as one
    line break while the cell's source keeps them, and later changes land at the wrong place."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# -- finding the cells a call names ---------------------------------------------------------


def _find(cells: Sequence[Mapping[str, Any]], cell_id: Any, verb: str) -> Mapping[str, Any] | str:
    """The one cell with ``cell_id``, or what the model is told (none, or several)."""
    found = [c for c in cells if c.get("id") == cell_id]
    if len(found) == 1:
        return found[0]
    shown = label(str(cell_id))
    if found:
        return f"Not {verb}: {len(found)} cells have the id {shown}; nothing {_did(verb)}."
    ids = [str(c.get("id")) for c in cells]
    close = difflib.get_close_matches(str(cell_id), ids, n=3, cutoff=0.3)
    hint = f" The nearest: {', '.join(label(i) for i in close)}." if close else ""
    named = quoted(str(cell_id))
    return f"No cell with id {named}; nothing {_did(verb)}.{hint} (list_cells shows them.)"


def _did(verb: str) -> str:
    return "ran" if verb == "run" else "changed"


def _at_version(cell: Mapping[str, Any], version: Any, verb: str) -> str | None:
    """Why ``cell`` is refused for the model's ``version`` (None: it holds that source)."""
    if cell_version(cell_source(cell)) == version:
        return None
    return (
        f"Not {verb}: cell {label(str(cell['id']))} is not at version {label(str(version))} "
        "(the user may have typed in it since you read it); read it again with read_cell."
    )


def _too_long(parts: Sequence[DisplayPart], verb: str) -> str | None:
    size = sum(len(p.text) for p in parts)
    if size <= CARD_CHARS:
        return None
    return (
        f"Not {verb}: the card would be {size:,} characters long, more than a person can check "
        f"on it ({CARD_CHARS:,}); do less in one call."
    )


def _card(parts: list[DisplayPart], verb: str, **bound: Any) -> CellCard:
    refusal = _too_long(parts, verb)
    if refusal is not None:
        return CellCard(refusal=refusal)
    return CellCard(parts=tuple(parts), **bound)


def _lines(source: str, mark: str) -> list[str]:
    return [mark + line for line in visible(source)[0].split("\n")] if source else [mark]


def _hidden_note(*sources: str) -> list[str]:
    count = sum(visible(s)[1] for s in sources)
    if not count:
        return []
    if count == 1:
        return ["# 1 character that does not show is marked ⟨U+…⟩"]
    return [f"# {count} characters that do not show are marked ⟨U+…⟩"]


def _anchor_lines(anchor: ShownCell, where: str) -> list[str]:
    lines = visible(anchor.source)[0].split("\n")
    head = ["  " + line for line in lines[:ANCHOR_LINES]]
    more = len(lines) - ANCHOR_LINES
    tail = [f"  … {more} more line{'s' if more > 1 else ''}"] if more > 0 else []
    return [f"# the cell it goes {where} ({label(anchor.id)}):", *head, *tail]


# -- the cards --------------------------------------------------------------------------------


def run_card(args: Mapping[str, Any], cells: Sequence[Mapping[str, Any]], own: str) -> CellCard:
    """``run_cells``: the code of each cell, whole, one part each, in the order they run."""
    refs = args.get("cells")
    if not isinstance(refs, list) or not refs:
        return CellCard(refusal="Name at least one cell to run.")
    if len(refs) > MAX_CELLS:
        return CellCard(refusal=f"Run at most {MAX_CELLS} cells in one call.")
    shown: list[ShownCell] = []
    for ref in refs:
        if not isinstance(ref, Mapping):
            return CellCard(refusal='Name each cell as {"id": ..., "version": ...}.')
        cell = _runnable(ref, cells, own)
        if isinstance(cell, str):
            return CellCard(refusal=cell)
        shown.append(cell)
    parts = [DisplayPart("code", _run_text(c), language="python", role="call") for c in shown]
    return _card(parts, "run", cells=tuple(shown))


def _runnable(ref: Mapping[str, Any], cells: Sequence[Mapping[str, Any]], own: str) -> Any:
    """The cell ``ref`` names, as a ShownCell, or why it does not run."""
    if ref.get("id") == own:
        return "Not run: the agent's own cell cannot be run by the agent."
    cell = _find(cells, ref.get("id"), "run")
    if isinstance(cell, str):
        return cell
    name, source = label(str(cell["id"])), cell_source(cell)
    if cell.get("executing") is True:
        return "Not run: that cell is running now; it cannot run again now."
    if cell.get("cell_type") != "code":
        return f"Not run: cell {name} is not a code cell; only code cells run."
    if source.lstrip().startswith("%%agent"):
        return f"Not run: cell {name} is an agent cell; run it yourself."
    stale = _at_version(cell, ref.get("version"), "run")
    return stale if stale is not None else ShownCell(str(cell["id"]), source)


def _run_text(cell: ShownCell) -> str:
    count = cell.source.count("\n") + 1
    header = f"# cell {label(cell.id)}" + (f" · {count} lines" if count > LINES_SAID else "")
    shown, _marked = visible(cell.source)
    return "\n".join([header, *_hidden_note(cell.source), shown])


def edit_card(args: Mapping[str, Any], cells: Sequence[Mapping[str, Any]], own: str) -> CellCard:
    """``edit_cell``: a diff of the cell's source now and the new one."""
    cell = _changeable(args.get("id"), cells, own, "edited")
    if isinstance(cell, str):
        return CellCard(refusal=cell)
    stale = _at_version({"id": cell.id, "source": cell.source}, args.get("version"), "applied")
    if stale is not None:
        return CellCard(refusal=stale)
    new = line_feeds(str(args.get("new_source", "")))
    old_lines = visible(cell.source)[0].split("\n")
    new_lines = visible(new)[0].split("\n")
    diff = difflib.unified_diff(old_lines, new_lines, "", "", n=DIFF_CONTEXT, lineterm="")
    body = [line for line in diff if not line.startswith(("--- ", "+++ "))]
    header = f"update_cell {label(cell.id)}"
    text = "\n".join([header, *_hidden_note(cell.source, new), *(body or [" (no change)"])])
    return _card([DisplayPart("diff", text, role="call")], "applied", cells=(cell,))


def delete_card(args: Mapping[str, Any], cells: Sequence[Mapping[str, Any]], own: str) -> CellCard:
    """``delete_cell``: the lines that go."""
    cell = _changeable(args.get("id"), cells, own, "deleted")
    if isinstance(cell, str):
        return CellCard(refusal=cell)
    stale = _at_version({"id": cell.id, "source": cell.source}, args.get("version"), "applied")
    if stale is not None:
        return CellCard(refusal=stale)
    lines = [f"delete_cell {label(cell.id)}", *_hidden_note(cell.source)]
    text = "\n".join([*lines, *_lines(cell.source, "-")])
    return _card([DisplayPart("diff", text, role="call")], "applied", cells=(cell,))


def move_card(args: Mapping[str, Any], cells: Sequence[Mapping[str, Any]], own: str) -> CellCard:
    """``move_cell``: the cell that moves, whole, and the head of the one it goes after."""
    cell = _changeable(args.get("id"), cells, own, "moved")
    if isinstance(cell, str):
        return CellCard(refusal=cell)
    after = args.get("after_id")
    anchor = None
    if after is not None:
        found = _find(cells, after, "applied")
        if isinstance(found, str):
            return CellCard(refusal=found)
        anchor = ShownCell(str(found["id"]), cell_source(found))
        if anchor.id == cell.id:
            return CellCard(refusal="Not applied: a cell cannot go after itself.")
    where = f"after {label(anchor.id)}" if anchor is not None else "to the top"
    lines = [f"move_cell {label(cell.id)} {where}", *_hidden_note(cell.source)]
    lines += ["# the cell that moves:", *_lines(cell.source, "  ")]
    if anchor is not None:
        lines += _anchor_lines(anchor, "after")
    text = "\n".join(lines)
    bound = {"cells": (cell,), "anchor": anchor, "side": "after" if anchor is not None else None}
    return _card([DisplayPart("diff", text, role="call")], "applied", **bound)


def insert_card(args: Mapping[str, Any], cells: Sequence[Mapping[str, Any]], own: str) -> CellCard:
    """``insert_cell``: the new cell's lines and the head of the cell it goes after (or
    before)."""
    after, before = args.get("after_id"), args.get("before_id")
    if after is not None and before is not None:
        return CellCard(refusal="Give after_id or before_id, not both.")
    anchor = None
    if after is not None or before is not None:
        found = _find(cells, after if after is not None else before, "applied")
        if isinstance(found, str):
            return CellCard(refusal=found)
        anchor = ShownCell(str(found["id"]), cell_source(found))
    side: Literal["after", "before"] = "after" if after is not None else "before"
    where = f"{side} {label(anchor.id)}" if anchor is not None else "at the end"
    source = line_feeds(str(args.get("source", "")))
    kind = args.get("cell_type") if args.get("cell_type") in ("code", "markdown", "raw") else "?"
    lines = [f"create_cell ({kind}, {where})", *_hidden_note(source), *_lines(source, "+")]
    if anchor is not None:
        lines += _anchor_lines(anchor, side)
    text = "\n".join(lines)
    bound = {"anchor": anchor, "side": side if anchor is not None else None}
    return _card([DisplayPart("diff", text, role="call")], "applied", **bound)


def _changeable(cell_id: Any, cells: Sequence[Mapping[str, Any]], own: str, done: str) -> Any:
    """The cell an edit, delete or move names, as a ShownCell, or why it is not changed."""
    if cell_id == own:
        return f"The agent's own cell cannot be {done}."
    cell = _find(cells, cell_id, "applied")
    if isinstance(cell, str):
        return cell
    if cell.get("executing") is True:
        return f"Not applied: {RUNNING}"
    return ShownCell(str(cell["id"]), cell_source(cell))
