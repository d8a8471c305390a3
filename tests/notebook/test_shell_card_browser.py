"""Shell cards in the widget in Chromium: live output in a terminal look with ANSI colours (and
nothing live from it), the policy verdict, and the question to leave the sandbox."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import Agent, ShellTool
from jupyter_agents.runtime.sandbox import find_bwrap
from jupyter_agents.testing import ScriptedModel, output_item, text

from .test_widget_browser import (  # noqa: F401 (lab and site are fixtures)
    SITE_ROOT,
    Lab,
    drive,
    lab,
    make_view,
    site,
)

pytest.importorskip("playwright")
from playwright.async_api import expect

from ..prerequisites import needs_bwrap

pytestmark = needs_bwrap

DARK = Path(sys.prefix) / "share/jupyter/lab/themes/@jupyterlab/theme-dark-extension/index.css"
RED = "\\033[1;31m"
RESET = "\\033[0m"
WAITS = f"printf 'started {RED}red{RESET} <img src=x onerror=alert(1)>\\n'; " + (
    "while [ ! -f go ]; do sleep 0.05; done; echo finished"
)


def shell_call(command: str, call_id: str) -> Any:
    return output_item(
        {
            "type": "shell_call",
            "id": f"sh_{call_id}",
            "call_id": call_id,
            "status": "completed",
            "action": {"commands": [command]},
        }
    )


async def test_a_shell_card_streams_like_a_terminal_and_asks_to_leave_the_sandbox(
    lab: Lab,  # noqa: F811 (the fixture)
    tmp_path: Path,
) -> None:
    view = make_view()
    model = ScriptedModel(
        [[shell_call(WAITS, "s1")], [shell_call("echo x > made.txt", "s2")], [text("Done.")]]
    )
    tool = ShellTool(approval_policy="on-failure", sandbox_mode="read-only", workspace=tmp_path)
    await lab.mount(view)
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[tool])))
    first = lab.page.locator(".ja-tool").nth(0)
    await first.locator("summary").first.click()
    live = first.locator("pre.ja-printed")
    await expect(live).to_contain_text("started", timeout=10_000)  # while the command runs
    await expect(live.locator("span.ja-fg1.ja-bold")).to_have_text("red")
    await expect(live).to_contain_text("<img src=x onerror=alert(1)>")
    await expect(first).to_have_class("ja-tool ja-st-running ja-terminal")
    await lab.shot("shell_card_running")
    (tmp_path / "go").touch()
    await expect(first).to_have_class("ja-tool ja-st-done ja-terminal")
    await expect(first.locator("pre.ja-out")).to_contain_text("finished\n[exit code 0]")
    await expect(live).to_be_hidden()  # the output holds it all now
    await expect(first.locator(".ja-badge")).to_have_text("sandboxed: read-only")
    confined = f"[confined by: bubblewrap {find_bwrap()}, read-only, no network]"
    await expect(first.locator("pre.ja-out")).to_contain_text(confined)  # what really ran

    second = lab.page.locator(".ja-tool").nth(1)
    await expect(second).to_have_class("ja-tool ja-st-waiting ja-terminal")
    await expect(second.locator(".ja-badge")).to_have_text("escalated")
    question = second.locator(".ja-escalation")
    await expect(question).to_contain_text("Run outside the sandbox?")
    await expect(question).to_contain_text("Read-only file system")
    await expect(second.locator(".ja-always")).to_be_hidden()  # "always" never covers this
    await lab.shot("shell_card_escalation")
    await second.get_by_role("button", name="Approve").click()
    await asyncio.wait_for(run, 20)
    await lab.settle()
    await expect(second).to_have_class("ja-tool ja-st-done ja-terminal")
    await expect(second.locator(".ja-badge")).to_have_text("escalated")  # ran outside
    await expect(second.locator(".ja-decided")).to_have_text(
        "✓ Approved to run outside the sandbox"
    )
    assert (tmp_path / "made.txt").read_text() == "x\n"
    assert await lab.page.locator(".ja-run img:not(.ja-image)").count() == 0
    assert lab.remote == []
    await second.locator("summary").first.click()
    await lab.shot("shell_card_done")
    if DARK.exists():  # the same cards in JupyterLab's dark theme
        shutil.copy(DARK, SITE_ROOT[0] / "dark.css")
        await lab.page.evaluate(
            "() => { document.querySelector('link[href=\"theme.css\"]').href = 'dark.css'; }"
        )
        await expect(lab.page.locator("body")).to_have_css("background-color", "rgb(17, 17, 17)")
        await lab.shot("shell_card_done_dark")


async def test_a_dangerous_command_waits_with_its_badge_and_runs_once_approved(
    lab: Lab,  # noqa: F811 (the fixture)
    tmp_path: Path,
) -> None:
    (tmp_path / "build").mkdir()
    view = make_view()
    model = ScriptedModel([[shell_call("rm -rf build", "s1")], [text("Done.")]])
    tool = ShellTool(approval_policy="on-request", workspace=tmp_path)  # would not ask otherwise
    await lab.mount(view)
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[tool])))
    card = lab.page.locator(".ja-tool").nth(0)
    await expect(card).to_have_class("ja-tool ja-st-waiting ja-terminal")
    await expect(card.locator(".ja-badge")).to_have_text("dangerous")
    await expect(card.locator(".ja-always")).to_be_hidden()  # decided for this call only
    assert (tmp_path / "build").exists()
    await lab.shot("shell_card_dangerous")
    if DARK.exists():  # the waiting card in JupyterLab's dark theme too
        shutil.copy(DARK, SITE_ROOT[0] / "dark.css")
        await lab.page.evaluate(
            "() => { document.querySelector('link[href=\"theme.css\"]').href = 'dark.css'; }"
        )
        await expect(lab.page.locator("body")).to_have_css("background-color", "rgb(17, 17, 17)")
        await lab.shot("shell_card_dangerous_dark")
    await card.get_by_role("button", name="Approve").click()
    await asyncio.wait_for(run, 20)
    await lab.settle()
    await expect(card).to_have_class("ja-tool ja-st-done ja-terminal")
    await expect(card.locator(".ja-badge")).to_have_text("sandboxed: workspace-write")
    assert not (tmp_path / "build").exists()
