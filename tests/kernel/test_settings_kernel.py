"""Settings an administrator locks, in a real kernel: the site's file (``JUPYTER_CONFIG_PATH``)
sets and locks the policy, the mode and the budget; ``%agent config`` shows each value, where
it came from and the lock; ``%agent policy``, ``%agent mode``, ``%agent budget``,
``%agent config``, a cell's ``--mode`` and the lab's mode menu (the runs comm) cannot go below
a lock, and can go above it; a run started with a looser ``RunConfig`` from Python is clamped."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .conftest import kernel_value
from .frontend import Frontend
from .test_runs_comm import modes, runs_comm

pytestmark = pytest.mark.kernel

SITE = {
    "approval_policy": "on-request",
    "sandbox_mode": "read-only",
    "mode": "plan",
    "budget_per_cell": 0.5,
    "show_variables": False,
    "locked": ["approval_policy", "sandbox_mode", "mode", "budget_per_cell", "show_variables"],
}


@pytest.fixture(scope="module")
def fe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Frontend]:
    site = tmp_path_factory.mktemp("site")
    (site / "jupyter_agents_config.json").write_text(json.dumps(SITE))
    frontend = Frontend(env={"JUPYTER_CONFIG_PATH": str(site)})
    try:
        frontend.run("%load_ext jupyter_agents\nsecret_table = [1, 2, 3]", timeout=60)
        yield frontend
    finally:
        frontend.close()


def said(fe: Frontend, code: str) -> tuple[str, str]:
    """Run ``code``: (its status, its stdout or its error's value)."""
    msg_id = fe.execute(code)
    reply = fe.reply(msg_id)["content"]
    return reply["status"], reply.get("evalue") or fe.stdout(msg_id)


def test_the_sites_values_start_the_notebook_and_config_shows_the_locks(fe: Frontend) -> None:
    assert "plan mode" in said(fe, "%agent mode")[1]
    assert said(fe, "%agent policy")[1].startswith(
        "jupyter_agents: approval on-request · sandbox read-only"
    )
    table = (
        "__import__('jupyter_agents.notebook.magics.config_magic', fromlist=['_'])"
        ".effective(__import__('jupyter_agents.notebook.host', fromlist=['_']).current_host())"
    )
    assert kernel_value(fe, f"str({table}['budget_per_cell'])") == "0.5"
    msg_id = fe.execute("%agent config")
    assert fe.reply(msg_id)["content"]["status"] == "ok"
    shown = "".join(
        m["content"]["data"].get("text/markdown", "")
        for m in fe.outputs(msg_id)
        if m["msg_type"] == "display_data"
    ).replace("\\", "")
    assert "| approval_policy | on-request | site | at least as strict as on-request |" in shown
    assert "| show_variables | off | site | at least as strict as off |" in shown


@pytest.mark.parametrize(
    ("code", "refused"),
    [
        ("%agent policy never", "approval_policy is locked by your administrator at on-request"),
        ("%agent policy danger-full-access", "sandbox_mode is locked by your administrator"),
        ("%agent mode agent", "mode is locked by your administrator at plan"),
        ("%%agent --mode agent\nGo.", "mode is locked by your administrator at plan"),
        ("%agent budget 5", "budget_per_cell is locked by your administrator at 0.5"),
        ("%agent budget off", "budget_per_cell is locked"),
        ("%agent config show_variables true", "show_variables is locked"),
    ],
)
def test_a_magic_or_a_cell_cannot_go_below_a_lock(fe: Frontend, code: str, refused: str) -> None:
    status, message = said(fe, code)
    assert status == "error" and refused in message and "it can only be made stricter" in message
    assert "plan mode" in said(fe, "%agent mode")[1]  # nothing changed


def test_stricter_than_a_lock_is_fine_and_the_lab_cannot_loosen(fe: Frontend) -> None:
    try:
        assert said(fe, "%agent mode ask")[0] == "ok"
        assert said(fe, "%agent policy untrusted")[0] == "ok"
        assert said(fe, "%agent budget 0.25")[0] == "ok"
        channel = runs_comm(fe)
        before = len(modes(fe, channel))
        fe.send_comm(channel, {"type": "set_mode", "mode": "agent"})  # the status bar's menu
        fe.send_comm(channel, {"type": "hello"})
        fe.wait_for(lambda: len(modes(fe, channel)) > before, what="the mode after hello")
        assert modes(fe, channel)[before:] == ["ask"]
    finally:
        fe.run("%agent mode plan\n%agent policy reset\n%agent budget 0.5")
    assert said(fe, "%agent policy")[1].startswith(  # reset: back to the site's, not looser
        "jupyter_agents: approval on-request · sandbox read-only"
    )


def test_python_cannot_step_around_the_locks(fe: Frontend) -> None:
    code = (
        "from jupyter_agents import ShellTool, RunConfig\n"
        "from jupyter_agents.runtime.sandbox.policy import ExecPolicy\n"
        "p = ExecPolicy.resolve(ShellTool(approval_policy='never', "
        "sandbox_mode='danger-full-access'), RunConfig(approval_policy='never'))"
    )
    fe.run(code)
    assert kernel_value(fe, "(p.approval, p.sandbox.mode)") == ("on-request", "read-only")


def test_hidden_variables_are_not_shown_to_the_model(fe: Frontend) -> None:
    fe.run(
        "from jupyter_agents.notebook.workspace.notebook_tools import NotebookTools\n"
        "tools = {t.name: t for t in NotebookTools()}"
    )
    told = kernel_value(fe, "tools['list_variables'].func()")
    assert "show_variables is off" in told and "secret_table" not in told
