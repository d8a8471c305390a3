"""The chat's messages, typed: a turn's request (executed as one JSON string, see ``turn.py``)
and the ``jupyter_agents.chat`` comm's messages (``comm.py``). The lab extension imports
``labextension/src/chat/contract.ts``, generated from this module by
``python -m jupyter_agents.notebook.view._state_ts labextension/src`` (a test fails when the
committed file differs).

Nothing received is trusted whatever these types say: ``request.py`` validates a turn's request
field by field, and the comm ignores a malformed message.
"""

from typing import Final, Literal, get_args

from typing_extensions import NotRequired, TypedDict

from ..comm_names import CHAT_TARGET, MODES, Mode

__all__ = [
    "COMPLETION_KINDS",
    "MODES",
    "TARGET",
    "Complete",
    "Completion",
    "CompletionKind",
    "Completions",
    "HistoryEntry",
    "Mention",
    "Mode",
    "PromptArgument",
    "SlashCommand",
    "TurnRequest",
]

TARGET: Final = CHAT_TARGET
"""The comm's target name (the frontend opens it)."""

CompletionKind = Literal["var", "file", "prompt"]
"""What the comm completes: ``@var:``, ``@file:`` and ``/`` (cells are the frontend's own)."""

COMPLETION_KINDS: Final[tuple[CompletionKind, ...]] = get_args(CompletionKind)
"""Every ``CompletionKind``."""


class Mention(TypedDict):
    """``@cell:N``, ``@var:NAME`` or ``@file:PATH`` in a message: ``kind`` and what it names
    (a cell's id, a variable's name, a path relative to the notebook's folder)."""

    kind: Literal["cell", "var", "file"]
    name: str


class HistoryEntry(TypedDict):
    """One saved text of a thread, sent when the kernel has no conversation for it (a thread
    continued after a restart): the person's words or the agent's answer, text only."""

    role: Literal["user", "assistant"]
    text: str


class SlashCommand(TypedDict):
    """``/name args``: fetch the MCP prompt ``name`` and send its text as the message."""

    name: str
    args: str


class TurnRequest(TypedDict):
    """One chat turn, as the panel sends it."""

    thread: str
    message: str
    mode: NotRequired[Mode]
    active_cell: NotRequired[str]
    """The id of the notebook's active cell."""
    selection: NotRequired[str]
    """The text selected in the active cell's editor."""
    mentions: NotRequired[list[Mention]]
    history: NotRequired[list[HistoryEntry]]
    command: NotRequired[SlashCommand]


# -- the comm ----------------------------------------------------------------------------------


class Complete(TypedDict):
    """Frontend → kernel: the names of ``kind`` starting with ``prefix``."""

    type: Literal["complete"]
    id: int
    kind: CompletionKind
    prefix: str


class PromptArgument(TypedDict):
    """One argument of an MCP prompt."""

    name: str
    required: bool


class Completion(TypedDict):
    """One name: what to insert (``label``) and a short description (``detail``)."""

    label: str
    detail: str
    arguments: NotRequired[list[PromptArgument]]


class Completions(TypedDict):
    """Kernel → frontend: the answer to ``complete`` ``id``."""

    type: Literal["completions"]
    id: int
    items: list[Completion]
