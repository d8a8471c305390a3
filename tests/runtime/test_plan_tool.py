"""The ``update_plan`` tool (``PlanTool``): what a plan is, what the model is told when it is
not one, the card it draws, and the plan a run leaves, offline and over HTTP on both wire
formats, streamed and not."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from jupyter_agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Plan,
    PlanStep,
    PlanTool,
    Runner,
    ToolArgumentsError,
    latest_plan,
    tool,
)
from jupyter_agents.runtime.tools.kinds import describe_call
from jupyter_agents.runtime.tools.plan import PLAN_UPDATED, plan_of
from jupyter_agents.testing import ScriptedModel, tool_call
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall

from ..recorded import json_body


def steps(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"step": step, "status": status} for step, status in pairs]


GOOD = {
    "explanation": "Data first.",
    "plan": steps(
        ("Load data", "completed"), ("Fit the model", "in_progress"), ("Plot", "pending")
    ),
}

# Each line: arguments the model sent -> what the one-line message to the model says.
MALFORMED: list[tuple[Any, str]] = [
    ("{not json", "not valid JSON"),
    ("[1, 2]", 'must be a JSON object with a "plan" list'),
    ({}, '"plan" must be a list of steps'),
    ({"plan": "Load, fit, plot"}, '"plan" must be a list of steps'),
    ({"plan": [], "steps": []}, "unknown field 'steps'"),
    ({"plan": [], "explanation": 3}, '"explanation" must be a string'),
    ({"plan": ["Load data"]}, "step 1 must be an object"),
    ({"plan": [{"status": "pending"}]}, 'step 1 needs "step", a short sentence'),
    ({"plan": [{"step": 7, "status": "pending"}]}, 'step 1 needs "step"'),
    ({"plan": steps(("Load", "pending"), ("  ", "pending"))}, "step 2 is empty"),
    ({"plan": steps(("Load", "done"))}, 'step 1 has status "done"; use pending, in_progress'),
    ({"plan": [{"step": "Load"}]}, "step 1 has status null"),
    ({"plan": [{"step": "Load", "status": "pending", "owner": "me"}]}, "unknown field 'owner'"),
    (
        {"plan": steps(("A", "in_progress"), ("B", "pending"), ("C", "in_progress"))},
        "steps 1, 3 are all in_progress; at most one step may be in_progress",
    ),
    ({"plan": steps(*[("x", "pending")] * 51)}, "the plan has 51 steps; give at most 50"),
    ({"plan": steps(("x" * 1001, "pending"))}, "step 1 is longer than 1,000 characters"),
]


@pytest.mark.parametrize(("arguments", "says"), MALFORMED)
def test_a_malformed_plan_is_one_line_saying_what_to_fix(arguments: Any, says: str) -> None:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    with pytest.raises(ToolArgumentsError) as caught:
        Plan.parse(text)
    message = str(caught.value)
    assert says in message
    assert "\n" not in message and message.startswith("update_plan: ")
    if isinstance(arguments, dict):  # edited arguments (an approval) are checked the same way
        assert PlanTool().validate_arguments(arguments) == message


def test_a_plan_reads_as_a_checklist() -> None:
    plan = Plan.parse(json.dumps(GOOD))
    assert plan.steps[1] == PlanStep("Fit the model", "in_progress")
    assert (plan.completed, plan.progress, plan.current) == (1, "1/3", plan.steps[1])
    assert plan.checklist() == "Data first.\n✓ Load data\n◐ Fit the model\n○ Plot"
    assert plan.to_json() == GOOD
    assert Plan.parse({"plan": []}).progress == "0/0"  # an empty plan is a plan (none left)
    assert PlanTool().validate_arguments(GOOD) is None


async def test_the_model_is_told_what_to_fix_and_the_run_goes_on() -> None:
    bad = {"plan": steps(("Load", "in_progress"), ("Fit", "in_progress"))}
    model = ScriptedModel(
        [[tool_call("update_plan", bad)], [tool_call("update_plan", GOOD)], ["Done."]]
    )
    agent = Agent(name="planner", model=model, tools=[PlanTool()])
    result = await Runner.run(agent, "Fit a model.")
    assert result.final_output == "Done."
    told = model.requests[1].input[-1]
    assert told["type"] == "function_call_output"
    assert told["output"].startswith("update_plan: steps 1, 2 are all in_progress")
    assert model.requests[2].input[-1]["output"] == PLAN_UPDATED
    outputs = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert [o.status for o in outputs] == ["error", "ok"]
    assert outputs[0].error is not None and outputs[0].error.type == "ToolArgumentsError"
    assert [plan_of(o) for o in outputs] == [None, Plan.parse(GOOD)]
    assert latest_plan(result) == Plan.parse(GOOD)
    assert latest_plan(result.new_items[:2]) is None  # before the good call


async def test_the_latest_of_several_plans_wins_and_a_plain_run_has_none() -> None:
    later = {"plan": steps(("Load data", "completed"), ("Fit the model", "completed"))}
    model = ScriptedModel(
        [[tool_call("update_plan", GOOD)], [tool_call("update_plan", later)], ["Done."]]
    )
    result = await Runner.run(Agent(name="p", model=model, tools=[PlanTool()]), "Go.")
    assert latest_plan(result) == Plan.parse(later)
    plain = await Runner.run(Agent(name="q", model=ScriptedModel(["Hi."])), "Hello.")
    assert latest_plan(plain) is None


async def test_a_function_tool_of_the_same_name_is_not_a_plan() -> None:
    @tool(name_override="update_plan", strict_mode=False)
    def update_plan(plan: list[dict[str, str]]) -> str:
        """Someone else's tool."""
        return "noted"

    model = ScriptedModel([[tool_call("update_plan", {"plan": GOOD["plan"]})], ["Done."]])
    result = await Runner.run(Agent(name="f", model=model, tools=[update_plan]), "Go.")
    assert model.requests[1].input[-1]["output"] == "noted"
    assert latest_plan(result) is None


async def test_the_card_is_the_checklist_and_a_count() -> None:
    model = ScriptedModel([[tool_call("update_plan", GOOD)], ["Done."]])
    result = await Runner.run(Agent(name="p", model=model, tools=[PlanTool()]), "Go.")
    call, output = (i for i in result.new_items if i.type.startswith("tool_call"))
    shown = describe_call(call, output)
    assert (shown.kind, shown.title, shown.badge) == ("plan", "update_plan", "1/3")
    assert [(p.type, p.role, p.text) for p in shown.parts] == [
        ("text", "call", "Data first.\n✓ Load data\n◐ Fit the model\n○ Plot"),
        ("text", "output", PLAN_UPDATED),
    ]


def test_the_tool_is_offered_with_its_schema() -> None:
    model = ScriptedModel(["Hi."])
    Runner.run_sync(Agent(name="p", model=model, tools=[PlanTool()]), "Hello.")
    (schema,) = model.requests[0].tool_schemas
    assert schema["name"] == "update_plan"
    items = schema["parameters"]["properties"]["plan"]["items"]
    assert items["properties"]["status"]["enum"] == ["pending", "in_progress", "completed"]
    assert schema["parameters"]["required"] == ["plan"]


@pytest.mark.http
@pytest.mark.parametrize("wire", ["responses", "chat"])
@pytest.mark.parametrize("streamed", [False, True])
async def test_over_http_on_both_wire_formats(
    openai_server: FakeOpenAIServer, wire: str, streamed: bool
) -> None:
    bad = {"plan": steps(("Load", "started"))}
    openai_server.enqueue(
        Reply([ReplyToolCall("update_plan", bad, call_id="c1")]),
        Reply([ReplyToolCall("update_plan", GOOD, call_id="c2")]),
        Reply([ReplyText("Planned.")]),
    )
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    cls = OpenAIResponsesModel if wire == "responses" else OpenAIChatCompletionsModel
    agent = Agent(name="p", model=cls("gpt-test", openai_client=client), tools=[PlanTool()])
    seen: list[Plan | None] = []
    if streamed:
        run = Runner.run_streamed(agent, "Plan it.")
        async for event in run.stream_events():
            if event.type == "run_item_stream_event" and event.name == "tool_output":
                seen.append(plan_of(event.item))
        result: Any = run
    else:
        result = await Runner.run(agent, "Plan it.")
    assert result.final_output == "Planned."
    offered = json.dumps(json_body(openai_server.model_requests[0])["tools"])
    assert '"update_plan"' in offered and '"in_progress"' in offered
    second = json.dumps(json_body(openai_server.model_requests[1]))
    assert 'step 1 has status \\"started\\"' in second  # the fix the model is asked for
    assert PLAN_UPDATED in json.dumps(json_body(openai_server.model_requests[2]))
    assert latest_plan(result) == Plan.parse(GOOD)
    if streamed:
        assert seen == [None, Plan.parse(GOOD)]
