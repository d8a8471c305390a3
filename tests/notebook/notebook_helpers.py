"""Executing the project's notebooks in a real kernel, and reading their outputs."""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
CELL_TIMEOUT = 60
"""Seconds each cell (and the kernel start) may take."""

RUN_TIMEOUT = 4 * CELL_TIMEOUT
"""Seconds a test that executes a notebook once may take (normally a few)."""

OPENAI_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_DEFAULT_MODEL",
    "JUPYTER_AGENTS_OPENAI_API",
)


def execute(path: Path, monkeypatch: pytest.MonkeyPatch, **env: str) -> nbformat.NotebookNode:
    """Run the notebook in a fresh python3 kernel whose environment has only the given OpenAI
    settings (none: offline, with the scripted model); a cell error fails the test with its
    traceback."""
    for name in OPENAI_ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    nb: nbformat.NotebookNode = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        startup_timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return nb


def cell(nb: nbformat.NotebookNode, cell_id: str) -> nbformat.NotebookNode:
    """The code cell with id ``cell_id``."""
    found: nbformat.NotebookNode = next(c for c in nb.cells if c.get("id") == cell_id)
    return found


def stdout(nb: nbformat.NotebookNode, cell_id: str) -> str:
    """Everything the cell printed."""
    outputs = cell(nb, cell_id).outputs
    return "".join(o.text for o in outputs if o.output_type == "stream" and o.name == "stdout")


def fails_on_purpose(cell: nbformat.NotebookNode) -> bool:
    """The cell is tagged ``raises-exception`` (nbclient and JupyterLab's Run All go on)."""
    return "raises-exception" in cell.metadata.get("tags", [])


def assert_clean(nb: nbformat.NotebookNode) -> None:
    """Every code cell ran, and none errored (but those tagged to fail on purpose) or wrote to
    stderr."""
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        assert c.execution_count is not None or not c.source, f"cell {c.id} did not run"
        for output in c.outputs:
            if not fails_on_purpose(c):
                assert output.output_type != "error", f"cell {c.id}: {output.get('ename')}"
            if output.output_type == "stream":
                assert output.name == "stdout", f"cell {c.id} wrote to stderr: {output.text}"


def assert_stored_without_outputs(path: Path) -> nbformat.NotebookNode:
    """The stored notebook is valid, uses python3, gives every cell its own fixed id (tests
    find cells by id) and holds no outputs."""
    nb: nbformat.NotebookNode = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    ids = [c.get("id") for c in nb.cells]
    assert all(ids) and len(set(ids)) == len(ids), "every cell needs its own fixed id"
    for c in nb.cells:
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None, f"cell {c.id} has outputs"
    return nb
