"""The ``jupyter_agents.document`` comm's messages, typed: the one description its three ends
share.

The kernel asks (``document_comm.py``, for the notebook agent's tools), and a frontend that
holds the notebook answers: the lab extension (``labextension/src/document/``, which imports
``labextension/src/document/contract.ts``, generated from this module by
``python -m jupyter_agents.notebook.view._state_ts labextension/src``; a test fails when the
committed file differs) or the headless runner (``notebook/workspace/headless_document.py``).
The order of the exchange and what each request does are in ``document_comm.py``'s docstring.

Every message is a JSON object with a ``type``. The comm opens with ``Open``; the frontend says
``Hello``; a request is ``RequestHead`` with the fields of one ``Call`` (its ``op`` and, for a
change, its ``args``); its reply is ``ReplyHead`` with the fields of one ``Answer``; the outputs
of a cell the kernel runs for the agent come as ``Output`` messages, with no reply.

Nothing received is trusted whatever these types say: each end checks what it reads (a reply to
the request that asked, a request's ``op`` against ``OPS`` and its args field by field). The
answers are ``@final``, so a type checker tells them apart by the key one has
(``"stale" in answer``).
"""

from typing import Final, Literal, Union, final, get_args

from typing_extensions import NotRequired, TypedDict

from .comm_names import CELL_TYPES, DOCUMENT_TARGET, CellType

__all__ = [
    "CELL_TYPES",
    "CHANGES",
    "OPS",
    "TARGET",
    "Answer",
    "Call",
    "CassetteArgs",
    "CassetteCall",
    "Cell",
    "CellType",
    "Cells",
    "CellsCall",
    "DeleteArgs",
    "DeleteCall",
    "Done",
    "EditArgs",
    "EditCall",
    "Failed",
    "Hello",
    "InsertArgs",
    "InsertCall",
    "Missing",
    "MoveArgs",
    "MoveCall",
    "Open",
    "OpenNotebookArgs",
    "OpenNotebookCall",
    "Outcome",
    "Output",
    "PingCall",
    "RanArgs",
    "RanCall",
    "Recordings",
    "Refused",
    "ReplyHead",
    "RequestHead",
    "RestartArgs",
    "RestartCall",
    "RunArgs",
    "RunCall",
    "SetCassetteArgs",
    "SetCassetteCall",
    "Stale",
]

TARGET: Final = DOCUMENT_TARGET
"""The comm's target name (registered on both sides: either may open it)."""


# -- kernel → frontend -----------------------------------------------------------------------


class Open(TypedDict):
    """The data a comm opens with (from either side)."""

    type: Literal["open"]


class RequestHead(TypedDict):
    """What every request carries besides its ``Call``: ``id`` numbers it, and its reply names
    it."""

    type: Literal["request"]
    id: int


class PingCall(TypedDict):
    """Nothing but the reply ``Done`` (what a round trip costs, benchmark NB1)."""

    op: Literal["ping"]


class CellsCall(TypedDict):
    """Every cell of the document: the reply is ``Cells``."""

    op: Literal["cells"]


class InsertArgs(TypedDict):
    """A new cell: ``after`` or ``before`` a cell (whose source must still be ``expected``), or
    neither (at the end); ``id`` asks for that id (made from the call, so a replayed run asks for
    the same one: a cell of that id and source already there is the one it inserted); ``mark``
    is the kernel's keyed mark of an inserted cell, written into its metadata as given."""

    cell_type: CellType
    source: str
    after: str | None
    before: str | None
    id: str
    mark: str
    expected: NotRequired[str]


class InsertCall(TypedDict):
    """Insert a cell (one undo step)."""

    op: Literal["insert"]
    args: InsertArgs


class EditArgs(TypedDict):
    """Cell ``id``, which must still hold ``expected``, gets ``source``."""

    id: str
    expected: str
    source: str


class EditCall(TypedDict):
    """Replace a cell's source (one undo step)."""

    op: Literal["edit"]
    args: EditArgs


class DeleteArgs(TypedDict):
    """Cell ``id``, which must still hold ``expected``."""

    id: str
    expected: str


class DeleteCall(TypedDict):
    """Delete a cell (one undo step)."""

    op: Literal["delete"]
    args: DeleteArgs


class MoveArgs(TypedDict):
    """Cell ``id`` (holding ``expected``) goes after cell ``after`` (holding
    ``after_expected``), or to the top when ``after`` is null."""

    id: str
    expected: str
    after: str | None
    after_expected: NotRequired[str]


class MoveCall(TypedDict):
    """Move a cell (one undo step)."""

    op: Literal["move"]
    args: MoveArgs


class RunArgs(TypedDict):
    """The kernel is about to run code cell ``id``, which must still hold ``expected``;
    ``run`` is the token its ``Output`` messages and its ``ran`` carry."""

    id: str
    expected: str
    run: str


class RunCall(TypedDict):
    """The frontend clears the cell's outputs and shows it running (refused for a cell that is
    not code or is running)."""

    op: Literal["run"]
    args: RunArgs


class RanArgs(TypedDict):
    """Run ``run`` ended with ``execution_count``."""

    run: str
    execution_count: int | None


class RanCall(TypedDict):
    """A run the kernel made for the agent ended."""

    op: Literal["ran"]
    args: RanArgs


class RestartArgs(TypedDict):
    """``after``: the agent's cell, running now."""

    after: str


class RestartCall(TypedDict):
    """Restart the kernel when the agent's cell ends (the person approved it on its card)."""

    op: Literal["restart"]
    args: RestartArgs


class OpenNotebookArgs(TypedDict):
    """``path``: a notebook relative to the folder of the notebook that asks (the kernel
    checked it: relative, no ``..``, no hidden part, ``.ipynb``; the page checks it again)."""

    path: str


class OpenNotebookCall(TypedDict):
    """Open another notebook in a new tab (``open_notebook``); nothing runs."""

    op: Literal["open_notebook"]
    args: OpenNotebookArgs


class CassetteArgs(TypedDict):
    """Cell ``id``."""

    id: str


class CassetteCall(TypedDict):
    """A cell's packed recordings (``cell_replay.py``): the reply is ``Recordings``."""

    op: Literal["cassette"]
    args: CassetteArgs


class SetCassetteArgs(TypedDict):
    """Cell ``id`` keeps ``data`` (packed recordings), or drops its own when null."""

    id: str
    data: str | None


class SetCassetteCall(TypedDict):
    """Store (or drop) a cell's recordings in its metadata."""

    op: Literal["set_cassette"]
    args: SetCassetteArgs


Call = Union[
    PingCall,
    CellsCall,
    InsertCall,
    EditCall,
    DeleteCall,
    MoveCall,
    RunCall,
    RanCall,
    RestartCall,
    CassetteCall,
    SetCassetteCall,
    OpenNotebookCall,
]
"""What a request asks: its ``op`` and, for every op but ``ping`` and ``cells``, its ``args``."""

OPS: Final[tuple[str, ...]] = tuple(get_args(c.__annotations__["op"])[0] for c in get_args(Call))
"""Every request's ``op``."""

CHANGES: Final[tuple[str, ...]] = tuple(
    get_args(c.__annotations__["op"])[0] for c in get_args(Call) if "args" in c.__annotations__
)
"""The requests that carry ``args`` (the document's changes, runs and recordings)."""


class Output(TypedDict):
    """One output message of a cell the kernel runs for the agent (run ``run``), as the kernel
    sent it on IOPub (``stream``, ``display_data``, ``execute_result``, ``error``,
    ``clear_output``, ``update_display_data``); no reply."""

    type: Literal["output"]
    run: str
    msg_type: str
    content: dict[str, object]


# -- frontend → kernel -----------------------------------------------------------------------


class Hello(TypedDict):
    """What holds the document (``"jupyterlab"``, ``"headless"``) and the notebook's path."""

    type: Literal["hello"]
    frontend: str
    notebook: str


class ReplyHead(TypedDict):
    """What every reply carries besides its ``Answer``: the ``id`` of the request it answers."""

    type: Literal["reply"]
    id: int


class Cell(TypedDict):
    """One cell of the document, nbformat's fields, and whether it runs now (``executing``)."""

    id: str
    cell_type: CellType
    source: str
    execution_count: int | None
    outputs: list[dict[str, object]]
    executing: bool


@final
class Cells(TypedDict):
    """The answer to ``cells``."""

    cells: list[Cell]


@final
class Done(TypedDict):
    """Done: the ``cell`` changed (a change, ``run``, ``ran``) and, for an insert or an edit,
    its ``source`` now."""

    done: Literal[True]
    cell: NotRequired[str]
    source: NotRequired[str]


@final
class Stale(TypedDict):
    """Nothing done: ``cell`` does not hold the source expected; ``source`` is what it holds."""

    stale: Literal[True]
    cell: str
    source: str


@final
class Missing(TypedDict):
    """Nothing done: no cell (or run) with this id."""

    missing: str


@final
class Refused(TypedDict):
    """Nothing done, and why (a running cell, a cell that is not code, ...)."""

    refused: str


@final
class Failed(TypedDict):
    """The request could not be answered (an unknown request, the notebook not open)."""

    error: str


@final
class Recordings(TypedDict):
    """The answer to ``cassette``: the cell's packed recordings (or null), and whether the
    person asked for its next run to be live (JupyterLab's "Run live"; left out: no)."""

    data: str | None
    live: NotRequired[bool]


Outcome = Union[Done, Stale, Missing, Refused]
"""The answer to a change (and to ``run``, ``ran``, ``restart``)."""

Answer = Union[Done, Stale, Missing, Refused, Failed, Cells, Recordings]
"""Every answer a reply may carry."""
