"""The user story, end to end: a real JupyterLab, a real kernel, headless Chromium, real clicks.

A notebook defines two tools (one needs approval) and a scripted model, and asks the agent in a
``%%agent`` cell. Run All must stream the answer into the widget while the cell runs, stop at the
Approve / Reject buttons, go on after the click, and only then run the next cell. A saved copy,
reopened without its kernel, must show the transcript and no buttons that pretend to work.

Screenshots and browser console logs go to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from .lab import Lab, Session, expect, expecting_session

pytestmark = pytest.mark.browser

FINAL = (
    "It is **sunny** in Paris right now, 21 °C, with a light breeze from the west. "
    "I emailed the forecast to ana@example.com as you asked.\n\n"
    "- Sky: clear for the rest of the afternoon\n"
    "- Evening: about 17 °C, still dry\n"
    "- Tomorrow: much the same, a little warmer\n\n"
    "Should I also send her a short summary every morning, or add the forecast for Lyon "
    "and Marseille to the next email? Just say which cities you would like."
)
FINAL_START = "It is sunny in Paris right now"
FINAL_END = "Just say which cities you would like."

SETUP = f'''%load_ext jupyter_agents
from jupyter_agents import tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"Sunny, 21 °C in {{city}}"

sent = []

@tool(needs_approval=True)
def send_email(to: str, body: str) -> str:
    """Send an email."""
    sent.append(to)
    return f"Email sent to {{to}}"

answer = """{FINAL}"""

script = [
    [tool_call("get_weather", {{"city": "Paris"}})],
    [tool_call("send_email", {{"to": "ana@example.com", "body": "Sunny, 21 °C in Paris."}})],
    [text(answer)],
]
%agent model ScriptedModel(script, delay=0.03)'''
AGENT = "%%agent\nWhat's the weather in Paris? Email it to ana@example.com."
NEXT = 'print("next cell ran", sent)'
CELLS = [SETUP, AGENT, NEXT]
SETUP_CELL, AGENT_CELL, NEXT_CELL = range(3)
NEXT_OUTPUT = "next cell ran ['ana@example.com']"
RUN_MIME = "application/vnd.jupyter-agents.run+json"
"""The finished run's data, drawn by the lab extension (the HTML transcript is beside it)."""

# One read of the agent cell, done inside the page so that text and prompt are seen at the same
# instant. Resolves (truthy) once the text reached `want` characters or the cell stopped running.
STREAM_PROBE = """([cell, want, start]) => {
  const el = document.querySelector(cell);
  if (!el) return null;
  const running = el.querySelector('.jp-InputArea-prompt')?.textContent.trim() === '[*]:';
  const text = [...el.querySelectorAll('.ja-text')].map((e) => e.textContent).join('');
  const at = text.indexOf(start);
  const length = at < 0 ? 0 : text.length - at;
  const streaming = !!el.querySelector('.ja-streaming');
  if (!running || length >= want) return {running, length, streaming};
  return null;
}"""


class TranscriptNotShown(AssertionError):
    """The reopened notebook does not show the saved run (the known product bug below)."""


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with expecting_session(20_000) as s:  # runs take seconds
        yield s


def run_story(lab: Lab, name: str) -> Any:
    """Write the story notebook, open it, Run All; return the agent cell's widget locator."""
    lab.write_notebook(name, CELLS)
    lab.open(name)
    lab.run_all()
    widget = lab.cell(AGENT_CELL).locator(".ja-run")
    failure = lab.tracebacks()
    widget.or_(failure).first.wait_for(timeout=30_000)
    assert not failure.count(), f"a cell failed:\n{failure.first.inner_text()[:3000]}"
    expect(widget).to_be_visible()
    return widget


def tool_card(widget: Any, name: str) -> Any:
    return widget.locator(".ja-tool").filter(
        has=widget.page.locator(".ja-name", has_text=re.compile(f"^{name}$"))
    )


def stream_probe(lab: Lab, want: int) -> dict[str, Any]:
    cell = f"{lab.cell_selector}[data-windowed-list-index='{AGENT_CELL}']"
    handle = lab.page.wait_for_function(
        STREAM_PROBE, arg=[cell, want, FINAL_START], polling=25, timeout=30_000
    )
    return dict(handle.json_value())


def test_user_story_run_all_stream_approve(session: Session) -> None:
    with session.lab("e2e-user-story", viewport=(1280, 1000)) as lab:
        page = lab.page
        widget = run_story(lab, "user_story.ipynb")

        # The weather call ran; the email waits for a person, and so does the queued cell.
        weather, email = tool_card(widget, "get_weather"), tool_card(widget, "send_email")
        expect(weather).to_have_class(re.compile(r"\bja-st-done\b"))
        expect(email).to_have_class(re.compile(r"\bja-st-waiting\b"), timeout=30_000)
        approve = email.get_by_role("button", name="Approve", exact=True)
        reject = email.get_by_role("button", name="Reject", exact=True)
        expect(approve).to_be_enabled()  # enabled only once the kernel answered the view
        expect(reject).to_be_enabled()
        expect(email.locator(".ja-args")).to_contain_text('"to": "ana@example.com"')
        expect(widget.locator(".ja-pill")).to_have_text("waiting for approval")
        expect(widget.locator(".ja-offline")).to_be_hidden()
        expect(lab.prompt(AGENT_CELL)).to_have_text("[*]:")
        expect(lab.prompt(NEXT_CELL)).to_have_text("[*]:")  # queued behind the agent cell
        expect(lab.outputs(NEXT_CELL)).to_have_count(0)
        lab.cell(AGENT_CELL).scroll_into_view_if_needed()
        lab.screenshot("e2e-user-story-waiting-for-approval")

        approve.click()

        # The final answer streams in while the cell still runs.
        first = stream_probe(lab, 30)
        assert first["running"], f"the run ended before any text was seen streaming: {first}"
        later = stream_probe(lab, first["length"] + 60)
        assert later["running"], f"the text did not grow while the cell ran: {first} {later}"
        assert later["streaming"], "no streaming caret on the text being written"

        # Then the run ends, and only then the next cell runs.
        expect(lab.outputs(NEXT_CELL)).to_have_text(NEXT_OUTPUT, timeout=30_000)
        expect(lab.prompt(AGENT_CELL)).to_have_text(re.compile(r"^\[\d+\]:$"))
        # its output can show before its reply: wait for the count, not a fixed time
        expect(lab.prompt(NEXT_CELL)).to_have_text(re.compile(r"^\[\d+\]:$"))
        agent_count, next_count = lab.execution_count(AGENT_CELL), lab.execution_count(NEXT_CELL)
        assert agent_count is not None and next_count == agent_count + 1
        # When the run ends, the live view gives way to the saved run (readable without a
        # kernel), which the lab extension draws with the widget's cards: the final text as
        # markdown, the tool calls and results, and no live controls.
        output = lab.outputs(AGENT_CELL)
        expect(output.and_(lab.page.locator(f"[data-mime-type='{RUN_MIME}']"))).to_have_count(1)
        expect(output.locator(".ja-run")).to_have_count(1)  # the saved run's, not the widget
        expect(output).to_contain_text(FINAL_START)
        expect(output).to_contain_text(FINAL_END)
        expect(output.locator("li")).to_have_count(3)  # the 3 markdown list items
        expect(output.locator(".ja-tool")).to_have_count(2)  # the 2 tool calls, as cards
        expect(output.locator("strong", has_text="sunny")).to_have_count(1)
        expect(output).to_contain_text("Email sent to ana@example.com")
        expect(output).to_contain_text("Sunny, 21 °C in Paris")
        expect(output).to_contain_text(re.compile(r"approved", re.I))
        expect(output.locator("button:visible")).to_have_count(0)
        lab.scroll_to_top(AGENT_CELL)  # the whole run and the next cell's output in view
        lab.screenshot("e2e-user-story-done")
        assert lab.errors == [], lab.errors
        assert not page.locator(".jp-Dialog").count(), "an unexpected dialog is open"


def saved_agent_output(path: Any) -> dict[str, Any]:
    cells = json.loads(path.read_text())["cells"]
    outputs = [o for o in cells[AGENT_CELL]["outputs"] if "data" in o]
    assert len(outputs) == 1, f"expected one display in the agent cell: {outputs}"
    return {k: "".join(v) if isinstance(v, list) else v for k, v in outputs[0]["data"].items()}


def no_live_buttons(lab: Lab) -> None:
    """No button in the agent cell's output may look usable; a live view must say it is off."""
    output = lab.cell(AGENT_CELL).locator(".jp-OutputArea")
    for button in output.locator("button:visible").all():
        expect(button).to_be_disabled()
    views = output.locator(".ja-run")
    if views.count() and output.locator(".ja-run button:visible").count():
        expect(output.locator(".ja-offline")).to_be_visible(timeout=5_000)


def test_reopened_notebook_shows_a_static_transcript(session: Session) -> None:
    name = "reopen.ipynb"
    path = session.server.root / name
    with session.lab("e2e-reopen-live", viewport=(1280, 1000)) as lab:
        widget = run_story(lab, name)
        tool_card(widget, "send_email").get_by_role("button", name="Approve").click()
        expect(lab.outputs(NEXT_CELL)).to_have_text(NEXT_OUTPUT, timeout=30_000)
        saved = lab.outputs(AGENT_CELL).and_(lab.page.locator(f"[data-mime-type='{RUN_MIME}']"))
        expect(saved).to_have_count(1)  # the live widget gave way to the saved run
        lab.save(path)
        lab.menu("Kernel", "Shut Down Kernel")
        expect(lab.page.locator("#jp-main-statusbar")).to_contain_text("No Kernel")
    assert session.server.sessions(name) == []

    # On disk: static transcripts only, for readers without a kernel.
    data = saved_agent_output(path)
    html, markdown = data.get("text/html", ""), data.get("text/markdown", "")
    for needle in ("get_weather", "send_email", "Email sent to ana@example.com", "approved"):
        assert needle in html, f"{needle!r} missing from the saved text/html"
    for needle in ("get_weather", "send_email", "approved"):  # the compact form: no outputs
        assert needle in markdown, f"{needle!r} missing from the saved text/markdown"
    assert "<strong>sunny</strong> in Paris right now" in html
    assert "<strong>sunny</strong> in Paris right now" in markdown  # one inert HTML block
    assert markdown.count("\n") == 1
    assert "<button" not in html and "<script" not in html

    # Reopen in a fresh page: JupyterLab starts a new kernel, which never saw the run's widget;
    # then switch to No Kernel and re-read the file, so nothing is connected at all.
    with session.lab("e2e-reopen-static", viewport=(1280, 1000)) as lab:
        lab.open(name)
        output = lab.outputs(AGENT_CELL)
        expect(output).not_to_have_text(re.compile(r"^\s*(Loading widget\.\.\.)?\s*$"))
        no_live_buttons(lab)
        lab.scroll_to_top(AGENT_CELL)
        lab.screenshot("e2e-reopened-fresh-kernel")
        lab.menu("Kernel", "Change Kernel…")
        dialog = lab.page.locator(".jp-Dialog")
        dialog.locator("select").select_option(label="No Kernel")
        dialog.locator(".jp-mod-accept").click()
        expect(lab.page.locator("#jp-main-statusbar")).to_contain_text("No Kernel")
        lab.reload_from_disk()
        expect(lab.outputs(NEXT_CELL)).to_have_text(NEXT_OUTPUT)
        expect(output).not_to_have_text(re.compile(r"^\s*(Loading widget\.\.\.)?\s*$"))
        lab.scroll_to_top(AGENT_CELL)
        lab.screenshot("e2e-reopened-no-kernel")
        no_live_buttons(lab)
        shown = output.inner_text()
        if FINAL_START not in shown or not re.search(r"send_email[\s\S]*approved", shown, re.I):
            raise TranscriptNotShown(f"the reopened agent cell shows {shown[:300]!r}")
