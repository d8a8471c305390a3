"""``RunView``: turns the stream events of a run into widget state, and clicks into decisions.

State changes are cheap dict edits; the widget is synced at most once per ``flush_interval``
(the first change after a quiet spell goes out at once, later ones wait for the interval), and
exactly once more in ``RunView.finish``. The state's types are in
``jupyter_agents.notebook.view.widget_state``; the message contract is in
``jupyter_agents.notebook.view.widget``. A tool card shows what its kind's ``describe`` returns
(``ToolDisplay``): its parts as they are (``.card_parts``), its badge, origin and live output.
Approvals and clicks are a component the view owns (``Decisions``).

Threads: the run calls the view on its event loop; tools may print from worker threads; widget
messages may arrive on a kernel subshell thread. Every state edit holds one lock, and message
handlers only hand their work to the run's loop (``call_soon_threadsafe``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, cast

from ...runtime.approvals import ApprovalDecision
from ...runtime.mcp.untrusted import printable
from ...runtime.modes import Mode
from ...runtime.sandbox.verdict import asks_to_leave
from ...runtime.tools.background import BackgroundCall, BackgroundEnd
from ...runtime.tools.display import DisplayPart, ToolDisplay
from ...runtime.tools.kinds import describe_call, kind_for_call
from ...runtime.usage import Usage
from ..cells.standing import StandingApprovals
from ..saved import run_document, transcript
from .card_parts import CALL_CHARS, CARD_STATUS, card_parts, raw_output_parts
from .display_text import clip, compact_json, message_text
from .view_background import mark_ended, mark_running
from .view_decisions import CallTimer, Decisions, recorded_approval
from .view_plan import show_plan
from .view_state import ViewState
from .waiting import set_header_wait
from .widget import RunWidget, SyncPacer
from .widget_state import (
    STATE_VERSION,
    ContextUse,
    Header,
    Part,
    Progress,
    RunStatus,
    Tokens,
    ToolBlock,
    Wait,
)

__all__ = ["RunView"]

logger = logging.getLogger(__name__)


class RunView:
    """The live view of one run: a widget, an approval inbox, and the adapter between them.

    Attributes:
        widget: The ``RunWidget`` to display.
        inbox: The run's approval handler; a waiting request turns its tool card into an
            approval card, and a click (or ``decide``) answers it.
        rendered: Set once a frontend view rendered and said hello (the kernel answered).
        on_stop: Called, on the run's loop, when Stop is clicked.
        syncs: How many state syncs were sent (one comm message each).
    """

    def __init__(
        self,
        *,
        agent: str,
        model: str,
        flush_interval: float = 0.08,
        max_output_chars: int = 4000,
        loop: asyncio.AbstractEventLoop | None = None,
        max_args_chars: int = 2000,
        clock: Callable[[], float] = time.monotonic,
        standing: StandingApprovals | None = None,
    ) -> None:
        """Create the view (not displayed yet).

        Args:
            agent: Name of the agent the run starts with.
            model: Model label for the header.
            flush_interval: Seconds between widget syncs while events stream in.
            max_output_chars: Tool output (and printed text) kept in the state.
            loop: The run's event loop; by default the loop running when the view is
                created or first fed an event.
            max_args_chars: Tool arguments (compact JSON) kept in the state.
            clock: Monotonic clock in seconds (durations and sync pacing); for tests.
            standing: The notebook's "always" decisions (None: the card offers none).
        """
        self.max_output_chars = max_output_chars
        self.max_args_chars = max_args_chars
        self._clock = clock
        self._lock = threading.RLock()
        self._pacer = SyncPacer(
            self._sync, interval=flush_interval, lock=self._lock, loop=loop, clock=clock
        )
        header: Header = {
            "v": STATE_VERSION,
            "agent": agent,
            "model": model,
            "status": "running",
            "detail": None,
            "started_at": int(time.time() * 1000),
            "ended_at": None,
            "tokens": None,
            "live": True,
        }
        self._state = ViewState(header, self._pacer.changed)
        self._header = header
        self._timer = CallTimer(clock)
        self._finished = False
        self._agent_seen = False
        self._handed_to: str | None = None
        self._handle: Any = None
        self.syncs = 0
        self.widget = RunWidget(header=dict(header), blocks=[])
        self.display_id = uuid.uuid4().hex
        """The card's display id: its update replaces the card with the finished run."""
        self.on_stop: Callable[[], None] | None = None
        self._decisions = Decisions(
            state=self._state,
            lock=self._lock,
            pacer=self._pacer,
            widget=self.widget,
            timer=self._timer,
            max_args_chars=max_args_chars,
            stop=self._stop_clicked,
            notice=self.add_notice,
            standing=standing,
            redraw=self._redraw,
        )
        self.inbox = self._decisions.inbox
        self.rendered = self._decisions.rendered
        self.widget.on_message(self._decisions.on_message)

    # -- public API ----------------------------------------------------------------------

    def display(self) -> None:
        """Show the widget in the current cell output (keeps the display handle)."""
        from IPython.display import display

        self._handle = display(self.widget, display_id=self.display_id)

    def card_ref(self) -> tuple[str, str]:
        """The card's widget model id and display id (for pages that did not start the run)."""
        return self.widget.model_id, self.display_id

    def on_event(self, event: Any) -> None:
        """Apply one stream event of the run (call them in order)."""
        with self._lock:
            self._pacer.capture_loop()
            try:
                self._apply(event)
            except Exception as e:  # a display problem must never break the run
                logger.debug("RunView could not apply %r", event, exc_info=True)
                self._state.add("notice", level="error", text=f"could not display an event: {e!r}")

    def set_status(self, status: RunStatus, detail: str | None = None) -> None:
        """Set the run status (running, waiting, done, failed, cancelled, background)."""
        with self._lock:
            self._header["status"], self._header["detail"] = status, detail
            self._state.changed()

    def set_wait(self, wait: Wait | None) -> None:
        """Show what the run waits for under the header (None: nothing, any more)."""
        with self._lock:
            if not self._finished and set_header_wait(self._header, wait):
                self._state.changed()

    def set_mode(self, mode: Mode) -> None:
        """Show the run's mode in the header."""
        with self._lock:
            if self._header.get("mode") != mode:
                self._header["mode"] = mode
                self._state.changed()

    def set_context(self, used: int, window: int | None) -> None:
        """Show how much of the model's context window the last request used."""
        with self._lock:
            shown: ContextUse = {"used": used, "window": window}
            if self._header.get("context") != shown:
                self._header["context"] = shown
                self._state.changed()

    def set_usage(self, usage: Usage, cost: str | None = None) -> None:
        """Show the run's token usage (and what it cost) in the header."""
        with self._lock:
            if set_header_usage(self._header, usage, cost):
                self._state.changed()

    def decide(self, request_id: str, decision: ApprovalDecision) -> bool:
        """Decide a waiting request (its ``request_id``; a call id works when only one waiting
        request has it) and show it on its card; False if nothing was waiting."""
        return self._decisions.decide(request_id, decision)

    def tool_progress(self, call_id: str, done: float, total: float | None, message: str) -> None:
        """Show how far a running call has got on its card, as a bar (any thread)."""
        said = printable(message, keep_newlines=False)[:200]
        shown: Progress = {"done": done, "total": total, "message": said}
        with self._lock:
            card = self._state.card(None, call_id)
            if card.get("progress") != shown:
                card["progress"] = shown
                self._state.changed(card)

    def tool_output_text(self, call_id: str, text: str) -> None:
        """Append what a running tool printed to its card (any thread)."""
        if not text:
            return
        with self._lock:
            card = self._state.card(None, call_id)
            printed = card.get("printed", "") + text
            excess = len(printed) - self.max_output_chars
            if excess > 0:
                printed = printed[excess:]
                card["printed_cut"] = card.get("printed_cut", 0) + excess
            card["printed"] = printed
            self._state.changed(card)

    def left_running(self, call: BackgroundCall) -> None:
        """A sync tool call the run stopped waiting for goes on, on its thread: its card says
        so until the call ends, then notes what it did (in the finished view too)."""
        with self._lock:
            card = self._state.card(None, call.call_id)
            mark_running(card, call)
            self._state.changed(card)
        call.when_done(lambda end: self._left_call_ended(call, end))

    def _left_call_ended(self, call: BackgroundCall, end: BackgroundEnd) -> None:
        with self._lock:
            card = self._state.card(None, call.call_id)
            mark_ended(card, call, end)
            self._state.changed(card)
            if not self._finished:
                return
            header, blocks = self._state.wire()  # the finished view is redrawn in place
            bundle = run_document.final_output(
                *self._state.snapshot(), cast(dict[str, Any], header), cast(Any, blocks)
            )
        if self._handle is not None:
            self._handle.update(bundle, raw=True)

    def add_notice(self, text: str, level: str = "info") -> None:
        """Add a line to the view (level: info, warning or error)."""
        with self._lock:
            self._state.add("notice", level=level, text=text)

    def finish(
        self, status: RunStatus, detail: str | None = None, *, replayed: bool = False
    ) -> None:
        """End the view: exact final sync, then a display bundle with static transcripts.

        ``replayed``: the run followed its recording (a badge, and "Run live" in JupyterLab).
        Calls after the first do nothing.
        """
        with self._lock:
            if self._finished:
                return
            self._finished = self._state.final = True
            self._header["status"], self._header["detail"] = status, detail
            set_header_wait(self._header, None)  # the run no longer waits for anything
            if replayed:
                self._header["replayed"] = True
            self._header["live"], self._header["ended_at"] = False, int(time.time() * 1000)
            for key in list(self._state.blocks):
                card = self._state.card_by_id(key)
                if card is None:
                    continue
                if card.get("approval", {}).get("state") == "pending":
                    card["approval"] = {"state": "expired"}
                    card["rev"] = card.get("rev", 0) + 1
                if card.get("status") in ("running", "waiting"):
                    card["status"] = "cancelled"
                    card["rev"] = card.get("rev", 0) + 1
            self._decisions.forget()
            self._pacer.dirty = True
            self.flush()
            bundle = self._bundle()
        if self._handle is not None:
            self._handle.update(bundle, raw=True)
            self.widget.close()  # nothing shows it any more; free it in kernel and frontend

    def transcript_markdown(self) -> str:
        """The run as markdown (compact, model text escaped)."""
        with self._lock:
            return transcript.to_markdown(*self._state.snapshot())

    def transcript_html(self) -> str:
        """The run as static HTML (escaped, no scripts, no remote resources)."""
        with self._lock:
            return transcript.to_html(*self._state.snapshot())

    def flush(self) -> None:
        """Sync the widget now if anything changed."""
        self._pacer.flush()

    def _stop_clicked(self) -> None:
        if self.on_stop is not None and not self._finished:
            self.on_stop()

    def _sync(self) -> None:
        if self._state.text_dirty:
            for message in self._state.take_text_messages():
                self.widget.reply(message)
        if self._state.state_dirty or self._state.final:
            header, blocks = self._state.wire()
            with self.widget.hold_sync():  # one comm message for both traits
                self.widget.header = cast(dict[str, Any], header)
                self.widget.blocks = cast(list[dict[str, Any]], blocks)
        self.syncs += 1

    # -- events --------------------------------------------------------------------------

    def _apply(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        if kind == "raw_response_event":
            self._raw(event.data)
        elif kind == "run_item_stream_event":
            self._item(event.name, event.item)
        elif kind == "agent_updated_stream_event":
            name = getattr(event.new_agent, "name", "?")
            if name != self._header["agent"]:
                # The first event names the starting agent; a handoff_occured already showed.
                if self._agent_seen and name != self._handed_to:
                    self._state.add("event", label="handoff", text=f"→ {name}")
                self._header["agent"] = name
                self._state.changed()
            self._agent_seen = True
        elif kind == "context_compacted_event":
            self._state.add("notice", level="info", text=event.compacted.describe())
        else:
            self._state.add("event", label=str(kind), text="")

    def _raw(self, data: Any) -> None:
        kind = getattr(data, "type", None)
        if kind == "response.output_text.delta":
            self._state.append_text(f"t:{data.item_id}", data.delta)
        elif (
            kind == "response.output_item.done" and getattr(data.item, "type", None) == "reasoning"
        ):
            # shown where the model thought it; its run item comes once the response is done
            self._reasoning(data.item)
        elif kind == "response.completed":
            self._timer.response_completed()  # function calls run once it is complete

    def _item(self, name: str, item: Any) -> None:
        raw = getattr(item, "raw_item", None)
        if name == "message_output_created":
            key = f"t:{getattr(raw, 'id', None) or self._state.next_id()}"
            agent = getattr(getattr(item, "agent", None), "name", None)
            self._state.set_text(key, message_text(raw), agent=agent)
        elif name == "reasoning_item_created":
            self._reasoning(raw)
        elif name == "tool_called":
            self._tool_called(item, raw)
        elif name == "tool_approval_requested":
            source = getattr(item, "call_item", None)
            card = self._state.card(source, item.call_id, item.tool_name)
            if source is not None:
                self._redraw(card, source)
            if card.get("approval") is None:
                card["approval"] = {"state": "pending", "attempt": 1}
            arguments = getattr(item, "arguments", None) or {}
            if asks_to_leave(arguments):
                why = item.escalation or arguments.get("justification") or "no reason given"
                card["escalation"] = clip(str(why), self.max_args_chars)[0]
                card["badge"] = "escalated"
            card["status"] = "waiting"
            self._state.changed(card)
        elif name == "tool_output":
            self._tool_output(item)
        elif name == "handoff_requested":
            pass  # handoff_occured follows with both agents
        elif name == "handoff_occured":
            source = getattr(getattr(item, "source_agent", None), "name", "?")
            self._handed_to = getattr(getattr(item, "target_agent", None), "name", "?")
            self._state.add("event", label="handoff", text=f"{source} → {self._handed_to}")
        elif name == "mcp_list_tools":
            tools = ", ".join(t.name for t in getattr(raw, "tools", None) or [])
            label = getattr(raw, "server_label", "MCP")
            self._state.add("event", label="MCP tools", text=f"{label}: {tools or 'none'}")
        elif name == "mcp_approval_requested":
            text = f"{getattr(raw, 'server_label', '')}.{getattr(raw, 'name', '?')} waits"
            self._state.add("event", label="MCP approval", text=text)
        else:
            self._state.add("event", label=str(name), text=type(item).__name__)

    def _reasoning(self, raw: Any) -> None:
        summary = getattr(raw, "summary", None) or []
        text = "\n\n".join(getattr(s, "text", "") for s in summary).strip()
        if text:
            self._state.add("reasoning", key=f"r:{getattr(raw, 'id', '')}", text=text)

    def _tool_called(self, item: Any, raw: Any) -> None:
        call_id = getattr(raw, "call_id", None) or getattr(raw, "id", None)
        kind = getattr(raw, "type", "tool")
        name = getattr(raw, "name", None) or kind.removesuffix("_call")
        card = self._state.card(item, call_id, name)
        arguments = getattr(raw, "arguments", None)
        if arguments is None and hasattr(raw, "model_dump"):
            arguments = {
                k: v
                for k, v in raw.model_dump(mode="json", exclude_none=True).items()
                if k not in ("id", "type", "status", "output", "error")
            }
        display = describe_call(item)
        if kind != "function_call" and isinstance(display.arguments, dict):
            arguments = {k: v for k, v in display.arguments.items() if v is not None}
        card["args"], card["args_cut"] = clip(compact_json(arguments or {}), self.max_args_chars)
        self._show(card, display)
        if kind == "function_call" or not _hosted(kind):
            self._timer.pending(card["id"])
        else:  # hosted tools finished inside the model's response
            failed = getattr(raw, "error", None) or getattr(raw, "status", "") == "failed"
            card["status"] = "error" if failed else "done"
        self._state.changed(card)

    def _tool_output(self, item: Any) -> None:
        source = getattr(item, "call_item", None)
        card = self._state.card(source, item.call_id)
        key = card["id"]
        decision: ApprovalDecision | None = getattr(item, "approval", None)
        status = getattr(item, "status", "ok")
        if status == "ok" and decision is not None and not decision.approved:
            status = "rejected"
        card["status"] = CARD_STATUS.get(status, "error")
        error = getattr(item, "error", None)
        if error is not None:
            card["error"] = {
                "type": error.type,
                "message": clip(error.message, self.max_output_chars)[0],
                "traceback": clip(error.traceback or "", self.max_output_chars)[0] or None,
            }
        display = describe_call(source, item) if source is not None else None
        if decision is not None and card.get("approval", {}).get("state") != (
            "approved" if decision.approved else "rejected"
        ):
            card["approval"] = recorded_approval(decision, display)
        if display is not None:
            self._show(card, display, item)
        else:  # the call is not known: what the model was told, with the call's own parts
            call = [p for p in card.get("parts", []) if p.get("role") == "call"]
            card["parts"] = call + self._parts(raw_output_parts(item.raw_item.get("output", "")))
        if card.get("live") == "terminal" and any(p.get("role") != "call" for p in card["parts"]):
            card["printed"], card["printed_cut"] = "", 0  # the output holds it all now
        elapsed = self._timer.elapsed_ms(key)
        if getattr(item, "replayed", False):  # from the recording: it did not run, nor take time
            card["replayed"] = True
            if "approval" in card:  # a decision then, for a call that did not run now
                card["approval"]["recorded"] = True
        elif elapsed is not None and card["status"] != "rejected":
            card["ms"] = elapsed
        self._state.changed(card)

    def _show(self, card: ToolBlock, display: ToolDisplay, output: Any = None) -> None:
        """Put the kind's ``display`` on ``card`` (parts as they are, badge, origin, live)."""
        card["parts"] = self._parts(display.parts)
        show_plan(self._header, card, display, output)  # update_plan: header and a small card
        if display.badge:
            card["badge"] = display.badge
        if display.origin:
            card["origin"] = display.origin
        if display.live != "text":
            card["live"] = display.live

    def _redraw(self, card: ToolBlock, item: Any) -> None:
        """Show the call on ``card`` as its kind describes it now that it asks: some cards are
        made only then (the notebook's cell tools read the cells they show when they ask)."""
        self._show(card, describe_call(item))

    def _parts(self, parts: Sequence[DisplayPart]) -> list[Part]:
        call_chars = max(self.max_args_chars, CALL_CHARS)  # what a person approves, whole
        return card_parts(parts, call_chars=call_chars, output_chars=self.max_output_chars)

    def _bundle(self) -> dict[str, Any]:
        header, blocks = self._state.snapshot()
        return run_document.final_output(header, blocks, self.widget.header, self.widget.blocks)


def _hosted(kind: str) -> bool:
    """Calls the provider ran inside its response (their card is complete at once)."""
    return (tool_kind := kind_for_call(kind)) is not None and not tool_kind.executable


def set_header_usage(header: Header, usage: Usage, cost: str | None) -> bool:
    """Put ``usage`` (and ``cost``, as shown: ``"$0.0123"`` or ``"price unknown"``) in
    ``header``; whether anything changed."""
    tokens: Tokens = {
        "input": usage.input_tokens,
        "output": usage.output_tokens,
        "total": usage.total_tokens,
    }
    changed = tokens != header["tokens"]
    header["tokens"] = tokens
    if cost is not None and cost != header.get("cost"):
        header["cost"] = cost
        changed = True
    return changed
