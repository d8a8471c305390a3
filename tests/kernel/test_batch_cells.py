"""%%agent --over in a real kernel: the progress widget, the result in the namespace, the
review table's buttons clicked as a frontend does, and a kernel killed mid-batch losing no
finished row."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path

import pytest

from .conftest import kernel_value
from .frontend import Frontend

pytestmark = pytest.mark.kernel

SETUP = """
%load_ext jupyter_agents
import pandas as pd
from jupyter_agents import tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

tickets = pd.DataFrame(
    {"text": ["refund my order", "love the app", "refund twice", "app crashes"]},
    index=["t1", "t2", "t3", "t4"],
)
demo = ScriptedModel(respond=lambda r: text("billing" if "refund" in r.user_text else "other"))
%agent model demo
"""


def widgets_of(fe: Frontend, model_name: str) -> list[str]:
    return [c for c, s in fe.models.items() if s.get("_model_name") == model_name]


def buttons_named(fe: Frontend, wanted: set[str]) -> dict[str, str] | None:
    """The buttons by description, once all of ``wanted`` have arrived (else None)."""
    buttons = {
        described: c
        for c in widgets_of(fe, "ButtonModel")
        if isinstance(described := fe.state(c).get("description"), str)
    }
    return buttons if wanted <= set(buttons) else None


def click(fe: Frontend, comm_id: str) -> None:
    fe.send_comm(comm_id, {"method": "custom", "content": {"event": "click"}})


def test_a_batch_cell_shows_progress_and_stores_the_result(tmp_path: Path) -> None:
    fe = Frontend()
    try:
        fe.run(f"%cd {tmp_path}")
        fe.run(SETUP, timeout=60)
        fe.run("%%agent --over tickets --out labels --concurrency 2\nClassify: {text}", timeout=60)
        assert kernel_value(fe, "labels.to_pandas()['output'].to_dict()") == {
            "t1": "billing",
            "t2": "other",
            "t3": "billing",
            "t4": "other",
        }
        # iopub (widget messages) and shell (the reply) are not ordered: wait for the widgets
        bars = fe.wait_for(
            lambda: [
                b
                for b in widgets_of(fe, "IntProgressModel")
                if fe.state(b).get("bar_style") == "success"
            ],
            what="the finished progress bar",
        )
        assert fe.state(bars[-1])["value"] == 4
        fe.wait_for(
            lambda: any(
                "4/4 rows" in str(fe.state(c).get("value")) for c in widgets_of(fe, "HTMLModel")
            ),
            what="the summary line",
        )
        assert kernel_value(fe, "len(demo.requests)") == 4
        fe.run("%%agent --over tickets --out again\nClassify: {text}", timeout=60)
        assert kernel_value(fe, "len(demo.requests)") == 4  # all four from the store
        assert kernel_value(fe, "sum(r.from_store for r in again.rows)") == 4
    finally:
        fe.close()


def test_review_buttons_approve_and_resume(tmp_path: Path) -> None:
    fe = Frontend()
    try:
        fe.run(f"%cd {tmp_path}")
        fe.run(SETUP, timeout=60)
        fe.run(
            '''
sent = []
@tool(needs_approval=True)
def refund(ticket: str) -> str:
    """Refund a ticket."""
    sent.append(ticket)
    return "refunded " + ticket
def answer(request):
    outputs = [i for i in request.input if i.get("type") == "function_call_output"]
    if outputs:
        return text(outputs[-1]["output"])
    return tool_call("refund", {"ticket": request.user_text})
demo = ScriptedModel(respond=answer)
%agent model demo
''',
            timeout=60,
        )
        # --approve review: run_batch(approve="review")'s word (ask, the default, is the same)
        fe.run("%%agent --over tickets --out review --approve review\n{text}", timeout=60)
        assert kernel_value(fe, "review.counts") == {"waiting": 4}
        wanted = {"Approve selected", "Reject selected", "Resume decided rows"}
        buttons = fe.wait_for(lambda: buttons_named(fe, wanted), what="the review table's buttons")
        checks = widgets_of(fe, "CheckboxModel")
        approve_row = [
            c for c in widgets_of(fe, "ButtonModel") if fe.state(c)["description"] == "Approve"
        ]
        assert len(checks) == 4 and len(approve_row) == 4
        fe.send_comm(checks[1], {"method": "update", "state": {"value": True}, "buffer_paths": []})
        fe.send_comm(checks[3], {"method": "update", "state": {"value": True}, "buffer_paths": []})
        click(fe, buttons["Approve selected"])
        click(fe, approve_row[0])
        click(fe, buttons["Resume decided rows"])
        expected = sorted(["refund my order", "love the app", "app crashes"])
        fe.wait_for(
            lambda: kernel_value(fe, "sorted(sent)") == expected, timeout=30, what="rows resumed"
        )
        final = kernel_value(fe, "{r.label: r.status for r in review.rows}")
        assert final == {"t1": "ok", "t2": "ok", "t3": "waiting", "t4": "ok"}
    finally:
        fe.close()


def test_a_killed_kernel_loses_no_finished_row(tmp_path: Path) -> None:
    fe = Frontend()
    store = tmp_path / ".jupyter_agents" / "batches.sqlite"
    try:
        fe.run(f"%cd {tmp_path}")
        fe.run(SETUP, timeout=60)
        fe.run(
            "import time\n"
            "many = pd.DataFrame({'text': [f'refund {i}' for i in range(400)]})\n"
            "def slow(r):\n    time.sleep(0.05)\n    return text('billing')\n"
            "demo = ScriptedModel(respond=slow)\n%agent model demo",
            timeout=60,
        )
        fe.execute("%%agent --over many --concurrency 1\n{text}")

        def finished() -> int:
            if not store.exists():
                return 0
            try:
                with sqlite3.connect(store) as db:
                    found = db.execute("SELECT count(*) FROM rows WHERE status='ok'").fetchone()
            except sqlite3.OperationalError:  # the file is there, its tables not yet
                return 0
            return int(found[0])

        fe.wait_for(lambda: finished() >= 20, timeout=60, what="20 rows stored")
        os.kill(fe.km.provisioner.pid, signal.SIGKILL)  # type: ignore[union-attr]
        fe.wait_for(lambda: not fe.manager.is_alive(), timeout=20, what="the kernel gone")
        kept = finished()
        assert 20 <= kept < 400
    finally:
        fe.close()  # the kernel, if the test failed before killing it
    again = Frontend()
    try:
        again.run(f"%cd {tmp_path}")
        again.run(SETUP, timeout=60)
        again.run(
            "many = pd.DataFrame({'text': [f'refund {i}' for i in range(400)]})\n"
            "demo = ScriptedModel(respond=lambda r: text('billing'))\n%agent model demo",
            timeout=60,
        )
        again.run("%%agent --over many --concurrency 8 --out rest\n{text}", timeout=120)
        assert kernel_value(again, "len(demo.requests)") == 400 - kept
        assert kernel_value(again, "rest.counts") == {"ok": 400}
    finally:
        again.close()
