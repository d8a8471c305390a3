"""The lab extension in Notebook 7, where its UI allows: ``%%agent`` cells highlighted as prose,
and an approval notification for a run scrolled out of sight whose Approve works. (Notebook 7
has no right sidebar or status bar for the runs panel.)"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import pytest

from .lab import ARTIFACTS, LabServer, chromium, lab_server, require_browser_tools
from .test_lab_runs import AGENT, AGENT_CELL, FILLER, SETUP, SETUP_CELL

try:
    from playwright.sync_api import expect
except ImportError:  # the fixture skips (or fails under CI) with install instructions
    expect = None

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
