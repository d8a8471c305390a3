"""%%agent --eval in a real kernel: the cases run as a batch, the report lands in the
namespace and is shown as the report widget (with its text form), running the cell again asks
the model nothing, and misuse is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import kernel_value
from .frontend import Frontend
from .test_agent_cells import decide, start, waiting_for

pytestmark = pytest.mark.kernel

SETUP = """
%load_ext jupyter_agents
import pandas as pd
from pydantic_evals.evaluators import EqualsExpected
from jupyter_agents.evals import ToolTrajectory
from jupyter_agents.testing import ScriptedModel, text

qa = pd.DataFrame(
    {"input": ["capital of France", "2 + 2", "colour of grass"],
     "expected": ["Paris", "4", "green"]},
    index=["france", "sum", "grass"],
)
ANSWERS = {"capital of France": "Paris", "2 + 2": "4", "colour of grass": "blue"}
demo = ScriptedModel(respond=lambda r: text(ANSWERS[r.user_text.removeprefix("Q: ")]))
checks = [EqualsExpected(), ToolTrajectory(max_calls=0)]
%agent model demo
"""


def report_widgets(fe: Frontend) -> list[str]:
    return [c for c, s in fe.models.items() if s.get("report", {}).get("mode") == "report"]


def test_an_eval_cell_scores_the_cases_and_shows_the_report(tmp_path: Path) -> None:
    fe = Frontend()
    try:
        fe.run(f"%cd {tmp_path}")
        fe.run(SETUP, timeout=60)
        msg = fe.execute("%%agent --eval qa --scorer checks --concurrency 2\nQ: {input}", "c1")
        assert fe.reply(msg, timeout=60)["content"]["status"] == "ok"
        assert kernel_value(fe, "eval_report.averages()") == {
            "EqualsExpected": pytest.approx(2 / 3),
            "max_calls": 1.0,
        }
        assert kernel_value(fe, "[c.name for c in eval_report.failures]") == ["grass"]
        widgets = fe.wait_for(lambda: report_widgets(fe), what="the report widget")
        state = fe.state(widgets[-1])["report"]
        assert [c["name"] for c in state["cases"]] == ["grass", "france", "sum"]  # failing first
        assert state["cases"][0]["output"] == "blue" and state["cases"][0]["status"] == "fail"
        bundles = [o for o in fe.outputs(msg) if o["msg_type"] == "display_data"]
        texts = [b["content"]["data"]["text/plain"] for b in bundles]
        assert any("grass" in t and "EqualsExpected" in t for t in texts), texts
        assert "the report is in 'eval_report'" in fe.stdout(msg)
        assert kernel_value(fe, "len(demo.requests)") == 3

        # The same cell again: every case comes back without asking the model.
        again = fe.execute("%%agent --eval qa --scorer checks --out again\nQ: {input}", "c1")
        assert fe.reply(again, timeout=60)["content"]["status"] == "ok"
        assert kernel_value(fe, "len(demo.requests)") == 3
        assert kernel_value(fe, "again.averages() == eval_report.averages()") is True
    finally:
        fe.close()


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("%%agent --eval nothing_here", "no variable named 'nothing_here'"),
        ("%%agent --eval qa --scorer qa", "--scorer qa is not a scorer"),
        ("%%agent --eval qa --over qa", "--over and --eval do not go together"),
        ("%%agent --eval missing.yaml", "No dataset file at 'missing.yaml'"),
        ("%%agent --eval qa\nNo placeholder", "needs {input}"),
    ],
)
def test_eval_cell_misuse_is_one_line(tmp_path: Path, line: str, says: str) -> None:
    fe = Frontend()
    try:
        fe.run(f"%cd {tmp_path}")
        fe.run(SETUP, timeout=60)
        reply = fe.reply(fe.execute(line), timeout=60)["content"]
        assert reply["status"] == "error"
        assert says in reply["evalue"] and "\n" not in reply["evalue"]
    finally:
        fe.close()


PLANNED = """
def planned(r):
    if r.user_text.startswith("You will do the task below"):
        if any(i.get("type") == "function_call_output" for i in r.input):
            return text("planned")
        plan = {"plan": [{"step": "Answer in one word", "status": "pending"}]}
        return tool_call("update_plan", plan, call_id="u1")
    return text(ANSWERS[r.user_text.removeprefix("Q: ").split("\\n", 1)[0]])

from jupyter_agents.testing import tool_call
planner = ScriptedModel(respond=planned)
%agent model planner
"""


def test_an_eval_cell_in_plan_mode_asks_one_plan_then_every_case_follows_it(
    tmp_path: Path,
) -> None:
    fe = Frontend()
    try:
        fe.run(f"%cd {tmp_path}")
        fe.run(SETUP, timeout=60)
        fe.run(PLANNED)
        msg, comm = start(fe, "%%agent --eval qa --scorer checks --mode plan\nQ: {input}")
        fe.hello(comm)
        waiting_for(fe, comm, "u1")  # the one plan card of the evaluation
        decide(fe, comm, "u1", True)
        assert fe.reply(msg, timeout=60)["content"]["status"] == "ok"
        assert kernel_value(fe, "eval_report.averages()")["EqualsExpected"] == pytest.approx(2 / 3)
        prompts = kernel_value(fe, "[r.user_text for r in planner.requests[1:]]")
        assert len(prompts) == 3  # one request per case, no plan card per case
        assert all("○ Answer in one word" in p for p in prompts), prompts
    finally:
        fe.close()
