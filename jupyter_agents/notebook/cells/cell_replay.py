"""Recorded agent cells: every ``%%agent`` run is recorded into its own cell (the cell's metadata,
``jupyter_agents.cassette``, which clearing outputs leaves alone), so the notebook file carries
its recordings; and a cell whose inputs are unchanged replays its recording instead of asking
the model when the notebook runs unattended.

``%agent replay auto | on | off | strict`` sets the notebook's mode (``auto`` by default),
``%%agent --live`` / ``--replay`` one cell's:

- ``auto``: replay when the notebook runs unattended (the headless runner, nbclient, nbconvert,
  papermill, or ``JUPYTER_AGENTS_REPLAY=1``), run live when a person runs the cell;
- ``on``: replay whenever the inputs are the same;
- ``off``: always live;
- ``strict``: replay, and fail a cell whose inputs changed instead of calling the model (CI).

Every live run is recorded (replacing the cell's older recording). A cell's recordings come
from that cell only: from the frontend that holds the document, or with none (nbconvert,
papermill) from the cell of the same text in the notebook being executed (named by
``JUPYTER_AGENTS_NOTEBOOK``, else on the command line of the process that started the kernel).
A recording is data: only one signed by the person's own runtime may decide anything again
(see ``jupyter_agents.runtime.replay.signing``). ``%agent replay forget CELL`` drops a
cell's recording.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from IPython.core.error import UsageError

from ...runtime.errors import UserError
from ...runtime.replay import Cassette
from ...runtime.replay.cassette import ReplayMode
from ..document_contract import SetCassetteCall
from ..workspace.document_comm import NoFrontend, recordings

if TYPE_CHECKING:
    from ..host import NotebookHost

__all__ = ["MODES", "CellCassette", "cell_cassette", "keep_recording", "replay_magic", "unattended"]

MODES = ("auto", "on", "off", "strict")
METADATA = "jupyter_agents"
"""The cell metadata key (its ``cassette`` holds the packed recordings)."""

SCANNED_BYTES = 50_000_000
"""A notebook larger than this is not read for recordings."""

NOTEBOOK_ENV = "JUPYTER_AGENTS_NOTEBOOK"
"""Names the notebook a kernel with no frontend runs (nbconvert, papermill), when the command
line that started the kernel does not."""


def replay_magic(host: NotebookHost, words: list[str]) -> None:
    """``%agent replay [auto | on | off | strict | forget CELL]``."""
    if not words:
        print(f"jupyter_agents: replay {host.replay_mode} ({_explain(host.replay_mode)})")
    elif len(words) == 1 and words[0] in MODES:
        host.replay_mode = words[0]
        print(f"jupyter_agents: replay {words[0]} ({_explain(words[0])})")
    elif words[0] == "forget" and len(words) == 2:
        document = host.document
        forget: SetCassetteCall = {"op": "set_cassette", "args": {"id": words[1], "data": None}}
        if document is None or not document.tell(forget):
            raise UsageError(
                "%agent replay forget: no notebook frontend is connected to drop it from."
            )
        print(f"jupyter_agents: asked the notebook to drop cell {words[1]}'s recording")
    else:
        raise UsageError("%agent replay [auto | on | off | strict | forget CELL]")


def _explain(mode: str) -> str:
    return {
        "auto": "agent cells replay their recordings when the notebook runs unattended",
        "on": "agent cells replay their recordings whenever their inputs are the same",
        "off": "agent cells always ask the model",
        "strict": "agent cells replay, and fail when their inputs changed",
    }[mode]


def unattended() -> bool:
    """Whether nobody is at the notebook: ``JUPYTER_AGENTS_REPLAY=1``, or a kernel not started by
    a Jupyter server (nbclient, nbconvert, papermill, the headless runner)."""
    return os.environ.get("JUPYTER_AGENTS_REPLAY") == "1" or not os.environ.get("JPY_SESSION_NAME")


@dataclass
class CellCassette(Cassette):
    """A cell's cassette, with the packed recordings the cell held when it ran."""

    stored: str | None = None

    unconfigured: bool = False
    """It replays because no model is set up (a person ran the cell under ``auto``)."""


async def cell_cassette(
    host: NotebookHost,
    cell: str,
    choice: str | None,
    tools: str = "recorded",
    *,
    configured: bool = True,
) -> Cassette:
    """The cassette a cell's run records into (and replays from, as the mode says);
    ``tools="run"``: a replayed run's tool calls run again. ``configured``: a model is set up
    for the run; without one, a cell a person runs under ``auto`` replays its recording (and
    says why) instead of failing for want of a key."""
    mode = host.replay_mode
    frontend = await host.document.ready() if host.document is not None else None
    stored, live = await _recorded(host, cell) if frontend is not None else (None, False)
    if frontend is None:  # nbconvert, papermill
        runs = _recorded_in_file(host.current_source())
    else:
        runs = _unpacked(stored) if stored is not None else []
    chosen: ReplayMode
    if choice == "live" or mode == "off" or live:
        chosen = "record"
    elif choice == "replay" or mode in ("on", "strict"):
        chosen = "strict" if mode == "strict" and choice is None else "replay"
    else:
        headless = frontend == "headless"
        chosen = "replay" if headless or unattended() or not configured else "record"
    tools_mode: Literal["recorded", "run"] = "run" if tools == "run" else "recorded"
    made = CellCassette(runs=runs, mode=chosen, replay_tools=tools_mode, stored=stored)
    made.unconfigured = not configured and chosen == "replay" and mode == "auto"
    return made


async def keep_recording(host: NotebookHost, cell: str, cassette: Cassette) -> None:
    """Store the cell's recordings (its latest run's, or batch's) in the cell, when they
    changed."""
    document = host.document
    if document is None or not cassette.used or await document.ready() is None:
        return  # nothing holds the document (nbconvert, papermill): nothing to write to
    data = Cassette(runs=list(cassette.used)).pack()
    if data == getattr(cassette, "stored", None):
        return  # replayed as recorded: the cell already holds it
    try:
        await document.request({"op": "set_cassette", "args": {"id": cell, "data": data}})
    except NoFrontend:
        pass  # nothing holds the document (nbconvert): nothing to write to


async def _recorded(host: NotebookHost, cell: str) -> tuple[str | None, bool]:
    """The packed recordings the frontend holds for the cell (None: no frontend, or none),
    and whether the person asked for this run to be live ("Run live" in JupyterLab)."""
    document = host.document
    if document is None or document.frontend is None:
        return None, False
    try:
        held = recordings(await document.request({"op": "cassette", "args": {"id": cell}}))
    except NoFrontend:
        return None, False
    return held["data"], held.get("live") is True


def _unpacked(data: str) -> list[dict[str, Any]]:
    """The recordings packed in a cell; none, with a one-line warning, when they cannot be
    read (damaged, not ours, or inflating past the bound): the cell then runs live."""
    try:
        return Cassette.unpack(data).runs
    except UserError as e:
        print(f"jupyter_agents: this cell's recording was not used ({e}); it runs live.")
        return []


def _recorded_in_file(source: str | None) -> list[dict[str, Any]]:
    """The recordings of the running cell in the notebook file being executed with no
    frontend (nbconvert, papermill): the cells whose text is exactly the running cell's, in
    the notebook the kernel was started for. Never another notebook's."""
    if not source:
        return []
    runs: list[dict[str, Any]] = []
    for path in executed_notebooks():
        for cell in _cells(path):
            if _text(cell.get("source")) != source:
                continue
            meta = cell.get("metadata")
            ours = meta.get(METADATA) if isinstance(meta, dict) else None
            packed = ours.get("cassette") if isinstance(ours, dict) else None
            if isinstance(packed, str):
                runs.extend(_unpacked(packed))
    return runs


def executed_notebooks() -> list[Path]:
    """The notebook(s) this kernel was started to execute with no frontend: the one
    ``JUPYTER_AGENTS_NOTEBOOK`` names, else the ``.ipynb`` files on the command line of the
    process that started the kernel (``jupyter nbconvert --execute NB``, ``papermill IN
    OUT``, ``jupyter execute NB``), read from ``/proc``. None found: nothing replays."""
    named = os.environ.get(NOTEBOOK_ENV)
    if named:
        return [Path(named)]
    parent = f"/proc/{os.getppid()}"
    try:
        words = Path(parent, "cmdline").read_bytes().split(b"\0")
        folder = os.readlink(f"{parent}/cwd")
    except OSError:
        return []
    found: list[Path] = []
    for word in map(os.fsdecode, words):
        path = Path(folder, word)
        if word.endswith(".ipynb") and path.is_file() and path not in found:
            found.append(path)
    return found


def _cells(path: Path) -> list[dict[str, Any]]:
    try:
        if path.stat().st_size > SCANNED_BYTES:
            return []
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    return [c for c in cells if isinstance(c, dict)] if isinstance(cells, list) else []


def _text(source: Any) -> str | None:
    """A cell's source as one text (nbformat allows a list of lines)."""
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return source if isinstance(source, str) else None
