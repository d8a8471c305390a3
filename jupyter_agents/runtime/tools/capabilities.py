"""``ToolCapabilities``: everything the run may read of a tool, declared once with its default.

Every tool class subclasses it (function tools and so MCP, agent and cell tools, class-based
tools, the shell, apply_patch, the computer, the plan tool, hosted tools; a registered kind's
own tool classes must too: ``register_tool_kind`` refuses others). A tool says what it can do
by setting an attribute or overriding a method; what it leaves alone keeps the default here,
which is what a tool that says nothing gets. The run reads these attributes directly, so mypy
checks every reader and a new ability is one declaration here, not a ``getattr`` wherever it is
read.

Kind-specific abilities live on that kind's tool class, where only its kind reads them
(``FunctionTool.arguments_problem`` and ``describe_call``, ``BaseTool.display_arguments``).

A dataclass tool that makes one of these a required field writes ``description: str =
field()``: a dataclass takes the value a base class gives a name as that field's default
(``FunctionTool`` does so for its description and schema).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias

if TYPE_CHECKING:
    from ..agent import Agent
    from ..approvals import NeedsApproval
    from ..questions import Question
    from .display import ToolDisplay

__all__ = ["OnApproval", "ToolCapabilities", "ToolReplay", "ToolTimeoutBehavior"]


ToolTimeoutBehavior: TypeAlias = Literal["error_as_result", "raise_exception"]
"""What a tool call that runs out of time does (``ToolCapabilities.timeout_behavior``)."""

ToolReplay: TypeAlias = Literal["run", "recorded"]
"""How a replayed run answers a tool's calls (see ``ToolCapabilities.replay``)."""

OnApproval: TypeAlias = Callable[[Any, Any], Any]
"""A sync or async ``(run_context, approval_item) -> {"approve": bool, "reason"?: str}``; any
other answer leaves the call to a person (the SDK's hook)."""


class ToolCapabilities:
    """What the run may read of a tool: its name, whether its calls need approval, how it is
    offered, and the optional abilities below, each with the default a tool that says nothing
    gets (see the module docstring)."""

    name: str
    """The name the model calls the tool by."""

    @property
    def lookup_name(self) -> str:
        """The name the run finds the tool and its calls by: its name (a function tool put in
        a namespace by ``tool_namespace()`` is found by ``namespace.name``)."""
        return self.name

    needs_approval: NeedsApproval = False
    """Whether a person must approve each call: a bool, or a sync/async function
    ``(run_context, arguments, call_id) -> bool`` deciding per call."""

    # -- how it is offered (read by the run's request identity and budget) -----------------

    description: str | None = None
    """What the tool does, for the model (None: the kind's wire form says it, or nothing)."""

    params_json_schema: dict[str, Any] | None = None
    """The JSON schema of the arguments of its function form (None: it has none)."""

    strict_json_schema: bool | None = None
    """Whether that schema is sent in strict mode (None: the kind decides)."""

    # -- what it may do (read by the run's mode: ``runtime/modes.py``) -----------------------

    read_only: bool = False
    """Its calls change nothing (they read cells, outputs, variables or files, or search):
    the only tools a run in ``ask`` or ``plan`` mode offers. Declared by whoever makes the
    tool, never taken from what a tool's server says of it."""

    plans: ClassVar[bool] = False
    """Its calls set the run's plan (``update_plan``): offered in ``plan`` mode too, where each
    call is the plan a person approves before the run may act."""

    # -- deciding (the approval path) ------------------------------------------------------

    always_asks: bool = False
    """Each call is decided on its own (``ask_user``): no standing "always" decision covers
    it, none is made from it, a recorded decision never replays for it, and user interfaces
    offer none."""

    on_approval: OnApproval | None = None
    """Decides calls that need approval before a person is asked (see ``OnApproval``)."""

    approved_on_its_card: ClassVar[bool] = False
    """What a call does shows only on its card (the notebook's cell tools: the code that
    would run is read when the call asks, not in its arguments): views that show the
    arguments alone (the runs panel, a notification) may reject it, never approve it."""

    describe_this_call: Callable[[ToolDisplay, object], ToolDisplay] | None = None
    """``(display, call_item) -> display``: the card of this very call, made from the world
    as it was when the call asked (the notebook's cells). A tool with one is asked again on
    replay: what the person approved then may not be what would run now."""

    def validate_arguments(self, arguments: dict[str, Any]) -> str | None:
        """Why edited ``arguments`` (a person's, or recorded ones) cannot be used; None when
        they can (the default: the tool checks nothing)."""
        return None

    def question_for(self, arguments: dict[str, Any]) -> Question | None:
        """The question a call with ``arguments`` asks the person (``ask_user``); None: the
        call asks whether it may run."""
        return None

    def rejection_text(self, message: str | None) -> str | None:
        """What the model reads when a person rejects a call with ``message`` (a skipped
        question says so); None: the run's usual rejection."""
        return None

    # -- running (the invoke step) ---------------------------------------------------------

    timeout: float | None = None
    """Seconds a call may take (None: the run's ``RunConfig.tool_timeout``)."""

    timeout_behavior: ToolTimeoutBehavior = "error_as_result"
    """What a call out of time does: ``"error_as_result"`` tells the model (and the run goes
    on), ``"raise_exception"`` ends the run with ``ToolTimeoutError``."""

    timeout_error_function: Callable[[Any, Exception], Any] | None = None
    """``(tool_context, ToolTimeoutError) -> str`` (sync or async): what the model is told when
    a call runs out of time (None: a message naming the tool and the limit)."""

    @property
    def timeout_seconds(self) -> float | None:
        """The SDK's name for ``timeout``."""
        return self.timeout

    failure_error_function: Callable[[Any, Exception], Any] | None = None
    """``(tool_context, error) -> str`` (sync or async): what the model is told when a call
    raises; None lets the exception end the run."""

    tool_input_guardrails: Sequence[Any] = ()
    """``ToolInputGuardrail`` checks on each call's arguments, before the tool runs."""

    tool_output_guardrails: Sequence[Any] = ()
    """``ToolOutputGuardrail`` checks on each call's output, before the model sees it."""

    forwards_events: ClassVar[bool] = False
    """Its calls run a nested agent whose stream events reach the outer stream (agent
    tools): they run as tasks of their own, and a paused nested run pauses the outer one."""

    def nested_agent(self) -> Agent[Any] | None:
        """The agent each call runs as a nested run (agent tools; a paused one is rebuilt
        with it when a saved run state is loaded); None for every other tool."""
        return None

    runs_in_thread: bool = False
    """A sync function on a worker thread: a timeout or Stop cannot end it, only stop waiting
    (the model is told it may still finish)."""

    killable: bool = False
    """Runs in a child process that a timeout, Stop or interrupt kills."""

    # -- replaying -------------------------------------------------------------------------

    replay: ToolReplay | None = None
    """How a replayed run answers its calls: ``"run"`` (it runs again, like a cell),
    ``"recorded"`` (its recorded output, for a tool that acts on the outside world); None: as
    the run's cassette says (``Cassette.replay_tools``)."""
