"""An assist's request, typed: what the lab sends (executed as one JSON string, see ``run.py``).
``labextension/src/assist/contract.ts`` is generated from this module by
``python -m jupyter_agents.notebook.view._state_ts labextension/src`` (a test fails when the
committed file differs).

Nothing received is trusted whatever these types say: ``request.py`` validates a request field
by field.
"""

from typing import Final, Literal, get_args

from typing_extensions import NotRequired, TypedDict

from ..comm_names import MODES, Mode

__all__ = ["ASSIST_KINDS", "MODES", "AssistKind", "AssistRequest", "Mode"]

AssistKind = Literal["fix", "generate"]
"""``fix``: the cell's error output, fixed and run again; ``generate``: the cell written or
rewritten as the person asks (Ctrl/Cmd+I)."""

ASSIST_KINDS: Final[tuple[AssistKind, ...]] = get_args(AssistKind)
"""Every ``AssistKind``."""


class AssistRequest(TypedDict):
    """One assist, as the lab sends it."""

    kind: AssistKind
    cell: str
    """The id of the cell it is about (the page's cell ids)."""
    prompt: NotRequired[str]
    """What the person asks (``generate``; a ``fix`` may add a word too)."""
    mode: NotRequired[Mode]
    """The run's mode (absent: the notebook's ``%agent mode``)."""
