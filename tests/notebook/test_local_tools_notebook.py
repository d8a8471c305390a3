"""notebooks/local-tools.ipynb in a real kernel, offline: the shell, a patch, an image and, with
Chromium, a browser click, each through its tool; a module planted under an installed module's
name, renamed; a kept sandbox that leaves nothing for the next command."""

from __future__ import annotations

import re

import pytest

from jupyter_agents.runtime.sandbox import find_bwrap

from .notebook_helpers import (
    NOTEBOOKS,
    RUN_TIMEOUT,
    assert_clean,
    assert_stored_without_outputs,
    stdout,
)
from .notebook_helpers import execute as run_notebook

NOTEBOOK = NOTEBOOKS / "local-tools.ipynb"


def test_stored_without_outputs() -> None:
    assert_stored_without_outputs(NOTEBOOK)


@pytest.mark.kernel
@pytest.mark.timeout(RUN_TIMEOUT)
def test_runs_offline_with_every_local_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    nb = run_notebook(NOTEBOOK, monkeypatch, JUPYTER_AGENTS_APPROVE="auto")
    assert_clean(nb)
    assert "workspace: ['app.py', 'plot.png']" in stdout(nb, "workspace")
    assert "sandbox: workspace-write | browser: yes" in stdout(nb, "tools")  # CI has both
    after = stdout(nb, "after")
    assert "return 'hello'" in after  # the patch was applied
    assert "button says: clicked" in after  # the browser was clicked
    run = next(c for c in nb.cells if c.get("id") == "run")
    shown = "".join(str(o.get("data", {}).get("text/html", "")) for o in run.outputs)
    assert "def greet()" in shown  # the shell's `cat app.py` output, in the transcript
    assert "done" in shown
    assert "approval on-failure · sandbox read-only" in stdout(nb, "policy")
    assert "notes: # Notes" in stdout(nb, "policy-after")  # written after it was let out
    scribe = next(c for c in nb.cells if c.get("id") == "policy-run")
    shown = "".join(str(o.get("data", {}).get("text/html", "")) for o in scribe.outputs)
    assert "[escalated]" in shown and "Read-only file system" in shown
    verdicts = {
        line.split(" | ")[0].strip(): line.split(" | ", 1)[1]
        for line in stdout(nb, "safety").splitlines()
        if "known safe" in line
    }
    assert verdicts == {
        "ls -la && grep -n TODO app.py": "known safe: True | dangerous: False",
        "cat x#; rm app.py": "known safe: False | dangerous: False",
        "sed -n 1wout app.py": "known safe: False | dangerous: False",
        "sort --out=app.py app.py": "known safe: False | dangerous: False",
        "rm -rf build": "known safe: False | dangerous: True",
    }
    confined = f"read | confined by: bubblewrap {find_bwrap()}, read-only, no network"
    assert confined in stdout(nb, "safety")
    kept = stdout(nb, "kept")
    assert "next command: /tmp/note gone, processes still sleeping: 0" in kept
    assert re.search(r"per command: sandboxed [0-9.]+ ms, unconfined [0-9.]+ ms", kept)
    planted = next(c for c in nb.cells if c.get("id") == "plant-run")
    shown = "".join(str(o.get("data", {}).get("text/html", "")) for o in planted.outputs)
    assert "renamed random.py -&gt; random.py.blocked" in shown
    assert "['helper.py', 'random.py.blocked']" in stdout(nb, "plant-after")
