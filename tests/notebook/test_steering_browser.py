# ruff: noqa: F811  (the page fixtures are imported from test_widget_browser by name)
"""A steerable run in the widget in headless Chromium: the plan's checklist updated in place
and a question answered through its form, with screenshots in the light and dark themes."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import Agent, AskUserTool, PlanTool
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.scripted import ScriptedOutput

from ..recorded import scripted_requests
from .test_widget_browser import Lab, drive, lab, make_view, site  # noqa: F401  (fixtures)

try:
    from playwright.async_api import expect
except ImportError:  # the module's marks skip these tests then
    expect = None  # type: ignore[assignment]

pytestmark = pytest.mark.browser
DARK = Path(sys.prefix) / "share/jupyter/lab/themes/@jupyterlab/theme-dark-extension/index.css"
FORM = {
    "type": "object",
    "properties": {
        "table": {"type": "string", "enum": ["sales", "returns"], "title": "Table"},
        "rows": {"type": "integer", "title": "Rows"},
        "fresh": {"type": "boolean", "title": "Reload"},
    },
    "required": ["table"],
}


def plan(*statuses: str) -> dict[str, Any]:
    steps = ["Load the sales table", "Check the totals", "Write the summary"]
    return {"plan": [{"step": s, "status": st} for s, st in zip(steps, statuses, strict=True)]}


async def both_themes(lab: Lab, name: str) -> None:
    """Screenshot the run in the light theme, then in the dark one (and back)."""
    await lab.shot(f"{name}-light")
    style = await lab.page.add_style_tag(content=DARK.read_text() if DARK.exists() else "")
    await lab.page.evaluate("document.body.style.background = 'var(--jp-layout-color0)'")
    await lab.shot(f"{name}-dark")
    await style.evaluate("s => s.remove()")


async def test_the_plan_is_a_checklist_updated_in_place(lab: Lab) -> None:
    view = make_view()
    turns: list[list[ScriptedOutput]] = [
        [tool_call("update_plan", plan("in_progress", "pending", "pending"), "p1")],
        [tool_call("ask_user", {"question": "Which table?", "form": FORM}, "q1")],
        [tool_call("update_plan", plan("completed", "in_progress", "pending"), "p2")],
        [text("The totals check out.")],
    ]
    agent = Agent(name="a", model=ScriptedModel(turns), tools=[PlanTool(), AskUserTool()])
    await lab.mount(view)
    run = asyncio.ensure_future(drive(view, agent))
    checklist = lab.page.locator(".ja-plan")
    await expect(checklist.locator(".ja-plan-count")).to_have_text("0/3")
    steps = checklist.locator(".ja-step")
    await expect(steps).to_have_count(3)
    await expect(steps.nth(0)).to_have_class("ja-step ja-step-in_progress")
    first = await steps.nth(0).element_handle()

    # The run waits on the question: the form shows it, with one input per field.
    card = lab.page.locator(".ja-tool").nth(1)  # the plan's card, then the question's
    question = card.locator(".ja-question")
    await expect(question.locator(".ja-q-text")).to_have_text("Which table?")
    await expect(question.locator(".ja-q-field")).to_have_count(3)
    answer = card.get_by_role("button", name="Answer")
    await expect(answer).to_be_enabled()
    await expect(card.get_by_role("button", name="Skip")).to_be_enabled()
    await expect(card.get_by_role("button", name="Edit arguments")).to_be_hidden()
    await expect(lab.page.locator(".ja-pill")).to_have_text("waiting for your answer")
    await expect(card.locator(".ja-tstatus")).to_have_text("asks you")
    await expect(card.locator(".ja-args1")).to_have_text("Which table?")
    await both_themes(lab, "steering-question")

    await answer.click()  # the required field is empty: the form says so, nothing is sent
    await expect(card.locator(".ja-err")).to_have_text("Table is required.")
    await question.locator("select").select_option("returns")
    await question.locator("input[type=number]").fill("2.5")
    await answer.click()
    await expect(card.locator(".ja-err")).to_have_text("Rows: must be a whole number.")
    await question.locator("input[type=number]").fill("20")
    await answer.click()
    await asyncio.wait_for(run, 15)
    await lab.settle()

    decisions = [m for m in await lab.sent() if m["type"] == "decision"]
    assert [d["answer"] for d in decisions] == [{"table": "returns", "rows": 20, "fresh": False}]
    told = [i for i in scripted_requests(agent)[2].input if i.get("type") == "function_call_output"]
    assert json.loads(told[-1]["output"]) == {"table": "returns", "rows": 20, "fresh": False}

    # The second plan redrew the same list: same elements, new marks.
    await expect(checklist.locator(".ja-plan-count")).to_have_text("1/3")
    await expect(steps.nth(0)).to_have_class("ja-step ja-step-completed")
    await expect(steps.nth(1)).to_have_class("ja-step ja-step-in_progress")
    assert await first.evaluate("(el) => el.isConnected")
    await expect(card.locator(".ja-decided")).to_contain_text("✓ Answered")
    await both_themes(lab, "steering-done")


async def test_choices_are_radio_buttons_and_skip_sends_a_refusal(lab: Lab) -> None:
    view = make_view()
    turns: list[list[ScriptedOutput]] = [
        [tool_call("ask_user", {"question": "Which chart?", "choices": ["bar", "line"]}, "q1")],
        [text("ok")],
    ]
    agent = Agent(name="a", model=ScriptedModel(turns), tools=[AskUserTool()])
    await lab.mount(view)
    run = asyncio.ensure_future(drive(view, agent))
    card = lab.page.locator(".ja-tool")
    await expect(card.locator(".ja-q-choice")).to_have_text(["bar", "line"])
    await card.get_by_role("button", name="Answer").click()
    await expect(card.locator(".ja-err")).to_have_text("Pick one of the choices, or Skip.")
    await card.locator(".ja-reason").fill("no chart today")
    await card.get_by_role("button", name="Skip").click()
    await asyncio.wait_for(run, 15)
    await expect(card.locator(".ja-decided")).to_have_text("⊘ Skipped: no chart today")
    told = [i for i in scripted_requests(agent)[1].input if i.get("type") == "function_call_output"]
    assert told[-1]["output"].endswith("Reason: no chart today")
