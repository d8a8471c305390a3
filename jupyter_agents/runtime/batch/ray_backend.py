"""``run_batch(backend="ray")``: rows run on the cluster this process is connected to
(``ray.init(address=...)``; with no connection, ``ray.init()`` starts or finds one as Ray does).

The rows go to async Ray actors, one per CPU of the cluster (no more than the concurrency), each
running many rows at a time on its own event loop (model calls wait on the network, not the
CPU). The agent travels to each actor once, with cloudpickle as Ray sends functions; what cannot
be pickled is named before anything runs. The driver keeps everything else: the results store,
the progress, the concurrency (rows in flight) and the request and token limits, so they hold
across the whole cluster. ``OPENAI_*`` settings of the driver go to the actors' environment.
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
from .window import Window

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
    from .run_batch import _result, record, rows_to_run

    ray = _ray()
    agent, config = batch.agent, _worker_config(batch.run_config)
    problem = unpicklable(agent, config, ray.cloudpickle)
    if problem is not None:
        raise UserError(f"backend='ray' cannot send {problem}")
    if not ray.is_initialized():
        ray.init(log_to_driver=False)
    payload = ray.cloudpickle.dumps((agent, config))
    env = {name: os.environ[name] for name in _ENV if name in os.environ}
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    count = max(1, min(batch.concurrency.maximum, cpus))
    per_actor = -(-batch.concurrency.maximum // count)  # ceiling
    actor_class = ray.remote(RowRunner).options(
        num_cpus=1,
        max_concurrency=per_actor,
        **({"runtime_env": {"env_vars": env}} if env else {}),
    )
    actors = [actor_class.remote(payload) for _ in range(count)]
    turn = 0
    todo = rows_to_run(batch, decisions={})
    started = time.monotonic()
    # Several rows per actor call when many run at once: Ray's cost per call is shared.
    chunk = max(1, min(8, per_actor // 8))
    queue = list(reversed(todo))
    in_flight = Window()
    rows_in_flight = 0
    try:
        while True:
            while queue and not batch.control.stopping and rows_in_flight < batch.concurrency.limit:
                size = min(chunk, len(queue), batch.concurrency.limit - rows_in_flight)
                indexes = [queue.pop() for _ in range(size)]
                for index in indexes:
                    await batch.limiter.request()  # cluster-wide: once per row, at its start
                    batch.progress.row_started(index)
                actor, turn = actors[turn % count], turn + 1
                rows = [
                    (batch.rows.prompts[i], batch.rows.keys[i], batch.rows.labels[i])
                    for i in indexes
                ]
                ref = actor.run.remote(rows, batch.max_turns, batch.on_approval)
                in_flight.add(asyncio.wrap_future(ref.future()), indexes)
                rows_in_flight += size
            if not len(in_flight):
                break
            future, indexes = await in_flight.next()
            rows_in_flight -= len(indexes)
            for index, (row, state, rate_limited) in zip(
                indexes, _received(future, batch, indexes), strict=True
            ):
                for _ in range(rate_limited):
                    batch.concurrency.on_rate_limited()
                if row.status != "failed" and not rate_limited:
                    batch.concurrency.on_success()
                batch.limiter.used(row.tokens)
                record(batch, index, row, state)
    except BaseException:
        await in_flight.cancel_all()
        raise
    finally:
        for actor in actors:
            ray.kill(actor)
        batch.progress.finish(time.monotonic() - started, batch.control.stopping)
    return _result(batch)


def _received(
    future: asyncio.Future[Any], batch: Any, indexes: list[int]
) -> list[tuple[RowResult, Any, int]]:
    """The rows an actor call gave back (all failed when the call itself failed)."""
    try:
        answers = future.result()
    except Exception as e:  # the call failed as a whole (an actor died, ...)
        error = f"{type(e).__name__}: {e}"
        return [
            (RowResult(batch.rows.keys[i], batch.rows.labels[i], "failed", error=error), None, 0)
            for i in indexes
        ]
    return [(RowResult(**fields), state, limited) for fields, state, limited in answers]


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


class RowRunner:
    """A Ray actor running rows of one batch (many at once, on its event loop)."""

    def __init__(self, payload: bytes) -> None:
        import ray

        from .limits import AdaptiveConcurrency

        self.agent, config = ray.cloudpickle.loads(payload)
        self.watcher = AdaptiveConcurrency(1)
        self.config = dataclasses.replace(
            config,
            model_retry=WatchedRetry.around(config.model_retry, self._rate_limited),
        )
        self._limited = 0

    def _rate_limited(self) -> None:
        self._limited += 1

    async def run(
        self, rows: list[tuple[str, str, Any]], max_turns: int | None, on_approval: str
    ) -> list[tuple[dict[str, Any], str | None, int]]:
        """Run ``rows`` (prompt, key, label) at once; each one's fields, state and 429s."""
        return list(
            await asyncio.gather(*(self._one(*row, max_turns, on_approval) for row in rows))
        )

    async def _one(
        self, prompt: str, key: str, label: Any, max_turns: int | None, on_approval: str
    ) -> tuple[dict[str, Any], str | None, int]:
        from .run_batch import run_one_row

        before = self._limited
        row, state = await run_one_row(
            self.agent,
            prompt,
            key,
            label,
            None,
            None,
            self.config,
            max_turns,
            on_approval,  # type: ignore[arg-type]
        )
        return dataclasses.asdict(row), state, self._limited - before
