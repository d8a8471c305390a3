"""Executing notebooks live and again offline, and reading what their agent cells showed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat

from jupyter_agents.notebook.saved import run_document
from jupyter_agents.runtime.sandbox.bwrap import find_bwrap

from ..prerequisites import under_ci

NOWHERE = "http://127.0.0.1:9/v1"
"""Where the second run's model requests go: nothing listens there (nor can it be reached)."""

RUN_TIMEOUT = 300
"""Seconds one headless run of a notebook may take (normally 10 to 40)."""

README_PYTHON = "JUPYTER_AGENTS_README_PYTHON"
"""The Python of an environment made with the README's install alone (``pip install -e
".[lab]"``, no test extra): `.ci/run` makes one (``.venv-readme``) and names it here, so the
notebooks run with only what the README installs. Unset, this environment's Python runs them."""


def notebook_python() -> str:
    """The Python that runs the notebooks: the README install's under CI, else this one."""
    python = os.environ.get(README_PYTHON)
    if python:
        assert Path(python).is_file(), f"{README_PYTHON}={python} does not exist"
        return python
    assert not under_ci(), (
        f"under CI the notebooks run with the README's install: set {README_PYTHON}"
    )
    return sys.executable


def agent_cells(nb: Any) -> list[Any]:
    return [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("%%agent")]


def headless(path: Path, env: dict[str, str], *, offline: bool = False) -> tuple[Any, str]:
    """Run ``path`` with the headless runner; the executed notebook and what it printed."""
    argv = [notebook_python(), "-m", "jupyter_agents.headless", str(path), "--timeout", "120"]
    if offline:
        bwrap = find_bwrap()
        assert bwrap is not None, "bubblewrap is needed (apt-get install bubblewrap)"
        argv = [bwrap, "--dev-bind", "/", "/", "--unshare-net", "--die-with-parent", *argv]
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "JUPYTER_AGENTS"))}
    run = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env={**base, "JUPYTER_AGENTS_APPROVE": "auto", **env},
        cwd=path.parent,
    )
    said = run.stdout + run.stderr
    out = path.with_suffix(".out.ipynb")
    assert out.is_file(), said
    return nbformat.read(out, as_version=4), said


def live_then_offline(source: Path, folder: Path) -> dict[str, Any]:
    """``source`` run live (scripted models over HTTP), then its executed copy run offline."""
    live_dir, offline_dir = folder / "live", folder / "offline"
    live_dir.mkdir(parents=True)
    offline_dir.mkdir()
    shutil.copy(source, live_dir / source.name)
    live, said_live = headless(
        live_dir / source.name, {"JUPYTER_AGENTS_SCRIPTED_HTTP": "1"}, offline=False
    )
    shutil.copy(live_dir / f"{source.stem}.out.ipynb", offline_dir / source.name)
    # Offline as a person with no key: scripted stand-ins answer in the kernel (code cells
    # that call the runtime themselves, unrecorded), and no request can leave the namespace.
    env = {"JUPYTER_AGENTS_SCRIPTED_HTTP": "0"}
    again, said_again = headless(offline_dir / source.name, env, offline=True)
    said = said_live + "\n---\n" + said_again
    return {
        "live": live,
        "again": again,
        "said": said,
        "folders": (str(live_dir), str(offline_dir)),
    }


TIMING = re.compile(
    r" · \d+(\.\d+)? (ms|s|min \d+ s)\b| · [\d.]+ rows/s| · done in [\d.]+ (ms|s)"
    r"|\b\d+(\.\d+)? ms\b"  # a time a cell measured and printed ("sandboxed 4.3 ms")
    r"|(?<= )\d+\.\d\ds +(?=\S)"  # a case's duration in an evaluation report's table, with
    # the padding after it (a duration of 10 s or more is one character wider)
)


class Stream(str):
    """Printed text: consecutive stream outputs are compared as one."""


def run_of(cell: Any) -> dict[str, Any]:
    """What an agent cell showed, timing aside: its saved run (header and blocks), its
    transcripts, its other outputs. A replayed run's own marks (the badge, the line saying
    it replayed, "replayed" on a card) are taken out, to compare with the live run."""
    shown: dict[str, Any] = {"outputs": []}
    for output in cell.outputs:
        data = output.get("data", {})
        if run_document.MIME_TYPE in data:
            doc = run_document.decode(data[run_document.MIME_TYPE])
            header = {k: v for k, v in doc["header"].items() if k not in _TIMES}
            shown["header"] = header
            shown["blocks"] = [_block(b) for b in doc["blocks"] if not _replay_notice(b)]
            shown["markdown"] = TIMING.sub("", data["text/markdown"].replace(" · replayed", ""))
        elif output.output_type == "stream":  # one text, however the kernel cut it
            text = TIMING.sub("", output.text)
            if shown["outputs"] and isinstance(shown["outputs"][-1], Stream):
                shown["outputs"][-1] = Stream(shown["outputs"][-1] + text)
            else:
                shown["outputs"].append(Stream(text))
        elif "text/plain" in data:
            shown["outputs"].append(TIMING.sub("", data["text/plain"]))
    return shown


_TIMES = ("started_at", "ended_at", "replayed")


def _replay_notice(block: dict[str, Any]) -> bool:
    return block.get("kind") == "notice" and "from this cell's recording" in block.get("text", "")


def _block(block: dict[str, Any]) -> dict[str, Any]:
    # ``escalation``: why a call that the sandbox stopped asked to run outside it; a replayed
    # call does not run, so it is not stopped and does not ask (its recorded approval shows)
    return {k: v for k, v in block.items() if k not in ("ms", "rev", "escalation", "replayed")}
