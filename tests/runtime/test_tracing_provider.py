"""Tracing in the SDK's shape: the trace provider (``get_trace_provider`` /
``set_trace_provider``), ``Scope``, ISO 8601 times, ``trace(tracing=...)``, persisted traces
(``TraceState``, ``reattach_trace``) and ``BackendSpanExporter``, which posts to OpenAI's
traces endpoint (here: a local HTTP server, or a mock transport for OpenAI's own URL)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
import pytest

from jupyter_agents import Agent, RunConfig, Runner
from jupyter_agents.runtime import tracing
from jupyter_agents.runtime.tracing import (
    AgentSpanData,
    DefaultTraceProvider,
    NoOpTrace,
    Scope,
    Span,
    Trace,
    TraceProvider,
    TraceState,
    TracingProcessor,
    agent_span,
    custom_span,
    function_span,
    generation_span,
    get_trace_provider,
    reattach_trace,
    set_trace_processors,
    set_trace_provider,
    set_tracing_disabled,
    trace,
)
from jupyter_agents.runtime.tracing.backend import BackendSpanExporter, default_processor
from jupyter_agents.testing import ScriptedModel, text


class Recorder(TracingProcessor):
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []
        self.spans: list[Span[Any]] = []
        self.flushed = self.shut = 0

    def on_trace_start(self, trace: Trace) -> None:
        self.events.append(("trace_start", trace.trace_id))

    def on_trace_end(self, trace: Trace) -> None:
        self.events.append(("trace_end", trace.trace_id))

    def on_span_start(self, span: Span[Any]) -> None:
        self.events.append(("span_start", span.span_data.type))

    def on_span_end(self, span: Span[Any]) -> None:
        self.events.append(("span_end", span.span_data.type))
        self.spans.append(span)

    def force_flush(self) -> None:
        self.flushed += 1

    def shutdown(self) -> None:
        self.shut += 1


@pytest.fixture
def rec() -> Iterator[Recorder]:
    saved = tracing.get_trace_processors()
    recorder = Recorder()
    set_trace_processors([recorder])
    yield recorder
    set_trace_processors(saved)
    set_tracing_disabled(False)


# --- the provider -------------------------------------------------------------------------


class CountingProvider(DefaultTraceProvider):
    """A provider of one's own: counts what it makes, on a fixed clock."""

    def __init__(self) -> None:
        super().__init__()
        self.traces = self.spans = 0

    def time_iso(self) -> str:
        return "2030-01-01T00:00:00+00:00"

    def create_trace(self, name: str, *args: Any, **kwargs: Any) -> Trace:
        self.traces += 1
        return super().create_trace(name, *args, **kwargs)

    def create_span(self, span_data: Any, *args: Any, **kwargs: Any) -> Any:
        self.spans += 1
        return super().create_span(span_data, *args, **kwargs)


def test_a_provider_set_with_set_trace_provider_makes_every_trace_and_span() -> None:
    default = get_trace_provider()
    provider = CountingProvider()
    recorder = Recorder()
    provider.register_processor(recorder)
    set_trace_provider(provider)
    try:
        assert get_trace_provider() is provider
        with trace("w") as t, custom_span("c") as span:
            pass
    finally:
        set_trace_provider(default)
    assert (provider.traces, provider.spans) == (1, 1)
    assert span.started_at == span.ended_at == "2030-01-01T00:00:00+00:00"
    assert recorder.events == [
        ("trace_start", t.trace_id),
        ("span_start", "custom"),
        ("span_end", "custom"),
        ("trace_end", t.trace_id),
    ]
    assert isinstance(provider, TraceProvider)


def test_a_disabled_provider_still_flushes_and_shuts_down_its_processors() -> None:
    provider = DefaultTraceProvider()
    recorder = Recorder()
    provider.register_processor(recorder)
    provider.set_disabled(True)
    assert isinstance(provider.create_trace("w"), NoOpTrace)
    provider.force_flush()
    provider.shutdown()
    assert (recorder.flushed, recorder.shut) == (1, 1)


def test_the_environment_variable_turns_a_new_provider_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    provider = DefaultTraceProvider()
    provider.register_processor(Recorder())
    assert provider.create_trace("w").export() is None
    provider.set_disabled(False)  # set_disabled wins
    assert provider.create_trace("w").export() is not None


# --- scope, times, keys, metadata ---------------------------------------------------------


def test_scope_reads_and_sets_the_current_trace_and_span(rec: Recorder) -> None:
    assert Scope.get_current_trace() is None and Scope.get_current_span() is None
    with trace("w") as t, agent_span("a") as span:
        assert Scope.get_current_trace() is t and Scope.get_current_span() is span
    assert Scope.get_current_trace() is None and Scope.get_current_span() is None
    token = Scope.set_current_trace(t)
    assert tracing.get_current_trace() is t
    Scope.reset_current_trace(token)
    assert tracing.get_current_trace() is None


def test_times_are_iso_8601_in_utc_and_in_order(rec: Recorder) -> None:
    with trace("w") as t, function_span("f") as span:
        pass
    times = [t.started_at, span.started_at, span.ended_at, t.ended_at]
    assert all(isinstance(x, str) for x in times)
    parsed = [datetime.fromisoformat(x) for x in times if x is not None]
    assert all(str(p.utcoffset()) == "0:00:00" for p in parsed)
    assert parsed == sorted(parsed)
    record = span.export()
    assert record is not None and record["started_at"] == span.started_at


def test_a_tracing_key_reaches_the_spans_and_to_json_only_on_request(rec: Recorder) -> None:
    with trace("w", tracing={"api_key": "sk-trace"}) as t, custom_span("c") as span:
        assert span.tracing_api_key == t.tracing_api_key == "sk-trace"
    assert "tracing_api_key" not in (t.to_json() or {})
    assert (t.to_json(include_tracing_api_key=True) or {})["tracing_api_key"] == "sk-trace"


async def test_a_runs_tracing_key_is_its_traces(rec: Recorder) -> None:
    model = ScriptedModel([[text("hi")]])
    config = RunConfig(tracing={"api_key": "sk-run"})
    await Runner.run(Agent(name="a", model=model), "hello", run_config=config)
    assert rec.spans and {s.tracing_api_key for s in rec.spans} == {"sk-run"}


def test_spans_carry_their_traces_metadata_and_export_its_routing_keys(rec: Recorder) -> None:
    metadata = {"agent_harness_id": "h1", "user": "u1"}
    with trace("w", metadata=metadata), agent_span("a") as span:
        assert span.trace_metadata == metadata
        span.span_data.metadata = {"usage": {"requests": 1}}  # type: ignore[attr-defined]
    record = span.export()
    assert record is not None
    assert record["metadata"] == {"agent_harness_id": "h1", "usage": {"requests": 1}}
    with trace("w", metadata={"user": "u1"}), custom_span("c") as plain:
        pass
    assert "metadata" not in (plain.export() or {})


def test_a_disabled_span_silences_the_spans_inside_it(rec: Recorder) -> None:
    with trace("w"), agent_span("a"):
        with function_span("f", disabled=True) as quiet, generation_span(model="m"):
            assert Scope.get_current_span() is not None
        assert quiet.export() is None
    assert [s.span_data.type for s in rec.spans] == ["agent"]


# --- persisted traces ---------------------------------------------------------------------


def test_a_reattached_trace_continues_without_a_second_start_or_end(rec: Recorder) -> None:
    with trace("w", group_id="g", metadata={"k": "v"}, tracing={"api_key": "sk"}) as original:
        pass
    state = TraceState.from_trace(original)
    assert state is not None
    saved = state.to_json()
    assert saved is not None and "tracing_api_key" not in saved  # only its fingerprint
    assert saved["tracing_api_key_hash"] and saved["id"] == original.trace_id
    restored = TraceState.from_json(saved)
    assert restored is not None
    again = reattach_trace(restored, tracing_api_key="sk")
    assert again is not None and again.trace_id == original.trace_id
    with again, custom_span("after") as span:
        assert span.trace_id == original.trace_id and span.tracing_api_key == "sk"
    assert [e[0] for e in rec.events] == [
        "trace_start",
        "trace_end",
        "span_start",
        "span_end",
    ]
    assert reattach_trace(TraceState()) is None


# --- BackendSpanExporter ------------------------------------------------------------------


class Ingest(BaseHTTPRequestHandler):
    """A traces endpoint: answers each POST with the next status of ``statuses``."""

    statuses: list[int] = []
    received: list[tuple[dict[str, str], Any]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((dict(self.headers.items()), json.loads(body)))
        status = self.statuses.pop(0) if self.statuses else 200
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def ingest() -> Iterator[tuple[str, type[Ingest]]]:
    handler = type("Handler", (Ingest,), {"statuses": [], "received": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/traces/ingest", handler
    server.shutdown()
    server.server_close()


def test_the_backend_exporter_posts_traces_and_spans_over_http(
    rec: Recorder, ingest: tuple[str, type[Ingest]]
) -> None:
    url, handler = ingest
    exporter = BackendSpanExporter(api_key="sk-own", organization="org", endpoint=url)
    with trace("w", metadata={"k": "v"}) as t, custom_span("c", data={"x": 1}) as span:
        pass
    with trace("keyed", tracing={"api_key": "sk-trace"}) as keyed:
        pass
    try:
        exporter.export([t, span, keyed])
    finally:
        exporter.close()
    (headers, body), (keyed_headers, keyed_body) = handler.received
    assert headers["Authorization"] == "Bearer sk-own" and headers["OpenAI-Beta"] == "traces=v1"
    assert headers["OpenAI-Organization"] == "org"
    assert body == {"data": [t.export(), span.export()]}
    assert keyed_headers["Authorization"] == "Bearer sk-trace"
    assert keyed_body == {"data": [keyed.export()]}


def test_the_backend_exporter_retries_server_errors_and_not_client_errors(
    ingest: tuple[str, type[Ingest]],
) -> None:
    url, handler = ingest
    exporter = BackendSpanExporter(api_key="k", endpoint=url, max_retries=3, base_delay=0.001)
    item = NoOpTraceWithExport()
    handler.statuses = [500, 503, 200]
    exporter.export([item])
    assert len(handler.received) == 3
    handler.statuses = [400, 200]
    exporter.export([item])
    assert len(handler.received) == 4  # a client error is not retried
    handler.statuses = [500, 500, 500, 500]
    exporter.export([item])
    assert len(handler.received) == 7  # max_retries attempts, then the batch is dropped
    exporter.close()


class NoOpTraceWithExport(NoOpTrace):
    def export(self) -> dict[str, Any] | None:
        return {"object": "trace", "id": "trace_x"}


def test_the_backend_exporter_falls_back_to_the_environment_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    exporter = BackendSpanExporter()
    assert exporter.api_key == "env-key"
    exporter.set_api_key("explicit")
    assert exporter.api_key == "explicit"
    exporter.set_api_key("")
    assert exporter.api_key == "env-key"
    exporter.close()


def test_for_openais_endpoint_reasoning_is_left_out_and_the_span_kept(rec: Recorder) -> None:
    sent: list[Any] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200)

    exporter = BackendSpanExporter(api_key="k")  # OpenAI's endpoint: never reached here
    exporter._client = httpx2.Client(transport=httpx2.MockTransport(answer))
    assistant = {"role": "assistant", "content": "visible", "reasoning_content": "SECRET"}
    with (
        trace("w"),
        generation_span(
            input=[{"role": "user", "content": "q"}, assistant],
            output=[assistant, {"type": "reasoning", "summary": "SECRET"}],
            usage={"input_tokens": 1, "output_tokens": 2, "reasoning_tokens": 5},
        ) as span,
    ):
        pass
    with trace("w"), function_span("f", output="x" * 200_000) as tool:
        pass
    before = span.export()
    exporter.export([span, tool])
    exporter.close()
    data = sent[0]["data"]
    assert "SECRET" not in json.dumps(data[0])
    assert data[0]["span_data"]["output"] == [{"role": "assistant", "content": "visible"}]
    assert data[0]["span_data"]["usage"] == {
        "input_tokens": 1,
        "output_tokens": 2,
        "details": {"reasoning_tokens": 5},
    }
    output = data[1]["span_data"]["output"]
    assert output.endswith("... [truncated]") and len(output.encode()) <= 100_000
    assert span.export() == before


def test_the_default_processor_is_not_registered() -> None:
    assert default_processor() not in tracing.get_trace_processors()
    assert isinstance(default_processor().exporter, BackendSpanExporter)


def test_the_sdk_paths_hold_the_provider_names() -> None:
    from jupyter_agents.tracing import logger, processors, provider, scope, setup, spans

    assert provider.DefaultTraceProvider is DefaultTraceProvider
    assert setup.get_trace_provider is get_trace_provider and scope.Scope is Scope
    assert processors.BackendSpanExporter is BackendSpanExporter
    assert spans.util.time_iso is tracing.util.time_iso
    assert logger.logger.name == "jupyter_agents.tracing"
    assert AgentSpanData("a").type == "agent"


def test_the_exporter_falls_back_to_the_default_clients_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from openai import AsyncOpenAI

    from jupyter_agents import set_default_openai_client
    from jupyter_agents.runtime.tracing.backend import BackendSpanExporter
    from jupyter_agents.runtime.tracing_key import set_tracing_export_key

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(
        "jupyter_agents.runtime.models.provider._settings",
        {"api": None, "client": None, "key": None},
    )
    try:
        set_default_openai_client(AsyncOpenAI(api_key="sk-client", base_url="http://127.0.0.1:9"))
        assert BackendSpanExporter().api_key == "sk-client"
        assert BackendSpanExporter(api_key="sk-own").api_key == "sk-own"  # its own key first
        set_tracing_export_key(None)
        set_default_openai_client(
            AsyncOpenAI(api_key="sk-other", base_url="http://127.0.0.1:9"), use_for_tracing=False
        )
        assert BackendSpanExporter().api_key is None
    finally:
        set_tracing_export_key(None)
