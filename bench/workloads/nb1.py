"""NB1: the notebook agent's tool calls, kernel -> frontend -> kernel, in a real JupyterLab
(headless Chromium; ours only: the peer has no notebook).

A notebook in JupyterLab (the end-to-end tests' server and browser, ``tests/e2e/lab.py``) runs
``%load_ext jupyter_agents``, then one cell that calls the notebook tools the way a run does
(for a changing tool, its card first: ``needs_approval`` reads the cells it shows from the page;
then ``FunctionTool.on_invoke_tool`` as if the person approved at once) and times each call in
the kernel with ``time.perf_counter``:

- ``echo_ms``: a ``ping`` request on the document comm, which the page answers with nothing
  (the floor: a comm message each way through the server and the page);
- ``read_cell_ms``: ``read_cell`` of a small cell (the page sends every cell);
- ``edit_cell_ms``: ``edit_cell`` of that cell (its card read from the page, then checked and
  applied in one transaction in the page's notebook model, the model told the new version);
- ``run_cells_ms``: ``run_cells`` of that cell (its card read from the page, then ``x = N``:
  the page shows it running, the kernel runs it on its loop, the page gets its outputs and
  count).

Every call is measured ``rounds`` times, interleaved. Smoke mode: 5 of each.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .._common import Impl, Measured, main

WORKLOAD = "NB1"

MEASURE = """import inspect, json, time
from jupyter_agents.notebook.workspace.cell_outputs import cell_version
from jupyter_agents.notebook.host import current_host
from jupyter_agents.notebook.workspace.notebook_tools import NotebookTools
from jupyter_agents.runtime.approvals import approved_call
from jupyter_agents.runtime.context import ToolContext
doc = current_host().document
tools = {t.name: t for t in NotebookTools()}
# a request is one typed call ({"op": ...}); a --rev from before that took the op alone
PING = {"op": "ping"} if "call" in inspect.signature(doc.request).parameters else "ping"

async def call(name, **args):
    start = time.perf_counter()
    tool, arguments = tools[name], json.dumps(args)
    ctx = ToolContext(context=None, tool_name=name, tool_call_id=name, tool_arguments=arguments,
                      tool_call=object())
    if callable(tool.needs_approval):  # the card: the cells it shows, read from the page
        await tool.needs_approval(ctx, args, name)
    token = approved_call.set(name)  # as if the person approved at once
    try:
        said = await tool.on_invoke_tool(ctx, arguments)
    finally:
        approved_call.reset(token)
    return (time.perf_counter() - start) * 1000, str(said)

samples = {"echo_ms": [], "read_cell_ms": [], "edit_cell_ms": [], "run_cells_ms": []}
source = "x = 0"
await call("read_cell", id="target")
for i in range(ROUNDS + WARMUP):
    start = time.perf_counter()
    await doc.request(PING)
    echo = (time.perf_counter() - start) * 1000
    read, said = await call("read_cell", id="target")
    assert "x = " in said, said
    new = f"x = {i + 1}"
    edit, said = await call("edit_cell", id="target", version=cell_version(source),
                            new_source=new)
    assert said.startswith("Edited cell target"), said
    source = new
    run, said = await call("run_cells", cells=[{"id": "target", "version": cell_version(new)}])
    assert said.startswith("Cell target ran as ["), said
    if i >= WARMUP:
        for name, value in zip(samples, (echo, read, edit, run)):
            samples[name].append(value)
with open("nb1.json", "w") as f:
    json.dump(samples, f)
print("NB1 done")"""


def measure(impl: Impl, quick: bool) -> Measured:
    root = Path(__file__).resolve().parents[2]
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from tests.e2e.lab import lab_session  # the end-to-end tests' JupyterLab and Chromium

    rounds, warmup = (5, 2) if quick else (200, 20)
    code = MEASURE.replace("ROUNDS", str(rounds)).replace("WARMUP", str(warmup))
    with lab_session() as session, session.lab("bench-nb1") as lab:
        lab.write_notebook(
            "nb1.ipynb", ["%load_ext jupyter_agents", "x = 0", code], ["setup", "target", "measure"]
        )
        lab.open("nb1.ipynb")
        lab.run_cell(0)
        lab.page.locator(".jp-OutputArea-output").first.wait_for(timeout=60_000)
        lab.run_cell(2)
        done = lab.outputs(2).filter(has_text="NB1 done").or_(lab.tracebacks())
        done.first.wait_for(timeout=600_000)
        if lab.tracebacks().count():
            raise RuntimeError(f"NB1's cell failed: {lab.tracebacks().first.text_content()}")
        samples = json.loads((session.server.root / "nb1.json").read_text())
    return Measured(metrics=samples, info={"rounds": rounds, "warmup": warmup})


if __name__ == "__main__":
    main(WORKLOAD, measure)
