"""Tests for jupyter_agents.runtime.tracing: span trees, processors, exporters, the off switch.

What tracing costs is measured, not written down here (figures go stale): ``benchmark()``
below prints the best time of one ``with function_span("lookup", input=...): pass`` inside an
agent span, tracing off (no processors, ``set_tracing_disabled``, ``trace(disabled=True)``) and
on (a do-nothing processor, ``JSONLinesExporter``), beside a ``nullcontext`` baseline::

    python -c "import tests.runtime.test_tracing as t; t.benchmark()"

What the tests hold: the off path makes no ids, reads no clock and allocates nothing
(``test_the_disabled_path_makes_no_ids_no_clock_reads_no_allocations``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gc
import json
import logging
import re
import subprocess
import sys
import tempfile
import threading
import timeit
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents.runtime import tracing
from jupyter_agents.runtime.errors import UserError
from jupyter_agents.runtime.tracing import (
    NO_OP_SPAN,
    AgentSpanData,
    CustomSpanData,
    FunctionSpanData,
    GenerationSpanData,
    GuardrailSpanData,
    HandoffSpanData,
    JSONLinesExporter,
    OpenTelemetryExporter,
    Scope,
    Span,
    Trace,
    TracingProcessor,
    agent_span,
    custom_span,
    function_span,
    generation_span,
    get_current_span,
    get_current_trace,
    guardrail_span,
    handoff_span,
    set_trace_processors,
    set_tracing_disabled,
    trace,
)

TRACE_ID = re.compile(r"^trace_[0-9a-f]{32}$")
SPAN_ID = re.compile(r"^span_[0-9a-f]{24}$")


class Recorder(TracingProcessor):
    """Keeps every event, and the finished spans and traces."""

    def __init__(self, name: str = "rec", log: list[tuple[str, ...]] | None = None) -> None:
        self.name = name
        self.events: list[tuple[str, ...]] = [] if log is None else log
        self.spans: list[Span[Any]] = []
        self.traces: list[Trace] = []

    def on_trace_start(self, trace: Trace) -> None:
        self.events.append((self.name, "trace_start", trace.workflow_name))

    def on_trace_end(self, trace: Trace) -> None:
        self.events.append((self.name, "trace_end", trace.workflow_name))
        self.traces.append(trace)

    def on_span_start(self, span: Span[Any]) -> None:
        self.events.append((self.name, "span_start", _label(span)))

    def on_span_end(self, span: Span[Any]) -> None:
        self.events.append((self.name, "span_end", _label(span)))
        self.spans.append(span)

    def by_name(self) -> dict[str, Span[Any]]:
        return {_label(s): s for s in self.spans}


class Quiet(TracingProcessor):
    """Does nothing (inherits the protocol's defaults)."""


def _label(span: Span[Any]) -> str:
    data = span.span_data
    return str(getattr(data, "name", None) or getattr(data, "model", None) or data.type)


@pytest.fixture(autouse=True)
def _clean_registry() -> Iterator[None]:
    saved = tracing.get_trace_processors()
    set_trace_processors([])
    set_tracing_disabled(False)
    yield
    set_trace_processors(saved)
    set_tracing_disabled(False)


@pytest.fixture
def rec() -> Recorder:
    recorder = Recorder()
    set_trace_processors([recorder])
    return recorder


# --- span trees ---------------------------------------------------------------------------


def test_nested_with_blocks_build_a_tree(rec: Recorder) -> None:
    with trace("workflow") as t:
        assert get_current_trace() is t
        with agent_span("assistant", tools=["lookup"]) as agent:
            assert get_current_span() is agent
            with generation_span(model="gpt-test"):
                pass
            with function_span("lookup", input="{}"), custom_span("inner"):
                pass
        with handoff_span("assistant", "expert"), guardrail_span("safety"):
            pass
    assert get_current_trace() is None and get_current_span() is None

    spans = rec.by_name()
    parent = {name: s.parent_id for name, s in spans.items()}
    ids = {name: s.span_id for name, s in spans.items()}
    assert parent == {
        "assistant": None,
        "gpt-test": ids["assistant"],
        "lookup": ids["assistant"],
        "inner": ids["lookup"],
        "handoff": None,
        "safety": ids["handoff"],
    }
    assert TRACE_ID.match(t.trace_id)
    assert {s.trace_id for s in rec.spans} == {t.trace_id}
    assert all(SPAN_ID.match(s.span_id) for s in rec.spans)
    assert len(set(ids.values())) == len(ids)


def test_ids_are_unique(rec: Recorder) -> None:
    trace_ids = set()
    for _ in range(50):
        with trace("w") as t:
            trace_ids.add(t.trace_id)
            for _ in range(20):
                with function_span("f"):
                    pass
    assert len(trace_ids) == 50
    assert len({s.span_id for s in rec.spans}) == 1000


def test_times_are_ordered_and_children_sit_inside_parents(rec: Recorder) -> None:
    with trace("w") as t:
        assert t.started_at is not None and t.ended_at is None
        with agent_span("a"), function_span("f"), custom_span("c"):
            pass
    times = {name: _times(span) for name, span in rec.by_name().items()}
    times["trace"] = _times(t)
    for start, end in times.values():
        assert start <= end
    for child, parent in (("f", "a"), ("c", "f"), ("a", "trace")):
        assert times[parent][0] <= times[child][0] <= times[child][1] <= times[parent][1]


def _exported(span: Span[Any]) -> dict[str, Any]:
    record = span.export()
    assert record is not None
    return record


def _times(item: Span[Any] | Trace) -> tuple[str, str]:
    assert item.started_at is not None and item.ended_at is not None
    return item.started_at, item.ended_at


async def test_gathered_tasks_inherit_the_current_span(rec: Recorder) -> None:
    n = 3
    entered = 0
    all_in = asyncio.Event()

    async def tool(i: int) -> str | None:
        nonlocal entered
        with function_span(f"tool{i}") as span:
            entered += 1
            if entered == n:
                all_in.set()
            await all_in.wait()  # every task holds its span open at the same time
            with custom_span(f"step{i}"):
                current = get_current_span()
            assert get_current_span() is span
            return current.span_id if current else None

    async with trace("w"), agent_span("a") as agent:
        inner_ids = await asyncio.gather(*(tool(i) for i in range(n)))
        assert get_current_span() is agent

    spans = rec.by_name()
    for i in range(n):
        assert spans[f"tool{i}"].parent_id == agent.span_id
        assert spans[f"step{i}"].parent_id == spans[f"tool{i}"].span_id
        assert inner_ids[i] == spans[f"step{i}"].span_id


async def test_threads_started_with_to_thread_inherit_the_current_span(rec: Recorder) -> None:
    def work() -> None:
        with function_span("in_thread"):
            pass

    with trace("w"), agent_span("a") as agent:
        await asyncio.to_thread(work)
    assert rec.by_name()["in_thread"].parent_id == agent.span_id


async def test_async_with_works_for_traces_and_spans(rec: Recorder) -> None:
    async with trace("w") as t:
        async with function_span("f") as span:
            assert get_current_span() is span
        assert get_current_trace() is t
    assert rec.events == [
        ("rec", "trace_start", "w"),
        ("rec", "span_start", "f"),
        ("rec", "span_end", "f"),
        ("rec", "trace_end", "w"),
    ]


def test_explicit_parent(rec: Recorder) -> None:
    with trace("w") as t:
        agent = agent_span("a")
        agent.start()  # not current
        with function_span("f", parent=agent):
            pass
        with function_span("top", parent=t):
            pass
        agent.finish()
    spans = rec.by_name()
    assert spans["f"].parent_id == agent.span_id
    assert spans["top"].parent_id is None
    assert get_current_span() is None


# --- errors -------------------------------------------------------------------------------


def test_an_exception_is_recorded_and_reraised(rec: Recorder) -> None:
    with (
        trace("w"),
        pytest.raises(ValueError, match="bad input"),
        agent_span("a"),
        function_span("f"),
    ):
        raise ValueError("bad input")
    spans = rec.by_name()
    assert spans["f"].error == {"message": "bad input", "data": {"type": "ValueError"}}
    assert spans["a"].error == spans["f"].error
    assert _exported(spans["f"])["error"]["message"] == "bad input"


def test_set_error_by_hand_wins_over_the_exception(rec: Recorder) -> None:
    with trace("w"), pytest.raises(KeyError), function_span("f") as span:
        span.set_error("tool failed", {"tool": "f"})
        raise KeyError("x")
    assert rec.spans[0].error == {"message": "tool failed", "data": {"tool": "f"}}


async def test_cancellation_is_not_an_error(rec: Recorder) -> None:
    async def cancelled() -> None:
        with function_span("f"):
            raise asyncio.CancelledError

    with trace("w"), pytest.raises(asyncio.CancelledError):
        await cancelled()
    assert rec.spans[0].error is None and rec.spans[0].ended_at is not None


def test_a_failing_processor_is_logged_and_the_others_still_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken(TracingProcessor):
        def on_span_end(self, span: Span[Any]) -> None:
            raise RuntimeError("processor bug")

    good = Recorder()
    set_trace_processors([Broken(), good])
    with caplog.at_level(logging.ERROR), trace("w"), function_span("f"):
        pass
    assert [e[1] for e in good.events] == ["trace_start", "span_start", "span_end", "trace_end"]
    assert "processor bug" in caplog.text


# --- lifecycle and processors -------------------------------------------------------------


def test_processors_are_called_in_order() -> None:
    log: list[tuple[str, ...]] = []
    set_trace_processors([Recorder("one", log)])
    tracing.add_trace_processor(Recorder("two", log))
    with trace("w"), agent_span("a"), function_span("f"):
        pass
    assert log == [
        (p, *event)
        for event in [
            ("trace_start", "w"),
            ("span_start", "a"),
            ("span_start", "f"),
            ("span_end", "f"),
            ("span_end", "a"),
            ("trace_end", "w"),
        ]
        for p in ("one", "two")
    ]


def test_a_trace_keeps_the_processors_it_started_with(rec: Recorder) -> None:
    late = Recorder("late")
    with trace("w"):
        tracing.add_trace_processor(late)
        with function_span("f"):
            pass
    assert late.events == []
    assert [e[1] for e in rec.events] == ["trace_start", "span_start", "span_end", "trace_end"]


async def test_manual_start_and_finish_across_generator_yields(rec: Recorder) -> None:
    async def turns() -> AsyncIterator[int]:
        span = agent_span("a")
        span.start(mark_as_current=True)
        try:
            for turn in range(2):
                with generation_span(model=f"turn{turn}"):
                    pass
                yield turn
        finally:
            span.finish(reset_current=True)

    t = trace("w")
    t.start(mark_as_current=True)
    seen = [turn async for turn in turns()]
    assert get_current_span() is None
    t.finish(reset_current=True)
    t.finish(reset_current=True)  # repeats do nothing

    assert seen == [0, 1] and get_current_trace() is None
    spans = rec.by_name()
    assert spans["turn0"].parent_id == spans["turn1"].parent_id == spans["a"].span_id
    assert [e[1] for e in rec.events].count("trace_end") == 1


def test_finishing_from_another_context_ends_the_span_then_raises(rec: Recorder) -> None:
    # As in the SDK: an explicit finish from a context that never made the span current is a
    # mistake, and says so, after the span has ended.
    with trace("w"):
        span = function_span("f")
        contextvars.copy_context().run(span.start, True)
        with pytest.raises(ValueError):
            span.finish(reset_current=True)
        assert get_current_span() is None
    assert span.ended_at is not None and [e[1] for e in rec.events].count("span_end") == 1


async def test_a_generator_closed_from_another_task_does_not_raise(rec: Recorder) -> None:
    # An abandoned async generator is closed by whichever task finalises it: its ``with``
    # blocks unwind there (GeneratorExit), where resetting the scope cannot work.
    async def stream() -> AsyncGenerator[int, None]:
        with trace("w"), function_span("f"):
            yield 1

    generator = stream()
    assert await generator.asend(None) == 1
    await asyncio.create_task(generator.aclose())
    assert [e[1] for e in rec.events] == ["trace_start", "span_start", "span_end", "trace_end"]
    Scope.set_current_trace(None)
    Scope.set_current_span(None)


def test_starting_or_finishing_twice_reports_once(rec: Recorder) -> None:
    with trace("w"):
        span = function_span("f")
        span.start()
        span.start()
        span.finish()
        span.finish()
    assert [e[1] for e in rec.events] == ["trace_start", "span_start", "span_end", "trace_end"]


def test_a_nested_trace_joins_the_outer_one(rec: Recorder) -> None:
    with trace("outer", group_id="g") as outer, agent_span("a") as agent:
        with trace("inner", trace_id="trace_" + "0" * 32) as inner:
            assert inner.trace_id == outer.trace_id
            assert inner.workflow_name == "outer" and inner.group_id == "g"
            with function_span("f") as f:
                pass
        assert get_current_trace() is outer
    assert f.trace_id == outer.trace_id and f.parent_id == agent.span_id
    assert [e for e in rec.events if e[1].startswith("trace")] == [
        ("rec", "trace_start", "outer"),
        ("rec", "trace_end", "outer"),
    ]
    assert inner.started_at == outer.started_at and inner.ended_at == outer.ended_at
    assert inner.export() == outer.export()


def test_trace_export() -> None:
    set_trace_processors([Recorder()])
    with trace("w", group_id="chat-1", metadata={"user": "u1"}) as t:
        pass
    assert t.export() == {
        "object": "trace",
        "id": t.trace_id,
        "workflow_name": "w",
        "group_id": "chat-1",
        "metadata": {"user": "u1"},
    }


def test_span_data_kinds_export_their_fields(rec: Recorder) -> None:
    with trace("w"):
        spans: list[Span[Any]] = [
            agent_span("a", ["t1"], "Answer", handoffs=["b"]),
            generation_span("m", [{"role": "user"}], ["out"], {"temperature": 0}, {"x": 1}),
            function_span("f", "{}", "ok"),
            guardrail_span("g", triggered=True),
            handoff_span("a", "b"),
            custom_span("c", {"k": 1}),
        ]
    expected: list[tuple[type[Any], dict[str, Any]]] = [
        (
            AgentSpanData,
            {
                "type": "agent",
                "name": "a",
                "handoffs": ["b"],
                "tools": ["t1"],
                "output_type": "Answer",
            },
        ),
        (
            GenerationSpanData,
            {
                "type": "generation",
                "model": "m",
                "input": [{"role": "user"}],
                "output": ["out"],
                "model_config": {"temperature": 0},
                "usage": {"x": 1},
            },
        ),
        (FunctionSpanData, {"type": "function", "name": "f", "input": "{}", "output": "ok"}),
        (GuardrailSpanData, {"type": "guardrail", "name": "g", "triggered": True}),
        (HandoffSpanData, {"type": "handoff", "from_agent": "a", "to_agent": "b"}),
        (CustomSpanData, {"type": "custom", "name": "c", "data": {"k": 1}}),
    ]
    for span, (cls, data) in zip(spans, expected, strict=True):
        assert isinstance(span.span_data, cls)
        assert span.span_data.export() == data


# --- turning it off -----------------------------------------------------------------------


def test_set_tracing_disabled_records_nothing(rec: Recorder) -> None:
    set_tracing_disabled(True)
    with trace("w") as t, agent_span("a") as a, function_span("f") as f:
        assert t.trace_id == "no-op" and not t.recording
        assert a is NO_OP_SPAN and f is NO_OP_SPAN
    assert rec.events == []


def test_a_disabled_trace_records_nothing_and_silences_nested_traces(rec: Recorder) -> None:
    with trace("w", disabled=True), trace("run inside"), function_span("f") as span:
        assert span is NO_OP_SPAN
    assert rec.events == []


def test_a_disabled_trace_inside_a_recording_one_silences_its_spans(rec: Recorder) -> None:
    with trace("w"), agent_span("a"):
        with trace("quiet run", disabled=True), function_span("hidden") as hidden:
            assert hidden is NO_OP_SPAN
        with function_span("shown"):
            pass
    assert sorted(rec.by_name()) == ["a", "shown"]


def test_no_processors_or_no_trace_gives_the_no_op_span() -> None:
    with trace("w") as t:
        assert not t.recording and function_span("f") is NO_OP_SPAN
    set_trace_processors([Recorder()])
    assert function_span("f") is NO_OP_SPAN  # no current trace


def test_the_no_op_span_discards_everything() -> None:
    with function_span("f") as span:
        span.span_data.output = "result"
        span.set_error("ignored")
    assert span.span_data.output is None and span.error is None
    assert span.started_at is None and span.parent_id is None
    with pytest.raises(RuntimeError), custom_span("c"):
        raise RuntimeError("still propagates")


def test_the_disabled_path_makes_no_ids_no_clock_reads_no_allocations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def forbidden(*args: Any) -> Any:
        raise AssertionError("called while tracing is off")

    from jupyter_agents.runtime.tracing import util

    monkeypatch.setattr(util, "new_span_id", forbidden)
    monkeypatch.setattr(util, "iso_now", forbidden)
    set_tracing_disabled(True)

    def loop() -> None:
        for _ in range(1000):
            with function_span("f", input="x"), generation_span("m", input=[1], usage={}):
                pass

    loop()
    gc.collect()
    gc.disable()
    try:
        before = sys.getallocatedblocks()
        loop()
        grown = sys.getallocatedblocks() - before
    finally:
        gc.enable()
    assert grown < 20  # nothing per span (a few blocks of interpreter noise at most)


# --- sensitive data -----------------------------------------------------------------------


@pytest.mark.parametrize("include", [True, False])
def test_sensitive_data_is_dropped_on_export_when_asked(rec: Recorder, include: bool) -> None:
    with trace("w", include_sensitive_data=include):
        with function_span("f", input='{"ssn": 1}') as f:
            f.span_data.output = "secret result"  # filled in later, still dropped
        with generation_span(model="m", input=[{"content": "hi"}], usage={"input_tokens": 1}):
            pass
        with agent_span("a"):
            pass
    exported = {s.span_data.type: _exported(s)["span_data"] for s in rec.spans}
    for kind in ("function", "generation"):
        assert ("input" in exported[kind]) is include
        assert ("output" in exported[kind]) is include
    assert exported["function"]["name"] == "f"
    assert exported["generation"]["usage"] == {"input_tokens": 1}
    assert exported["agent"]["name"] == "a"


def test_a_nested_trace_can_only_narrow_sensitive_data(rec: Recorder) -> None:
    with trace("outer"):
        with trace("run", include_sensitive_data=False), function_span("hidden", input="x"):
            pass
        with function_span("shown", input="x"):
            pass
    with (
        trace("outer", include_sensitive_data=False),
        trace("run", include_sensitive_data=True),
        function_span("still_hidden", input="x"),
    ):
        pass
    data = {_label(s): _exported(s)["span_data"] for s in rec.spans}
    assert "input" not in data["hidden"] and "input" not in data["still_hidden"]
    assert data["shown"]["input"] == "x"


# --- JSON lines ---------------------------------------------------------------------------


def test_json_lines_exporter_writes_spans_then_trace(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "traces.jsonl"
    exporter = JSONLinesExporter(path)
    set_trace_processors([exporter])
    with (
        trace("w", metadata={"n": 1}, include_sensitive_data=False) as t,
        agent_span("a"),
        function_span("f", input="secret", output=object()),
    ):
        pass
    exporter.force_flush()

    records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert [r["object"] for r in records] == ["trace.span", "trace.span", "trace"]
    f, a, tr = records
    assert f["span_data"] == {"type": "function", "name": "f"}
    assert f["parent_id"] == a["id"] and a["parent_id"] is None
    assert {f["trace_id"], a["trace_id"], tr["id"]} == {t.trace_id}
    assert tr["workflow_name"] == "w" and tr["metadata"] == {"n": 1}
    assert f["started_at"] <= f["ended_at"]

    exporter.shutdown()
    with trace("again"):
        pass
    exporter.shutdown()
    assert len(path.read_text("utf-8").splitlines()) == 4  # appended after reopening


def test_json_lines_exporter_is_thread_safe(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    exporter = JSONLinesExporter(str(path))
    set_trace_processors([exporter])
    start = threading.Barrier(8)

    def worker(i: int) -> None:
        start.wait()
        with trace(f"w{i}"):
            for j in range(50):
                with function_span(f"f{j}", input="x" * 500):
                    pass

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(worker, range(8)))
    exporter.shutdown()

    records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert len(records) == 8 * 51
    assert len({r["id"] for r in records}) == len(records)


# --- OpenTelemetry ------------------------------------------------------------------------


def test_otel_exporter_without_the_sdk_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    with pytest.raises(UserError, match=re.escape('pip install "jupyter_agents[otel]"')):
        OpenTelemetryExporter()


def test_importing_tracing_does_not_import_opentelemetry() -> None:
    code = "import sys, jupyter_agents.runtime.tracing; print('opentelemetry' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_otel_exporter_mirrors_the_span_tree() -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import StatusCode

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    set_trace_processors([OpenTelemetryExporter(provider)])

    with (
        trace("weather bot", group_id="chat-1", include_sensitive_data=False) as t,
        agent_span("assistant", tools=["lookup"]),
    ):
        with generation_span(model="gpt-test", input="hi", usage={"input_tokens": 7}):
            pass
        with pytest.raises(ValueError), function_span("lookup", input="{}"):
            raise ValueError("no such city")
    provider.shutdown()

    otel = {s.name: s for s in memory.get_finished_spans()}
    assert set(otel) == {
        "weather bot",
        "invoke_agent assistant",
        "chat gpt-test",
        "execute_tool lookup",
    }
    root, agent = otel["weather bot"], otel["invoke_agent assistant"]
    chat, tool = otel["chat gpt-test"], otel["execute_tool lookup"]
    assert root.parent is None
    assert agent.parent is not None and agent.parent.span_id == root.context.span_id
    for child in (chat, tool):
        assert child.parent is not None and child.parent.span_id == agent.context.span_id
    assert len({s.context.trace_id for s in otel.values()}) == 1

    assert root.attributes is not None and chat.attributes is not None
    assert tool.attributes is not None
    assert root.attributes["jupyter_agents.trace_id"] == t.trace_id
    assert root.attributes["jupyter_agents.group_id"] == "chat-1"
    assert chat.attributes["gen_ai.request.model"] == "gpt-test"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 7
    assert "jupyter_agents.input" not in chat.attributes  # sensitive, dropped
    assert tool.attributes["gen_ai.tool.name"] == "lookup"
    assert tool.status.status_code is StatusCode.ERROR
    assert tool.status.description == "no such city"
    from jupyter_agents.runtime.tracing.otel import _ns

    assert t.started_at is not None and root.start_time == _ns(t.started_at)
    assert root.start_time <= agent.start_time <= chat.start_time  # type: ignore[operator]
    assert chat.end_time <= agent.end_time <= root.end_time  # type: ignore[operator]


# --- micro-benchmark (not a test) ---------------------------------------------------------


def benchmark(number: int = 100_000, rounds: int = 5) -> None:
    """Print the best ns per ``with function_span(...)``, tracing off and on, and a baseline."""

    @contextlib.contextmanager
    def setup(processors: list[Any], disabled: bool, trace_disabled: bool) -> Iterator[None]:
        set_trace_processors(processors)
        with trace("bench", disabled=trace_disabled), agent_span("a"):
            set_tracing_disabled(disabled)
            yield
        set_tracing_disabled(False)
        set_trace_processors([])

    def span() -> None:
        with function_span("lookup", input='{"q": 1}'):
            pass

    def baseline() -> None:
        with contextlib.nullcontext():
            pass

    path = Path(tempfile.mkdtemp()) / "bench.jsonl"
    cases: dict[str, tuple[list[Any], bool, bool]] = {
        "baseline: with contextlib.nullcontext()": ([], False, False),
        "no processors registered": ([], False, False),
        "set_tracing_disabled(True)": ([Quiet()], True, False),
        "inside trace(disabled=True)": ([Quiet()], False, True),
        "enabled, one do-nothing processor": ([Quiet()], False, False),
        "enabled, JSONLinesExporter": ([JSONLinesExporter(path)], False, False),
    }
    best: dict[str, float] = {}
    for _ in range(rounds):
        for label, args in cases.items():
            body = baseline if label.startswith("baseline") else span
            with setup(*args):
                seconds = min(timeit.repeat(body, number=number, repeat=3))
            best[label] = min(best.get(label, seconds), seconds)
    for label, seconds in best.items():
        print(f"{label:42s} {seconds / number * 1e9:6.0f} ns")
