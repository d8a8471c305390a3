"""The lab extension in Notebook 7, where its UI allows: ``%%agent`` cells highlighted as prose,
an approval notification for a run scrolled out of sight whose Approve works, the notebook
tools, and the chat in the right sidebar answering about the active cell. (Notebook 7 has no
status bar for the runs panel.)"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from .lab import ARTIFACTS, LabServer, chromium, expect, lab_server, require_browser_tools
from .test_lab_runs import AGENT, AGENT_CELL, FILLER, SETUP, SETUP_CELL

pytestmark = pytest.mark.browser

SHOW = "print(demo.requests[1].input[-1]['output'])"


@pytest.fixture(scope="module")
def notebook7() -> Iterator[tuple[LabServer, object]]:
    require_browser_tools()
    with lab_server(app="notebook") as server, chromium() as browser:
        expect.set_options(timeout=30_000)
        try:
            yield server, browser
        finally:
            expect.set_options(timeout=5_000)


@dataclass
class Page:
    """A Notebook 7 page on one notebook, its cells, and the page errors that name us."""

    page: Any
    cells: Any
    errors: list[str]

    def run(self, index: int, key: str = "Control+Enter") -> None:
        """Run cell ``index`` and wait until it ran (a keystroke sent before the kernel's
        handshake is dropped: sent again)."""
        prompt = self.cells.nth(index).locator(".jp-InputArea-prompt")
        for _ in range(3):
            self.cells.nth(index).locator(".cm-content").click()
            self.page.keyboard.press(key)
            with contextlib.suppress(Exception):
                expect(prompt).to_have_text(re.compile(r"\[\d+\]"), timeout=20_000)
                break
        expect(prompt).to_have_text(re.compile(r"\[\d+\]"))

    def ours(self) -> list[str]:
        return [e for e in self.errors if "agents" in e.lower()]


@contextlib.contextmanager
def notebook_page(
    notebook7: tuple[LabServer, object],
    name: str,
    sources: list[str],
    ids: list[str] | None = None,
    viewport: tuple[int, int] = (1200, 900),
) -> Iterator[Page]:
    """Write notebook ``name`` of code cells, open it in Notebook 7 and wait for its kernel;
    closed, and its kernel shut down, on the way out."""
    import nbformat

    server, browser = notebook7
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in sources])
    for cell, cell_id in zip(nb.cells, ids or [], strict=False):
        cell["id"] = cell_id
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, server.root / name)
    size = {"width": viewport[0], "height": viewport[1]}
    page = browser.new_page(viewport=size)  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(server.url(f"notebooks/{name}"))
        cells = page.locator(".jp-Notebook .jp-Cell")
        expect(cells.first).to_be_visible()
        page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
        yield Page(page, cells, errors)
    finally:
        page.close()
        for session in server.sessions():
            with contextlib.suppress(OSError):
                server.api("DELETE", f"sessions/{session['id']}")


def test_highlighting_and_notifications_work_in_notebook_7(
    notebook7: tuple[LabServer, object],
) -> None:
    with notebook_page(notebook7, "nb7.ipynb", [SETUP, AGENT, *([FILLER] * 12)]) as nb7:
        page, cells = nb7.page, nb7.cells
        expect(page.locator(".cm-editor.jp-agent-cell")).to_have_count(1)  # the prompt cell
        expect(cells.nth(AGENT_CELL).locator(".jp-agent-magic-line")).to_have_count(1)
        nb7.run(SETUP_CELL, "Shift+Enter")
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
        assert nb7.ours() == [], nb7.errors


def test_the_notebook_tools_read_and_change_cells_in_notebook_7(
    notebook7: tuple[LabServer, object],
) -> None:
    from jupyter_agents.notebook.workspace.cell_outputs import cell_version

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
    sources = [setup, "x = 1", "%%agent --approve auto\nChange x.", SHOW]
    with notebook_page(
        notebook7, "tools7.ipynb", sources, ["setup", "data", "agent", "show"]
    ) as nb7:
        for index in (0, 2, 3):
            nb7.run(index)
        expect(nb7.cells.nth(1).locator(".cm-content")).to_have_text("x = 7")  # the agent's edit
        expect(nb7.cells.nth(3).locator(".jp-OutputArea")).to_contain_text("2. data code: 'x = 1'")
        nb7.page.screenshot(path=str(ARTIFACTS / "e2e-notebook7-tools.png"))


def test_the_chat_answers_in_notebook_7s_right_sidebar(
    notebook7: tuple[LabServer, object],
) -> None:
    setup = "\n".join(
        [
            "%load_ext jupyter_agents",
            "from jupyter_agents.testing import ScriptedModel, text",
            'chat_model = ScriptedModel([[text("It adds **40 and 2**.")]])',
            "%agent model chat_model",
        ]
    )
    with notebook_page(
        notebook7, "chat7.ipynb", [setup, "total = 40 + 2"], viewport=(1300, 900)
    ) as nb7:
        page = nb7.page
        nb7.run(0)
        nb7.cells.nth(1).locator(".cm-content").click()  # the active cell
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
        assert nb7.ours() == [], nb7.errors
