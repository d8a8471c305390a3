"""run_batch against the local OpenAI-compatible server (real openai client over HTTP) and a
row-aware model: concurrency, failures, Stop and resume from the store, review, structured
outputs, rate limits and 429s."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any, Literal

import openai
import pandas as pd
import pytest
from pydantic import BaseModel

from jupyter_agents import (
    Agent,
    AskUserTool,
    BatchControl,
    RunConfig,
    UserError,
    arun_batch,
    run_batch,
    tool,
)
from jupyter_agents.runtime.batch.limits import RateLimiter
from jupyter_agents.runtime.batch.progress import TextProgress
from jupyter_agents.runtime.models.openai_responses import OpenAIResponsesModel
from jupyter_agents.runtime.retry import ModelRetryPolicy
from jupyter_agents.testing._server_replies import DEFAULT_USAGE
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyError, ReplyText

from ..recorded import json_bodies, json_body
from .row_model import RowModel, sent

pytestmark = pytest.mark.http


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default store lives under the working directory


def http_agent(server: FakeOpenAIServer, **options: Any) -> Agent[Any]:
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0)
    return Agent(
        name="classifier", model=OpenAIResponsesModel("gpt-test", openai_client=client), **options
    )


class Watch:
    """A progress that counts rows in flight (the batch's own concurrency, observed)."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.peak = 0
        self.done: list[Any] = []
        self.on_done: Any = None

    def start(self, total: int, done: list[Any]) -> None:
        self.total, self.already = total, len(done)

    def row_started(self, index: int) -> None:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)

    def row_done(self, index: int, row: Any) -> None:
        self.in_flight -= 1
        self.done.append(row)
        if self.on_done is not None:
            self.on_done(len(self.done))

    def finish(self, seconds: float, stopped: bool) -> None:
        self.seconds, self.stopped = seconds, stopped


async def test_two_thousand_rows_run_at_the_concurrency_asked(
    openai_server: FakeOpenAIServer,
) -> None:
    rows = pd.DataFrame({"text": [f"ticket {i}" for i in range(2000)]})
    openai_server.enqueue(*[Reply([ReplyText("billing")], delay=0.02) for _ in range(2000)])
    watch = Watch()
    result = await arun_batch(
        http_agent(openai_server), rows, prompt="Classify: {text}", concurrency=40, progress=watch
    )
    assert result.counts == {"ok": 2000} and watch.peak == 40
    inputs = [b["input"][-1]["content"] for b in json_bodies(openai_server.model_requests)]
    assert sorted(inputs) == sorted(f"Classify: ticket {i}" for i in range(2000))
    frame = result.to_pandas()
    assert list(frame.index) == list(rows.index) and set(frame["output"]) == {"billing"}
    assert result.tokens == 2000 * sum(DEFAULT_USAGE)


async def test_a_failing_row_does_not_stop_the_others(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(Reply([ReplyText("a")]), ReplyError(500, "boom"), Reply([ReplyText("c")]))
    config = RunConfig(model_retry=ModelRetryPolicy(max_attempts=1))
    result = await arun_batch(
        http_agent(openai_server), ["x", "y", "z"], concurrency=1, run_config=config, progress=None
    )
    assert [r.status for r in result.rows] == ["ok", "failed", "ok"]
    assert "boom" in (result.rows[1].error or "")


async def test_stop_then_run_again_continues_without_repeating(tmp_path: Path) -> None:
    model = RowModel()
    agent = Agent(name="a", model=model)
    rows = [{"text": f"t{i}"} for i in range(60)]
    control = BatchControl()
    watch = Watch()
    watch.on_done = lambda n: control.stop() if n == 20 else None
    first = await arun_batch(
        agent, rows, prompt="{text}", concurrency=5, control=control, progress=watch
    )
    assert first.stopped and first.counts["pending"] > 0
    done_first = [r.key for r in first.rows if r.status == "ok"]
    assert 20 <= len(done_first) < 60  # in-flight rows finish, no new ones start
    calls_before = len(model.prompts)
    second = await arun_batch(agent, rows, prompt="{text}", concurrency=5, progress=None)
    assert second.counts == {"ok": 60} and not second.stopped
    assert len(model.prompts) - calls_before == 60 - len(done_first)  # only the rest ran
    assert sorted(model.prompts) == sorted(r["text"] for r in rows)  # no row twice
    assert sum(r.from_store for r in second.rows) == len(done_first)
    third = await arun_batch(agent, rows, prompt="{text}", fresh=True, progress=None)
    assert third.counts == {"ok": 60} and len(model.prompts) == 120


async def test_a_changed_prompt_or_agent_is_another_batch() -> None:
    model = RowModel()
    rows = ["a", "b"]
    await arun_batch(Agent(name="a", model=model), rows, progress=None)
    await arun_batch(Agent(name="a", model=model), rows, prompt="say {input}", progress=None)
    await arun_batch(Agent(name="a", model=model, instructions="Be brief."), rows, progress=None)
    assert len(model.prompts) == 6


async def test_review_pauses_rows_and_resumes_exactly_the_decided_ones() -> None:
    model = RowModel(tool_name="send")
    agent = Agent(name="mailer", model=model, tools=[send])
    sent.clear()
    rows = pd.DataFrame({"to": ["ana", "bob", "cy", "dee", "eve"]}, index=list("abcde"))
    result = await arun_batch(agent, rows, prompt="{to}", approve="review", progress=None)
    assert result.counts == {"waiting": 5} and sent == []
    table = result.review_table()
    assert [(line["row"], line["tool"], line["arguments"]) for line in table][:2] == [
        ("a", "send", {"to": "ana"}),
        ("b", "send", {"to": "bob"}),
    ]
    result.approve(["b", "d"])
    result.reject(["c"], message="not cy")
    resumed = await asyncio.to_thread(result.resume)
    assert sorted(sent) == ["bob", "dee"]
    statuses = {r.label: r.status for r in resumed.rows}
    assert statuses == {"a": "waiting", "b": "ok", "c": "rejected", "d": "ok", "e": "waiting"}
    assert resumed.rows[1].output == "sent to bob"
    again = await arun_batch(agent, rows, prompt="{to}", approve="review", progress=None)
    assert {r.label: r.status for r in again.rows} == statuses  # all from the store
    assert sorted(sent) == ["bob", "dee"]


@pytest.mark.parametrize("approve", ["auto", "deny", "review"])
async def test_rows_with_questions_wait_for_review_and_resume_with_the_answer(
    approve: Literal["auto", "deny", "review"],
) -> None:
    model = RowModel(
        tool_name="ask_user",
        arguments=lambda p: {"question": f"Which {p}?", "choices": ["red", "blue"]},
    )
    agent = Agent(name="asker", model=model, tools=[AskUserTool()])
    rows = pd.DataFrame({"thing": ["car", "hat"]}, index=["c", "h"])
    result = await arun_batch(agent, rows, prompt="{thing}", approve=approve, progress=None)
    assert result.counts == {"waiting": 2}  # a question is the person's, whatever approve says
    assert [line["question"] for line in result.review_table()] == ["Which car?", "Which hat?"]
    result.answer("c", "blue")
    result.approve(["h"])  # approving is not answering: that question keeps waiting
    resumed = await asyncio.to_thread(result.resume)
    assert {r.label: (r.status, r.output) for r in resumed.rows} == {
        "c": ("ok", "blue"),
        "h": ("waiting", None),
    }


async def test_deny_and_auto() -> None:
    sent.clear()
    agent = Agent(name="mailer", model=RowModel(tool_name="send"), tools=[send])
    denied = await arun_batch(agent, ["ana"], approve="deny", progress=None, cache=False)
    assert denied.rows[0].status == "rejected" and sent == []
    approved = await arun_batch(agent, ["bob"], approve="auto", progress=None, cache=False)
    assert approved.rows[0].status == "ok" and sent == ["bob"]


class Label(BaseModel):
    label: str
    score: float


async def test_structured_outputs_become_columns(openai_server: FakeOpenAIServer) -> None:
    rows = pd.DataFrame(
        {"text": ["refund please", "love it"]}, index=pd.Index([101, 102], name="id")
    )
    openai_server.enqueue(
        Reply([ReplyText(json.dumps({"label": "billing", "score": 0.9}))]),
        Reply([ReplyText(json.dumps({"label": "praise", "score": 0.8}))]),
    )
    result = await arun_batch(
        http_agent(openai_server),
        rows,
        prompt="{text}",
        output_type=Label,
        concurrency=1,
        progress=None,
    )
    frame = result.to_pandas()
    assert frame.index.name == "id" and list(frame.index) == [101, 102]
    assert list(frame["label"]) == ["billing", "praise"] and list(frame["score"]) == [0.9, 0.8]
    schema = json_body(openai_server.model_requests[0])["text"]["format"]
    assert schema["type"] == "json_schema"


async def test_a_missing_column_fails_before_any_call(openai_server: FakeOpenAIServer) -> None:
    with pytest.raises(UserError, match=r"names \{title\}, which row 1 does not have"):
        await arun_batch(
            http_agent(openai_server),
            [{"title": "a"}, {"text": "b"}],
            prompt="{title}",
            progress=None,
        )
    assert openai_server.model_requests == []


async def test_on_approval_is_the_old_name_of_approve_and_warns() -> None:
    sent.clear()
    agent = Agent(name="mailer", model=RowModel(tool_name="send"), tools=[send])
    with pytest.warns(DeprecationWarning, match=r"on_approval= is now approve=") as warned:
        result = await arun_batch(agent, ["ana"], on_approval="review", progress=None, cache=False)
    assert result.counts == {"waiting": 1} and sent == []
    assert warned[0].filename == __file__  # the warning points at the caller's line
    with pytest.warns(DeprecationWarning, match=r"on_approval= is now approve=") as warned:
        result = run_batch(agent, ["bob"], on_approval="auto", progress=None, cache=False)
    assert result.counts == {"ok": 1} and sent == ["bob"]
    assert warned[0].filename == __file__
    with pytest.raises(UserError, match="give approve= alone"):
        run_batch(agent, ["cy"], approve="auto", on_approval="review", progress=None)


def test_bad_arguments_are_one_line_errors() -> None:
    agent = Agent(name="a", model=RowModel())
    cases: list[tuple[dict[str, Any], str]] = [
        ({"concurrency": 0}, "concurrency must be 1 or more"),
        ({"approve": "maybe"}, "approve must be"),
        ({"backend": "spark"}, "backend must be"),
        ({"prompt": "{0}"}, "name the column"),
    ]
    for kwargs, message in cases:
        with pytest.raises(UserError, match=message):
            run_batch(agent, ["x"], progress=None, **kwargs)
    with pytest.raises(UserError, match="takes a pandas DataFrame"):
        run_batch(agent, 42, progress=None)


async def test_429s_are_retried_after_retry_after_and_concurrency_backs_off(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.enqueue(
        ReplyError(429, "slow down", retry_after=0.05),
        *[Reply([ReplyText("ok")]) for _ in range(8)],
    )
    result = await arun_batch(
        http_agent(openai_server), [f"r{i}" for i in range(8)], concurrency=8, progress=None
    )
    assert result.counts == {"ok": 8} and result.rate_limited == 1
    assert len(openai_server.model_requests) == 9  # one retry, by the run's own retry layer


async def test_rate_limiter_holds_requests_over_the_limits() -> None:
    limiter = RateLimiter(rpm=3, tpm=100)
    now = 1000.0
    limiter._requests.extend([now - 50, now - 30, now - 10])
    assert limiter._delay(now) == pytest.approx(10.0)  # the oldest leaves the minute in 10 s
    limiter._requests.clear()
    limiter._tokens.extend([(now - 40, 60), (now - 20, 60)])
    limiter._token_sum = 120
    assert limiter._delay(now) == pytest.approx(20.0)  # after the first 60 tokens leave
    assert RateLimiter()._delay(now) == 0


@tool(needs_approval=True)
def send(to: str) -> str:
    """Send a message."""
    sent.append(to)
    return f"sent to {to}"


async def test_text_progress_counts_rows_and_says_what_came_from_the_store() -> None:
    model = RowModel()
    first, again = io.StringIO(), io.StringIO()
    agent = Agent(name="echo", model=model)
    await arun_batch(agent, ["a", "b", "c"], progress=TextProgress(first))
    await arun_batch(agent, ["a", "b", "c"], progress=TextProgress(again))
    last = first.getvalue().splitlines()[-1]
    assert last.startswith("batch: 3/3 rows · ") and "rows/s" in last
    assert "from the store" not in last
    last = again.getvalue().splitlines()[-1]
    assert last.startswith("batch: 3/3 rows · 3 from the store · ") and "rows/s" not in last
    assert len(model.prompts) == 3
