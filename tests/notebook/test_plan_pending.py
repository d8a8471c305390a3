"""A plan waiting for review is shown to the runs panel and notifications as a plan approved on
its card only: the registry marks it ``plan`` and ``on_card``, refuses an approval from outside
the card (a cut JSON preview is not the plan), and takes a rejection, which ends the run."""

from __future__ import annotations

import asyncio
from typing import Any

from jupyter_agents import Agent, ApprovalRequest, PlanTool, RunConfig, Runner
from jupyter_agents.notebook.run_registry import RunRegistry
from jupyter_agents.notebook.view.run_view import RunView
from jupyter_agents.runtime.approvals import OnLoop
from jupyter_agents.testing import ScriptedModel, text, tool_call

STEPS = {"plan": [{"step": "Read the table", "status": "pending"}]}


async def test_a_plan_is_decided_on_its_card_and_can_be_rejected_from_outside() -> None:
    model = ScriptedModel([[tool_call("update_plan", STEPS, call_id="u1")], [text("never")]])
    agent = Agent(name="a", model=model, tools=[PlanTool()])
    view, runs = RunView(agent="a", model="m"), RunRegistry()
    record = runs.start(view, "cell", "a", "m")
    asked = asyncio.Event()

    def ask(request: ApprovalRequest) -> Any:
        waiting = view.inbox(request)
        runs.waiting(record, request, waiting)
        asked.set()
        return waiting

    async def go() -> Any:
        result = Runner.run_streamed(
            agent, "go", run_config=RunConfig(mode="plan"), approval_handler=OnLoop(ask)
        )
        async for event in result.stream_events():
            view.on_event(event)
        view.finish("done")
        return result

    task = asyncio.ensure_future(go())
    await asyncio.wait_for(asked.wait(), 10)
    (pending,) = record.pending.values()  # what the runs panel and a notification get
    assert (pending["tool"], pending.get("plan"), pending.get("on_card")) == (
        "update_plan",
        True,
        True,
    )
    assert runs.decide(record.run_id, pending["request"], True, None) is False
    assert runs.decide(record.run_id, pending["request"], False, "too broad") is True
    result = await asyncio.wait_for(task, 10)
    assert result.final_output == "The plan was rejected: too broad"
    assert len(model.requests) == 1  # the run ended: the model was not asked again
