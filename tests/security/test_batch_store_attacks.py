"""The batch results store (``runtime/batch/store.py``) under what a long notebook session does
to it: many batches (no file handle is kept per batch), a damaged file (a one-line error naming
the file and what to do, and the file left as it is), and the file deleted or replaced while a
batch runs (noticed: the store is written again with every row it held, and a warning says so)."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import Agent, UserError, arun_batch, tool
from jupyter_agents.runtime.batch.store import ResultsStore, StoredRow
from tests.batch.row_model import RowModel


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def stored(key: str) -> StoredRow:
    return StoredRow(key, "h", "ok", f"out {key}", None, 1, 0.1, None, None)


class DeleteAfter:
    """A progress that runs ``action`` once ``count`` rows are done."""

    def __init__(self, count: int, action: Any) -> None:
        self.count, self.action, self.done = count, action, 0

    def start(self, total: int, done: list[Any]) -> None:
        pass

    def row_started(self, index: int) -> None:
        pass

    def row_done(self, index: int, row: Any) -> None:
        self.done += 1
        if self.done == self.count:
            self.action()

    def finish(self, seconds: float, stopped: bool) -> None:
        pass


async def test_many_batches_keep_no_file_handles(tmp_path: Path) -> None:
    agent = Agent(name="a", model=RowModel())
    store = tmp_path / "batches.sqlite"
    kept = [await arun_batch(agent, ["x"], cache=store, progress=None)]  # the first opens libs
    before = open_fds()
    for n in range(40):  # a notebook keeps its results (Out[n]): so does this test
        kept.append(await arun_batch(agent, [f"row {n}"], cache=store, progress=None))
    assert open_fds() - before <= 2, f"{open_fds() - before} handles left open by 40 batches"
    assert all(r.counts == {"ok": 1} for r in kept)


@tool(needs_approval=True)
def send(to: str) -> str:
    """Send it."""
    return f"sent to {to}"


@pytest.mark.parametrize("in_file", [True, False], ids=["file", "memory"])
async def test_a_waiting_batch_resumes_after_its_store_was_released(
    tmp_path: Path, in_file: bool
) -> None:
    agent = Agent(name="a", model=RowModel(tool_name="send"), tools=[send])
    cache: Path | bool = tmp_path / "batches.sqlite" if in_file else False
    waiting = await arun_batch(agent, ["ana", "bob"], approve="review", cache=cache, progress=None)
    assert waiting.counts == {"waiting": 2}
    waiting.approve()
    done = await asyncio.to_thread(waiting.resume)
    assert done.counts == {"ok": 2}
    assert [r.output for r in done.rows] == ["sent to ana", "sent to bob"]


@pytest.mark.parametrize(
    "damage",
    [
        b"this is not a database at all" * 100,
        b"SQLite format 3\x00" + b"\xff" * 4000,  # the header, then garbage
    ],
    ids=["text", "bad-pages"],
)
async def test_a_damaged_store_is_one_line_naming_the_file(tmp_path: Path, damage: bytes) -> None:
    path = tmp_path / "batches.sqlite"
    path.write_bytes(damage)
    agent = Agent(name="a", model=RowModel())
    await arun_batch(agent, ["x"], cache=False, progress=None)  # what a first batch opens
    before = open_fds()
    with pytest.raises(UserError) as caught:
        await arun_batch(agent, ["x"], cache=path, progress=None)
    message = str(caught.value)
    assert not isinstance(caught.value, sqlite3.Error)
    assert "\n" not in message and str(path) in message, message
    assert "cache=" in message  # what to do: another file, or move this one aside
    assert path.read_bytes() == damage  # the file is the person's: left as it was
    assert open_fds() == before  # the failed connection is closed


def test_a_store_deleted_between_two_rows_keeps_both(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "batches.sqlite"
    store = ResultsStore(path)
    store.open_batch("b", {"agent": "a"})
    store.put("b", stored("r1"))
    path.unlink()
    with caplog.at_level(logging.WARNING, logger="jupyter_agents"):
        store.put("b", stored("r2"))
    assert str(path) in caplog.text and "deleted" in caplog.text
    store.close()
    again = ResultsStore(path)
    assert sorted(again.rows("b")) == ["r1", "r2"]
    again.close()


def test_a_store_folder_removed_mid_run_is_made_again(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    path = folder / "batches.sqlite"
    store = ResultsStore(path)
    store.open_batch("b", {"agent": "a"})
    store.put("b", stored("r1"))
    shutil.rmtree(folder)
    store.put("b", stored("r2"))
    assert sorted(store.rows("b")) == ["r1", "r2"]
    store.close()
    assert sorted(ResultsStore(path).rows("b")) == ["r1", "r2"]


def test_a_store_replaced_mid_run_keeps_the_rows_of_both(tmp_path: Path) -> None:
    path = tmp_path / "batches.sqlite"
    store = ResultsStore(path)
    store.open_batch("b", {"agent": "a"})
    store.put("b", stored("r1"))
    other = tmp_path / "other.sqlite"
    elsewhere = ResultsStore(other)
    elsewhere.open_batch("b", {"agent": "a"})
    elsewhere.put("b", stored("theirs"))
    elsewhere.close()
    other.replace(path)  # another kernel's copy put in its place
    store.put("b", stored("r2"))
    store.close()
    assert sorted(ResultsStore(path).rows("b")) == ["r1", "r2", "theirs"]


async def test_a_batch_whose_store_is_deleted_mid_run_loses_no_row(tmp_path: Path) -> None:
    path = tmp_path / "batches.sqlite"
    rows = [f"row {i}" for i in range(6)]
    first = RowModel()
    delete = DeleteAfter(2, path.unlink)
    result = await arun_batch(
        Agent(name="a", model=first), rows, cache=path, concurrency=1, progress=delete
    )
    assert result.counts == {"ok": 6} and delete.done == 6
    second = RowModel()
    again = await arun_batch(Agent(name="a", model=second), rows, cache=path, progress=None)
    assert again.counts == {"ok": 6}
    assert second.prompts == [] and all(r.from_store for r in again.rows)
