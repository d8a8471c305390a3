"""Ray actors kept warm between the batches of this process (``run_batch(ray_keep_warm=...)``).

Every Ray batch leases a pool: idle actors of the same setup (the same Ray connection, as many
actors, enough calls at once per actor, the same environment), or none, and then it starts its
own. At its end a batch with ``ray_keep_warm`` gives the pool back (one without stops it),
which then waits, idle, until the next batch leases it or its idle time runs out (a daemon
timer), ``release_ray_actors()`` is called, or the interpreter exits. Nothing of a batch stays
on the actors: each batch loads its own settings into them and drops them at its end
(``RowRunner.load`` / ``forget``).

A pool given back while another Ray batch of this process runs is released at once: that batch
may be waiting for the CPUs these actors hold. A pool of an earlier Ray connection (``ray``
shut down, or connected elsewhere, since) is dropped without a call: its actors ended with
that connection.
"""

from __future__ import annotations

import atexit
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DEFAULT_IDLE_SECONDS",
    "ActorPool",
    "ActorSetup",
    "adopt",
    "batch_ended",
    "batch_started",
    "connection_of",
    "give_back",
    "lease",
    "release",
    "release_ray_actors",
    "warm_ray_actors",
]

DEFAULT_IDLE_SECONDS = 300.0
"""How long warm actors wait for the next batch with ``ray_keep_warm=True``."""


@dataclass(frozen=True)
class ActorSetup:
    """What a batch needs of its actors; a pool fits a batch when everything but
    ``per_actor`` is the same and its ``per_actor`` is at least the batch's."""

    connection: str
    """The Ray session and job this process is connected as (``connection_of``)."""
    count: int
    """How many actors."""
    per_actor: int
    """Calls at once per actor (its ``max_concurrency``)."""
    env: tuple[tuple[str, str], ...]
    """The ``OPENAI_*`` variables set in the actors' environment."""

    def fits(self, wanted: ActorSetup) -> bool:
        """Whether actors of this setup can run a batch that wants ``wanted``."""
        return (self.connection, self.count, self.env) == (
            wanted.connection,
            wanted.count,
            wanted.env,
        ) and self.per_actor >= wanted.per_actor


@dataclass(eq=False)
class ActorPool:
    """Actors of one setup, leased by one batch at a time."""

    setup: ActorSetup
    actors: list[Any]
    """The actor handles, by slot (a slot whose actor died gets a new one)."""
    ray: Any = field(repr=False)
    """The ``ray`` module (imported by the backend, only when a batch runs on Ray)."""
    timer: threading.Timer | None = field(default=None, repr=False)
    """While idle: the timer that releases the pool."""


_lock = threading.Lock()
_idle: list[ActorPool] = []
_leased: set[ActorPool] = set()
_running = 0  # Ray batches of this process running now, whether they keep actors warm or not
_exit_hook = False


def connection_of(ray: Any) -> str:
    """The Ray connection this process has now: a new ``ray.init`` is a new one (when Ray
    cannot say, a name no other connection has: no actors are reused)."""
    try:
        context = ray.get_runtime_context()
        return f"{context.get_session_name()}/{context.get_job_id()}"
    except Exception:
        return f"unknown/{uuid.uuid4().hex}"


def lease(wanted: ActorSetup) -> ActorPool | None:
    """An idle pool that fits ``wanted``, now leased; None if there is none. Idle pools that
    do not fit are released (they hold CPUs the batch's new actors may need)."""
    with _lock:
        found = next((p for p in _idle if p.setup.fits(wanted)), None)
        others = [p for p in _idle if p is not found]
        _idle[:] = []
        if found is not None:
            _cancel_timer(found)
            _leased.add(found)
    for pool in others:
        _kill(pool)
    return found


def adopt(pool: ActorPool) -> None:
    """Count a pool a batch just started as leased (so ``warm_ray_actors`` sees it)."""
    with _lock:
        _leased.add(pool)


def give_back(pool: ActorPool, idle_seconds: float) -> None:
    """Keep ``pool`` for the next batch for ``idle_seconds``, unless another Ray batch runs
    now (then it is released)."""
    global _exit_hook
    with _lock:
        _leased.discard(pool)
        keep = _running == 0
        if keep:
            timer = threading.Timer(idle_seconds, _expire, (pool,))
            timer.daemon = True  # an idle pool never holds the interpreter open
            pool.timer = timer
            _idle.append(pool)
            timer.start()
            if not _exit_hook:
                atexit.register(release_ray_actors)
                _exit_hook = True
    if not keep:
        _kill(pool)


def release(pool: ActorPool) -> None:
    """Release a pool now (a batch that does not keep its actors, or ended mid-call)."""
    with _lock:
        _leased.discard(pool)
    _kill(pool)


def batch_started() -> None:
    """A Ray batch of this process starts (pools given back meanwhile are released)."""
    global _running
    with _lock:
        _running += 1


def batch_ended() -> None:
    """A Ray batch of this process ended (call before giving its pool back)."""
    global _running
    with _lock:
        _running -= 1


def release_ray_actors() -> int:
    """Stop the Ray actors kept warm between batches (``run_batch(ray_keep_warm=...)``) that
    no batch is using now; returns how many. Run at interpreter exit too.

    Call it after editing a module the agent's tools import (a warm actor keeps the modules it
    imported; tools defined in notebook cells travel with each batch), or to give the
    cluster's CPUs back before the idle time runs out.
    """
    with _lock:
        pools, _idle[:] = list(_idle), []
        for pool in pools:
            _cancel_timer(pool)
    for pool in pools:
        _kill(pool)
    return sum(len(p.actors) for p in pools)


def warm_ray_actors() -> int:
    """How many Ray actors this process keeps warm now: idle ones and those of batches
    running with ``ray_keep_warm``."""
    with _lock:
        return sum(len(p.actors) for p in [*_idle, *_leased])


def _expire(pool: ActorPool) -> None:
    with _lock:
        if pool not in _idle:
            return  # leased (or released) since the timer started
        _idle.remove(pool)
        pool.timer = None
    _kill(pool)


def _cancel_timer(pool: ActorPool) -> None:
    if pool.timer is not None:
        pool.timer.cancel()
        pool.timer = None


def _kill(pool: ActorPool) -> None:
    """Stop the pool's actors, unless their connection is gone (they went with it)."""
    ray = pool.ray
    try:
        if not ray.is_initialized() or connection_of(ray) != pool.setup.connection:
            return
        for actor in pool.actors:
            ray.kill(actor)
    except Exception:  # releasing is best effort: Ray may be shutting down
        return
