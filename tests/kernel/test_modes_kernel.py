"""Modes in a real kernel: ``%agent mode`` and ``%%agent --mode``, with the frontend's comm
messages played by the test. ``plan``: nothing acts before the plan card is approved, an edited
plan is what the model gets, a rejected plan ends the run. (``ask`` with the notebook's own
tools and a real document frontend: ``tests/notebook/test_modes_headless.py``.)"""

from __future__ import annotations

import pytest

from .conftest import kernel_value, script
from .frontend import Frontend
from .test_agent_cells import decide, final_state, shown_card, start, texts, waiting_for

pytestmark = pytest.mark.kernel

PLAN = {"plan": [{"step": "Look up the weather", "status": "pending"},
                 {"step": "Email Ana", "status": "pending"}]}  # fmt: skip
PLAN_THEN_ACT = f"""[
    [tool_call("send_email", {{"to": "ana@example.com", "body": "early"}}, call_id="e0")],
    [tool_call("update_plan", {PLAN!r}, call_id="u1")],
    [tool_call("send_email", {{"to": "ana@example.com", "body": "Sunny"}}, call_id="e1")],
    [text("Done.")],
]"""


def test_plan_mode_acts_only_after_the_plan_card_is_approved_as_edited(fe: Frontend) -> None:
    script(fe, PLAN_THEN_ACT)
    cell, comm = start(fe, "%%agent --mode plan\nEmail Ana the weather.")
    fe.hello(comm)
    card = waiting_for(fe, comm, "u1")
    state = fe.state(comm)
    assert state["header"]["mode"] == "plan"
    assert card["approval"]["plan"] is True and card["approval"]["once"] is True
    early = shown_card(state, "e0")  # before the plan: refused by the mode, nobody asked
    assert early["status"] == "rejected" and "approval" not in early
    edited = {"plan": [{"step": "Email Ana only if it is sunny", "status": "pending"}]}
    decide(fe, comm, "u1", True, arguments=edited)
    waiting_for(fe, comm, "e1")  # agent mode now: the email still asks, as any call does
    assert fe.state(comm)["header"]["mode"] == "agent"
    decide(fe, comm, "e1", True)
    assert fe.reply(cell)["content"]["status"] == "ok"
    final = final_state(fe, comm)
    assert final["header"]["status"] == "done" and texts(fe, comm) == "Done."
    assert final["header"]["plan"]["steps"] == edited["plan"]  # the live checklist: the edit
    assert kernel_value(fe, "sent") == [("ana@example.com", "Sunny")]
    told = kernel_value(fe, "demo.requests[2].input[-1]['output']")
    assert told.startswith("The person approved this plan after editing it")
    assert "Email Ana only if it is sunny" in told and "Look up the weather" not in told
    refused = kernel_value(fe, "demo.requests[1].input[-1]['output']")
    assert refused.startswith("plan mode: send_email is not one of the")
    assert "switch with %agent mode agent" in refused


def test_a_rejected_plan_ends_the_run_with_the_reason(fe: Frontend) -> None:
    script(fe, PLAN_THEN_ACT)
    cell, comm = start(fe, "%%agent --mode plan --approve auto\nEmail Ana the weather.")
    fe.hello(comm)
    waiting_for(fe, comm, "u1")  # --approve auto does not approve a plan: it is the person's
    decide(fe, comm, "u1", False, message="not today")
    assert fe.reply(cell)["content"]["status"] == "ok"
    final = final_state(fe, comm)
    assert final["header"]["status"] == "done"
    assert final["header"]["detail"] == "The plan was rejected: not today"
    assert shown_card(final, "u1")["approval"]["state"] == "rejected"
    assert kernel_value(fe, "__import__('jupyter_agents').last_result().final_output") == (
        "The plan was rejected: not today"
    )
    assert kernel_value(fe, "len(demo.requests)") == 2 and kernel_value(fe, "sent") == []


def test_the_notebook_mode_is_set_shown_and_refused_calls_say_how_to_switch(
    fe: Frontend,
) -> None:
    try:
        msg_id = fe.execute("%agent mode ask")
        assert fe.reply(msg_id)["content"]["status"] == "ok"
        shown = fe.stdout(msg_id)
        assert "ask mode: the agent answers from what it can read" in shown
        script(fe, """[
            [tool_call("send_email", {"to": "x@example.com", "body": "hi"}, call_id="e1"),
             tool_call("get_weather", {"city": "Oslo"}, call_id="w1")],
            [text("I can only read.")],
        ]""")  # fmt: skip
        cell, comm = start(fe, "%%agent\nEmail x.")
        fe.hello(comm)
        assert fe.reply(cell)["content"]["status"] == "ok"
        final = final_state(fe, comm)
        assert final["header"]["mode"] == "ask"
        assert shown_card(final, "e1")["status"] == "rejected"
        assert shown_card(final, "w1")["status"] == "rejected"  # not declared read_only
        assert kernel_value(fe, "sent") == []
        offered = kernel_value(fe, "demo.requests[0].tool_names")
        assert offered == ["ask_user"]  # update_plan is offered in plan mode, not in ask
        status = fe.run("%agent mode")
        assert status["content"]["status"] == "ok"
        bad = fe.execute("%agent mode yolo")
        content = fe.reply(bad)["content"]
        assert content["status"] == "error"
        assert content["evalue"] == "%agent mode [ask|plan|agent]: give one of ask, plan or agent."
    finally:
        fe.run("%agent mode agent")


BATCH_MODEL = """
import json as _json

def _batch_turn(request):
    if any(i.get("type") == "function_call_output" for i in request.input):
        return [text("planned")]
    if request.user_text.startswith("You will do the task below"):
        return [tool_call("update_plan", {"plan": [{"step": "Read the ticket", "status": "pending"},
                                                    {"step": "Label it", "status": "pending"}]},
                          call_id="u1")]
    return [text("label for " + request.user_text.split("\\n", 1)[0])]

batch_model = ScriptedModel(respond=_batch_turn)
%agent model batch_model
import pandas as pd
tickets = pd.DataFrame({"text": ["refund please", "app crashes", "love it"]})
"""


def test_a_batch_in_plan_mode_asks_one_plan_approval_then_every_row_follows_it(
    fe: Frontend,
) -> None:
    fe.run(BATCH_MODEL)
    cell, comm = start(fe, "%%agent --over tickets --mode plan --approve auto --fresh\n{text}")
    fe.hello(comm)
    waiting_for(fe, comm, "u1")  # one plan card, for the whole batch
    edited = {"plan": [{"step": "Label it in one word", "status": "pending"}]}
    decide(fe, comm, "u1", True, arguments=edited)
    assert fe.reply(cell, timeout=60)["content"]["status"] == "ok"
    assert kernel_value(fe, "[r.status for r in batch_result.rows]") == ["ok", "ok", "ok"]
    asked = kernel_value(fe, "[(r.user_text[:40], r.tool_names) for r in batch_model.requests]")
    prompts = kernel_value(fe, "[r.user_text for r in batch_model.requests[1:]]")
    assert len(prompts) == 3, asked  # one request per row, no plan card per row
    for prompt in prompts:
        assert "Follow this plan, which the person approved for every row:" in prompt
        assert "○ Label it in one word" in prompt and "Read the ticket" not in prompt
    fe.run("%agent model demo")


def test_a_rejected_batch_plan_runs_no_row(fe: Frontend) -> None:
    fe.run(BATCH_MODEL)
    cell, comm = start(fe, "%%agent --over tickets --mode plan --fresh\n{text}")
    fe.hello(comm)
    waiting_for(fe, comm, "u1")
    decide(fe, comm, "u1", False, message="not these tickets")
    assert fe.reply(cell, timeout=60)["content"]["status"] == "ok"
    said = fe.stdout(cell)
    assert "the batch did not run: The plan was rejected: not these tickets; no row ran." in said
    assert kernel_value(fe, "len(batch_model.requests)") == 1
