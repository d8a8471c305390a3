"""The ``jupyter_agents.runs`` comm's messages, typed: the one description both ends share.

The kernel side is ``runs_comm.py`` (with ``run_registry.py``, which makes the reports); the
lab extension's is ``labextension/src/runs/``, which imports
``labextension/src/runs/contract.ts``, generated from this module by
``python -m jupyter_agents.notebook.view._state_ts labextension/src`` (a test fails when the
committed file differs). When each message is sent is in ``runs_comm.py``'s docstring.

Nothing received is trusted whatever these types say: the kernel ignores a message of an
unknown ``type`` or with a malformed field, and the lab extension drops one (``protocol.ts``).
"""

from typing import Final, Literal, Union

from typing_extensions import NotRequired, TypedDict

from .comm_names import (
    ACTIVE,
    APPROVE_MODES,
    MODES,
    RUNS_TARGET,
    WAITS_FOR,
    ActiveStatus,
    ApproveMode,
    Mode,
    WaitsFor,
)

__all__ = [
    "ACTIVE",
    "APPROVE_MODES",
    "MODES",
    "TARGET",
    "WAITS_FOR",
    "ActiveStatus",
    "Activity",
    "ApproveMode",
    "BackgroundCall",
    "Decide",
    "Decided",
    "Hello",
    "Mode",
    "ModeChanged",
    "PendingCall",
    "PlanProgress",
    "RunChanged",
    "RunReport",
    "SetMode",
    "Settings",
    "Snapshot",
    "Stop",
    "StopAll",
    "ToFrontend",
    "ToKernel",
    "ViewRef",
    "Wait",
    "WaitsFor",
]

TARGET: Final = RUNS_TARGET
"""The comm's target name (registered on both sides: either may open it)."""


class Wait(TypedDict):
    """What the run waits for, once it has waited ``SHOW_AFTER`` seconds: ``on``
    the model, a tool or the person; ``text`` says which ("waiting for the model at
    api.openai.com · attempt 2 of 3"); ``since`` (epoch ms) is when the wait began, and each
    frontend adds the time since then itself."""

    on: WaitsFor
    text: str
    since: int


class PendingCall(TypedDict):
    """A call waiting for a person's decision: its ``arguments`` as a JSON preview (cut);
    ``question`` for a question (answered in its cell's form); ``on_card`` for a call whose
    card alone shows what it does (the notebook's cell tools, a plan to review): approved
    there, never from outside the cell; ``plan`` for a plan-mode run's plan (approved, edited
    or rejected on its card)."""

    request: str
    call: str
    tool: str
    arguments: str
    question: NotRequired[str]
    on_card: NotRequired[Literal[True]]
    plan: NotRequired[Literal[True]]


class PlanProgress(TypedDict):
    """How far a run's plan (the model's ``update_plan`` checklist) is: the step in progress,
    if one is, as ``current``."""

    completed: int
    total: int
    current: str | None


class BackgroundCall(TypedDict):
    """A tool call that goes on in the background until its function really ends."""

    call: str
    tool: str


class ViewRef(TypedDict):
    """Where a run's card lives, so a page that did not start the run can show it (after a
    reload, or in a second window): the card's widget ``model`` id, the ``display`` id whose
    updates replace it with the finished run's saved form, and the kernel ``client`` (the
    session id of the page's kernel connection) whose cell already shows it."""

    model: str
    display: str
    client: str


class RunReport(TypedDict):
    """One ``%%agent`` run as the kernel reports it: wall-clock ``started`` and ``ended`` in
    seconds since the epoch, ``cost`` as shown (``"$0.0123"``, ``"price unknown"``; null before
    a call), ``plan`` once the run has one, ``wait`` from a few seconds into a wait until it
    ends, the calls it left running in the background, and where its card is (``view``; null
    for a run without a widget)."""

    id: str
    cell: str
    agent: str
    model: str
    status: str
    started: float
    ended: float | None
    tokens: int
    cost: str | None
    tool_calls: int
    pending: list[PendingCall]
    plan: PlanProgress | None
    wait: Wait | None
    background_calls: list[BackgroundCall]
    view: ViewRef | None
    resume: NotRequired[str]
    """Set on a run a kernel restart or crash cut off (status ``cut off``): the id
    ``%agent resume`` takes to continue it."""


# -- kernel → frontend -----------------------------------------------------------------------


class Snapshot(TypedDict):
    """Every known run, oldest first: when the comm opens, and on ``Hello``."""

    type: Literal["snapshot"]
    runs: list[RunReport]


class RunChanged(TypedDict):
    """A run changed."""

    type: Literal["run"]
    run: RunReport


class Decided(TypedDict):
    """The answer to ``Decide``: ``ok`` is false for a stale or repeated decision."""

    type: Literal["decided"]
    run: str
    request: str
    ok: bool


class ModeChanged(TypedDict):
    """The notebook's mode (``%agent mode``: what ``%%agent`` cells without ``--mode`` may do):
    right after every ``Snapshot``, and whenever it changes."""

    type: Literal["mode"]
    mode: Mode


class Activity(TypedDict):
    """Sent while a run is live, on a comm no frontend opened (frontends never see it): keeps
    an idle-culling server from shutting the kernel down under a run waiting for its person."""

    type: Literal["activity"]


ToFrontend = Union[Snapshot, RunChanged, Decided, ModeChanged, Activity]
"""What the kernel sends."""


# -- frontend → kernel -----------------------------------------------------------------------


class Hello(TypedDict):
    """A frontend connected: the kernel answers with a ``Snapshot``."""

    type: Literal["hello"]


class Decide(TypedDict):
    """Approve or reject the waiting call ``request`` of run ``run`` (``message``: why not)."""

    type: Literal["decide"]
    run: str
    request: str
    approved: bool
    message: str | None


class Stop(TypedDict):
    """Stop run ``run``."""

    type: Literal["stop"]
    run: str


class StopAll(TypedDict):
    """Stop every run of the kernel."""

    type: Literal["stop_all"]


class Settings(TypedDict):
    """The frontend's settings: the approval mode of cells without ``--approve`` and the
    headless grace period in seconds (``JUPYTER_AGENTS_APPROVE`` and
    ``JUPYTER_AGENTS_APPROVAL_GRACE`` still win)."""

    type: Literal["settings"]
    approve: ApproveMode
    grace: float


class SetMode(TypedDict):
    """Set the notebook's mode, as ``%agent mode`` does (the kernel ignores one not in
    ``MODES``); every frontend hears of it through ``ModeChanged``."""

    type: Literal["set_mode"]
    mode: Mode


ToKernel = Union[Hello, Decide, Stop, StopAll, Settings, SetMode]
"""What a frontend sends."""
