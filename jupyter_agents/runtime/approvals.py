"""Human approval of tool calls.

A tool declares ``needs_approval`` (a bool, or a function deciding per call). When a call needs
approval, the run asks its approval handler and waits in place for the decision (live mode), or,
without a handler, pauses: the result carries ``interruptions`` and ``result.to_state()`` gives a
``RunState`` to decide on and resume from.

A call that needs approval never runs without an approve decision for that very call id.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import threading
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeAlias, Union

from ._threads import run_in_thread
from .errors import UserError

if TYPE_CHECKING:
    from .agent import Agent
    from .items import ToolCallItem
    from .questions import Question

__all__ = [
    "ApprovalDecision",
    "ApprovalHandler",
    "ApprovalInbox",
    "ApprovalRequest",
    "NeedsApproval",
    "OnLoop",
    "rejection_message",
]

approved_call: ContextVar[str | None] = ContextVar("approved_call", default=None)
"""The id of the call running now because a person approved it (tools that must not run a
call unapproved, such as a shell leaving its sandbox, check it)."""

_request_ids = itertools.count(1)

NeedsApproval: TypeAlias = Union[bool, Callable[[Any, dict[str, Any], str], Any]]
"""``True``/``False``, or a sync/async ``(run_context, arguments, call_id) -> bool``."""


@dataclass(frozen=True)
class ApprovalRequest:
    """A tool call waiting for a person's decision."""

    agent: Agent[Any]
    """The agent whose model asked for the call."""

    tool_name: str
    """The tool to run."""

    arguments: dict[str, Any]
    """The arguments the model sent, parsed."""

    call_id: str
    """The id of the call; a decision binds to it."""

    json_schema: dict[str, Any]
    """The tool's JSON schema, to show or to validate edited arguments against."""

    error: str | None = None
    """Why an earlier decision for this call was refused (invalid edited arguments)."""

    validator: Callable[[dict[str, Any]], str | None] | None = field(
        default=None, repr=False, compare=False
    )

    request_id: str = field(default_factory=lambda: f"approval-{next(_request_ids)}")
    """Unique per request in this process, even when a model repeats a call id: user
    interfaces deliver decisions with it (``ApprovalInbox.decide``)."""

    call_item: ToolCallItem | None = field(default=None, repr=False, compare=False)
    """The call this request is about (the same object the run emitted), when known."""

    allows_always: bool = True
    """Whether an "always" decision on this call stands for later calls of the tool. False for
    calls decided alone (leaving the sandbox, a dangerous command): their decision is used for
    this call only, whatever it says; user interfaces should not offer "always"."""

    question: Question | None = None
    """Set when the request asks the person a question (the ``ask_user`` tool, an MCP server's
    elicitation) rather than whether a call may run: decide it with ``answer`` or
    ``skip``; user interfaces show a form instead of Approve / Reject."""

    note: str | None = None
    """Why a person is asked beyond the tool's own rule, shown with the card: a call whose
    outcome is unknown after a crash (a resumed run)."""
    plan_review: bool = False
    """Set when the call is the plan of a run in ``plan`` mode: approving it (as sent, or with
    edited ``arguments``: the plan the model then gets) lets the run act, in ``agent`` mode;
    rejecting it ends the run with the reason. User interfaces show the plan with Approve /
    Edit / Reject; it is decided alone (no "always")."""

    def answer(self, value: Any) -> ApprovalDecision:
        """The decision that answers this request's question with ``value``."""
        return ApprovalDecision.approve(arguments={**self.arguments, "answer": value})

    def skip(self, reason: str | None = None) -> ApprovalDecision:
        """The decision that leaves this request's question unanswered."""
        return ApprovalDecision.reject(reason)

    def validate(self, arguments: dict[str, Any]) -> str | None:
        """Check edited arguments against the tool's schema: None if valid, else the problem."""
        return self.validator(arguments) if self.validator is not None else None


@dataclass(frozen=True)
class ApprovalDecision:
    """A decision on one tool call. Build it with ``approve`` or ``reject``."""

    approved: bool
    """Whether the call may run."""

    always: bool = False
    """Apply the same decision to later calls of this tool in this run (and resumed runs)."""

    arguments: dict[str, Any] | None = None
    """Edited arguments to run the call with instead of the model's (approve only)."""

    message: str | None = None
    """Why the call was rejected; the model sees it."""

    exact: bool = False
    """The model is told ``message`` alone, as the SDK's ``rejection_message`` does (else
    which call was rejected, then ``message`` as the reason)."""

    @classmethod
    def approve(
        cls, *, always: bool = False, arguments: dict[str, Any] | None = None
    ) -> ApprovalDecision:
        """Let the call run, optionally with edited ``arguments``."""
        if arguments is not None and not isinstance(arguments, dict):
            raise UserError("Edited arguments must be a dict of argument names to values.")
        _check_always(always)
        return cls(approved=True, always=always, arguments=arguments)

    @classmethod
    def reject(
        cls, message: str | None = None, *, always: bool = False, exact: bool = False
    ) -> ApprovalDecision:
        """Refuse the call; ``message`` tells the model why (``exact``: ``message`` is all
        the model is told)."""
        if message is not None and not isinstance(message, str):
            raise UserError("The rejection message must be a string.")
        _check_always(always)
        return cls(approved=False, always=always, message=message, exact=exact and bool(message))

    @classmethod
    def coerce(cls, value: Any) -> ApprovalDecision:
        """A decision from a handler's return value (``True``/``False`` are shorthand)."""
        if isinstance(value, ApprovalDecision):
            return value
        if isinstance(value, bool):
            return cls(approved=value)
        raise UserError(
            "An approval handler must return ApprovalDecision.approve(...), "
            f"ApprovalDecision.reject(...), True or False; got {value!r}."
        )


def _check_always(always: Any) -> None:
    if not isinstance(always, bool):
        raise UserError(f"always must be True or False, got {always!r}.")


class ApprovalHandler(Protocol):
    """Decides on tool calls while the run waits: sync or async, returning a decision or a bool.

    A handler may return None for a tool call: it leaves the call to a person later, and the
    call waits as it would without a handler (the run pauses with it in ``interruptions``).

    Sync handlers run on a worker thread (so one may block, e.g. on ``input()``); async handlers
    and handlers whose class says ``runs_on_loop = True`` (``ApprovalInbox``,
    ``OnLoop``) are called on the run's event loop.
    """

    def __call__(
        self, request: ApprovalRequest
    ) -> ApprovalDecision | bool | Awaitable[ApprovalDecision | bool | None] | None: ...


@dataclass(frozen=True)
class OnLoop:
    """An approval handler called on the run's event loop instead of a worker thread.

    For handlers that only register the request and return at once (a future, or a coroutine
    to await): ``OnLoop(register)``. Plain functions otherwise run on a worker thread so they may
    block; async functions always run on the loop.
    """

    handler: Callable[[ApprovalRequest], Any]
    runs_on_loop: ClassVar[bool] = True

    def __call__(self, request: ApprovalRequest) -> Any:
        return self.handler(request)


def rejection_message(tool_name: str, message: str | None) -> str:
    """What the model sees for a rejected call."""
    text = f"The user rejected this call to tool {tool_name!r}; it did not run."
    return f"{text} Reason: {message}" if message else text


def withdraw(answer: Any) -> None:
    """Drop a handler's answer that will never be awaited (the run stopped first)."""
    if isinstance(answer, asyncio.Future):
        answer.cancel()
    elif inspect.iscoroutine(answer):
        answer.close()


async def settle(answer: Any) -> ApprovalDecision:
    """The decision a handler returned, awaiting it when the handler is async."""
    if inspect.isawaitable(answer):
        answer = await answer
    return ApprovalDecision.coerce(answer)


def call_handler(handler: ApprovalHandler, request: ApprovalRequest) -> Any:
    """Ask ``handler``; plain functions go to a worker thread so they may block."""
    if (
        getattr(type(handler), "runs_on_loop", False) is True
        or inspect.iscoroutinefunction(handler)
        or inspect.iscoroutinefunction(type(handler).__call__)
    ):
        return handler(request)
    return run_in_thread(handler, request)


class ApprovalInbox:
    """An approval handler that waits for decisions delivered from elsewhere.

    User interfaces use it: the run awaits ``__call__``; a button click (on any thread)
    calls ``decide`` with the request's ``request_id``. Decisions for requests that are not
    waiting (stale, repeated or unknown ids) are ignored and ``decide`` returns False.
    """

    def __init__(self, on_request: Callable[[ApprovalRequest], Any] | None = None) -> None:
        """Create an inbox.

        Args:
            on_request: Called (synchronously, on the run's loop) when a request starts
                waiting, e.g. to draw Approve / Reject buttons.
        """
        self._on_request = on_request
        self._waiting: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = {}
        self._requests: dict[str, ApprovalRequest] = {}
        self._lock = threading.Lock()

    runs_on_loop = True
    """Called on the run's event loop (it only registers the request); see ``ApprovalHandler``."""

    @property
    def pending(self) -> list[ApprovalRequest]:
        """Requests waiting for a decision, oldest first."""
        with self._lock:
            return [
                request
                for key, request in self._requests.items()
                if not self._waiting[key][1].done()
            ]

    def __call__(self, request: ApprovalRequest) -> asyncio.Future[Any]:
        """Register ``request`` at once (so a decision can arrive right away).

        Returns a future for the decision; cancelling it withdraws the request.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        key = request.request_id
        with self._lock:
            self._waiting[key] = (loop, future)
            self._requests[key] = request

        def forget(done: asyncio.Future[Any]) -> None:
            with self._lock:
                if self._waiting.get(key, (None, None))[1] is done:
                    del self._waiting[key]
                    del self._requests[key]

        future.add_done_callback(forget)
        if self._on_request is not None:
            self._on_request(request)
        return future

    def decide(self, request_id: str, decision: ApprovalDecision | bool) -> bool:
        """Deliver a decision for the request ``request_id``; True if it was waiting.

        A call id is accepted too when exactly one waiting request has it. Safe from any
        thread.
        """
        decision = ApprovalDecision.coerce(decision)
        with self._lock:
            key = self._key(request_id)
            entry = self._waiting.pop(key, None) if key is not None else None
            if key is not None:
                self._requests.pop(key, None)
        if entry is None or entry[1].done():
            return False
        loop, future = entry

        def resolve() -> None:
            if not future.done():
                future.set_result(decision)

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            resolve()
        else:
            loop.call_soon_threadsafe(resolve)
        return True

    def _key(self, id_: str) -> str | None:
        if id_ in self._waiting:
            return id_
        matches = [k for k, r in self._requests.items() if r.call_id == id_]
        return matches[0] if len(matches) == 1 else None
