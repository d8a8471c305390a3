"""Credentials in model settings never reach a trace (JSONL, OpenTelemetry), whatever the
sensitive-data setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agents import Agent, ModelSettings, RunConfig, Runner
from jupyter_agents.runtime.tracing import JSONLinesExporter, set_trace_processors
from jupyter_agents.runtime.tracing.redact import redact_secrets
from jupyter_agents.testing import ScriptedModel, text

SECRETS = ["sk-live-abcdefghijklmnop", "hunter2-session", "Bearer xyz-123", "q-token-value"]

SETTINGS = ModelSettings(
    extra_headers={"Authorization": "Bearer xyz-123", "X-Custom": "hunter2-session"},
    extra_query={"api_key": "sk-live-abcdefghijklmnop", "page": "2"},
    extra_body={"nested": {"access_token": "q-token-value"}, "keep": "visible-value"},
)


@pytest.mark.parametrize("sensitive", [True, False])
async def test_jsonl_traces_hold_no_credentials(tmp_path: Path, sensitive: bool) -> None:
    path = tmp_path / "trace.jsonl"
    exporter = JSONLinesExporter(path)
    set_trace_processors([exporter])
    try:
        agent = Agent(name="a", model=ScriptedModel([[text("hi")]]), model_settings=SETTINGS)
        config = RunConfig(trace_include_sensitive_data=sensitive)
        await Runner.run(agent, "go", run_config=config)
    finally:
        set_trace_processors([])
        exporter.shutdown()
    written = path.read_text()
    assert '"generation"' in written and '"model_config"' in written
    # The request's extras stay out of traces (ModelSettings.to_traceable_dict, as in the SDK):
    # a header, query or body value is never recorded, a secret or not.
    assert "visible-value" not in written and '"page"' not in written
    for secret in SECRETS:
        assert secret not in written


def test_otel_spans_hold_no_credentials() -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from jupyter_agents.runtime.tracing.otel import OpenTelemetryExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    set_trace_processors([OpenTelemetryExporter(provider)])
    try:
        agent = Agent(name="a", model=ScriptedModel([[text("hi")]]), model_settings=SETTINGS)
        Runner.run_sync(agent, "go")
    finally:
        set_trace_processors([])
        provider.shutdown()
    dumped = repr([dict(s.attributes or {}) for s in memory.get_finished_spans()])
    assert "chat" in repr([s.name for s in memory.get_finished_spans()])
    for secret in SECRETS:
        assert secret not in dumped


def test_secret_looking_values_are_redacted_at_any_depth() -> None:
    assert redact_secrets({"a": [{"password": "p"}, "Bearer abc"], "b": 1}) == {
        "a": [{"password": "[redacted]"}, "[redacted]"],
        "b": 1,
    }


def test_a_json_schema_whose_type_is_a_list_is_redacted_like_any_value() -> None:
    """A tool's JSON schema says ``"type": ["string", "null"]``: the reasoning-type check
    must not treat it as a key (an MCP tool's schema failed every run that recorded it)."""
    schema = {"type": "object", "properties": {"city": {"type": ["string", "null"]}}}
    call = {"tools": [schema], "api_key": "sk-abc"}
    assert redact_secrets(call) == {"tools": [schema], "api_key": "[redacted]"}
