"""The notebook comms' names and word lists: what the kernel needs of them when the extension
loads.

The messages themselves are typed in ``runs_contract.py``, ``document_contract.py`` and
``chat/contract.py``, which re-export these; they stay out of ``%load_ext``'s imports (some
forty TypedDicts, about 5 ms to build) because the comms need only their target names and
these words until a message comes,
and annotations are not evaluated (``tests/kernel/test_lazy_load.py`` checks it).
"""

from typing import Final, Literal, get_args

from ..runtime.modes import MODES, Mode

__all__ = [
    "ACTIVE",
    "APPROVE_MODES",
    "CELL_TYPES",
    "CHAT_TARGET",
    "DOCUMENT_TARGET",
    "MODES",
    "RUNS_TARGET",
    "WAITS_FOR",
    "ActiveStatus",
    "ApproveMode",
    "CellType",
    "Mode",
    "WaitsFor",
]

RUNS_TARGET: Final = "jupyter_agents.runs"
"""The runs comm's target name (registered on both sides: either may open it)."""

DOCUMENT_TARGET: Final = "jupyter_agents.document"
"""The document comm's target name (registered on both sides: either may open it)."""

CHAT_TARGET: Final = "jupyter_agents.chat"
"""The chat comm's target name (the frontend opens it: completions for the chat panel)."""

ActiveStatus = Literal["running", "waiting", "background"]
"""The statuses of a run that has not ended (``background``: a call it left still runs)."""

ACTIVE: Final[tuple[ActiveStatus, ...]] = get_args(ActiveStatus)
"""Every ``ActiveStatus``."""

ApproveMode = Literal["ask", "auto", "deny"]
"""How ``%%agent`` cells without ``--approve`` decide on calls that need approval."""

APPROVE_MODES: Final[tuple[ApproveMode, ...]] = get_args(ApproveMode)
"""Every ``ApproveMode``."""

WaitsFor = Literal["model", "tool", "person"]
"""What a run may wait for."""

WAITS_FOR: Final[tuple[WaitsFor, ...]] = get_args(WaitsFor)
"""Every ``WaitsFor``."""

CellType = Literal["code", "markdown", "raw"]
"""What a cell is (nbformat's cell types)."""

CELL_TYPES: Final[tuple[CellType, ...]] = get_args(CellType)
"""Every ``CellType``, for the ends that check a request's ``cell_type``."""
