"""The jupyter_agents.runs comm in a real kernel: what the lab extension's runs panel, status bar
and notifications see, and their decisions and Stop requests, sent as a frontend sends them."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import kernel_value, script
from .frontend import Frontend
from .test_agent_cells import (
    STORY,
    WEATHER_THEN_EMAIL,
    decide,
    final_state,
    start,
    tool_card,
    waiting_for,
)

pytestmark = pytest.mark.kernel

TARGET = "jupyter_agents.runs"


def runs_comm(fe: Frontend) -> str:
    """The comm the kernel opened to the frontend when the extension was loaded."""
    comm: str = fe.wait_for(
        lambda: next((c for c, t in fe.comm_targets.items() if t == TARGET), None),
        what="the kernel's runs comm",
    )
    return comm


def latest(fe: Frontend, comm: str, cell: str) -> dict[str, Any] | None:
    """The newest state of the run of cell ``cell`` the comm reported."""
    found = None
    for data in fe.comm_messages(comm):
        if isinstance(data, dict) and data.get("type") == "run" and data["run"]["cell"] == cell:
            found = data["run"]
        elif isinstance(data, dict) and data.get("type") == "snapshot":
            found = next((r for r in data["runs"] if r["cell"] == cell), found)
    return found


def replies(fe: Frontend, comm: str, kind: str) -> list[dict[str, Any]]:
    return [d for d in fe.comm_messages(comm) if isinstance(d, dict) and d.get("type") == kind]


def waiting_run(fe: Frontend, comm: str, cell: str) -> dict[str, Any]:
    def pending() -> Any:
        run = latest(fe, comm, cell)
        return run if run and run["pending"] else None

    run: dict[str, Any] = fe.wait_for(pending, what="a run waiting for approval")
    return run


def test_a_decision_from_the_panel_lets_the_waiting_cell_finish(fe: Frontend) -> None:
    channel = runs_comm(fe)
    script(fe, WEATHER_THEN_EMAIL)
    msg_id = fe.execute(STORY, cell_id="cell-story")
    widget = fe.widget(-1)
    fe.hello(widget)
    run = waiting_run(fe, channel, "cell-story")
    assert run["status"] == "waiting" and run["agent"] and run["model"]
    (pending,) = run["pending"]
    assert pending["tool"] == "send_email" and pending["call"] == "e1"
    assert "ana@example.com" in pending["arguments"]

    decide_message = {"type": "decide", "run": run["id"], "request": pending["request"]}
    fe.send_comm(channel, {**decide_message, "approved": True})
    assert fe.reply(msg_id)["content"]["status"] == "ok"
    assert fe.wait_for(lambda: replies(fe, channel, "decided"), what="the decided reply")[-1]["ok"]
    assert kernel_value(fe, "sent") == [("ana@example.com", "Sunny")]
    card = tool_card(final_state(fe, widget), "e1")
    assert card is not None and card["approval"]["state"] == "approved"  # the cell's card too
    done = fe.wait_for(
        lambda: (r := latest(fe, channel, "cell-story")) and r["status"] == "done" and r,
        what="the run's end",
    )
    assert done["tool_calls"] == 2 and done["tokens"] > 0 and done["pending"] == []
    assert done["ended"] >= done["started"]

    fe.send_comm(channel, {**decide_message, "approved": False})  # a second, stale decision
    fe.wait_for(lambda: len(replies(fe, channel, "decided")) >= 2, what="the stale reply")
    assert replies(fe, channel, "decided")[-1]["ok"] is False
    assert kernel_value(fe, "sent") == [("ana@example.com", "Sunny")]


def test_a_decision_in_the_cell_clears_the_pending_call_for_the_panel(fe: Frontend) -> None:
    channel = runs_comm(fe)
    script(fe, WEATHER_THEN_EMAIL)
    msg_id, widget = start(fe, STORY)
    fe.hello(widget)
    cell = fe.wait_for(
        lambda: next(
            (
                d["run"]["cell"]
                for d in reversed(fe.comm_messages(channel))
                if isinstance(d, dict) and d.get("type") == "run" and d["run"]["pending"]
            ),
            None,
        ),
        what="a waiting run",
    )
    waiting_for(fe, widget, "e1")  # the card shows the request too
    decide(fe, widget, "e1", False, message="not now")
    assert fe.reply(msg_id)["content"]["status"] == "ok"
    fe.wait_for(
        lambda: (r := latest(fe, channel, cell)) and r["status"] == "done" and not r["pending"],
        what="the run without pending calls",
    )
    assert kernel_value(fe, "sent") == []


def test_a_reloaded_frontend_gets_a_snapshot_and_can_stop_a_run(fe: Frontend) -> None:
    script(fe, '[["one two three four five six seven eight nine ten " * 40]]', delay=0.05)
    msg_id = fe.execute("%%agent\nTell me a long story.", cell_id="cell-long")
    channel = fe.open_comm(TARGET)  # as a page that connects to a running kernel
    fe.wait_for(lambda: replies(fe, channel, "snapshot"), what="the snapshot")
    run = fe.wait_for(
        lambda: (r := latest(fe, channel, "cell-long")) and r["status"] == "running" and r,
        what="the running run",
    )
    fe.send_comm(channel, {"type": "stop", "run": run["id"]})
    fe.reply(msg_id)
    fe.wait_for(
        lambda: (r := latest(fe, channel, "cell-long")) and r["status"] == "cancelled",
        what="the stopped run",
    )
    fe.send_comm(channel, {"type": "hello"})
    fe.wait_for(lambda: len(replies(fe, channel, "snapshot")) >= 2, what="a second snapshot")
    ids = [r["id"] for r in replies(fe, channel, "snapshot")[-1]["runs"]]
    assert run["id"] in ids


def test_malformed_messages_are_ignored(fe: Frontend) -> None:
    channel = runs_comm(fe)
    for bad in (
        {"type": "decide", "run": 1, "request": None, "approved": "yes"},
        {"type": "stop", "run": ["x"]},
        {"type": "no such thing"},
        {"type": "decide", "run": "run-999", "request": "nope", "approved": True},
    ):
        fe.send_comm(channel, bad)
    fe.wait_for(
        lambda: any(d.get("run") == "run-999" for d in replies(fe, channel, "decided")),
        what="the reply to the unknown run",
    )
    assert [d["ok"] for d in replies(fe, channel, "decided") if d["run"] == "run-999"] == [False]
    fe.run("1 + 1")  # the kernel is fine


def test_frontend_settings_set_the_default_approval_mode_of_cells(fe: Frontend) -> None:
    channel = runs_comm(fe)
    fe.send_comm(channel, {"type": "settings", "approve": "sideways", "grace": 5})  # ignored
    fe.send_comm(channel, {"type": "settings", "approve": "auto", "grace": 2})
    try:
        script(fe, WEATHER_THEN_EMAIL)
        fe.run(STORY, timeout=30)  # no buttons clicked: the setting approved the call
        assert kernel_value(fe, "sent") == [("ana@example.com", "Sunny")]
        fe.run("sent.clear()")
        script(fe, WEATHER_THEN_EMAIL)
        fe.run(STORY.replace("%%agent", "%%agent --approve deny", 1), timeout=30)
        assert kernel_value(fe, "sent") == []  # the cell's own flag wins
    finally:
        fe.send_comm(channel, {"type": "settings", "approve": "ask", "grace": 3})
        fe.run("1")


def modes(fe: Frontend, comm: str) -> list[object]:
    """Every mode the kernel sent on ``comm``, in order."""
    return [d.get("mode") for d in replies(fe, comm, "mode")]


def test_the_notebooks_mode_goes_both_ways_on_the_comm(fe: Frontend) -> None:
    channel = runs_comm(fe)
    reloaded = fe.open_comm(TARGET)  # a second page, connected later
    fe.wait_for(lambda: replies(fe, reloaded, "mode"), what="the mode after the snapshot")
    kinds = [d.get("type") for d in fe.comm_messages(reloaded)]
    assert kinds[:2] == ["snapshot", "mode"]
    try:
        fe.run("%agent mode plan")
        # every open comm hears of it
        fe.wait_for(lambda: modes(fe, channel)[-1:] == ["plan"], what="plan on the first")
        fe.wait_for(lambda: modes(fe, reloaded)[-1:] == ["plan"], what="plan on the second")
        assert {"type": "mode", "mode": "plan"} in fe.comm_messages(channel)

        fe.send_comm(channel, {"type": "set_mode", "mode": "ask"})  # the status bar's choice
        fe.wait_for(lambda: modes(fe, reloaded)[-1:] == ["ask"], what="the ask mode")
        assert "ask mode" in fe.stdout(fe.run("%agent mode")["parent_header"]["msg_id"])

        before = len(modes(fe, channel))
        for bad in ("yolo", None, 1, ["agent"], "ASK"):
            fe.send_comm(channel, {"type": "set_mode", "mode": bad})
        fe.send_comm(channel, {"type": "hello"})
        fe.wait_for(lambda: len(modes(fe, channel)) > before, what="the mode after hello")
        # (the cell runs after every message before it was handled, on the kernel's loop)
        assert "ask mode" in fe.stdout(fe.run("%agent mode")["parent_header"]["msg_id"])
        assert modes(fe, channel)[before:] == ["ask"]  # the snapshot's mode, nothing else
    finally:
        fe.run("%agent mode agent")
