"""The widget without the lab extension: a JupyterLab where ``jupyter-agents`` is disabled (as
in Notebook 7 without it, VS Code, or an old install) still runs a ``%%agent`` cell with its
live widget and Approve button, and the finished cell shows the static HTML transcript."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from .lab import Session, expect, expecting_session
from .test_lab_runs import AGENT, AGENT_CELL, SETUP, SETUP_CELL

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with expecting_session(disabled=("jupyter-agents",)) as s:
        yield s


def test_the_widget_and_the_html_transcript_work_without_the_extension(
    session: Session,
) -> None:
    with session.lab("e2e-without-extension") as lab:
        lab.write_notebook("plain.ipynb", [SETUP, AGENT])
        lab.open("plain.ipynb")
        lab.run_cell(SETUP_CELL)
        expect(lab.prompt(SETUP_CELL)).to_have_text(re.compile(r"^\[\d+\]:$"))
        lab.run_cell(AGENT_CELL)
        card = lab.cell(AGENT_CELL).locator(".ja-tool.ja-st-waiting")
        card.get_by_role("button", name="Approve", exact=True).click()
        expect(lab.prompt(AGENT_CELL)).to_have_text(re.compile(r"^\[\d+\]:$"))

        output = lab.outputs(AGENT_CELL)
        expect(output.locator("details.ja-card")).to_have_count(1)  # the HTML transcript
        expect(output).to_contain_text("sum(range(10))")
        expect(
            lab.page.locator(".ja-saved-run, .ja-runs-status, #jupyter-agents-runs")
        ).to_have_count(0)
        expect(lab.cell(AGENT_CELL).locator(".jp-agent-cell")).to_have_count(0)  # no highlight
        expect(output.locator("button:visible")).to_have_count(0)
        lab.screenshot("e2e-without-extension")
        assert lab.errors == [], lab.errors
