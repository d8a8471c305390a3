"""A recorded agent cell in a real JupyterLab: run again, it replays its recording with a
"replayed" badge and no model request; "Run live" runs it again asking the model; the saved
notebook keeps which run each output was. Screenshots in the light and dark themes go to
``test-artifacts/replay-{theme}.png`` (look at them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents.notebook.saved import run_document

from .lab import Session, expect

pytestmark = pytest.mark.browser

SETUP = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text
demo = ScriptedModel([[text("The first answer.")], [text("The second answer.")]])
%agent model demo
%agent replay on"""
AGENT = "%%agent\nSay something."
COUNT = "print('model requests:', len(demo.requests))"
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}


def saved_run(path: Path) -> tuple[dict[str, Any], str]:
    """The header and markdown transcript of the agent cell's saved run."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    output = nb["cells"][1]["outputs"][0]["data"]
    header = run_document.decode(output[run_document.MIME_TYPE])["header"]
    return header, str(output["text/markdown"])


def test_a_replayed_cell_shows_its_badge_and_run_live_asks_the_model(session: Session) -> None:
    name = "replay.ipynb"
    with session.lab("replay", viewport=(1000, 700)) as lab:
        path = lab.write_notebook(name, [SETUP, AGENT, COUNT], ["setup", "agent", "count"])
        lab.open(name)
        lab.run_cell(0)
        expect(lab.outputs(0)).to_contain_text("replay on")
        run = lab.outputs(1).locator(".ja-run")
        badge, run_live = run.locator(".ja-replayed"), run.locator(".ja-run-live")

        lab.run_cell(1)  # no recording yet: live, and recorded into the cell
        expect(run.locator(".ja-text")).to_contain_text("The first answer.")
        expect(run.locator(".ja-pill")).to_have_text("done")
        expect(badge).to_be_hidden()
        expect(run_live).to_be_hidden()

        lab.run_cell(1)  # the same inputs: replayed, the model is not asked
        expect(badge).to_have_text("replayed")
        expect(run.locator(".ja-text")).to_contain_text("The first answer.")
        expect(run.locator(".ja-notice")).to_contain_text("Replayed from this cell's recording")
        expect(run_live).to_be_visible()
        lab.run_cell(2)
        expect(lab.outputs(2)).to_have_text("model requests: 1\n")
        lab.notebook.click(position={"x": 4, "y": 4})  # command mode: no cursor in the shot
        for theme, label in THEMES.items():  # look at both
            if lab.page.locator(f"body[data-jp-theme-name='{label}']").count() == 0:
                lab.menu("Settings", "Theme", label)
            expect(lab.page.locator(f"body[data-jp-theme-name='{label}']")).to_have_count(1)
            expect(lab.page.locator("#jupyterlab-splash")).to_have_count(0)  # done changing
            lab.screenshot(f"replay-{theme}")
        lab.save(path)
        header, markdown = saved_run(path)
        assert header["replayed"] is True  # the lab extension draws the badge from it
        assert " · done · replayed · " in markdown  # and every other frontend reads it

        run_live.click()  # the cell runs again, asking the model
        expect(run.locator(".ja-text")).to_contain_text("The second answer.")
        expect(badge).to_be_hidden()
        lab.run_cell(2)
        expect(lab.outputs(2)).to_have_text("model requests: 2\n")
        lab.save(path)
        header, markdown = saved_run(path)
        assert "replayed" not in header
        assert " · replayed · " not in markdown

        lab.run_cell(1)  # and the live run is the recording now
        expect(badge).to_have_text("replayed")
        expect(run.locator(".ja-text")).to_contain_text("The second answer.")
        assert not lab.errors, lab.errors


RECORDING = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text
demo = ScriptedModel([[text("The recorded answer.")]], name="gpt-4.1")
%agent model demo"""
NO_MODEL = "%load_ext jupyter_agents"
LIVE_AGAIN = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text
demo = ScriptedModel([[text("The live answer.")]], name="gpt-4.1")
%agent model demo"""


def set_first_cell(path: Path, source: str) -> None:
    """Change the notebook's first cell on disk (its outputs and recordings stay)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["cells"][0]["source"] = source
    path.write_text(json.dumps(nb), encoding="utf-8")


def test_run_all_without_a_model_replays_and_run_live_works_in_a_fresh_kernel(
    session: Session,
) -> None:
    """A person opens their recorded notebook where no model is set up (no key): Run All
    replays the agent cell and says why, instead of failing for want of a key. Reopened in a
    fresh kernel with a model, Run live runs the cells above first (the extension, the model),
    then the cell, asking the model."""
    name = "recorded.ipynb"
    with session.lab("recorded") as lab:
        path = lab.write_notebook(name, [RECORDING, AGENT], ["setup", "agent"])
        lab.open(name)
        lab.run_cell(0)
        lab.run_cell(1)  # a person with a model: live, recorded into the cell
        expect(lab.outputs(1).locator(".ja-run .ja-text")).to_contain_text("The recorded answer.")
        expect(lab.outputs(1).locator(".ja-run .ja-pill")).to_have_text("done")  # recorded
        lab.save(path)
    assert json.loads(path.read_text())["cells"][1]["metadata"]["jupyter_agents"]["cassette"]
    set_first_cell(path, NO_MODEL)
    with session.lab("recorded-no-model") as lab:  # a fresh kernel, and no model set up
        lab.open(name)
        lab.run_all()
        run = lab.outputs(1).locator(".ja-run")
        expect(run.locator(".ja-replayed")).to_have_text("replayed")
        expect(run.locator(".ja-notice")).to_contain_text("no model is set up")
        expect(run.locator(".ja-text")).to_contain_text("The recorded answer.")
        lab.notebook.click(position={"x": 4, "y": 4})
        lab.screenshot("replay-no-model")
        lab.save(path)
        assert not lab.errors, lab.errors
    set_first_cell(path, LIVE_AGAIN)
    with session.lab("run-live-fresh-kernel") as lab:  # a fresh kernel: nothing has run
        lab.open(name)
        lab.outputs(1).locator(".ja-run-live").click()
        expect(lab.outputs(0)).to_contain_text("now uses gpt-4.1")  # the cell above ran first
        run = lab.outputs(1).locator(".ja-run")
        expect(run.locator(".ja-text")).to_contain_text("The live answer.")
        expect(run.locator(".ja-replayed")).to_be_hidden()
        assert not lab.errors, lab.errors
