"""A page that connects while a foreground agent cell waits for its person (a reload, a second
window) can still talk to the kernel: its ``kernel_info_request`` and the widget manager's
``comm_info_request`` are answered at once, while other requests keep their turn after the
running cell. The runs comm tells every page where each run's card is."""

from __future__ import annotations

import queue
import re
import time
from typing import Any

import pytest
from jupyter_client.blocking.client import BlockingKernelClient

from .conftest import script
from .frontend import Frontend
from .test_agent_cells import WEATHER_THEN_EMAIL, decide, start, waiting_for
from .test_runs_comm import TARGET, latest

pytestmark = pytest.mark.kernel


def second_client(fe: Frontend) -> BlockingKernelClient:
    """A new connection to the same kernel (another page: its own session id)."""
    client = BlockingKernelClient()
    client.load_connection_info(fe.kc.get_connection_info())
    client.start_channels(hb=False)
    return client


def shell_reply(client: BlockingKernelClient, msg_id: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        msg: dict[str, Any] = client.get_shell_msg(timeout=max(0.01, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") == msg_id:
            return msg


def test_a_new_page_connects_while_a_foreground_run_waits_and_the_order_of_cells_holds(
    fe: Frontend,
) -> None:
    script(fe, WEATHER_THEN_EMAIL)
    cell, comm = start(fe, "%%agent\nWeather, then email Ana.")
    fe.hello(comm)
    waiting_for(fe, comm, "e1")  # the cell runs, and waits for a person
    page = second_client(fe)
    try:
        info = shell_reply(page, page.kernel_info(), timeout=10)
        assert info["content"]["status"] == "ok"
        comms = shell_reply(page, page.comm_info("jupyter.widget"), timeout=10)
        assert comm in comms["content"]["comms"]  # the widget manager finds the card
        queued = page.execute("after_the_run = True")  # any other request waits its turn
        with pytest.raises(queue.Empty):  # no reply while the agent cell runs
            shell_reply(page, queued, timeout=2)
        with pytest.raises(TimeoutError):  # and the agent cell still waits
            fe.reply(cell, timeout=0.5)
        decide(fe, comm, "e1", True)
        assert fe.reply(cell)["content"]["status"] == "ok"
        assert shell_reply(page, queued, timeout=20)["content"]["status"] == "ok"
    finally:
        page.stop_channels()


def test_the_runs_comm_says_where_each_runs_card_is_and_which_page_started_it(
    fe: Frontend,
) -> None:
    script(fe, WEATHER_THEN_EMAIL)
    before = len(fe.run_widgets())
    cell = fe.execute("%%agent --background\nWeather, then email Ana.", cell_id="agent-cell")
    comm = fe.widget(before)
    fe.hello(comm)
    fe.reply(cell, timeout=10)
    channel = fe.open_comm(TARGET)  # as a page that connects later
    run = fe.wait_for(lambda: latest(fe, channel, "agent-cell"), what="the run")
    view = run["view"]
    assert view["model"] == comm  # the card's widget: what the page displays in the cell
    assert view["client"] == fe.kc.session.session  # the page whose cell shows it already
    assert re.fullmatch(r"[0-9a-f]{32}", view["display"])
    shown = [
        m for m in fe.outputs(cell) if m["msg_type"] == "display_data"
    ]  # the display id the finished run's update will carry
    assert shown[0]["content"]["transient"]["display_id"] == view["display"]
    waiting_for(fe, comm, "e1")
    decide(fe, comm, "e1", True)
    fe.run("await _")
    updates = [m for m in fe.outputs(cell) if m["msg_type"] == "update_display_data"]
    assert updates and updates[0]["content"]["transient"]["display_id"] == view["display"]
