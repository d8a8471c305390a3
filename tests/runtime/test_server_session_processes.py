"""Server-backed sessions shared by OS processes: writers at once lose nothing and keep their
order, and a process killed during a run (in a tool, or inside the save) leaves no half turn.

Each child runs real runs (a scripted model, one tool call per run: four items a turn) on one
session and reports each finished run on stdout; where it must stop, it says so and waits on
stdin until killed. Nothing waits on a clock.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents.extensions.memory import RedisSession, SQLAlchemySession
from tests.runtime.test_sessions import REPO, kill, read_line

TURN = 4  # user input, function_call, function_call_output, assistant message

CHILD = r"""
import asyncio, json, sys

from jupyter_agents import Agent, Runner, tool
from jupyter_agents.extensions.memory import RedisSession, SQLAlchemySession
from jupyter_agents.testing import ScriptedModel, text, tool_call

args = json.loads(sys.argv[1])
tag, stall = args["tag"], args["stall"]


class StallingSave(SQLAlchemySession):
    async def _add(self, encoded):
        if self._run != stall[1]:
            return await super()._add(encoded)
        # The first half of the turn inside the open transaction, then wait to be killed.
        rows = [{"session_id": self.session_id, "message_data": d} for d in encoded]
        async with self.engine.begin() as conn:
            await self._lock_session_row(conn, create=True)
            await conn.execute(self._messages.insert(), rows[: len(rows) // 2])
            print(f"saving {self._run}", flush=True)
            sys.stdin.readline()
            await conn.execute(self._messages.insert(), rows[len(rows) // 2 :])


def open_session():
    if args["kind"] == "redis":
        return RedisSession.from_url(args["sid"], url=args["url"])
    cls = StallingSave if stall and stall[0] == "save" else SQLAlchemySession
    return cls.from_url(args["sid"], url=args["url"], create_tables=True)


@tool
def note(run: int) -> str:
    "Note the run."
    if stall and stall[0] == "tool" and stall[1] == run:
        print(f"in tool {run}", flush=True)
        sys.stdin.readline()
    return f"{tag} noted {run}"


async def main():
    session = open_session()
    print("ready", flush=True)
    if args["wait_for_go"]:
        sys.stdin.readline()
    run = 0
    while args["runs"] is None or run < args["runs"]:
        session._run = run
        model = ScriptedModel([[tool_call("note", {"run": run})], [text(f"{tag} done {run}")]])
        agent = Agent(name="w", model=model, tools=[note])
        await Runner.run(agent, f"{tag} run {run}", session=session)
        print(f"committed {run}", flush=True)
        run += 1
    await session.close()


asyncio.run(main())
"""


def url_for(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if kind == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"
    return str(request.getfixturevalue("pg_url" if kind == "postgres" else "redis_url"))


def start(
    tmp_path: Path,
    kind: str,
    url: str,
    sid: str,
    tag: str,
    *,
    runs: int | None,
    stall: tuple[str, int] | None = None,
    wait_for_go: bool = False,
) -> subprocess.Popen[str]:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    args: dict[str, Any] = {"kind": kind, "url": url, "sid": sid, "tag": tag, "runs": runs}
    args |= {"stall": stall, "wait_for_go": wait_for_go}
    proc = subprocess.Popen(
        [sys.executable, str(script), json.dumps(args)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert read_line(proc) == "ready"
    return proc


def stored(kind: str, url: str, sid: str) -> list[dict[str, Any]]:
    async def read() -> list[dict[str, Any]]:
        session = open_session(kind, url, sid)
        try:
            items: list[dict[str, Any]] = await session.get_items()
            return items
        finally:
            await session.close()

    return asyncio.run(read())


def open_session(kind: str, url: str, sid: str) -> Any:
    if kind == "redis":
        return RedisSession.from_url(sid, url=url)
    return SQLAlchemySession.from_url(sid, url=url, create_tables=True)


def turns(items: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """Check that ``items`` are whole turns; return (writer, run) of each, in order."""
    assert len(items) % TURN == 0, f"{len(items)} items is not a whole number of turns"
    found: list[tuple[str, int]] = []
    for start_at in range(0, len(items), TURN):
        user, call, output, answer = items[start_at : start_at + TURN]
        tag, _, run = user["content"].partition(" run ")
        assert call["type"] == "function_call" and json.loads(call["arguments"]) == {
            "run": int(run)
        }
        assert output["type"] == "function_call_output" and output["output"] == (
            f"{tag} noted {run}"
        )
        assert answer["content"][0]["text"] == f"{tag} done {run}", "a turn was interleaved"
        found.append((tag, int(run)))
    return found


@pytest.mark.timeout(300)  # eight interpreters start at once; about 30 s on an idle 2-core box
@pytest.mark.parametrize("kind", ["postgres", "redis", "sqlite"])
def test_eight_processes_appending_at_once_lose_nothing_and_keep_their_order(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url, sid, runs = url_for(kind, request, tmp_path), uuid.uuid4().hex, 15
    assert stored(kind, url, sid) == []  # the tables (the SQLite file) exist before the race
    procs = [
        start(tmp_path, kind, url, sid, f"p{i}", runs=runs, wait_for_go=True) for i in range(8)
    ]
    for proc in procs:  # every child is ready: release them together
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert out.split("\n")[-2] == f"committed {runs - 1}"

    found = turns(stored(kind, url, sid))
    assert sorted(found) == sorted((f"p{i}", n) for i in range(8) for n in range(runs))
    for i in range(8):
        assert [n for tag, n in found if tag == f"p{i}"] == list(range(runs))


@pytest.mark.parametrize("kind", ["postgres", "redis"])
def test_a_process_killed_inside_a_tool_saves_nothing_of_that_run(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url, sid = url_for(kind, request, tmp_path), uuid.uuid4().hex
    proc = start(tmp_path, kind, url, sid, "k", runs=6, stall=("tool", 3))
    for expected in range(3):
        assert read_line(proc) == f"committed {expected}"
    assert read_line(proc) == "in tool 3"  # the model has answered; the run is not saved yet
    kill(proc)
    assert turns(stored(kind, url, sid)) == [("k", 0), ("k", 1), ("k", 2)]


def test_a_process_killed_inside_its_save_transaction_leaves_no_half_turn(
    pg_url: str, tmp_path: Path
) -> None:
    sid = uuid.uuid4().hex
    proc = start(tmp_path, "postgres", pg_url, sid, "k", runs=6, stall=("save", 2))
    for expected in range(2):
        assert read_line(proc) == f"committed {expected}"
    assert read_line(proc) == "saving 2"  # half of run 2's items are in the open transaction
    assert open_transactions(pg_url) >= 1
    kill(proc)

    # Writing takes the session's row lock, which the dead transaction held: this add
    # returns only once the server has rolled that transaction back.
    after = start(tmp_path, "postgres", pg_url, sid, "after", runs=1)
    after.communicate(timeout=120)
    assert after.returncode == 0
    assert turns(stored("postgres", pg_url, sid)) == [("k", 0), ("k", 1), ("after", 0)]


def open_transactions(url: str) -> int:
    async def count() -> int:
        from sqlalchemy import text
        from sqlalchemy.ext.asyncio import create_async_engine

        engine = create_async_engine(url)
        try:
            async with engine.connect() as conn:
                query = "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'"
                return int((await conn.execute(text(query))).scalar_one())
        finally:
            await engine.dispose()

    return asyncio.run(count())


@pytest.mark.parametrize("kind", ["postgres", "redis"])
def test_processes_killed_at_random_moments_leave_only_whole_turns(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url, sid = url_for(kind, request, tmp_path), uuid.uuid4().hex
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    acknowledged: dict[str, int] = {}
    for round_number in range(3):
        tag = f"r{round_number}"
        proc = start(tmp_path, kind, url, sid, tag, runs=None)
        target = rng.randrange(1, 12)
        for expected in range(target):
            assert read_line(proc) == f"committed {expected}"
        late = kill(proc)  # the child runs on while we read: the kill lands anywhere
        assert late == [f"committed {n}" for n in range(target, target + len(late))]
        acknowledged[tag] = target + len(late)

    found = turns(stored(kind, url, sid))
    for tag, count in acknowledged.items():
        runs = [n for t, n in found if t == tag]
        # Every acknowledged run is there; at most the one in flight was saved too.
        assert runs in (list(range(count)), list(range(count + 1))), f"seed {seed}: {tag}"
