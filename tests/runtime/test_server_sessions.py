"""The stores of ``jupyter_agents.extensions.memory`` on real servers: the session contract on
each (SQLAlchemy on PostgreSQL and on SQLite, Redis, the encrypting wrapper), settings and
limits, runs, and the cases the SDK's own tests define for these stores."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text as sql

from jupyter_agents import Agent, RunConfig, Runner, SessionSettings, UserError
from jupyter_agents.extensions.memory import RedisSession, SQLAlchemySession
from jupyter_agents.testing import ScriptedModel, text
from tests.runtime.test_sessions import CONVERSATION, batch, split_batches


async def test_a_new_session_is_empty(make: Callable[..., Any]) -> None:
    session = make()
    assert await session.get_items() == []
    assert await session.get_items(limit=3) == []
    assert await session.pop_item() is None
    await session.clear_session()
    await session.add_items([])
    assert await session.get_items() == []


async def test_items_round_trip_in_order(make: Callable[..., Any]) -> None:
    session = make()
    await session.add_items(CONVERSATION[:2])
    await session.add_items(CONVERSATION[2:])
    assert await session.get_items() == CONVERSATION


@pytest.mark.parametrize(
    ("limit", "expected"),
    [(None, [0, 1, 2, 3, 4, 5]), (0, []), (2, [4, 5]), (10, [0, 1, 2, 3, 4, 5])],
)
async def test_limit_returns_the_latest_items_oldest_first(
    make: Callable[..., Any], limit: int | None, expected: list[int]
) -> None:
    session = make()
    await session.add_items([{"role": "user", "content": str(i)} for i in range(6)])
    got = await session.get_items(limit)
    assert [int(item["content"]) for item in got] == expected


async def test_session_settings_limit_and_an_explicit_limit(
    make: Callable[..., Any], kind: str
) -> None:
    if kind == "encrypted":  # the wrapper reads and sets its store's settings
        session = make()
        session.session_settings = SessionSettings(limit=2)
        assert session.underlying_session.session_settings == SessionSettings(limit=2)
    else:
        session = make(session_settings=SessionSettings(limit=2))
    await session.add_items([{"role": "user", "content": str(i)} for i in range(5)])
    assert [i["content"] for i in await session.get_items()] == ["3", "4"]
    assert [i["content"] for i in await session.get_items(limit=4)] == ["1", "2", "3", "4"]


async def test_pop_clear_and_reuse(make: Callable[..., Any]) -> None:
    session = make()
    await session.add_items(CONVERSATION[:3])
    assert await session.pop_item() == CONVERSATION[2]
    assert await session.get_items() == CONVERSATION[:2]
    await session.clear_session()
    assert await session.get_items() == []
    await session.add_items(CONVERSATION[3:4])
    assert await session.get_items() == CONVERSATION[3:4]
    assert await session.pop_item() == CONVERSATION[3]
    assert await session.pop_item() is None


async def test_sessions_are_isolated(make: Callable[..., Any]) -> None:
    a, b = make("a"), make("b")
    await a.add_items(CONVERSATION[:1])
    await b.add_items(CONVERSATION[1:2])
    await b.clear_session()
    assert await a.get_items() == CONVERSATION[:1]
    assert await b.get_items() == []


async def test_a_bad_item_stores_none_of_the_batch(make: Callable[..., Any]) -> None:
    session = make()
    with pytest.raises(UserError, match="not JSON-serialisable"):
        await session.add_items([{"role": "user", "content": "ok"}, {"bad": {1, 2}}])
    with pytest.raises(UserError, match="must be dicts"):
        await session.add_items(["not a dict"])
    assert await session.get_items() == []


async def test_concurrent_tasks_keep_each_batch_contiguous(make: Callable[..., Any]) -> None:
    sessions = [make() for _ in range(4)]  # separate clients (connections) on one conversation
    await asyncio.gather(
        *(s.add_items(batch(f"t{n}", k, 7)) for n, s in enumerate(sessions) for k in range(5))
    )
    keys = split_batches(await sessions[0].get_items(), 7)
    assert sorted(keys) == sorted((f"t{n}", k) for n in range(4) for k in range(5))


async def test_concurrent_pops_return_each_item_once(make: Callable[..., Any]) -> None:
    sessions = [make() for _ in range(4)]
    await sessions[0].add_items(batch("p", 0, 12))
    popped = await asyncio.gather(*(s.pop_item() for s in sessions for _ in range(4)))
    got = sorted(item["index"] for item in popped if item is not None)
    assert got == list(range(12))


async def test_a_run_saves_its_turn_and_the_run_config_limits_history(
    make: Callable[..., Any],
) -> None:
    session = make()
    model = ScriptedModel([[text("one")], [text("two")], [text("three")]])
    agent = Agent(name="a", model=model)
    await Runner.run(agent, "first", session=session)
    await Runner.run(agent, "second", session=session)
    assert [i.get("role") for i in await session.get_items()] == ["user", "assistant"] * 2
    limited = RunConfig(session_settings={"limit": 1})  # type: ignore[arg-type]  # a dict too
    await Runner.run(agent, "third", session=session, run_config=limited)
    sent = model.requests[-1].input
    assert [i.get("role") for i in sent] == ["assistant", "user"]  # 1 history item + the input
    assert sent[-1]["content"] == "third"
    assert len(await session.get_items()) == 6


async def test_a_failed_run_saves_nothing(make: Callable[..., Any]) -> None:
    session = make()
    failing = Agent(name="f", model=ScriptedModel([RuntimeError("model down")]))
    with pytest.raises(RuntimeError, match="model down"):
        await Runner.run(failing, "q", session=session)
    assert await session.get_items() == []


# -- corrupt entries (the SDK's cases): skipped, and a limit counts only readable items ---------


async def _store_raw(session: Any, texts: list[str]) -> None:
    """Append stored texts as they are, bypassing the session's encoding."""
    if isinstance(session, RedisSession):
        await session._client().rpush(session._messages_key, *texts)
    elif isinstance(session, SQLAlchemySession):
        await session.add_items([{"role": "user", "content": "seed"}])
        await session.pop_item()  # the session row exists now
        async with session.engine.begin() as conn:
            for data in texts:
                await conn.execute(
                    sql("INSERT INTO agent_messages (session_id, message_data) VALUES (:s, :d)"),
                    {"s": session.session_id, "d": data},
                )
    else:
        await session.underlying_session.add_items([json.loads(t) for t in texts])


@pytest.mark.parametrize("kind", ["postgres", "sqlite", "redis"])
async def test_corrupt_entries_are_skipped_and_do_not_count_towards_a_limit(
    make: Callable[..., Any],
) -> None:
    session = make()
    await session.add_items([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    await _store_raw(session, ["{not json", "[1, 2]", "{also not"])
    contents = [i["content"] for i in await session.get_items()]
    assert contents == ["a", "b"]
    assert [i["content"] for i in await session.get_items(limit=2)] == ["a", "b"]
    assert [i["content"] for i in await session.get_items(limit=5)] == ["a", "b"]
    assert (await session.pop_item()) == {"role": "user", "content": "b"}
    assert await session.get_items() == [{"role": "user", "content": "a"}]


# -- the SQLAlchemy store ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["postgres", "sqlite"])
async def test_sqlalchemy_stores_the_sdks_format(make: Callable[..., Any]) -> None:
    session = make()
    await session.add_items([{"role": "user", "content": "héllo"}])
    async with session.engine.connect() as conn:
        rows = (
            await conn.execute(sql("SELECT session_id, message_data FROM agent_messages"))
        ).all()
        sessions = (await conn.execute(sql("SELECT session_id FROM agent_sessions"))).all()
    assert (session.session_id, '{"role":"user","content":"h\\u00e9llo"}') in rows
    assert (session.session_id,) in sessions


async def test_sqlalchemy_can_store_non_ascii_unescaped(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'u.db'}"
    session = SQLAlchemySession.from_url("u", url=url, create_tables=True, ensure_ascii=False)
    try:
        await session.add_items([{"role": "user", "content": "héllo 🌦"}])
        async with session.engine.connect() as conn:
            (data,) = (await conn.execute(sql("SELECT message_data FROM agent_messages"))).one()
        assert data == '{"role":"user","content":"héllo 🌦"}'
        assert await session.get_items() == [{"role": "user", "content": "héllo 🌦"}]
    finally:
        await session.close()


async def test_sqlalchemy_with_an_engine_of_ones_own_and_custom_tables(tmp_path: Path) -> None:
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'e.db'}")
    try:
        one = SQLAlchemySession("x", engine=engine, create_tables=True)
        two = SQLAlchemySession(
            "x", engine=engine, create_tables=True, sessions_table="s2", messages_table="m2"
        )
        await one.add_items(CONVERSATION[:1])
        await two.add_items(CONVERSATION[1:2])
        assert await one.get_items() == CONVERSATION[:1]
        assert await two.get_items() == CONVERSATION[1:2]
        assert one.engine is engine
        await one.close()  # not its engine: still usable
        assert await two.get_items() == CONVERSATION[1:2]
    finally:
        await engine.dispose()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"session_id": ""}, "session_id must be a non-empty string"),
        ({"engine": "sqlite:///x.db"}, "needs an AsyncEngine"),
        ({"sessions_table": "t", "messages_table": "t"}, "must be different tables"),
        ({"session_settings": {"limit": -1}}, "limit must be None"),
        ({"session_settings": {"size": 3}}, "unknown field"),
    ],
)
def test_bad_sqlalchemy_arguments(kwargs: dict[str, Any], message: str) -> None:
    from sqlalchemy.ext.asyncio import create_async_engine

    args = {"session_id": "s", "engine": create_async_engine("sqlite+aiosqlite://"), **kwargs}
    session_id = args.pop("session_id")
    with pytest.raises(UserError, match=message):
        SQLAlchemySession(session_id, **args)


@pytest.mark.parametrize(
    "url", ["nonsense://", "postgresql://app:hunter2@db/agents", "mysql://app:hunter2@db/x"]
)
def test_a_url_without_an_async_driver_says_what_to_give(url: str) -> None:
    with pytest.raises(UserError, match=r"Give an async URL such as 'postgresql\+asyncpg://") as e:
        SQLAlchemySession.from_url("s", url=url)
    assert "hunter2" not in str(e.value) and "\n" not in str(e.value)


# -- the Redis store ----------------------------------------------------------------------------


async def test_redis_keys_ttl_and_key_prefixes(redis_url: str) -> None:
    sid = uuid.uuid4().hex
    one = RedisSession.from_url(sid, url=redis_url, ttl=300)
    other = RedisSession.from_url(sid, url=redis_url, key_prefix="elsewhere")
    try:
        await one.add_items(CONVERSATION[:2])
        client = one._client()
        meta = await client.hgetall(f"agents:session:{sid}")
        assert meta[b"session_id"] == sid.encode() and b"created_at" in meta
        assert await client.llen(f"agents:session:{sid}:messages") == 2
        assert 0 < await client.ttl(f"agents:session:{sid}:messages") <= 300
        assert 0 < await client.ttl(f"agents:session:{sid}") <= 300
        assert await other.get_items() == []
        assert await one.ping()
    finally:
        await one.close()
        await other.close()
    with pytest.raises(UserError, match="is closed"):
        await one.get_items()


async def test_redis_refuses_to_write_over_a_key_of_another_type(redis_url: str) -> None:
    sid = uuid.uuid4().hex
    session = RedisSession.from_url(sid, url=redis_url)
    try:
        await session._client().set(f"agents:session:{sid}:messages", "a string")
        with pytest.raises(Exception, match="WRONGTYPE"):
            await session.add_items(CONVERSATION[:1])
        assert await session._client().get(f"agents:session:{sid}:messages") == b"a string"
    finally:
        await session.close()


async def test_redis_with_a_client_of_ones_own_decoding_responses(redis_url: str) -> None:
    import redis.asyncio as aioredis

    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        session = RedisSession(uuid.uuid4().hex, redis_client=client)
        await session.add_items(CONVERSATION)
        assert await session.get_items() == CONVERSATION
        assert await session.get_items(limit=1) == CONVERSATION[-1:]
        await session.close()  # not its client: a no-op
        assert await session.pop_item() == CONVERSATION[-1]
    finally:
        await client.aclose()


@pytest.mark.parametrize("ttl", [0, -5, 1.5, True])
def test_bad_redis_ttl(ttl: Any) -> None:
    import redis.asyncio as aioredis

    with pytest.raises(UserError, match="ttl must be None"):
        RedisSession("s", redis_client=aioredis.Redis(), ttl=ttl)


@pytest.mark.parametrize("kind", ["postgres", "sqlite", "redis"])
async def test_the_sdks_store_reads_what_we_wrote_and_we_read_what_it_wrote(
    make: Callable[..., Any], kind: str
) -> None:
    sdk = pytest.importorskip("agents.extensions.memory")
    session = make()
    await session.add_items(CONVERSATION[:3])
    if kind == "redis":
        theirs = sdk.RedisSession(session.session_id, redis_client=session._client())
    else:
        theirs = sdk.SQLAlchemySession(session.session_id, engine=session.engine)
    assert await theirs.get_items() == CONVERSATION[:3]
    await theirs.add_items(CONVERSATION[3:])
    assert await session.get_items() == CONVERSATION


@pytest.mark.parametrize("kind", ["postgres", "redis"])
def test_a_from_url_session_works_from_several_event_loops(
    kind: str, request: pytest.FixtureRequest
) -> None:
    # Runner.run_sync and a notebook cell run on different loops; connections may not cross.
    url = request.getfixturevalue("pg_url" if kind == "postgres" else "redis_url")
    sid = uuid.uuid4().hex
    if kind == "redis":
        session: Any = RedisSession.from_url(sid, url=url)
    else:
        session = SQLAlchemySession.from_url(sid, url=url, create_tables=True)
    for n in range(3):  # three loops, one after the other
        asyncio.run(session.add_items(batch("loop", n, 2)))
    loop = asyncio.new_event_loop()
    try:
        keys = split_batches(loop.run_until_complete(session.get_items()), 2)
        assert keys == [("loop", 0), ("loop", 1), ("loop", 2)]
        loop.run_until_complete(session.close())
    finally:
        loop.close()
