"""A run's plan in the notebook: the widget header carries the latest plan (updated in place,
a malformed one changes nothing), the plan call's card is small, and the finished run keeps
the plan in its transcripts, its saved document and the terminal view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ConfigDict, TypeAdapter

from jupyter_agents import Agent, PlanTool, RunConfig, Runner
from jupyter_agents.notebook.saved import run_document, transcript
from jupyter_agents.notebook.view.run_view import RunView
from jupyter_agents.notebook.view.text_view import TextView
from jupyter_agents.notebook.view.widget_state import Header
from jupyter_agents.runtime.replay import Cassette
from jupyter_agents.testing import ScriptedModel, tool_call

HEADERS = TypeAdapter(list[Header], config=ConfigDict(extra="forbid"))

FIRST: dict[str, Any] = {
    "explanation": "Data <first>.",
    "plan": [
        {"step": "Load <b>data</b>", "status": "in_progress"},
        {"step": "Fit", "status": "pending"},
        {"step": "Plot", "status": "pending"},
    ],
}
BAD = {
    "plan": [{"step": "Load", "status": "in_progress"}, {"step": "Fit", "status": "in_progress"}]
}
LATER = {
    "plan": [
        {"step": "Load <b>data</b>", "status": "completed"},
        {"step": "Fit", "status": "completed"},
        {"step": "Plot", "status": "in_progress"},
    ]
}


def plan_turns() -> list[Any]:
    return [
        [tool_call("update_plan", FIRST, "p1")],
        [tool_call("update_plan", BAD, "p2")],
        [tool_call("update_plan", LATER, "p3")],
        ["Done."],
    ]


async def run_in_view(view: Any, config: RunConfig | None = None, model: Any = None) -> None:
    model = model or ScriptedModel(plan_turns())
    agent = Agent(name="a", model=model, tools=[PlanTool()])
    result = Runner.run_streamed(agent, "Plot it.", run_config=config or RunConfig())
    async for event in result.stream_events():
        view.on_event(event)


async def test_the_header_carries_the_latest_plan_updated_in_place() -> None:
    view = RunView(agent="a", model="m", flush_interval=0)
    assert "plan" not in view.widget.header
    plans: list[Any] = []
    view.widget.observe(lambda _c: plans.append(view.widget.header.get("plan")), names=["header"])
    await run_in_view(view)
    view.finish("done")
    HEADERS.validate_python([view.widget.header])
    distinct = [p for i, p in enumerate(plans) if i == 0 or p != plans[i - 1]]
    first = {
        "explanation": "Data <first>.",
        "steps": [{"step": s["step"], "status": s["status"]} for s in FIRST["plan"]],
    }
    later = {"steps": LATER["plan"]}
    assert distinct == [first, later]  # the malformed plan in between changed nothing
    cards = [b for b in view.widget.blocks if b.get("name") == "update_plan"]
    assert [c.get("status", "done") for c in cards] == ["done", "error", "done"]
    good, bad, _ = cards
    assert "args" not in good and good["badge"] == "0/3"  # the checklist and count stand for it
    assert good["parts"][0]["role"] == "call" and "◐ Load <b>data</b>" in good["parts"][0]["text"]
    assert '"in_progress"' in bad["args"] and "badge" not in bad  # shown as the model sent it
    assert "at most one step may be in_progress" in bad["error"]["message"]


async def test_the_finished_run_keeps_its_last_plan() -> None:
    view = RunView(agent="a", model="m", flush_interval=0)
    await run_in_view(view)
    view.finish("done")
    bundle = view._bundle()
    html = bundle["text/html"]
    assert "plan · 2/3" in html
    assert '<s class="ja-muted">Load &lt;b&gt;data&lt;/b&gt;</s>' in html  # escaped, struck
    assert "<b>Plot</b>" in html and "<b>data</b>" not in html
    top = html[html.index('<div class="ja-plan">') : html.index("</ul></div>")]
    assert "Data &lt;first&gt;." not in top  # the later plan gave no explanation
    assert "plan · 2/3" in bundle["text/markdown"]
    saved = run_document.decode(bundle[run_document.MIME_TYPE])
    assert saved["header"]["plan"] == {"steps": LATER["plan"]}


def test_a_transcript_without_a_plan_has_none_and_a_hostile_one_is_text() -> None:
    header: Any = {"agent": "a", "model": "m", "status": "done"}
    assert 'class="ja-plan"' not in transcript.to_html(header, [])
    header["plan"] = {
        "explanation": "<script>alert(1)</script>",
        "steps": [{"step": "<img src=x onerror=alert(1)>", "status": "exploded"}, "junk", {}],
    }
    html = transcript.to_html(header, [])
    assert "<script>" not in html and "<img" not in html
    shown = html.replace("</span> ", " ")
    assert "○ &lt;img src=x onerror=alert(1)&gt;" in shown  # an unknown status: pending
    assert "plan · 0/1" in html


async def test_the_terminal_shows_each_plan_and_the_last_one_at_the_end() -> None:
    out: list[str] = []
    view = TextView(agent="a", model="m", write=out.append)
    await run_in_view(view)
    view.finish("done")
    text = "".join(out)
    assert "→ update_plan\n  Data <first>.\n  ◐ Load <b>data</b>" in text
    assert "at most one step may be in_progress" in text
    end = text[text.index("── plan") :]
    assert end.startswith("── plan 2/3\n  ✓ Load <b>data</b>\n  ✓ Fit\n  ◐ Plot\n── done")


async def test_a_replayed_run_shows_its_plan_from_the_recording(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    recording = RunConfig(replay=Cassette(path, mode="record"))
    await run_in_view(RunView(agent="a", model="m", flush_interval=0), recording)
    view = RunView(agent="a", model="m", flush_interval=0)
    silent = ScriptedModel([])  # the model must not be asked
    replay = RunConfig(replay=Cassette(path, mode="strict"))
    await run_in_view(view, replay, model=silent)
    view.finish("done", replayed=True)
    assert silent.requests == []
    assert view.widget.header["plan"] == {"steps": LATER["plan"]}
    cards = [b for b in view.widget.blocks if b.get("name") == "update_plan"]
    # the malformed plan is refused again before the recording is asked, as for any tool
    assert [(c.get("replayed"), c.get("status", "done")) for c in cards] == [
        (True, "done"),
        (None, "error"),
        (True, "done"),
    ]
    assert cards[2]["badge"] == "2/3" and "args" not in cards[2]
