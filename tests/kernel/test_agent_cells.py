"""%%agent cells in a real kernel, with the frontend's comm messages played by the test."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from jupyter_agents.notebook.view.card_parts import output_of

from .conftest import kernel_value, script
from .frontend import Frontend

pytestmark = pytest.mark.kernel

STORY = "%%agent\nWhat's the weather in Paris? Email it to ana@example.com."
WEATHER_THEN_EMAIL = """[
    [tool_call("get_weather", {"city": "Paris"}, call_id="w1")],
    [tool_call("send_email", {"to": "ana@example.com", "body": "Sunny"}, call_id="e1")],
    [text("It is sunny in Paris; I emailed Ana.")],
]"""


def start(fe: Frontend, code: str) -> tuple[str, str]:
    """Execute an agent cell; return its msg id and the comm id of the widget it creates."""
    before = len(fe.run_widgets())
    msg_id = fe.execute(code)
    return msg_id, fe.widget(before)


def tool_card(state: dict[str, Any], call_id: str) -> dict[str, Any] | None:
    """The tool card for ``call_id`` with the defaults the frontend fills in (see widget.py)."""
    for block in state.get("blocks", []):
        if block.get("kind", "tool") != "tool":
            continue
        if block.get("call_id", block.get("id")) == call_id:
            return {"kind": "tool", "status": "done", "call_id": call_id, **block}
    return None


def shown_card(state: dict[str, Any], call_id: str) -> dict[str, Any]:
    """The tool card for ``call_id``, asserted to be there."""
    card = tool_card(state, call_id)
    assert card is not None, f"no card for {call_id}"
    return card


def final_state(fe: Frontend, comm: str) -> dict[str, Any]:
    """The widget state once the run has ended (its last sync may trail the cell's reply)."""
    fe.wait_for(lambda: fe.state(comm)["header"].get("live") is False, what="the final state")
    return fe.state(comm)


def texts(fe: Frontend, comm: str) -> str:
    """The text a frontend shows: streamed by ``text`` / ``append`` messages while the run is
    live, in the final state once it ended (see widget.py)."""
    buffers: dict[str, str] = {}
    for message in list(fe.custom.get(comm, [])):
        if message.get("type") == "text":
            buffers[message["id"]] = message["text"]
        elif message.get("type") == "append":
            buffers[message["id"]] = (
                buffers.get(message["id"], "")[: message["at"]] + message["text"]
            )
    blocks = [b for b in fe.state(comm).get("blocks", []) if b.get("kind") == "text"]
    return "".join(b["text"] if "text" in b else buffers.get(b["id"], "") for b in blocks)


def waiting_for(fe: Frontend, comm: str, call_id: str, attempt: int = 1) -> dict[str, Any]:
    def pending() -> Any:
        card = tool_card(fe.state(comm), call_id)
        approval = (card or {}).get("approval") or {}
        return approval.get("state") == "pending" and approval.get("attempt", 1) >= attempt and card

    card: dict[str, Any] = fe.wait_for(pending, what=f"approval request for {call_id}")
    return card


_shown_requests: dict[tuple[str, str], tuple[str, str]] = {}


def decide(fe: Frontend, comm: str, call_id: str, approved: bool, **extra: Any) -> None:
    """Click Approve / Reject on the card of ``call_id`` as the JS view does: the message names
    the card and the request it shows (a later click repeats the last request it saw)."""
    card = tool_card(fe.state(comm), call_id) or {}
    request = (card.get("approval") or {}).get("request")
    if request and card.get("id"):
        _shown_requests[(comm, call_id)] = (card["id"], request)
    card_id, request = _shown_requests.get((comm, call_id), (call_id, call_id))
    message = {"type": "decision", "id": card_id, "request": request, "approved": approved}
    fe.send_custom(comm, {**message, "always": False, **extra})


def test_user_story_approve_while_the_cell_runs(fe: Frontend) -> None:
    script(fe, WEATHER_THEN_EMAIL)
    cell, comm = start(fe, STORY)
    fe.hello(comm)
    card = waiting_for(fe, comm, "e1")
    assert fe.state(comm)["header"]["status"] == "waiting"
    assert "ana@example.com" in card["args"]
    weather = shown_card(fe.state(comm), "w1")
    assert weather["status"] == "done" and "Sunny in Paris" in output_of(weather)
    assert "looking up Paris" in weather.get("printed", "")  # print() lands in the card
    decide(fe, comm, "e1", True)
    reply = fe.reply(cell)
    assert reply["content"]["status"] == "ok"
    state = final_state(fe, comm)
    assert state["header"]["status"] == "done"
    assert texts(fe, comm) == "It is sunny in Paris; I emailed Ana."
    assert shown_card(state, "e1")["approval"]["state"] == "approved"
    assert kernel_value(fe, "sent") == [("ana@example.com", "Sunny")]
    assert "looking up" not in fe.stdout(cell)  # not spilled into the cell


def test_reject_with_a_reason(fe: Frontend) -> None:
    script(fe, WEATHER_THEN_EMAIL)
    cell, comm = start(fe, STORY)
    fe.hello(comm)
    waiting_for(fe, comm, "e1")
    decide(fe, comm, "e1", False, message="not now")
    assert fe.reply(cell)["content"]["status"] == "ok"
    card = shown_card(final_state(fe, comm), "e1")
    assert card["status"] == "rejected" and card["approval"]["message"] == "not now"
    assert kernel_value(fe, "sent") == []
    last_input = kernel_value(fe, "demo.requests[-1].input[-1]['output']")
    assert "rejected" in last_input and "not now" in last_input


def test_edited_arguments_are_validated_before_they_run(fe: Frontend) -> None:
    script(fe, WEATHER_THEN_EMAIL)
    cell, comm = start(fe, STORY)
    fe.hello(comm)
    waiting_for(fe, comm, "e1")
    decide(fe, comm, "e1", True, arguments={"to": 5})
    errors = fe.wait_for(
        lambda: [m for m in fe.custom.get(comm, []) if m.get("type") == "decision_error"],
        what="decision_error",
    )
    assert (
        errors[0]["id"] == shown_card(fe.state(comm), "e1")["id"] and "body" in errors[0]["error"]
    )
    decide(fe, comm, "e1", True, arguments={"to": "bob@example.com", "body": "edited"})
    assert fe.reply(cell)["content"]["status"] == "ok"
    assert kernel_value(fe, "sent") == [("bob@example.com", "edited")]
    assert shown_card(final_state(fe, comm), "e1")["approval"].get("edited") is True


def test_always_approves_later_calls_of_the_tool(fe: Frontend) -> None:
    script(
        fe,
        """[
        [tool_call("send_email", {"to": "a@x.org", "body": "1"}, call_id="e1")],
        [tool_call("send_email", {"to": "b@x.org", "body": "2"}, call_id="e2")],
        [text("Sent both.")],
    ]""",
    )
    cell, comm = start(fe, "%%agent\nEmail a and b.")
    fe.hello(comm)
    waiting_for(fe, comm, "e1")
    decide(fe, comm, "e1", True, always=True)
    assert fe.reply(cell)["content"]["status"] == "ok"
    assert kernel_value(fe, "[to for to, _ in sent]") == ["a@x.org", "b@x.org"]
    assert shown_card(final_state(fe, comm), "e2")["approval"]["state"] == "approved"


def test_stale_and_double_clicks_do_nothing(fe: Frontend) -> None:
    script(fe, WEATHER_THEN_EMAIL)
    cell, comm = start(fe, STORY)
    fe.hello(comm)
    decide(fe, comm, "nope", True)  # unknown id, while the run streams
    waiting_for(fe, comm, "e1")
    decide(fe, comm, "e1", True)
    decide(fe, comm, "e1", False)  # double click
    assert fe.reply(cell)["content"]["status"] == "ok"
    decide(fe, comm, "e1", False)  # late click
    fe.run("pass")
    assert kernel_value(fe, "sent") == [("ana@example.com", "Sunny")]
    assert shown_card(final_state(fe, comm), "e1")["approval"]["state"] == "approved"


def test_text_streams_into_the_widget_before_the_run_ends_and_stop_cancels(fe: Frontend) -> None:
    long_text = "word " * 400
    script(fe, f"[[text({long_text!r})]]", delay=0.01)
    cell, comm = start(fe, "%%agent\nTalk for a while.")
    fe.hello(comm)
    fe.wait_for(lambda: len(texts(fe, comm)) > 20, what="streamed text")
    assert fe.state(comm)["header"]["status"] == "running"
    fe.send_custom(comm, {"type": "stop"})
    reply = fe.reply(cell, timeout=10)
    assert reply["content"]["status"] == "ok"
    state = final_state(fe, comm)
    assert state["header"]["status"] == "cancelled"
    assert len(texts(fe, comm)) < len(long_text)
    assert (
        kernel_value(
            fe,
            "len(__import__('jupyter_agents.notebook.host', "
            "fromlist=['_']).current_host().conversation('notebook'))",
        )
        == 0
    )


def test_interrupt_while_waiting_cancels_quickly_and_keeps_no_half_turn(fe: Frontend) -> None:
    script(fe, WEATHER_THEN_EMAIL)
    cell, comm = start(fe, STORY)
    fe.hello(comm)
    waiting_for(fe, comm, "e1")
    started = time.monotonic()
    fe.interrupt()
    reply = fe.reply(cell, timeout=10)
    assert time.monotonic() - started < 3
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "AgentRunInterrupted"  # a KeyboardInterrupt
    (line,) = reply["content"]["traceback"]  # like an interrupted normal cell: one line
    assert "KeyboardInterrupt" in line and "stopped" in line
    # the reply comes on the shell channel; the error output on IOPub may come a moment later
    fe.wait_for(lambda: any(m["msg_type"] == "error" for m in fe.outputs(cell)), 10, "the error")
    shown = [m for m in fe.outputs(cell) if m["msg_type"] in ("error", "stream")]
    assert all("jupyter_agents" not in json.dumps(m["content"]) for m in shown)
    assert sum(m["msg_type"] == "error" for m in shown) == 1
    assert final_state(fe, comm)["header"]["status"] == "cancelled"
    assert kernel_value(fe, "sent") == []
    host = "__import__('jupyter_agents.notebook.host', fromlist=['_']).current_host()"
    assert kernel_value(fe, f"len({host}.conversation('notebook'))") == 0


def test_run_all_keeps_order_with_a_queued_cell(fe: Frontend) -> None:
    fe.run("order = []")
    script(fe, WEATHER_THEN_EMAIL)
    agent_cell, comm = start(fe, STORY)
    next_cell = fe.execute("order.append('next')")  # queued, as Run All does
    fe.hello(comm)
    waiting_for(fe, comm, "e1")
    assert fe.outputs(next_cell) == []  # the queued cell has not started
    decide(fe, comm, "e1", True)
    first = fe.reply(agent_cell)
    second = fe.reply(next_cell)
    assert first["content"]["execution_count"] < second["content"]["execution_count"]
    assert kernel_value(fe, "order") == ["next"]


def test_a_failing_run_stops_run_all(fe: Frontend) -> None:
    # The run waits for an approval before it fails, so the next cell is surely queued.
    script(
        fe,
        """[
        [tool_call("send_email", {"to": "a@x.org", "body": "1"}, call_id="e1")],
        RuntimeError("model exploded"),
    ]""",
    )
    before = len(fe.run_widgets())
    agent_cell = fe.execute("%%agent\nhi")
    next_cell = fe.execute("ran_after_failure = True")  # queued behind it, as Run All does
    comm = fe.widget(before)
    fe.hello(comm)
    waiting_for(fe, comm, "e1")
    decide(fe, comm, "e1", True)
    reply = fe.reply(agent_cell)
    assert reply["content"]["status"] == "error"
    said = "the agent run failed (RuntimeError); the run above shows why"
    assert reply["content"]["evalue"] == said  # the error itself is said once, in the run
    (line,) = reply["content"]["traceback"]  # one line, no internals
    assert "AgentRunError" in line and "model exploded" not in line
    assert fe.reply(next_cell)["content"]["status"] == "aborted"
    header = final_state(fe, comm)["header"]
    assert header["status"] == "failed" and header["detail"] == "RuntimeError: model exploded"


@pytest.mark.parametrize(
    ("cities", "detail"),
    [
        (["Paris", "Nowhere"], "1 of 2 tool calls failed"),
        (["Nowhere"], "its tool call failed"),
        (["Nowhere", "Nowhere"], "all 2 tool calls failed"),
        (["Paris"], None),
    ],
)
def test_a_run_whose_tool_calls_failed_says_how_many(
    fe: Frontend, cities: list[str], detail: str | None
) -> None:
    fe.run(
        "@tool\ndef forecast(city: str) -> str:\n"
        "    'Tomorrow weather.'\n"
        "    if city == 'Nowhere':\n        raise ValueError('no such city')\n"
        "    return 'rain'"
    )
    calls = ", ".join(
        f'tool_call("forecast", {{"city": "{c}"}}, call_id="f{n}")' for n, c in enumerate(cities)
    )
    script(fe, f'[[{calls}], [text("Here is the forecast.")]]')
    cell, comm = start(fe, "%%agent\nTomorrow's weather?")
    fe.hello(comm)
    assert fe.reply(cell)["content"]["status"] == "ok"
    header = final_state(fe, comm)["header"]
    assert header["status"] == "done" and header.get("detail") == detail


def test_headless_grace_period_rejects_with_instructions(fe: Frontend) -> None:
    script(fe, WEATHER_THEN_EMAIL)
    cell, comm = start(fe, STORY)  # no hello: no frontend rendered the widget
    reply = fe.reply(cell, timeout=20)
    assert reply["content"]["status"] == "ok"
    card = shown_card(final_state(fe, comm), "e1")
    assert card["status"] == "rejected"
    assert "--approve auto" in card["approval"]["message"]
    assert kernel_value(fe, "sent") == []


@pytest.mark.parametrize(("mode", "expected"), [("auto", 1), ("deny", 0)])
def test_approve_auto_and_deny(fe: Frontend, mode: str, expected: int) -> None:
    script(fe, WEATHER_THEN_EMAIL)
    fe.run(f"%%agent --approve {mode}\nWeather, then email Ana.", timeout=20)
    assert len(kernel_value(fe, "sent")) == expected


def test_rerunning_a_cell_reasks_from_the_history_before_it(fe: Frontend) -> None:
    script(fe, '[[text("A1")], [text("B1")], [text("A2")]]')
    fe.run("%%agent --approve auto\nquestion A", cell_id="cell-a")
    fe.run("%%agent --approve auto\nquestion B", cell_id="cell-b")
    fe.run("%%agent --approve auto\nquestion A again", cell_id="cell-a")
    sent_input = kernel_value(fe, "demo.requests[-1].input")
    assert sent_input == [{"role": "user", "content": "question A again"}]
    history = kernel_value(fe, "demo.requests[1].input")
    assert [i.get("role") for i in history] == ["user", "assistant", "user"]


def test_background_runs_return_at_once_and_stop_works(fe: Frontend) -> None:
    script(fe, WEATHER_THEN_EMAIL)
    cell, comm = start(fe, "%%agent --background\nWeather, then email Ana.")
    fe.hello(comm)  # rendered: as a page says it, at once (not after the cell's reply, which
    # under load could come after the approval's grace for an unseen run had run out)
    assert fe.reply(cell, timeout=10)["content"]["status"] == "ok"
    card = waiting_for(fe, comm, "e1")
    assert card["status"] == "waiting"
    assert fe.state(comm)["header"]["status"] == "background"  # the cell has returned
    fe.send_custom(comm, {"type": "stop"})
    fe.wait_for(lambda: fe.state(comm)["header"]["status"] == "cancelled", what="cancelled")
    assert kernel_value(fe, "sent") == []


def test_displaying_a_streamed_result_shows_the_live_widget(fe: Frontend) -> None:
    code = (
        "from jupyter_agents import Agent, Runner\n"
        "model = ScriptedModel([[tool_call('get_weather', {'city': 'Oslo'}, call_id='w9')],"
        " [text('Rainy.')]])\n"
        "streamed = Runner.run_streamed(Agent(name='shown', tools=[get_weather], model=model),"
        " 'hi')\n"
        "streamed"
    )
    cell, comm = start(fe, code)
    assert fe.reply(cell)["content"]["status"] == "ok"
    fe.wait_for(lambda: fe.state(comm)["header"]["status"] == "done", what="done")
    state = final_state(fe, comm)
    assert state["header"]["agent"] == "shown"
    assert texts(fe, comm) == "Rainy."
    assert output_of(shown_card(state, "w9")) == "Sunny in Oslo"
    assert kernel_value(fe, "streamed.final_output") == "Rainy."
