"""Execute notebooks/runtime.ipynb in a real kernel and check what its cells print."""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat
import pytest

from jupyter_agents.testing.server import Reply, ReplyToolCall, fake_openai_server, tool_call_reply

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "runtime.ipynb"
CELL_TIMEOUT = 60
"""Seconds each cell (and the kernel start) may take."""

OPENAI_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_DEFAULT_MODEL",
    "JUPYTER_AGENTS_OPENAI_API",
)

RUN_TIMEOUT = 4 * CELL_TIMEOUT
"""Seconds a test that executes the notebook once may take (normally a few)."""


def execute(monkeypatch: pytest.MonkeyPatch, **env: str) -> nbformat.NotebookNode:
    """Run the notebook in a fresh python3 kernel whose environment has only the given
    OpenAI settings; a cell error fails the test with the cell's traceback."""
    for name in OPENAI_ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        startup_timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    return nb


def cell(nb: nbformat.NotebookNode, cell_id: str) -> nbformat.NotebookNode:
    """The code cell with id ``cell_id``."""
    return next(c for c in nb.cells if c.get("id") == cell_id)


def stdout(nb: nbformat.NotebookNode, cell_id: str) -> str:
    """Everything the cell printed."""
    outputs = cell(nb, cell_id).outputs
    return "".join(o.text for o in outputs if o.output_type == "stream" and o.name == "stdout")


def assert_clean(nb: nbformat.NotebookNode) -> None:
    """Every code cell ran, and none errored or wrote to stderr."""
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        assert c.execution_count is not None, f"cell {c.id} did not run"
        for output in c.outputs:
            assert output.output_type != "error", f"cell {c.id}: {output.get('ename')}"
            if output.output_type == "stream":
                assert output.name == "stdout", f"cell {c.id} wrote to stderr: {output.text}"


def test_stored_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    for c in nb.cells:
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None, f"cell {c.id} has outputs"


@pytest.mark.kernel
@pytest.mark.timeout(RUN_TIMEOUT)
def test_runs_offline_with_the_scripted_model(monkeypatch: pytest.MonkeyPatch) -> None:
    nb = execute(monkeypatch)
    assert_clean(nb)

    assert "ScriptedModel (offline)" in stdout(nb, "choose-model")
    assert "get_weather - Get the current weather in a city." in stdout(nb, "tools")

    paris = "Paris is sunny at 22 °C and has about 2.1 million inhabitants."
    assert stdout(nb, "run-await").strip() == paris
    items = stdout(nb, "items")
    assert 'tool call    get_weather({"city": "Paris"})' in items
    assert "tool output  'sunny, 22 °C'" in items
    assert "tool output  2100000" in items
    assert f"message      {paris}" in items
    assert "model requests: 2" in items

    oslo = "Yes, there is light rain in Oslo (9 °C). Take an umbrella."
    assert stdout(nb, "run-sync").strip() == oslo

    streamed = stdout(nb, "run-streamed")
    assert '[tool] get_weather({"city": "Tokyo"})' in streamed
    assert "[tool] -> cloudy, 18 °C" in streamed
    assert "[tool] -> light rain, 9 °C" in streamed
    assert (
        "Tokyo is cloudy at 18 °C, while Oslo has light rain at 9 °C: "
        "Tokyo is the warmer and drier of the two today." in streamed
    )
    assert "done: 5 items" in streamed
    # Flushed deltas reach the notebook as separate stream messages: the text arrived live.
    chunks = [o for o in cell(nb, "run-streamed").outputs if o.output_type == "stream"]
    assert len(chunks) > 5


@pytest.mark.kernel
@pytest.mark.http
@pytest.mark.timeout(RUN_TIMEOUT)
def test_uses_the_default_model_when_openai_is_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with fake_openai_server() as server:
        server.enqueue(
            Reply(
                outputs=(
                    ReplyToolCall("get_weather", {"city": "Paris"}),
                    ReplyToolCall("get_population", {"city": "Paris"}),
                )
            ),
            "Served: Paris.",
            tool_call_reply("get_weather", {"city": "Oslo"}),
            "Served: Oslo.",
            tool_call_reply("get_weather", {"city": "Tokyo"}),
            "Served: Tokyo.",
        )
        nb = execute(
            monkeypatch,
            OPENAI_BASE_URL=server.base_url,
            OPENAI_API_KEY=server.api_key,
            OPENAI_DEFAULT_MODEL="served-model",
        )
        requests = server.model_requests

    assert_clean(nb)
    assert "the default OpenAI model" in stdout(nb, "choose-model")
    assert stdout(nb, "run-await").strip() == "Served: Paris."
    assert "tool output  2100000" in stdout(nb, "items")
    assert stdout(nb, "run-sync").strip() == "Served: Oslo."
    assert "[tool] -> cloudy, 18 °C" in stdout(nb, "run-streamed")
    assert "Served: Tokyo." in stdout(nb, "run-streamed")
    # A non-OpenAI base URL selects Chat Completions; the last run streams.
    assert [r.path for r in requests] == ["/v1/chat/completions"] * 6
    assert {r.body["model"] for r in requests if r.body} == {"served-model"}
    assert [r.stream for r in requests] == [False] * 4 + [True] * 2
