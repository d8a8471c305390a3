"""Approvals and clicks of a ``RunView``: requests become approval cards, frontend messages
(hello, decision, stop) become decisions. A mixin of :class:`~jupyter_agents.notebook.view.RunView`,
split out to keep each file readable."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..runtime.approvals import ApprovalDecision, ApprovalInbox, ApprovalRequest
from .display_text import clip, compact_json

if TYPE_CHECKING:
    from .view_state import ViewState
    from .widget import RunWidget, SyncPacer

__all__ = ["Decisions"]

logger = logging.getLogger("jupyter_agents.notebook.view")


class Decisions:
    """Approval requests and frontend messages; the state lives in the ``RunView``."""

    _lock: threading.RLock
    _state: ViewState
    _pacer: SyncPacer
    _header: dict[str, Any]
    _requests: dict[str, tuple[ApprovalRequest, str]]
    _started: dict[str, float]
    _clock: Callable[[], float]
    _finished: bool
    widget: RunWidget
    inbox: ApprovalInbox
    rendered: threading.Event
    on_stop: Callable[[], None] | None
    max_args_chars: int
    add_notice: Callable[..., None]

    def decide(self, request_id: str, decision: ApprovalDecision) -> bool:
        """Decide a waiting request (its ``request_id``; a call id works when only one waiting
        request has it) and show it on its card; False if nothing was waiting."""
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
            if decision.approved:
                card["status"] = "running"
                self._started[key] = self._clock()
            else:
                card["status"] = "rejected"
                self._started.pop(key, None)  # it never runs: no duration
            if self._header["status"] == "waiting" and not self._requests:
                self._header["status"] = "running"
            self._state.changed(card)
            return True

    # -- approvals and messages ----------------------------------------------------------

    def _on_request(self, request: ApprovalRequest) -> None:
        with self._lock:
            self._pacer.capture_loop()
            card = self._state.card(request.call_item, request.call_id, request.tool_name)
            self._requests[request.request_id] = (request, card["id"])
            if not card.get("args"):
                card["args"], card["args_cut"] = clip(
                    compact_json(request.arguments), self.max_args_chars
                )
            attempt = (card.get("approval") or {}).get("attempt", 0) + 1
            card["approval"] = {
                "state": "pending",
                "request": request.request_id,
                "attempt": attempt,
                "interactive": True,
                "arguments": json.dumps(request.arguments, ensure_ascii=False, default=str),
                "schema": request.json_schema,
                "error": request.error,
            }
            if request.arguments.get("sandbox_permissions") == "require_escalated":
                card["badge"] = "escalated"  # asks to run outside the sandbox: say why
                why = str(request.arguments.get("justification") or "no reason given")
                card["escalation"] = clip(why, self.max_args_chars)[0]
            if not request.allows_always:
                card["approval"]["once"] = True  # the widget offers no "always" for this call
            elif card.get("terminal") or card.get("diff"):  # a shell or a patch waiting
                card["badge"] = "asks"
            card["status"] = "waiting"
            if self._header["status"] == "running":
                self._header["status"] = "waiting"
            self._state.changed(card)

    def _on_message(self, content: dict[str, Any]) -> None:
        """Handle a frontend message (any thread): hand it to the run's loop."""
        handlers = {"hello": self._hello, "decision": self._decision, "stop": self._stop}
        handler = handlers.get(content.get("type"))  # type: ignore[arg-type]
        if handler is None:
            return

        def work() -> None:
            try:
                handler(content)
            except Exception as e:  # never print from a handler: the text would not reach the cell
                logger.debug("RunView could not handle %r", content, exc_info=True)
                self.add_notice(f"could not handle a click: {e!r}", "error")

        self._pacer.call_on_loop(work)

    def _hello(self, _content: dict[str, Any]) -> None:
        self.rendered.set()
        self.widget.reply({"type": "alive"})
        with self._lock:
            if not self._state.final:
                self._state.take_text_messages()  # what is pending goes out whole below
                for message in self._state.all_text_messages():
                    self.widget.reply(message)

    def _stop(self, _content: dict[str, Any]) -> None:
        if self.on_stop is not None and not self._finished:
            self.on_stop()

    def _decision(self, content: dict[str, Any]) -> None:
        request_id, key = content.get("request"), content.get("id")
        entry = self._requests.get(request_id) if isinstance(request_id, str) else None
        if entry is None or entry[1] != key:
            return  # stale, repeated, unknown or not this card's: the state says what happened
        request = entry[0]
        always = content.get("always") is True and request.allows_always
        if content.get("approved") is not True:
            message = content.get("message")
            message = message.strip()[:2000] if isinstance(message, str) else None
            self.decide(request.request_id, ApprovalDecision.reject(message or None, always=always))
            return
        arguments = content.get("arguments")
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
        self.decide(request.request_id, decision)

    def _refuse_edit(self, key: str, problem: str) -> None:
        with self._lock:
            card = self._state.card_by_id(key)
            if card is not None and card.get("approval"):
                card["approval"]["error"] = problem
                self._state.changed(card)
        self.widget.reply({"type": "decision_error", "id": key, "error": problem})
