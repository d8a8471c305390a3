"""A long tool's progress bar on its card, in a real JupyterLab with a real kernel: a
``--background`` run's tool reports how far it is and waits; its card shows the bar and the
line while later cells run; a later cell lets it finish, ``await job`` gives the answer and the
bar goes. Screenshots of the card, light and dark, go to ``test-artifacts/``."""

from __future__ import annotations

import re

import pytest

from .lab import ARTIFACTS, Session, expect
from .test_lab_runs import set_theme

pytestmark = pytest.mark.browser

SETUP = '''%load_ext jupyter_agents
import threading
from jupyter_agents import ToolContext, tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

gate = threading.Event()

@tool
def crunch(ctx: ToolContext, files: int) -> str:
    """Crunch the files."""
    ctx.report_progress(2, files, "parsing sales_2026.csv")
    gate.wait(120)
    ctx.report_progress(files, files, "done")
    return f"crunched {files} files"

demo = ScriptedModel([[tool_call("crunch", {"files": 5}, call_id="p1")], [text("All 5 crunched.")]])
%agent model demo'''
CELLS = [
    SETUP,
    "%%agent --background --out job\nCrunch the five files.",
    "gate.set()",
    "(await job).final_output",
]
DONE = re.compile(r"^\[\d+\]:$")


def test_a_background_runs_tool_shows_its_progress_bar(session: Session) -> None:
    with session.lab("e2e-progress", viewport=(1200, 800)) as lab:
        lab.write_notebook("progress.ipynb", CELLS)
        lab.open("progress.ipynb")
        lab.run_cell(0)
        expect(lab.prompt(0)).to_have_text(DONE)
        lab.run_cell(1)
        expect(lab.prompt(1)).to_have_text(DONE)  # returned at once: a background run
        card = lab.cell(1).locator(".ja-tool").filter(has_text="crunch")
        bar = card.locator(".ja-progress")
        expect(bar).to_be_visible()
        expect(bar).to_contain_text("2 of 5 · parsing sales_2026.csv")
        expect(bar.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "40")
        for dark in (False, True):
            set_theme(lab, dark)
            card.screenshot(
                path=str(ARTIFACTS / f"progress-card-{'dark' if dark else 'light'}.png")
            )
        set_theme(lab, False)
        lab.run_cell(2)  # a later cell runs while the tool waits
        lab.run_cell(3)
        expect(lab.outputs(3)).to_contain_text("All 5 crunched.")
        expect(bar).to_be_hidden()  # done: no bar
        assert lab.errors == [], lab.errors
