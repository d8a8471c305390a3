"""One row of a batch: what it runs with, what it is, and how it ran. Every backend runs a row
through ``run_row``, here or on a Ray worker; a row's own failure is a ``failed`` row,
never an exception.

With a cassette (``run_batch(cassette=...)``) each row runs with its own ``RowCassette``
over the batch's ``ReplayPool`` (the recordings as the batch started), and hands back what
it recorded and replayed (``RowRecordings``): the driver merges that into the caller's
cassette, whichever process ran the row."""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from .._run.budget import outer_stop
from .._run.spend import Spend
from ..agent import Agent
from ..approvals import ApprovalDecision
from ..errors import BudgetExceeded, UserError
from ..items import ToolCallItem, ToolCallOutputItem
from ..lifecycle import RunHooks
from ..replay import Cassette, ReplayMismatch, ReplayMode
from ..run import RunConfig, RunKwargs, run_in_budget
from ..run_state import RunState
from .result import RowResult

__all__ = [
    "ROW_FIELD",
    "ApproveMode",
    "ReplayPool",
    "RowCassette",
    "RowJob",
    "RowOutcome",
    "RowRecordings",
    "RowResume",
    "RowSettings",
    "jsonable",
    "run_row",
    "tool_calls_of",
]

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
    replay: ReplayPool | None = None
    """The recordings rows replay from, with the cassette's mode (``run_batch(cassette=...)``)."""


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
    budget_usd: Decimal | None = None
    """What is left of the batch's budget as the row starts, for a row run elsewhere (on
    Ray); a row run here spends from the batch's budget itself (None: no budget)."""


@dataclass(frozen=True)
class RowOutcome:
    """How a row ran."""

    row: RowResult
    state: str | None = None
    """For a row that paused: its ``RunState`` JSON, kept in the store for the review."""
    rate_limited: int = 0
    """429s a worker saw running it (locally the batch watches them itself: always 0)."""
    recordings: RowRecordings | None = None
    """What the row's run recorded and replayed (with a cassette)."""
    stored: bool = True
    """False for a row a strict cassette refused (no recording of its inputs): it is not kept
    in the results store, so the next run of the batch tries it again."""


ROW_FIELD = "row"
"""The field of a recording naming the batch row that made it (the row's key)."""


class ReplayPool:
    """The recordings a batch's rows may replay: the caller's cassette as the batch started
    (a row never replays what another row of the same batch recorded meanwhile, so a row
    replays the same whatever the order rows run in, and on whichever worker), with the
    cassette's mode. It travels to Ray workers with the settings."""

    def __init__(
        self,
        runs: list[dict[str, Any]],
        mode: ReplayMode,
        replay_tools: Literal["recorded", "run"],
        owned: list[bool] | None = None,
    ) -> None:
        self.runs = list(runs)
        self.mode = mode
        self.replay_tools = replay_tools
        self.owned = list(owned) if owned is not None else [False] * len(self.runs)
        """Whether each recording is the person's own, as the driver checked it (a Ray
        worker may not hold the person's secret): only those replay decisions."""
        self.by_key: dict[Any, list[int]] = {}
        """Positions in ``runs``, by the identity of the run's first request."""
        self.by_row: dict[str, list[int]] = {}
        """Positions in ``runs``, by the batch row that recorded them."""
        for position, run in enumerate(self.runs):
            self.by_key.setdefault(run.get("key"), []).append(position)
            row = run.get(ROW_FIELD)
            if isinstance(row, str):
                self.by_row.setdefault(row, []).append(position)
        self.taken: set[int] = set()
        """Positions already replayed (or replaced) by a row of this batch."""

    def claim(self, key: str, row: str) -> int | None:
        """The position of the recording row ``row`` replays for a first request ``key``: the
        row's own recording of these inputs, else the first one not yet taken (a recording
        made outside a batch, or by a row that moved)."""
        own = [p for p in self.by_row.get(row, []) if self.runs[p].get("key") == key]
        for position in own + self.by_key.get(key, []):
            if position not in self.taken:
                self.taken.add(position)
                return position
        return None

    def nearest(self, row: str) -> dict[str, Any] | None:
        """What a changed row is compared with: its own latest recording; with none, the
        cassette's latest, unless the cassette holds batch rows (another row's recording would
        say the wrong thing changed)."""
        own = self.by_row.get(row)
        if own:
            return self.runs[own[-1]]
        return self.runs[-1] if self.runs and not self.by_row else None


@dataclass(frozen=True)
class RowRecordings:
    """What one row's run did with the cassette."""

    kept: list[tuple[dict[str, Any], int | None]]
    """New recordings (tagged with the row), each with the pool position of the recording it
    replaces (None: it is added)."""
    replayed: list[int]
    """Pool positions of the recordings the run followed."""
    last: dict[str, Any] | None
    """``Cassette.last`` of the run (None: it did not finish)."""


class RowCassette(Cassette):
    """One row's view of the batch's ``ReplayPool``: it finds the row's recording there,
    and keeps what the run records for the driver to merge (it writes no file)."""

    def __init__(self, pool: ReplayPool, row: str) -> None:
        super().__init__(runs=pool.runs, mode=pool.mode, replay_tools=pool.replay_tools)
        self.pool = pool
        self.row = row
        self.kept: list[tuple[dict[str, Any], int | None]] = []
        self.replayed: list[int] = []

    def __repr__(self) -> str:
        return f"<RowCassette row {self.row} of {len(self.pool.runs)} recordings, {self.mode}>"

    def find(self, key: str) -> dict[str, Any] | None:
        position = self.pool.claim(key, self.row)
        if position is None:
            return None
        self.replayed.append(position)
        return self.pool.runs[position]

    def nearest(self) -> dict[str, Any] | None:
        return self.pool.nearest(self.row)

    def owns(self, recording: dict[str, Any]) -> bool:
        """As the driver found it for the pool's recordings; this row's own new ones are."""
        position = next((i for i, r in enumerate(self.pool.runs) if r is recording), None)
        if position is None:
            return any(r is recording for r, _ in self.kept)
        return self.pool.owned[position]

    def keep(self, recording: dict[str, Any], replaces: dict[str, Any] | None) -> None:
        """Keep the row's new recording for the driver, which signs it as it merges it."""
        recording[ROW_FIELD] = self.row
        position = next((p for p in self.replayed if self.pool.runs[p] is replaces), None)
        self.kept.append((recording, position))
        self.used.append(recording)

    def save(self) -> None:
        """Nothing: the driver saves the caller's cassette."""

    def report(self) -> RowRecordings:
        return RowRecordings(list(self.kept), list(self.replayed), self.last)


async def run_row(settings: RowSettings, job: RowJob, budget: Spend | None = None) -> RowOutcome:
    """Run one row (or resume it with the review's decisions), spending from ``budget`` (the
    batch's, when the row runs here) or else ``job.budget_usd``; never raises for the row's
    own failure. A row the batch's budget stops is left ``pending`` (not stored: it runs again
    with the batch), its spend in ``cost_usd``."""
    started = time.monotonic()
    config, cassette = settings.run_config, None
    if settings.replay is not None:
        cassette = RowCassette(settings.replay, job.key)
        config = dataclasses.replace(config, replay=cassette)
    if budget is None and job.budget_usd is not None:
        budget = Spend()
        budget.link(job.budget_usd, None)
    try:
        start: Any = job.prompt
        if job.resume is not None:
            if job.resume.state is None:
                raise UserError(f"Row {job.label!r} has no stored state to resume.")
            start = _decided_state(settings.agent, job.resume)
        handler = {"deny": _deny, "auto": _approve}.get(settings.approve)
        options: RunKwargs = {
            "max_turns": settings.max_turns,
            "run_config": config,
            "hooks": settings.hooks,
            "approval_handler": handler,
        }
        result = await run_in_budget(budget, settings.agent, start, **options)
    except BudgetExceeded as e:
        if outer_stop(e, budget):
            return _stopped(job, e, started, cassette)
        return _failed(job, e, started, cassette)
    except Exception as e:
        return _failed(job, e, started, cassette)
    row = _row_of(result, job, time.monotonic() - started)
    row.cost_usd = result.cost.usd
    state = result.to_state().to_string() if row.status == "waiting" else None
    if cassette is None:
        return RowOutcome(row, state)
    row.replayed = bool(cassette.last and cassette.last.get("replayed"))
    return RowOutcome(row, state, recordings=cassette.report())


def _failed(job: RowJob, e: Exception, started: float, cassette: RowCassette | None) -> RowOutcome:
    error = f"{type(e).__name__}: {e}"
    seconds = time.monotonic() - started
    return RowOutcome(
        RowResult(job.key, job.label, "failed", error=error, seconds=seconds),
        recordings=cassette.report() if cassette is not None else None,
        stored=not isinstance(e, ReplayMismatch),
    )


def _stopped(
    job: RowJob, e: BudgetExceeded, started: float, cassette: RowCassette | None
) -> RowOutcome:
    """The batch's budget stopped the row: it stays pending, not stored, its spend counted."""
    spent = e.run_state.progress.spend.cost().usd if e.run_state is not None else None
    error = f"{type(e).__name__}: {e}"
    seconds = time.monotonic() - started
    return RowOutcome(
        RowResult(job.key, job.label, "pending", error=error, seconds=seconds, cost_usd=spent),
        recordings=cassette.report() if cassette is not None else None,
        stored=False,
    )


def _decided_state(agent: Agent[Any], resume: RowResume) -> RunState:
    assert resume.state is not None
    state = RunState.from_json(agent, resume.state)
    for item in state.interruptions:
        choice = resume.decisions.get(item.call_id)
        if choice is None:
            continue
        if choice["approved"] and "answer" in choice:
            state.answer(item.call_id, choice["answer"])
        elif choice["approved"] and getattr(item, "question", None) is not None:
            continue  # approving is not answering: the question keeps waiting
        elif choice["approved"]:
            state.approve(item, always=bool(choice.get("always")))
        else:
            state.reject(item, message=choice.get("message"))
    return state


def _deny(request: Any) -> ApprovalDecision | None:
    if request.question is not None:
        return None  # a question is the person's: the row waits for review
    return ApprovalDecision.reject("Not allowed in this batch (run_batch approve='deny').")


def _approve(request: Any) -> ApprovalDecision | None:
    return None if request.question is not None else ApprovalDecision.approve()


def _row_of(result: Any, job: RowJob, seconds: float) -> RowResult:
    tokens = int(result.context_wrapper.usage.total_tokens)
    if result.interruptions:
        waiting = [
            {"call_id": i.call_id, "tool": i.tool_name, "arguments": i.arguments}
            | ({"question": i.question.text} if getattr(i, "question", None) else {})
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
        tool_calls=tool_calls_of(result.new_items),
    )


def tool_calls_of(items: list[Any]) -> list[dict[str, Any]]:
    """A run's tool calls in order, as plain data: ``name``, ``arguments`` (parsed when it is
    JSON), ``call_id``, and ``status`` of the call's output (None: no output)."""
    status = {i.call_id: i.status for i in items if isinstance(i, ToolCallOutputItem)}
    calls = []
    for item in items:
        if not isinstance(item, ToolCallItem):
            continue
        raw = item.raw_item
        fields = raw if isinstance(raw, dict) else vars(raw) if hasattr(raw, "__dict__") else {}
        arguments = fields.get("arguments", fields.get("action"))
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                pass
        name = item.tool_name or fields.get("name") or fields.get("type") or type(raw).__name__
        call_id = item.call_id or fields.get("call_id")
        calls.append(
            {
                "name": name,
                "arguments": jsonable(arguments),
                "call_id": call_id,
                "status": status.get(call_id) if call_id else None,
            }
        )
    return calls


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
