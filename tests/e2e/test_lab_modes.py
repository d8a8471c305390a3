"""Modes in a real JupyterLab (issue 39): a ``%%agent --mode plan`` cell's plan card, approved
as the person edited it, and the status bar item that shows the notebook's mode and switches
it (by mouse, keyboard and command). Screenshots of the plan card waiting for approval and of
the status bar, light and dark, go to ``test-artifacts/``.
"""

from __future__ import annotations

import re

import pytest

from .lab import ARTIFACTS, Lab, Session, expect
from .test_lab_runs import palette, set_theme

pytestmark = pytest.mark.browser

SETUP = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text, tool_call

plan = {
    "explanation": "Read first, then write.",
    "plan": [
        {"step": "Read the sales table", "status": "pending"},
        {"step": "Plot the monthly totals", "status": "pending"},
    ],
}
demo = ScriptedModel(
    [[tool_call("update_plan", plan, call_id="u1")], [text("Done, as planned.")]], delay=0.02
)
%agent model demo"""
AGENT = "%%agent --mode plan\nSummarise the sales table."
TOLD = 'print(demo.requests[1].input[-1]["output"])'
SETUP_CELL, AGENT_CELL, TOLD_CELL, ASK_CELL, MODE_CELL = range(5)
EDITED = ["Check the columns first", "Write a three-line summary"]
DONE = re.compile(r"^\[\d+\]:$")


def run(lab: Lab, index: int) -> None:
    lab.run_cell(index)
    expect(lab.prompt(index)).to_have_text(DONE)


def mode_said(lab: Lab, mode: str) -> None:
    """``%agent mode`` (its cell run again) answers ``mode``."""
    run(lab, MODE_CELL)
    expect(lab.outputs(MODE_CELL)).to_contain_text(f"jupyter_agents: {mode} mode")


def test_a_plan_card_approved_as_edited_then_the_status_bar_switches_modes(
    session: Session,
) -> None:
    with session.lab("e2e-modes") as lab:
        lab.write_notebook("modes.ipynb", [SETUP, AGENT, TOLD, "%agent mode ask", "%agent mode"])
        lab.open("modes.ipynb")
        run(lab, SETUP_CELL)
        status = lab.page.locator(".ja-mode-status")
        expect(status).to_have_text("Mode: agent")  # the notebook's mode, once the kernel has it

        lab.run_cell(AGENT_CELL)
        card = lab.cell(AGENT_CELL).locator(".ja-tool.ja-st-waiting")
        expect(card).to_be_visible()
        buttons = card.locator("button:visible")
        for label in ("Approve plan", "Edit plan", "Reject plan"):
            expect(buttons.filter(has_text=re.compile(f"^{label}$"))).to_have_count(1)
        expect(lab.cell(AGENT_CELL).locator(".ja-mode").first).to_have_text("plan mode")
        for dark in (False, True):
            theme = "dark" if dark else "light"
            set_theme(lab, dark)
            lab.cell(AGENT_CELL).scroll_into_view_if_needed()
            lab.screenshot(f"lab-modes-plan-card-{theme}")
            lab.cell(AGENT_CELL).screenshot(path=str(ARTIFACTS / f"doc-plan-card-{theme}.png"))
        set_theme(lab, False)

        card.locator("button", has_text=re.compile("^Edit plan$")).click()
        editor = card.get_by_role("textbox", name="The plan, one step per line")
        expect(editor).to_have_value("Read the sales table\nPlot the monthly totals")
        editor.fill("\n".join(EDITED) + "\n")
        lab.cell(AGENT_CELL).screenshot(path=str(ARTIFACTS / "lab-modes-plan-editing-light.png"))
        card.locator("button", has_text=re.compile("^Approve edited plan$")).click()

        expect(lab.prompt(AGENT_CELL)).to_have_text(DONE)
        output = lab.outputs(AGENT_CELL)
        expect(output).to_contain_text("Done, as planned.")
        expect(output.locator(".ja-mode").first).to_have_text("agent mode")  # approved: acts
        run(lab, TOLD_CELL)
        told = lab.outputs(TOLD_CELL)
        for step in EDITED:  # the model got the plan as edited
            expect(told).to_contain_text(step)
        expect(told).not_to_contain_text("Read the sales table")
        expect(status).to_have_text("Mode: agent")  # a cell's --mode is the cell's alone

        run(lab, ASK_CELL)
        expect(status).to_have_text("Mode: ask")
        expect(status).to_have_attribute(
            "aria-label", re.compile("Agent mode of this notebook: ask")
        )
        statusbar = lab.page.locator("#jp-main-statusbar")
        for dark in (False, True):
            theme = "dark" if dark else "light"
            set_theme(lab, dark)
            statusbar.screenshot(path=str(ARTIFACTS / f"lab-modes-statusbar-{theme}.png"))
            status.click()
            menu = lab.page.locator(".lm-Menu.ja-mode-menu")
            expect(menu).to_be_visible()
            lab.screenshot(f"lab-modes-statusbar-menu-{theme}")
            item, shown = status.bounding_box(), menu.bounding_box()
            assert item is not None and shown is not None
            top = shown["y"] - 8
            clip = {"x": 0, "y": top, "width": 520, "height": item["y"] + item["height"] - top}
            lab.page.screenshot(path=str(ARTIFACTS / f"doc-mode-menu-{theme}.png"), clip=clip)
            lab.page.keyboard.press("Escape")
            expect(menu).to_be_hidden()
        set_theme(lab, False)

        # The mouse: the menu's "agent" item.
        status.click()
        menu = lab.page.locator(".lm-Menu.ja-mode-menu")
        checked = menu.locator(".lm-Menu-item.lm-mod-toggled")
        expect(checked).to_have_count(1)
        expect(checked).to_contain_text("Agent Mode: Ask")
        menu.locator(".lm-Menu-item", has_text="Agent Mode: Agent").click()
        expect(status).to_have_text("Mode: agent")
        mode_said(lab, "agent")

        # The keyboard: Enter on the item opens the menu on the current mode; up to "plan".
        status.focus()
        lab.page.keyboard.press("Enter")
        expect(menu).to_be_visible()
        expect(menu.locator(".lm-Menu-item.lm-mod-active")).to_contain_text("Agent Mode: Agent")
        lab.page.keyboard.press("ArrowUp")
        lab.page.keyboard.press("Enter")
        expect(menu).to_be_hidden()
        expect(status).to_have_text("Mode: plan")
        expect(status).to_be_focused()  # focus comes back to the item
        statusbar.screenshot(path=str(ARTIFACTS / "lab-modes-statusbar-plan-light.png"))
        mode_said(lab, "plan")

        # The command palette.
        palette(lab, "Agent Mode: Agent")
        expect(status).to_have_text("Mode: agent")
        mode_said(lab, "agent")
        assert lab.errors == [], lab.errors
