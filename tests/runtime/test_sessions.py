"""Sessions: the contract on both implementations, atomicity, concurrency, crash durability.

Subprocess tests coordinate through pipes (the child reports each commit on stdout and waits
for the parent on stdin); nothing waits on a clock.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import jupyter_agents
from jupyter_agents.runtime.errors import UserError
from jupyter_agents.runtime.sessions import InMemorySession, Session, SessionABC, SQLiteSession

KINDS = ["memory", "sqlite-memory", "sqlite-file"]
REPO = Path(jupyter_agents.__file__).resolve().parents[1]

CONVERSATION: list[dict[str, Any]] = [
    {"role": "user", "content": 'What\'s the weather in Paris? 🌦 «quoted» "escaped"\n'},
    {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Let me check.", "annotations": []}],
    },
    {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city": "Paris", "days": 3}',
        "status": "completed",
    },
    {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": [
            {"type": "input_text", "text": "18°C, cloudy"},
            {
                "type": "input_image",
                "image_url": "data:image/png;base64,iVBORw0KGgo=",
                "detail": "auto",
            },
        ],
    },
    {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "The tool answered."}],
        "encrypted_content": None,
    },
    {"role": "assistant", "content": "18°C and cloudy.", "extra": {"n": [1, 2.5, -3, True]}},
]


def batch(tag: str, number: int, size: int) -> list[dict[str, Any]]:
    """A batch of ``size`` items, each tagged with its writer, batch number and index."""
    return [
        {"role": "user", "content": f"{tag}/{number}/{i}", "tag": tag, "batch": number, "index": i}
        for i in range(size)
    ]


def split_batches(items: list[dict[str, Any]], size: int) -> list[tuple[str, int]]:
    """Check that ``items`` are whole, contiguous, distinct batches; return them in order."""
    assert len(items) % size == 0, f"{len(items)} items is not a whole number of batches"
    keys: list[tuple[str, int]] = []
    for start in range(0, len(items), size):
        chunk = items[start : start + size]
        key = (chunk[0]["tag"], chunk[0]["batch"])
        found = [(c["tag"], c["batch"], c["index"]) for c in chunk]
        assert found == [(*key, i) for i in range(size)], f"batch {key} interleaved: {found}"
        keys.append(key)
    assert len(set(keys)) == len(keys), "a batch was stored twice"
    return keys


def raw_rows(path: Path, session_id: str = "s") -> list[dict[str, Any]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT message_data FROM agent_messages WHERE session_id = ? ORDER BY id",
            (session_id,),
        ).fetchall()
    return [json.loads(data) for (data,) in rows]


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_session(kind: str, tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """Build sessions of the parametrized kind; SQLite sessions are closed afterwards."""
    opened: list[SQLiteSession] = []

    def make(session_id: str = "s") -> InMemorySession | SQLiteSession:
        if kind == "memory":
            return InMemorySession(session_id)
        session = SQLiteSession(
            session_id, ":memory:" if kind == "sqlite-memory" else tmp_path / "s.db"
        )
        opened.append(session)
        return session

    yield make
    for session in opened:
        session.close()


# -- the contract, on every implementation ------------------------------------------------------


async def test_a_new_session_is_empty(make_session: Callable[..., Any]) -> None:
    session = make_session()

    assert await session.get_items() == []
    assert await session.get_items(limit=3) == []
    assert await session.pop_item() is None
    await session.clear_session()
    await session.add_items([])
    assert await session.get_items() == []


async def test_items_round_trip_through_json_in_order(make_session: Callable[..., Any]) -> None:
    session = make_session()

    await session.add_items(CONVERSATION[:2])
    await session.add_items(CONVERSATION[2:])

    assert await session.get_items() == CONVERSATION
    assert json.loads(json.dumps(await session.get_items())) == CONVERSATION


async def test_items_are_copies(make_session: Callable[..., Any]) -> None:
    session = make_session()
    mine: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    ]
    await session.add_items(mine)

    mine[0]["content"][0]["text"] = "changed by the caller"
    (got,) = await session.get_items()
    got["role"] = "changed by the reader"

    assert await session.get_items() == [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    ]


@pytest.mark.parametrize(
    ("limit", "expected"),
    [
        (0, []),
        (1, [5]),
        (3, [3, 4, 5]),
        (6, [0, 1, 2, 3, 4, 5]),
        (100, [0, 1, 2, 3, 4, 5]),
        (None, [0, 1, 2, 3, 4, 5]),
    ],
)
async def test_limit_returns_the_latest_items_oldest_first(
    make_session: Callable[..., Any], limit: int | None, expected: list[int]
) -> None:
    session = make_session()
    await session.add_items([{"role": "user", "content": str(i)} for i in range(6)])

    got = await session.get_items(limit)

    assert [int(item["content"]) for item in got] == expected


async def test_pop_item_removes_the_most_recent(make_session: Callable[..., Any]) -> None:
    session = make_session()
    await session.add_items(CONVERSATION[:3])

    assert await session.pop_item() == CONVERSATION[2]
    assert await session.pop_item() == CONVERSATION[1]
    assert await session.get_items() == CONVERSATION[:1]
    await session.add_items(CONVERSATION[3:4])
    assert await session.get_items() == [CONVERSATION[0], CONVERSATION[3]]
    assert await session.pop_item() == CONVERSATION[3]
    assert await session.pop_item() == CONVERSATION[0]
    assert await session.pop_item() is None


async def test_clear_session_then_reuse(make_session: Callable[..., Any]) -> None:
    session = make_session()
    await session.add_items(CONVERSATION)

    await session.clear_session()
    assert await session.get_items() == []
    await session.add_items(CONVERSATION[:1])
    assert await session.get_items() == CONVERSATION[:1]


async def test_sessions_satisfy_the_protocol(make_session: Callable[..., Any]) -> None:
    session = make_session("user-42")

    assert isinstance(session, Session)
    assert isinstance(session, SessionABC)
    assert session.session_id == "user-42"


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ({"role": "user", "content": "hi"}, r"takes a list .* got dict.*add_items\(\[item\]\)"),
        ("hello", "takes a list of input item dicts, got str"),
        (({"role": "user"},), "got tuple"),
        ([{"role": "user"}, "hi"], "item 1 is a str: 'hi'"),
        (
            [{"type": "message", "when": object()}],
            r"item 0 \(type 'message'\) is not JSON-serialis",
        ),
        (
            [{"role": "user"}, {"role": "assistant", "n": float("nan")}],
            r"item 1 \(type 'assistant'\)",
        ),
        ([{"x": {1, 2}}], r"item 0 \(keys \['x'\]\).*not JSON serializable"),
    ],
)
async def test_bad_items_raise_user_error_and_store_nothing(
    make_session: Callable[..., Any], items: Any, message: str
) -> None:
    session = make_session()
    await session.add_items(CONVERSATION[:1])

    with pytest.raises(UserError, match=message):
        await session.add_items(items)

    assert await session.get_items() == CONVERSATION[:1]


async def test_an_unserialisable_last_item_stores_none_of_the_batch(
    make_session: Callable[..., Any],
) -> None:
    session = make_session()
    items = [*batch("a", 0, 5), {"type": "function_call_output", "output": b"bytes"}]

    with pytest.raises(UserError, match=r"item 5 \(type 'function_call_output'\)"):
        await session.add_items(items)

    assert await session.get_items() == []


@pytest.mark.parametrize("limit", [-1, "3", 2.0, True])
async def test_bad_limit(make_session: Callable[..., Any], limit: Any) -> None:
    with pytest.raises(UserError, match="limit must be None"):
        await make_session().get_items(limit)


@pytest.mark.parametrize("session_id", ["", "   ", None, 42])
def test_bad_session_id(kind: str, session_id: Any) -> None:
    cls = InMemorySession if kind == "memory" else SQLiteSession
    with pytest.raises(UserError, match="session_id must be a non-empty string"):
        cls(session_id)


async def test_concurrent_tasks_keep_each_batch_contiguous(
    make_session: Callable[..., Any],
) -> None:
    session = make_session()

    await asyncio.gather(*(session.add_items(batch("task", n, 7)) for n in range(50)))

    keys = split_batches(await session.get_items(), 7)
    assert sorted(keys) == [("task", n) for n in range(50)]


def test_concurrent_threads_keep_each_batch_contiguous(make_session: Callable[..., Any]) -> None:
    session = make_session()
    threads, per_thread = 8, 6
    start = threading.Barrier(threads)
    errors: list[BaseException] = []

    def writer(tag: str) -> None:
        async def write_all() -> None:
            await asyncio.gather(*(session.add_items(batch(tag, n, 5)) for n in range(per_thread)))

        try:
            start.wait()
            asyncio.run(write_all())  # each thread runs its own event loop
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=writer, args=(f"t{i}",)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert errors == []
    keys = split_batches(asyncio.run(session.get_items()), 5)
    assert sorted(keys) == sorted((f"t{i}", n) for i in range(threads) for n in range(per_thread))


# -- the protocol and the base class ------------------------------------------------------------


def test_a_duck_typed_class_is_a_session_and_an_incomplete_one_is_not() -> None:
    class Duck:
        session_id = "d"

        async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
            return []

        async def add_items(self, items: list[dict[str, Any]]) -> None:
            pass

        async def pop_item(self) -> dict[str, Any] | None:
            return None

        async def clear_session(self) -> None:
            pass

    class NoPop:
        session_id = "n"

        async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
            return []

    assert isinstance(Duck(), Session)
    assert not isinstance(NoPop(), Session)


def test_session_abc_reports_missing_methods() -> None:
    class Partial(SessionABC):
        async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
            return []

    with pytest.raises(TypeError, match="abstract"):
        Partial()  # type: ignore[abstract]


# -- SQLite specifics ---------------------------------------------------------------------------


async def test_sessions_in_one_database_are_isolated(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    alice, bob = SQLiteSession("alice", path), SQLiteSession("bob", path)
    try:
        await alice.add_items(batch("alice", 0, 2))
        await bob.add_items(batch("bob", 0, 3))
        await alice.add_items(batch("alice", 1, 2))

        assert await alice.pop_item() == batch("alice", 1, 2)[1]
        await bob.clear_session()

        assert await bob.get_items() == []
        assert await alice.get_items() == [*batch("alice", 0, 2), batch("alice", 1, 2)[0]]
        assert await alice.get_items(limit=1) == batch("alice", 1, 2)[:1]
    finally:
        alice.close()
        bob.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT session_id FROM agent_sessions").fetchall() == [("alice",)]


async def test_custom_tables_share_a_file_with_the_default_ones(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    default = SQLiteSession("s", path)
    custom = SQLiteSession("s", path, sessions_table="chats", messages_table="chat_items")
    try:
        await default.add_items(CONVERSATION[:1])
        await custom.add_items(CONVERSATION[1:2])

        assert await default.get_items() == CONVERSATION[:1]
        assert await custom.get_items() == CONVERSATION[1:2]
    finally:
        default.close()
        custom.close()
    with sqlite3.connect(path) as conn:
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert {"chats", "chat_items", "idx_chat_items_session_id"} <= names


def test_a_file_database_uses_wal(tmp_path: Path) -> None:
    SQLiteSession("s", tmp_path / "s.db").close()

    with sqlite3.connect(tmp_path / "s.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sessions_table": "x; DROP TABLE y"}, "sessions_table must be a plain SQL identifier"),
        ({"messages_table": "1abc"}, "messages_table must be a plain SQL identifier"),
        ({"sessions_table": "t", "messages_table": "t"}, "must be different tables"),
        ({"busy_timeout": -1}, "busy_timeout must be"),
    ],
)
def test_bad_sqlite_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(UserError, match=message):
        SQLiteSession("s", **kwargs)


def test_a_database_in_a_missing_folder_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"Cannot open the session database .*missing.*folder"):
        SQLiteSession("s", tmp_path / "missing" / "s.db")


@pytest.mark.parametrize("db", ["memory", "file"])
async def test_a_closed_session_refuses_work(tmp_path: Path, db: str) -> None:
    session = SQLiteSession("s", ":memory:" if db == "memory" else tmp_path / "s.db")
    await session.add_items(CONVERSATION[:1])
    session.close()
    session.close()

    for call in (
        session.get_items(),
        session.add_items(CONVERSATION[:1]),
        session.pop_item(),
        session.clear_session(),
    ):
        with pytest.raises(UserError, match="is closed; create a new SQLiteSession"):
            await call


async def test_a_failure_inside_the_transaction_stores_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    session = SQLiteSession("s", path)
    with sqlite3.connect(path) as conn:  # fails on the third row, after two rows were inserted
        conn.execute(
            "CREATE TRIGGER fail_on_boom BEFORE INSERT ON agent_messages "
            "WHEN NEW.message_data LIKE '%boom%' BEGIN SELECT RAISE(ABORT, 'injected'); END"
        )
    try:
        with pytest.raises(sqlite3.IntegrityError, match="injected"):
            await session.add_items([*batch("a", 0, 2), {"role": "user", "content": "boom"}])

        assert await session.get_items() == []
        with sqlite3.connect(path) as conn:  # the new session's row was rolled back too
            assert conn.execute("SELECT COUNT(*) FROM agent_sessions").fetchone() == (0,)

        await session.add_items(batch("a", 1, 2))  # the connection is usable again
        assert await session.get_items() == batch("a", 1, 2)
    finally:
        session.close()


async def test_corrupt_rows_are_skipped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "s.db"
    session = SQLiteSession("s", path)
    await session.add_items(CONVERSATION[:1])
    with sqlite3.connect(path) as conn:
        conn.executemany(
            "INSERT INTO agent_messages (session_id, message_data) VALUES ('s', ?)",
            [("{not json",), ("[1, 2]",)],
        )
    try:
        assert await session.get_items() == CONVERSATION[:1]
        assert "not a JSON object" in caplog.text
        assert await session.pop_item() == CONVERSATION[0]
        assert await session.get_items() == []
    finally:
        session.close()


def _hold_write_lock(path: Path) -> sqlite3.Connection:
    """Another writer (a raw connection, as another process would be) holding the lock."""
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    return blocker


async def test_a_waiting_writer_does_not_block_the_event_loop_or_readers(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    session = SQLiteSession("s", path)
    await session.add_items(CONVERSATION[:1])
    blocker = _hold_write_lock(path)
    try:
        write = asyncio.create_task(session.add_items(CONVERSATION[1:2]))

        # The loop keeps running and a WAL reader sees the committed snapshot meanwhile.
        assert await session.get_items() == CONVERSATION[:1]
        assert not write.done()

        blocker.execute("COMMIT")
        await write
        assert await session.get_items() == CONVERSATION[:2]
    finally:
        blocker.close()
        session.close()


async def test_a_cancelled_write_finishes_before_the_cancellation_returns(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    session = SQLiteSession("s", path)
    blocker = _hold_write_lock(path)
    try:
        write = asyncio.create_task(session.add_items(batch("a", 0, 3)))
        await asyncio.sleep(0)  # let the task hand the write to its worker thread
        write.cancel()
        for _ in range(3):
            await asyncio.sleep(0)  # yields to the loop, not a wait on time
        assert not write.done()  # still waiting for the write, not abandoning it

        blocker.execute("COMMIT")
        with pytest.raises(asyncio.CancelledError):
            await write
        assert raw_rows(path) == batch("a", 0, 3)  # committed by the time the caller heard
    finally:
        blocker.close()
        session.close()


def test_connections_of_finished_threads_are_closed(tmp_path: Path) -> None:
    session = SQLiteSession("s", tmp_path / "s.db")
    try:
        for n in range(5):  # each asyncio.run has its own executor threads, gone afterwards
            asyncio.run(session.add_items(batch("a", n, 1)))
        assert len(session._connections) <= 1
        assert len(asyncio.run(session.get_items())) == 5
    finally:
        session.close()


def test_separate_sessions_on_one_file_from_threads_keep_batches_contiguous(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.db"
    threads, per_thread = 6, 8
    start = threading.Barrier(threads)
    errors: list[BaseException] = []

    def writer(tag: str) -> None:
        session = SQLiteSession("s", path)  # its own object, as another notebook would have
        try:
            start.wait()
            for n in range(per_thread):
                asyncio.run(session.add_items(batch(tag, n, 4)))
        except BaseException as exc:
            errors.append(exc)
        finally:
            session.close()

    workers = [threading.Thread(target=writer, args=(f"t{i}",)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert errors == []
    keys = split_batches(raw_rows(path), 4)
    assert sorted(keys) == sorted((f"t{i}", n) for i in range(threads) for n in range(per_thread))


# -- other processes: concurrent writers, a killed writer, reopening ----------------------------

WRITER = r"""
import asyncio, json, sqlite3, sys

from jupyter_agents.runtime.sessions import SQLiteSession

args = json.loads(sys.argv[1])
size, tag, stall_batch = args["size"], args["tag"], args["stall_batch"]
session = SQLiteSession("s", args["db"])

if stall_batch is not None:
    # Stop inside the write of batch `stall_batch`, half of its rows inserted, until killed.
    # A one-page cache makes SQLite spill those uncommitted rows into the WAL file.
    real_connect = sqlite3.connect

    def stall(data):
        item = json.loads(data)
        if item["batch"] == stall_batch and item["index"] == size // 2:
            print(f"stalled {stall_batch}", flush=True)
            sys.stdin.readline()
        return 0

    def connect(*a, **k):
        conn = real_connect(*a, **k)
        conn.create_function("stall", 1, stall)
        conn.execute("PRAGMA cache_size = 1")
        conn.execute(
            "CREATE TEMP TRIGGER stall_mid_batch AFTER INSERT ON main.agent_messages "
            "BEGIN SELECT stall(NEW.message_data); END"
        )
        return conn

    sqlite3.connect = connect

print("ready", flush=True)
if args["wait_for_go"]:
    sys.stdin.readline()


async def main():
    number = 0
    while args["batches"] is None or number < args["batches"]:
        await session.add_items([
            {"role": "user", "content": [{"type": "input_text", "text": "x" * args["pad"]}],
             "tag": tag, "batch": number, "index": i}
            for i in range(size)
        ])
        print(f"committed {number}", flush=True)
        number += 1


asyncio.run(main())
session.close()
"""


def start_writer(
    tmp_path: Path,
    db: Path,
    tag: str,
    *,
    size: int,
    batches: int | None = None,
    stall_batch: int | None = None,
    wait_for_go: bool = False,
    pad: int = 200,
) -> subprocess.Popen[str]:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    args = {
        "db": str(db),
        "tag": tag,
        "size": size,
        "batches": batches,
        "stall_batch": stall_batch,
        "wait_for_go": wait_for_go,
        "pad": pad,
    }
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


def read_line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.wait()
        assert proc.stderr is not None
        pytest.fail(f"writer exited with {proc.returncode}: {proc.stderr.read()}")
    return line.strip()


def kill(proc: subprocess.Popen[str]) -> list[str]:
    """SIGKILL the writer; return the complete lines it wrote that were not read yet."""
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL
    assert proc.stdout is not None
    unread = proc.stdout.read()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    return unread.split("\n")[:-1]  # the last piece may be cut short


def test_writers_in_several_processes_serialise(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    SQLiteSession("s", db).close()  # the file exists before the race starts
    procs = [
        start_writer(tmp_path, db, f"p{i}", size=10, batches=15, wait_for_go=True) for i in range(4)
    ]
    for proc in procs:  # every child is ready: release them together
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert out.split("\n")[-2] == "committed 14"

    assert integrity(db) == "ok"
    keys = split_batches(raw_rows(db), 10)
    assert sorted(keys) == sorted((f"p{i}", n) for i in range(4) for n in range(15))


def test_a_writer_killed_at_a_random_moment_leaves_only_whole_batches(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    size, acknowledged = 25, {}
    for round_number in range(4):
        tag = f"r{round_number}"
        proc = start_writer(tmp_path, db, tag, size=size, pad=rng.randrange(50, 2000))
        target = rng.randrange(1, 30)
        for expected in range(target):
            assert read_line(proc) == f"committed {expected}"
        # The writer runs on while we read, so the kill lands wherever it happens to be.
        late = kill(proc)
        assert late == [f"committed {n}" for n in range(target, target + len(late))]
        acknowledged[tag] = target + len(late)
        assert integrity(db) == "ok", f"seed {seed}"

    session = SQLiteSession("s", db)
    try:
        keys = split_batches(asyncio.run(session.get_items()), size)
    finally:
        session.close()
    for tag, count in acknowledged.items():
        stored = [number for (t, number) in keys if t == tag]
        # Every acknowledged batch is there; at most the one in flight was committed too.
        assert stored in (list(range(count)), list(range(count + 1))), f"seed {seed}: {tag}"


def wal_ends_with_uncommitted_frames(wal: Path) -> bool:
    """Whether the WAL's last valid frame belongs to a transaction that has not committed.

    Each WAL frame header holds, at offset 4, the database size after a commit, or 0 when the
    frame is not a commit; frames whose salts differ from the header's are stale leftovers.
    """
    data = wal.read_bytes()
    page_size, salts = int.from_bytes(data[8:12], "big"), data[16:24]
    last_commit_field = None
    for offset in range(32, len(data) - 24, 24 + page_size):
        if data[offset + 8 : offset + 16] != salts:
            break
        last_commit_field = int.from_bytes(data[offset + 4 : offset + 8], "big")
    return last_commit_field == 0


def test_a_writer_killed_inside_its_transaction_leaves_none_of_that_batch(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    size = 40
    proc = start_writer(tmp_path, db, "w", size=size, stall_batch=3, pad=3000)
    for expected in range(3):
        assert read_line(proc) == f"committed {expected}"
    assert read_line(proc) == "stalled 3"  # 20 of batch 3's rows are in the open transaction
    assert wal_ends_with_uncommitted_frames(Path(f"{db}-wal"))
    kill(proc)

    assert integrity(db) == "ok"
    session = SQLiteSession("s", db)
    try:
        keys = split_batches(asyncio.run(session.get_items()), size)
        assert keys == [("w", 0), ("w", 1), ("w", 2)]
        asyncio.run(session.add_items(batch("after", 0, 2)))  # and the file takes new writes
        assert asyncio.run(session.get_items(limit=2)) == batch("after", 0, 2)
    finally:
        session.close()


READER = r"""
import asyncio, json, sys

from jupyter_agents.runtime.sessions import SQLiteSession


async def main():
    session = SQLiteSession(sys.argv[2], sys.argv[1])
    print(json.dumps(await session.get_items(), ensure_ascii=False))
    await session.add_items([{"role": "user", "content": "written by the second process"}])
    session.close()


asyncio.run(main())
"""


def test_a_file_database_is_reopened_by_a_new_process(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    session = SQLiteSession("user-42", db)
    asyncio.run(session.add_items(CONVERSATION))
    session.close()

    out = subprocess.run(
        [sys.executable, "-c", READER, str(db), "user-42"],
        capture_output=True,
        text=True,
        check=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONPATH": str(REPO), "PYTHONIOENCODING": "utf-8"},
    ).stdout

    assert json.loads(out) == CONVERSATION
    reopened = SQLiteSession("user-42", db)
    try:
        history = asyncio.run(reopened.get_items())
    finally:
        reopened.close()
    assert history == [*CONVERSATION, {"role": "user", "content": "written by the second process"}]


async def test_the_file_format_matches_openai_agents(tmp_path: Path) -> None:
    from agents import memory  # the peer, in the test extra

    db = tmp_path / "shared.db"
    peer = memory.SQLiteSession("s", db)
    ours = SQLiteSession("s", db)
    try:
        await peer.add_items(CONVERSATION[:3])  # type: ignore[arg-type]  # its TypedDicts' shapes
        await ours.add_items(CONVERSATION[3:])

        assert await ours.get_items() == CONVERSATION
        assert await peer.get_items() == CONVERSATION
    finally:
        peer.close()
        ours.close()
