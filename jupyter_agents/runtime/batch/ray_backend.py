"""``run_batch(backend="ray")``: rows as Ray tasks on the cluster this process is connected to
(``ray.init(address=...)``; with no connection, ``ray.init()`` starts or finds one as Ray does).

The driver keeps everything else: the results store, the progress, the concurrency (tasks in
flight) and the request and token limits, so they hold across the whole cluster. The agent
travels to the workers with cloudpickle, as Ray sends functions; what cannot be pickled is
named before anything runs. ``OPENAI_*`` settings of the driver go to the tasks' environment.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
from typing import Any

from ..errors import UserError
from ..retry import ModelRetryPolicy
from .limits import WatchedRetry
from .result import BatchResult, RowResult

__all__ = ["run_on_ray", "unpicklable"]

_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_DEFAULT_MODEL", "JUPYTER_AGENTS_OPENAI_API")


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UserError(
            "backend='ray' needs Ray: pip install 'jupyter_agents[ray]' (then ray.init(...) to "
            "connect to a cluster, or nothing for a local one)."
        ) from None
    return ray


async def run_on_ray(batch: Any) -> BatchResult:
    """Run the batch's rows as Ray tasks (see the module docstring)."""
    from .rows import prompt_hash
    from .run_batch import _from_store, _result, record

    ray = _ray()
    agent, config = batch.agent, _worker_config(batch.run_config)
    problem = unpicklable(agent, config, ray.cloudpickle)
    if problem is not None:
        raise UserError(f"backend='ray' cannot send {problem}")
    if not ray.is_initialized():
        ray.init(log_to_driver=False)
    payload = ray.put(ray.cloudpickle.dumps((agent, config)))
    env = {name: os.environ[name] for name in _ENV if name in os.environ}
    task = ray.remote(_ray_row).options(
        num_cpus=0.25, max_retries=0, **({"runtime_env": {"env_vars": env}} if env else {})
    )
    stored = batch.store.rows(batch.batch_id)
    todo = []
    for i, key in enumerate(batch.rows.keys):
        row = stored.get(key)
        if row is not None and row.prompt_hash == prompt_hash(batch.rows.prompts[i]):
            batch.results[i] = _from_store(batch, i, row)
        else:
            todo.append(i)
    batch.progress.start(len(batch.rows), [r for r in batch.results if r is not None])
    started = time.monotonic()
    queue = iter(todo)
    in_flight: dict[asyncio.Future[Any], int] = {}
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
                await batch.limiter.on_llm_start(None, agent, None, None)  # the cluster's limits
                batch.progress.row_started(index)
                ref = task.remote(
                    payload,
                    batch.rows.prompts[index],
                    batch.rows.keys[index],
                    batch.rows.labels[index],
                    batch.max_turns,
                    batch.on_approval,
                )
                in_flight[asyncio.wrap_future(ref.future())] = index
            if not in_flight:
                break
            done, _ = await asyncio.wait(
                list(in_flight), timeout=0.5, return_when=asyncio.FIRST_COMPLETED
            )
            for future in done:
                index = in_flight.pop(future)
                row, state, rate_limited, usage = _received(future, batch, index)
                for _ in range(rate_limited):
                    batch.concurrency.on_rate_limited()
                if row.status != "failed" and not rate_limited:
                    batch.concurrency.on_success()
                if usage:
                    await batch.limiter.on_llm_end(None, agent, _Usage(usage))
                record(batch, index, row, state)
    except BaseException:
        for ref_future in in_flight:
            ref_future.cancel()
        raise
    finally:
        batch.progress.finish(time.monotonic() - started, batch.control.stopping)
    return _result(batch)


class _Usage:
    def __init__(self, tokens: int) -> None:
        self.usage = type("U", (), {"total_tokens": tokens})()


def _received(
    future: asyncio.Future[Any], batch: Any, index: int
) -> tuple[RowResult, Any, int, int]:
    try:
        fields, state, rate_limited = future.result()
    except Exception as e:  # the task itself failed (a worker died, ...)
        row = RowResult(
            batch.rows.keys[index],
            batch.rows.labels[index],
            "failed",
            error=f"{type(e).__name__}: {e}",
        )
        return row, None, 0, 0
    row = RowResult(**fields)
    return row, state, rate_limited, row.tokens


def _worker_config(config: Any) -> Any:
    """The run config without the driver's 429 watcher (the worker counts its own)."""
    retry = config.model_retry
    if isinstance(retry, WatchedRetry):
        base = {f.name: getattr(retry, f.name) for f in dataclasses.fields(ModelRetryPolicy)}
        retry = ModelRetryPolicy(**base)
    return dataclasses.replace(config, model_retry=retry)


def unpicklable(agent: Any, config: Any, pickler: Any) -> str | None:
    """What in the agent (or run config) cannot be pickled, as words for an error; None if
    everything can."""
    try:
        pickler.dumps((agent, config))
        return None
    except Exception as e:
        reason = f"{type(e).__name__}: {e}"
    parts: list[tuple[str, Any]] = [(f"tool {getattr(t, 'name', t)!r}", t) for t in agent.tools]
    parts += [
        (f"the model of agent {agent.name!r}", agent.model),
        (f"the instructions of agent {agent.name!r}", agent.instructions),
        (f"the output type of agent {agent.name!r}", agent.output_type),
        (f"the hooks of agent {agent.name!r}", agent.hooks),
        ("the run config's model", getattr(config, "model", None)),
        ("the run config", config),
    ]
    for words, value in parts:
        try:
            pickler.dumps(value)
        except Exception as e:
            return (
                f"{words} to the Ray workers: it cannot be pickled ({type(e).__name__}: {e}). "
                "Give a model by name (the workers make their own client), and define tools "
                "with what they need inside them."
            )
    return f"agent {agent.name!r} to the Ray workers: it cannot be pickled ({reason})."


def _ray_row(
    payload: bytes, prompt: str, key: str, label: Any, max_turns: int | None, on_approval: str
) -> tuple[dict[str, Any], str | None, int]:
    """One row, on a Ray worker."""
    import ray

    from ..blocking import run_blocking
    from .limits import AdaptiveConcurrency
    from .run_batch import run_one_row

    agent, config = ray.cloudpickle.loads(payload)
    watcher = AdaptiveConcurrency(1)
    config = dataclasses.replace(
        config, model_retry=WatchedRetry.around(config.model_retry, watcher.on_rate_limited)
    )
    row, state = run_blocking(
        run_one_row(agent, prompt, key, label, None, None, config, max_turns, on_approval)  # type: ignore[arg-type]
    )
    return dataclasses.asdict(row), state, watcher.rate_limited
