"""One row of a batch: what it runs with, what it is, and how it ran. Every backend runs a row
through :func:`run_row`, here or on a Ray worker; a row's own failure is a ``failed`` row,
never an exception."""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass
from typing import Any, Literal

from ..agent import Agent
from ..approvals import ApprovalDecision
from ..errors import UserError
from ..items import ToolCallOutputItem
from ..lifecycle import RunHooks
from ..run import RunConfig, Runner
from ..run_state import RunState
from .result import RowResult

__all__ = ["ApproveMode", "RowJob", "RowOutcome", "RowResume", "RowSettings", "jsonable", "run_row"]

ApproveMode = Literal["deny", "auto", "review"]
"""What a tool call that needs approval gets in a batch: rejected, approved, or the row pauses
for review."""


@dataclass(frozen=True)
class RowSettings:
    """What every row of a batch runs with."""

    agent: Agent[Any]
    """The agent (already cloned with the batch's output type)."""
    run_config: RunConfig
    """The run config of each row."""
    max_turns: int | None
    """Per row."""
    approve: ApproveMode
    """What a call that needs approval gets."""
    hooks: RunHooks[Any] | None = None
    """Run hooks of each row (locally, the batch's request and token limiter)."""


@dataclass(frozen=True)
class RowResume:
    """A paused row going on with the review's decisions."""

    state: str | None
    """The paused run's ``RunState`` JSON as stored (None: the store has none)."""
    decisions: dict[str, dict[str, Any]]
    """By call id: ``{"approved", "message", "always"}``."""


@dataclass(frozen=True)
class RowJob:
    """One row to run."""

    prompt: str
    key: str
    """The row's key (its index label as JSON, or its position)."""
    label: Any
    """The row's index label (or position)."""
    resume: RowResume | None = None
    """For a reviewed row: where it paused and what was decided."""


@dataclass(frozen=True)
class RowOutcome:
    """How a row ran."""

    row: RowResult
    state: str | None = None
    """For a row that paused: its ``RunState`` JSON, kept in the store for the review."""
    rate_limited: int = 0
    """429s a worker saw running it (locally the batch watches them itself: always 0)."""


async def run_row(settings: RowSettings, job: RowJob) -> RowOutcome:
    """Run one row (or resume it with the review's decisions); never raises for the row's own
    failure."""
    started = time.monotonic()
    try:
        start: Any = job.prompt
        if job.resume is not None:
            if job.resume.state is None:
                raise UserError(f"Row {job.label!r} has no stored state to resume.")
            start = _decided_state(settings.agent, job.resume)
        handler = {"deny": _deny, "auto": _approve}.get(settings.approve)
        result = await Runner.run(
            settings.agent,
            start,
            max_turns=settings.max_turns,
            run_config=settings.run_config,
            hooks=settings.hooks,
            approval_handler=handler,
        )
    except Exception as e:
        error = f"{type(e).__name__}: {e}"
        seconds = time.monotonic() - started
        return RowOutcome(RowResult(job.key, job.label, "failed", error=error, seconds=seconds))
    row = _row_of(result, job, time.monotonic() - started)
    state = result.to_state().to_json() if row.status == "waiting" else None
    return RowOutcome(row, state)


def _decided_state(agent: Agent[Any], resume: RowResume) -> RunState:
    assert resume.state is not None
    state = RunState.from_json(agent, resume.state)
    for item in state.interruptions:
        choice = resume.decisions.get(item.call_id)
        if choice is None:
            continue
        if choice["approved"]:
            state.approve(item, always=bool(choice.get("always")))
        else:
            state.reject(item, message=choice.get("message"))
    return state


def _deny(request: Any) -> ApprovalDecision:
    return ApprovalDecision.reject("Not allowed in this batch (run_batch approve='deny').")


def _approve(request: Any) -> ApprovalDecision:
    return ApprovalDecision.approve()


def _row_of(result: Any, job: RowJob, seconds: float) -> RowResult:
    tokens = int(result.context_wrapper.usage.total_tokens)
    if result.interruptions:
        waiting = [
            {"call_id": i.call_id, "tool": i.tool_name, "arguments": i.arguments}
            for i in result.interruptions
        ]
        return RowResult(
            job.key, job.label, "waiting", tokens=tokens, seconds=seconds, waiting=waiting
        )
    rejected = any(
        isinstance(i, ToolCallOutputItem) and i.approval is not None and not i.approval.approved
        for i in result.new_items
    )
    return RowResult(
        job.key,
        job.label,
        "rejected" if rejected else "ok",
        output=jsonable(result.final_output),
        tokens=tokens,
        seconds=seconds,
    )


def jsonable(value: Any) -> Any:
    """A final output as plain data (a structured output as a dict)."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value
