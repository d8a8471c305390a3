"""The lab extension's run features in a real JupyterLab with a real kernel: the Agent runs
panel, the status bar item, approval notifications, saved runs drawn as cards without a kernel,
and "Insert as new cell". Screenshots (light and dark) go to ``test-artifacts/``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .lab import ARTIFACTS, Lab, Session, expect

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

answer = """Done. Here is the code to do it yourself:

```python
total = sum(range(10))
print(total)
```
"""
script = [
    [tool_call("send_email", {"to": "ana@example.com", "body": "Hi"})],
    [text(answer)],
]
%agent model ScriptedModel(script, delay=0.02)'''
AGENT = "%%agent\nEmail Ana, then show me how to add up 0..9."
FILLER = "# filler cell\n" + "\n".join(f"x{i} = {i}" for i in range(40))
SETUP_CELL, AGENT_CELL = 0, 1
CODE = "total = sum(range(10))\nprint(total)"


def start_waiting_run(lab: Lab, name: str, cells: list[str]) -> None:
    """Open a notebook, run its setup and agent cells; return when the call waits."""
    lab.write_notebook(name, cells)
    lab.open(name)
    lab.run_cell(SETUP_CELL)
    expect(lab.prompt(SETUP_CELL)).to_have_text(re.compile(r"^\[\d+\]:$"))
    lab.run_cell(AGENT_CELL)
    card = lab.cell(AGENT_CELL).locator(".ja-tool.ja-st-waiting")
    expect(card).to_be_visible()


def runs_panel(lab: Lab) -> Any:
    return lab.page.locator("#jupyter-agents-runs")


def set_theme(lab: Lab, dark: bool) -> None:
    name = "JupyterLab Dark" if dark else "JupyterLab Light"
    if lab.page.locator(f"body[data-jp-theme-name='{name}']").count() == 0:
        lab.menu("Settings", "Theme", name)
    expect(lab.page.locator(f"body[data-jp-theme-name='{name}']")).to_have_count(1)
    expect(lab.page.locator("#jupyterlab-splash")).to_have_count(0)  # the theme's splash


def test_the_panel_lists_the_run_and_its_approve_lets_the_cell_finish(session: Session) -> None:
    with session.lab("e2e-runs-panel") as lab:
        start_waiting_run(lab, "panel.ipynb", [SETUP, AGENT])
        status = lab.page.locator(".ja-runs-status")
        expect(status).to_have_text("1 running · 1 waiting")
        status.click()  # opens the panel
        panel = runs_panel(lab)
        expect(panel).to_be_visible()
        item = panel.locator(".ja-run-item")
        expect(item).to_have_count(1)
        expect(item.locator(".ja-run-notebook")).to_have_text("panel.ipynb")
        pending = item.locator(".ja-run-pending")
        expect(pending.locator(".ja-run-tool")).to_have_text("send_email")
        expect(pending.locator(".ja-run-args")).to_contain_text("ana@example.com")
        for dark in (False, True):
            set_theme(lab, dark)
            theme = "dark" if dark else "light"
            lab.screenshot(f"lab-runs-panel-{theme}")
            panel.screenshot(path=str(ARTIFACTS / f"doc-runs-panel-{theme}.png"))  # for docs/
        set_theme(lab, False)

        pending.get_by_role("button", name="Approve").click()

        expect(lab.prompt(AGENT_CELL)).to_have_text(re.compile(r"^\[\d+\]:$"))
        expect(item.locator(".ja-run-status")).to_have_text("done")
        expect(item.locator(".ja-run-pending")).to_have_count(0)
        expect(item.locator(".ja-run-calls")).to_have_text("1 tool call")
        expect(status).to_be_hidden()  # nothing runs any more
        output = lab.outputs(AGENT_CELL)
        expect(output).to_contain_text("Email sent to ana@example.com")  # the cell agrees
        expect(output).to_contain_text(re.compile("approved", re.I))
        assert lab.errors == [], lab.errors


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_notification_asks_for_a_run_out_of_sight_and_its_approve_works(
    session: Session, theme: str
) -> None:
    with session.lab(f"e2e-runs-notification-{theme}") as lab:
        cells = [SETUP, AGENT, *([FILLER] * 12)]
        lab.write_notebook(f"notify_{theme}.ipynb", cells)
        lab.open(f"notify_{theme}.ipynb")
        set_theme(lab, theme == "dark")
        lab.run_cell(SETUP_CELL)
        expect(lab.prompt(SETUP_CELL)).to_have_text(re.compile(r"^\[\d+\]:$"))
        # Run the agent cell and move away from it before the call is asked for.
        lab.cell(AGENT_CELL).locator(".cm-content").click()
        lab.page.keyboard.press("Control+Enter")
        lab.cell(len(cells) - 1).scroll_into_view_if_needed()
        toast = lab.page.locator(".jp-Notification-Toast-warning").filter(
            has_text="wants to run send_email"
        )
        expect(toast).to_be_visible()
        expect(toast).to_be_in_viewport(ratio=1)  # slid in completely
        lab.screenshot(f"lab-runs-notification-{theme}")
        toast.screenshot(path=str(ARTIFACTS / f"doc-runs-notification-{theme}.png"))
        toast.get_by_role("button", name="Approve").click()
        expect(toast).to_be_hidden()
        lab.scroll_to_top(AGENT_CELL)
        expect(lab.outputs(AGENT_CELL)).to_contain_text("Email sent to ana@example.com")
        set_theme(lab, False)  # the theme is a server-side setting: leave it as found
        assert lab.errors == [], lab.errors


def test_a_saved_run_reopened_without_a_kernel_shows_cards_and_inserts_code(
    session: Session,
) -> None:
    with session.lab("e2e-saved-run") as lab:
        start_waiting_run(lab, "saved.ipynb", [SETUP, AGENT])
        card = lab.cell(AGENT_CELL).locator(".ja-tool.ja-st-waiting")
        card.get_by_role("button", name="Approve", exact=True).click()
        expect(lab.prompt(AGENT_CELL)).to_have_text(re.compile(r"^\[\d+\]:$"))
        saved = lab.cell(AGENT_CELL).locator(".ja-saved-run")
        expect(saved.locator(".ja-tool")).to_have_count(1)  # drawn from the run's data
        lab.save(lab.server.root / "saved.ipynb")
        for session_info in lab.server.sessions("saved.ipynb"):
            lab.server.api("DELETE", f"sessions/{session_info['id']}")  # no kernel any more
        lab.reload_from_disk()

        saved = lab.cell(AGENT_CELL).locator(".ja-saved-run")
        expect(saved.locator(".ja-tool .ja-name")).to_have_text("send_email")
        expect(saved.locator(".ja-pill")).to_have_text(re.compile("done", re.I))
        expect(saved.locator("pre code")).to_contain_text("sum(range(10))")
        expect(saved.locator(".ja-stop")).to_be_hidden()
        for dark in (False, True):
            set_theme(lab, dark)
            theme = "dark" if dark else "light"
            lab.cell(AGENT_CELL).scroll_into_view_if_needed()
            lab.screenshot(f"lab-saved-run-{theme}")
            lab.cell(AGENT_CELL).screenshot(path=str(ARTIFACTS / f"doc-saved-run-{theme}.png"))
        set_theme(lab, False)

        saved.get_by_role("button", name="Insert as new cell").click()
        inserted = lab.cell(AGENT_CELL + 1)
        expect(inserted.locator(".cm-content")).to_have_text(re.compile(r"total = sum"))
        expect(inserted.locator(".cm-line")).to_have_count(2)
        assert lab.errors == [], lab.errors


def palette(lab: Lab, label: str) -> None:
    """Run the command ``label`` from the command palette, as a user does."""
    lab.notebook.click(position={"x": 4, "y": 4})
    lab.page.keyboard.press("Control+Shift+c")
    search = lab.page.locator(".lm-CommandPalette-input")
    expect(search).to_be_visible()
    search.fill(label)
    item = lab.page.locator(".lm-CommandPalette-item", has_text=label)
    expect(item.first).to_be_visible()
    lab.page.keyboard.press("Enter")


def test_commands_insert_a_prompt_cell_show_the_run_and_approve_its_call(
    session: Session,
) -> None:
    with session.lab("e2e-runs-commands") as lab:
        start_waiting_run(lab, "commands.ipynb", [SETUP, AGENT, "print('last')"])
        # Show, from the panel: the run's cell becomes the active one.
        lab.cell(2).locator(".cm-content").click()
        lab.page.locator(".ja-runs-status").click()
        runs_panel(lab).get_by_role("button", name="Show").click()
        expect(lab.cell(AGENT_CELL)).to_have_class(re.compile(r"\bjp-mod-active\b"))

        palette(lab, "Approve the Agent Call Waiting in the Active Cell")
        expect(lab.prompt(AGENT_CELL)).to_have_text(re.compile(r"^\[\d+\]:$"))
        expect(lab.outputs(AGENT_CELL)).to_contain_text("Email sent to ana@example.com")

        palette(lab, "Insert %%agent Cell Below")
        inserted = lab.cell(AGENT_CELL + 1)
        expect(inserted.locator(".cm-line").first).to_have_text("%%agent")
        expect(inserted.locator(".cm-editor.jp-agent-cell")).to_have_count(1)  # a prompt cell
        assert lab.errors == [], lab.errors


ASKS = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text, tool_call
question = {"question": "Which chart?", "choices": ["bar", "line"]}
%agent model ScriptedModel([[tool_call("ask_user", question)], [text("A line chart.")]])"""


def test_a_question_out_of_sight_is_answered_in_its_cell_not_approved(session: Session) -> None:
    with session.lab("e2e-runs-question") as lab:
        cells = [ASKS, "%%agent\nChart the sales.", *([FILLER] * 12)]
        lab.write_notebook("question.ipynb", cells)
        lab.open("question.ipynb")
        lab.run_cell(SETUP_CELL)
        expect(lab.prompt(SETUP_CELL)).to_have_text(re.compile(r"^\[\d+\]:$"))
        lab.cell(AGENT_CELL).locator(".cm-content").click()
        lab.page.keyboard.press("Control+Enter")
        lab.cell(len(cells) - 1).scroll_into_view_if_needed()
        toast = lab.page.locator(".jp-Notification-Toast-warning").filter(
            has_text="notebook asks: Which chart?"
        )
        expect(toast).to_be_visible()
        expect(toast.get_by_role("button", name="Approve")).to_have_count(0)  # not an approval
        toast.get_by_role("button", name="Answer").click()  # shows the cell and its form
        form = lab.cell(AGENT_CELL).locator(".ja-question")
        expect(form).to_be_in_viewport()
        form.get_by_label("line").check()
        lab.cell(AGENT_CELL).get_by_role("button", name="Answer").click()
        expect(lab.outputs(AGENT_CELL)).to_contain_text("A line chart.")
        expect(lab.cell(AGENT_CELL).locator(".ja-decided")).to_have_text("✓ Answered: line")
        expect(toast).to_be_hidden()  # decided: the notification went away
        lab.screenshot("lab-runs-question-answered")
        assert lab.errors == [], lab.errors
