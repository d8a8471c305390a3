"""Execute notebooks/runtime.ipynb in a real kernel and check what its cells print."""

from __future__ import annotations

import nbformat
import pytest

from jupyter_agents.testing.server import Reply, ReplyToolCall, fake_openai_server, tool_call_reply

from .notebook_helpers import (
    NOTEBOOKS,
    RUN_TIMEOUT,
    assert_clean,
    assert_stored_without_outputs,
    cell,
    stdout,
)
from .notebook_helpers import execute as run_notebook

NOTEBOOK = NOTEBOOKS / "runtime.ipynb"


def execute(monkeypatch: pytest.MonkeyPatch, **env: str) -> nbformat.NotebookNode:
    """Run runtime.ipynb offline (or with the given OpenAI settings)."""
    return run_notebook(NOTEBOOK, monkeypatch, **env)


def test_stored_without_outputs() -> None:
    assert_stored_without_outputs(NOTEBOOK)


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
