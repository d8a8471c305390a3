"""A plain-text view of a run, for terminal IPython: streamed text, tool lines, a prompt."""

from __future__ import annotations

import asyncio
import contextlib
import json
import select
import sys
import threading
from collections.abc import Callable
from typing import Any

from ..runtime.approvals import ApprovalDecision, ApprovalRequest
from ..runtime.usage import Usage
from .display_text import output_text

__all__ = ["TextView"]


def _short(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


class TextView:
    """Prints a run as it happens and asks for approvals at a prompt."""

    def __init__(
        self,
        *,
        agent: str,
        model: str,
        ask: Callable[[str], str] | None = None,
        write: Callable[[str], Any] | None = None,
    ) -> None:
        self.agent, self.model = agent, model
        self.rendered = threading.Event()
        self.rendered.set()  # the terminal is always "showing" the run
        self.on_stop: Callable[[], None] | None = None
        self._ask = ask
        self._write = write or sys.__stdout__.write  # type: ignore[union-attr]
        self._in_text = False
        self._streamed: set[str] = set()
        self.status = "running"

    def _line(self, text: str) -> None:
        if self._in_text:
            self._write("\n")
            self._in_text = False
        self._write(text + "\n")

    def display(self) -> None:
        self._line(f"── {self.agent} · {self.model}")

    def on_event(self, event: Any) -> None:
        if event.type == "raw_response_event":
            if event.data.type == "response.output_text.delta":
                self._write(event.data.delta)
                self._in_text = True
            return
        if event.type != "run_item_stream_event":
            return
        item = event.item
        if event.name == "tool_called" and item.raw_item.type == "function_call":
            self._line(f"→ {item.raw_item.name}({_short(item.raw_item.arguments)})")
        elif event.name == "tool_output" and item.call_id not in self._streamed:
            self._line(f"← {_short(output_text(item.raw_item['output']))}")

    def set_status(self, status: str, detail: str | None = None) -> None:
        self.status = status

    def set_usage(self, usage: Usage) -> None:
        self.usage = usage

    def tool_output_text(self, call_id: str, text: str) -> None:
        self._streamed.add(call_id)  # shown as it came: not repeated when the call ends
        self._write(text)

    def add_notice(self, text: str, level: str = "info") -> None:
        self._line(f"[{level}] {text}")

    async def inbox(self, request: ApprovalRequest) -> ApprovalDecision:
        """Ask at the prompt (on a thread, so the run's loop keeps going).

        An empty or unclear answer asks again; ``n`` may carry a reason (``n too expensive``)
        or is followed by a question for one. If the run stops meanwhile (Ctrl-C, Stop), the
        prompt gives up at once and leaves stdin to IPython.
        """
        self._line(f"── {self.agent} wants to run {request.tool_name}({_short(request.arguments)})")
        question = "Approve? [y]es / [n]o (a reason may follow) / [a]lways for this tool: "
        if request.arguments.get("sandbox_permissions") == "require_escalated":
            why = request.arguments.get("justification") or "no reason given"
            self._line(f"   outside the sandbox: {_short(why)}")
            question = "Run it outside the sandbox? [y]es / [n]o (a reason may follow): "
        elif not request.allows_always:
            question = "Approve this call only? [y]es / [n]o (a reason may follow): "
        while True:
            answer = (await self._read(question)).strip()
            word, _, rest = answer.partition(" ")
            word = word.lower()
            if word in ("a", "always") and request.allows_always:
                return ApprovalDecision.approve(always=True)
            if word in ("y", "yes"):
                return ApprovalDecision.approve()
            if word in ("n", "no"):
                reason = rest.strip() or (await self._read("Reason for the model (optional): "))
                return ApprovalDecision.reject(message=reason.strip() or "rejected at the prompt")
            question = (
                "Please answer y, n or a: " if request.allows_always else "Please answer y or n: "
            )

    async def _read(self, question: str) -> str:
        cancelled = threading.Event()
        if self._ask is not None:
            ask = self._ask
            reader: Callable[[], str | None] = lambda: ask(question)  # noqa: E731
        else:
            reader = lambda: _read_line(question, cancelled, self._write)  # noqa: E731
        try:
            line = await asyncio.to_thread(reader)
        except BaseException:
            cancelled.set()  # the reading thread stops within a tick, reading nothing more
            raise
        return line or ""

    def decide(self, request_id: str, decision: ApprovalDecision) -> bool:
        return False

    def finish(self, status: str, detail: str | None = None) -> None:
        self.status = status
        suffix = f": {detail}" if detail else ""
        self._line(f"── {status}{suffix}")


def _read_line(
    question: str, cancelled: threading.Event, write: Callable[[str], Any]
) -> str | None:
    """One line from stdin, or None once ``cancelled`` is set (checked every 0.1 s).

    ``input()`` on a thread cannot be abandoned: after Ctrl-C it would keep reading and eat
    the next line typed at the IPython prompt. This only reads when a line is ready.
    """
    write(question)
    with contextlib.suppress(Exception):
        (sys.__stdout__ or sys.stdout).flush()
    stdin = sys.stdin
    while not cancelled.is_set():
        try:
            ready, _, _ = select.select([stdin], [], [], 0.1)
        except (ValueError, OSError):  # no real stdin (closed, or not a file)
            return None
        if ready and not cancelled.is_set():
            line = stdin.readline()
            return line.rstrip("\n") if line else None
    return None
