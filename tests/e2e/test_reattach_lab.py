"""Runs outlive the page: a ``--background`` run waits for an approval while the page reloads,
and the reloaded page shows its card, with everything streamed so far and the call still
waiting, whose Approve lets it finish; two pages on one notebook show the same runs, one
decides and the other sees the decision. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import re

import pytest

from .lab import ARTIFACTS, Lab, Session, expect
from .test_lab_runs import set_theme

pytestmark = pytest.mark.browser

SETUP = '''%load_ext jupyter_agents
from jupyter_agents import tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

sent = []

@tool(needs_approval=True)
def send_email(to: str, body: str) -> str:
    """Send an email."""
    sent.append(to)
    return f"Email sent to {to}"

script = [
    [
        text("Drafting the note to Ana first. "),
        tool_call("send_email", {"to": "ana@example.com", "body": "Hi"}),
    ],
    [text("Sent. All done.")],
]
%agent model ScriptedModel(script)'''
CELLS = [SETUP, "%%agent --background --out job\nEmail Ana.", "sent"]
DONE = re.compile(r"^\[\d+\]:$")


def start(lab: Lab, name: str) -> None:
    lab.write_notebook(name, CELLS)
    lab.open(name)
    lab.run_cell(0)
    expect(lab.prompt(0)).to_have_text(DONE)
    lab.run_cell(1)
    expect(lab.cell(1).locator(".ja-tool.ja-st-waiting")).to_be_visible()


def test_reload_mid_run_shows_the_card_and_its_approve_works(session: Session) -> None:
    with session.lab("e2e-reattach-reload") as lab:
        start(lab, "reattach.ipynb")
        lab.reload_page("reattach.ipynb")
        card = lab.cell(1).locator(".ja-tool.ja-st-waiting")
        expect(card).to_be_visible()
        lab.screenshot("reattach-after-reload")
        expect(lab.outputs(1)).to_contain_text("Drafting the note to Ana first.")
        card.get_by_role("button", name="Approve", exact=True).click()
        expect(lab.outputs(1)).to_contain_text("Sent. All done.")
        lab.run_cell(2)
        expect(lab.outputs(2)).to_contain_text("['ana@example.com']")
        assert lab.errors == [], lab.errors


def test_two_pages_show_the_run_and_one_decision_reaches_both(session: Session) -> None:
    with session.lab("e2e-reattach-first") as first, session.lab("e2e-reattach-second") as second:
        start(first, "two_pages.ipynb")
        second.open("two_pages.ipynb")  # a second window on the same notebook and kernel
        there = second.cell(1).locator(".ja-tool.ja-st-waiting")
        expect(there).to_be_visible()
        expect(second.outputs(1)).to_contain_text("Drafting the note to Ana first.")
        second.screenshot("reattach-second-window")
        there.get_by_role("button", name="Approve", exact=True).click()
        for lab in (first, second):  # the decision is the kernel's: both pages show it
            card = lab.cell(1).locator(".jp-OutputArea")  # (the first also shows the handle)
            expect(card).to_contain_text("Sent. All done.")
            expect(card).to_contain_text(re.compile("approved", re.I))
            expect(lab.cell(1).get_by_role("button", name="Approve", exact=True)).to_have_count(0)
        first.run_cell(2)
        expect(first.outputs(2)).to_have_text(re.compile(r"\['ana@example.com'\]"))  # once
        assert first.errors == [] and second.errors == [], (first.errors, second.errors)


def test_a_running_cell_closed_and_reopened_shows_its_card_in_the_dark_theme(
    session: Session,
) -> None:
    cells = [SETUP, "%%agent\nEmail Ana.", "sent"]  # a run in the foreground: the kernel is busy
    with session.lab("e2e-reattach-reopen") as lab:
        lab.write_notebook("reopen.ipynb", cells)
        lab.open("reopen.ipynb")
        set_theme(lab, True)
        lab.run_cell(0)
        expect(lab.prompt(0)).to_have_text(DONE)
        lab.run_cell(1)
        expect(lab.cell(1).locator(".ja-tool.ja-st-waiting")).to_be_visible()
        lab.close_and_reopen("reopen.ipynb")
        card = lab.cell(1).locator(".ja-tool.ja-st-waiting")
        expect(card).to_be_visible()
        lab.cell(1).screenshot(path=str(ARTIFACTS / "reattach-reopened-dark.png"))
        card.get_by_role("button", name="Reject", exact=True).click()
        expect(lab.outputs(1)).to_contain_text(re.compile("rejected", re.I))
        expect(lab.outputs(1)).to_contain_text("Sent. All done.")  # the script's next turn
        lab.run_cell(2)
        expect(lab.outputs(2)).to_have_text("[]")  # rejected: nothing was sent
        set_theme(lab, False)
        assert lab.errors == [], lab.errors


ANSWERS_FROM_THE_REQUEST = """
def answer(request):  # from the request, not in turn: a restarted kernel's model starts again
    outputs = [i for i in request.input if isinstance(i, dict) and "output" in i]
    if outputs:
        return text("Sent. All done.")
    return [
        text("Drafting the note to Ana first. "),
        tool_call("send_email", {"to": "ana@example.com", "body": "Hi"}, call_id="e1"),
    ]

%agent model ScriptedModel(respond=answer)"""


def test_a_run_cut_off_by_a_restart_is_resumed_from_the_runs_panel(session: Session) -> None:
    cells = [SETUP + ANSWERS_FROM_THE_REQUEST, "%%agent\nEmail Ana.", "sent"]
    with session.lab("e2e-resume-panel") as lab:
        lab.write_notebook("resume.ipynb", cells)
        lab.open("resume.ipynb")
        lab.run_cell(0)
        expect(lab.prompt(0)).to_have_text(DONE)
        lab.run_cell(1)
        expect(lab.cell(1).locator(".ja-tool.ja-st-waiting")).to_be_visible()
        status = lab.page.locator(".ja-runs-status")
        expect(status).to_have_text("1 running · 1 waiting")
        lab.menu("Kernel", "Restart Kernel…")
        lab.page.locator(".jp-Dialog .jp-mod-accept").click()
        expect(status).to_be_hidden()  # the kernel restarted: its runs are gone from the page
        lab.ready.clear()
        lab.wait_for_kernel("resume.ipynb")
        lab.run_cell(0)  # the tools and the model, defined again
        expect(lab.outputs(0)).to_contain_text("1 run was cut off")
        lab.page.get_by_role("tab", name="Agents").click()
        item = lab.page.locator("#jupyter-agents-runs .ja-run-item").filter(has_text="cut off")
        expect(item).to_have_count(1)
        expect(item.get_by_role("button", name="Resume")).to_be_visible()
        lab.screenshot("resume-panel")
        bar = lab.cell(1).locator(".ja-resume-bar")  # the cut-off run's cell offers it too
        expect(bar).to_contain_text("cut off by a kernel restart")
        for dark in (True, False):
            set_theme(lab, dark)
            lab.cell(1).screenshot(
                path=str(ARTIFACTS / f"resume-bar-{'dark' if dark else 'light'}.png")
            )
        bar.get_by_role("button", name="Resume").click()
        resumed = lab.cell(2)  # a `%agent resume` cell, inserted below the run's cell and run
        expect(resumed.locator(".cm-content")).to_have_text(
            re.compile(r"^%agent resume [0-9a-f]{8}$")
        )
        card = resumed.locator(".ja-tool.ja-st-waiting")
        expect(card).to_be_visible()  # the email was never sent: it is asked for again
        card.get_by_role("button", name="Approve", exact=True).click()
        expect(resumed.locator(".jp-OutputArea")).to_contain_text("Sent. All done.")
        lab.run_cell(3)
        expect(lab.outputs(3)).to_have_text(re.compile(r"\['ana@example.com'\]"))
        expect(bar).to_have_count(0)  # resumed: the bar and the panel's Resume are gone
        expect(item.get_by_role("button", name="Resume")).to_have_count(0)
        assert lab.errors == [], lab.errors
