"""MCP tasks on the wire (the 2025-11-25 revision): what a server says of a task, read strictly,
and the bounds both sides keep. Pure functions, no I/O: the client (``task_client``) and the
served side (``served_tasks``) are thin around them.

A task-augmented ``tools/call`` carries ``task: {ttl}`` and is answered at once with
``{task: {taskId, status, statusMessage?, createdAt, lastUpdatedAt, ttl, pollInterval?}}``; the
client polls ``tasks/get`` until the status is terminal, then asks ``tasks/result`` for the
tool's result (``tasks/result`` waits for the end and carries the server's questions while the
task is ``input_required``); ``tasks/cancel`` stops it.

Everything a server says is untrusted (docs/security.md, "MCP tasks are bounded on both sides").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, TypeGuard, get_args

from .untrusted import printable

__all__ = [
    "RELATED_TASK",
    "TERMINAL",
    "TaskAnswerError",
    "TaskState",
    "TaskStatus",
    "created_task",
    "poll_seconds",
    "read_task",
    "result_problem",
    "served_ttl_ms",
    "shown",
]

TaskStatus: TypeAlias = Literal["working", "input_required", "completed", "failed", "cancelled"]
"""The states a task can be in (the specification's words)."""
_STATUSES: dict[object, TaskStatus] = {status: status for status in get_args(TaskStatus)}
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
"""The states a task never leaves."""

RELATED_TASK = "io.modelcontextprotocol/related-task"
"""The ``_meta`` key naming the task a message or result belongs to (``{"taskId": ...}``)."""

MAX_TASK_ID_CHARS = 256
"""A longer task id is not one (ids are opaque tokens the client sends back)."""
MAX_STATUS_CHARS = 200
"""Characters of a status message shown (the card's progress line)."""
MIN_POLL_SECONDS = 0.25
"""The client never polls more often, whatever the server asks (a negative interval included)."""
MAX_POLL_SECONDS = 5.0
"""Nor less often: a huge interval cannot make a finished call wait."""
DEFAULT_POLL_SECONDS = 1.0
"""When the server suggests no interval (or one that is not a number)."""
MAX_TTL_SECONDS = 30 * 24 * 3600.0
"""The longest lifetime a server's word is taken for."""

MIN_SERVED_TTL_MS = 60_000
"""The served side keeps a task at least a minute from its creation,"""
MAX_SERVED_TTL_MS = 24 * 3600 * 1000
"""at most a day (a client asking for more gets a day),"""
DEFAULT_SERVED_TTL_MS = 3600 * 1000
"""and an hour when the client asks for no lifetime."""


class TaskAnswerError(ValueError):
    """What a server said of a task cannot be used; the message says what, on one line."""


@dataclass(frozen=True)
class TaskState:
    """A task as the server last described it, checked and bounded."""

    task_id: str
    """The server's id for the task (a printable string, at most 256 characters)."""
    status: TaskStatus
    """Where it is."""
    message: str | None
    """The server's status message, printable, on one line, at most 200 characters."""
    poll_seconds: float
    """How long to wait before asking again (the server's interval, kept within bounds)."""
    ttl_seconds: float | None
    """How long from its creation the server keeps the task (None: not said, or unlimited)."""

    @property
    def terminal(self) -> bool:
        """Whether the task ended (completed, failed or cancelled)."""
        return self.status in TERMINAL


def shown(value: object, limit: int = 40) -> str:
    """A server's value in an error message: its repr, printable and short."""
    text = printable(repr(value), keep_newlines=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_task(raw: object, expected_id: str | None = None) -> TaskState:
    """The task a server described in ``raw`` (a ``tasks/get`` answer, or the ``task`` of a
    ``tools/call`` answer); with ``expected_id``, it must be that task.

    Raises:
        TaskAnswerError: ``raw`` is not a task, names another one, or has a status MCP does
            not have.
    """
    if not isinstance(raw, dict):
        raise TaskAnswerError(f"a task that is not an object ({shown(raw)})")
    task_id = raw.get("taskId")
    if (
        not isinstance(task_id, str)
        or not 0 < len(task_id) <= MAX_TASK_ID_CHARS
        or not task_id.isprintable()
    ):
        raise TaskAnswerError(f"a task id that is not a short printable string ({shown(task_id)})")
    if expected_id is not None and task_id != expected_id:
        raise TaskAnswerError(f"the state of another task ({shown(task_id)})")
    said = raw.get("status")
    status = _STATUSES.get(said) if isinstance(said, str) else None
    if status is None:
        raise TaskAnswerError(f"a task status MCP does not have ({shown(said)})")
    return TaskState(
        task_id=task_id,
        status=status,
        message=_message(raw.get("statusMessage")),
        poll_seconds=poll_seconds(raw.get("pollInterval")),
        ttl_seconds=_ttl_seconds(raw.get("ttl")),
    )


def created_task(answer: dict[str, Any]) -> TaskState | None:
    """The task a ``tools/call`` answer created, or None when the server answered the call
    itself (a server may run a call it was asked to run as a task at once).

    Raises:
        TaskAnswerError: The answer has a ``task`` that is not one.
    """
    if "task" not in answer:
        return None
    return read_task(answer["task"])


def result_problem(answer: dict[str, Any], task_id: str) -> str | None:
    """Why a ``tasks/result`` answer is not the result of ``task_id`` (its ``_meta`` names
    another task); None when it may be (an answer that names no task is taken as this one's)."""
    meta = answer.get("_meta")
    related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
    if related is None:
        return None
    named = related.get("taskId") if isinstance(related, dict) else related
    if named != task_id:
        return f"the result of another task ({shown(named)})"
    return None


def poll_seconds(raw: object) -> float:
    """A server's poll interval (milliseconds) as seconds between ``MIN_POLL_SECONDS`` and
    ``MAX_POLL_SECONDS``; ``DEFAULT_POLL_SECONDS`` when it is not a number."""
    if not _number(raw):
        return DEFAULT_POLL_SECONDS
    return min(max(raw / 1000, MIN_POLL_SECONDS), MAX_POLL_SECONDS)


def served_ttl_ms(requested: object) -> int:
    """The lifetime (milliseconds) the served side gives a task whose client asked for
    ``requested``: within a minute and a day, an hour when it asked for none."""
    if not _number(requested):
        return DEFAULT_SERVED_TTL_MS
    return int(min(max(requested, MIN_SERVED_TTL_MS), MAX_SERVED_TTL_MS))


def _number(raw: object) -> TypeGuard[int | float]:
    return isinstance(raw, (int, float)) and not isinstance(raw, bool) and math.isfinite(raw)


def _message(raw: object) -> str | None:
    if not isinstance(raw, str) or not raw:
        return None
    text = printable(raw, keep_newlines=False)
    return text if len(text) <= MAX_STATUS_CHARS else text[: MAX_STATUS_CHARS - 1] + "…"


def _ttl_seconds(raw: object) -> float | None:
    if not _number(raw):
        return None
    return min(max(raw / 1000, 0.0), MAX_TTL_SECONDS)
