"""The widget's ES module in headless Chromium, without JupyterLab.

A static page (served from a temp dir on 127.0.0.1) imports ``run_view.js`` and renders it with a
fake anywidget model. A bridge plays the kernel's part: it feeds the page the state a real
:class:`RunView` syncs, and hands the page's messages to that view, so each test drives a real run
(``ScriptedModel``) through the whole contract. Every request that is not for the local server is
recorded and refused. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import threading
import typing
from collections.abc import AsyncIterator, Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    RunConfig,
    Runner,
    ToolContext,
    ToolOutputImage,
    tool,
)
from jupyter_agents.notebook.cells.cell_approvals import UNKNOWN_TOOL
from jupyter_agents.notebook.view.run_view import RunView
from jupyter_agents.notebook.view.widget import STATIC
from jupyter_agents.notebook.view.widget_state import PartType
from jupyter_agents.runtime.tools.live_output import tool_output_sink
from jupyter_agents.testing import ScriptedModel, reasoning, text, tool_call

from ..prerequisites import needs

try:
    from playwright.async_api import Page, async_playwright, expect
except ImportError:  # CI installs it; here it is optional
    async_playwright = None  # type: ignore[assignment]

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.browser,
    needs(CHROMIUM.exists(), "Debian's Chromium: apt-get install -y chromium"),
    needs(async_playwright is not None, "Python Playwright: pip install playwright"),
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
THEME = Path(sys.prefix) / "share/jupyter/lab/themes/@jupyterlab/theme-light-extension/index.css"
DARK_THEME = THEME.parents[1] / "theme-dark-extension/index.css"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PAGE = """<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="theme.css"><link rel="stylesheet" href="run_view.css">
<style>body{margin:0;padding:16px;background:var(--jp-layout-color0,#fff)}
#root{width:760px}</style></head><body><div id="root"></div>
<script type="module">
import widget from "./run_view.js";
window.__pwned = false;
window.alert = window.confirm = window.prompt = () => { window.__pwned = true; };
window.mount = (state) => {
  const handlers = new Map();
  const fire = (event, ...args) => (handlers.get(event) || []).forEach((f) => f(...args));
  const model = {
    state, sent: [],
    get: (key) => model.state[key],
    on: (event, f) => handlers.set(event, [...(handlers.get(event) || []), f]),
    off: (event, f) => handlers.set(event, (handlers.get(event) || []).filter((g) => g !== f)),
    send: (msg) => { model.sent.push(JSON.parse(JSON.stringify(msg))); window.pySend?.(msg); },
    emit: (msg) => fire("msg:custom", msg, []),
    set: (patch) => Object.entries(patch).forEach(([k, v]) => {
      model.state[k] = v;
      fire("change:" + k);
    }),
  };
  window.model = model;
  window.cleanup = widget.render({ model, el: document.getElementById("root") });
};
window.ready = true;
</script></body></html>"""


SITE_ROOT: list[Path] = [Path()]
TRANSCRIPT_PAGE = """<!doctype html><html><head><meta charset="utf-8"><script>
window.__pwned = false;
window.alert = window.confirm = window.prompt = () => { window.__pwned = true; };
</script></head>
<body style="margin:0;padding:16px;width:760px;font:14px system-ui">%s</body></html>"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The page and the widget's files, served on 127.0.0.1 (``SITE_ROOT`` holds them)."""
    root = SITE_ROOT[0] = tmp_path_factory.mktemp("site")
    (root / "index.html").write_text(PAGE)
    (root / "theme.css").write_text(THEME.read_text() if THEME.exists() else "")
    for name in ("run_view.js", "run_view.css"):
        shutil.copy(STATIC / name, root / name)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class Lab:
    """One page with the widget, and the fake kernel side of its comm."""

    def __init__(self, page: Page, origin: str) -> None:
        self.page = page
        self.origin = origin
        self.remote: list[str] = []
        self.errors: list[str] = []
        self._queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._pump = asyncio.ensure_future(self._run_pump())

    async def _run_pump(self) -> None:
        """Deliver kernel → page traffic in order, like a comm."""
        while True:
            script, arg = await self._queue.get()
            await self.page.evaluate(script, arg)
            self._queue.task_done()

    async def mount(self, view: RunView | None = None, alive: bool = True, **state: Any) -> None:
        """Render the widget: for ``view`` (bridged, answering hello) or for a fixed ``state``."""
        if view is None:
            await self.page.evaluate("s => mount(s)", state)
            return
        widget = view.widget
        widget.send = lambda content, buffers=None: self.put("m => model.emit(m)", content)
        widget.observe(lambda _change: self.push(view), names=["header", "blocks"])
        if alive:
            await self.page.expose_function("pySend", lambda msg: widget._dispatch(widget, msg, []))
        await self.page.evaluate(
            "s => mount(s)", {"header": widget.header, "blocks": widget.blocks}
        )

    def put(self, script: str, arg: Any) -> None:
        self._queue.put_nowait((script, arg))

    def push(self, view: RunView) -> None:
        self.put("s => model.set(s)", {"header": view.widget.header, "blocks": view.widget.blocks})

    async def settle(self) -> None:
        await self._queue.join()

    async def sent(self) -> list[dict[str, Any]]:
        return list(await self.page.evaluate("() => model.sent"))

    async def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        await self.page.locator(".ja-run").screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.fixture
async def lab(site: str) -> AsyncIterator[Lab]:
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        page = await browser.new_page(viewport={"width": 800, "height": 900})
        harness = Lab(page, site)

        async def route(r: Any) -> None:
            if r.request.url.startswith(site + "/"):
                await r.continue_()
            else:
                harness.remote.append(r.request.url)
                await r.abort()

        await page.route("**/*", route)
        page.on("pageerror", lambda e: harness.errors.append(str(e)))
        page.on("dialog", lambda d: harness.errors.append("dialog: " + d.message))
        await page.goto(site + "/index.html")
        await page.wait_for_function("window.ready === true")
        try:
            yield harness
            assert harness.errors == []
        finally:
            harness._pump.cancel()
            await browser.close()


async def drive(view: RunView, agent: Agent[Any], prompt: str = "go", **kwargs: Any) -> Any:
    """Run ``agent`` streamed into ``view``, as the notebook layer does (the model is told of a
    call to an unknown tool)."""
    kwargs.setdefault("run_config", RunConfig(tool_not_found_behavior=UNKNOWN_TOOL))
    result = Runner.run_streamed(agent, prompt, approval_handler=view.inbox, **kwargs)
    streaming = tool_output_sink.set(view.tool_output_text)  # as the notebook layer does
    try:
        async for event in result.stream_events():
            view.on_event(event)
    finally:
        tool_output_sink.reset(streaming)
    view.set_usage(result.context_wrapper.usage)
    view.finish("done")
    return result


# -- tools used by the runs -------------------------------------------------------------------

VIEWS: dict[str, RunView] = {}
emails: list[dict[str, Any]] = []


@tool
def get_weather(ctx: ToolContext[Any], city: str) -> str:
    """The weather in a city."""
    VIEWS["current"].tool_output_text(ctx.tool_call_id, f"fetching {city}…\n")
    return f"Sunny, 21 °C in {city}"


@tool
def read_log(lines: int) -> str:
    """A long log."""
    return "\n".join(f"line {i}: " + "x" * 60 for i in range(lines))


@tool
def divide(a: float, b: float) -> float:
    """Divide."""
    return a / b


@tool(needs_approval=True)
def send_email(to: str, subject: str) -> str:
    """Send an email."""
    emails.append({"to": to, "subject": subject})
    return f"sent to {to}"


def make_view() -> RunView:
    view = RunView(agent="assistant", model="gpt-test", flush_interval=0.05)
    VIEWS["current"] = view
    return view


STORY = (
    "## Plan\nI will check the **weather** in `Paris`, read the log, and try a division.\n\n"
    "- step one\n- step two with a [link](https://example.org/docs)\n\n"
    "```python\nprint('hello')\n```\n"
)


async def test_streamed_text_and_tool_cards(lab: Lab) -> None:
    view = make_view()
    model = ScriptedModel(
        [
            [
                reasoning("The user wants weather; call the tool."),
                text(STORY),
                tool_call("get_weather", {"city": "Paris"}),
                tool_call("read_log", {"lines": 80}),
                tool_call("divide", {"a": 1, "b": 0}),
            ],
            [text("All done: **21 °C** in Paris.")],
        ],
        delay=0.01,
        chunk_size=3,
    )
    agent = Agent(name="assistant", model=model, tools=[get_weather, read_log, divide])
    await lab.mount(view)
    run = asyncio.ensure_future(drive(view, agent))
    text_block = lab.page.locator(".ja-text").first
    await expect(text_block).to_contain_text("I will check the")
    assert not run.done(), "the text should be on screen while it streams"
    assert await lab.page.locator(".ja-streaming").count() == 1
    await lab.shot("streaming")
    await run
    await lab.settle()

    page = lab.page
    await expect(page.locator(".ja-pill")).to_have_text("done")
    await expect(page.locator(".ja-tool")).to_have_count(3)
    weather, log, division = (page.locator(".ja-tool").nth(i) for i in range(3))
    await expect(weather.locator(".ja-name")).to_have_text("get_weather")
    await expect(weather.locator(".ja-args1")).to_have_text('{"city":"Paris"}')
    assert (await weather.locator(".ja-ms").inner_text()).endswith("ms")
    await expect(weather).to_have_class("ja-tool ja-st-done")
    assert not await weather.locator(".ja-out").is_visible()  # collapsed until clicked
    await weather.locator("summary").first.click()
    await expect(weather.locator(".ja-out")).to_have_text("Sunny, 21 °C in Paris")
    await expect(weather.locator(".ja-args")).to_have_text('{\n  "city": "Paris"\n}')
    await expect(weather.locator(".ja-printed")).to_have_text("fetching Paris…\n")
    await log.locator("summary").first.click()
    assert (await log.locator(".ja-out").inner_text()).startswith("line 0: xxx")
    await expect(division).to_have_class("ja-tool ja-st-error")
    await expect(division.locator(".ja-out")).to_be_visible()  # errors open by themselves
    color = await division.locator(".ja-out").evaluate("e => getComputedStyle(e).color")
    assert color == "rgb(211, 47, 47)"  # --jp-error-color1
    await expect(page.locator(".ja-reasoning")).to_contain_text("Reasoning")
    await expect(page.locator(".ja-text h2")).to_have_text("Plan")
    link = page.locator(".ja-text a")
    assert await link.get_attribute("rel") == "noopener noreferrer nofollow"
    assert await link.get_attribute("target") == "_blank"
    assert await page.locator(".ja-streaming").count() == 0
    await expect(page.locator(".ja-stop")).to_be_hidden()
    await lab.shot("run_done")


async def test_truncated_output_is_flagged(lab: Lab) -> None:
    view = make_view()
    view.max_output_chars = 300
    model = ScriptedModel([[tool_call("read_log", {"lines": 40})], [text("ok")]])
    await lab.mount(view)
    await drive(view, Agent(name="a", model=model, tools=[read_log]))
    await lab.settle()
    card = lab.page.locator(".ja-tool")
    await card.locator("summary").first.click()
    await expect(card.locator(".ja-cut")).to_have_text("Output truncated: 2,789 characters in all.")


async def test_approve_sends_one_decision_and_the_run_goes_on(lab: Lab) -> None:
    emails.clear()
    view = make_view()
    model = ScriptedModel(
        [[tool_call("send_email", {"to": "ana@example.com", "subject": "Hi"}, "c1")], ["Sent."]]
    )
    await lab.mount(view)
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[send_email])))
    card = lab.page.locator(".ja-tool")
    approve = card.get_by_role("button", name="Approve")
    await expect(approve).to_be_enabled()
    await expect(lab.page.locator(".ja-pill")).to_have_text("waiting for approval")
    await expect(card.locator(".ja-args")).to_be_visible()
    await lab.shot("approval_pending")
    await approve.dblclick()
    await asyncio.wait_for(run, 10)
    await lab.settle()
    decisions = [m for m in await lab.sent() if m["type"] == "decision"]
    card_id = next(b["id"] for b in view.widget.blocks if b.get("call_id") == "c1")
    assert decisions == [
        {
            "type": "decision",
            "id": card_id,
            "request": decisions[0]["request"],
            "approved": True,
            "always": False,
        }
    ]  # one decision (a double click sends one), for this card and the request it showed
    assert decisions[0]["request"].startswith("approval-")
    assert emails == [{"to": "ana@example.com", "subject": "Hi"}]
    await expect(card.locator(".ja-decided")).to_have_text("✓ Approved")
    await expect(card).to_have_class("ja-tool ja-st-done")
    await lab.shot("approval_approved")


async def test_reject_with_reason_and_always(lab: Lab) -> None:
    emails.clear()
    view = make_view()
    model = ScriptedModel(
        [[tool_call("send_email", {"to": "x@y.z", "subject": "S"}, "c2")], ["ok"]]
    )
    await lab.mount(view)
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[send_email])))
    card = lab.page.locator(".ja-tool")
    await card.locator(".ja-reason").fill("not to strangers")
    await card.locator(".ja-always input").check()
    await card.get_by_role("button", name="Reject").dblclick()
    await asyncio.wait_for(run, 10)
    await lab.settle()
    decisions = [m for m in await lab.sent() if m["type"] == "decision"]
    assert decisions == [
        {
            "type": "decision",
            "id": next(b["id"] for b in view.widget.blocks if b.get("call_id") == "c2"),
            "request": decisions[0]["request"],
            "approved": False,
            "always": True,
            "message": "not to strangers",
        }
    ]
    assert emails == []
    await expect(card).to_have_class("ja-tool ja-st-rejected")
    await expect(card.locator(".ja-decided")).to_have_text("⊘ Rejected (always): not to strangers")
    view.add_notice("send_email was rejected: later calls are rejected too.", "warning")
    view.flush()
    await lab.settle()
    await lab.shot("approval_rejected")


async def test_always_in_this_notebook_is_sent_with_its_scope_and_shown(lab: Lab) -> None:
    from jupyter_agents.notebook.cells.standing import StandingApprovals

    emails.clear()
    standing = StandingApprovals()
    view = RunView(agent="assistant", model="gpt-test", flush_interval=0.05, standing=standing)
    VIEWS["current"] = view
    model = ScriptedModel(
        [[tool_call("send_email", {"to": "x@y.z", "subject": "S"}, "c3")], ["ok"]]
    )
    await lab.mount(view)
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[send_email])))
    card = lab.page.locator(".ja-tool")
    notebook = card.locator(".ja-always-notebook")
    await expect(notebook).to_be_visible()
    await lab.shot("approval_notebook_scope")
    await notebook.locator("input").check()
    await expect(card.locator(".ja-always input")).to_be_checked()  # it is an "always"
    await card.get_by_role("button", name="Approve").click()
    await asyncio.wait_for(run, 10)
    await lab.settle()
    (decision,) = [m for m in await lab.sent() if m["type"] == "decision"]
    assert decision["always"] is True and decision["scope"] == "notebook"
    assert standing.get("send_email") is True and emails == [{"to": "x@y.z", "subject": "S"}]
    await expect(card.locator(".ja-decided")).to_have_text("✓ Approved (always in this notebook)")


async def test_edit_arguments(lab: Lab) -> None:
    emails.clear()
    view = make_view()
    model = ScriptedModel([[tool_call("send_email", {"to": "a@b.c", "subject": "S"}, "c3")], ["k"]])
    await lab.mount(view)
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[send_email])))
    card = lab.page.locator(".ja-tool")
    await card.get_by_role("button", name="Edit arguments").click()
    editor = card.locator("textarea")
    await expect(editor).to_have_value('{\n  "to": "a@b.c",\n  "subject": "S"\n}')
    await expect(card.locator(".ja-hint")).to_have_text("to: string · subject: string")
    await editor.fill("{not json")
    await card.get_by_role("button", name="Approve with edits").click()
    await expect(card.locator(".ja-err")).to_contain_text("Not valid JSON")
    assert [m for m in await lab.sent() if m["type"] == "decision"] == []
    await editor.fill('{"to": 5}')
    await card.get_by_role("button", name="Approve with edits").click()
    await expect(card.locator(".ja-err")).to_contain_text("subject")  # refused by the kernel
    await expect(card.get_by_role("button", name="Approve with edits")).to_be_enabled()
    await lab.shot("approval_edit_error")
    await editor.fill('{"to": "boss@b.c", "subject": "Edited"}')
    await card.get_by_role("button", name="Approve with edits").click()
    await asyncio.wait_for(run, 10)
    await lab.settle()
    assert emails == [{"to": "boss@b.c", "subject": "Edited"}]
    decisions = [m for m in await lab.sent() if m["type"] == "decision"]
    assert [d.get("arguments") for d in decisions] == [
        {"to": 5},
        {"to": "boss@b.c", "subject": "Edited"},
    ]
    await expect(card.locator(".ja-decided")).to_have_text("✓ Approved with edited arguments")


async def test_stop_sends_once(lab: Lab) -> None:
    view = make_view()
    stops: list[int] = []
    view.on_stop = lambda: stops.append(1)
    await lab.mount(view)
    stop = lab.page.get_by_role("button", name="■ Stop")
    await expect(stop).to_be_enabled()
    await stop.dblclick()
    await expect(lab.page.locator(".ja-stop")).to_have_text("Stopping…")
    await lab.settle()
    assert [m for m in await lab.sent() if m["type"] == "stop"] == [{"type": "stop"}]
    assert stops == [1]
    assert view.rendered.is_set()


PENDING: dict[str, Any] = {
    "header": {
        "v": 1,
        "agent": "assistant",
        "model": "gpt-test",
        "status": "waiting",
        "started_at": 1_700_000_000_000,
        "live": True,
    },
    "blocks": [
        {"id": "t:1", "kind": "text", "rev": 1, "text": "I need to send an email."},
        {
            "id": "k1",
            "kind": "tool",
            "rev": 1,
            "call_id": "c1",
            "name": "send_email",
            "status": "waiting",
            "args": '{\n  "to": "a@b.c"\n}',
            "approval": {
                "state": "pending",
                "request": "approval-1",
                "attempt": 1,
                "interactive": True,
                "arguments": "{}",
            },
        },
    ],
}


async def test_without_a_kernel_nothing_is_clickable(lab: Lab) -> None:
    await lab.mount(**PENDING)  # nobody answers hello
    page = lab.page
    for name in ("Approve", "Reject", "Edit arguments", "■ Stop"):
        await expect(page.get_by_role("button", name=name)).to_be_disabled()
    note = page.locator(".ja-offline")
    await expect(note).to_be_hidden()
    await expect(note).to_be_visible(timeout=4000)
    await expect(note).to_have_text("Not connected to a running kernel: buttons are disabled.")
    await page.get_by_role("button", name="Approve").click(force=True)
    assert await lab.sent() == [{"type": "hello"}]
    await lab.shot("no_kernel")


async def test_saved_finished_run_has_no_buttons(lab: Lab) -> None:
    header = {**PENDING["header"], "status": "done", "live": False, "ended_at": 1_700_000_012_300}
    blocks = [PENDING["blocks"][0]]
    await lab.mount(header=header, blocks=blocks)
    await expect(lab.page.locator(".ja-meta").first).to_have_text("12 s")
    assert await lab.page.locator("button:visible").count() == 0
    await lab.page.wait_for_timeout(2200)
    await expect(lab.page.locator(".ja-offline")).to_be_hidden()


PAYLOADS = [
    "<script>window.__pwned = true</script>",
    '<img src=x onerror="window.__pwned = true">',
    '<img src="https://remote.example/pixel.png">',
    '<svg onload="window.__pwned = true"><circle r="5"/></svg>',
    '<iframe src="javascript:window.__pwned = true"></iframe>',
    '<iframe srcdoc="<script>parent.__pwned = true</script>"></iframe>',
    "<style>body { background: url(https://remote.example/bg.png) }</style>",
    '<link rel="stylesheet" href="https://remote.example/x.css">',
    '<a href="javascript:window.__pwned = true">click</a>',
    '<meta http-equiv="refresh" content="0;url=javascript:window.__pwned=true">',
    "[click](javascript:window.__pwned=true)",
    "[click](JaVaScRiPt:window.__pwned=true)",
    "[click](java\tscript:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[relative](//remote.example/x)",
    "![pixel](https://remote.example/track.png)",
    "![svg](data:image/svg+xml,<svg onload=alert(1)>)",
    "<javascript:alert(1)>",
    "&lt;script&gt;window.__pwned = true&lt;/script&gt;",
    "`<script>alert(1)</script>` and ```<img src=x onerror=alert(1)>```",
    "**<img src=x onerror=alert(1)>**",
]


async def test_injection_payloads_stay_text(lab: Lab) -> None:
    joined = "\n\n".join(PAYLOADS)
    calls = [
        tool_call("echo", {"text": p, "<img src=x onerror=alert(1)>": p}, f"p{i}")
        for i, p in enumerate(PAYLOADS[:6])
    ]
    calls.append(tool_call('<img src=x onerror="window.__pwned=true">', {}, "bad-name"))

    @tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    view = make_view()
    model = ScriptedModel([[reasoning(joined), text(joined), *calls], [text(joined)]])
    await lab.mount(view)
    await drive(view, Agent(name="a", model=model, tools=[echo]))
    view.add_notice(PAYLOADS[1], "error")
    view.flush()
    await lab.settle()
    page = lab.page
    for summary in await page.locator("summary").all():
        if await summary.is_visible():
            await summary.click()
    await page.wait_for_load_state("networkidle")
    await page.wait_for_timeout(300)
    await lab.shot("injection")
    assert await page.evaluate("window.__pwned") is False
    assert lab.remote == []
    bad = await page.evaluate(
        """() => [...document.querySelectorAll('.ja-run *')].flatMap((e) => [
          ...['SCRIPT','IFRAME','SVG','svg','STYLE','LINK','META','OBJECT','EMBED','FORM']
            .filter((t) => e.tagName === t).map((t) => 'tag ' + t),
          // only our own tool-image element, holding inline raster data or nothing
          ...(e.tagName === 'IMG' && !(/^ja-(image|thumb)$/.test(e.className)
                  && (!e.hasAttribute('src') || new RegExp('^data:image/(png|jpeg|gif|webp);'
                      + 'base64,[A-Za-z0-9+/]+=*$').test(e.getAttribute('src'))))
                  ? ['tag IMG'] : []),
          ...[...e.attributes].filter((a) => a.name.startsWith('on')).map((a) => 'attr ' + a.name),
          ...(e.tagName === 'A' && e.hasAttribute('href')
              && !/^(https?:|mailto:)/.test(e.getAttribute('href') || ''))
            ? ['href ' + e.getAttribute('href')] : [],
        ])"""
    )
    assert bad == []
    assert (
        "<script>window.__pwned = true</script>"
        in await page.locator(".ja-text").first.inner_text()
    )


async def test_static_transcripts_are_inert_and_readable(lab: Lab) -> None:
    emails.clear()
    view = make_view()
    model = ScriptedModel(
        [
            [
                text(STORY + "\n\n" + "\n\n".join(PAYLOADS)),
                tool_call("get_weather", {"city": "Paris"}),
                tool_call("read_log", {"lines": 12}),
                tool_call("divide", {"a": 1, "b": 0}),
                tool_call("send_email", {"to": "x@y.z", "subject": PAYLOADS[1]}, "mail"),
            ],
            [text("Done: it is **sunny** in Paris.")],
        ]
    )
    agent = Agent(name="assistant", model=model, tools=[get_weather, read_log, divide, send_email])
    run = asyncio.ensure_future(drive(view, agent))
    while not view.inbox.pending:
        await asyncio.sleep(0.01)
    view.decide("mail", ApprovalDecision.reject("not today"))
    await run
    (SITE_ROOT[0] / "transcript.html").write_text(TRANSCRIPT_PAGE % view.transcript_html())
    page = lab.page
    await page.goto(lab.origin + "/transcript.html")
    for summary in await page.locator("summary").all():
        if await summary.is_visible():
            await summary.click()
    await page.wait_for_load_state("networkidle")
    ARTIFACTS.mkdir(exist_ok=True)
    await page.locator(".jupyter-agents-transcript").screenshot(
        path=str(ARTIFACTS / "transcript_html.png")
    )
    assert await page.evaluate("window.__pwned") is False
    assert lab.remote == []
    tags = await page.evaluate(
        "() => [...new Set([...document.querySelectorAll('body *')].map((e) => e.tagName))]"
    )
    assert {"SCRIPT", "IMG", "IFRAME", "SVG", "LINK", "META"}.isdisjoint(tags)
    styles = await page.evaluate(
        "() => [...document.querySelectorAll('style')].map(s => s.textContent)"
    )
    assert len(styles) == 1 and "url(" not in styles[0] and "@import" not in styles[0]
    text_content = await page.locator(".jupyter-agents-transcript").inner_text()
    assert "get_weather(city='Paris')" in text_content and "float division by zero" in text_content


async def test_no_token_count_before_usage_is_known(lab: Lab) -> None:
    header = {**PENDING["header"], "tokens": {"input": 0, "output": 0, "total": 0}}
    await lab.mount(header=header, blocks=[])
    metas = lab.page.locator(".ja-head .ja-meta")
    assert "tokens" not in " ".join(await metas.all_inner_texts())
    await lab.page.evaluate(
        "() => model.set({header: {...model.state.header, "
        "tokens: {input: 900, output: 334, total: 1234}}})"
    )
    await expect(lab.page.locator(".ja-head")).to_contain_text("1,234 tokens")


async def test_the_printed_box_follows_the_newest_line_until_scrolled_up(lab: Lab) -> None:
    lines = "\n".join(f"step {i}" for i in range(200))
    card = {"id": "k1", "kind": "tool", "rev": 1, "name": "train", "status": "running"}
    await lab.mount(header=PENDING["header"], blocks=[{**card, "printed": lines}])
    page = lab.page
    await page.locator(".ja-tool summary").first.click()
    box = page.locator(".ja-printed")

    async def update(rev: int, text: str) -> None:
        await page.evaluate("b => model.set({blocks: [b]})", {**card, "rev": rev, "printed": text})

    await update(2, lines + "\nstep 200")
    at_end = "e => e.scrollHeight - e.scrollTop - e.clientHeight < 8"
    assert await box.evaluate(at_end)  # followed the newest line
    await box.evaluate("e => { e.scrollTop = 0; }")  # the reader scrolls up
    await page.wait_for_function("document.querySelector('.ja-printed').dataset.up === '1'")
    await update(3, lines + "\nstep 200\nstep 201")
    assert await box.evaluate("e => e.scrollTop") == 0  # left where the reader is


async def test_an_image_output_shows_in_its_card_and_nothing_is_fetched(lab: Lab) -> None:
    png = (  # a 1x1 PNG
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
        "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )

    @tool
    def snapshot() -> ToolOutputImage:
        """A picture."""
        return ToolOutputImage(image_url=f"data:image/png;base64,{png}")

    @tool
    def remote() -> ToolOutputImage:
        """A picture elsewhere."""
        return ToolOutputImage(image_url="https://evil.example/x.png")

    view = make_view()
    model = ScriptedModel([[tool_call("snapshot", {}), tool_call("remote", {})], [text("ok")]])
    await lab.mount(view)
    await drive(view, Agent(name="a", model=model, tools=[snapshot, remote]))
    await lab.settle()
    cards = lab.page.locator(".ja-tool")
    for i in range(2):
        await cards.nth(i).locator("summary").first.click()
    shown = cards.nth(0).locator("img.ja-image")
    await expect(shown).to_be_visible()
    assert await shown.evaluate("img => img.complete && img.naturalWidth") == 1
    await expect(cards.nth(1).locator("img.ja-image")).to_be_hidden()
    assert lab.remote == []


DIFF = "@@ def main():\n-    print('hi')\n+    print('<img src=x onerror=alert(1)>')\n"


async def test_a_patch_card_shows_the_diff_coloured(lab: Lab, tmp_path: Any) -> None:
    from jupyter_agents import ApplyPatchTool, WorkspaceEditor
    from jupyter_agents.testing import output_item

    (tmp_path / "app.py").write_text("def main():\n    print('hi')\n")
    call = output_item(
        {
            "type": "apply_patch_call",
            "id": "ap_1",
            "call_id": "p1",
            "status": "completed",
            "operation": {
                "type": "update_file",
                "path": "app.py",
                "diff": DIFF,
            },
        }
    )
    view = make_view()
    model = ScriptedModel([[call], [text("Patched.")]])
    await lab.mount(view)
    tool = ApplyPatchTool(WorkspaceEditor(tmp_path), approval_policy="on-request")
    await drive(view, Agent(name="a", model=model, tools=[tool]))
    await lab.settle()
    card = lab.page.locator(".ja-tool")
    await card.locator("summary").first.click()
    diff = card.locator("pre.ja-diff")
    await expect(diff.locator(".ja-diff-file")).to_have_text("update_file app.py\n")
    await expect(diff.locator(".ja-diff-del")).to_have_text("-    print('hi')\n")
    await expect(diff.locator(".ja-diff-add")).to_contain_text("<img src=x onerror=alert(1)>")
    assert await card.locator("img").count() == 0  # no image part: no image element at all
    await lab.shot("patch_card")


PART_TYPES = list(typing.get_args(PartType))


async def test_every_part_type_draws_hostile_text_as_text(lab: Lab) -> None:
    joined = "\n".join(PAYLOADS) + "\n\x1b]0;title\x07\x1b[31mred\x1b[0m"
    parts = [
        {"type": t, "text": joined, "cut": 9_999, **({"role": "call"} if i % 2 else {})}
        for i, t in enumerate(PART_TYPES * 2)
    ]
    parts.append({"type": "image", "text": "https://remote.example/x.png"})
    parts.append({"type": "code", "text": joined, "language": "<b onmouseover=x>"})
    header = {"agent": "a", "status": "done", "live": False}
    blocks = [{"id": "k1", "name": "t", "live": "terminal", "printed": joined, "parts": parts}]
    await lab.mount(header=header, blocks=blocks)
    await lab.page.locator(".ja-tool summary").first.click()
    await lab.page.wait_for_load_state("networkidle")
    assert await lab.page.evaluate("window.__pwned") is False
    assert lab.remote == []
    assert await lab.page.locator(".ja-run img").count() == 0  # no part held inline image data
    tags = await lab.page.evaluate(
        "() => [...new Set([...document.querySelectorAll('.ja-parts *')].map((e) => e.tagName))]"
    )
    assert set(tags) <= {"PRE", "SPAN", "DIV", "WBR"}  # WBR: a break point in a long run
    red = lab.page.locator(".ja-parts pre.ja-part-terminal span.ja-fg1")
    await expect(red.first).to_have_text("red")  # a terminal part keeps its colours, as text
    await expect(lab.page.locator(".ja-parts pre.ja-code").first).to_contain_text("<script>")


async def test_a_long_unbroken_run_gets_break_points_and_reads_unchanged(lab: Lab) -> None:
    # Chromium lays out a run without spaces under overflow-wrap: anywhere in time that grows
    # with the square of its length: 200,000 characters of base64 in a reply froze the page,
    # 40,000 took 6.5 s (the same with break points: 27 ms).
    run = "QUJD" * 20_000  # under the markdown's 100,000 characters
    answer = f"The file: {run} (that was it)\n\n`{run[:5000]}`"
    printed = f"out: {run[:20_000]}\n"
    parts = [{"type": t, "text": f"{t}: {run[:30_000]}"} for t in ("text", "terminal", "code")]
    header = {"agent": "a", "status": "failed", "live": False, "detail": f"Error: {run[:9000]}"}
    blocks = [
        {"id": "t1", "kind": "text", "text": answer},
        {
            "id": "k1",
            "name": "t",
            "live": "terminal",
            "printed": printed,
            "parts": parts,
            "args": json.dumps({"data": run[:12_000]}),
            "status": "error",
            "error": {"type": "ValueError", "message": run[:3000], "traceback": run[:4000]},
        },
    ]
    await lab.mount(header=header, blocks=blocks)
    await lab.page.locator(".ja-tool summary").first.click()
    pieces = await lab.page.evaluate(
        """() => {
          const longest = [];
          for (const el of document.querySelectorAll('.ja-run')) {
            const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
            for (let n = walker.nextNode(); n; n = walker.nextNode())
              longest.push(Math.max(0, ...n.data.split(/\\s/).map((w) => w.length)));
          }
          return {longest: Math.max(...longest), breaks: document.querySelectorAll('wbr').length};
        }"""
    )
    assert pieces["longest"] <= 64, pieces  # no piece longer than a break point allows
    assert pieces["breaks"] > len(run) // 16
    page = lab.page  # and the text reads (and copies) as it was
    assert (await page.locator(".ja-text p").first.text_content()) == answer.split("\n")[0]
    assert (await page.locator(".ja-text code").text_content()) == run[:5000]
    assert (await page.locator(".ja-printed").text_content()) == printed
    assert (await page.locator(".ja-detail").text_content()) == f"Error: {run[:9000]}"
    for part in parts:
        box = page.locator(f"pre.ja-part-{part['type']}, pre.ja-code").filter(has_text=part["type"])
        assert (await box.first.text_content()) == part["text"]
    assert await page.evaluate("window.__pwned") is False
    await lab.shot("long_run")
    if DARK_THEME.exists():  # the same in JupyterLab's dark theme
        shutil.copy(DARK_THEME, SITE_ROOT[0] / "dark.css")
        await page.evaluate(
            "() => { document.querySelector('link[href=\"theme.css\"]').href = 'dark.css'; }"
        )
        await expect(page.locator("body")).to_have_css("background-color", "rgb(17, 17, 17)")
        await lab.shot("long_run_dark")


EVIL_CLASSES = "ja-evil jp-mod-hidden lm-mod-hidden"


async def test_state_values_that_become_classes_pick_only_known_ones(lab: Lab) -> None:
    # A saved run in a notebook someone sent is untrusted: a crafted status, level, state or
    # kind must not add classes (JupyterLab's own could hide or restyle its UI).
    header = {"agent": "a", "status": f"done {EVIL_CLASSES}", "live": False}
    blocks = [
        {
            "id": "k1",
            "name": "t",
            "status": f"error {EVIL_CLASSES}",
            "live": f"terminal {EVIL_CLASSES}",
            "parts": [{"type": f"diff {EVIL_CLASSES}", "text": "out"}],
        },
        {"id": "k2", "name": "u", "status": "rejected", "approval": {"state": f"x {EVIL_CLASSES}"}},
        {"id": "n:1", "kind": "notice", "level": f"error {EVIL_CLASSES}", "text": "notice text"},
        {"id": "x:1", "kind": f"text {EVIL_CLASSES}", "label": "odd", "text": "odd kind"},
    ]
    await lab.mount(header=header, blocks=blocks)
    await expect(lab.page.locator(".ja-tool")).to_have_count(2)
    await expect(lab.page.locator(".ja-run")).to_contain_text("odd kind")
    classes = set(
        await lab.page.evaluate(
            "() => [...document.querySelectorAll('*')].flatMap((e) => [...e.classList])"
        )
    )
    assert not {"ja-evil", "jp-mod-hidden", "lm-mod-hidden"} & classes
    assert {"ja-s-unknown", "ja-st-unknown", "ja-a-unknown", "ja-l-info", "ja-event"} <= classes
    assert "ja-part-text" in classes and "ja-terminal" not in classes  # an odd part: text


BACKGROUND_NOTE = (
    "the run was stopped, but a thread cannot be stopped: this card will say what it did"
)
ENDED_NOTE = "finished in the background after the run was stopped: wrote 5 characters"


def stopped_run(card: dict[str, Any]) -> dict[str, Any]:
    """A run that was interrupted during a call to a sync tool, as its final state."""
    header = {**PENDING["header"], "status": "cancelled", "detail": "interrupted", "live": False}
    call = {"id": "k1", "kind": "tool", "call_id": "w1", "name": "write_file", "args": "{}"}
    return {"header": header, "blocks": [{**call, **card}]}


async def test_a_call_left_running_in_the_background_says_so_then_what_it_did(lab: Lab) -> None:
    await lab.mount(**stopped_run({"status": "background", "note": BACKGROUND_NOTE}))
    card = lab.page.locator(".ja-tool")
    await expect(card).to_have_class("ja-tool ja-st-background")
    await expect(card.locator(".ja-tstatus")).to_have_text("still running in the background")
    await expect(card.locator(".ja-icon")).to_have_text("⟳")
    await expect(card.locator(".ja-note")).to_have_text(BACKGROUND_NOTE)
    await lab.shot("background_call_running")
    ended = stopped_run({"status": "done", "note": ENDED_NOTE})
    await lab.page.evaluate("s => model.set(s)", ended)
    await expect(card).to_have_class("ja-tool ja-st-done")
    await expect(card.locator(".ja-note")).to_have_text(ENDED_NOTE)
    await expect(card.locator(".ja-tstatus")).to_be_hidden()
    await lab.shot("background_call_ended")
    await lab.page.evaluate("s => model.set(s)", stopped_run({"status": "cancelled"}))
    await expect(card.locator(".ja-note")).to_be_hidden()  # no note, no line
