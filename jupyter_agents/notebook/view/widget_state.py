"""The run widget's state and messages, typed: the one description both sides share.

``RunView`` writes these into the widget's two synced traits
(``header`` and ``blocks``) and the saved run document; the widget's sources (JavaScript,
checked by ``tsc``) read them through ``labextension/src/widget/state.d.ts``, which
``python -m jupyter_agents.notebook.view._state_ts`` generates from this module (a test fails when
the committed file differs). Empty fields are left out of the synced state, and so are two
defaults: a block's ``kind`` is ``"tool"`` and a tool card's ``status`` is ``"done"``.

Values that reach the browser from a saved notebook are untrusted whatever these types say:
the widget maps the fields that choose CSS classes to known values.
"""

from typing import Any, Literal, Union

from typing_extensions import NotRequired, TypedDict

from ...runtime.modes import Mode
from ...runtime.tools.display import LiveOutput, PartType, StepStatus
from ..runs_contract import Wait

__all__ = [
    "STATE_VERSION",
    "AliveMessage",
    "AppendMessage",
    "Approval",
    "ApprovalState",
    "Block",
    "BlockKind",
    "DecisionErrorMessage",
    "DecisionMessage",
    "ErrorInfo",
    "EventBlock",
    "Header",
    "HelloMessage",
    "KernelMessage",
    "LiveOutput",
    "NoticeBlock",
    "NoticeLevel",
    "Part",
    "PartType",
    "Plan",
    "PlanStep",
    "QuestionState",
    "ReasoningBlock",
    "RunStatus",
    "StepStatus",
    "StopMessage",
    "TextBlock",
    "TextMessage",
    "Tokens",
    "ToolBlock",
    "ToolStatus",
    "ViewMessage",
    "Wait",
]

STATE_VERSION = 2
"""``Header.v``: 2 since tool cards carry typed ``parts`` (version 1 had ``output``, ``diff``,
``code``, ``image`` and ``terminal`` fields; saved version-1 runs are upgraded when read)."""

RunStatus = Literal["running", "waiting", "done", "failed", "cancelled", "background", "serving"]
"""Where the run is."""

ToolStatus = Literal[
    "running",
    "waiting",
    "done",
    "error",
    "timeout",
    "rejected",
    "blocked",
    "cancelled",
    "background",
]
"""Where a tool call is (``background``: the run was stopped, but the call's function goes on
on a thread that cannot be stopped)."""

ApprovalState = Literal["pending", "approved", "rejected", "expired"]
"""What became of an approval request (``expired``: the run ended undecided)."""

NoticeLevel = Literal["info", "warning", "error"]
"""How loud a notice is."""

BlockKind = Literal["text", "reasoning", "tool", "notice", "event"]
"""What a block is."""


class Tokens(TypedDict):
    """The run's token usage."""

    input: int
    output: int
    total: int


class PlanStep(TypedDict):
    """One step of the run's plan."""

    step: str
    status: StepStatus


class Plan(TypedDict):
    """The run's latest plan (the last ``update_plan`` call that set one): its ``steps`` in
    order, and the model's ``explanation`` when it gave one."""

    explanation: NotRequired[str]
    steps: list[PlanStep]


class ContextUse(TypedDict):
    """The last model request's input tokens (``used``) and the model's context window in
    tokens (``window``; None: not known)."""

    used: int
    window: int | None


class Header(TypedDict):
    """Run-level state: ``v`` (``STATE_VERSION``), the agent running now, the model label,
    the status and its detail, times in epoch ms (the frontend ticks the elapsed time itself),
    the token usage, and ``live`` (True until the view finished: the run takes clicks)."""

    v: int
    agent: str
    model: str
    status: RunStatus
    detail: str | None
    started_at: int
    ended_at: int | None
    tokens: Tokens | None
    live: bool
    cost: NotRequired[str]
    """What the run cost so far, as shown: ``"$0.0123"``, or ``"price unknown"`` for a model
    genai-prices has no price for (never ``$0``)."""
    replayed: NotRequired[bool]
    """The run followed its recording (no model request): the view shows a badge and, in
    JupyterLab, a "Run live" button."""
    plan: NotRequired[Plan]
    """The run's latest plan: a checklist above the blocks, updated in place (left out until
    the model sets one)."""
    wait: NotRequired[Wait]
    """What the live run waits for, from 5 s into a wait until it ends (left out otherwise)."""
    mode: NotRequired[Mode]
    """The run's mode (``ask``, ``plan``, ``agent``): a badge in the header; ``plan`` turns
    into ``agent`` once the plan is approved."""
    context: NotRequired[ContextUse]
    """How much of the model's context window the last request used (after a model call)."""


class Part(TypedDict):
    """One typed piece of a tool card: a kind's ``DisplayPart`` as it is, its text cut at the
    view's limit (``cut``: the original length). ``role`` is ``"call"`` for a part showing the
    call itself (drawn first, in place of the raw arguments); output parts leave it out."""

    type: PartType
    text: str
    language: NotRequired[str]
    role: NotRequired[Literal["call"]]
    cut: NotRequired[int]


class ErrorInfo(TypedDict):
    """What went wrong in a failed call (the person's view; the model was told less)."""

    type: str
    message: str
    traceback: NotRequired[str | None]


class QuestionState(TypedDict):
    """A question put to the person (``ask_user``, an MCP server's elicitation): free text,
    one of ``choices``, or the fields of ``form`` (a JSON schema of type object whose
    properties are strings, string enums, numbers, integers and booleans); ``origin`` says
    who asks when it is not the model."""

    text: str
    choices: NotRequired[list[str]]
    form: NotRequired[dict[str, Any]]
    origin: NotRequired[str]


class Approval(TypedDict):
    """The approval of a tool card. ``request`` (the id a decision must name), ``arguments``
    (full JSON, for the editor) and ``schema`` are there while pending; ``attempt`` grows each
    time the runtime asks again about the call; ``interactive``: the buttons work; ``error``:
    why the last edit was refused; ``once``: no "always" (leaving the sandbox, a dangerous
    command, restarting the kernel); ``notebook``: "always for this notebook" is offered;
    ``always``, ``message``, ``edited`` and ``scope`` (``"notebook"``: it stands for the
    notebook) describe the decision; ``recorded``: it is the decision a recording holds for a
    call answered from it (the call did not run now). ``question``: the request asks a
    question (the widget shows a form: Answer / Skip); ``answer``: what the person answered,
    as text."""

    state: ApprovalState
    request: NotRequired[str]
    attempt: NotRequired[int]
    interactive: NotRequired[bool]
    arguments: NotRequired[str]
    schema: NotRequired[dict[str, Any] | None]
    error: NotRequired[str | None]
    always: NotRequired[bool]
    message: NotRequired[str | None]
    edited: NotRequired[bool]
    once: NotRequired[bool]
    notebook: NotRequired[bool]
    scope: NotRequired[Literal["notebook"]]
    question: NotRequired[QuestionState]
    answer: NotRequired[str]
    recorded: NotRequired[bool]
    plan: NotRequired[bool]
    """The call is the plan of a run in ``plan`` mode: the card offers Approve plan / Edit
    plan / Reject (which ends the run); its editor holds the steps, one per line."""


class Progress(TypedDict):
    """How far a running call has got, as its tool says: ``done`` of ``total`` (None: not
    known) and a short ``message``."""

    done: float
    total: float | None
    message: str


class ToolBlock(TypedDict):
    """A tool card (``id`` ``k<n>``: one per call object, never the model's ``call_id``).
    ``args`` is compact JSON cut at the view's limit (``args_cut``: original length); ``ms``
    the duration; ``parts`` what the kind shows (``Part``); ``printed`` the tail of what
    the call printed while running (``printed_cut``: characters dropped from its start), drawn
    as ``live`` says (left out: plain text); ``badge``, ``origin`` and ``escalation`` (why it
    asks to leave the sandbox) come from the kind and the approval request; ``replayed``: the
    output comes from the run's recording (the tool did not run; no duration); ``note``: a line
    from the view about the call (that it goes on in the background, then what it did)."""

    id: str
    kind: NotRequired[Literal["tool"]]
    rev: NotRequired[int]
    name: NotRequired[str]
    call_id: NotRequired[str | None]
    args: NotRequired[str]
    args_cut: NotRequired[int | None]
    status: NotRequired[ToolStatus]
    ms: NotRequired[int]
    parts: NotRequired[list[Part]]
    printed: NotRequired[str]
    printed_cut: NotRequired[int]
    live: NotRequired[LiveOutput]
    error: NotRequired[ErrorInfo]
    approval: NotRequired[Approval]
    badge: NotRequired[str]
    origin: NotRequired[str]
    escalation: NotRequired[str]
    replayed: NotRequired[bool]
    note: NotRequired[str]
    progress: NotRequired[Progress]


class TextBlock(TypedDict):
    """Answer text (Markdown). While the run is live its text travels in messages (see
    ``TextMessage``); the final state carries it."""

    id: str
    kind: Literal["text"]
    rev: NotRequired[int]
    text: NotRequired[str]
    agent: NotRequired[str | None]


class ReasoningBlock(TypedDict):
    """A reasoning summary (shown folded)."""

    id: str
    kind: Literal["reasoning"]
    rev: NotRequired[int]
    text: str


class NoticeBlock(TypedDict):
    """A line from the view itself."""

    id: str
    kind: Literal["notice"]
    rev: NotRequired[int]
    level: NoticeLevel
    text: str


class EventBlock(TypedDict):
    """Handoffs, MCP listings, anything the view does not know."""

    id: str
    kind: Literal["event"]
    rev: NotRequired[int]
    label: str
    text: str


Block = Union[ToolBlock, TextBlock, ReasoningBlock, NoticeBlock, EventBlock]
"""One entry of the ``blocks`` trait, in display order."""


class HelloMessage(TypedDict):
    """Frontend → kernel: a view rendered (or lost track of text)."""

    type: Literal["hello"]


class DecisionMessage(TypedDict):
    """Frontend → kernel: a click on a card (``id``) deciding ``approval.request``;
    ``scope: "notebook"`` with ``always``: the decision stands for the notebook. A question is
    answered with ``approved: true`` and ``answer`` (text, a choice, or the form's values),
    skipped with ``approved: false``."""

    type: Literal["decision"]
    id: str
    request: str
    approved: bool
    always: bool
    scope: NotRequired[Literal["notebook"]]
    message: NotRequired[str]
    arguments: NotRequired[dict[str, Any]]
    answer: NotRequired[Any]


class StopMessage(TypedDict):
    """Frontend → kernel: Stop was clicked."""

    type: Literal["stop"]


class AliveMessage(TypedDict):
    """Kernel → frontend: the answer to hello (clicks will be heard)."""

    type: Literal["alive"]


class TextMessage(TypedDict):
    """Kernel → frontend: the whole text of a text block."""

    type: Literal["text"]
    id: str
    text: str


class AppendMessage(TypedDict):
    """Kernel → frontend: more text of a block, starting at ``at``."""

    type: Literal["append"]
    id: str
    at: int
    text: str


class DecisionErrorMessage(TypedDict):
    """Kernel → frontend: edited arguments were refused; the card still waits."""

    type: Literal["decision_error"]
    id: str
    error: str


ViewMessage = Union[HelloMessage, DecisionMessage, StopMessage]
"""What the frontend sends."""

KernelMessage = Union[AliveMessage, TextMessage, AppendMessage, DecisionErrorMessage]
"""What the kernel sends."""
