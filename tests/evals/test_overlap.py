"""Cases are scored while the batch runs: a case is scored as soon as its row finishes, not
after the last one; rows read back from the store are scored after the batch."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pandas as pd

from jupyter_agents import Agent
from jupyter_agents.evals import aevaluate, scorer
from jupyter_agents.runtime.items import ModelResponse
from jupyter_agents.runtime.models._responses_build import message_item
from jupyter_agents.runtime.models.interface import ModelRequest, RequestModel


class Gated(RequestModel):
    """Answers "fast" at once; "slow" only once ``opened`` is set (by a scorer)."""

    def __init__(self, opened: asyncio.Event) -> None:
        self.opened = opened
        self.asked = 0

    async def respond(self, request: ModelRequest) -> ModelResponse:
        self.asked += 1
        if "slow" in str(request.input):
            await asyncio.wait_for(self.opened.wait(), timeout=30)
        return ModelResponse(output=[message_item("done", "msg_1")])

    async def stream(self, request: ModelRequest) -> Any:
        raise NotImplementedError
        yield  # pragma: no cover


async def test_a_case_is_scored_while_other_rows_still_run(tmp_path: Path) -> None:
    opened = asyncio.Event()
    scored: list[str] = []

    @scorer
    def opens(case: Any, run: Any) -> bool:
        scored.append(case.inputs)
        opened.set()  # the slow row's model answers only now
        return True

    model = Gated(opened)
    dataset = pd.DataFrame({"input": ["fast", "slow"], "expected": ["done", "done"]})
    store = tmp_path / "store.sqlite"
    report = await aevaluate(
        Agent(name="g", model=model), dataset, scorers=[opens], concurrency=2, cache=store,
        progress=None,
    )  # fmt: skip
    assert scored == ["fast", "slow"]  # the fast case was scored before the slow one ran out
    assert report.averages() == {"opens": 1.0}

    # Again: both rows come from the store (no model call) and are scored after the batch.
    scored.clear()
    again = await aevaluate(
        Agent(name="g", model=model), dataset, scorers=[opens], concurrency=2, cache=store,
        progress=None,
    )  # fmt: skip
    assert model.asked == 2 and sorted(scored) == ["fast", "slow"]
    assert again.averages() == {"opens": 1.0}
