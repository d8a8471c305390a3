"""The evaluation report widget's ES module in headless Chromium, without JupyterLab.

A static page imports ``eval_report.js`` and renders it with a fake anywidget model holding
the state ``eval_view`` makes from a real evaluation (a scripted agent over a small dataset,
scored by pydantic-evals' evaluators and ours). Hostile text in the dataset and the answers
stays text; every request not for the local server is refused. Screenshots (light and dark)
go to ``test-artifacts/``.
"""

from __future__ import annotations

import re
import shutil
import threading
from collections.abc import AsyncIterator, Iterator
from functools import partial
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from jupyter_agents import Agent, tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

from ..prerequisites import needs
from .test_steering_browser import DARK
from .test_widget_browser import ARGS, ARTIFACTS, CHROMIUM, THEME, _Quiet

pytest.importorskip("pydantic_evals", reason="the evals extra: pip install 'jupyter_agents[evals]'")
from pydantic_evals.evaluators import EqualsExpected, IsInstance

from jupyter_agents.evals import ToolTrajectory, compare, evaluate
from jupyter_agents.notebook.view.eval_view import comparison_state, report_state
from jupyter_agents.notebook.view.widget import STATIC

try:
    from playwright.async_api import Page, async_playwright, expect
except ImportError:  # the marks of test_widget_browser skip these tests then
    async_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.browser,  # missing Chromium or Playwright: a skip here, a failure under CI
    needs(CHROMIUM.exists(), "Debian's Chromium: apt-get install -y chromium"),
    needs(async_playwright is not None, "Python Playwright: pip install playwright"),
]
HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
PAGE = """<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="theme.css"><link rel="stylesheet" href="eval_report.css">
<style>body{margin:0;padding:16px;background:var(--jp-layout-color0,#fff)}
#root{width:860px}</style></head><body><div id="root"></div>
<script type="module">
import widget from "./eval_report.js";
window.__pwned = false;
window.alert = window.confirm = window.prompt = () => { window.__pwned = true; };
window.mount = (state) => {
  const handlers = new Map();
  const model = {
    state,
    get: (key) => model.state[key],
    on: (event, f) => handlers.set(event, [...(handlers.get(event) || []), f]),
    off: (event, f) => handlers.set(event, (handlers.get(event) || []).filter((g) => g !== f)),
  };
  window.cleanup = widget.render({ model, el: document.getElementById("root") });
};
window.ready = true;
</script></body></html>"""

QUESTIONS = {
    "capital of France": "Paris",
    "2 + 2": "4",
    "colour of the sky": "blue",
    "capital of Japan": "Tokyo",
    HOSTILE: "inert",
}


@tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"notes on {topic}"


def agent(answers: dict[str, str]) -> Agent[Any]:
    """An agent that looks each question up, then answers from ``answers``."""
    turns: list[Any] = []
    for question, answer in answers.items():
        turns += [[tool_call("lookup", {"topic": question})], [text(answer)]]
    return Agent(name="quiz", model=ScriptedModel(turns), tools=[lookup])


def dataset() -> pd.DataFrame:
    return pd.DataFrame(
        {"input": list(QUESTIONS), "expected": list(QUESTIONS.values())},
        index=["france", "sum", "sky", "japan", "hostile"],
    )


def run_eval(answers: dict[str, str], name: str, tmp: Path) -> Any:
    scorers = [
        EqualsExpected(),
        IsInstance(type_name="str"),
        ToolTrajectory(must_call=("lookup",), max_calls=1),
    ]
    return evaluate(
        agent(answers),
        dataset(),
        scorers=scorers,
        concurrency=1,
        name=name,
        cache=tmp / "store.sqlite",
        progress=None,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("evalsite")
    (root / "index.html").write_text(PAGE)
    (root / "theme.css").write_text(THEME.read_text() if THEME.exists() else "")
    for name in ("eval_report.js", "eval_report.css"):
        shutil.copy(STATIC / name, root / name)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
async def page(site: str) -> AsyncIterator[Page]:
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        page = await browser.new_page(viewport={"width": 900, "height": 900})
        remote: list[str] = []
        errors: list[str] = []

        async def route(r: Any) -> None:
            if r.request.url.startswith(site + "/"):
                await r.continue_()
            else:
                remote.append(r.request.url)
                await r.abort()

        await page.route("**/*", route)
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(site + "/index.html")
        await page.wait_for_function("window.ready === true")
        yield page
        assert not errors, errors
        assert not remote, remote
        assert await page.evaluate("window.__pwned") is False
        assert await page.locator("#root img, #root script").count() == 0
        await browser.close()


async def shots(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    await page.locator(".ja-ev").screenshot(path=str(ARTIFACTS / f"{name}-light.png"))
    style = await page.add_style_tag(content=DARK.read_text() if DARK.exists() else "")
    await page.locator(".ja-ev").screenshot(path=str(ARTIFACTS / f"{name}-dark.png"))
    await style.evaluate("s => s.remove()")


async def test_the_report_puts_failures_first_and_opens_a_case(page: Page, tmp_path: Path) -> None:
    answers = dict(QUESTIONS) | {"colour of the sky": "green", HOSTILE: HOSTILE}
    report = run_eval(answers, "quiz v1", tmp_path)
    await page.evaluate("s => mount({report: s})", report_state(report))

    await expect(page.locator(".ja-ev-title")).to_have_text("quiz v1")
    await expect(page.locator(".ja-ev-summary")).to_contain_text("5 cases · 3 passed")
    chips = page.locator(".ja-ev-chip")
    await expect(chips).to_have_count(len(report.averages()))
    await expect(chips.filter(has_text="EqualsExpected")).to_contain_text("60.0 %")
    rows = page.locator(".ja-ev-row")
    await expect(rows).to_have_count(5)
    # The two failing cases come first, marked as failing.
    await expect(rows.nth(0)).to_have_class(re.compile("ja-ev-fail"))
    await expect(rows.nth(1)).to_have_class(re.compile("ja-ev-fail"))
    await expect(rows.nth(2)).to_have_class(re.compile("ja-ev-pass"))
    hostile = rows.filter(has_text="onerror")
    await expect(hostile.locator(".ja-ev-name")).to_have_text("hostile")

    await hostile.click()  # opens the case: texts, scores with reasons, the tool call's card
    detail = page.locator(".ja-ev-detail")
    await expect(detail).to_have_count(1)
    await expect(detail.locator(".ja-ev-pre").first).to_have_text(HOSTILE)
    await expect(detail.locator(".ja-ev-tool-name")).to_have_text("lookup")
    await expect(detail.locator(".ja-ev-tool .ja-ev-pre")).to_contain_text('"topic"')
    await expect(detail.locator(".ja-ev-reason")).to_have_count(len(report.averages()))
    await shots(page, "eval-report")

    await hostile.press("Enter")  # the keyboard closes it again
    await expect(detail).to_have_count(0)
    await page.get_by_role("button", name="failing").click()
    await expect(rows).to_have_count(2)


async def test_a_comparison_shows_what_got_worse_first(page: Page, tmp_path: Path) -> None:
    better = dict(QUESTIONS)
    worse = dict(QUESTIONS) | {"capital of France": "Lyon"}
    a = run_eval(better, "v1", tmp_path / "a")
    b = run_eval(worse, "v2", tmp_path / "b")
    await page.evaluate("s => mount({report: s})", comparison_state(compare(a, b)))

    await expect(page.locator(".ja-ev-title")).to_have_text("v1 → v2")
    await expect(page.locator(".ja-ev-summary")).to_contain_text("1 worse · 0 better")
    chip = page.locator(".ja-ev-chip").filter(has_text="EqualsExpected")
    await expect(chip.locator(".ja-ev-delta")).to_have_text("-20.0 pt")
    await expect(chip.locator(".ja-ev-delta")).to_have_class(re.compile("ja-ev-bad"))
    first = page.locator(".ja-ev-row").first
    await expect(first).to_have_class(re.compile("ja-ev-ch-worse"))
    await expect(first.locator(".ja-ev-name")).to_have_text("france")
    await first.click()
    await expect(page.locator(".ja-ev-detail .ja-ev-label").nth(3)).to_have_text("Output (B)")
    await shots(page, "eval-compare")
    await page.get_by_role("button", name="worse").click()
    await expect(page.locator(".ja-ev-row")).to_have_count(1)


async def test_state_values_that_become_classes_pick_only_known_ones(
    page: Page, tmp_path: Path
) -> None:
    # a report saved in a notebook someone sent: its widget state is untrusted, and a status or
    # a change must not choose a class (hide a row, dress a failing case as a passing one)
    state = report_state(run_eval(QUESTIONS, "v1", tmp_path))
    state["cases"][0]["status"] = "pass jp-mod-hidden"
    state["cases"][0]["change"] = "worse ja-ev-ok"
    state["cases"][1]["status"] = ["fail"]
    await page.evaluate("s => mount({report: s})", state)
    rows = page.locator("tr.ja-ev-row")
    await expect(rows).to_have_count(len(QUESTIONS))
    classes = await rows.evaluate_all("rs => rs.map(r => [...r.classList])")
    known = {"ja-ev-row", "ja-ev-pass", "ja-ev-fail", "ja-ev-error"}
    known |= {f"ja-ev-ch-{c}" for c in ("worse", "better", "changed", "same")}
    assert all(set(c) <= known for c in classes), classes
    assert classes[0] == ["ja-ev-row"] and classes[1] == ["ja-ev-row"]
