"""Background agent cells in a real kernel (issue 41, point 1): ``%%agent --background`` returns
at once with a handle (``_`` and ``--out``); later cells run while the run waits and streams;
``await handle`` and ``handle.result()`` give the same final output as a foreground run;
``handle.cancel()`` stops it."""

from __future__ import annotations

import pytest

from .conftest import kernel_value, script
from .frontend import Frontend
from .test_agent_cells import WEATHER_THEN_EMAIL, decide, final_state, start, texts, waiting_for

pytestmark = pytest.mark.kernel

FINAL = "It is sunny in Paris; I emailed Ana."


def test_later_cells_run_while_a_background_run_goes_on_and_await_gives_its_result(
    fe: Frontend,
) -> None:
    script(fe, WEATHER_THEN_EMAIL, delay=0.01)
    cell, comm = start(fe, "%%agent --background --out job\nWeather, then email Ana.")
    fe.hello(comm)
    reply = fe.reply(cell, timeout=10)["content"]
    assert reply["status"] == "ok"
    shown = [m for m in fe.outputs(cell) if m["msg_type"] == "execute_result"]
    assert shown and shown[0]["content"]["data"]["text/plain"].startswith(
        "<BackgroundRun of notebook from cell"
    )  # the cell's value: _
    waiting_for(fe, comm, "e1")  # the run waits for a person...
    for n in range(3):  # ...while three later cells run
        assert fe.run(f"later_{n} = {n} * 2")["content"]["status"] == "ok"
    assert kernel_value(fe, "(job.done(), job.status)") == (False, "waiting")
    early = fe.execute("job.result()")
    said = fe.reply(early)["content"]
    assert said["status"] == "error" and said["ename"] == "RunStillGoing"
    assert "`await` the handle" in said["evalue"]
    decide(fe, comm, "e1", True)
    fe.run("result = await job")
    assert kernel_value(fe, "result.final_output") == FINAL
    assert kernel_value(fe, "job.result().final_output") == FINAL
    assert kernel_value(fe, "(job.done(), job.status)") == (True, "done")
    assert texts(fe, comm) == FINAL and final_state(fe, comm)["header"]["status"] == "done"
    assert kernel_value(fe, "sent") == [("ana@example.com", "Sunny")]

    fe.run("sent.clear()\n%agent new")
    script(fe, WEATHER_THEN_EMAIL)
    cell, comm = start(fe, "%%agent --approve auto\nWeather, then email Ana.")  # foreground
    assert fe.reply(cell)["content"]["status"] == "ok"
    assert kernel_value(fe, "__import__('jupyter_agents').last_result().final_output") == FINAL


def test_cancel_stops_a_background_run(fe: Frontend) -> None:
    script(fe, WEATHER_THEN_EMAIL)
    cell, comm = start(fe, "%%agent --background --out job\nWeather, then email Ana.")
    fe.hello(comm)
    assert fe.reply(cell, timeout=10)["content"]["status"] == "ok"
    waiting_for(fe, comm, "e1")
    fe.run("job.cancel()")
    fe.wait_for(lambda: fe.state(comm)["header"]["status"] == "cancelled", what="cancelled")
    fe.run("stopped = await job")
    assert kernel_value(fe, "(job.status, stopped.is_cancelled)") == ("cancelled", True)
    assert kernel_value(fe, "sent") == []  # the email never went
