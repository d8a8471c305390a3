"""``Decisions``: a ``RunView``'s approvals and clicks, a component the view owns.

Approval requests become approval cards; frontend messages (hello, decision, stop) become
decisions on them. The component is handed exactly what it touches: the view's state and lock,
the pacer (to run work on the run's loop), the widget (to answer), the call timer, and two
callbacks into the view (Stop, a notice).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, cast

from ...runtime.approvals import ApprovalDecision, ApprovalInbox, ApprovalRequest
from ...runtime.questions import Question, answer_text
from ...runtime.sandbox.verdict import asks_to_leave
from ...runtime.tools.ask_user import question_of
from ...runtime.tools.display import ToolDisplay
from ..cells.standing import StandingApprovals
from .display_text import clip, compact_json
from .view_state import ViewState
from .widget import RunWidget, SyncPacer
from .widget_state import Approval, QuestionState, ToolBlock

__all__ = ["CallTimer", "Decisions", "recorded_approval"]

logger = logging.getLogger("jupyter_agents.notebook.view.run_view")


class CallTimer:
    """When each card's call started, for its duration.

    Function calls start once the response that asked for them is complete; an approved call
    starts when it is approved, a rejected one never runs (no duration).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        """Create a timer reading ``clock`` (monotonic seconds)."""
        self._clock = clock
        self._started: dict[str, float] = {}
        self._unstarted: list[str] = []

    def pending(self, key: str) -> None:
        """Card ``key``'s call starts when the current response completes (or now, if never)."""
        self._started[key] = self._clock()
        self._unstarted.append(key)

    def response_completed(self) -> None:
        """The calls of the response that just completed start now."""
        now = self._clock()
        for key in self._unstarted:
            self._started[key] = now
        self._unstarted.clear()

    def start(self, key: str) -> None:
        """Card ``key``'s call starts now."""
        self._started[key] = self._clock()

    def drop(self, key: str) -> None:
        """Card ``key``'s call will not run."""
        self._started.pop(key, None)

    def elapsed_ms(self, key: str) -> int | None:
        """Milliseconds since card ``key``'s call started (and forget it); None if unknown."""
        started = self._started.pop(key, None)
        return None if started is None else round((self._clock() - started) * 1000)


class Decisions:
    """Approval requests and frontend messages of one view; the state lives in the view.

    Attributes:
        inbox: The run's approval handler: a waiting request becomes an approval card.
        rendered: Set once a frontend view rendered and said hello (the kernel answered).
    """

    def __init__(
        self,
        *,
        state: ViewState,
        lock: threading.RLock,
        pacer: SyncPacer,
        widget: RunWidget,
        timer: CallTimer,
        max_args_chars: int,
        stop: Callable[[], None],
        notice: Callable[[str, str], None],
        standing: StandingApprovals | None = None,
        redraw: Callable[[ToolBlock, Any], None] | None = None,
    ) -> None:
        """Create the component.

        Args:
            state: The view's state (cards, header, texts).
            lock: The view's state lock.
            pacer: The view's sync pacer (work from messages runs on its loop).
            widget: The widget to answer.
            timer: The view's call timer.
            max_args_chars: Arguments kept on a card.
            stop: Called (on the run's loop) when Stop is clicked.
            notice: ``(text, level)``: adds a line to the view.
            standing: The notebook's "always for this notebook" decisions: a request they
                cover is decided at once; a card offers to add one.
            redraw: ``(card, call_item)``: shows the call on its card as it is described
                when it asks, before the card takes a decision.
        """
        self._state, self._lock, self._pacer, self._widget = state, lock, pacer, widget
        self._timer, self._max_args_chars = timer, max_args_chars
        self._stop_clicked, self._notice = stop, notice
        self._standing = standing
        self._redraw = redraw
        self._requests: dict[str, tuple[ApprovalRequest, str]] = {}
        """Waiting requests by request id, with the id of the card that shows them."""
        self.rendered = threading.Event()
        self.inbox = ApprovalInbox(on_request=self.on_request)

    def decide(
        self, request_id: str, decision: ApprovalDecision, *, notebook: bool = False
    ) -> bool:
        """Decide a waiting request (its ``request_id``; a call id works when only one waiting
        request has it) and show it on its card; False if nothing waited. ``notebook``: the
        decision stands for this notebook (made now, or made earlier and applied)."""
        with self._lock:
            entry = self._requests.get(request_id) or next(
                (e for e in self._requests.values() if e[0].call_id == request_id), None
            )
            if entry is None or not self.inbox.decide(entry[0].request_id, decision):
                return False
            request, key = entry
            self._requests.pop(request.request_id, None)
            card = self._state.card_by_id(key)
            if card is None:
                return True
            card["approval"] = {
                "state": "approved" if decision.approved else "rejected",
                "always": decision.always,
                "message": decision.message,
                "edited": decision.arguments is not None,
            }
            if notebook:
                card["approval"]["scope"] = "notebook"
            if request.question is not None:
                _ask_on(card["approval"], request.question, decision)
            if decision.approved:
                card["status"] = "running"
                self._timer.start(key)
            else:
                card["status"] = "rejected"
                self._timer.drop(key)
            header = self._state.header
            if header["status"] == "waiting" and not self._requests:
                header["status"] = "running"
            self._state.changed(card)
            return True

    def forget(self) -> None:
        """Drop the waiting requests (the run ended)."""
        self._requests.clear()

    def on_request(self, request: ApprovalRequest) -> None:
        """Show ``request`` as an approval card (the inbox calls this)."""
        with self._lock:
            self._pacer.capture_loop()
            card = self._state.card(request.call_item, request.call_id, request.tool_name)
            if self._redraw is not None and request.call_item is not None:
                self._redraw(card, request.call_item)  # what the decision will be about
            self._requests[request.request_id] = (request, card["id"])
            if not card.get("args"):
                card["args"], card["args_cut"] = clip(
                    compact_json(request.arguments), self._max_args_chars
                )
            standing = self._standing_decision(request)
            if standing is not None:  # "always for this notebook": decided without asking
                self.decide(request.request_id, standing, notebook=True)
                return
            attempt = card.get("approval", {}).get("attempt", 0) + 1
            approval: Approval = {
                "state": "pending",
                "request": request.request_id,
                "attempt": attempt,
                "interactive": True,
                "arguments": json.dumps(request.arguments, ensure_ascii=False, default=str),
                "schema": request.json_schema,
                "error": request.error,
            }
            if asks_to_leave(request.arguments):
                card["badge"] = "escalated"  # asks to run outside the sandbox: say why
                why = str(request.arguments.get("justification") or "no reason given")
                card["escalation"] = clip(why, self._max_args_chars)[0]
            if request.question is not None:
                _ask_on(approval, request.question, None)
            if request.plan_review:
                approval["plan"] = True  # Approve plan / Edit plan / Reject (ends the run)
            if not request.allows_always:
                approval["once"] = True  # the widget offers no "always" for this call
            elif self._standing is not None:
                approval["notebook"] = True  # ... and offers "always for this notebook"
            elif _shows_its_call(card):  # a command, a patch or code waiting: the policy asks
                card["badge"] = "asks"
            card["approval"] = approval
            card["status"] = "waiting"
            if self._state.header["status"] == "running":
                self._state.header["status"] = "waiting"
            self._state.changed(card)

    def on_message(self, content: Mapping[str, Any]) -> None:
        """Handle a frontend message (any thread): hand it to the run's loop."""
        handlers = {"hello": self._hello, "decision": self._decision, "stop": self._stop}
        handler = handlers.get(str(content.get("type")))
        if handler is None:
            return

        def work() -> None:
            try:
                handler(content)
            except Exception as e:  # never print from a handler: the text would not reach the cell
                logger.debug("RunView could not handle %r", content, exc_info=True)
                self._notice(f"could not handle a click: {e!r}", "error")

        self._pacer.call_on_loop(work)

    def _hello(self, _content: Mapping[str, Any]) -> None:
        self.rendered.set()
        self._widget.reply({"type": "alive"})
        with self._lock:
            if not self._state.final:
                self._state.take_text_messages()  # what is pending goes out whole below
                for message in self._state.all_text_messages():
                    self._widget.reply(message)

    def _stop(self, _content: Mapping[str, Any]) -> None:
        self._stop_clicked()

    def _decision(self, content: Mapping[str, Any]) -> None:
        request_id, key = content.get("request"), content.get("id")
        entry = self._requests.get(request_id) if isinstance(request_id, str) else None
        if entry is None or entry[1] != key:
            return  # stale, repeated, unknown or not this card's: the state says what happened
        request = entry[0]
        always = content.get("always") is True and request.allows_always
        notebook = always and content.get("scope") == "notebook" and self._standing is not None
        if notebook and self._standing is not None:
            self._standing.remember(request.tool_name, content.get("approved") is True)
        if content.get("approved") is not True:
            message = content.get("message")
            message = message.strip()[:2000] if isinstance(message, str) else None
            rejection = ApprovalDecision.reject(message or None, always=always)
            self.decide(request.request_id, rejection, notebook=notebook)
            return
        arguments = content.get("arguments")
        if request.question is not None:  # answered: the answer joins the request's arguments
            if "answer" not in content:
                self._refuse_edit(entry[1], "Type an answer, or Skip.")
                return
            arguments = {**request.arguments, "answer": content["answer"]}
        if arguments is not None:
            try:
                problem = (
                    request.validate(arguments)
                    if isinstance(arguments, dict)
                    else "the edited arguments must be a JSON object"
                )
            except Exception as e:
                problem = f"{type(e).__name__}: {e}"
            if problem is not None:
                self._refuse_edit(entry[1], problem)
                return
        decision = ApprovalDecision.approve(always=always, arguments=arguments)
        self.decide(request.request_id, decision, notebook=notebook)

    def _standing_decision(self, request: ApprovalRequest) -> ApprovalDecision | None:
        """The notebook's standing decision on ``request``'s tool, if one covers it."""
        if self._standing is None or not request.allows_always:
            return None
        approved = self._standing.get(request.tool_name)
        if approved is None:
            return None
        if approved:
            return ApprovalDecision.approve(always=True)
        return ApprovalDecision.reject("rejected: always for this notebook", always=True)

    def _refuse_edit(self, key: str, problem: str) -> None:
        with self._lock:
            card = self._state.card_by_id(key)
            if card is not None and "approval" in card:
                card["approval"]["error"] = problem
                self._state.changed(card)
        self._widget.reply({"type": "decision_error", "id": key, "error": problem})


def recorded_approval(decision: ApprovalDecision, display: ToolDisplay | None) -> Approval:
    """A card's approval from the decision a call's output carries (a run that did not ask
    the view: a handler decided, or the decision was recorded and is replayed); for a
    question (an ``ask_user`` call, its card says so) as a decided question reads."""
    approval: Approval = {
        "state": "approved" if decision.approved else "rejected",
        "always": decision.always,
        "message": decision.message,
    }
    arguments = display.arguments if display is not None else None
    if display is not None and display.badge == "question" and isinstance(arguments, dict):
        question = question_of(arguments)
        if isinstance(question, Question):
            approval["edited"] = decision.arguments is not None
            _ask_on(approval, question, decision)
    return approval


def _ask_on(approval: Approval, question: Question, decision: ApprovalDecision | None) -> None:
    """Put the question on a card's approval (cut to what a card shows) and, once it is
    answered, the answer."""
    asked = question.to_dict()
    asked["text"] = clip(asked["text"], 2_000)[0]
    approval["question"] = cast(QuestionState, asked)
    if decision is not None and decision.approved and decision.arguments is not None:
        approval["answer"] = clip(answer_text(decision.arguments.get("answer")), 2_000)[0]


def _shows_its_call(card: ToolBlock) -> bool:
    """Whether the card shows what its call does (a terminal, or parts showing the call)."""
    return card.get("live") == "terminal" or any(
        p.get("role") == "call" for p in card.get("parts", [])
    )
