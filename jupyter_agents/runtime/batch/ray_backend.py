"""``run_batch(backend="ray")``: rows run on the cluster this process is connected to
(``ray.init(address=...)``; with no connection, ``ray.init()`` starts or finds one as Ray does).

The rows go to async Ray actors, one per CPU of the cluster (no more than the concurrency), each
running many rows at a time on its own event loop (model calls wait on the network, not the
CPU). The agent travels to each actor once, with cloudpickle as Ray sends functions; what cannot
be pickled is named before anything runs. The driver's loop (``driver.drive``, the same as for
local rows) keeps everything else: the results store, the progress, the concurrency (rows in
flight) and the request and token limits, so they hold across the whole cluster. ``OPENAI_*``
settings of the driver go to the actors' environment.

With a cassette, its recordings travel with the settings (each actor replays from its own copy,
with the cassette's mode and ``replay_tools``); each row's outcome brings back what it recorded
and replayed, and the driver merges that into the caller's cassette and saves it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from typing import Any

from ..errors import UserError
from ..retry import ModelRetryPolicy
from .driver import Batch
from .limits import WatchedRetry
from .result import RowResult
from .row import RowJob, RowOutcome, RowSettings, run_row

__all__ = ["RayBackend", "RowRunner", "unpicklable"]

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


class RayBackend:
    """Rows run on Ray actors, several rows per actor call (see the module docstring)."""

    def __init__(self, batch: Batch) -> None:
        """Check the agent can travel, connect to Ray and start the actors."""
        ray = self._ray = _ray()
        settings = _worker_settings(batch.settings)
        problem = unpicklable(settings.agent, settings.run_config, ray.cloudpickle)
        if problem is not None:
            raise UserError(f"backend='ray' cannot send {problem}")
        if not ray.is_initialized():
            ray.init(log_to_driver=False)
        payload = ray.put(ray.cloudpickle.dumps(settings))  # once, however many actors
        env = {name: os.environ[name] for name in _ENV if name in os.environ}
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        count = max(1, min(batch.concurrency.maximum, cpus))
        per_actor = -(-batch.concurrency.maximum // count)  # ceiling
        actor_class = ray.remote(RowRunner).options(
            num_cpus=1,
            max_concurrency=per_actor,
            **({"runtime_env": {"env_vars": env}} if env else {}),
        )
        self._actors = [actor_class.remote(payload) for _ in range(count)]
        self._turn = 0
        self._batch = batch
        # Several rows per actor call when many run at once: Ray's cost per call is shared.
        self.chunk = max(1, min(8, per_actor // 8))

    async def admit(self, index: int) -> None:
        """Hold the row until it fits the batch's limits: cluster-wide, it counts as one
        request at its start (and its tokens at its end)."""
        await self._batch.limiter.request()

    async def run(self, indexes: list[int]) -> list[RowOutcome]:
        """Send the rows to the next actor in turn; all fail if the call itself does."""
        actor = self._actors[self._turn % len(self._actors)]
        self._turn += 1
        rows = self._batch.rows
        jobs = [RowJob(rows.prompts[i], rows.keys[i], rows.labels[i]) for i in indexes]
        try:
            outcomes: list[RowOutcome] = await asyncio.wrap_future(actor.run.remote(jobs).future())
        except Exception as e:  # the call failed as a whole (an actor died, ...)
            error = f"{type(e).__name__}: {e}"
            outcomes = [RowOutcome(RowResult(j.key, j.label, "failed", error=error)) for j in jobs]
        for outcome in outcomes:
            self._batch.limiter.used(outcome.row.tokens)
        return outcomes

    def close(self) -> None:
        """Stop the actors."""
        for actor in self._actors:
            self._ray.kill(actor)


def _worker_settings(settings: RowSettings) -> RowSettings:
    """The settings without the driver's 429 watcher (each worker counts its own) and without
    the driver's hooks (its limiter stays on the driver)."""
    retry = settings.run_config.model_retry
    if isinstance(retry, WatchedRetry):
        base = {f.name: getattr(retry, f.name) for f in dataclasses.fields(ModelRetryPolicy)}
        retry = ModelRetryPolicy(**base)
    config = dataclasses.replace(settings.run_config, model_retry=retry)
    return dataclasses.replace(settings, run_config=config, hooks=None)


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
        """Load the batch's settings and watch their retries for 429s."""
        settings: RowSettings = _ray().cloudpickle.loads(payload)
        retry = WatchedRetry.around(settings.run_config.model_retry, self._rate_limited)
        config = dataclasses.replace(settings.run_config, model_retry=retry)
        self.settings = dataclasses.replace(settings, run_config=config)
        self._limited = 0

    def _rate_limited(self) -> None:
        self._limited += 1

    async def run(self, jobs: list[RowJob]) -> list[RowOutcome]:
        """Run ``jobs`` at once; each one's outcome, with the 429s seen meanwhile."""
        return list(await asyncio.gather(*(self._one(job) for job in jobs)))

    async def _one(self, job: RowJob) -> RowOutcome:
        before = self._limited
        outcome = await run_row(self.settings, job)
        return dataclasses.replace(outcome, rate_limited=self._limited - before)
