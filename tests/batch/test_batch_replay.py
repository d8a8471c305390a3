"""``run_batch(..., cassette=...)``: a batch records every row's run, and the same batch run again
replays every row with no model request (locally, on Ray, through the real openai client); a
strict cassette fails only the rows whose inputs changed, saying what changed; the file is
written once, atomically, when the batch ends, and a crash mid-batch loses no finished row's
recording; rows from the results store need no cassette."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pandas as pd
import pytest

from jupyter_agents import Agent, RunConfig, UserError, arun_batch, run_batch, tool
from jupyter_agents.runtime.batch.store import journal_path
from jupyter_agents.runtime.models.openai_responses import OpenAIResponsesModel
from jupyter_agents.runtime.replay import Cassette
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText

ran: list[str] = []
"""The cities the ``lookup`` tool was really asked about."""


@tool
def lookup(city: str) -> str:
    """Weather for a city."""
    ran.append(city)
    return f"sunny in {city}"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default results store lives under the working directory
    ran.clear()


def live_model(take: int = 1) -> ScriptedModel:
    """Asks ``lookup`` about the row, then answers with its output, the take and a serial
    number: a replayed answer can only come from the recording."""
    serial = itertools.count(1)

    def respond(request: Any) -> Any:
        outputs = [i for i in request.input if i.get("type") == "function_call_output"]
        if not outputs:
            return [tool_call("lookup", {"city": request.user_text})]
        return [text(f"{outputs[-1]['output']} (take {take}, answer {next(serial)})")]

    return ScriptedModel(respond=respond, name="scripted")


def silent_model() -> ScriptedModel:
    """A model that must not be asked (it has no turns: a request fails the row)."""
    return ScriptedModel([], name="scripted")


def weather_agent(model: Any) -> Agent[Any]:
    return Agent(name="weather", model=model, instructions="Be brief.", tools=[lookup])


def cities(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {"city": [f"City {i}" for i in range(n)]},
        index=pd.Index([f"C-{i}" for i in range(n)], name="place"),
    )


async def weather_batch(model: Any, rows: Any, **options: Any) -> Any:
    """The weather agent over ``rows``: prompt "{city}", no results store, no progress."""
    settings: dict[str, Any] = {"prompt": "{city}", "cache": False, "progress": None}
    return await arun_batch(weather_agent(model), rows, **{**settings, **options})


def outputs(result: Any) -> dict[str, Any]:
    return {r.key: r.output for r in result.rows}


async def test_a_batch_records_every_row_then_replays_them_with_no_model_call() -> None:
    rows = cities(30)
    cassette = Cassette(mode="auto")  # in memory
    live = live_model()
    first = await weather_batch(live, rows, cassette=cassette, concurrency=8)
    assert first.counts == {"ok": 30} and len(live.requests) == 60 and len(ran) == 30
    assert not any(r.replayed for r in first.rows)
    assert len(cassette.runs) == 30 and len(cassette.used) == 30
    assert sorted(run["row"] for run in cassette.runs) == sorted(r.key for r in first.rows)
    ran.clear()
    silent = silent_model()
    again = await weather_batch(silent, rows, cassette=cassette, concurrency=8)
    assert silent.requests == [] and ran == []  # no model request, no tool run
    assert again.counts == {"ok": 30} and all(r.replayed for r in again.rows)
    assert outputs(again) == outputs(first)
    assert [r.tokens for r in again.rows] == [r.tokens for r in first.rows]
    assert len(cassette.runs) == 30  # a full replay keeps the recordings as they were


async def test_identical_rows_each_replay_their_own_recording() -> None:
    # Three rows ask the same thing and got different answers; run in another order, each row
    # still gets its own answer back (the recordings name their row).
    rows = pd.DataFrame({"city": ["Oslo", "Oslo", "Oslo", "Rome"]}, index=["a", "b", "c", "d"])
    cassette = Cassette()
    first = await weather_batch(live_model(), rows, cassette=cassette, concurrency=1)
    assert len({r.output for r in first.rows}) == 4
    silent = silent_model()
    reordered = rows.iloc[::-1]
    again = await weather_batch(silent, reordered, cassette=cassette, concurrency=1)
    assert silent.requests == [] and outputs(again) == outputs(first)


@pytest.mark.http
async def test_recorded_through_the_openai_client_replays_with_the_server_stopped(
    openai_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    def agent() -> Agent[Any]:
        client = openai.AsyncOpenAI(
            base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
        )
        return Agent(name="a", model=OpenAIResponsesModel("gpt-test", openai_client=client))

    openai_server.enqueue(*[Reply([ReplyText(f"label {i}")]) for i in range(12)])
    rows = [{"text": f"ticket {i}"} for i in range(12)]
    path = tmp_path / "runs.json"
    first = await arun_batch(
        agent(),
        rows,
        prompt="Classify: {text}",
        cassette=path,
        cache=False,
        concurrency=4,
        progress=None,
    )
    assert first.counts == {"ok": 12} and len(openai_server.model_requests) == 12
    openai_server.stop()
    again = await arun_batch(
        agent(),
        rows,
        prompt="Classify: {text}",
        cassette=path,
        cache=False,
        concurrency=4,
        progress=None,
    )
    assert len(openai_server.model_requests) == 12  # nothing new: the server is not even up
    assert again.counts == {"ok": 12} and all(r.replayed for r in again.rows)
    assert outputs(again) == outputs(first)
    assert sorted(outputs(again).values()) == sorted(f"label {i}" for i in range(12))


async def test_strict_fails_only_the_changed_row_saying_what_changed(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    rows = cities(6)
    live = live_model()
    await arun_batch(weather_agent(live), rows, prompt="{city}", cassette=path, progress=None)
    changed = rows.copy()
    changed.loc["C-3", "city"] = "Paris"
    silent = silent_model()
    strict = await arun_batch(
        weather_agent(silent),
        changed,
        prompt="{city}",
        cassette=Cassette(path, mode="strict"),
        progress=None,
    )
    assert silent.requests == []
    assert strict.counts == {"ok": 5, "failed": 1}
    failed = next(r for r in strict.rows if r.status == "failed")
    assert failed.label == "C-3"
    assert failed.error is not None and failed.error.startswith("ReplayMismatch: No recording")
    assert "input: -user: City 3 | +user: Paris" in failed.error  # this row's change
    assert len(json.loads(path.read_text())["runs"]) == 6  # strict records nothing
    # The refused row is not kept in the results store: once the cassette lets it run live,
    # it runs (alone: the others come from the store) and is recorded.
    calls = len(live.requests)
    after = await arun_batch(
        weather_agent(live), changed, prompt="{city}", cassette=path, progress=None
    )
    assert after.counts == {"ok": 6} and len(live.requests) - calls == 2  # one row, two turns
    assert [r.label for r in after.rows if not r.from_store] == ["C-3"]
    assert "sunny in Paris" in after.rows[3].output
    recordings = json.loads(path.read_text())["runs"]
    assert [run["row"] for run in recordings].count('"C-3"') == 2  # old inputs and new


async def test_a_path_cassette_is_written_once_atomically_and_read_back_by_a_fresh_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "recordings"
    path = folder / "runs.json"
    saves: list[int] = []
    real_save = Cassette.save

    def counting_save(self: Cassette) -> None:
        saves.append(len(self.runs))
        real_save(self)

    monkeypatch.setattr(Cassette, "save", counting_save)

    class Watch:
        """At each finished row: the file is not written yet, the journal has every row."""

        def __init__(self) -> None:
            self.seen: list[tuple[bool, int]] = []

        def start(self, total: int, done: list[Any]) -> None:
            pass

        def row_started(self, index: int) -> None:
            pass

        def row_done(self, index: int, row: Any) -> None:
            journal = journal_path(path)
            lines = journal.read_text().splitlines() if journal.exists() else []
            self.seen.append((path.exists(), len(lines)))

        def finish(self, seconds: float, stopped: bool) -> None:
            pass

    watch = Watch()
    first = await weather_batch(
        live_model(), cities(20), cassette=str(path), concurrency=5, progress=watch
    )
    assert watch.seen == [(False, n) for n in range(1, 21)]
    assert saves == [20]  # once, at the end, with every row
    assert sorted(p.name for p in folder.iterdir()) == ["runs.json"]  # no journal, no temp file
    data = json.loads(path.read_text())
    assert data["version"] == 1 and len(data["runs"]) == 20
    written = path.read_bytes()
    silent = silent_model()
    again = await weather_batch(silent, cities(20), cassette=str(path), concurrency=5)
    assert silent.requests == [] and outputs(again) == outputs(first)
    assert saves == [20] and path.read_bytes() == written  # a replay leaves the file alone


async def test_record_mode_records_each_row_again_in_place(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    first = await weather_batch(live_model(), cities(8), cassette=path)
    live = live_model(take=2)
    again = await weather_batch(live, cities(8), cassette=Cassette(path, mode="record"))
    assert len(live.requests) == 16 and not any(r.replayed for r in again.rows)
    assert all("take 2" in str(r.output) for r in again.rows)
    assert all("take 1" in str(r.output) for r in first.rows)
    runs = json.loads(path.read_text())["runs"]
    assert len(runs) == 8  # each row's recording replaced, not added to
    silent = silent_model()
    replayed = await weather_batch(silent, cities(8), cassette=path)
    assert silent.requests == [] and outputs(replayed) == outputs(again)


CRASHING_BATCH = """
import os, sys
from jupyter_agents import Agent, Cassette, run_batch
from jupyter_agents.testing import ScriptedModel, text

class CrashAfterFive:
    done = 0
    def start(self, total, done): pass
    def row_started(self, index): pass
    def row_done(self, index, row):
        self.done += 1
        if self.done == 5:
            os._exit(3)  # no finally, no atexit: a killed process
    def finish(self, seconds, stopped): pass

path, mode, take = sys.argv[1:]
model = ScriptedModel(respond=lambda r: [text(f"{take}: {r.user_text}")], name="scripted")
run_batch(
    Agent(name="a", model=model), [f"row {i}" for i in range(12)],
    cassette=Cassette(path, mode=mode), cache=False, concurrency=3, progress=CrashAfterFive(),
)
"""


def test_a_crash_mid_batch_loses_no_finished_rows_recording(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    script = tmp_path / "crash.py"
    script.write_text(CRASHING_BATCH)

    def crash(mode: str, take: str) -> None:
        command = [sys.executable, str(script), str(path), mode, take]
        crashed = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert crashed.returncode == 3, crashed.stderr
        assert len(journal_path(path).read_text().splitlines()) == 5

    def batch(model: ScriptedModel, mode: Any) -> Any:
        rows = [f"row {i}" for i in range(12)]
        cassette = Cassette(path, mode=mode)
        agent = Agent(name="a", model=model)
        return run_batch(agent, rows, cassette=cassette, cache=False, progress=None)

    crash("auto", "take 1")
    assert not path.exists()  # the file is written at the end, which never came
    model = ScriptedModel(respond=lambda r: [text(f"take 1: {r.user_text}")], name="scripted")
    result = batch(model, "auto")
    assert result.counts == {"ok": 12}
    assert len(model.requests) == 7 and sum(r.replayed for r in result.rows) == 5
    assert not journal_path(path).exists() and len(json.loads(path.read_text())["runs"]) == 12
    # Re-recording crashes too: the five new recordings replace their rows' old ones.
    crash("record", "take 2")
    silent = silent_model()
    replayed = batch(silent, "strict")
    assert silent.requests == [] and replayed.counts == {"ok": 12}
    assert sum(str(r.output).startswith("take 2") for r in replayed.rows) == 5
    assert len(json.loads(path.read_text())["runs"]) == 12 and not journal_path(path).exists()


async def test_a_batch_that_fails_saves_what_its_rows_recorded(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"

    class Boom(Exception):
        pass

    class FailAfterThree:
        done = 0

        def start(self, total: int, done: list[Any]) -> None:
            pass

        def row_started(self, index: int) -> None:
            pass

        def row_done(self, index: int, row: Any) -> None:
            self.done += 1
            if self.done == 3:
                raise Boom("the progress broke")

        def finish(self, seconds: float, stopped: bool) -> None:
            pass

    with pytest.raises(Boom):
        await weather_batch(
            live_model(), cities(10), cassette=path, concurrency=1, progress=FailAfterThree()
        )
    assert len(json.loads(path.read_text())["runs"]) == 3 and not journal_path(path).exists()
    silent = silent_model()
    again = await weather_batch(silent, cities(3), cassette=path)
    assert silent.requests == [] and all(r.replayed for r in again.rows)


async def test_rows_from_the_results_store_need_no_cassette() -> None:
    rows = cities(4)
    await arun_batch(weather_agent(live_model()), rows, prompt="{city}", progress=None)
    silent = silent_model()
    empty = Cassette(mode="strict")  # would refuse any row that ran
    again = await arun_batch(
        weather_agent(silent), rows, prompt="{city}", cassette=empty, progress=None
    )
    assert again.counts == {"ok": 4} and all(r.from_store for r in again.rows)
    assert silent.requests == [] and empty.runs == []


async def test_the_run_configs_replay_is_the_batchs_cassette_too(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    config = RunConfig(replay=Cassette(path))
    await weather_batch(live_model(), cities(5), run_config=config)
    assert len(json.loads(path.read_text())["runs"]) == 5
    silent = silent_model()
    again = await weather_batch(silent, cities(5), run_config=RunConfig(replay=Cassette(path)))
    assert silent.requests == [] and all(r.replayed for r in again.rows)


def test_a_cassette_given_twice_or_of_the_wrong_kind_is_a_one_line_error(tmp_path: Path) -> None:
    model = silent_model()
    config = RunConfig(replay=Cassette())
    with pytest.raises(UserError) as twice:
        run_batch(
            weather_agent(model),
            ["x"],
            cassette=tmp_path / "runs.json",
            run_config=config,
            progress=None,
        )
    message = str(twice.value)
    assert "\n" not in message and "cassette=" in message and "run_config.replay" in message
    assert "not both" in message
    with pytest.raises(UserError, match=r"cassette must be a Cassette or a file path, got int"):
        run_batch(weather_agent(model), ["x"], cassette=3, progress=None)  # type: ignore[arg-type]
    assert model.requests == [] and not (tmp_path / "runs.json").exists()


# -- Ray -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    import ray  # in the test extra: a missing Ray fails here rather than skipping

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.http
@pytest.mark.timeout(300)
def test_rows_recorded_on_ray_workers_land_in_the_drivers_cassette_and_replay(
    local_ray: Any,
    openai_server: FakeOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    openai_server.enqueue(*[Reply([ReplyText(f"label {i}")]) for i in range(16)])
    agent = Agent(name="classifier", model="gpt-test")
    rows = [{"text": f"message {i}"} for i in range(16)]
    path = tmp_path / "runs.json"
    first = run_batch(
        agent,
        rows,
        prompt="Spam? {text}",
        concurrency=6,
        backend="ray",
        cassette=path,
        cache=False,
        progress=None,
    )
    assert first.counts == {"ok": 16} and len(openai_server.model_requests) == 16
    recordings = json.loads(path.read_text())["runs"]
    assert sorted(run["row"] for run in recordings) == sorted(r.key for r in first.rows)
    assert not journal_path(path).exists()
    openai_server.stop()
    again = run_batch(
        agent,
        rows,
        prompt="Spam? {text}",
        concurrency=6,
        backend="ray",
        cassette=path,
        cache=False,
        progress=None,
    )
    assert len(openai_server.model_requests) == 16
    assert again.counts == {"ok": 16} and all(r.replayed for r in again.rows)
    assert outputs(again) == outputs(first)
    changed = [*rows[:15], {"text": "message sixteen"}]
    strict = run_batch(
        agent,
        changed,
        prompt="Spam? {text}",
        concurrency=6,
        backend="ray",
        cassette=Cassette(path, mode="strict"),
        cache=False,
        progress=None,
    )
    assert strict.counts == {"ok": 15, "failed": 1}
    assert "+user: Spam? message sixteen" in (strict.rows[15].error or "")
    assert len(openai_server.model_requests) == 16
