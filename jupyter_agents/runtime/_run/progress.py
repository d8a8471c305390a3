"""A run's progress as one value, and the typed results of a turn.

``RunProgress`` is everything a run has done that a later resume needs; the loop works on
one, ``RunState`` serialises one. A turn is planned as a
``TurnPlan`` and ends in one ``NextStep``.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from ..approval_ledger import ApprovalLedger
from ..modes import RunMode
from .spend import Spend

if TYPE_CHECKING:
    from ..agent import Agent
    from ..compaction import Compacted
    from ..context import RunContextWrapper
    from ..items import (
        HandoffCallItem,
        MCPApprovalRequestItem,
        MessageOutputItem,
        ModelResponse,
        RunItem,
        ToolApprovalItem,
        ToolCallItem,
        TResponseInputItem,
    )
    from ..model_wait import ModelWait
    from ..run_state import RunState
    from ..tracing import Trace, TraceState

__all__ = [
    "FinalOutput",
    "HandedOff",
    "Interrupted",
    "NextStep",
    "Paused",
    "RunAgain",
    "RunProgress",
    "TurnPlan",
]


@dataclass
class Paused:
    """The calls of the last turn that wait for decisions, and what waits with them."""

    calls: list[ToolCallItem] = field(default_factory=list)
    """Function (or other local) calls to run once decided."""

    mcp: list[MCPApprovalRequestItem] = field(default_factory=list)
    """Hosted MCP approval requests to answer."""

    handoffs: list[HandoffCallItem] = field(default_factory=list)
    """Handoffs of the same turn, performed once the calls are decided."""

    interruptions: list[ToolApprovalItem | MCPApprovalRequestItem] = field(default_factory=list)
    """What a person must decide (nested agent-tool calls included)."""

    nested: dict[str, RunState] = field(default_factory=dict)
    """Paused runs of agent tools, by the outer call id."""

    escalations: dict[str, str] = field(default_factory=dict)
    """Calls the sandbox stopped that wait to be let out of it: their escalated arguments (as
    the person is shown them), by call id."""

    def __bool__(self) -> bool:
        return bool(self.calls or self.mcp)

    def copy(self) -> Paused:
        """A copy whose lists can change independently."""
        return Paused(
            list(self.calls),
            list(self.mcp),
            list(self.handoffs),
            list(self.interruptions),
            dict(self.nested),
            dict(self.escalations),
        )


@dataclass
class RunProgress:
    """Everything a run has done so far that a resume needs."""

    current_agent: Agent[Any]
    """The agent whose turn it is."""

    original_input: str | list[TResponseInputItem]
    """The run's input (after a session's history was put in front)."""

    model_input: list[TResponseInputItem]
    """What the next model call gets."""

    context_wrapper: RunContextWrapper[Any]
    """The user's context and the usage so far."""

    max_turns: int
    """Turn limit."""

    new_items: list[RunItem] = field(default_factory=list)
    """Items the run produced, in order."""

    current_turn: int = 0
    """Turns (model calls) taken."""

    ledger: ApprovalLedger = field(default_factory=ApprovalLedger)
    """Approval decisions not used yet, and standing ("always") ones."""

    paused: Paused = field(default_factory=Paused)
    """Calls waiting for decisions (empty unless the run paused)."""

    history_length: int = 0
    """Items of ``original_input`` that came from the session's history (the rest is the run's
    own input, which the session saves when the run finishes)."""

    spend: Spend = field(default_factory=Spend)
    """The model calls made so far and their usage, per model (what the run cost)."""

    mode: RunMode = field(default_factory=RunMode)
    """The mode the run is in now (``RunConfig.mode`` at the start; see ``runtime/modes.py``)."""

    compactions: list[Compacted] = field(default_factory=list)
    """Each compaction of the conversation the run sent (``RunConfig.compaction``)."""
    model_responses: list[ModelResponse] = field(default_factory=list)
    """The model's responses so far, in order (a result's ``raw_responses``; a resumed run's
    start with the ones before the pause, as in the SDK)."""
    starting_agent: Agent[Any] | None = field(default=None, repr=False, compare=False)
    """The agent the run started with (a saved state names its running agent in this
    agent's graph of handoffs)."""
    model_wait: ModelWait | None = field(default=None, repr=False, compare=False)
    """The model call the run waits for now (sent, nothing back yet); None otherwise. Live
    state for views, never part of a snapshot."""
    trace: Trace | TraceState | None = field(default=None, repr=False, compare=False)
    """The run's trace, which a resumed run continues (``_run/run_trace.py``): the trace
    itself, or the state of one a saved ``RunState`` held."""

    def snapshot(self) -> RunProgress:
        """A copy that later changes to this one do not reach (items are shared: immutable)."""
        return RunProgress(
            current_agent=self.current_agent,
            original_input=copy.deepcopy(self.original_input),
            model_input=list(self.model_input),
            context_wrapper=self.context_wrapper,
            max_turns=self.max_turns,
            new_items=list(self.new_items),
            current_turn=self.current_turn,
            ledger=ApprovalLedger.from_json(self.ledger.to_json()),
            paused=self.paused.copy(),
            history_length=self.history_length,
            spend=self.spend.copy(),
            mode=dataclasses.replace(self.mode),
            compactions=list(self.compactions),
            model_responses=list(self.model_responses),
            starting_agent=self.starting_agent,
            trace=self.trace,
        )


@dataclass(slots=True)  # not frozen: built every turn, and frozen init costs twice as much
class TurnPlan:
    """What one model response asks for, sorted by what happens next."""

    messages: list[MessageOutputItem]
    calls: list[ToolCallItem]
    """Calls run here (every executable tool kind)."""
    handoffs: list[HandoffCallItem]
    mcp_requests: list[MCPApprovalRequestItem]
    hosted_activity: bool
    """The provider ran tools (hosted calls, MCP listings) in this response."""
    turn_start: int
    """Index in ``new_items`` of the turn's first item."""
    resumed: bool = False
    """The calls of a paused turn, decided: the turn's other calls ran before it paused."""


@dataclass(frozen=True)
class FinalOutput:
    """The run is over with ``output``."""

    output: Any


@dataclass(frozen=True)
class HandedOff:
    """``agent`` takes over; the run goes on."""

    agent: Agent[Any]


@dataclass(frozen=True)
class RunAgain:
    """Call the model again (tool outputs to read, or hosted work to continue)."""


@dataclass(frozen=True)
class Interrupted:
    """The run pauses: calls wait for decisions."""

    paused: Paused


NextStep = Union[FinalOutput, HandedOff, RunAgain, Interrupted]
"""How a turn ends."""
