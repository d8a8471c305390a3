"""``%load_ext jupyter_agents`` in a fresh kernel imports nothing heavy; the first agent cell
after it still runs (issue 37, point 5).

The extension's magics import their modules when first used, the displays are registered by
class name and the tools package imports its names on first use, so loading costs a fraction
of the kernel's own start (N1's ``load_ext_s``); what a run needs comes with the first run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import kernel_value
from .frontend import Frontend

pytestmark = pytest.mark.kernel

HEAVY = (
    "openai",
    "litellm",
    "griffe",
    "pydantic",
    "genai_prices",
    "anywidget",
    "ipywidgets",
    "markdown_it",
)
"""Packages loading the extension must not import (a run, a widget or a rendered text does)."""

OURS = (
    # pydantic-based: the function-tool schema machinery
    "jupyter_agents.runtime.tools.function.function_tool",
    "jupyter_agents.runtime.tools.function.schema",
    "jupyter_agents.runtime.tools.function._params_model",
    "jupyter_agents.runtime.tools.function._fast_schema",
    "jupyter_agents.runtime._run.state_schema",
    # the run itself, its result and its views
    "jupyter_agents.runtime.run",
    "jupyter_agents.runtime.agent",
    "jupyter_agents.runtime.result",
    "jupyter_agents.runtime.run_state",
    "jupyter_agents.runtime.batch.run_batch",
    "jupyter_agents.notebook.cells.cell",
    "jupyter_agents.notebook.magics.agent_magic",
    "jupyter_agents.notebook.view.run_view",
    "jupyter_agents.notebook.view.widget",
    "jupyter_agents.notebook.view.eval_view",
    "jupyter_agents.notebook.view.batch_view",
    # the comms' typed messages (annotations only; the comms need just comm_names.py to load)
    "jupyter_agents.notebook.runs_contract",
    "jupyter_agents.notebook.document_contract",
)
"""Modules of ours that loading the extension must not import."""

LOADED = "sorted(m for m in sys.modules if m in HEAVY or m.split('.')[0] in HEAVY or m in OURS)"


@pytest.fixture(scope="module")
def fresh() -> Iterator[Frontend]:
    """A kernel of its own: its first cell loads the extension."""
    frontend = Frontend()
    try:
        yield frontend
    finally:
        frontend.close()


def test_loading_imports_nothing_heavy_and_the_first_agent_cell_runs(fresh: Frontend) -> None:
    msg_id = fresh.execute("%load_ext jupyter_agents")
    assert fresh.reply(msg_id, timeout=60)["content"]["status"] == "ok"
    assert "jupyter_agents" in fresh.stdout(msg_id)  # the banner
    fresh.run(f"import sys\nHEAVY, OURS = {HEAVY!r}, {OURS!r}")
    assert kernel_value(fresh, LOADED) == []

    fresh.run(
        "from jupyter_agents import tool\n"
        "from jupyter_agents.testing import ScriptedModel, text, tool_call\n"
        "@tool\n"
        "def get_weather(city: str) -> str:\n"
        '    """Current weather for a city."""\n'
        '    return f"Sunny in {city}"\n'
        "demo = ScriptedModel([[tool_call('get_weather', {'city': 'Paris'}, call_id='w1')],"
        " [text('It is sunny in Paris.')]])\n"
        "%agent model demo"
    )
    before = len(fresh.run_widgets())
    fresh.run("%%agent\nWhat's the weather in Paris?", timeout=60)
    comm = fresh.widget(before)
    fresh.wait_for(lambda: fresh.state(comm)["header"].get("live") is False, what="the end")
    state = fresh.state(comm)
    assert state["header"]["status"] == "done", state["header"]
    cards = [b for b in state["blocks"] if b.get("kind", "tool") == "tool"]
    assert [(c.get("name"), c.get("call_id")) for c in cards] == [("get_weather", "w1")], cards
    result = "__import__('jupyter_agents').last_result().final_output"
    assert kernel_value(fresh, result) == "It is sunny in Paris."
