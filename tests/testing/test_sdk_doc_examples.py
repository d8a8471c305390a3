"""The OpenAI Agents SDK documentation's examples of human-in-the-loop approvals, custom model
providers and tool guardrails, run unchanged here: each Python block is read from the SDK's
cached source distribution (``python -m jupyter_agents.testing.sdk_tests`` downloads it), run
with ``agents`` imported as ``jupyter_agents``, offline against the local OpenAI-compatible
server, and checked for what the example shows."""

from __future__ import annotations

import json
import re
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents.runtime.models import provider
from jupyter_agents.runtime.tracing.provider import DefaultTraceProvider
from jupyter_agents.runtime.tracing.setup import get_trace_provider
from jupyter_agents.testing.sdk_alias import SDK, AgentsAlias
from jupyter_agents.testing.sdk_tests import SDK_VERSION, cache_dir
from jupyter_agents.testing.server import FakeOpenAIServer, tool_call_reply
from tests.prerequisites import needs

SDK_SOURCE = cache_dir() / f"openai_agents-{SDK_VERSION}"

# under CI (which downloads it first, .ci/run) a missing cache fails instead of skipping
pytestmark = needs(
    (SDK_SOURCE / "docs").is_dir(),
    f"the SDK's source cached at {SDK_SOURCE} (python -m jupyter_agents.testing.sdk_tests)",
)


def python_blocks(doc: str) -> list[str]:
    """The ```python blocks of the SDK's ``docs/<doc>``, in order."""
    text = (SDK_SOURCE / "docs" / doc).read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)


def block_with(doc: str, marker: str) -> str:
    """The one block of ``doc`` that contains ``marker``."""
    found = [block for block in python_blocks(doc) if marker in block]
    assert len(found) == 1, f"{doc}: {len(found)} blocks contain {marker!r}"
    return found[0]


@pytest.fixture
def alias() -> Iterator[None]:
    """``import agents`` gives ``jupyter_agents`` for the test, and nothing after it."""
    finder = AgentsAlias()
    saved = {n: m for n, m in sys.modules.items() if n == SDK or n.startswith(SDK + ".")}
    for name in saved:
        del sys.modules[name]
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == SDK or n.startswith(SDK + ".")]:
            del sys.modules[name]
        sys.modules.update(saved)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, alias: None) -> Iterator[FakeOpenAIServer]:
    """The local server, as the OpenAI endpoint the examples' default models reach."""
    with FakeOpenAIServer() as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", running.api_key)
        monkeypatch.setattr(provider, "_settings", {"api": None, "client": None, "key": None})
        # an example may turn tracing off process-wide (set_tracing_disabled): undone after
        tracing = get_trace_provider()
        assert isinstance(tracing, DefaultTraceProvider)
        was_disabled = tracing.disabled
        provider._reset()
        try:
            yield running
        finally:
            tracing.set_disabled(was_disabled)
    provider._reset()


def run_block(source: str, namespace: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run ``source`` as a module's code, in ``namespace`` (kept), and return it."""
    namespace = {"__name__": "sdk_doc_example", **(namespace or {})}
    exec(compile(source, "<sdk doc example>", "exec"), namespace)
    return namespace


def tool_outputs(server: FakeOpenAIServer, request: int) -> list[str]:
    """The tool outputs the model was sent in request number ``request``."""
    body = server.requests[request].body or {}
    items = body.get("input") or body.get("messages") or []
    outputs = [i.get("output") for i in items if i.get("type") == "function_call_output"]
    outputs += [i.get("content") for i in items if i.get("role") == "tool"]
    return [str(o) for o in outputs]


# -- human in the loop (docs/human_in_the_loop.md) -----------------------------------------------


async def test_approval_rules_pause_the_calls_they_name(server: FakeOpenAIServer) -> None:
    example = run_block(block_with("human_in_the_loop.md", "requires_review"))
    from agents import Runner

    agent = example["agent"]
    server.enqueue(tool_call_reply("cancel_order", {"order_id": 42}))
    paused = await Runner.run(agent, "Cancel order 42.")
    assert [i.name for i in paused.interruptions] == ["cancel_order"]

    server.enqueue(
        tool_call_reply("send_email", {"subject": "Your refund", "body": "..."}),
    )
    refund = await Runner.run(agent, "Email about the refund.")
    assert [i.name for i in refund.interruptions] == ["send_email"]

    server.enqueue(tool_call_reply("send_email", {"subject": "Hello", "body": "..."}), "Sent.")
    hello = await Runner.run(agent, "Say hello.")
    assert hello.interruptions == [] and hello.final_output == "Sent."
    assert tool_outputs(server, -1) == ["Sent 'Hello'"]


async def test_a_rejection_message_reaches_the_model(server: FakeOpenAIServer) -> None:
    from agents import Agent, Runner
    from agents.decorators import tool

    @tool(needs_approval=True)
    def publish(post: str) -> str:
        """Publish a post."""
        return "published"

    agent = Agent(name="Publisher", tools=[publish])
    server.enqueue(tool_call_reply("publish", {"post": "hi"}))
    paused = await Runner.run(agent, "Publish hi.")
    state, (interruption,) = paused.to_state(), paused.interruptions

    example = run_block(
        block_with("human_in_the_loop.md", "format_rejection"),
        {"state": state, "interruption": interruption},
    )
    server.enqueue("Not published.")
    resumed = await Runner.run(agent, state, run_config=example["run_config"])
    assert resumed.final_output == "Not published."
    assert tool_outputs(server, 1) == [
        "Publish action was canceled because the reviewer denied approval."
    ]


@pytest.mark.parametrize("answer", ["y", "n"])
def test_the_persisted_approval_loop_resumes_the_run(
    server: FakeOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    answer: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    asked: list[str] = []

    def reply(prompt: str = "") -> str:
        asked.append(prompt)
        return answer

    monkeypatch.setattr("builtins.input", reply)
    server.enqueue(tool_call_reply("get_temperature", {"city": "Oakland"}), "20 degrees.")
    run_block(
        block_with("human_in_the_loop.md", "needs_oakland_approval"), {"__name__": "__main__"}
    )

    # ``interruption.arguments`` is the parsed dict here (the SDK's is the JSON text)
    assert asked == ["Approve get_temperature with {'city': 'Oakland'}? [y/N]: "]
    saved = json.loads((tmp_path / ".cache" / "hitl_state.json").read_text())
    assert saved  # the paused state, written by to_string() and read back with from_json
    assert capsys.readouterr().out.strip() == "20 degrees."
    (output,) = tool_outputs(server, 1)
    if answer == "y":
        assert output == "The temperature in Oakland is 20° Celsius"
    else:
        assert "get_temperature" in output and "20°" not in output


# -- custom model providers (docs/models/index.md links examples/model_providers) ---------------


@pytest.mark.parametrize("program", ["custom_example_provider.py", "custom_example_agent.py"])
def test_a_custom_model_provider_answers(
    server: FakeOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    program: str,
) -> None:
    monkeypatch.setenv("EXAMPLE_BASE_URL", server.base_url)
    monkeypatch.setenv("EXAMPLE_API_KEY", server.api_key)
    monkeypatch.setenv("EXAMPLE_MODEL_NAME", "my-local-model")
    server.enqueue(tool_call_reply("get_weather", {"city": "Tokyo"}), "Sun on Tokyo / ... / ...")
    path = SDK_SOURCE / "examples" / "model_providers" / program
    runpy.run_path(str(path), run_name="__main__")

    out = capsys.readouterr().out
    assert "[debug] getting weather for Tokyo" in out
    assert out.strip().endswith("Sun on Tokyo / ... / ...")
    assert [r.path for r in server.requests] == ["/v1/chat/completions"] * 2
    assert {(r.body or {}).get("model") for r in server.requests} == {"my-local-model"}
    assert tool_outputs(server, 1) == ["The weather in Tokyo is sunny."]


# -- tool guardrails (docs/guardrails.md) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tool_output"),
    [
        ("my key is sk-123", "Remove secrets before calling this tool."),
        ("hello world", "length:11"),
    ],
)
def test_the_tool_input_guardrail_rejects_secrets(
    server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], text: str, tool_output: str
) -> None:
    server.enqueue(tool_call_reply("classify_text", {"text": text}), "Classified.")
    run_block(block_with("guardrails.md", "block_secrets"))
    assert capsys.readouterr().out.strip() == "Classified."
    assert tool_outputs(server, 1) == [tool_output]


def test_the_tool_output_guardrail_replaces_a_leaking_output(
    server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.enqueue("Nothing to classify.")  # the example's own run
    example = run_block(block_with("guardrails.md", "redact_output"))
    assert capsys.readouterr().out.strip() == "Nothing to classify."
    from agents import Runner

    tool = example["classify_text"]
    tool.on_invoke_tool = _leaking(tool.on_invoke_tool)  # the tool now leaks a key
    server.enqueue(tool_call_reply("classify_text", {"text": "x"}), "Done.")
    assert Runner.run_sync(example["agent"], "classify x").final_output == "Done."
    assert tool_outputs(server, -1) == ["Output contained sensitive data."]


def _leaking(invoke: Any) -> Any:
    async def leaking(ctx: Any, arguments: str) -> str:
        return "sk-secret " + str(await invoke(ctx, arguments))

    return leaking
