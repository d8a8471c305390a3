"""notebooks/mcp.ipynb in a real kernel, offline: a stdio MCP server added with %agent mcp, its
tools used by the notebook agent (the destructive one approved), and the notebook's own tool
served over MCP and called by an MCP client."""

from __future__ import annotations

import pytest

from .notebook_helpers import (
    NOTEBOOKS,
    RUN_TIMEOUT,
    assert_clean,
    assert_stored_without_outputs,
    cell,
    stdout,
)
from .notebook_helpers import execute as run_notebook

NOTEBOOK = NOTEBOOKS / "mcp.ipynb"


def test_stored_without_outputs() -> None:
    assert_stored_without_outputs(NOTEBOOK)


@pytest.mark.kernel
@pytest.mark.timeout(RUN_TIMEOUT)
def test_runs_offline_with_a_server_and_serves_its_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    nb = run_notebook(NOTEBOOK, monkeypatch, JUPYTER_AGENTS_APPROVE="auto")
    assert_clean(nb)
    added = stdout(nb, "add")
    assert "MCP server 'notes' is connected; its tools: read_note, delete_note" in added
    assert "notes: connected; approval destructive;" in added
    shown = "".join(str(o.get("data", {}).get("text/html", "")) for o in cell(nb, "run").outputs)
    assert "mcp__notes__read_note" in shown and "from notes › read_note" in shown
    assert "buy milk" in shown and "[destructive]" in shown
    served = stdout(nb, "serve")
    assert "serving 1 tool(s) at http://127.0.0.1:" in served
    assert "tools: ['revenue'] | revenue(north) = 400" in stdout(nb, "client")
    done = stdout(nb, "cleanup")
    assert "stopped serving the toolbox" in done and "removed MCP server 'notes'" in done
