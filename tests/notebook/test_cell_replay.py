"""Recorded agent cells, run by the headless runner: the first run asks the model and records
into the cell's metadata; the executed notebook, outputs cleared, replays with a model that
must not be asked (the same answer, no tool run); a changed prompt runs live under ``auto`` and
fails under ``strict``, saying what changed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from jupyter_agents.notebook.saved import run_document

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(180)]

SETUP = """%load_ext jupyter_agents
from jupyter_agents import tool
from jupyter_agents.testing import ScriptedModel, text, tool_call
looked_up = []

@tool
def lookup(city: str) -> str:
    \"\"\"Weather for a city.\"\"\"
    looked_up.append(city)
    return f"sunny in {city}"

demo = ScriptedModel(TURNS)
%agent model demo
MODE"""
LIVE_TURNS = '[[tool_call("lookup", {"city": "Paris"}, "c1")], [text("Sunny in Paris.")]]'
SHOW = "print(len(demo.requests), looked_up)"


def notebook(turns: str, prompt: str, mode: str = "") -> Any:
    cells = [
        nbformat.v4.new_code_cell(SETUP.replace("TURNS", turns).replace("MODE", mode)),
        nbformat.v4.new_code_cell(f"%%agent\n{prompt}"),
        nbformat.v4.new_code_cell(SHOW),
    ]
    for cell, cell_id in zip(cells, ["setup", "agent", "show"], strict=True):
        cell["id"] = cell_id
    return nbformat.v4.new_notebook(cells=cells)


def headless(tmp_path: Path, nb: Any, name: str) -> tuple[Any, str]:
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    run = subprocess.run(
        [sys.executable, "-m", "jupyter_agents.headless", str(path)],
        capture_output=True,
        text=True,
        timeout=170,
        env={"JUPYTER_AGENTS_APPROVE": "auto", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        cwd=tmp_path,
    )
    return nbformat.read(path.with_suffix(".out.ipynb"), as_version=4), run.stdout + run.stderr


def shown(nb: Any, index: int) -> str:
    return "".join(str(o.get("text", "")) for o in nb.cells[index].outputs)


def transcript(nb: Any) -> str:
    data = [o.get("data", {}) for o in nb.cells[1].outputs]
    return "".join(str(d.get("text/markdown", "")) + str(d.get("text/html", "")) for d in data)


@pytest.mark.parametrize("tools", ["run", "recorded"])
def test_a_recorded_cell_replays_with_no_model_request_after_its_outputs_are_cleared(
    tmp_path: Path, tools: str
) -> None:
    """By default the replayed cell's tools run again (as Restart & Run All runs cells: what
    they made is there again); ``--replay-tools recorded`` answers them from the recording."""
    first, said = headless(tmp_path, notebook(LIVE_TURNS, "Weather in Paris?"), "first")
    assert shown(first, 2) == "2 ['Paris']\n", said
    packed = first.cells[1].metadata["jupyter_agents"]["cassette"]
    assert isinstance(packed, str) and len(packed) > 100
    # the executed notebook, outputs cleared, with a model that has nothing to say
    again = first
    for cell in again.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    again.cells[0].source = again.cells[0].source.replace(LIVE_TURNS, "[]")
    if tools == "recorded":
        again.cells[1].source = again.cells[1].source.replace(
            "%%agent", "%%agent --replay-tools recorded"
        )
    replayed, said = headless(tmp_path, again, "again")
    ran = "['Paris']" if tools == "run" else "[]"
    assert shown(replayed, 2) == f"0 {ran}\n", said  # no model request; the tool as chosen
    assert "Sunny in Paris." in transcript(replayed)
    assert "Replayed from this cell's recording" in transcript(replayed)
    assert " · done · replayed · " in transcript(replayed)  # the header says it, saved
    saved = run_document.decode(replayed.cells[1].outputs[0]["data"][run_document.MIME_TYPE])
    assert saved["header"]["replayed"] is True  # what the lab extension draws the badge from
    (card,) = [b for b in saved["blocks"] if b.get("kind", "tool") == "tool"]
    if tools == "recorded":
        assert card["replayed"] is True and "ms" not in card  # it did not run, nor take time
        assert """<code>lookup(city='Paris')</code> <span class="ja-muted">replayed</span>""" in (
            transcript(replayed)
        )
    else:
        assert "replayed" not in card and "ms" in card  # it ran now
    if tools == "run":
        assert replayed.cells[1].metadata["jupyter_agents"]["cassette"] == packed


def test_a_changed_prompt_runs_live_under_auto_and_fails_under_strict(tmp_path: Path) -> None:
    first, said = headless(tmp_path, notebook(LIVE_TURNS, "Weather in Paris?"), "first")
    assert shown(first, 2) == "2 ['Paris']\n", said
    changed = first
    changed.cells[1].source = "%%agent\nWeather in Paris today?"
    live, said = headless(tmp_path, changed, "changed")
    assert shown(live, 2) == "2 ['Paris']\n", said  # asked the model again
    assert "Ran live: the inputs changed since the recording" in transcript(live)
    assert "tokens · price unknown: ran live, changed since its recording: input: -user: Weat" in (
        transcript(live)  # the header says it too (after the tokens and the cost)
    )
    assert (
        live.cells[1].metadata["jupyter_agents"]["cassette"]
        != (first.cells[1].metadata["jupyter_agents"]["cassette"])
    )
    strict = nbformat.from_dict(first)
    strict.cells[0].source = strict.cells[0].source.replace(
        "%agent model demo", "%agent model demo\n%agent replay strict"
    )
    strict.cells[1].source = "%%agent\nWeather in Oslo?"
    failed, said = headless(tmp_path, strict, "strict")
    errors = [o for o in failed.cells[1].outputs if o.get("output_type") == "error"]
    assert errors and "ReplayMismatch" in said + str(errors)
    assert "Weather in Oslo" in said + str(errors) + transcript(failed)
    assert shown(failed, 2) == "0 []\n"  # the model was never asked
