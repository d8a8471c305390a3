"""Replacing the end of a conversation (a notebook re-running a cell): ``replace_after`` on
every store, in one transaction where the store has one, and the fallback for other sessions.

A writer killed inside the replacing transaction leaves the conversation as it was (checked
with real processes on PostgreSQL, SQLite and Redis, stopped at the point where the old items
are deleted but the new ones are not yet written). Nothing waits on a clock.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import InMemorySession, SQLiteSession, UserError
from jupyter_agents.extensions.memory import RedisSession, SQLAlchemySession
from jupyter_agents.notebook.cells.conversation import Conversation
from jupyter_agents.runtime.sessions.replace import cut_position, replace_after
from tests.runtime.test_server_sessions import _store_raw
from tests.runtime.test_sessions import REPO, kill, read_line


def said(*words: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": w} for w in words]


async def contents(session: Any) -> list[str]:
    return [item["content"] for item in await session.get_items()]


async def test_replace_after_keeps_the_first_items_and_replaces_the_rest(
    make: Callable[..., Any],
) -> None:
    session = make()
    await session.add_items(said("a", "b", "c", "d"))
    await session.replace_after(2, said("x", "y", "z"))
    assert await contents(session) == ["a", "b", "x", "y", "z"]
    await session.replace_after(5, said("tail"))  # nothing after the kept items: an append
    assert await contents(session) == ["a", "b", "x", "y", "z", "tail"]
    await session.replace_after(9, said("more"))  # fewer than keep stored: everything kept
    assert await contents(session) == ["a", "b", "x", "y", "z", "tail", "more"]
    await session.replace_after(1, [])
    assert await contents(session) == ["a"]
    await session.replace_after(0, said("new"))
    assert await contents(session) == ["new"]


async def test_a_bad_replacement_changes_nothing(make: Callable[..., Any]) -> None:
    session = make()
    await session.add_items(said("a", "b"))
    with pytest.raises(UserError, match="not JSON-serialisable"):
        await session.replace_after(0, [{"role": "user", "content": "ok"}, {"bad": {1, 2}}])
    for keep in (-1, 1.5, True, "1"):
        with pytest.raises(UserError, match="keep must be an int >= 0"):
            await session.replace_after(keep, said("x"))
    assert await contents(session) == ["a", "b"]


@pytest.mark.parametrize("kind", ["postgres", "sqlite", "redis"])
async def test_keep_counts_readable_items_as_get_items_returns_them(
    make: Callable[..., Any],
) -> None:
    session = make()
    await session.add_items(said("a"))
    await _store_raw(session, ["{not json", "[1, 2]"])
    await session.add_items(said("b", "c"))
    await session.replace_after(2, said("x"))  # keeps "a", the unreadable entries and "b"
    assert await contents(session) == ["a", "b", "x"]
    await session.replace_after(1, said("y"))  # the unreadable entries after "a" go too
    assert await contents(session) == ["a", "y"]
    await session.pop_item()
    assert await session.pop_item() == said("a")[0]
    assert await session.pop_item() is None


def test_cut_position_counts_readable_entries() -> None:
    stored = ['{"a": 1}', "junk", '{"b": 2}', "[1]", '{"c": 3}']
    assert [cut_position(stored, keep) for keep in range(5)] == [0, 1, 3, 5, 5]
    assert cut_position([], 3) == 0


async def test_sessions_without_replace_after_are_replaced_item_by_item(tmp_path: Path) -> None:
    session = SQLiteSession("s", tmp_path / "h.db")
    assert not hasattr(session, "replace_after")
    await session.add_items(said("a", "b", "c"))
    await replace_after(session, 1, said("x", "y"))
    assert await contents(session) == ["a", "x", "y"]
    await replace_after(session, 5, said("z"))
    assert await contents(session) == ["a", "x", "y", "z"]
    memory = InMemorySession("m")
    await memory.add_items(said("a", "b"))
    await replace_after(memory, 1, said("c"))  # its own replace_after
    assert await contents(memory) == ["a", "c"]


async def test_a_rerun_cell_replaces_its_turn_and_the_later_ones(make: Callable[..., Any]) -> None:
    earlier = make()
    await earlier.add_items(said("earlier kernel"))
    conversation = Conversation(make())
    for cell in "abc":
        await conversation.record(cell, said(f"{cell}1", f"{cell}2"))
    history = await conversation.history_before("b")
    assert [item["content"] for item in history] == ["earlier kernel", "a1", "a2"]
    await conversation.record("b", said("b'"))
    assert await contents(conversation.session) == ["earlier kernel", "a1", "a2", "b'"]
    await conversation.record("c", said("c'"))
    assert await contents(conversation.session) == ["earlier kernel", "a1", "a2", "b'", "c'"]


# -- a writer killed inside the replacing transaction --------------------------------------------

CHILD = r"""
import asyncio, json, sys

from sqlalchemy import event

from jupyter_agents.extensions.memory import RedisSession, SQLAlchemySession

args = json.loads(sys.argv[1])


def stall(what):
    print(what, flush=True)
    sys.stdin.readline()  # wait to be killed


async def main():
    if args["kind"] == "redis":
        session = RedisSession.from_url(args["sid"], url=args["url"])
        add = session._add_script

        async def queued_then_stall(**kw):
            await add(**kw)  # queued in the MULTI block, not sent yet
            stall("replacing")

        session._add_script = queued_then_stall
    else:
        session = SQLAlchemySession.from_url(args["sid"], url=args["url"], create_tables=True)

        @event.listens_for(session.engine.sync_engine, "after_cursor_execute")
        def after(conn, cursor, statement, *rest):
            if statement.lstrip().upper().startswith("DELETE"):
                stall("replacing")  # the old turn is deleted in the open transaction

    await session.replace_after(1, [{"role": "user", "content": "new turn"}])


asyncio.run(main())
"""


def _url(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if kind == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"
    return str(request.getfixturevalue("pg_url" if kind == "postgres" else "redis_url"))


def _open(kind: str, url: str, sid: str, *, create: bool = False) -> Any:
    if kind == "redis":
        return RedisSession.from_url(sid, url=url)
    # Only a writer creates the tables (that takes SQLite's write lock, held by the child).
    return SQLAlchemySession.from_url(sid, url=url, create_tables=create)


def _read(kind: str, url: str, sid: str) -> list[str]:
    async def read() -> list[str]:
        session = _open(kind, url, sid)
        try:
            return await contents(session)
        finally:
            await session.close()

    return asyncio.run(read())


def _write(kind: str, url: str, sid: str, items: list[dict[str, Any]]) -> None:
    async def write() -> None:
        session = _open(kind, url, sid, create=True)
        try:
            await session.add_items(items)
        finally:
            await session.close()

    asyncio.run(write())


@pytest.mark.parametrize("kind", ["postgres", "sqlite", "redis"])
def test_a_writer_killed_while_replacing_leaves_the_old_turn(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url, sid = _url(kind, request, tmp_path), uuid.uuid4().hex
    _write(kind, url, sid, said("first turn", "old turn", "old answer"))
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    proc = subprocess.Popen(
        [sys.executable, str(script), json.dumps({"kind": kind, "url": url, "sid": sid})],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert read_line(proc) == "replacing"
    # Meanwhile a reader sees the conversation as it was (SQLite's WAL and PostgreSQL's
    # snapshots; Redis has not received the transaction yet).
    assert _read(kind, url, sid) == ["first turn", "old turn", "old answer"]
    kill(proc)
    assert _read(kind, url, sid) == ["first turn", "old turn", "old answer"]
    # The store is usable afterwards: the dead transaction's locks are gone.
    _write(kind, url, sid, said("next"))
    assert _read(kind, url, sid) == ["first turn", "old turn", "old answer", "next"]
