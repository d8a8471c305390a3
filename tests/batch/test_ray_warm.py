"""``run_batch(backend="ray", ray_keep_warm=...)`` on a local Ray instance (ray.init(num_cpus=2)):
the next batch runs on the same actors, with nothing of the batch before (its agent, run config,
cassette, or the state its tools kept); an actor that died is replaced, idle actors are released
on time and on request, and a Ray shut down between batches means new actors, not a hang.

Which actor ran a row is what the row says: the tests' tools answer with the actor's id and
process id, and the rows' outputs are those answers (``RowModel``)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import ray  # in the test extra: a missing Ray fails here rather than skipping

from jupyter_agents import (
    Agent,
    BatchResult,
    RunConfig,
    UserError,
    release_ray_actors,
    run_batch,
    tool,
    warm_ray_actors,
)
from jupyter_agents.runtime.batch import NoProgress
from jupyter_agents.runtime.replay import Cassette

from .row_model import RowModel

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    release_ray_actors()
    ray.shutdown()


@pytest.fixture(autouse=True)
def _each_test_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    yield
    release_ray_actors()  # a test's warm actors hold the CPUs the next test's need


@tool
def where(to: str) -> str:
    """Where the row ran: ``to|actor id|process id``."""
    return f"{to}|{ray.get_runtime_context().get_actor_id()}|{os.getpid()}"


@tool
def where_b(to: str) -> str:
    """Agent B's tool: the same, marked ``B``."""
    return f"B:{to}|{ray.get_runtime_context().get_actor_id()}|{os.getpid()}"


def ran_on(result: BatchResult) -> list[tuple[str, str, int]]:
    """Each row's ``(what the tool got, actor id, process id)``."""
    assert result.counts == {"ok": len(result.rows)}, [r.error for r in result.rows]
    parts = [str(r.output).split("|") for r in result.rows]
    return [(to, actor, int(pid)) for to, actor, pid in parts]


def batch(agent: Agent[Any], rows: list[str], **options: Any) -> BatchResult:
    options = {"concurrency": 2, "ray_keep_warm": True, "cache": False, **options}
    return run_batch(agent, rows, backend="ray", progress=None, **options)


def wait_until(condition: Callable[[], bool], what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        time.sleep(0.05)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_next_batch_runs_on_the_same_actors_with_its_own_agent(local_ray: Any) -> None:
    first = ran_on(batch(Agent(name="a", model=RowModel("where"), tools=[where]), list("abcd")))
    actors = {actor for _, actor, _ in first}
    assert len(actors) == 2 and warm_ray_actors() == 2
    agent_b = Agent(name="b", model=RowModel("where_b"), tools=[where_b])
    second = ran_on(batch(agent_b, list("efgh")))
    assert {actor for _, actor, _ in second} == actors  # no actor started
    assert [to for to, _, _ in second] == ["B:e", "B:f", "B:g", "B:h"]  # agent B's tool ran
    config = RunConfig(model=RowModel("where_b", arguments=lambda prompt: {"to": "config"}))
    third = ran_on(batch(agent_b, list("ij"), run_config=config))
    assert {actor for _, actor, _ in third} <= actors
    assert [to for to, _, _ in third] == ["B:config", "B:config"]  # the run config's model
    assert warm_ray_actors() == 2


def test_what_a_tool_kept_in_one_batch_is_not_seen_by_the_next(local_ray: Any) -> None:
    calls: list[str] = []

    @tool
    def counted(to: str) -> str:
        """How many calls this copy of the tool had."""
        calls.append(to)
        return f"{len(calls)}|{ray.get_runtime_context().get_actor_id()}|{os.getpid()}"

    agent = Agent(name="c", model=RowModel("counted"), tools=[counted])
    first = ran_on(batch(agent, list("abcdef")))
    assert max(int(n) for n, _, _ in first) >= 2  # each actor's copy counted its rows
    second = ran_on(batch(agent, list("ghijkl")))
    assert {a for _, a, _ in second} <= {a for _, a, _ in first}
    for actor in {a for _, a, _ in second}:
        counts = sorted(int(n) for n, a, _ in second if a == actor)
        assert counts == list(range(1, len(counts) + 1))  # counted afresh
    assert calls == []  # and the driver's copy never ran


def test_each_batch_replays_its_own_cassette_on_warm_actors(local_ray: Any, tmp_path: Path) -> None:
    agent = Agent(name="d", model=RowModel("where"), tools=[where])
    actors = {a for _, a, _ in ran_on(batch(agent, list("abcd")))}
    empty = Cassette(tmp_path / "none.json", mode="strict")
    strict = batch(agent, list("abcd"), cassette=empty)
    assert strict.counts == {"failed": 4}  # the strict cassette reached the warm actors
    assert all("recording" in (r.error or "") for r in strict.rows), strict.rows[0].error
    after = ran_on(batch(agent, list("abcd")))  # and left with its batch
    assert {a for _, a, _ in after} <= actors


def test_a_batch_without_keep_warm_runs_on_the_warm_actors_and_stops_them(
    local_ray: Any,
) -> None:
    agent = Agent(name="m", model=RowModel("where"), tools=[where])
    first = ran_on(batch(agent, list("abcd")))
    second = ran_on(batch(agent, list("abcd"), ray_keep_warm=False))
    assert {a for _, a, _ in second} == {a for _, a, _ in first}
    assert warm_ray_actors() == 0
    wait_until(lambda: all(gone(p) for _, _, p in first), "their processes end")


def test_a_different_environment_gets_new_actors(
    local_ray: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = Agent(name="e", model=RowModel("where"), tools=[where])
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/one")
    first = ran_on(batch(agent, list("ab")))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/two")
    second = ran_on(batch(agent, list("ab")))  # the old ones are released: they hold the CPUs
    assert not {a for _, a, _ in first} & {a for _, a, _ in second}
    assert warm_ray_actors() == 2


def test_a_killed_warm_actor_is_replaced(local_ray: Any) -> None:
    agent = Agent(name="f", model=RowModel("where"), tools=[where])
    first = ran_on(batch(agent, list("abcd")))
    (killed_actor, killed), *_ = {(a, p) for _, a, p in first}
    os.kill(killed, signal.SIGKILL)
    wait_until(lambda: gone(killed), "the killed actor's process ends")
    second = ran_on(batch(agent, list("efgh")))
    actors = {a for _, a, _ in second}
    assert killed_actor not in actors and len(actors) == 2
    assert len(actors & {a for _, a, _ in first}) == 1  # the other one was kept
    assert warm_ray_actors() == 2


def test_an_actor_that_dies_mid_batch_is_replaced_for_the_next_rows(local_ray: Any) -> None:
    @tool
    def crash_on(to: str) -> str:
        """Ends its process on ``crash``."""
        if to == "crash":
            os._exit(1)
        return f"{to}|{ray.get_runtime_context().get_actor_id()}|{os.getpid()}"

    agent = Agent(name="g", model=RowModel("crash_on"), tools=[crash_on])
    result = batch(agent, ["a", "crash", "b", "c"], concurrency=1)  # one actor, a row at a time
    assert [r.status for r in result.rows] == ["ok", "failed", "ok", "ok"]
    assert "Actor" in (result.rows[1].error or "")
    actors = [str(r.output).split("|")[1] for r in result.rows if r.status == "ok"]
    assert actors[0] != actors[1] == actors[2]


class FailsOnFirstRow(NoProgress):
    """Progress that ends the batch when its first row is done."""

    def row_done(self, index: int, row: Any) -> None:
        raise RuntimeError("the batch ends here")


def test_a_batch_interrupted_with_rows_on_its_actors_does_not_keep_them(local_ray: Any) -> None:
    @tool
    def hold(to: str) -> str:
        """Row ``hold`` never ends (its actor is stopped under it)."""
        if to == "hold":
            threading.Event().wait()
        return to

    agent = Agent(name="l", model=RowModel("hold"), tools=[hold])
    with pytest.raises(RuntimeError, match="the batch ends here"):
        run_batch(
            agent,
            ["hold", "a"],
            concurrency=2,
            backend="ray",
            ray_keep_warm=True,
            cache=False,
            progress=FailsOnFirstRow(),
        )
    assert warm_ray_actors() == 0


def test_idle_actors_are_released_when_their_time_runs_out(local_ray: Any) -> None:
    agent = Agent(name="h", model=RowModel("where"), tools=[where])
    pids = {p for _, _, p in ran_on(batch(agent, list("abcd"), ray_keep_warm=0.5))}
    wait_until(lambda: warm_ray_actors() == 0, "the idle actors are released")
    wait_until(lambda: all(map(gone, pids)), "their processes end")


def test_release_ray_actors_stops_the_warm_ones(local_ray: Any) -> None:
    agent = Agent(name="i", model=RowModel("where"), tools=[where])
    pids = {p for _, _, p in ran_on(batch(agent, list("abcd")))}
    assert warm_ray_actors() == 2
    assert release_ray_actors() == 2 and warm_ray_actors() == 0
    wait_until(lambda: all(map(gone, pids)), "their processes end")
    assert release_ray_actors() == 0


def test_ray_keep_warm_is_checked_before_anything_runs() -> None:
    agent = Agent(name="j", model=RowModel())
    with pytest.raises(UserError, match=r"ray_keep_warm applies to backend='ray' alone"):
        run_batch(agent, ["x"], ray_keep_warm=True, progress=None)
    with pytest.raises(UserError, match=r"ray_keep_warm must be True, False or seconds above 0"):
        run_batch(agent, ["x"], backend="ray", ray_keep_warm=-1, progress=None)


def test_a_ray_shut_down_between_batches_means_new_actors(local_ray: Any) -> None:
    agent = Agent(name="k", model=RowModel("where"), tools=[where])
    first = ran_on(batch(agent, list("ab")))
    ray.shutdown()  # the warm actors end with it
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    second = ran_on(batch(agent, list("ab")))
    assert not {a for _, a, _ in first} & {a for _, a, _ in second}
    assert warm_ray_actors() == 2
