"""Questions in a real kernel: the ask_user tool and an MCP server's elicitation shown as a
form on the card, answered with the comm message the widget sends, skipped headless."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import kernel_value, script
from .frontend import Frontend
from .test_agent_cells import decide, final_state, start, tool_card, waiting_for
from .test_runs_comm import replies, runs_comm, waiting_run

pytestmark = pytest.mark.kernel

ASKING = Path(__file__).parents[1] / "mcp" / "servers" / "asking_server.py"
FORM = {
    "type": "object",
    "properties": {
        "table": {"type": "string", "enum": ["sales", "returns"]},
        "rows": {"type": "integer", "title": "Rows to load"},
    },
    "required": ["table"],
}
ASKS = f"""[
    [tool_call("ask_user", {{"question": "Which table?", "form": {FORM!r}}}, call_id="q1")],
    [text("Loading it.")],
]"""


def asked(fe: Frontend, comm: str, call_id: str) -> dict[str, Any]:
    def waiting() -> Any:
        card = tool_card(fe.state(comm), call_id) or {}
        approval = card.get("approval") or {}
        return approval.get("state") == "pending" and approval.get("question") and card

    return fe.wait_for(waiting, what=f"a question on {call_id}")  # type: ignore[no-any-return]


def answer(fe: Frontend, comm: str, card: dict[str, Any], value: Any) -> None:
    """What the widget sends when Answer is clicked."""
    request = card["approval"]["request"]
    message = {"type": "decision", "id": card["id"], "request": request, "approved": True}
    fe.send_custom(comm, {**message, "always": False, "answer": value})


def decision_errors(fe: Frontend, comm: str) -> list[str]:
    return [m["error"] for m in fe.custom.get(comm, []) if m.get("type") == "decision_error"]


def test_ask_user_shows_a_form_and_the_answer_reaches_the_model(fe: Frontend) -> None:
    script(fe, ASKS)
    cell, comm = start(fe, "%%agent\nLoad the right table.")
    fe.hello(comm)
    card = asked(fe, comm, "q1")
    assert card["approval"]["question"] == {"text": "Which table?", "form": FORM}
    assert card["approval"]["once"] is True and card["badge"] == "question"
    assert fe.state(comm)["header"]["status"] == "waiting"

    answer(fe, comm, card, {"table": "lunch"})  # not one of the choices: the card still waits
    fe.wait_for(lambda: decision_errors(fe, comm), what="decision_error")
    assert decision_errors(fe, comm) == ["field 'table': must be one of 'sales', 'returns'"]

    answer(fe, comm, card, {"table": "returns", "rows": 20})
    assert fe.reply(cell)["content"]["status"] == "ok"
    done = tool_card(final_state(fe, comm), "q1")
    assert done is not None and done["status"] == "done"
    assert done["approval"]["state"] == "approved"
    assert json.loads(done["approval"]["answer"]) == {"table": "returns", "rows": 20}
    told = kernel_value(fe, "demo.requests[-1].input[-1]['output']")
    assert json.loads(told) == {"table": "returns", "rows": 20}


def test_skip_tells_the_model(fe: Frontend) -> None:
    script(fe, ASKS)
    cell, comm = start(fe, "%%agent\nLoad the right table.")
    fe.hello(comm)
    card = asked(fe, comm, "q1")
    message = {"type": "decision", "id": card["id"], "request": card["approval"]["request"]}
    fe.send_custom(comm, {**message, "approved": False, "always": False, "message": "any"})
    assert fe.reply(cell)["content"]["status"] == "ok"
    done = tool_card(final_state(fe, comm), "q1")
    assert done is not None and done["approval"]["state"] == "rejected"
    told = kernel_value(fe, "demo.requests[-1].input[-1]['output']")
    assert told == "The user skipped this question without answering. Reason: any"


def test_headless_questions_are_skipped_after_the_grace_period(fe: Frontend) -> None:
    script(fe, ASKS)
    cell, comm = start(fe, "%%agent --approve auto\nLoad the right table.")  # auto: still asks
    assert fe.reply(cell, timeout=20)["content"]["status"] == "ok"  # no hello: nobody sees it
    done = tool_card(final_state(fe, comm), "q1")
    assert done is not None and done["status"] == "rejected"
    assert "nobody can answer" in done["approval"]["message"]


def test_jupyter_agents_ask_skip_skips_at_once(fe: Frontend) -> None:
    script(fe, ASKS)
    fe.run("import os\nos.environ['JUPYTER_AGENTS_ASK'] = 'skip'")
    try:
        fe.run("%%agent\nLoad the right table.", timeout=20)
    finally:
        fe.run("del os.environ['JUPYTER_AGENTS_ASK']")
    told = kernel_value(fe, "demo.requests[-1].input[-1]['output']")
    assert "JUPYTER_AGENTS_ASK=skip" in told


def test_an_mcp_servers_question_is_answered_through_the_widget(fe: Frontend) -> None:
    fe.run(f"%agent mcp add asking -- {sys.executable} {ASKING}", timeout=60)
    try:
        call = '[[tool_call("mcp__asking__book_table", {"restaurant": "Chez Ana"}, call_id="b1")]'
        script(fe, call + ', [text("Booked.")]]')
        cell, comm = start(fe, "%%agent\nBook a table.")
        fe.hello(comm)
        gate = waiting_for(fe, comm, "b1")  # the notebook asks before an MCP tool runs
        assert "question" not in gate["approval"]
        decide(fe, comm, "b1", True)
        card = asked(fe, comm, "b1")  # then the server asks, on the same card
        question = card["approval"]["question"]
        assert question["origin"] == "MCP server asking"
        assert question["text"] == "Booking Chez Ana: which day, and for how many?"
        assert set(question["form"]["properties"]) == {"date", "party", "room", "outside"}
        answer(fe, comm, card, {"date": "2026-12-24", "party": 4})
        assert fe.reply(cell, timeout=60)["content"]["status"] == "ok"
        told = kernel_value(fe, "demo.requests[-1].input[-1]['output']")
        assert told == "booked Chez Ana on 2026-12-24 for 4 (main, outside=False)"
    finally:
        fe.run("%agent mcp remove asking")


def test_the_runs_panel_shows_the_question_and_can_skip_but_not_approve_it(fe: Frontend) -> None:
    channel = runs_comm(fe)
    script(fe, ASKS)
    cell = fe.execute("%%agent\nLoad the right table.", cell_id="cell-ask")
    fe.hello(fe.widget(-1))
    run = waiting_run(fe, channel, "cell-ask")
    (pending,) = run["pending"]
    assert pending["tool"] == "ask_user" and pending["question"] == "Which table?"
    decide = {"type": "decide", "run": run["id"], "request": pending["request"]}
    fe.send_comm(channel, {**decide, "approved": True})  # an approval is not an answer
    mine = lambda: [d["ok"] for d in replies(fe, channel, "decided") if d["run"] == run["id"]]  # noqa: E731
    fe.wait_for(mine, what="the decided reply")
    assert mine() == [False]
    fe.send_comm(channel, {**decide, "approved": False, "message": "later"})
    assert fe.reply(cell)["content"]["status"] == "ok"
    told = kernel_value(fe, "demo.requests[-1].input[-1]['output']")
    assert told == "The user skipped this question without answering. Reason: later"
