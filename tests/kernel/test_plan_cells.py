"""A live plan in a real kernel: the notebook agent offers ``update_plan``; the run widget's
header carries the latest plan, updated in place as the comm messages show it; the runs comm
reports the plan's progress for the lab extension's panel."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import kernel_value, script
from .frontend import Frontend
from .test_agent_cells import decide, final_state, tool_card, waiting_for
from .test_runs_comm import latest, runs_comm

pytestmark = pytest.mark.kernel

STEPS = ["Load the data", "Fit the model", "Plot the fit"]
PLANS = """[
    [tool_call("update_plan", {"plan": [
        {"step": "Load the data", "status": "in_progress"},
        {"step": "Fit the model", "status": "pending"},
        {"step": "Plot the fit", "status": "pending"}]}, call_id="p1")],
    [tool_call("update_plan", {"plan": [{"step": "Load the data", "status": "finished"}]},
               call_id="p2")],
    [tool_call("send_email", {"to": "ana@example.com", "body": "Fitting"}, call_id="e1")],
    [tool_call("update_plan", {"explanation": "Fitted.", "plan": [
        {"step": "Load the data", "status": "completed"},
        {"step": "Fit the model", "status": "completed"},
        {"step": "Plot the fit", "status": "in_progress"}]}, call_id="p3")],
    [text("Plotted.")],
]"""


def header_plans(fe: Frontend, widget: str) -> list[Any]:
    """The plan of every header the kernel sent the widget, in order (repeats dropped)."""
    plans: list[Any] = []
    for data in fe.comm_messages(widget):
        header = ((data or {}).get("state") or {}).get("header")
        if header is not None and (not plans or header.get("plan") != plans[-1]):
            plans.append(header.get("plan"))
    return plans


def steps(*statuses: str) -> list[dict[str, str]]:
    return [{"step": s, "status": st} for s, st in zip(STEPS, statuses, strict=True)]


def test_the_header_and_the_runs_panel_follow_the_plan(fe: Frontend) -> None:
    channel = runs_comm(fe)
    script(fe, PLANS)
    before = len(fe.run_widgets())
    msg_id = fe.execute("%%agent\nFit and plot the data.", cell_id="cell-plan")
    widget = fe.widget(before)
    fe.hello(widget)
    first = {"steps": steps("in_progress", "pending", "pending")}
    waiting_for(fe, widget, "e1")  # the run waits: what the header shows now stays
    fe.wait_for(lambda: fe.state(widget)["header"].get("plan") == first, what="the first plan")
    bad = tool_card(fe.state(widget), "p2")
    assert bad is not None and bad["status"] == "error" and "finished" in bad["args"]
    waiting = latest(fe, channel, "cell-plan")
    assert waiting is not None
    assert waiting["plan"] == {"completed": 0, "total": 3, "current": "Load the data"}
    decide(fe, widget, "e1", True)
    assert fe.reply(msg_id)["content"]["status"] == "ok"
    state = final_state(fe, widget)
    assert "update_plan" in kernel_value(fe, "demo.requests[0].tool_names")  # by default
    told = kernel_value(fe, "demo.requests[2].input[-1]['output']")
    assert told.startswith('update_plan: step 1 has status "finished"')

    last = {"explanation": "Fitted.", "steps": steps("completed", "completed", "in_progress")}
    assert [p for p in header_plans(fe, widget) if p is not None] == [first, last]
    assert state["header"]["plan"] == last
    good = tool_card(state, "p3")
    assert good is not None and good["badge"] == "2/3" and "args" not in good

    done = fe.wait_for(
        lambda: (r := latest(fe, channel, "cell-plan")) and r["status"] == "done" and r,
        what="the run's end on the runs comm",
    )
    assert done["plan"] == {"completed": 2, "total": 3, "current": "Plot the fit"}
    reported = [
        d["run"]["plan"]
        for d in fe.comm_messages(channel)
        if isinstance(d, dict) and d.get("type") == "run" and d["run"]["cell"] == "cell-plan"
    ]
    assert reported[0] is None  # no plan until the model sets one
