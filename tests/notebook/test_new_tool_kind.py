"""A tool kind defined in this file alone draws itself in every frontend.

``QueryKind`` is a new kind of tool (a read-only query over a table in memory), registered with
``register_tool_kind`` and described with existing part types only: the query as ``code`` that
shows the call, the rows as ``json`` and a ``text`` line. Nothing in ``jupyter_agents/notebook``
or the widget knows about it; a run through the real loop shows it in the widget (Chromium),
the static transcript and the terminal view. This is the recipe of docs/architecture.md
("Adding a tool kind"), proven.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from typing import Any

from jupyter_agents import Agent, Runner
from jupyter_agents.notebook.view.run_view import RunView
from jupyter_agents.notebook.view.text_view import TextView
from jupyter_agents.runtime.tools.display import DisplayPart, ToolDisplay
from jupyter_agents.runtime.tools.kinds import (
    ParsedCall,
    ToolCapabilities,
    ToolKind,
    register_tool_kind,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call

HOSTILE = "<img src=x onerror=alert(1)>"
SQL = "SELECT city, sky FROM weather WHERE sky = 'sunny'"
ROWS = [{"city": "Paris", "sky": "sunny"}, {"city": HOSTILE, "sky": "sunny"}]


@dataclass
class QueryTool(ToolCapabilities):
    """A read-only query over rows in memory (the tool object of the new kind)."""

    rows: list[dict[str, str]]
    name: str = "query"
    needs_approval: bool = False
    asked: list[str] = field(default_factory=list)

    def run(self, sql: str) -> list[dict[str, str]]:
        self.asked.append(sql)
        wanted = sql.rsplit("=", 1)[-1].strip(" '")
        return [r for r in self.rows if r["sky"] == wanted]


Rows = list[dict[str, str]]


class QueryKind(ToolKind[QueryTool, Rows]):
    """The new kind: offered as a function tool, run here, shown with existing part types."""

    def __init__(self) -> None:
        super().__init__(name="test_query", tool_classes=(QueryTool,), executable=True)

    def responses_param(self, tool: QueryTool) -> dict[str, Any]:
        return {"type": "function", **self.chat_param(tool)["function"]}

    def chat_param(self, tool: QueryTool) -> dict[str, Any]:
        schema = {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}
        return {
            "type": "function",
            "function": {"name": tool.name, "description": "Query.", "parameters": schema},
        }

    def parse_call(self, raw: Any) -> ParsedCall:
        return self.parse_chat_call(raw)

    def parsed_arguments(self, arguments: str) -> dict[str, Any]:
        value = json.loads(arguments or "{}")
        return value if isinstance(value, dict) else {}

    async def invoke(self, tool: QueryTool, ctx: Any, arguments: str) -> Rows:
        return tool.run(str(self.parsed_arguments(arguments).get("sql", "")))

    def output_item(self, call: ParsedCall, value: Rows | str) -> dict[str, Any]:
        return self.chat_output_item(call, json.dumps(value))

    def describe(self, raw: Any, output: object = None) -> ToolDisplay:
        call = self.parse_chat_call(raw)
        arguments = self.parsed_arguments(call.arguments)
        parts = [DisplayPart("code", str(arguments.get("sql", "")), "sql", role="call")]
        if isinstance(output, list):
            parts.append(DisplayPart("json", json.dumps(output, indent=2)))
            parts.append(DisplayPart("text", f"{len(output)} rows"))
        return ToolDisplay(
            kind=self.name,
            title=call.name,
            arguments=arguments,
            parts=tuple(parts),
            badge="read-only",
        )


register_tool_kind(QueryKind())


def agent(*extra: Any) -> tuple[Agent[Any], QueryTool]:
    tool = QueryTool(ROWS)
    calls = [tool_call("query", {"sql": SQL}, "q1")]
    model = ScriptedModel([calls + [tool_call(t.name, a, i) for t, a, i in extra], [text("Two.")]])
    tools = [tool, *(t for t, _a, _i in extra)]
    return Agent(name="a", model=model, tools=tools), tool


async def feed(*views: Any, run_agent: Agent[Any]) -> None:
    """Run ``run_agent`` streamed into every view, as the notebook layer does."""
    result = Runner.run_streamed(run_agent, "go")
    async for event in result.stream_events():
        for view in views:
            view.on_event(event)
    for view in views:
        view.finish("done")


async def test_the_new_kind_is_in_the_transcript_and_the_terminal_view() -> None:
    lines: list[str] = []
    run_agent, tool = agent()
    view = RunView(agent="a", model="m")
    terminal = TextView(agent="a", model="m", write=lines.append)
    await feed(view, terminal, run_agent=run_agent)
    assert tool.asked == [SQL]  # it ran through the loop, as its kind says

    (card,) = [b for b in view.widget.blocks if b.get("kind", "tool") == "tool"]
    assert card["name"] == "query" and card["badge"] == "read-only"
    assert [(p["type"], p.get("role")) for p in card["parts"]] == [
        ("code", "call"),
        ("json", None),
        ("text", None),
    ]

    html = view.transcript_html()
    assert f'<div class="ja-label">code</div><pre>{SQL}</pre>' in html
    assert '"city": "Paris"' in html and "<pre>2 rows</pre>" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img" not in html

    shown = "".join(lines)
    assert f"→ query\n  {SQL}\n" in shown  # the call, as its code part shows it
    assert '← [\n    {\n      "city": "Paris",' in shown and "  2 rows\n" in shown


try:
    from playwright.async_api import expect
except ImportError:  # the browser tests are skipped (or fail under CI) by their marks
    expect = None  # type: ignore[assignment]

from ..prerequisites import needs_bwrap  # noqa: E402
from .test_widget_browser import (  # noqa: E402,F401 (lab and site are fixtures)
    SITE_ROOT,
    Lab,
    drive,
    lab,
    make_view,
    site,
)
from .test_widget_browser import pytestmark as in_chromium  # noqa: E402


def browser(test: Any) -> Any:
    """The marks of the widget's browser tests (Chromium and Playwright, or a skip)."""
    for mark in in_chromium:
        test = mark(test)
    return test


@browser
async def test_the_new_kind_draws_itself_in_the_widget(lab: Lab) -> None:  # noqa: F811
    run_agent, _tool = agent()
    view = make_view()
    await lab.mount(view)
    await drive(view, run_agent)
    await lab.settle()
    card = lab.page.locator(".ja-tool")
    await expect(card.locator(".ja-badge")).to_have_text("read-only")
    await card.locator("summary").first.click()
    await expect(card.locator("pre.ja-code")).to_have_text(SQL)
    await expect(card.locator("pre.ja-code")).to_have_attribute("data-label", "Code")
    await expect(card.locator("pre.ja-args")).to_be_hidden()  # the query stands for them
    rows = card.locator("pre.ja-part-json")
    await expect(rows).to_contain_text('"city": "Paris"')
    await expect(rows).to_contain_text(HOSTILE)  # as text
    await expect(card.locator("pre.ja-part-text")).to_have_text("2 rows")
    assert await lab.page.locator(".ja-run img").count() == 0
    assert not await lab.page.evaluate("window.__pwned")
    assert lab.remote == []


@browser
@needs_bwrap
async def test_the_new_kind_beside_a_shell_card_light_and_dark(
    lab: Lab,  # noqa: F811 (the fixture)
    tmp_path: Any,
) -> None:
    from jupyter_agents import ShellTool

    from .test_shell_card_browser import DARK

    shell = ShellTool(approval_policy="never", sandbox_mode="read-only", workspace=tmp_path)
    command = "printf 'hello \\033[1;32mgreen\\033[0m\\n'"
    run_agent, _tool = agent((shell, {"commands": [command]}, "s1"))
    view = make_view()
    await lab.mount(view)
    await drive(view, run_agent)
    await lab.settle()
    cards = lab.page.locator(".ja-tool")
    await expect(cards).to_have_count(2)
    for i in range(2):
        await cards.nth(i).locator("summary").first.click()
    await expect(cards.nth(1)).to_have_class("ja-tool ja-st-done ja-terminal")
    await expect(cards.nth(1).locator("pre.ja-part-terminal span.ja-fg2")).to_have_text("green")
    await lab.shot("new_kind_and_shell")
    if DARK.exists():
        shutil.copy(DARK, SITE_ROOT[0] / "dark.css")
        await lab.page.evaluate(
            "() => { document.querySelector('link[href=\"theme.css\"]').href = 'dark.css'; }"
        )
        await expect(lab.page.locator("body")).to_have_css("background-color", "rgb(17, 17, 17)")
        await lab.shot("new_kind_and_shell_dark")
