"""backend='ray' on a local Ray instance (ray.init(num_cpus=2)) against the local
OpenAI-compatible server: rows run as Ray tasks, results land in the driver's store, a re-run
skips them, and an agent that cannot travel to the workers is a clear error naming the part."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
import ray  # in the test extra: a missing Ray fails here rather than skipping

from jupyter_agents import Agent, UserError, run_batch, tool
from jupyter_agents.runtime.models.openai_responses import OpenAIResponsesModel
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall

from ..recorded import json_bodies

pytestmark = pytest.mark.http


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


@pytest.mark.timeout(300)
def test_rows_run_as_ray_tasks_and_land_in_the_drivers_store(
    local_ray: Any, openai_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    openai_server.enqueue(*[Reply([ReplyText("spam")]) for _ in range(30)])
    agent = Agent(name="classifier", model="gpt-test")
    rows = [{"text": f"message {i}"} for i in range(30)]
    result = run_batch(
        agent, rows, prompt="Spam? {text}", concurrency=6, backend="ray", progress=None
    )
    assert result.counts == {"ok": 30}
    assert {r.output for r in result.rows} == {"spam"}
    asked = [
        (b.get("input") or b["messages"])[-1]["content"]
        for b in json_bodies(openai_server.model_requests)
    ]
    assert sorted(asked) == sorted(f"Spam? message {i}" for i in range(30))
    again = run_batch(agent, rows, prompt="Spam? {text}", backend="ray", progress=None)
    assert all(r.from_store for r in again.rows) and len(openai_server.model_requests) == 30
    assert Path(".jupyter_agents/batches.sqlite").exists()  # on the driver


@tool
def whoami() -> int:
    """The process the tool runs in."""
    return os.getpid()


def test_tools_defined_here_run_on_the_workers(
    local_ray: Any, openai_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    for _ in range(3):
        openai_server.enqueue(Reply([ReplyToolCall("whoami", {})]), Reply([ReplyText("done")]))
    agent = Agent(name="a", model="gpt-test", tools=[whoami])
    result = run_batch(
        agent, ["a", "b", "c"], concurrency=1, backend="ray", progress=None, cache=False
    )
    assert result.counts == {"ok": 3}
    pids = {
        int(m["content"])
        for b in json_bodies(openai_server.model_requests)
        for m in (b.get("input") or b["messages"])
        if m.get("role") == "tool"
    } | {
        int(m["output"])
        for b in json_bodies(openai_server.model_requests)
        for m in (b.get("input") or [])
        if m.get("type") == "function_call_output"
    }
    assert pids and os.getpid() not in pids


def test_what_cannot_travel_is_named(local_ray: Any, openai_server: FakeOpenAIServer) -> None:
    lock = threading.Lock()

    @tool
    def guarded(x: int) -> int:
        """Uses a lock from the notebook."""
        with lock:
            return x

    with pytest.raises(UserError, match=r"cannot send tool 'guarded' to the Ray workers"):
        run_batch(
            Agent(name="a", model="gpt-test", tools=[guarded]), ["x"], backend="ray", progress=None
        )
    client = openai.AsyncOpenAI(base_url=openai_server.base_url, api_key="k")
    with_client = Agent(name="b", model=OpenAIResponsesModel("gpt-test", openai_client=client))
    with pytest.raises(UserError, match=r"the model of agent 'b'.*Give a model by name"):
        run_batch(with_client, ["x"], backend="ray", progress=None)
