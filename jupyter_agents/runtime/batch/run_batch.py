"""``run_batch``: one agent over every row of a table.

Rows run ``concurrency`` at a time (less while the provider answers 429), each as its own run
with the batch's run config, under the request and token limits. Each finished row is written
to the results store at once; a batch run again skips the rows the store has. Rows whose tools
need approval either ask nobody (``deny``), are approved (``auto``), or pause with their
``RunState`` stored (``review``) while the others go on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..agent import Agent
from ..approvals import ApprovalDecision
from ..blocking import run_blocking
from ..errors import UserError
from ..items import ToolCallOutputItem
from ..run import RunConfig, Runner
from ..run_state import RunState
from .limits import AdaptiveConcurrency, RateLimiter, WatchedRetry
from .progress import BatchProgress, progress_for
from .result import BatchResult, RowResult
from .rows import BatchRows, prompt_hash
from .store import DEFAULT_STORE, ResultsStore, StoredRow
from .window import Window

__all__ = ["BatchControl", "arun_batch", "run_batch"]

OnApproval = Literal["deny", "auto", "review"]


@dataclass
class BatchControl:
    """Stop a running batch: in-flight rows finish, no new row starts."""

    stopped: asyncio.Event | None = None
    _stop_requested: bool = False

    def stop(self) -> None:
        """Ask the batch to stop (from any thread)."""
        self._stop_requested = True

    @property
    def stopping(self) -> bool:
        return self._stop_requested


@dataclass
class _Batch:
    agent: Agent[Any]
    rows: BatchRows
    batch_id: str
    store: ResultsStore
    run_config: RunConfig
    max_turns: int | None
    on_approval: OnApproval
    concurrency: AdaptiveConcurrency
    limiter: RateLimiter
    progress: BatchProgress
    control: BatchControl
    results: list[RowResult | None] = field(default_factory=list)


def run_batch(
    agent: Agent[Any],
    rows: Any,
    *,
    prompt: str | None = None,
    concurrency: int = 8,
    output_type: Any = None,
    max_turns: int | None = None,
    run_config: RunConfig | None = None,
    cache: str | Path | bool = True,
    backend: Literal["local", "ray"] = "local",
    on_approval: OnApproval = "deny",
    requests_per_minute: int | None = None,
    tokens_per_minute: int | None = None,
    fresh: bool = False,
    progress: Any = "auto",
    control: BatchControl | None = None,
) -> BatchResult:
    """Run ``agent`` on every row of ``rows`` and wait (see :func:`arun_batch`, its async
    twin, for the arguments). Works in a notebook cell, a script or a running loop."""
    return run_blocking(
        arun_batch(
            agent,
            rows,
            prompt=prompt,
            concurrency=concurrency,
            output_type=output_type,
            max_turns=max_turns,
            run_config=run_config,
            cache=cache,
            backend=backend,
            on_approval=on_approval,
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
            fresh=fresh,
            progress=progress,
            control=control,
        )
    )


async def arun_batch(
    agent: Agent[Any],
    rows: Any,
    *,
    prompt: str | None = None,
    concurrency: int = 8,
    output_type: Any = None,
    max_turns: int | None = None,
    run_config: RunConfig | None = None,
    cache: str | Path | bool = True,
    backend: Literal["local", "ray"] = "local",
    on_approval: OnApproval = "deny",
    requests_per_minute: int | None = None,
    tokens_per_minute: int | None = None,
    fresh: bool = False,
    progress: Any = "auto",
    control: BatchControl | None = None,
) -> BatchResult:
    """Run ``agent`` on every row of ``rows``.

    Args:
        agent: The agent each row runs.
        rows: A pandas DataFrame, a list of dicts or strings, or any iterable of them.
        prompt: A ``str.format`` template over the row's columns (``"Classify: {text}"``);
            default: a string row itself, else ``column: value`` lines.
        concurrency: Rows at once (at most; halved while the provider answers 429).
        output_type: The structured output of each row (a pydantic model, dataclass, ...):
            its fields become columns in ``to_pandas()``. Default: the agent's own.
        max_turns: Per row.
        run_config: Per row (its ``model_retry`` retries 429s, honouring ``Retry-After``).
        cache: Where finished rows are kept: True for ``.jupyter_agents/batches.sqlite``
            under the working directory, a path, or False for nowhere.
        backend: ``"local"`` (this process) or ``"ray"`` (tasks on the connected Ray
            cluster).
        on_approval: What a tool call that needs approval gets: ``"deny"`` (rejected),
            ``"auto"`` (approved), ``"review"`` (the row pauses; decide on the result's
            waiting rows, then ``resume()``).
        requests_per_minute: A cap on model requests, across all rows.
        tokens_per_minute: A cap on tokens, across all rows.
        fresh: Forget stored rows of this batch and run everything again.
        progress: ``"auto"`` (a widget in a notebook, a text line elsewhere), ``"text"``,
            None (nothing), or a :class:`BatchProgress`.
        control: A :class:`BatchControl` whose ``stop()`` stops the batch.
    """
    if concurrency < 1:
        raise UserError("run_batch: concurrency must be 1 or more.")
    if on_approval not in ("deny", "auto", "review"):
        raise UserError(
            f"run_batch: on_approval must be 'deny', 'auto' or 'review', got {on_approval!r}."
        )
    if backend not in ("local", "ray"):
        raise UserError(f"run_batch: backend must be 'local' or 'ray', got {backend!r}.")
    batch_rows = BatchRows.of(rows, prompt)  # a missing column fails here, before any call
    control = control or BatchControl()
    if output_type is not None:
        agent = agent.clone(output_type=output_type)
    config = run_config or RunConfig()
    limits = AdaptiveConcurrency(concurrency)
    config = dataclasses.replace(
        config, model_retry=WatchedRetry.around(config.model_retry, limits.on_rate_limited)
    )
    identity = batch_identity(agent, prompt, config, max_turns)
    batch_id = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    store = _open_store(cache)
    store.open_batch(batch_id, identity, fresh=fresh)
    batch = _Batch(
        agent=agent,
        rows=batch_rows,
        batch_id=batch_id,
        store=store,
        run_config=config,
        max_turns=max_turns,
        on_approval=on_approval,
        concurrency=limits,
        limiter=RateLimiter(requests_per_minute, tokens_per_minute),
        progress=progress_for(progress, len(batch_rows), control),
        control=control,
        results=[None] * len(batch_rows),
    )
    if backend == "ray":
        from .ray_backend import run_on_ray

        return await run_on_ray(batch)
    return await _run_local(batch, decisions={})


def batch_identity(
    agent: Agent[Any], prompt: str | None, config: RunConfig, max_turns: int | None
) -> dict[str, Any]:
    """What makes two batches the same one: the agent's setup, the prompt and the model."""
    schema = agent.output_schema
    model = config.model or agent.model
    return {
        "agent": agent.name,
        "instructions": agent.instructions
        if isinstance(agent.instructions, str) or agent.instructions is None
        else getattr(agent.instructions, "__qualname__", "function"),
        "model": model if isinstance(model, str) or model is None else type(model).__name__,
        "tools": sorted(getattr(t, "name", "?") for t in agent.tools),
        "output": schema.json_schema() if schema is not None else None,
        "prompt": prompt,
        "max_turns": max_turns,
    }


def _open_store(cache: str | Path | bool) -> ResultsStore:
    if cache is False:
        return ResultsStore(":memory:")
    return ResultsStore(DEFAULT_STORE if cache is True else Path(cache))


async def _run_local(batch: _Batch, decisions: dict[str, dict[str, Any]]) -> BatchResult:
    """Run every row the store does not have (or, when resuming, the decided rows)."""
    todo = rows_to_run(batch, decisions)
    started = time.monotonic()
    in_flight = Window()
    queue = iter(todo)
    exhausted = False
    try:
        while True:
            while (
                not exhausted
                and not batch.control.stopping
                and len(in_flight) < batch.concurrency.limit
            ):
                index = next(queue, None)
                if index is None:
                    exhausted = True
                    break
                in_flight.add(asyncio.ensure_future(_one(batch, index, decisions)), index)
            if not len(in_flight):
                break
            task, _ = await in_flight.next()
            task.result()  # a bug in the batch itself, not a row's failure, surfaces
    except BaseException:
        await in_flight.cancel_all()
        raise
    finally:
        batch.progress.finish(time.monotonic() - started, batch.control.stopping)
    return _result(batch)


def rows_to_run(batch: _Batch, decisions: dict[str, dict[str, Any]]) -> list[int]:
    """The rows to run, in order: those the store lacks (or whose prompt changed), or, when
    resuming, the decided ones. The others are taken from the store, and progress starts."""
    stored = batch.store.rows(batch.batch_id)
    todo: list[int] = []
    for i, key in enumerate(batch.rows.keys):
        row = stored.get(key)
        if decisions:
            if key in decisions and row is not None and row.status == "waiting":
                todo.append(i)
            elif row is not None:
                batch.results[i] = _from_store(batch, i, row)
            continue
        if row is not None and row.prompt_hash == prompt_hash(batch.rows.prompts[i]):
            batch.results[i] = _from_store(batch, i, row)
        else:
            todo.append(i)
    batch.progress.start(len(batch.rows), [r for r in batch.results if r is not None])
    return todo


def _result(batch: _Batch) -> BatchResult:
    rows = [
        r if r is not None else RowResult(key, label, "pending")
        for r, key, label in zip(batch.results, batch.rows.keys, batch.rows.labels, strict=True)
    ]

    def resume(previous: BatchResult) -> BatchResult:
        decided, previous.decisions = dict(previous.decisions), {}
        return run_blocking(_resume(batch, decided))

    return BatchResult(
        rows,
        batch.batch_id,
        batch.rows.index_name,
        stopped=batch.control.stopping,
        rate_limited=batch.concurrency.rate_limited,
        _resume=resume,
    )


async def _resume(batch: _Batch, decisions: dict[str, dict[str, Any]]) -> BatchResult:
    batch.control = BatchControl()
    batch.results = [None] * len(batch.rows)
    return await _run_local(batch, decisions)


def _from_store(batch: _Batch, index: int, row: StoredRow) -> RowResult:
    return RowResult(
        row.key,
        batch.rows.labels[index],
        row.status,  # type: ignore[arg-type]
        row.output,
        row.error,
        row.tokens,
        row.seconds,
        row.waiting,
        from_store=True,
    )


async def _one(batch: _Batch, index: int, decisions: dict[str, dict[str, Any]]) -> None:
    key, prompt = batch.rows.keys[index], batch.rows.prompts[index]
    batch.progress.row_started(index)
    decided = decisions.get(key)
    stored = batch.store.row(batch.batch_id, key) if decided is not None else None
    row, state = await run_one_row(
        batch.agent,
        prompt,
        key,
        batch.rows.labels[index],
        stored.state if stored is not None else None,
        decided,
        batch.run_config,
        batch.max_turns,
        batch.on_approval,
        batch.limiter,
    )
    if row.status != "failed":
        batch.concurrency.on_success()
    record(batch, index, row, state)


def record(batch: _Batch, index: int, row: RowResult, state: str | None) -> None:
    """Keep a finished row: in the result, in the store (at once), and in the progress."""
    batch.results[index] = row
    batch.store.put(
        batch.batch_id,
        StoredRow(
            row.key,
            prompt_hash(batch.rows.prompts[index]),
            row.status,
            row.output,
            row.error,
            row.tokens,
            row.seconds,
            state,
            row.waiting,
        ),
    )
    batch.progress.row_done(index, row)


async def run_one_row(
    agent: Agent[Any],
    prompt: str,
    key: str,
    label: Any,
    stored_state: str | None,
    decided: dict[str, Any] | None,
    run_config: RunConfig,
    max_turns: int | None,
    on_approval: OnApproval,
    hooks: Any = None,
) -> tuple[RowResult, str | None]:
    """Run one row (or resume it with the review's decisions); never raises for the row's own
    failure. Returns the row and, for a row that paused, its ``RunState`` JSON."""
    started = time.monotonic()
    try:
        start: Any = prompt
        if decided is not None:
            if stored_state is None:
                raise UserError(f"Row {label!r} has no stored state to resume.")
            start = _decided_state(agent, stored_state, decided)
        handler = {"deny": _deny, "auto": _approve}.get(on_approval)
        result = await Runner.run(
            agent,
            start,
            max_turns=max_turns,
            run_config=run_config,
            hooks=hooks,
            approval_handler=handler,
        )
    except Exception as e:
        failed = RowResult(
            key,
            label,
            "failed",
            error=f"{type(e).__name__}: {e}",
            seconds=time.monotonic() - started,
        )
        return failed, None
    row = _row_of(result, key, label, time.monotonic() - started)
    return row, (result.to_state().to_json() if row.status == "waiting" else None)


def _decided_state(agent: Agent[Any], stored_state: str, decided: dict[str, Any]) -> RunState:
    state = RunState.from_json(agent, stored_state)
    for item in state.interruptions:
        choice = decided.get(item.call_id)
        if choice is None:
            continue
        if choice["approved"]:
            state.approve(item, always=bool(choice.get("always")))
        else:
            state.reject(item, message=choice.get("message"))
    return state


def _deny(request: Any) -> ApprovalDecision:
    return ApprovalDecision.reject("Not allowed in this batch (run_batch on_approval='deny').")


def _approve(request: Any) -> ApprovalDecision:
    return ApprovalDecision.approve()


def _row_of(result: Any, key: str, label: Any, seconds: float) -> RowResult:
    tokens = int(result.context_wrapper.usage.total_tokens)
    if result.interruptions:
        waiting = [
            {"call_id": i.call_id, "tool": i.tool_name, "arguments": i.arguments}
            for i in result.interruptions
        ]
        return RowResult(key, label, "waiting", tokens=tokens, seconds=seconds, waiting=waiting)
    rejected = any(
        isinstance(i, ToolCallOutputItem) and i.approval is not None and not i.approval.approved
        for i in result.new_items
    )
    return RowResult(
        key,
        label,
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
