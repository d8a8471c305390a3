"""The kernel's list of ``%%agent`` runs, for views outside the cell (the lab extension's runs
panel, status bar and notifications).

Each run is a ``RunRecord``: plain facts (agent, model, status, elapsed time, tokens, cost,
tool calls, the plan's progress, the calls waiting for approval) that listeners receive as
JSON-ready dicts whenever they change. Decisions and Stop from outside the cell go through the
run's own view, so the cell's card and every other view see the same outcome, and a second or
stale decision does nothing.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .comm_names import ACTIVE, APPROVE_MODES, MODES, Mode

if TYPE_CHECKING:  # (the registry is made when the extension loads, before any run)
    from ..runtime.approvals import ApprovalRequest
    from ..runtime.tools.background import BackgroundCall
    from ..runtime.tools.plan import Plan
    from .runs_contract import PendingCall, PlanProgress, RunReport, ViewRef, Wait
    from .view.view_protocol import LiveView

__all__ = ["RunRecord", "RunRegistry"]

KEEP_FINISHED = 30
"""Finished runs kept in the list (the newest)."""

CUT_OFF = "cut off"
"""The status of a run a kernel restart or crash cut off (it can be resumed)."""

ARGUMENTS_PREVIEW = 200
"""Characters of a waiting call's arguments shown outside the cell."""

_ids = itertools.count(1)


@dataclass
class RunRecord:
    """One ``%%agent`` run, as views outside its cell see it."""

    run_id: str
    cell_id: str
    agent: str
    model: str
    started: float = field(default_factory=time.time)
    """Wall-clock start (seconds since the epoch)."""
    status: str = "running"
    ended: float | None = None
    tokens: int = 0
    cost: str | None = None
    """What the run cost so far, as shown (``"$0.0123"``, ``"price unknown"``)."""
    tool_calls: int = 0
    pending: dict[str, PendingCall] = field(default_factory=dict)
    """Waiting approval requests by request id: tool, call id and an arguments preview."""
    plan: Plan | None = None
    """The run's latest plan (``update_plan``), if it set one."""
    wait: Wait | None = None
    """What the run waits for, once it has waited a few seconds."""
    background: dict[str, str] = field(default_factory=dict)
    """Tool calls still running in the background after the run stopped waiting for them: the
    tool's name by call id (until each really ends)."""
    view: LiveView | None = field(default=None, repr=False)
    view_ref: ViewRef | None = None
    """Where the run's card is, for pages that did not start the run (null: no widget)."""
    resume: str | None = None
    """A run a crash cut off: the id ``%agent resume`` takes."""
    stop: Callable[[], None] | None = field(default=None, repr=False)

    def to_json(self) -> RunReport:
        """The record as a JSON-ready dict (what the frontend gets)."""
        report: RunReport = {
            "id": self.run_id,
            "cell": self.cell_id,
            "agent": self.agent,
            "model": self.model,
            "status": "waiting" if self.pending and self.status in ACTIVE else self.status,
            "started": self.started,
            "ended": self.ended,
            "tokens": self.tokens,
            "cost": self.cost,
            "tool_calls": self.tool_calls,
            "pending": list(self.pending.values()),
            "plan": None if self.plan is None else _progress(self.plan),
            "wait": self.wait,
            "background_calls": [{"call": c, "tool": t} for c, t in self.background.items()],
            "view": self.view_ref,
        }
        if self.resume is not None:
            report["resume"] = self.resume
        return report

    @property
    def live(self) -> bool:
        """Whether something of the run still goes on: the run, or a call it left running."""
        return self.status in ACTIVE or bool(self.background)


def _progress(plan: Plan) -> PlanProgress:
    """How far a plan is: completed steps, all steps, and the step in progress."""
    current = plan.current
    return {
        "completed": plan.completed,
        "total": len(plan.steps),
        "current": None if current is None else current.step,
    }


class RunRegistry:
    """The runs of one kernel; listeners hear of every change."""

    def __init__(self) -> None:
        self.default_approve = "ask"
        """How ``%%agent`` cells without ``--approve`` decide (a frontend's setting)."""
        self.grace = 5.0
        """Seconds a waiting call waits for a frontend to show its run (a frontend's setting)."""
        self.mode: Mode = "agent"
        self.guard: Callable[[str, Any], str | None] = lambda name, value: None
        """Why a frontend may not set a setting (the site's locks: ``NotebookHost.refusal``)."""
        """What ``%%agent`` runs without ``--mode`` may do (``%agent mode``, or a frontend)."""
        self.mode_listeners: list[Callable[[Mode], None]] = []
        """Told of every change of ``mode`` (the runs comm tells the frontends)."""
        self._runs: OrderedDict[str, RunRecord] = OrderedDict()
        self._listeners: list[Callable[[RunReport], None]] = []
        self._lock = threading.Lock()

    # -- listeners -----------------------------------------------------------------------

    def listen(self, listener: Callable[[RunReport], None]) -> Callable[[], None]:
        """Call ``listener(run_json)`` on every change; returns a function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def snapshot(self) -> list[RunReport]:
        """Every known run, oldest first."""
        with self._lock:
            return [r.to_json() for r in self._runs.values()]

    def _changed(self, record: RunRecord) -> None:
        data = record.to_json()
        for listener in list(self._listeners):
            listener(data)

    # -- what the cell driver reports ----------------------------------------------------

    def start(
        self, view: LiveView, cell_id: str, agent: str, model: str, client: str = ""
    ) -> RunRecord:
        """Record a new run shown by ``view``, started by kernel client ``client`` (the
        session id of the page that sent the cell: its cell shows the card already)."""
        record = RunRecord(f"run-{next(_ids)}", cell_id, agent, model, view=view)
        card = view.card_ref()
        if card is not None:
            record.view_ref = {"model": card[0], "display": card[1], "client": client}
        with self._lock:
            self._runs[record.run_id] = record
            finished = [k for k, r in self._runs.items() if not r.live]
            for key in finished[:-KEEP_FINISHED] if len(finished) > KEEP_FINISHED else []:
                del self._runs[key]
        self._changed(record)
        return record

    def cut_off(self, run_id: str, cell_id: str, agent: str, started: float) -> None:
        """List a run a kernel restart or crash cut off (journal run ``run_id``), which
        ``%agent resume`` continues; listed again, nothing changes."""
        key = f"cut-{run_id}"
        if key in self._runs:
            return
        record = RunRecord(key, cell_id, agent, "", started=started, status=CUT_OFF)
        record.ended, record.resume = started, run_id
        with self._lock:
            self._runs[key] = record
        self._changed(record)

    def resumed(self, run_id: str) -> None:
        """The cut-off run ``run_id`` was resumed (its new run is listed on its own)."""
        record = self._runs.get(f"cut-{run_id}")
        if record is not None and record.resume is not None:
            record.status, record.resume = "resumed", None
            self._changed(record)

    def update(self, record: RunRecord, **changes: Any) -> None:
        """Change some facts of ``record`` (status, tokens, cost, tool_calls, plan, stop)."""
        if all(getattr(record, k) == v for k, v in changes.items()):
            return
        for key, value in changes.items():
            setattr(record, key, value)
        if changes.get("status") not in (None, *ACTIVE):
            record.ended = time.time()
            record.pending.clear()
            record.wait = None
        self._changed(record)

    def waiting(self, record: RunRecord, request: ApprovalRequest, answer: Any) -> None:
        """``request`` waits for a decision until ``answer`` (a future) is done."""
        arguments = json.dumps(request.arguments, ensure_ascii=False)
        if len(arguments) > ARGUMENTS_PREVIEW:
            arguments = arguments[: ARGUMENTS_PREVIEW - 1] + "…"
        pending: PendingCall = {
            "request": request.request_id,
            "call": request.call_id,
            "tool": request.tool_name,
            "arguments": arguments,
        }
        if request.question is not None:  # answered in the cell's form; the panel can skip it
            pending["question"] = request.question.text[:200]
        if _approved_on_its_card(request):  # only the card shows what it would do
            pending["on_card"] = True
        if request.plan_review:  # the whole plan, and its editor, are on the card
            pending["on_card"] = pending["plan"] = True
        record.pending[request.request_id] = pending
        self._changed(record)

        def settled(_answer: Any) -> None:
            if record.pending.pop(request.request_id, None) is not None:
                self._changed(record)

        if hasattr(answer, "add_done_callback"):
            answer.add_done_callback(settled)

    def left_running(self, record: RunRecord, call: BackgroundCall) -> None:
        """``call`` goes on in the background until its function really ends."""
        record.background[call.call_id] = call.tool_name
        self._changed(record)

        def ended(_end: object) -> None:
            if record.background.pop(call.call_id, None) is not None:
                self._changed(record)

        call.when_done(ended)

    def live(self) -> bool:
        """Whether any run (or a call one left running) still goes on."""
        with self._lock:
            return any(r.live for r in self._runs.values())

    # -- what views outside the cell ask -------------------------------------------------

    def configure(self, approve: object, grace: object) -> bool:
        """Take a frontend's settings; False (nothing changed) when one is invalid."""
        if approve not in APPROVE_MODES or self.guard("approve", approve) is not None:
            return False
        if isinstance(grace, bool) or not isinstance(grace, (int, float)) or not 0 <= grace <= 600:
            return False
        self.default_approve, self.grace = str(approve), float(grace)
        return True

    def set_mode(self, mode: object) -> bool:
        """Take the notebook's mode (from ``%agent mode`` or a frontend); False when ``mode`` is
        not one."""
        if mode not in MODES or self.guard("mode", mode) is not None:
            return False
        self.mode = mode
        for listener in list(self.mode_listeners):
            listener(self.mode)
        return True

    def decide(self, run_id: str, request_id: str, approved: bool, message: str | None) -> bool:
        """Decide a waiting call of run ``run_id``; False when it no longer waits."""
        record = self._runs.get(run_id)
        if record is None or record.view is None or request_id not in record.pending:
            return False
        if approved and "question" in record.pending[request_id]:
            return False  # a question needs an answer: only its card's form gives one
        if approved and record.pending[request_id].get("on_card"):
            return False  # approved where it shows what it does: on its card, never from here
        from ..runtime.approvals import ApprovalDecision

        decision = (
            ApprovalDecision.approve() if approved else ApprovalDecision.reject(message or None)
        )
        return record.view.decide(request_id, decision)

    def stop(self, run_id: str) -> bool:
        """Stop run ``run_id``; False when it is not running."""
        record = self._runs.get(run_id)
        if record is None or record.status not in ACTIVE or record.stop is None:
            return False
        record.stop()
        return True

    def stop_all(self) -> int:
        """Stop every running run; how many were stopped."""
        return sum(self.stop(run_id) for run_id in list(self._runs))


def _approved_on_its_card(request: ApprovalRequest) -> bool:
    """Whether ``request``'s tool shows what a call does only on its card (the notebook's cell
    tools: the code that would run is read when the call asks, not in its arguments)."""
    tool = request.agent.tool_named(request.tool_name)
    return tool is not None and tool.approved_on_its_card
