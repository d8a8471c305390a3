"""``RunState``: a run paused for approvals, to decide on and resume, even in another process."""

from __future__ import annotations

import json
import threading
import uuid
from typing import TYPE_CHECKING, Any

from ._run.mcp_approvals import ledger_name
from ._run.progress import Paused, RunProgress
from ._run.state_schema import check_saved_state, damaged
from .approvals import ApprovalDecision, ApprovalLedger
from .context import RunContextWrapper
from .errors import UserError
from .items import (
    HandoffCallItem,
    MCPApprovalRequestItem,
    MCPApprovalResponseItem,
    MCPListToolsItem,
    MessageOutputItem,
    ReasoningItem,
    RunItem,
    ToolApprovalItem,
    ToolCallItem,
    ToolCallOutputItem,
    TResponseInputItem,
)
from .tools.kinds import ToolKind, kind_for_call
from .usage import InputTokensDetails, OutputTokensDetails, Usage

if TYPE_CHECKING:
    from ._run.loop import RunLoop
    from .agent import Agent

__all__ = ["STATE_FORMAT", "STATE_VERSION", "RunState"]

STATE_FORMAT = "jupyter_agents.run_state"
STATE_VERSION = 1
"""Bumped whenever the JSON layout changes; older readers refuse newer states."""

_STATUSES = ("ok", "error", "timeout", "rejected", "blocked", "cancelled")

_resumed_ids: set[str] = set()
"""Ids of the states this process resumed: resuming the same saved JSON twice is refused."""
_resumed_lock = threading.Lock()

_ITEM_TYPES: dict[str, type[Any]] = {
    cls.type: cls
    for cls in (
        HandoffCallItem,
        MessageOutputItem,
        ToolCallItem,
        ToolCallOutputItem,
        ReasoningItem,
        MCPListToolsItem,
        MCPApprovalRequestItem,
        MCPApprovalResponseItem,
    )
}


class RunState:
    """A paused run: its input, items, usage, the calls waiting for decisions, and decisions.

    Get one from ``result.to_state()``; call :meth:`approve` / :meth:`reject` for each item
    of :attr:`interruptions`; resume with ``Runner.run(agent, state)``. Undecided calls
    interrupt the resumed run again.
    """

    def __init__(self, progress: RunProgress, state_id: str | None = None) -> None:
        """Wrap a paused run's progress (get states from ``result.to_state()`` or
        :meth:`from_json`, not by hand)."""
        self.progress = progress
        """Everything the run had done when it paused: what is saved and resumed."""
        self.state_id = state_id or uuid.uuid4().hex
        """Identifies this pause; a state (or its JSON) resumes once per process."""
        self._resumed = False

    @classmethod
    def from_loop(cls, loop: RunLoop) -> RunState:
        """The state of a loop that paused (a snapshot, so the result stays as it was)."""
        return cls(loop.progress.snapshot())

    @property
    def current_agent(self) -> Agent[Any]:
        """The agent that was running."""
        return self.progress.current_agent

    @property
    def original_input(self) -> str | list[TResponseInputItem]:
        """The run's input."""
        return self.progress.original_input

    @property
    def model_input(self) -> list[TResponseInputItem]:
        """What the next model call gets."""
        return self.progress.model_input

    @property
    def new_items(self) -> list[RunItem]:
        """The items the run produced before it paused."""
        return self.progress.new_items

    @property
    def context_wrapper(self) -> RunContextWrapper[Any]:
        """The context and usage so far."""
        return self.progress.context_wrapper

    @property
    def current_turn(self) -> int:
        """Turns taken."""
        return self.progress.current_turn

    @property
    def max_turns(self) -> int:
        """The run's turn limit (a resume may give another)."""
        return self.progress.max_turns

    @property
    def ledger(self) -> ApprovalLedger:
        """Decisions made and not used yet."""
        return self.progress.ledger

    @property
    def pending_calls(self) -> list[ToolCallItem]:
        """Calls that run (or are refused) once decided."""
        return self.progress.paused.calls

    @property
    def pending_mcp(self) -> list[MCPApprovalRequestItem]:
        """Hosted MCP approval requests waiting."""
        return self.progress.paused.mcp

    @property
    def pending_handoffs(self) -> list[HandoffCallItem]:
        """Handoffs performed once the calls are decided."""
        return self.progress.paused.handoffs

    @property
    def nested(self) -> dict[str, RunState]:
        """Paused runs of agent tools (``Agent.as_tool``), by the outer call id: their waiting
        calls are among :attr:`interruptions`, and decisions on them go to them."""
        return self.progress.paused.nested

    @property
    def _interruptions(self) -> list[ToolApprovalItem | MCPApprovalRequestItem]:
        return self.progress.paused.interruptions

    @property
    def interruptions(self) -> list[ToolApprovalItem | MCPApprovalRequestItem]:
        """The calls that paused the run (decided or not)."""
        return list(self._interruptions)

    @property
    def undecided(self) -> list[ToolApprovalItem | MCPApprovalRequestItem]:
        """The interruptions without a decision yet; they interrupt the resumed run again."""
        return [i for i in self._interruptions if i.call_id not in self._owner(i).ledger.calls]

    def get_interruptions(self) -> list[ToolApprovalItem | MCPApprovalRequestItem]:
        """The calls that paused the run (the SDK's name for :attr:`interruptions`)."""
        return self.interruptions

    def _owner(self, item: Any) -> RunState:
        """The state a waiting call belongs to: this one, or a paused agent tool's run."""
        for state in self.nested.values():
            if any(i is item for i in state.interruptions):
                return state._owner(item)
        return self

    def mark_resumed(self) -> None:
        """Record that a run resumed from this state; a second resume is refused, also of
        another copy loaded from the same JSON in this process."""
        with _resumed_lock:
            if self._resumed or self.state_id in _resumed_ids:
                raise UserError(
                    "This RunState was already resumed. Continue from the new result instead "
                    "(result.to_state()), so no approved call runs twice."
                )
            self._resumed = True
            _resumed_ids.add(self.state_id)

    def _pending(self, item: Any) -> ToolApprovalItem | MCPApprovalRequestItem | None:
        if any(i is item for i in self._interruptions):
            return item  # type: ignore[no-any-return]
        call_id = getattr(item, "call_id", item)
        return next((i for i in self._interruptions if i.call_id == call_id), None)

    def approve(
        self,
        item: ToolApprovalItem | MCPApprovalRequestItem | str,
        *,
        always: bool = False,
        arguments: dict[str, Any] | None = None,
    ) -> bool:
        """Approve a waiting call (the item or its call id).

        ``arguments`` replaces the model's arguments; they are checked against the tool's
        schema now, and invalid ones raise ``UserError``. Returns False, changing nothing, when
        the call is not waiting or was already decided.
        """
        pending = self._pending(item)
        if pending is None:
            return False
        if arguments is not None:
            self._owner(pending)._check_edit(pending, arguments)
        return self._record(pending, ApprovalDecision.approve(always=always, arguments=arguments))

    def reject(
        self,
        item: ToolApprovalItem | MCPApprovalRequestItem | str,
        *,
        always: bool = False,
        message: str | None = None,
    ) -> bool:
        """Reject a waiting call; ``message`` tells the model why. False if not waiting."""
        pending = self._pending(item)
        if pending is None:
            return False
        return self._record(pending, ApprovalDecision.reject(message=message, always=always))

    def _record(self, item: ToolApprovalItem | MCPApprovalRequestItem, d: ApprovalDecision) -> bool:
        name = ledger_name(item) if isinstance(item, MCPApprovalRequestItem) else item.tool_name
        ledger = self._owner(item).ledger
        return ledger.record(name, item.call_id, _raw_arguments(item), d)

    def _check_edit(self, item: Any, arguments: dict[str, Any]) -> None:
        if not isinstance(item, ToolApprovalItem):
            raise UserError("Arguments of hosted MCP calls cannot be edited.")
        tool = next((t for t in self.current_agent.tools if t.name == item.tool_name), None)
        validate = getattr(tool, "validate_arguments", None)
        problem = validate(arguments) if validate is not None else None
        if problem:
            raise UserError(f"Edited arguments refused: {problem}")

    # -- JSON ------------------------------------------------------------------------------

    def to_json(self) -> str:
        """The whole paused run as JSON text (the user context object is not included)."""
        usage = self.context_wrapper.usage
        data = {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "state_id": self.state_id,
            "current_agent": self.current_agent.name,
            "original_input": self.original_input,
            "model_input": self.model_input,
            "new_items": [_dump_item(i) for i in self.new_items],
            "usage": {
                "requests": usage.requests,
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "total_tokens": usage.total_tokens,
                "cached_tokens": usage.input_tokens_details.cached_tokens,
                "reasoning_tokens": usage.output_tokens_details.reasoning_tokens,
            },
            "current_turn": self.current_turn,
            "max_turns": self.max_turns,
            "ledger": self.ledger.to_json(),
            "pending_calls": [c.call_id for c in self.pending_calls],
            "pending_mcp": [r.call_id for r in self.pending_mcp],
            "pending_handoffs": [h.raw_item.call_id for h in self.pending_handoffs],
            "nested": {call_id: json.loads(st.to_json()) for call_id, st in self.nested.items()},
        }
        return json.dumps(data, default=str)

    @classmethod
    def from_json(cls, agent: Agent[Any], text: str, context: Any = None) -> RunState:
        """Rebuild a state saved by :meth:`to_json`; ``agent`` is the agent that was running."""
        data = check_saved_state(_load_checked(text))
        if data["current_agent"] != agent.name:
            raise UserError(
                f"This state was saved while agent {data['current_agent']!r} was running; "
                f"pass that agent to RunState.from_json, not {agent.name!r}."
            )
        items = [_load_item(raw, agent, n) for n, raw in enumerate(data["new_items"])]
        calls = {i.call_id: i for i in items if isinstance(i, ToolCallItem) and i.call_id}
        mcp = {i.call_id: i for i in items if isinstance(i, MCPApprovalRequestItem)}
        handoffs = {i.raw_item.call_id: i for i in items if isinstance(i, HandoffCallItem)}
        pending_calls = _pending(calls, data["pending_calls"], "pending_calls")
        pending_mcp = _pending(mcp, data["pending_mcp"], "pending_mcp")
        pending_handoffs = _pending(handoffs, data["pending_handoffs"], "pending_handoffs")
        nested = _load_nested(agent, data["nested"], pending_calls, context)
        interruptions: list[ToolApprovalItem | MCPApprovalRequestItem] = []
        for c in pending_calls:
            if c.call_id in nested:
                interruptions.extend(nested[c.call_id].interruptions)
            else:
                kind = _call_kind(c)
                parsed = kind.parse_call(c.raw_item)
                interruptions.append(
                    ToolApprovalItem(
                        agent=agent,
                        raw_item=c.raw_item,
                        tool_name=parsed.name,
                        arguments=kind.parsed_arguments(parsed.arguments),
                        call_item=c,
                    )
                )
        interruptions.extend(pending_mcp)
        u = data["usage"]
        usage = Usage(
            requests=u["requests"],
            input_tokens=u["input_tokens"],
            output_tokens=u["output_tokens"],
            total_tokens=u["total_tokens"],
            input_tokens_details=InputTokensDetails(u["cached_tokens"]),
            output_tokens_details=OutputTokensDetails(u["reasoning_tokens"]),
        )
        return cls(
            RunProgress(
                current_agent=agent,
                original_input=data["original_input"],
                model_input=data["model_input"],
                context_wrapper=RunContextWrapper(context=context, usage=usage),
                max_turns=data["max_turns"],
                new_items=items,
                current_turn=data["current_turn"],
                ledger=ApprovalLedger.from_json(data["ledger"]),
                paused=Paused(pending_calls, pending_mcp, pending_handoffs, interruptions, nested),
            ),
            state_id=data.get("state_id"),
        )

    def __repr__(self) -> str:
        waiting = ", ".join(f"{i.tool_name}({i.call_id})" for i in self.undecided)
        return (
            f"RunState(agent={self.current_agent.name!r}, turn={self.current_turn}, "
            f"waiting=[{waiting}])"
        )


def _load_nested(
    agent: Agent[Any], saved: dict[str, Any], pending_calls: list[ToolCallItem], context: Any
) -> dict[str, RunState]:
    """The paused runs of agent tools, rebuilt with the agents those tools run."""
    nested: dict[str, RunState] = {}
    for call_id, data in saved.items():
        call = next((c for c in pending_calls if c.call_id == call_id), None)
        if call is None:
            raise damaged(f"nested names call {call_id!r}, which is not a pending call")
        tool = next((t for t in agent.tools if getattr(t, "name", None) == call.tool_name), None)
        inner = getattr(tool, "agent", None)
        if inner is None:
            raise UserError(
                f"This state holds a paused run of agent tool {call.tool_name!r}, but agent "
                f"{agent.name!r} has no such agent tool now."
            )
        nested[call_id] = RunState.from_json(inner, json.dumps(data), context)
    return nested


def _pending(known: dict[Any, Any], ids: list[str], field: str) -> list[Any]:
    missing = [c for c in ids if c not in known]
    if missing:
        raise damaged(f"{field} names call {missing[0]!r}, which is not among new_items")
    found = [known[c] for c in ids]
    if field == "pending_calls" and not all(
        getattr(kind_for_call(c.raw_item.type), "executable", False) for c in found
    ):
        raise damaged(f"{field} names a call that no tool kind runs here")
    return found


def _call_kind(call: ToolCallItem) -> ToolKind:
    kind = kind_for_call(call.raw_item.type)
    if kind is None:
        raise damaged(f"no tool kind handles {call.raw_item.type!r} calls")
    return kind


def _raw_arguments(item: ToolApprovalItem | MCPApprovalRequestItem) -> str:
    """The arguments text a decision binds to, as the model sent it."""
    if isinstance(item, MCPApprovalRequestItem):
        return str(item.raw_item.arguments or "")
    kind = kind_for_call(item.raw_item.type)
    if kind is None:
        return str(getattr(item.raw_item, "arguments", "") or "")
    return kind.parse_call(item.raw_item).arguments


def _load_checked(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as e:
        raise UserError(f"This is not a saved RunState (invalid JSON: {e}).") from None
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise UserError("This is not a saved RunState (no 'format' marker).")
    version = data.get("version")
    if version != STATE_VERSION:
        raise UserError(
            f"This RunState was saved by an incompatible version of jupyter_agents (state "
            f"version {version}, this version reads {STATE_VERSION}). Resume it with the "
            "version that saved it."
        )
    return data


def _dump_item(item: RunItem) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "type": item.type,
        "agent": item.agent.name,
        "raw": item.to_input_item(),
    }
    if isinstance(item, ToolCallOutputItem):
        if item.approval is not None:
            entry["approved"] = item.approval.approved
        if item.status != "ok":
            entry["status"] = item.status
    return entry


def _load_item(entry: dict[str, Any], agent: Agent[Any], index: int) -> RunItem:
    from pydantic import ValidationError

    cls = _ITEM_TYPES.get(entry["type"])
    if cls is None:
        raise UserError(f"Unknown item type {entry['type']!r} in a saved RunState.")
    try:
        return _build_item(cls, entry, agent)
    except (ValidationError, KeyError, TypeError, AttributeError) as e:
        problem = str(e).splitlines()[0]
        raise damaged(f"new_items.{index} ({entry['type']}) is malformed ({problem})") from None


def _build_item(cls: type[Any], entry: dict[str, Any], agent: Agent[Any]) -> RunItem:
    from openai.types.responses import ResponseOutputItem
    from pydantic import TypeAdapter

    raw = entry["raw"]
    if cls in (ToolCallOutputItem, MCPApprovalResponseItem):
        if cls is ToolCallOutputItem:
            approved = entry.get("approved")
            approval = None if approved is None else ApprovalDecision(approved=bool(approved))
            if not isinstance(raw.get("call_id"), str):
                raise TypeError("a tool output needs a string call_id")
            status = entry.get("status", "ok")
            if status not in _STATUSES:
                raise TypeError(f"unknown status {status!r}")
            return ToolCallOutputItem(
                agent=agent,
                raw_item=raw,
                output=raw.get("output"),
                approval=approval,
                status=status,
            )
        return MCPApprovalResponseItem(agent=agent, raw_item=raw)
    parsed = TypeAdapter(ResponseOutputItem).validate_python(raw)
    if cls is HandoffCallItem and parsed.type != "function_call":
        raise TypeError("a handoff must be a function_call")
    item: RunItem = cls(agent=agent, raw_item=parsed)
    return item
