"""What a ``%%agent`` run waits for, in a real kernel, as the widget and the runs comm show it.

A model server that takes the connection and never answers: from 5 s on the card and the run
list say the run waits for the model at that server (and which attempt), and the run ends under
the default limits (3 attempts of 30 s to a stream's first event) with the server named in the
run's one-line error. A call waiting for the person says so the same way.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import SETUP, script
from .frontend import Frontend
from .test_agent_cells import STORY, WEATHER_THEN_EMAIL, decide, final_state, start, waiting_for
from .test_runs_comm import latest, runs_comm

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def hung_port() -> Iterator[int]:
    """A server that accepts every connection and never sends a byte."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            held.append(connection)  # read nothing, answer nothing

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join(5)
        for connection in held:
            connection.close()
        listener.close()


@pytest.fixture(scope="module")
def hung_fe(hung_port: int) -> Iterator[Frontend]:
    """A kernel whose default model is served by the hung server (no ``%agent model``)."""
    base_url = f"http://127.0.0.1:{hung_port}/v1"
    frontend = Frontend(env={"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-test"})
    try:
        frontend.run("%load_ext jupyter_agents", timeout=60)
        yield frontend
    finally:
        frontend.close()


def shown_wait(fe: Frontend, comm: str) -> Any:
    return fe.state(comm)["header"].get("wait")


def test_a_hung_model_server_shows_the_wait_and_ends_the_run_naming_the_server(
    hung_fe: Frontend, hung_port: int
) -> None:
    fe, where = hung_fe, f"127.0.0.1:{hung_port}"
    channel = runs_comm(fe)
    started = time.monotonic()
    msg_id = fe.execute("%%agent\nHello?", cell_id="cell-hung")
    widget = fe.widget(-1)
    fe.hello(widget)

    wait = fe.wait_for(lambda: shown_wait(fe, widget), timeout=25, what="the waiting line")
    assert wait["on"] == "model" and wait["text"] == f"waiting for the model at {where}"
    call_started = wait["since"] / 1000  # the model call's start (the kernel's clock)
    assert 4.5 <= time.time() - call_started < 8  # from 5 s on, within a tick or two
    assert time.monotonic() - started < 25  # a fresh kernel's first cell imports openai first
    run = fe.wait_for(
        lambda: (r := latest(fe, channel, "cell-hung")) and r.get("wait") and r,
        what="the run list's waiting line",
    )
    assert run["wait"] == wait and run["status"] == "running"
    second = fe.wait_for(
        lambda: (w := shown_wait(fe, widget)) and "attempt 2 of 3" in w["text"] and w,
        timeout=45,
        what="the second attempt",
    )
    assert second["since"] == wait["since"]  # the call's wait, counted from its start

    reply = fe.reply(msg_id, timeout=150)
    took = time.time() - call_started
    assert 88 <= took < 110, took  # 3 x 30 s and the pauses between attempts
    assert reply["content"]["status"] == "error"
    assert "(ModelTimeoutError)" in reply["content"]["evalue"]  # the cell points at the run
    header = final_state(fe, widget)["header"]
    assert "wait" not in header and header["status"] == "failed"
    assert header["detail"] == (  # the run's one line: the server, and what to change
        f"ModelTimeoutError: No answer from the model at http://{where}/v1 within 30 s (3 "
        "attempts): it took the request and sent nothing. "
        "ModelSettings(timeout=ModelTimeout(first_event=...)) waits longer."
    )
    ended = fe.wait_for(
        lambda: (r := latest(fe, channel, "cell-hung")) and r["status"] == "failed" and r,
        what="the run's end in the run list",
    )
    assert ended["wait"] is None


@pytest.fixture(scope="module")
def approvals_fe() -> Iterator[Frontend]:
    frontend = Frontend(env={"JUPYTER_AGENTS_APPROVAL_GRACE": "3"})
    try:
        frontend.run(SETUP, timeout=60)
        yield frontend
    finally:
        frontend.close()


def test_a_call_waiting_for_the_person_says_so_from_five_seconds_on(
    approvals_fe: Frontend,
) -> None:
    fe = approvals_fe
    channel = runs_comm(fe)
    script(fe, WEATHER_THEN_EMAIL)
    msg_id, widget = start(fe, STORY)
    fe.hello(widget)
    waiting_for(fe, widget, "e1")
    asked = time.monotonic()
    assert shown_wait(fe, widget) is None  # not in the first seconds
    wait = fe.wait_for(lambda: shown_wait(fe, widget), timeout=15, what="the waiting line")
    assert 4 <= time.monotonic() - asked < 10
    assert wait["on"] == "person" and wait["text"] == "waiting for your approval"
    cell = fe.wait_for(
        lambda: next(
            (
                d["run"]["cell"]
                for d in reversed(fe.comm_messages(channel))
                if isinstance(d, dict) and d.get("type") == "run" and d["run"].get("wait")
            ),
            None,
        ),
        what="the run list's waiting line",
    )
    decide(fe, widget, "e1", True)
    assert fe.reply(msg_id)["content"]["status"] == "ok"
    assert "wait" not in final_state(fe, widget)["header"]
    fe.wait_for(
        lambda: (r := latest(fe, channel, cell)) and r["status"] == "done" and r["wait"] is None,
        what="the run without its waiting line",
    )
