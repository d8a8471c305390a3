"""``run_batch(backend="ray")``: rows run on the cluster this process is connected to
(``ray.init(address=...)``; with no connection, ``ray.init()`` starts or finds one as Ray does).

The rows go to async Ray actors, one per CPU of the cluster (no more than the concurrency), each
running many rows at a time on its own event loop (model calls wait on the network, not the
CPU). The agent travels to each actor once, with cloudpickle as Ray sends functions; what cannot
be pickled is named before anything runs. The driver's loop (``driver.drive``, the same as for
local rows) keeps everything else: the results store, the progress, the concurrency (rows in
flight) and the request and token limits, so they hold across the whole cluster. ``OPENAI_*``
settings of the driver go to the actors' environment. An actor that dies is replaced (the rows
of the call it died in fail; the next calls go to the new one).

Each batch starts its actors and stops them at its end, unless ``run_batch(ray_keep_warm=...)``
keeps them for the next batch of this process (``_ray_pool``): a batch sends its settings to
the actors it gets (``RowRunner.load``, unpickled afresh: nothing of an earlier batch's agent,
run config or cassette is used) and drops them at its end.

With a cassette, its recordings travel with the settings (each actor replays from its own copy,
with the cassette's mode and ``replay_tools``); each row's outcome brings back what it recorded
and replayed, and the driver merges that into the caller's cassette and saves it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import uuid
from typing import Any

from ..errors import UserError
from ..retry import ModelRetryPolicy
from . import _ray_pool
from ._ray_pool import ActorPool, ActorSetup, connection_of
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

    def __init__(self, batch: Batch, keep_warm: float | None = None) -> None:
        """Check the agent can travel, connect to Ray and start the actors (or lease warm
        ones: ``keep_warm`` is how long they wait idle for the next batch; None stops them at
        the batch's end)."""
        ray = self._ray = _ray()
        settings = _worker_settings(batch.settings)
        problem = unpicklable(settings.agent, settings.run_config, ray.cloudpickle)
        if problem is not None:
            raise UserError(f"backend='ray' cannot send {problem}")
        if not ray.is_initialized():
            ray.init(log_to_driver=False)
        self._payload = ray.put(ray.cloudpickle.dumps(settings))  # once, however many actors
        self._token = uuid.uuid4().hex  # this batch's settings on the actors
        env = {name: os.environ[name] for name in _ENV if name in os.environ}
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        count = max(1, min(batch.concurrency.maximum, cpus))
        per_actor = -(-batch.concurrency.maximum // count)  # ceiling
        wanted = ActorSetup(connection_of(ray), count, per_actor, tuple(sorted(env.items())))
        self._keep_warm = keep_warm
        # Warm actors that fit serve any batch; idle ones that do not are stopped (they hold
        # the CPUs new actors need).
        pool = _ray_pool.lease(wanted)
        if pool is None:
            pool = ActorPool(wanted, [], ray)
            pool.actors = [self._start(pool) for _ in range(count)]
            if keep_warm is not None:
                _ray_pool.adopt(pool)
        self._pool = pool
        self._loading: list[asyncio.Future[Any] | None] = [None] * count
        self._turn = 0
        self._calls = 0  # calls not answered: an actor still running rows is not kept
        self._batch = batch
        # Several rows per actor call when many run at once: Ray's cost per call is shared.
        self.chunk = max(1, min(8, per_actor // 8))
        _ray_pool.batch_started()

    def _start(self, pool: ActorPool) -> Any:
        setup = pool.setup
        env = dict(setup.env)
        return (
            self._ray.remote(RowRunner)
            .options(
                num_cpus=1,
                max_concurrency=setup.per_actor,
                **({"runtime_env": {"env_vars": env}} if env else {}),
            )
            .remote()
        )

    async def admit(self, index: int) -> None:
        """Hold the row until it fits the batch's limits: cluster-wide, it counts as one
        request at its start (and its tokens at its end)."""
        await self._batch.limiter.request()

    async def run(self, indexes: list[int]) -> list[RowOutcome]:
        """Send the rows to the next actor in turn; all fail if the call itself does (an
        actor that died is replaced for the calls after it)."""
        slot = self._turn % len(self._pool.actors)
        self._turn += 1
        rows = self._batch.rows
        left = self._batch.budget.left()  # what the rows may spend there
        jobs = [RowJob(rows.prompts[i], rows.keys[i], rows.labels[i], None, left) for i in indexes]
        self._calls += 1
        actor = None
        try:
            actor = await self._loaded(slot)
            call = actor.run.remote(self._token, jobs)
            outcomes: list[RowOutcome] = await asyncio.wrap_future(call.future())
        except Exception as e:  # the call failed as a whole (an actor died, ...)
            if isinstance(e, self._ray.exceptions.RayActorError) and self._replace(slot, actor):
                self._loading[slot] = None  # the next call loads the settings into the new one
            error = f"{type(e).__name__}: {e}"
            outcomes = [RowOutcome(RowResult(j.key, j.label, "failed", error=error)) for j in jobs]
        self._calls -= 1  # not when cancelled: the actor may still be running the rows
        for outcome in outcomes:
            self._batch.limiter.used(outcome.row.tokens)
        return outcomes

    async def _loaded(self, slot: int) -> Any:
        """The slot's actor, once it holds this batch's settings."""
        loading = self._loading[slot]
        if loading is None:
            loading = self._loading[slot] = asyncio.ensure_future(self._load(slot))
        return await asyncio.shield(loading)

    async def _load(self, slot: int) -> Any:
        """Send the settings to the slot's actor; one that died (a warm one killed between
        batches, say) is replaced first."""
        actor = self._pool.actors[slot]
        try:
            await asyncio.wrap_future(actor.load.remote(self._token, self._payload).future())
        except self._ray.exceptions.RayActorError:
            self._replace(slot, actor)
            actor = self._pool.actors[slot]
            await asyncio.wrap_future(actor.load.remote(self._token, self._payload).future())
        return actor

    def _replace(self, slot: int, dead: Any) -> bool:
        """Start a new actor in ``slot`` unless ``dead`` was replaced already; whether this
        call replaced it."""
        if self._pool.actors[slot] is not dead:
            return False
        self._ray.kill(dead)  # it may be only unreachable: it must not come back
        self._pool.actors[slot] = self._start(self._pool)
        return True

    def close(self) -> None:
        """Keep the actors warm (``keep_warm``, when no call is left on them), else stop them."""
        _ray_pool.batch_ended()
        if self._keep_warm is None or self._calls:
            _ray_pool.release(self._pool)
            return
        for actor in self._pool.actors:
            actor.forget.remote(self._token)
        _ray_pool.give_back(self._pool, self._keep_warm)


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
    parts: list[tuple[str, Any]] = [(f"tool {t.name!r}", t) for t in agent.tools]
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
    """A Ray actor running rows (many at once, on its event loop), of the batches whose
    settings it holds (one at a time, unless a batch ended mid-call)."""

    def __init__(self) -> None:
        self._batches: dict[str, _Loaded] = {}

    def load(self, token: str, payload: bytes) -> None:
        """Hold a batch's settings (as unpickled now: nothing of an earlier batch's objects)."""
        self._batches[token] = _Loaded(_ray().cloudpickle.loads(payload))

    def forget(self, token: str) -> None:
        """Drop a batch's settings (its last row ended)."""
        self._batches.pop(token, None)

    async def run(self, token: str, jobs: list[RowJob]) -> list[RowOutcome]:
        """Run ``jobs`` of batch ``token`` at once; each one's outcome, with the 429s seen
        meanwhile."""
        loaded = self._batches[token]
        return list(await asyncio.gather(*(loaded.run(job) for job in jobs)))


class _Loaded:
    """A batch's settings on an actor, its retries watched for 429s."""

    def __init__(self, settings: RowSettings) -> None:
        retry = WatchedRetry.around(settings.run_config.model_retry, self._rate_limited)
        config = dataclasses.replace(settings.run_config, model_retry=retry)
        self.settings = dataclasses.replace(settings, run_config=config)
        self._limited = 0

    def _rate_limited(self) -> None:
        self._limited += 1

    async def run(self, job: RowJob) -> RowOutcome:
        before = self._limited
        outcome = await run_row(self.settings, job)
        return dataclasses.replace(outcome, rate_limited=self._limited - before)
