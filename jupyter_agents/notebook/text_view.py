"""A plain-text view of a run, for terminal IPython: streamed text, tool lines, a prompt."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Callable
from typing import Any

from ..runtime.approvals import ApprovalDecision, ApprovalRequest
from ..runtime.usage import Usage

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
        self._ask = ask or (lambda question: input(question))
        self._write = write or sys.__stdout__.write  # type: ignore[union-attr]
        self._in_text = False
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
        elif event.name == "tool_output":
            self._line(f"← {_short(item.raw_item['output'])}")

    def set_status(self, status: str, detail: str | None = None) -> None:
        self.status = status

    def set_usage(self, usage: Usage) -> None:
        self.usage = usage

    def tool_output_text(self, call_id: str, text: str) -> None:
        self._write(text)

    def add_notice(self, text: str, level: str = "info") -> None:
        self._line(f"[{level}] {text}")

    async def inbox(self, request: ApprovalRequest) -> ApprovalDecision:
        """Ask at the prompt (on a thread, so the run's loop keeps going)."""
        question = (
            f"Approve {request.tool_name}({_short(request.arguments)})? [y]es / [n]o / [a]lways: "
        )
        answer = (await asyncio.to_thread(self._ask, question)).strip().lower()
        if answer in ("a", "always"):
            return ApprovalDecision.approve(always=True)
        if answer in ("y", "yes"):
            return ApprovalDecision.approve()
        return ApprovalDecision.reject(message="rejected at the prompt")

    def decide(self, request_id: str, decision: ApprovalDecision) -> bool:
        return False

    def finish(self, status: str, detail: str | None = None) -> None:
        self.status = status
        suffix = f": {detail}" if detail else ""
        self._line(f"── {status}{suffix}")
