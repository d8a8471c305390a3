"""Every notebook in notebooks/ is executed live by the headless runner, its scripted stand-ins
answering through the real openai client and the local OpenAI-compatible test server over HTTP
(``JUPYTER_AGENTS_SCRIPTED_HTTP=1``); then the executed notebook is executed again by the
headless runner in a network namespace of its own (bubblewrap ``--unshare-net``), its scripted
stand-ins answering in the kernel, as they do for a person with no key. Replay reproduces the
notebook the way Restart & Run All reproduces code cells: every agent cell shows the same run as
before, timing aside, replayed from the recording the first run left in the cell (its header
says so), its tools run again (so the variables, cells and files they made are there again), and
every other code cell shows what it showed the first time, with no error (a cell tagged
``raises-exception``, the copilot notebook's cell for Fix, with the same error).

Outputs are compared with timings, the notebook's folder, the names of temporary folders
(``tempfile``'s), ports and MCP call ids left out.
"""

from __future__ import annotations

import json
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
import pytest

from jupyter_agents import Cassette
from jupyter_agents.notebook.saved import run_document

from .notebook_helpers import fails_on_purpose
from .replay_helpers import agent_cells, headless, live_then_offline, run_of

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(600)]

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
ALL = sorted(p for p in NOTEBOOKS.glob("*.ipynb") if not p.name.endswith(".out.ipynb"))
WITH_AGENTS = [p for p in ALL if agent_cells(nbformat.read(p, as_version=4))]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every notebook with agent cells, live then offline (three at a time)."""
    root = tmp_path_factory.mktemp("notebooks")
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {p.stem: pool.submit(live_then_offline, p, root / p.stem) for p in WITH_AGENTS}
        return {name: future.result() for name, future in futures.items()}


def test_every_notebook_but_the_runtime_one_has_agent_cells() -> None:
    # runtime.ipynb calls the runtime from code cells (not recorded; nothing to replay)
    assert sorted(p.name for p in set(ALL) - set(WITH_AGENTS)) == ["runtime.ipynb"]


def test_the_runtime_notebook_runs_with_no_error(tmp_path: Path) -> None:
    """The one notebook with nothing to replay runs once, as a newcomer runs it (with only the
    README's install under CI, like the others: replay_helpers.notebook_python)."""
    (source,) = set(ALL) - set(WITH_AGENTS)
    shutil.copy(source, tmp_path / source.name)
    ran, said = headless(tmp_path / source.name, {"JUPYTER_AGENTS_SCRIPTED_HTTP": "1"})
    errors = [
        o for c in ran.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert errors == [], said


@pytest.mark.parametrize("name", [p.stem for p in WITH_AGENTS])
def test_agent_cells_replay_offline_the_same(executed: dict[str, Any], name: str) -> None:
    live, again, said = executed[name]["live"], executed[name]["again"], executed[name]["said"]
    before, after = agent_cells(live), agent_cells(again)
    assert [c.source for c in before] == [c.source for c in after]
    recorded = [c for c in before if c.metadata.get("jupyter_agents", {}).get("cassette")]
    assert recorded, f"no agent cell of {name} kept a recording:\n{said}"  # (a batch whose
    for cell in recorded:  # at most twice the run's saved outputs (it is about half)
        packed = cell.metadata["jupyter_agents"]["cassette"]
        # A batch or an evaluation of many rows shows a short table: 200 bytes a run there.
        allowed = max(2 * len(json.dumps(cell.outputs)), 200 * len(Cassette.unpack(packed).runs))
        assert len(packed) <= allowed, cell.source
    for was, now in zip(before, after, strict=True):  # rows came from its store needs none)
        then, replayed = run_of(was), run_of(now)
        assert then.get("header", {}).get("status", "done") == "done", said
        assert replayed == then, f"{now.source!r} differs:\n{said}"
        if "header" in then:  # one run (a batch cell shows its table instead)
            assert _header(now)["replayed"] is True, f"{now.source!r} ran live:\n{said}"


@pytest.mark.parametrize("name", [p.stem for p in WITH_AGENTS])
def test_every_code_cell_shows_the_same_again_offline(executed: dict[str, Any], name: str) -> None:
    live, again, said = executed[name]["live"], executed[name]["again"], executed[name]["said"]
    assert [c.source for c in live.cells] == [c.source for c in again.cells], said
    for was, now in zip(live.cells, again.cells, strict=True):
        if now.cell_type != "code":
            continue
        live_errors, errors = _errors(was), _errors(now)
        if fails_on_purpose(was):  # the copilot's cell for Fix: the same error both times
            assert live_errors and errors == live_errors, f"{now.source!r}: {errors}\n{said}"
        else:
            assert live_errors == [], f"{was.source!r} failed live: {live_errors}\n{said}"
            assert errors == [], f"{now.source!r} failed offline: {errors}\n{said}"
        folders = executed[name]["folders"]
        assert _plain(run_of(now), folders) == _plain(run_of(was), folders), (
            f"{now.source!r} differs:\n{said}"
        )


TEMPORARY = re.compile(r"/tmp/[\w.-]*?[a-z0-9_]{8}(?=[/'\"\s\\]|$)")
"""A folder ``tempfile`` made (``/tmp/data-tools-ph5l5z8w``): another name each run."""

CHANGING = [
    (TEMPORARY, "/tmp/TEMPORARY"),
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:PORT"),  # a server the notebook starts
    (re.compile(r"\bmcp_[0-9a-f]{16}\b"), "mcp_ID"),  # a call an MCP client made of it
]
"""What differs between two runs of a notebook, with what it is compared as."""


def _errors(cell: Any) -> list[str]:
    return [f"{o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error"]


def _plain(shown: Any, folders: tuple[str, str]) -> Any:
    """``shown`` with the notebook's folder (live/ and offline/), temporary folders' names,
    ports and MCP call ids left out."""
    text = json.dumps(shown)
    for folder in folders:
        text = text.replace(folder, "FOLDER")
    for pattern, said in CHANGING:
        text = pattern.sub(said, text)
    return json.loads(text)


def _header(cell: Any) -> dict[str, Any]:
    data = next(o.data for o in cell.outputs if run_document.MIME_TYPE in o.get("data", {}))
    header: dict[str, Any] = run_document.decode(data[run_document.MIME_TYPE])["header"]
    return header
