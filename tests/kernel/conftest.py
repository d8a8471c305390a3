"""A shared kernel for the real-kernel tests (starting one costs seconds)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .frontend import Frontend

SETUP = '''
%load_ext jupyter_agents
from jupyter_agents import tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

sent = []

@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    print("looking up", city)
    return f"Sunny in {city}"

@tool(needs_approval=True)
def send_email(to: str, body: str) -> str:
    """Send an email."""
    sent.append((to, body))
    return f"sent to {to}"
'''


@pytest.fixture(scope="module")
def kernel() -> Iterator[Frontend]:
    frontend = Frontend(env={"JUPYTER_AGENTS_APPROVAL_GRACE": "3"})
    try:
        frontend.run(SETUP, timeout=60)
        yield frontend
    finally:
        frontend.close()


@pytest.fixture
def fe(kernel: Frontend) -> Frontend:
    """The shared kernel with a fresh conversation and an empty outbox (a cell the last test
    left running is interrupted first)."""
    kernel.settle()
    kernel.run("sent.clear()\n%agent new")
    return kernel


def script(fe: Frontend, turns: str, delay: float = 0.0) -> None:
    """Give the notebook agent a fresh ScriptedModel with ``turns`` (Python source)."""
    fe.run(f"demo = ScriptedModel({turns}, delay={delay})\n%agent model demo")


def kernel_value(fe: Frontend, expression: str) -> Any:
    """Evaluate ``expression`` in the kernel (via user_expressions).

    Right after a cell fails, ipykernel aborts the requests already on their way (as it does
    for the rest of a Run All); such a request is sent again.
    """
    for _ in range(5):
        msg_id = fe.kc.execute("", user_expressions={"v": expression})
        reply = fe.reply(msg_id)
        if reply["content"]["status"] != "aborted":
            break
    assert reply["content"]["status"] == "ok", reply["content"]
    value = reply["content"]["user_expressions"]["v"]
    if value["status"] != "ok":
        raise AssertionError(value)
    return eval(value["data"]["text/plain"])  # repr of plain data
