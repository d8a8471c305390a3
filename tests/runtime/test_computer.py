"""The computer tool with a real browser (BrowserComputer: Playwright and Debian's Chromium)
against a page a local HTTP server serves; the model loop with scripted computer calls; safety
checks through approvals; both wire formats with the real openai client over HTTP."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import openai
import psutil
import pytest

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    BrowserComputer,
    ComputerTool,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    ToolCallOutputItem,
    UserError,
)
from jupyter_agents.runtime.tools.computer.browser_computer import find_chromium
from jupyter_agents.testing import ScriptedModel, output_item, tool_call
from jupyter_agents.testing.server import (
    FakeOpenAIServer,
    Reply,
    ReplyItem,
    ReplyText,
    ReplyToolCall,
)

from ..prerequisites import fail_or_skip
from ..recorded import json_bodies

pytestmark = pytest.mark.browser

PAGE = b"""<!doctype html><html><body style="margin:0;height:3000px">
<button id="go" style="position:absolute;left:100px;top:100px;width:120px;height:40px"
 onclick="document.getElementById('said').textContent='clicked'">Go</button>
<input id="box" style="position:absolute;left:100px;top:200px;width:200px;height:30px">
<p id="said" style="position:absolute;left:100px;top:300px">not yet</p>
</body></html>"""


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()


@pytest.fixture
async def browser(site: str) -> AsyncIterator[BrowserComputer]:
    if find_chromium() is None:
        fail_or_skip("no Chromium on PATH (apt-get install chromium)")
    computer = BrowserComputer(site, width=800, height=600)
    try:
        yield await computer.start()
    finally:
        await computer.close()


def click(x: int, y: int, call_id: str = "c1", checks: list[dict[str, Any]] | None = None) -> Any:
    return output_item(
        {
            "type": "computer_call",
            "id": f"cu_{call_id}",
            "call_id": call_id,
            "status": "completed",
            "action": {"type": "click", "x": x, "y": y, "button": "left"},
            "pending_safety_checks": checks or [],
        }
    )


async def said(computer: BrowserComputer) -> str:
    return str(await computer.page.text_content("#said"))


async def test_the_browser_clicks_types_scrolls_and_shows_the_screen(
    browser: BrowserComputer,
) -> None:
    await browser.click(160, 120, "left")
    assert await said(browser) == "clicked"
    await browser.click(150, 215, "left")
    await browser.type("hello")
    assert await browser.page.input_value("#box") == "hello"
    await browser.keypress(["CTRL", "A"])
    await browser.keypress(["BACKSPACE"])
    assert await browser.page.input_value("#box") == ""
    await browser.scroll(400, 300, 0, 500)
    assert await browser.page.evaluate("window.scrollY") > 0
    png = base64.b64decode(await browser.screenshot())
    assert png.startswith(b"\x89PNG") and len(png) > 1000


async def test_the_model_loop_clicks_and_gets_the_screenshot_back(
    browser: BrowserComputer,
) -> None:
    model = ScriptedModel([[click(160, 120)], ["It says clicked."]])
    agent = Agent(name="c", model=model, tools=[ComputerTool(browser)])
    result = await Runner.run(agent, "Press Go.")
    assert await said(browser) == "clicked"
    sent = model.requests[1].input[-1]
    assert sent["type"] == "computer_call_output" and sent["call_id"] == "c1"
    assert sent["output"]["image_url"].startswith("data:image/png;base64,iVBOR")
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem) and output.status == "ok"


async def test_safety_checks_wait_for_a_person_and_are_acknowledged(
    browser: BrowserComputer,
) -> None:
    check = {"id": "sc1", "code": "malicious_instructions", "message": "Odd page text."}
    model = ScriptedModel([[click(160, 120, checks=[check])], ["done"]])
    agent = Agent(name="c", model=model, tools=[ComputerTool(browser)])
    paused = await Runner.run(agent, "Press Go.")
    assert [i.tool_name for i in paused.interruptions] == ["computer"]
    assert paused.interruptions[0].arguments["pending_safety_checks"] == [check]
    assert await said(browser) == "not yet"  # nothing happened without a decision

    seen: list[Any] = []

    def approve(request: Any) -> ApprovalDecision:
        seen.append(request)
        return ApprovalDecision.approve()

    model = ScriptedModel([[click(160, 120, checks=[check])], ["done"]])
    agent = Agent(name="c", model=model, tools=[ComputerTool(browser)])
    await Runner.run(agent, "Press Go.", approval_handler=approve)
    assert len(seen) == 1 and await said(browser) == "clicked"
    assert model.requests[1].input[-1]["acknowledged_safety_checks"] == [check]


async def test_on_safety_check_may_acknowledge_without_asking(browser: BrowserComputer) -> None:
    check = {"id": "sc1", "code": "irrelevant_domain", "message": "Another site."}
    model = ScriptedModel([[click(160, 120, checks=[check])], ["done"]])
    tool = ComputerTool(browser, on_safety_check=lambda data: data.safety_check["id"] == "sc1")
    result = await Runner.run(Agent(name="c", model=model, tools=[tool]), "Press Go.")
    assert not result.interruptions and await said(browser) == "clicked"


async def test_a_rejected_call_does_nothing_and_the_model_sees_the_screen(
    browser: BrowserComputer,
) -> None:
    model = ScriptedModel([[click(160, 120)], ["ok"]])
    tool = ComputerTool(browser, needs_approval=True)
    result = await Runner.run(
        Agent(name="c", model=model, tools=[tool]),
        "Press Go.",
        approval_handler=lambda request: ApprovalDecision.reject("not now"),
    )
    assert await said(browser) == "not yet"
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem) and output.status == "rejected"
    assert model.requests[1].input[-1]["output"]["type"] == "computer_screenshot"


async def test_an_unusable_action_is_told_to_the_model(browser: BrowserComputer) -> None:
    model = ScriptedModel(
        [[tool_call("computer", {"action": {"type": "fly", "x": 1}}, call_id="c1")], ["ok"]]
    )
    result = await Runner.run(Agent(name="c", model=model, tools=[ComputerTool(browser)]), "go")
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem)
    assert output.status == "error" and "not usable" in output.output
    assert "click" in model.requests[1].input[-1]["output"]  # the model is told what exists


def test_a_computer_is_required() -> None:
    with pytest.raises(UserError, match="Computer or AsyncComputer"):
        ComputerTool("chromium")  # type: ignore[arg-type]


@pytest.mark.http
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_over_http_in_both_wire_formats(
    openai_server: FakeOpenAIServer, browser: BrowserComputer, kind: str
) -> None:
    action = {"type": "click", "x": 160, "y": 120, "button": "left"}
    if kind == "responses":
        call: Any = ReplyItem(
            {
                "type": "computer_call",
                "call_id": "c1",
                "status": "completed",
                "action": action,
                "pending_safety_checks": [],
            }
        )
    else:
        call = ReplyToolCall("computer", {"action": action}, call_id="c1")
    openai_server.enqueue(Reply([call]), Reply([ReplyText("Pressed.")]))
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    agent = Agent(
        name="c", model=cls("gpt-test", openai_client=client), tools=[ComputerTool(browser)]
    )
    result = await Runner.run(agent, "Press Go.")
    assert result.final_output == "Pressed." and await said(browser) == "clicked"
    first, second = json_bodies(openai_server.model_requests)
    if kind == "responses":
        assert first["tools"][0]["type"] == "computer_use_preview"
        assert first["tools"][0]["display_width"] == 800
        answer = second["input"][-1]
        assert answer["type"] == "computer_call_output"
        assert answer["output"]["image_url"].startswith("data:image/png;base64,")
    else:
        assert first["tools"][0]["function"]["name"] == "computer"
        assert "data:image/png;base64," in json.dumps(second["messages"])


def test_a_chromium_planted_on_the_path_is_never_the_one_run(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The browser runs unconfined: a sandboxed command must not choose it by planting a
    # `chromium` in a folder on PATH (a venv in the workspace, ./node_modules/.bin, ~/bin).
    if find_chromium() is None:
        fail_or_skip("no Chromium installed (apt-get install chromium)")
    planted = tmp_path / "chromium"
    planted.write_text("#!/bin/sh\ntouch planted-ran\n")
    planted.chmod(0o755)
    monkeypatch.delenv("JUPYTER_AGENTS_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    found = find_chromium()
    assert found is not None and Path(found).parent != tmp_path
    monkeypatch.setenv("JUPYTER_AGENTS_CHROMIUM", str(planted))  # the person's explicit choice
    assert find_chromium() == str(planted)


async def test_the_browser_gets_no_secret_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if find_chromium() is None:
        fail_or_skip("no Chromium installed (apt-get install chromium)")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-in-the-browser")
    monkeypatch.setenv("DATABASE_URL", "postgresql://ana:hunter2@db/x")
    computer = BrowserComputer(width=400, height=300)
    try:
        await computer.start()
        browsers = [
            p for p in psutil.Process().children(recursive=True) if "chrom" in p.name().lower()
        ]
        environments = [p.environ() for p in browsers]  # what its pages' processes inherit
    finally:
        await computer.close()
    assert any("HOME" in env for env in environments)  # the browser's own environment seen
    for env in environments:
        assert "OPENAI_API_KEY" not in env and "DATABASE_URL" not in env
