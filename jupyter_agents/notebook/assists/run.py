"""One assist: the notebook's agent run on one cell, through the machinery of a chat turn
(``cells/cell.py``'s ``run_beside``: the same view, runs list, approvals, plans, costs and
budget, in the notebook's mode or the one the person chose), with the notebook's tools added
when the agent lacks them (``NotebookTools``), so it can propose the ``edit_cell`` the person
approves on its diff card, and, for a fix, the ``run_cells`` of it.

- The cell is read from the page that holds the notebook (the request only names it), so the
  prompt has the source and outputs the person sees.
- Each kind of assist on each cell has its own conversation (``assist:KIND:CELL``): a second
  Fix of the same cell sees the first, a second Ctrl+I continues the first ("shorter").
- A run is named ``CELL/KIND-N`` (no cell has a ``/`` in its id, and a chat turn's is
  ``THREAD/N``, a number after the ``/``), so the runs panel and ``%agent cost`` list it; it
  always runs live (an assist's runs are not recorded into a cell).

The lab executes ``await assist(REQUEST)`` (``labextension/src/kernelrun/``), REQUEST being the
JSON of ``contract.AssistRequest`` as one Python string literal, so the run's widget is
displayed in that execution's output, under the cell.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterator, Mapping
from typing import Any

from IPython.core.error import UsageError

from ..cells.cell import run_beside
from ..chat.turn import loaded_host
from ..host import NotebookHost
from ..workspace.document_comm import NoFrontend
from ..workspace.notebook_tools import NotebookTools
from .prompt import AssistRefused, fix_prompt, generate_prompt
from .request import Assist, RequestError, parse_assist

__all__ = ["assist", "assist_prompt", "conversation_name"]

_runs: defaultdict[str, Iterator[int]] = defaultdict(lambda: itertools.count(1))


def conversation_name(request: Assist) -> str:
    """The conversation of ``request``'s kind of assist on its cell."""
    return f"assist:{request.kind}:{request.cell}"


async def _cell(host: NotebookHost, cell_id: str) -> tuple[int, Mapping[str, Any]]:
    """The position and content of the cell ``cell_id``, as the page holds it.

    Raises:
        AssistRefused: No frontend holds the notebook, or it has no such code cell.
    """
    document = host.document
    if document is None or await document.ready() is None:
        raise AssistRefused("no notebook frontend is connected to read the cell from")
    try:
        cells = await document.cells()
    except NoFrontend as e:
        raise AssistRefused(str(e)) from None
    for index, cell in enumerate(cells):
        if cell.get("id") == cell_id:
            if cell.get("cell_type") != "code":
                raise AssistRefused(f"cell {index + 1} is not a code cell")
            return index, cell
    raise AssistRefused(f"no cell with id {cell_id!r} in the notebook")


async def assist_prompt(host: NotebookHost, request: Assist) -> str:
    """What the model gets for ``request``.

    Raises:
        UsageError: The cell cannot be read, is not a code cell, or (a fix) has no error.
    """
    try:
        index, cell = await _cell(host, request.cell)
        if request.kind == "fix":
            return fix_prompt(cell, index, host.shell.user_ns, request.prompt)
        return generate_prompt(cell, index, request.prompt)
    except AssistRefused as e:
        raise UsageError(f"assist: {e}") from None


async def assist(request: str) -> None:
    """Run one assist (``request``: the JSON of ``contract.AssistRequest``) in place: the run's
    view is displayed in this execution's output."""
    host = loaded_host("assist")
    try:
        parsed = parse_assist(request)
    except RequestError as e:
        raise UsageError(f"assist: {e}") from None
    prompt = await assist_prompt(host, parsed)
    name = f"{parsed.cell}/{parsed.kind}-{next(_runs[parsed.cell])}"
    conversation = conversation_name(parsed)
    tools = NotebookTools()
    await run_beside(
        host, prompt, cell=name, conversation=conversation, mode=parsed.mode, tools=tools
    )
