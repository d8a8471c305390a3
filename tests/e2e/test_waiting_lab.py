"""A run waiting for a model server that never answers, in a real JupyterLab: from 5 s on the
run's card and the Agent runs panel say what it waits for (the model at which server, for how
long), ticking; Stop ends it and the line goes. Screenshots (light and dark) go to
``test-artifacts/``.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator

import pytest

from .lab import ARTIFACTS, Session, expect
from .test_lab_runs import runs_panel, set_theme

pytestmark = pytest.mark.browser

SETUP = """%load_ext jupyter_agents
from openai import AsyncOpenAI
from jupyter_agents import OpenAIChatCompletionsModel

client = AsyncOpenAI(base_url="http://127.0.0.1:{port}/v1", api_key="sk-test")
%agent model OpenAIChatCompletionsModel("local-model", openai_client=client)"""
AGENT = "%%agent\nHello, is anyone there?"


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
                held.append(listener.accept()[0])
            except OSError:
                continue

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


def seconds(text: str) -> int:
    found = re.search(r"· (\d+) s$", text)
    assert found, text
    return int(found.group(1))


def test_the_card_and_the_runs_panel_say_what_the_run_waits_for(
    session: Session, hung_port: int
) -> None:
    line = f"waiting for the model at 127.0.0.1:{hung_port}"
    with session.lab("e2e-waiting") as lab:
        lab.write_notebook("waiting.ipynb", [SETUP.format(port=hung_port), AGENT])
        lab.open("waiting.ipynb")
        lab.run_cell(0)
        expect(lab.prompt(0)).to_have_text(re.compile(r"^\[\d+\]:$"))
        lab.run_cell(1)
        card_wait = lab.cell(1).locator(".ja-wait")
        expect(card_wait).to_have_text(re.compile(rf"^{re.escape(line)} · \d+ s$"))
        expect(card_wait).to_have_class(re.compile(r"\bja-w-model\b"))

        lab.page.locator(".ja-runs-status").click()  # opens the panel
        panel = runs_panel(lab)
        item = panel.locator(".ja-run-item")
        expect(item).to_have_count(1)
        panel_wait = item.locator(".ja-run-wait")
        expect(panel_wait).to_have_text(re.compile(rf"^{re.escape(line)} · \d+ s$"))
        first = seconds(panel_wait.inner_text())
        expect(panel_wait).not_to_have_text(f"{line} · {first} s")  # it ticks
        assert seconds(panel_wait.inner_text()) > first >= 5

        for dark in (False, True):
            set_theme(lab, dark)
            theme = "dark" if dark else "light"
            expect(panel_wait).to_be_visible()
            expect(card_wait).to_be_visible()
            lab.screenshot(f"lab-waiting-{theme}")
            panel.screenshot(path=str(ARTIFACTS / f"doc-runs-panel-waiting-{theme}.png"))
            lab.cell(1).screenshot(path=str(ARTIFACTS / f"doc-card-waiting-{theme}.png"))
        set_theme(lab, False)  # the theme is a server-side setting: leave it as found

        item.get_by_role("button", name="Stop").click()
        expect(item.locator(".ja-run-status")).to_have_text("stopped")
        expect(panel_wait).to_have_count(0)
        expect(card_wait).to_be_hidden()  # the finished card has no waiting line
        assert lab.errors == [], lab.errors
