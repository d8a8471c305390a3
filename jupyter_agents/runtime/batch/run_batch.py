"""``run_batch``: one agent over every row of a table.

Rows run ``concurrency`` at a time (less while the provider answers 429), each as its own run
with the batch's run config, under the request and token limits. Each finished row is written
to the results store at once; a batch run again skips the rows the store has. Rows whose tools
need approval either ask nobody (``deny``), are approved (``auto``), or pause with their
``RunState`` stored (``review``) while the others go on. With a cassette, every row's run is
recorded, and a row whose inputs are the same as its recording's replays it without the model.

This module checks the arguments and sets the batch up; ``driver.drive`` runs it, on this
process (``LocalBackend``) or on Ray (``RayBackend``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import warnings
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from .._pricing import price_ref_of, request_price
from .._run.model_call import resolve_model
from ..agent import Agent
from ..blocking import run_blocking
from ..errors import UserError
from ..replay import Cassette
from ..run import RunConfig
from ..usage import RequestUsage
from ._ray_pool import DEFAULT_IDLE_SECONDS
from .budget import BatchBudget
from .driver import Batch, BatchControl, LocalBackend, RowBackend, drive
from .limits import AdaptiveConcurrency, RateLimiter, WatchedRetry
from .progress import progress_for
from .ray_backend import RayBackend
from .result import BatchResult
from .row import ApproveMode, RowSettings
from .rows import BatchRows
from .store import DEFAULT_STORE, BatchCassette, ResultsStore

__all__ = ["BatchControl", "arun_batch", "run_batch"]


def run_batch(
    agent: Agent[Any],
    rows: Any,
    *,
    prompt: str | None = None,
    concurrency: int = 8,
    output_type: Any = None,
    max_turns: int | None = None,
    run_config: RunConfig | None = None,
    cassette: Cassette | str | os.PathLike[str] | None = None,
    cache: str | Path | bool = True,
    backend: Literal["local", "ray"] = "local",
    approve: ApproveMode = "deny",
    requests_per_minute: int | None = None,
    tokens_per_minute: int | None = None,
    fresh: bool = False,
    progress: Any = "auto",
    control: BatchControl | None = None,
    on_approval: ApproveMode | None = None,
    max_cost_usd: float | Decimal | None = None,
    ray_keep_warm: bool | float = False,
) -> BatchResult:
    """Run ``agent`` on every row of ``rows`` and wait (see ``arun_batch``, its async
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
            cassette=cassette,
            cache=cache,
            backend=backend,
            approve=_approve_mode(approve, on_approval),
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
            fresh=fresh,
            progress=progress,
            control=control,
            max_cost_usd=max_cost_usd,
            ray_keep_warm=ray_keep_warm,
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
    cassette: Cassette | str | os.PathLike[str] | None = None,
    cache: str | Path | bool = True,
    backend: Literal["local", "ray"] = "local",
    approve: ApproveMode = "deny",
    requests_per_minute: int | None = None,
    tokens_per_minute: int | None = None,
    fresh: bool = False,
    progress: Any = "auto",
    control: BatchControl | None = None,
    on_approval: ApproveMode | None = None,
    max_cost_usd: float | Decimal | None = None,
    ray_keep_warm: bool | float = False,
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
        cassette: Record every row's run into this ``Cassette`` (a path means
            ``Cassette(path)``, mode ``"auto"``), and replay a row whose inputs are the same as
            its recording's instead of calling the model; in mode ``"strict"`` a row with no
            recording fails saying what changed, and the others go on. Rows replay only what
            was recorded before the batch started, each its own row's recording first; the
            file is written once, when the batch ends (a crash loses nothing: the next batch
            with the cassette merges what the rows recorded). Rows taken from the results store
            do not run: ``fresh=True`` or ``cache=False`` replays (or records) every row. The
            same as ``run_config.replay``; give one of them.
        cache: Where finished rows are kept: True for ``.jupyter_agents/batches.sqlite``
            under the working directory, a path, or False for nowhere.
        backend: ``"local"`` (this process) or ``"ray"`` (tasks on the connected Ray
            cluster).
        approve: What a tool call that needs approval gets: ``"deny"`` (rejected),
            ``"auto"`` (approved), ``"review"`` (the row pauses; decide on the result's
            waiting rows, then ``resume()``). The word of ``%%agent --over --approve``.
        requests_per_minute: A cap on model requests, across all rows.
        tokens_per_minute: A cap on tokens, across all rows.
        fresh: Forget stored rows of this batch and run everything again.
        progress: ``"auto"`` (a widget in a notebook, a text line elsewhere), ``"text"``,
            None (nothing), or a ``BatchProgress``.
        control: A ``BatchControl`` whose ``stop()`` stops the batch.
        max_cost_usd: A budget in US dollars for the rows run now: rows start one at a time
            until one has finished, then only while the rows' mean cost says the budget
            holds; the others stay ``pending`` (run the batch again with a larger budget to
            go on). ``result.cost`` is the projection. A model without a known price cannot
            run under a budget (``UserError``).
        on_approval: The old name of ``approve`` (deprecated: it warns).
        ray_keep_warm: With ``backend="ray"``: keep the actors alive after the batch for the
            next Ray batch of this process (which then starts at once), until they are idle
            for 300 s (True) or this many seconds, ``release_ray_actors()`` is called, or the
            interpreter exits. Each batch sends its own agent, run config and cassette to
            them. Idle actors hold the cluster's CPUs. Default False: actors start for each
            batch and stop after it.
    """
    approve = _approve_mode(approve, on_approval)
    _check(concurrency, approve, backend)
    keep_warm = _keep_warm(ray_keep_warm, backend)
    budget = BatchBudget(_budget(max_cost_usd, agent, run_config))
    replay = _cassette(cassette, run_config)
    batch_rows = BatchRows.of(rows, prompt)  # a missing column fails here, before any call
    control = control or BatchControl()
    if output_type is not None:
        agent = agent.clone(output_type=output_type)
    config = run_config or RunConfig()
    if config.mode == "plan":
        raise UserError(
            "run_batch: RunConfig(mode='plan') is not supported here (it would ask one plan "
            "approval per row); agree the plan first and put it in the prompt, or use "
            "%%agent --over ... --mode plan, which asks once."
        )
    if config.replay is not None:
        config = dataclasses.replace(config, replay=None)  # each row gets its own view of it
    kept = BatchCassette(replay) if replay is not None else None
    limits = AdaptiveConcurrency(concurrency)
    config = dataclasses.replace(
        config, model_retry=WatchedRetry.around(config.model_retry, limits.on_rate_limited)
    )
    identity = batch_identity(agent, prompt, config, max_turns)
    batch_id = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    store = _open_store(cache)
    store.open_batch(batch_id, identity, fresh=fresh)
    batch = Batch(
        rows=batch_rows,
        batch_id=batch_id,
        store=store,
        settings=RowSettings(
            agent, config, max_turns, approve, replay=kept.pool if kept is not None else None
        ),
        concurrency=limits,
        limiter=RateLimiter(requests_per_minute, tokens_per_minute),
        progress=progress_for(progress, len(batch_rows), control),
        control=control,
        cassette=kept,
        budget=budget,
    )
    where: RowBackend = (
        RayBackend(batch, keep_warm) if backend == "ray" else LocalBackend(batch, {})
    )
    return await drive(batch, where, decisions={})


def _approve_mode(approve: ApproveMode, on_approval: ApproveMode | None) -> ApproveMode:
    """``approve``, or the value given by its old name ``on_approval`` (with a warning that
    points at the caller's line)."""
    if on_approval is None:
        return approve
    if approve != "deny" and approve != on_approval:
        raise UserError("run_batch: on_approval= is the old name of approve=; give approve= alone.")
    warnings.warn(
        "run_batch(on_approval=...): on_approval= is now approve= (the word of "
        "%%agent --over --approve); on_approval= will be removed.",
        DeprecationWarning,
        stacklevel=3,
    )
    return on_approval


def _cassette(cassette: Any, run_config: RunConfig | None) -> Cassette | None:
    """The batch's cassette: ``cassette`` (a path read as ``Cassette(path)``), or the run
    config's ``replay``."""
    if cassette is None:
        return run_config.replay if run_config is not None else None
    if run_config is not None and run_config.replay is not None:
        raise UserError(
            "run_batch: give the cassette once, as cassette= or as run_config.replay, not both."
        )
    if isinstance(cassette, Cassette):
        return cassette
    if isinstance(cassette, (str, os.PathLike)):
        return Cassette(cassette)
    raise UserError(
        f"run_batch: cassette must be a Cassette or a file path, got {type(cassette).__name__}."
    )


def _budget(limit: Any, agent: Agent[Any], run_config: RunConfig | None) -> Decimal | None:
    """The batch's budget, checked: a positive number, and a model with a known price."""
    if limit is None:
        return None
    RunConfig(max_cost_usd=limit)  # the same check as a run's budget
    model = resolve_model(agent, run_config or RunConfig())
    ref = price_ref_of(model)
    if ref is None or request_price(ref, RequestUsage(1, 1, 2)) is None:
        raise UserError(
            f"run_batch: max_cost_usd is set but no price is known for model {model!r}: use a "
            "model genai-prices knows, set the model's price_provider, or drop the budget."
        )
    return Decimal(str(limit))


def _check(concurrency: int, approve: str, backend: str) -> None:
    if concurrency < 1:
        raise UserError("run_batch: concurrency must be 1 or more.")
    if approve not in ("deny", "auto", "review"):
        raise UserError(f"run_batch: approve must be 'deny', 'auto' or 'review', got {approve!r}.")
    if backend not in ("local", "ray"):
        raise UserError(f"run_batch: backend must be 'local' or 'ray', got {backend!r}.")


def _keep_warm(keep: bool | float, backend: str) -> float | None:
    """How long a Ray batch's actors wait idle for the next batch (None: not kept)."""
    if keep is False:
        return None
    if backend != "ray":
        raise UserError("run_batch: ray_keep_warm applies to backend='ray' alone.")
    if keep is True:
        return DEFAULT_IDLE_SECONDS
    if isinstance(keep, (int, float)) and keep > 0:
        return float(keep)
    raise UserError(
        f"run_batch: ray_keep_warm must be True, False or seconds above 0, got {keep!r}."
    )


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
        "model": _model_identity(model),
        "tools": sorted(t.name for t in agent.tools),
        "output": schema.json_schema() if schema is not None else None,
        "prompt": prompt,
        "max_turns": max_turns,
    }


def _model_identity(model: Any) -> str | None:
    """A model's name, or its class with the name it calls (two model objects of one class for
    different models are different batches)."""
    if isinstance(model, str) or model is None:
        return model
    name = getattr(model, "model", None)
    return f"{type(model).__name__}:{name}" if isinstance(name, str) else type(model).__name__


def _open_store(cache: str | Path | bool) -> ResultsStore:
    if cache is False:
        return ResultsStore(":memory:")
    return ResultsStore(DEFAULT_STORE if cache is True else Path(cache))
