"""A plain-text view of a run, for terminal IPython: streamed text, tool lines, a prompt.

A tool call shows as its kind describes it (``describe_call``): a line with its name and
arguments (or the parts that show the call, such as a patch's diff or a plan's checklist), then
its output's parts, each drawn by ``part_text``; the run's last plan is
repeated when it ends. Everything is made safe for a real terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import select
import sys
import threading
from collections.abc import Callable
from typing import Any

from ...runtime.approvals import ApprovalDecision, ApprovalRequest
from ...runtime.modes import Mode
from ...runtime.questions import Question
from ...runtime.sandbox.verdict import asks_to_leave
from ...runtime.tools.background import BackgroundCall
from ...runtime.tools.kinds import describe_call
from ...runtime.tools.plan import Plan, plan_of
from ...runtime.usage import Usage
from .card_parts import card_parts, raw_output_parts
from .display_text import compact_json, part_text, terminal_safe
from .view_background import ended_note
from .widget_state import Part, RunStatus, Wait

__all__ = ["TextView"]


PART_CHARS = 2_000
"""Characters of one part the terminal shows (the rest is counted)."""


def _short(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = terminal_safe(" ".join(text.split()))
    return text if len(text) <= limit else text[:limit] + "…"


def _parts(parts: list[Part], first: str) -> str:
    """``parts`` as lines, the first after ``first``, the rest indented under it."""
    lines = "\n".join(part_text(p) for p in parts).split("\n")
    return "\n".join([f"{first}{lines[0]}", *(f"  {line}" for line in lines[1:])])


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
        self._terminals: set[str] = set()
        """Calls whose live output is a terminal (its colours are kept)."""
        self.status: RunStatus = "running"
        self._plan: Plan | None = None
        """The run's latest plan (``update_plan``)."""
        self.usage: Usage | None = None
        self.cost: str | None = None
        """What the run cost, as shown on the last line."""

    def _line(self, text: str) -> None:
        if self._in_text:
            self._write("\n")
            self._in_text = False
        self._write(text + "\n")

    def display(self) -> None:
        self._line(f"── {self.agent} · {self.model}")

    def card_ref(self) -> None:
        return None  # text in a terminal: nothing another page could show

    def on_event(self, event: Any) -> None:
        if event.type == "raw_response_event":
            if event.data.type == "response.output_text.delta":
                self._write(event.data.delta)
                self._in_text = True
            return
        if event.type == "context_compacted_event":
            self._line(f"[info] {event.compacted.describe()}")
            return
        if event.type != "run_item_stream_event":
            return
        if event.name == "tool_called":
            self._tool_called(event.item)
        elif event.name == "tool_output":
            self._tool_output(event.item)

    def _tool_called(self, item: Any) -> None:
        display = describe_call(item)
        call_id = str(getattr(item.raw_item, "call_id", None) or getattr(item.raw_item, "id", ""))
        if display.live == "terminal":
            self._terminals.add(call_id)
        parts = [p for p in self._shaped(display.parts) if p.get("role") == "call"]
        if parts:  # they stand for the arguments
            self._line(f"→ {terminal_safe(display.title)}\n" + _parts(parts, "  "))
        else:
            arguments = compact_json(display.arguments or getattr(item.raw_item, "arguments", ""))
            self._line(f"→ {terminal_safe(display.title)}({_short(arguments)})")

    def _tool_output(self, item: Any) -> None:
        self._plan = plan_of(item) or self._plan
        if item.call_id in self._streamed and item.call_id in self._terminals:
            return  # the terminal showed it as it came, and the output repeats it
        source = getattr(item, "call_item", None)
        if source is not None:
            shown = describe_call(source, item).parts
        else:
            shown = raw_output_parts(item.raw_item.get("output", ""))
        parts = [p for p in self._shaped(shown) if p.get("role") != "call"]
        self._line(_parts(parts, "← ") if parts else "← (no output)")

    @staticmethod
    def _shaped(parts: Any) -> list[Part]:
        return card_parts(parts, call_chars=PART_CHARS, output_chars=PART_CHARS)

    def set_status(self, status: RunStatus, detail: str | None = None) -> None:
        self.status = status

    def set_usage(self, usage: Usage, cost: str | None = None) -> None:
        self.usage = usage
        self.cost = cost

    def tool_progress(self, call_id: str, done: float, total: float | None, message: str) -> None:
        of = f"/{total:g}" if total is not None else ""
        self._line(f"  [progress {done:g}{of}] {terminal_safe(message)}".rstrip())

    def set_context(self, used: int, window: int | None) -> None:
        self.context = (used, window)

    mode: str = "agent"

    def set_mode(self, mode: Mode) -> None:
        """Say the mode when it is not the default, and when it changes."""
        if mode != self.mode:
            self._line(f"[{mode} mode]")
        self.mode = mode

    _waiting: str | None = None

    def set_wait(self, wait: Wait | None) -> None:
        """Say once what the run waits for, when that changes (a terminal cannot tick)."""
        text = wait["text"] if wait is not None else None
        if text is not None and text != self._waiting:
            self._line(f"… {terminal_safe(text)}")
        self._waiting = text

    def tool_output_text(self, call_id: str, text: str) -> None:
        self._streamed.add(call_id)  # shown as it came: a terminal's output is not repeated
        self._write(terminal_safe(text, colours=call_id in self._terminals))

    def add_notice(self, text: str, level: str = "info") -> None:
        self._line(f"[{level}] {text}")

    def left_running(self, call: BackgroundCall) -> None:
        name = terminal_safe(call.tool_name)
        self._line(
            f"[warning] {name} is still running in the background: a thread cannot be stopped"
        )
        call.when_done(lambda end: self._line(f"[info] {name} {ended_note(call, end)}"))

    async def inbox(self, request: ApprovalRequest) -> ApprovalDecision:
        """Ask at the prompt (on a thread, so the run's loop keeps going).

        An empty or unclear answer asks again; ``n`` may carry a reason (``n too expensive``)
        or is followed by a question for one. If the run stops meanwhile (Ctrl-C, Stop), the
        prompt gives up at once and leaves stdin to IPython.
        """
        if request.question is not None:
            return await self._answer(request)
        self._line(f"── {self.agent} wants to run {request.tool_name}({_short(request.arguments)})")
        question = "Approve? [y]es / [n]o (a reason may follow) / [a]lways for this tool: "
        if asks_to_leave(request.arguments):
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

    async def _answer(self, request: ApprovalRequest) -> ApprovalDecision:
        """Ask a question at the prompt: one line per field of a form; an empty answer (or
        an empty required field) skips the question."""
        question = request.question
        assert question is not None
        who = f"{terminal_safe(question.origin)} asks" if question.origin else f"{self.agent} asks"
        self._line(f"── {who}: {terminal_safe(question.text)}")
        for number, choice in enumerate(question.choices, 1):
            self._line(f"   {number}. {terminal_safe(choice)}")
        while True:
            answer = await self._read_answer(question)
            if answer is None:
                return request.skip("skipped at the prompt")
            problem = question.problem(answer)
            if problem is None:
                return request.answer(answer)
            self._line(f"   {problem}")

    async def _read_answer(self, question: Question) -> Any:
        """The answer typed (None: skipped)."""
        if question.form is None:
            line = (await self._read("Answer (empty to skip): ")).strip()
            if question.choices and line.isdigit() and 0 < int(line) <= len(question.choices):
                return question.choices[int(line) - 1]
            return line or None
        values: dict[str, Any] = {}
        required = set(question.form.get("required", []))
        for name, spec in question.form.get("properties", {}).items():
            hint = "/".join(spec["enum"]) if spec.get("enum") else spec.get("type", "")
            line = (await self._read(f"{terminal_safe(str(name))} ({hint}): ")).strip()
            if not line:
                if name in required:
                    return None
                continue
            values[name] = _typed(spec.get("type"), line)
        return values

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

    def finish(
        self, status: RunStatus, detail: str | None = None, *, replayed: bool = False
    ) -> None:
        self.status = status
        suffix = f": {detail}" if detail else ""
        if self._plan is not None and self._plan.steps:
            checklist = terminal_safe(self._plan.checklist()).replace("\n", "\n  ")
            self._line(f"── plan {self._plan.progress}\n  {checklist}")
        spent = f" · {self.usage.total_tokens:,} tokens" if self.usage is not None else ""
        spent += f" · {self.cost}" if self.cost else ""
        self._line(f"── {status}{' (replayed)' if replayed else ''}{spent}{suffix}")


def _typed(kind: Any, line: str) -> Any:
    """A typed field's value from what was typed (left as text when it does not parse: the
    question's check then says what is wrong)."""
    if kind == "boolean":
        return line.lower() in ("y", "yes", "true", "1") if line.lower() in _BOOLS else line
    if kind in ("number", "integer"):
        with contextlib.suppress(ValueError):
            number = float(line)
            return int(number) if number.is_integer() and kind == "integer" else number
    return line


_BOOLS = ("y", "yes", "true", "1", "n", "no", "false", "0")


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
