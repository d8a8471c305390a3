"""The notebook's tools served over MCP: a client's call to a tool that needs approval shows its
card in the widget (in Chromium) and waits for the click."""

from __future__ import annotations

import asyncio
import shutil
import sys

import pytest

from jupyter_agents import Agent
from jupyter_agents.mcp import MCPServerStdio, MCPServerStreamableHttp
from jupyter_agents.notebook.toolbox_server import serve_toolbox
from jupyter_agents.testing import ScriptedModel, text, tool_call

from ..mcp.conftest import DEMO
from .test_shell_card_browser import DARK
from .test_widget_browser import (  # noqa: F401 (lab and site are fixtures)
    SITE_ROOT,
    Lab,
    drive,
    emails,
    lab,
    make_view,
    send_email,
    site,
)

pytest.importorskip("playwright")
from playwright.async_api import expect

from ..mcp.results import text_of

pytestmark = pytest.mark.kernel


@pytest.mark.parametrize("click", ["Approve", "Reject"])
async def test_a_remote_call_waits_for_the_click_in_the_notebook(
    lab: Lab,  # noqa: F811 (the fixture)
    click: str,
) -> None:
    emails.clear()
    view = make_view()
    await lab.mount(view)
    served = serve_toolbox([send_email], view=view)
    try:
        remote = MCPServerStreamableHttp({"url": served.url, "headers": served.headers}, name="ide")
        async with remote:
            assert [t.name for t in await remote.list_tools()] == ["send_email"]
            call = asyncio.ensure_future(
                remote.call_tool("send_email", {"to": "ana@example.com", "subject": "Hi"})
            )
            card = lab.page.locator(".ja-tool")
            button = card.get_by_role("button", name=click)
            await expect(button).to_be_enabled(timeout=20_000)
            await expect(card.locator(".ja-args")).to_contain_text("ana@example.com")
            assert not call.done()  # waiting for the person
            if click == "Approve":
                await lab.shot("toolbox_server_approval")
            await button.click()
            result = await asyncio.wait_for(call, 20)
        await lab.settle()
        await expect(lab.page.locator(".ja-pill")).to_have_text("serving")
    finally:
        served.stop()
    await lab.settle()
    if click == "Approve":
        assert text_of(result) == "sent to ana@example.com" and not result.is_error
        assert emails == [{"to": "ana@example.com", "subject": "Hi"}]
        await expect(card).to_have_class("ja-tool ja-st-done")
    else:
        assert result.is_error and emails == []
        await expect(card).to_have_class("ja-tool ja-st-rejected")
    await expect(lab.page.locator(".ja-pill")).to_have_text("done")  # stopping ends the view
    assert lab.remote == []


async def test_an_mcp_card_names_its_server_and_shows_the_annotation(
    lab: Lab,  # noqa: F811 (the fixture)
) -> None:
    """An agent's MCP call: the card says which server and tool it is, and what the server
    says of the tool; the destructive one waits for approval."""
    server = MCPServerStdio({"command": sys.executable, "args": [str(DEMO)]}, name="notes")
    server.require_approval = "destructive"
    view = make_view()
    model = ScriptedModel(
        [
            [
                tool_call("mcp__notes__read_note", {"name": "todo"}, "r1"),
                tool_call("mcp__notes__delete_note", {"name": "todo"}, "d1"),
            ],
            [text("Done.")],
        ]
    )
    await lab.mount(view)
    async with server:
        agent = Agent(name="a", model=model, mcp_servers=[server])
        run = asyncio.ensure_future(drive(view, agent))
        cards = lab.page.locator(".ja-tool")
        await expect(cards.nth(0).locator(".ja-origin")).to_have_text("from notes › read_note")
        await expect(cards.nth(0).locator(".ja-badge")).to_have_text("read-only")
        await expect(cards.nth(1).locator(".ja-badge")).to_have_text("destructive")
        approve = cards.nth(1).get_by_role("button", name="Approve")
        await expect(approve).to_be_enabled()
        await lab.shot("mcp_card_approval")
        if DARK.exists():
            shutil.copy(DARK, SITE_ROOT[0] / "dark.css")
            await lab.page.evaluate(
                "() => { document.querySelector('link[href=\"theme.css\"]').href = 'dark.css'; }"
            )
            await expect(lab.page.locator("body")).to_have_css(
                "background-color", "rgb(17, 17, 17)"
            )
            await lab.shot("mcp_card_approval_dark")
        await approve.click()
        await asyncio.wait_for(run, 20)
    await lab.settle()
    await expect(cards.nth(1)).to_have_class("ja-tool ja-st-done")
