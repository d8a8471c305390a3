"""pydantic-evals' ``LLMJudge`` through ``evaluate``: the judge is a pydantic-ai model over the
real ``openai`` client and HTTP against the local OpenAI-compatible test server, which grades
as scripted; its verdict and reason land in the report like any assertion."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_evals.evaluators import LLMJudge

from jupyter_agents.evals import aevaluate
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyToolCall

from .agents import answering


def verdict(passed: bool, reason: str) -> Reply:
    """The judge's answer: pydantic-ai's output tool with pydantic-evals' grading fields."""
    return Reply(
        [
            ReplyToolCall(
                "final_result", {"reason": reason, "pass": passed, "score": 1.0 if passed else 0.0}
            )
        ]
    )


async def test_an_llm_judge_grades_each_case_over_http(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        provider = OpenAIProvider(base_url=server.base_url, api_key=server.api_key)
        judge = LLMJudge(
            rubric="The answer names a city.",
            model=OpenAIChatModel("judge-model", provider=provider),
            include_input=True,
        )
        server.enqueue(verdict(True, "Paris is a city."), verdict(False, "42 is no city."))
        agent = answering("geo", lambda prompt: {"capital of France": "Paris"}.get(prompt, "42"))
        dataset = pd.DataFrame({"input": ["capital of France", "meaning of life"]})
        report = await aevaluate(
            agent, dataset, scorers=[judge], concurrency=1, cache=False, progress=None
        )
        asked = server.model_requests
    assert len(asked) == 2  # one grading request per case, over HTTP
    first = report.case("0").scores["LLMJudge"]
    assert (first.value, first.reason) == (True, "Paris is a city.")
    second = report.case("1").scores["LLMJudge"]
    assert (second.value, second.reason) == (False, "42 is no city.")
    assert report.averages() == {"LLMJudge": 0.5}
    assert "The answer names a city." in str(asked[0].body)  # the rubric reached the judge
