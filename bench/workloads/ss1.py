"""SS1: session stores for many users: how fast runs' items are appended, and how long reading a
10,000-item history takes.

One writer appends turns of four items (what a run with one tool call saves: one
``add_items`` call each) until the session holds 10,000 items; the rate is measured per block
of 250 turns. Then the whole history is read 10 times (``get_items()``) and the latest 50
items 20 times. Stores: the SQLite session (a file, WAL, fsync per commit), SQLAlchemy on
PostgreSQL (asyncpg, a private server with PostgreSQL's default durability: fsync on) and on
SQLite (aiosqlite), and Redis (in memory, no persistence). The peer runs the same with the
SDK's own classes (``SQLiteSession``, ``SQLAlchemySession``, ``RedisSession``) on servers of
its own. Needs ``postgresql`` and ``redis-server`` (Debian packages).
"""

from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from jupyter_agents.testing.db_servers import postgres_server, redis_server

from .._common import Impl, Measured, main

WORKLOAD = "SS1"

TURN = 4
STORES = ("sqlite", "pg", "sa_sqlite", "redis")


def turn_items(n: int) -> list[dict[str, Any]]:
    """Four items shaped like a run's: input, tool call, tool output, answer (~600 bytes)."""
    return [
        {"role": "user", "content": f"question {n}: what is the weather in Paris today?"},
        {
            "type": "function_call",
            "call_id": f"call_{n}",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": f"call_{n}", "output": "18°C, cloudy"},
        {
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "It is 18°C and cloudy. " * 4}],
        },
    ]


def make_session(impl: Impl, store: str, urls: dict[str, str], folder: Path) -> Any:
    sid = uuid.uuid4().hex
    if impl.name == "ours":
        from jupyter_agents import SQLiteSession
        from jupyter_agents.extensions.memory import RedisSession, SQLAlchemySession
    else:
        from agents import SQLiteSession  # type: ignore[no-redef]
        from agents.extensions.memory import (  # type: ignore[no-redef]
            RedisSession,
            SQLAlchemySession,
        )
    if store == "sqlite":
        return SQLiteSession(sid, str(folder / f"{impl.name}-{sid}.db"))
    if store == "redis":
        return RedisSession.from_url(sid, url=urls["redis"])
    url = urls["pg"] if store == "pg" else f"sqlite+aiosqlite:///{folder / f'{sid}.db'}"
    return SQLAlchemySession.from_url(sid, url=url, create_tables=True)


async def close(session: Any) -> None:
    closing = getattr(session, "close", None)
    if closing is None:  # the SDK's SQLAlchemySession: its engine
        await session.engine.dispose()
        return
    result = closing()
    if hasattr(result, "__await__"):
        await result


async def measure_store(session: Any, items: int, block: int) -> dict[str, list[float]]:
    rates: list[float] = []
    turns = items // TURN
    for first in range(0, turns, block):
        start = time.perf_counter()
        for n in range(first, min(first + block, turns)):
            await session.add_items(turn_items(n))
        done = min(first + block, turns) - first
        rates.append(done * TURN / (time.perf_counter() - start))
    read_ms: list[float] = []
    for _ in range(10):
        start = time.perf_counter()
        history = await session.get_items()
        read_ms.append((time.perf_counter() - start) * 1000)
    if len(history) != items:
        raise RuntimeError(f"{type(session).__name__} holds {len(history)} of {items} items")
    latest_ms: list[float] = []
    for _ in range(20):
        start = time.perf_counter()
        await session.get_items(limit=50)
        latest_ms.append((time.perf_counter() - start) * 1000)
    return {"items_per_s": rates, "read_ms_10k": read_ms, "read_latest50_ms": latest_ms}


async def measure(impl: Impl, quick: bool) -> Measured:
    items, block = (400, 25) if quick else (10_000, 250)
    metrics: dict[str, list[float]] = {}
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-ss1-") as folder:
        urls = {
            "pg": stack.enter_context(postgres_server()),
            "redis": stack.enter_context(redis_server()),
        }
        for store in STORES:
            session = make_session(impl, store, urls, Path(folder))
            try:
                found = await measure_store(session, items, block)
            finally:
                await close(session)
            for key, samples in found.items():
                metrics[f"{store}_{key}"] = samples
    info = {
        key: round(statistics.median(v), 2) for key, v in metrics.items() if key.endswith("10k")
    }
    return Measured(metrics=metrics, info={"items": items, **info})


if __name__ == "__main__":
    main(WORKLOAD, measure)
