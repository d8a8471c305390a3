"""The chat panel in a real JupyterLab with a real kernel: a turn answers with the selected cell
as context (the scripted model's request holds it), a mention completes from the kernel, a chat
run's approval card approves a call that then runs, the thread survives a page reload and a
save and reopen, and hostile thread metadata in a received notebook renders inert. Screenshots
(light and dark) go to ``test-artifacts/``."""

from __future__ import annotations

import re
from typing import Any

import nbformat
import pytest

from .lab import ARTIFACTS, Lab, Session, expect
from .test_lab_runs import set_theme

pytestmark = pytest.mark.browser

SETUP = '''%load_ext jupyter_agents
from jupyter_agents import tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

sent = []
prices = [3, 1, 4, 1, 5]

@tool(needs_approval=True)
def send_email(to: str, body: str) -> str:
    """Send an email."""
    sent.append(to)
    return f"Email sent to {to}"

chat_model = ScriptedModel([
    [text("The cell adds **40 and 2** into `total`.")],
    [tool_call("send_email", {"to": "ana@example.com", "body": "Hi"})],
    [text("I emailed Ana.")],
])
%agent model chat_model'''
CODE = "total = 40 + 2  # the selected cell"
CHECK = (
    "print('sent:', sent)\nprint('context:', 'total = 40 + 2' in chat_model.requests[0].user_text)"
)
SETUP_CELL, CODE_CELL, CHECK_CELL = 0, 1, 2


def chat(lab: Lab) -> Any:
    return lab.page.locator("#jupyter-agents-chat")


def open_chat(lab: Lab) -> Any:
    tab = lab.page.locator(".jp-SideBar .lm-TabBar-tab[data-id='jupyter-agents-chat']")
    if chat(lab).is_hidden():
        tab.click()
    expect(chat(lab)).to_be_visible()
    return chat(lab)


def send(lab: Lab, message: str) -> None:
    """Type and send a turn once the previous turn has finished (Send is disabled while a turn
    runs, and Enter then keeps the text in the box)."""
    expect(chat(lab).locator(".ja-chat-send")).to_be_enabled()
    box = chat(lab).get_by_role("textbox", name="Message to the agent")
    box.fill(message)
    box.press("Enter")


def start(lab: Lab, name: str) -> None:
    lab.write_notebook(name, [SETUP, CODE, CHECK])
    lab.open(name)
    lab.run_cell(SETUP_CELL)
    expect(lab.prompt(SETUP_CELL)).to_have_text(re.compile(r"^\[\d+\]:$"))


def test_the_chat_answers_with_the_selected_cell_and_completes_a_mention(
    session: Session,
) -> None:
    with session.lab("e2e-chat-context", viewport=(1400, 900)) as lab:
        start(lab, "chat.ipynb")
        lab.cell(CODE_CELL).locator(".cm-content").click()  # the active cell
        panel = open_chat(lab)
        expect(panel.locator(".ja-chat-context")).to_contain_text("cell 2")
        expect(panel.get_by_role("combobox", name=re.compile("Mode"))).to_have_value("agent")

        box = panel.get_by_role("textbox", name="Message to the agent")
        box.fill("")
        box.press_sequentially("Use @var:pri")
        option = panel.get_by_role("option").filter(has_text="@var:prices")
        expect(option).to_be_visible()  # named by the kernel, over the chat comm
        expect(option).to_contain_text("list")
        box.press("Enter")  # takes the completion
        expect(box).to_have_value("Use @var:prices ")

        send(lab, "What does this cell do? {not interpolated}")
        user = panel.locator(".ja-chat-user")
        expect(user).to_contain_text("What does this cell do? {not interpolated}")
        run = panel.locator(".ja-chat-run")
        expect(run).to_contain_text("40 and 2")
        expect(run.locator(".ja-saved-run")).to_have_count(1)  # finished: its saved form
        lab.run_cell(CHECK_CELL)
        expect(lab.outputs(CHECK_CELL)).to_contain_text("context: True")

        for dark in (False, True):
            set_theme(lab, dark)
            theme = "dark" if dark else "light"
            lab.screenshot(f"lab-chat-{theme}")
            panel.screenshot(path=str(ARTIFACTS / f"doc-chat-{theme}.png"))
        set_theme(lab, False)
        assert lab.errors == [], lab.errors


def test_a_chat_runs_approval_works_and_the_thread_survives_reload_and_reopen(
    session: Session,
) -> None:
    path = session.server.root / "thread.ipynb"
    with session.lab("e2e-chat-thread", viewport=(1400, 900)) as lab:
        start(lab, "thread.ipynb")
        panel = open_chat(lab)
        send(lab, "Explain")
        expect(panel.locator(".ja-chat-run").first).to_contain_text("40 and 2")
        send(lab, 'Email Ana """quotes""" and {braces}')
        card = panel.locator(".ja-chat-run .ja-tool.ja-st-waiting")
        expect(card).to_be_visible()
        card.get_by_role("button", name="Approve", exact=True).click()
        expect(panel.locator(".ja-chat-run").nth(1)).to_contain_text("I emailed Ana.")
        lab.run_cell(CHECK_CELL)
        expect(lab.outputs(CHECK_CELL)).to_contain_text("sent: ['ana@example.com']")
        lab.save(path)

        lab.open("thread.ipynb")  # the page again: the thread comes from the notebook's metadata
        panel = open_chat(lab)
        expect(panel.locator(".ja-chat-user")).to_have_count(2)
        expect(panel.locator(".ja-chat-user").nth(1)).to_contain_text('"""quotes""" and {braces}')
        expect(panel.locator(".ja-chat-run .ja-saved-run")).to_have_count(2)
        expect(panel.locator(".ja-chat-run").nth(1)).to_contain_text("send_email")
        assert lab.errors == [], lab.errors

    saved = nbformat.read(path, as_version=4)
    [thread] = saved.metadata["jupyter_agents"]["threads"]
    assert [m["role"] for m in thread["messages"]] == ["user", "run", "user", "run"]
    with session.lab("e2e-chat-reopen") as lab:  # a new page and kernel: the saved thread
        lab.open("thread.ipynb")
        panel = open_chat(lab)
        expect(panel.locator(".ja-chat-run .ja-saved-run")).to_have_count(2)
        expect(panel.get_by_role("combobox", name="Thread")).to_contain_text("Explain")
        assert lab.errors == [], lab.errors


def test_hostile_thread_metadata_renders_inert(session: Session) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell("1 + 1")]
    hostile_html = '<img src=x onerror="window.__jaPwned=1"><script>window.__jaPwned=2</script>'
    nb.metadata["jupyter_agents"] = {
        "threads": [
            {
                "id": "evil",
                "title": "<b onmouseover=alert(1)>title</b>",
                "messages": [
                    {"role": "user", "text": hostile_html + " {__import__('os')}"},
                    {
                        "role": "run",
                        "outputs": [
                            {"output_type": "display_data", "data": {"text/html": hostile_html}},
                            {
                                "output_type": "display_data",
                                "data": {"application/javascript": "window.__jaPwned=4"},
                            },
                            {
                                "output_type": "display_data",
                                "data": {
                                    "application/vnd.jupyter.widget-view+json": {
                                        "model_id": "nope",
                                        "version_major": 2,
                                        "version_minor": 0,
                                    },
                                    "text/plain": ["a widget that is gone"],
                                },
                            },
                            {"output_type": "evil", "code": "window.__jaPwned=5"},
                        ],
                    },
                    {"role": "system", "text": "ignored"},
                ],
            },
            {"id": "../../x", "title": "bad id", "messages": []},
        ]
    }
    nbformat.write(nb, session.server.root / "hostile.ipynb")
    with session.lab("e2e-chat-hostile") as lab:
        lab.open("hostile.ipynb")
        panel = open_chat(lab)
        user = panel.locator(".ja-chat-user .ja-chat-text")
        expect(user).to_have_text(hostile_html + " {__import__('os')}")  # as text
        expect(panel.locator(".ja-chat-run")).to_contain_text("a widget that is gone")
        assert panel.locator("script, img[onerror], b[onmouseover]").count() == 0
        assert lab.page.evaluate("window.__jaPwned") is None
        expect(panel.get_by_role("combobox", name="Thread").locator("option")).to_have_count(1)
        assert "system" not in panel.inner_text()
        assert lab.errors == [], lab.errors
