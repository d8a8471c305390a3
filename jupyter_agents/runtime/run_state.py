"""``RunState``: a run paused for approvals, to decide on and resume, even in another process."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any, Final

from ._run.mcp_approvals import ledger_name
from ._run.progress import RunProgress
from ._run.state_versions import SDK_SCHEMA_VERSION, STATE_FORMAT, STATE_VERSION
from .approval_ledger import ApprovalLedger
from .approvals import ApprovalDecision
from .context import RunContextWrapper
from .errors import BudgetExceeded, UserError
from .items import (
    HandoffCallItem,
    MCPApprovalRequestItem,
    RunItem,
    ToolApprovalItem,
    ToolCallItem,
    TResponseInputItem,
)
from .tools.lookup_names import call_lookup_name

if TYPE_CHECKING:
    from .agent import Agent

__all__ = [
    "CURRENT_SCHEMA_VERSION",
    "STATE_FORMAT",
    "STATE_VERSION",
    "ContextDeserializer",
    "ContextSerializer",
    "RunState",
]

ContextSerializer = Callable[[Any], Mapping[str, Any]]
"""Turns a run's context object into a JSON-compatible mapping (``to_json``)."""
ContextDeserializer = Callable[[Mapping[str, Any]], Any]
"""Rebuilds a run's context object from its saved mapping (``from_json``)."""

_resumed_ids: set[str] = set()
"""Ids of the states this process resumed: resuming the same saved JSON twice is refused."""
_resumed_lock = threading.Lock()


CURRENT_SCHEMA_VERSION: Final = SDK_SCHEMA_VERSION
"""The ``$schemaVersion`` ``to_json`` writes: the SDK's schema (states of its versions 1.0 to
1.21 load here, and states of this project's earlier format, ``STATE_FORMAT`` version
``STATE_VERSION``)."""


class RunState:
    """A paused run: its input, items, usage, the calls waiting for decisions, and decisions.

    Get one from ``result.to_state()``; call ``approve`` / ``reject`` for each item
    of ``interruptions``; resume with ``Runner.run(agent, state)``. Undecided calls
    interrupt the resumed run again.
    """

    def __init__(self, progress: RunProgress, state_id: str | None = None) -> None:
        """Wrap a paused run's progress (get states from ``result.to_state()`` or
        ``from_json``, not by hand)."""
        self.progress = progress
        """Everything the run had done when it paused: what is saved and resumed."""
        self.state_id = state_id or uuid.uuid4().hex
        """Identifies this pause; a state (or its JSON) resumes once per process."""
        self._resumed = False
        self._budget_stop: BudgetExceeded | None = None
        """The budget stop that made this state (in memory only): a nested run's stop
        stops the run calling it too."""

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
        calls are among ``interruptions``, and decisions on them go to them."""
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
        """The calls that paused the run (the SDK's name for ``interruptions``)."""
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
        always_approve: bool | None = None,
    ) -> bool:
        """Approve a waiting call (the item or its call id).

        ``arguments`` replaces the model's arguments; they are checked against the tool's
        schema now, and invalid ones raise ``UserError``. Returns False, changing nothing, when
        the call is not waiting or was already decided. ``always_approve`` is the SDK's
        spelling of ``always``.
        """
        if always_approve is not None:
            always = always_approve
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
        rejection_message: str | None = None,
        always_reject: bool | None = None,
    ) -> bool:
        """Reject a waiting call; ``message`` tells the model why. False if not waiting.

        ``always_reject`` is the SDK's spelling of ``always``. ``rejection_message`` (the SDK's
        argument) is all the model is told, as in the SDK; ``message`` is told after which
        call was rejected."""
        exact = rejection_message is not None  # the SDK's spelling: its words, verbatim
        if exact:
            message = rejection_message
        if always_reject is not None:
            always = always_reject
        pending = self._pending(item)
        if pending is None:
            return False
        decision = ApprovalDecision.reject(message=message, always=always, exact=exact)
        return self._record(pending, decision)

    def answer(self, item: ToolApprovalItem | str, answer: Any) -> bool:
        """Answer a waiting question (an ``ask_user`` call: the item or its call id). The
        answer is checked against the question now; one that does not fit raises
        ``UserError``. False, changing nothing, when the question is not waiting."""
        pending = self._pending(item)
        if not isinstance(pending, ToolApprovalItem):
            return False
        return self.approve(pending, arguments={**pending.arguments, "answer": answer})

    def skip(self, item: ToolApprovalItem | str, reason: str | None = None) -> bool:
        """Leave a waiting question unanswered (the model reads that it was skipped, and
        ``reason`` when given). False when the question is not waiting."""
        return self.reject(item, message=reason)

    def _record(self, item: ToolApprovalItem | MCPApprovalRequestItem, d: ApprovalDecision) -> bool:
        name = (
            ledger_name(item)
            if isinstance(item, MCPApprovalRequestItem)
            else call_lookup_name(item.raw_item, item.tool_name)  # ``namespace.name`` if any
        )
        from ._run.state_json import raw_arguments  # the saved-state code loads on first use

        ledger = self._owner(item).ledger
        return ledger.record(name, item.call_id, raw_arguments(item), d)

    def _check_edit(self, item: Any, arguments: dict[str, Any]) -> None:
        if not isinstance(item, ToolApprovalItem):
            raise UserError("Arguments of hosted MCP calls cannot be edited.")
        key = call_lookup_name(item.raw_item, item.tool_name)
        tool = next((t for t in self.current_agent.tools if t.lookup_name == key), None)
        problem = tool.validate_arguments(arguments) if tool is not None else None
        if problem:
            raise UserError(f"Edited arguments refused: {problem}")

    # -- JSON ------------------------------------------------------------------------------

    def to_string(
        self,
        *,
        context_serializer: ContextSerializer | None = None,
        strict_context: bool = False,
    ) -> str:
        """The whole paused run as JSON text (``to_json``'s dict, written out): what a file or
        a database keeps."""
        saved = self._saved(context_serializer, strict_context)
        return json.dumps(saved, default=str)

    @classmethod
    def from_string(
        cls,
        agent: Agent[Any],
        text: str,
        context: Any = None,
        *,
        context_override: Any = None,
        context_deserializer: ContextDeserializer | None = None,
        strict_context: bool = False,
    ) -> RunState:
        """Rebuild a state from ``to_string``'s text (see ``from_json``). The state returned
        may also be awaited (the SDK's ``from_string`` is a coroutine):
        ``await RunState.from_string(agent, text)``."""
        return cls.from_json(
            agent,
            text,
            context,
            context_override=context_override,
            context_deserializer=context_deserializer,
            strict_context=strict_context,
        )

    def to_json(
        self,
        *,
        context_serializer: ContextSerializer | None = None,
        strict_context: bool = False,
    ) -> dict[str, Any]:
        """The whole paused run as a JSON-compatible dict (``to_string`` gives it as text).

        The run's context object is saved only through ``context_serializer`` (a function
        from the context to a JSON-compatible mapping; ``from_json(context_deserializer=...)``
        rebuilds it): a context often holds clients or keys, and a saved state is a file.
        ``strict_context=True`` refuses to save a state whose context would be left out.
        """
        saved = self._saved(context_serializer, strict_context)
        # One round through JSON: the dict holds only JSON values (what is not JSON is text).
        result: dict[str, Any] = json.loads(json.dumps(saved, default=str))
        return result

    def _saved(
        self, context_serializer: ContextSerializer | None, strict_context: bool
    ) -> dict[str, Any]:
        from ._run.state_json import dump_document, dump_progress

        saved = dump_progress(self.progress, self.state_id)  # refuses unclear agents first
        context = self.context_wrapper.context
        payload: Mapping[str, Any] | None = None
        if context_serializer is not None and context is not None:
            try:
                payload = context_serializer(context)
            except Exception as e:
                raise UserError(
                    "Context serializer failed while serializing RunState context."
                ) from e
            if not isinstance(payload, Mapping):
                raise UserError("Context serializer must return a mapping.")
        elif strict_context and context is not None:
            raise UserError(
                "RunState serialization requires a context_serializer when strict_context "
                "is True: the context object is saved only through one."
            )
        kind = "none" if context is None else type(context).__name__
        saved_context = None if payload is None else dict(payload)
        return dump_document(saved, self.progress, saved_context, kind)

    @classmethod
    def from_json(
        cls,
        agent: Agent[Any],
        text: str | dict[str, Any],
        context: Any = None,
        *,
        context_override: Any = None,
        context_deserializer: ContextDeserializer | None = None,
        strict_context: bool = False,
    ) -> RunState:
        """Rebuild a state saved by ``to_json`` (the dict, or ``to_string``'s text); ``agent``
        is the agent the run started with, or the one that was running.

        The context is ``context_override`` (a mapping, or a ``RunContextWrapper`` whose
        context is taken) or ``context`` when given; else the saved context rebuilt by
        ``context_deserializer`` (or the saved mapping itself). ``strict_context=True``
        refuses a saved context without a deserializer. A saved state is untrusted input:
        loading one runs nothing, and a damaged or foreign one is a ``UserError`` that says
        what is wrong. The state returned may also be awaited, as the SDK's coroutine is:
        ``state = await RunState.from_json(agent, saved)``.
        """
        if isinstance(text, dict):
            text = json.dumps(text)
        if isinstance(context_override, RunContextWrapper):
            context = context_override.context
        elif context_override is not None:
            context = context_override
        loader = None
        if context is None:
            loader = _context_loader(context_deserializer, strict_context)
        from ._run.state_json import load_progress

        progress, state_id = load_progress(agent, text, context, loader)
        return cls(progress, state_id=state_id)

    def __await__(self) -> Generator[Any, None, RunState]:
        """Awaiting a state gives the state itself: code written for the SDK awaits
        ``from_json`` and ``from_string``."""
        yield from ()
        return self

    def __repr__(self) -> str:
        waiting = ", ".join(f"{i.tool_name}({i.call_id})" for i in self.undecided)
        return (
            f"RunState(agent={self.current_agent.name!r}, turn={self.current_turn}, "
            f"waiting=[{waiting}])"
        )


def _context_loader(
    deserializer: ContextDeserializer | None, strict: bool
) -> Callable[[dict[str, Any]], Any]:
    """How a saved context becomes the resumed run's context."""

    def load(saved: dict[str, Any]) -> Any:
        if deserializer is None:
            if strict:
                raise UserError(
                    "This RunState holds a serialized context; pass context_deserializer "
                    "(or context_override) to RunState.from_json when strict_context is True."
                )
            return saved
        try:
            return deserializer(saved)
        except Exception as e:
            raise UserError("Context deserializer failed while rebuilding RunState context.") from e

    return load
