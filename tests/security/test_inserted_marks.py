"""A cell's ``jupyter_agents.inserted`` mark is metadata, and a notebook someone sends writes its
metadata: the mark must not let them decide which cells a headless Run All skips.

The headless runner takes out, until the replayed run inserts them again, only the cells this
person's agent inserted and nobody changed since: their mark is keyed with the person's secret
over the cell's text (``signing.inserted_mark``). The attacker's marks (the old unkeyed
length-and-FNV form, one made under another secret, one copied onto other text) leave the cell
where it is, and it runs in its turn."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import pytest

from jupyter_agents.notebook.workspace.headless_document import HeadlessDocument
from jupyter_agents.runtime.replay import signing

FNV_MARK = "5-41f65c6b"
"""The unkeyed mark earlier versions wrote for ``x = 1`` (anyone can compute it)."""


def cell(source: str, mark: object = None) -> Any:
    made = nbformat.v4.new_code_cell(source)
    if mark is not None:
        made.metadata["jupyter_agents"] = {"inserted": mark}
    return made


def lifted_by(cells: list[Any]) -> list[str]:
    """The sources of the cells the headless runner takes out of ``cells`` at its start."""
    client = SimpleNamespace(nb=nbformat.v4.new_notebook(cells=cells), comm_open_handlers={})
    document = HeadlessDocument(client, "nb.ipynb")
    document._start_clean()
    return [str(c.source) for _, c in document.lifted]


def test_only_the_persons_keyed_mark_over_the_same_text_lifts_a_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "someone-else"))
    theirs = signing.inserted_mark("x = 3")
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "me"))
    mine = signing.inserted_mark("x = 2")
    assert theirs != signing.inserted_mark("x = 3")  # another secret, another mark
    cells = [
        cell("x = 1", FNV_MARK),  # the old unkeyed mark, forged
        cell("x = 2", mine),  # mine, unchanged: the only one taken out
        cell("x = 3", theirs),  # made under someone else's secret
        cell("x = 4", mine),  # my mark copied onto other text (or my cell edited since)
        cell("x = 5", ["x = 5"]),  # malformed
        cell("x = 6", {"inserted": mine}),
    ]
    assert lifted_by(cells) == ["x = 2"]


@pytest.mark.kernel
@pytest.mark.timeout(150)
def test_a_received_cell_with_a_forged_mark_runs_in_a_headless_run_all(tmp_path: Path) -> None:
    """End to end: the runner and a real kernel. Before the mark was keyed, the forged cell
    was taken out, put back unrun, and its output missing from the executed notebook."""
    source = "open('RAN', 'w').write('x')\nprint('ran')"
    forged = cell(source, forged_fnv(source))
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb = nbformat.v4.new_notebook(cells=[forged], metadata={"kernelspec": kernel})
    nbformat.write(nb, tmp_path / "received.ipynb")
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "JUPYTER_AGENTS"))}
    env = {**keep, "JUPYTER_DATA_DIR": str(tmp_path / "my-data")}
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '/usr/bin:/bin')}"
    done = subprocess.run(
        [sys.executable, "-m", "jupyter_agents.headless", "received.ipynb"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert (tmp_path / "RAN").exists(), said
    executed = nbformat.read(tmp_path / "received.out.ipynb", as_version=4)
    assert [o.get("text") for o in executed.cells[0].outputs] == ["ran\n"], said


def forged_fnv(source: str) -> str:
    """The unkeyed length-and-FNV-1a mark, as an attacker computes it."""
    data = source.encode("utf-8")
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{len(data)}-{value:08x}"


def test_the_forged_fnv_helper_computes_the_old_mark() -> None:
    assert forged_fnv("x = 1") == FNV_MARK  # the value the old lab extension test pinned
