"""The ask_user tool and questions from running tools: asked like approvals, answered, skipped,
paused in RunState (JSON round trip), and malformed questions told to the model."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    ApprovalRequest,
    AskUserTool,
    Question,
    Runner,
    RunState,
    ToolApprovalItem,
    UserError,
    ask_user,
    tool,
)
from jupyter_agents.runtime.questions import form_problem
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.scripted import ScriptedOutput

from ..recorded import scripted_requests

FORM = {
    "type": "object",
    "properties": {
        "table": {"type": "string", "enum": ["sales", "returns"]},
        "rows": {"type": "integer"},
        "dry_run": {"type": "boolean"},
    },
    "required": ["table"],
}


def asking(arguments: dict[str, Any], *after: list[ScriptedOutput]) -> Agent:
    turns: list[list[ScriptedOutput]] = [
        [tool_call("ask_user", arguments, call_id="q1")],
        *after,
        [text("Thanks.")],
    ]
    return Agent(name="asker", model=ScriptedModel(turns), tools=[AskUserTool()])


def tool_outputs(agent: Agent) -> list[str]:
    """What the model was sent back for its calls, in the last request."""
    return [
        i["output"]
        for i in scripted_requests(agent)[-1].input
        if i.get("type") == "function_call_output"
    ]


async def test_an_answer_from_the_handler_reaches_the_model() -> None:
    seen: list[ApprovalRequest] = []

    def handler(request: ApprovalRequest) -> ApprovalDecision:
        seen.append(request)
        return request.answer("the sales table")

    agent = asking({"question": "Which table?"})
    result = await Runner.run(agent, "go", approval_handler=handler)
    assert result.final_output == "Thanks."
    (request,) = seen
    assert request.question == Question(text="Which table?")
    assert not request.allows_always  # one answer per question
    assert tool_outputs(agent) == ["the sales table"]


async def test_a_form_answer_is_checked_and_sent_as_json() -> None:
    answers = iter([{"table": "nope"}, {"table": "sales", "rows": 10}])
    errors: list[str | None] = []

    def handler(request: ApprovalRequest) -> ApprovalDecision:
        errors.append(request.error)
        return request.answer(next(answers))

    agent = asking({"question": "Which rows?", "form": FORM})
    await Runner.run(agent, "go", approval_handler=handler)
    # The first answer did not fit: asked again with the reason; the second went through.
    assert errors == [None, "field 'table': must be one of 'sales', 'returns'"]
    assert json.loads(tool_outputs(agent)[0]) == {"table": "sales", "rows": 10}


async def test_skip_tells_the_model_the_question_was_skipped() -> None:
    agent = asking({"question": "Which table?", "choices": ["sales", "returns"]})
    await Runner.run(agent, "go", approval_handler=lambda r: r.skip("decide yourself"))
    (told,) = tool_outputs(agent)
    assert told == "The user skipped this question without answering. Reason: decide yourself"


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"question": ""}, "`question` must be non-empty text"),
        ({"question": "Q?", "choices": ["only"]}, "offer 2 to 20 choices"),
        ({"question": "Q?", "choices": ["a", "a"]}, "the choices must differ"),
        ({"question": "Q?", "choices": ["a", "b"], "form": FORM}, "not both"),
        ({"question": "Q?", "form": {"type": "array"}}, '"type": "object"'),
        (
            {"question": "Q?", "form": {"type": "object", "properties": {"x": {"type": "list"}}}},
            "field 'x' must have a type of string, number, integer, boolean",
        ),
        ({"question": "Q?", "answer": "mine"}, "the user gives the answer"),
    ],
)
async def test_a_malformed_question_is_an_error_for_the_model_and_nobody_is_asked(
    arguments: dict[str, Any], problem: str
) -> None:
    asked: list[ApprovalRequest] = []
    agent = asking(arguments)

    def handler(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return request.skip()

    await Runner.run(agent, "go", approval_handler=handler)
    assert asked == []
    (told,) = tool_outputs(agent)
    assert problem in told and told.startswith("Tool 'ask_user':")


async def test_a_paused_question_survives_a_json_round_trip_and_its_answer_is_checked() -> None:
    agent = asking({"question": "How many rows?", "form": FORM})
    result = await Runner.run(agent, "go")
    (item,) = result.interruptions
    assert isinstance(item, ToolApprovalItem)
    assert item.question is not None and item.question.form == FORM

    state = RunState.from_json(agent, result.to_state().to_json())
    (again,) = state.interruptions
    assert isinstance(again, ToolApprovalItem)
    assert again.question == item.question  # rebuilt from the saved call
    with pytest.raises(UserError, match="field 'rows': must be a number"):
        state.answer(again, {"table": "sales", "rows": "ten"})
    assert state.answer(again, {"table": "returns", "rows": 3}) is True
    assert state.answer(again, {"table": "sales"}) is False  # already answered

    resumed = await Runner.run(agent, RunState.from_json(agent, state.to_json()))
    assert resumed.final_output == "Thanks."
    assert json.loads(tool_outputs(agent)[0]) == {"table": "returns", "rows": 3}


async def test_skip_on_a_paused_question() -> None:
    agent = asking({"question": "Which table?"})
    state = (await Runner.run(agent, "go")).to_state()
    (question,) = state.interruptions
    assert isinstance(question, ToolApprovalItem)
    assert state.skip(question) is True
    await Runner.run(agent, state)
    assert tool_outputs(agent) == ["The user skipped this question without answering."]


async def test_a_standing_always_decision_never_answers_a_question() -> None:
    agent = asking({"question": "One?"}, [tool_call("ask_user", {"question": "Two?"})])
    asked: list[str] = []

    def handler(request: ApprovalRequest) -> ApprovalDecision:
        assert request.question is not None
        asked.append(request.question.text)
        return ApprovalDecision.approve(always=True, arguments={**request.arguments, "answer": "x"})

    await Runner.run(agent, "go", approval_handler=handler)
    assert asked == ["One?", "Two?"]


async def test_a_running_tool_asks_through_the_same_handler() -> None:
    @tool
    async def pick_table() -> str:
        """Pick the table with the person."""
        answer = await ask_user(Question("Which table?", choices=("sales", "returns")))
        return f"picked {answer}"

    turns: list[list[ScriptedOutput]] = [[tool_call("pick_table", {}, call_id="p1")], [text("ok")]]
    agent = Agent(name="a", model=ScriptedModel(turns), tools=[pick_table])
    seen: list[ApprovalRequest] = []

    def handler(request: ApprovalRequest) -> ApprovalDecision:
        seen.append(request)
        return request.answer("fish" if len(seen) == 1 else "returns")  # fish does not fit

    await Runner.run(agent, "go", approval_handler=handler)
    assert tool_outputs(agent) == ["picked returns"]
    assert [r.call_id for r in seen] == ["p1", "p1"]
    assert seen[1].error == "the answer must be one of 'sales', 'returns'"

    # Without a handler the run cannot pause inside the call: the question is skipped.
    agent = Agent(name="a", model=ScriptedModel(turns), tools=[pick_table])
    await Runner.run(agent, "go")
    assert tool_outputs(agent) == ["picked None"]


def test_a_copy_made_with_dataclasses_replace_still_asks() -> None:
    copy = dataclasses.replace(AskUserTool(), description="Ask me.", needs_approval=False)
    assert isinstance(copy, AskUserTool) and copy.description == "Ask me."
    assert copy.needs_approval is True and copy.always_asks is True


def test_forms_mcp_servers_send_are_read_loosely() -> None:
    form = {"type": "object", "properties": {"email": {"type": "string", "format": "email"}}}
    assert form_problem(form) == "field 'email' uses 'format', which a form cannot show"
    assert form_problem(form, loose=True) is None
