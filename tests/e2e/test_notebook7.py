"""The lab extension in Notebook 7, where its UI allows: ``%%agent`` cells highlighted as prose,
an approval notification for a run scrolled out of sight whose Approve works, the notebook
tools, and the chat in the right sidebar answering about the active cell. (Notebook 7 has no
status bar for the runs panel.)"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import pytest

from .lab import ARTIFACTS, LabServer, chromium, expect, lab_server, require_browser_tools
from .test_lab_runs import AGENT, AGENT_CELL, FILLER, SETUP, SETUP_CELL

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def notebook7() -> Iterator[tuple[LabServer, object]]:
    require_browser_tools()
    with lab_server(app="notebook") as server, chromium() as browser:
        expect.set_options(timeout=30_000)
        try:
            yield server, browser
        finally:
            expect.set_options(timeout=5_000)


def test_highlighting_and_notifications_work_in_notebook_7(
    notebook7: tuple[LabServer, object],
) -> None:
    import nbformat

    server, browser = notebook7
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell(c) for c in [SETUP, AGENT, *([FILLER] * 12)]]
    nbformat.write(nb, server.root / "nb7.ipynb")
    page = browser.new_page(viewport={"width": 1200, "height": 900})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(server.url("notebooks/nb7.ipynb"))
        cells = page.locator(".jp-Notebook .jp-Cell")
        expect(cells.first).to_be_visible()
        page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
        expect(page.locator(".cm-editor.jp-agent-cell")).to_have_count(1)  # the prompt cell
        expect(cells.nth(AGENT_CELL).locator(".jp-agent-magic-line")).to_have_count(1)

        for _ in range(3):  # a keystroke sent before the kernel's handshake is dropped
            cells.nth(SETUP_CELL).locator(".cm-content").click()
            page.keyboard.press("Shift+Enter")
            with contextlib.suppress(Exception):
                expect(cells.nth(SETUP_CELL).locator(".jp-InputArea-prompt")).to_have_text(
                    re.compile(r"\[(\d+|\*)\]"), timeout=10_000
                )
                break
        expect(cells.nth(SETUP_CELL).locator(".jp-InputArea-prompt")).to_have_text("[1]:")
        cells.nth(AGENT_CELL).locator(".cm-content").click()
        page.keyboard.press("Control+Enter")
        cells.nth(12).scroll_into_view_if_needed()
        toast = page.locator(".jp-Notification-Toast-warning").filter(
            has_text="wants to run send_email"
        )
        expect(toast).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / "e2e-notebook7-notification.png"))
        toast.get_by_role("button", name="Approve").click()
        expect(toast).to_be_hidden()
        cells.nth(AGENT_CELL).scroll_into_view_if_needed()
        expect(cells.nth(AGENT_CELL).locator(".jp-OutputArea")).to_contain_text(
            "Email sent to ana@example.com"
        )
        ours = [e for e in errors if "agents" in e.lower()]
        assert ours == [], errors
    finally:
        page.close()
        for session in server.sessions():
            with contextlib.suppress(OSError):
                server.api("DELETE", f"sessions/{session['id']}")


def test_the_notebook_tools_read_and_change_cells_in_notebook_7(
    notebook7: tuple[LabServer, object],
) -> None:
    import nbformat

    from jupyter_agents.notebook.workspace.cell_outputs import cell_version

    server, browser = notebook7
    setup = "\n".join(
        [
            "%load_ext jupyter_agents",
            "from jupyter_agents.testing import ScriptedModel, text, tool_call",
            "demo = ScriptedModel([",
            '    [tool_call("list_cells", {}, "l1")],',
            f'    [tool_call("edit_cell", {{"id": "data", "version": "{cell_version("x = 1")}",'
            ' "new_source": "x = 7"}, "e1")],',
            '    [text("Done.")],',
            "])",
            "%agent model demo",
            "%agent tools add notebook",
        ]
    )
    cells = [
        nbformat.v4.new_code_cell(setup),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell("%%agent --approve auto\nChange x."),
        nbformat.v4.new_code_cell("print(demo.requests[1].input[-1]['output'])"),
    ]
    for cell, cell_id in zip(cells, ["setup", "data", "agent", "show"], strict=True):
        cell["id"] = cell_id
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, server.root / "tools7.ipynb")
    page = browser.new_page(viewport={"width": 1200, "height": 900})  # type: ignore[attr-defined]
    try:
        page.goto(server.url("notebooks/tools7.ipynb"))
        shown = page.locator(".jp-Notebook .jp-Cell")
        expect(shown.first).to_be_visible()
        page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
        for index in (0, 2, 3):
            for _ in range(3):  # a keystroke sent before the kernel's handshake is dropped
                shown.nth(index).locator(".cm-content").click()
                page.keyboard.press("Control+Enter")
                with contextlib.suppress(Exception):
                    expect(shown.nth(index).locator(".jp-InputArea-prompt")).to_have_text(
                        re.compile(r"\[\d+\]"), timeout=20_000
                    )
                    break
        expect(shown.nth(1).locator(".cm-content")).to_have_text("x = 7")  # the agent's edit
        expect(shown.nth(3).locator(".jp-OutputArea")).to_contain_text("2. data code: 'x = 1'")
        page.screenshot(path=str(ARTIFACTS / "e2e-notebook7-tools.png"))
    finally:
        page.close()
        for session in server.sessions():
            with contextlib.suppress(OSError):
                server.api("DELETE", f"sessions/{session['id']}")


def test_the_chat_answers_in_notebook_7s_right_sidebar(
    notebook7: tuple[LabServer, object],
) -> None:
    import nbformat

    server, browser = notebook7
    setup = "\n".join(
        [
            "%load_ext jupyter_agents",
            "from jupyter_agents.testing import ScriptedModel, text",
            'chat_model = ScriptedModel([[text("It adds **40 and 2**.")]])',
            "%agent model chat_model",
        ]
    )
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(setup), nbformat.v4.new_code_cell("total = 40 + 2")]
    )
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, server.root / "chat7.ipynb")
    page = browser.new_page(viewport={"width": 1300, "height": 900})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(server.url("notebooks/chat7.ipynb"))
        shown = page.locator(".jp-Notebook .jp-Cell")
        expect(shown.first).to_be_visible()
        page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
        for _ in range(3):  # a keystroke sent before the kernel's handshake is dropped
            shown.nth(0).locator(".cm-content").click()
            page.keyboard.press("Control+Enter")
            with contextlib.suppress(Exception):
                expect(shown.nth(0).locator(".jp-InputArea-prompt")).to_have_text(
                    re.compile(r"\[\d+\]"), timeout=20_000
                )
                break
        shown.nth(1).locator(".cm-content").click()  # the active cell
        page.keyboard.press("Escape")
        page.keyboard.press("Control+Shift+c")  # the command palette
        palette = page.locator(".lm-CommandPalette-input")
        palette.fill("Open Agent Chat")
        palette.press("Enter")
        chat = page.locator("#jupyter-agents-chat")
        expect(chat).to_be_visible()
        expect(chat.locator(".ja-chat-context")).to_contain_text("cell 2")
        box = chat.get_by_role("textbox", name="Message to the agent")
        box.fill("What does this cell do?")
        box.press("Enter")
        expect(chat.locator(".ja-chat-run")).to_contain_text("40 and 2")
        page.screenshot(path=str(ARTIFACTS / "e2e-notebook7-chat.png"))
        ours = [e for e in errors if "agents" in e.lower()]
        assert ours == [], errors
    finally:
        page.close()
        for session in server.sessions():
            with contextlib.suppress(OSError):
                server.api("DELETE", f"sessions/{session['id']}")
