"""notebooks/copilot.ipynb as a person uses it in a real JupyterLab, offline: Run All, with its
plan card approved, goes past the cell that fails on purpose to the end; then the chat explains
the active cell, Fix on the failing cell proposes an edit that, approved, makes it run, and
Ctrl+I writes the empty cell, all answered by the notebook's scripted demo model. A screenshot
of the notebook after all three, light and dark, goes to ``test-artifacts/``."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest

from .lab import Session, expect
from .test_assist_lab import approve
from .test_chat_lab import open_chat, send
from .test_lab_runs import set_theme

pytestmark = pytest.mark.browser

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "copilot.ipynb"
AT = {c.id: i for i, c in enumerate(nbformat.read(NOTEBOOK, as_version=4).cells)}


def test_run_all_then_the_chat_fix_and_ctrl_i_work_offline(session: Session) -> None:
    shutil.copy(NOTEBOOK, session.server.root / NOTEBOOK.name)
    with session.lab("e2e-copilot", viewport=(1400, 1000)) as lab:
        lab.open(NOTEBOOK.name)
        lab.run_all(first=AT["load"])
        plan = lab.cell(AT["plan-run"]).locator(".ja-tool.ja-st-waiting")
        expect(plan).to_be_visible()
        plan.get_by_role("button", name=re.compile("^Approve this plan")).click()
        checked = lab.outputs(AT["plan-check"])
        expect(checked).to_contain_text("mode at the end: agent")
        expect(checked).to_contain_text("the table: {'Paris': 120, 'Lima': 95}")  # as planned
        expect(lab.outputs(AT["fix"])).to_contain_text("ZeroDivisionError")
        expect(lab.outputs(AT["runtime"])).to_contain_text("final output: Reported only")

        lab.cell(AT["data"]).locator(".cm-content").click()  # the active cell
        panel = open_chat(lab)
        send(lab, "What does this cell do?")
        expect(panel.locator(".ja-chat-run")).to_contain_text(
            "orders to a dict of 3 entries (Paris, Oslo, Lima)"
        )

        bad = lab.cell(AT["fix"])
        bad.get_by_role("button", name="Ask the agent to fix this cell").click()
        box = bad.locator(".ja-assist-fix")
        expect(box.locator(".ja-tool").filter(has_text="edit_cell")).to_contain_text(
            "if orders[city]"
        )
        approve(box, "edit_cell")
        approve(box, "run_cells")
        expect(box).to_contain_text("Fixed: a city with no orders")
        expect(bad.locator(".jp-OutputArea-output").last).to_contain_text("'Paris': 10.0")

        empty = lab.cell(AT["write"])
        empty.locator(".cm-content").click()
        lab.page.keyboard.press("Control+i")
        prompt = empty.get_by_role("textbox", name="What should this cell do?")
        prompt.press_sequentially("Rank the cities by revenue")
        prompt.press("Enter")
        written = empty.locator(".ja-assist-generate")
        approve(written, "edit_cell")
        expect(written).to_contain_text("Written: run the cell")
        expect(prompt).to_be_enabled()  # the run has ended
        prompt.press("Escape")
        expect(written).to_have_count(0)
        lab.run_cell(AT["write"])
        expect(lab.outputs(AT["write"])).to_contain_text("('Paris', 120), ('Lima', 95)")

        for dark in (False, True):
            set_theme(lab, dark)
            lab.screenshot(f"copilot-notebook-{'dark' if dark else 'light'}")
        set_theme(lab, False)
        assert lab.errors == [], lab.errors
