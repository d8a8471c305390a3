"""N1: a ``%%agent`` run streaming into its widget in a real kernel (ours only).

The peer has no notebook layer, so this workload measures jupyter_agents alone. Everything runs
in kernels started with jupyter_client (the ``python3`` kernel, environment without
``OPENAI_*``, ``JUPYTER_AGENTS_APPROVE=auto``, non-loopback connections refused by an IPython
startup file); this process plays the frontend and only reads what the kernel sends.

The run: the notebook agent's model is a ``ScriptedModel`` (``chunk_size=3``) whose first turn
calls a trivial ``@tool`` defined in the kernel 50 times, and whose second turn streams a
15,000-character markdown answer: 5,000 text deltas. A subclass records the wall time
(``time.time()`` in the kernel) and the text offset of every delta as the model yields it. Two
variants: ``delay=0.001`` s per delta (the stream lasts several seconds) and ``delay=0`` (as
fast as the runtime goes: "whatever the token rate"; metric names end in ``_nodelay``). One
warm-up run first.

Metrics, per run, from the iopub messages on the run widget's comm (kernel header ``date``):

- ``comm_per_s_max``: the most ``comm_msg`` in one 1-s bucket (buckets start at the widget's
  ``comm_open``; the busiest sliding 1-s window is in ``info``); ``comm_msgs``: all of them;
  ``comm_kib``: their JSON payload (every sync carries the whole state).
- ``delta_ms``: for every delta, the first widget ``comm_msg`` whose state holds the text up to
  that delta (its text block is at least that long), minus the time the model yielded it; one
  sample per delta, so the table's median and p95 are over all deltas. ``delta_max_ms``: the
  worst delta of a run. That is when the kernel *sent* the state; ``recv_delta_max_ms`` uses
  the time this process received it instead (drawing is not measured).
- ``stream_s``: first to last delta.
- ``nb_kb_per_100_tools``: a notebook running the agent cell with 100 tool calls (same answer,
  3,000 characters, ``delay=0``), executed with nbclient and saved with nbformat, minus the
  same notebook with 0 tool calls, per 100 tool calls. nbclient keeps the last state of every
  widget in the notebook metadata (``store_widget_state``, on by default, also for widgets
  closed since), so ``_outputs`` leaves ``metadata.widgets`` out: what JupyterLab saves by
  default.
- ``long_answer_comm_mib``, ``long_answer_wire_ratio``, ``long_answer_stream_s``: one run whose
  answer is 10,000,000 characters (200,000 in smoke mode) streamed in 2,000 deltas with no
  delay: the comm payload in MiB, that payload per answer byte (about 1 when text travels as
  appends; every resync of the whole text made it grow with the number of syncs), and the
  stream's duration.
- ``load_ext_s``: ``%load_ext jupyter_agents`` timed inside a fresh kernel
  (``time.perf_counter`` around ``run_line_magic``; the first cell the kernel runs). This is
  W5's second part; 3 fresh kernels per process. Kernels may write bytecode caches (as W5's
  interpreters do), so a ``--rev`` snapshot is compiled by the first kernel and the others
  find it warm, as an installed package is.
- ``kernel_start_s``: a plain kernel start, for comparison: the wall time from starting a fresh
  kernel (``KernelManager.start_kernel``, same environment) to the reply of its first cell,
  ``pass``. That is what a person waits for before any cell runs; ``load_ext_s`` is what the
  extension adds to it. 3 kernels per process, started beside (not instead of) the
  ``%load_ext`` ones, whose first cell stays the timed load.

``RunView`` syncs the widget at most every ``flush_interval`` seconds while events stream in.
``%%agent`` offers no way to change it, so only its default (recorded in ``info``) is measured.
``--profile`` does not apply: the work happens in the kernel.

Smoke mode (``--quick``): 200 deltas and 5 tool calls, one run per variant, one kernel for
``%load_ext`` and one plain start, notebooks with 5 and 0 tool calls.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import copy
import datetime
import gc
import json
import os
import queue
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _common
from .._common import NETWORK_ATTEMPTS, Impl, Measured, main

WORKLOAD = "N1"

KERNEL_TIMEOUT = 120.0
"""Seconds any one kernel step may take."""

# -- kernels ---------------------------------------------------------------------------------

BLOCKER = '''\
"""Benchmark kernels refuse non-loopback connections (attempts are logged to a file)."""
import ipaddress as _ipaddress
import os as _os
import socket as _socket


def _bench_block_network():
    log = _os.environ.get("BENCH_NETWORK_LOG")
    real_connect = _socket.socket.connect
    real_getaddrinfo = _socket.getaddrinfo

    def local(host):
        host = host.decode() if isinstance(host, bytes) else str(host)
        if host in ("localhost", "", "None"):
            return True
        try:
            return _ipaddress.ip_address(host.split("%")[0]).is_loopback
        except ValueError:
            return False

    def refuse(what):
        if log:
            with open(log, "a") as f:
                f.write(what + "\\n")
        raise OSError(f"benchmark kernel tried to reach {what}")

    def connect(self, address):
        if isinstance(address, tuple) and not local(address[0]):
            refuse(f"connect {address[0]}")
        return real_connect(self, address)

    def getaddrinfo(host, *args, **kwargs):
        if host is not None and not local(host):
            refuse(f"resolve {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    _socket.socket.connect = connect
    _socket.getaddrinfo = getaddrinfo


_bench_block_network()
del _bench_block_network
'''


@contextlib.contextmanager
def kernel_env() -> Iterator[dict[str, str]]:
    """The environment of every kernel: no OPENAI_*, approvals automatic, network blocked.

    A throwaway IPython directory holds the blocker as a startup file (it imports nothing the
    runtime needs, so ``%load_ext`` is still timed cold); refused attempts land in
    :data:`NETWORK_ATTEMPTS` at the end.
    """
    with tempfile.TemporaryDirectory(prefix="bench-n1-") as tmp:
        startup = Path(tmp, "ipython", "profile_default", "startup")
        startup.mkdir(parents=True)
        (startup / "00-bench-block-network.py").write_text(BLOCKER)
        log = Path(tmp, "network.log")
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
        # Warm bytecode caches, as an installed package has them: without them a --rev snapshot
        # compiled every module it imported in every kernel, and %load_ext timed the compiler.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.update(
            JUPYTER_AGENTS_APPROVE="auto",
            IPYTHONDIR=str(Path(tmp, "ipython")),
            BENCH_NETWORK_LOG=str(log),
            BENCH_KERNEL_DIR=tmp,
        )
        try:
            yield env
        finally:
            if log.exists():
                lines = log.read_text().splitlines()
                NETWORK_ATTEMPTS.extend(f"kernel: {line}" for line in lines if line)


@dataclass
class Received:
    """One iopub message and when this process received it (``time.time()``)."""

    msg: dict[str, Any]
    recv: float

    @property
    def sent(self) -> float:
        """The kernel's header date, in epoch seconds."""
        date = self.msg["header"]["date"]
        if isinstance(date, str):
            date = datetime.datetime.fromisoformat(date.replace("Z", "+00:00"))
        return float(date.timestamp())


class Kernel:
    """A kernel and the frontend end of its channels (reads iopub only while a cell runs)."""

    def __init__(self, env: dict[str, str]) -> None:
        from jupyter_client import KernelManager

        self.km = KernelManager(kernel_name="python3")
        self.km.start_kernel(env=env, cwd=env["BENCH_KERNEL_DIR"])
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=KERNEL_TIMEOUT)

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)

    def execute(
        self, code: str, expressions: dict[str, str] | None = None
    ) -> tuple[dict[str, Any], list[Received]]:
        """Run ``code`` like a cell; its reply and every iopub message until the kernel is idle.

        ``expressions`` are evaluated after the cell (``user_expressions``); raises if the cell
        or an expression failed.
        """
        msg_id = self.kc.execute(code, user_expressions=expressions or {})
        received: list[Received] = []
        deadline = time.monotonic() + KERNEL_TIMEOUT
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"the kernel did not finish {code[:60]!r}") from None
            received.append(Received(msg, time.time()))
            if (
                msg["msg_type"] == "status"
                and msg["content"]["execution_state"] == "idle"
                and msg["parent_header"].get("msg_id") == msg_id
            ):
                break
        reply = self.kc.get_shell_msg(timeout=KERNEL_TIMEOUT)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = self.kc.get_shell_msg(timeout=KERNEL_TIMEOUT)
        content = reply["content"]
        if content["status"] != "ok":
            errors = [r.msg["content"] for r in received if r.msg["msg_type"] == "error"]
            raise RuntimeError(f"kernel cell failed: {content.get('evalue')} {errors}")
        for name, value in content.get("user_expressions", {}).items():
            if value.get("status") != "ok":
                raise RuntimeError(f"kernel expression {name} failed: {value}")
        return content, received

    def value(self, expression: str) -> Any:
        """``expression`` (JSON-serialisable) evaluated in the kernel."""
        content, _ = self.execute("", {"v": f"__import__('json').dumps({expression})"})
        return json.loads(ast.literal_eval(content["user_expressions"]["v"]["data"]["text/plain"]))


# -- the run ---------------------------------------------------------------------------------

TIME_LOAD_EXT = """\
import time as _bench_time
_bench_t0 = _bench_time.perf_counter()
get_ipython().run_line_magic("load_ext", "jupyter_agents")
_bench_load_ext_s = _bench_time.perf_counter() - _bench_t0
"""

TOOL_SETUP = '''\
from jupyter_agents import tool
from jupyter_agents.testing import ScriptedModel, text, tool_call


@tool
def ping(i: int) -> str:
    """Answer ping number i."""
    return f"pong {i}"
'''

TIMED_MODEL = '''
import json
import time


class TimedModel(ScriptedModel):
    """A ScriptedModel that logs (wall time, item id, text offset) of each text delta."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.deltas = []

    async def stream_response(self, *args, **kwargs):
        ends = {}
        async for event in super().stream_response(*args, **kwargs):
            if event.type == "response.output_text.delta":
                end = ends[event.item_id] = ends.get(event.item_id, 0) + len(event.delta)
                self.deltas.append((time.time(), event.item_id, end))
            yield event
'''

FLUSH_INTERVAL = (
    "__import__('inspect').signature(__import__("
    "'jupyter_agents.notebook.view.run_view', fromlist=['_']).RunView.__init__)"
    ".parameters['flush_interval'].default"
)
"""Kernel expression: RunView's default sync interval (what every ``%%agent`` run uses)."""

RUN_CELL = "%%agent --new\nPing the server {tools} times, then write the report."


ANSWER_WORDS = (
    "the kernel streams each delta into the widget and the frontend draws the text as "
    "it arrives while tools run and report their results in cards"
)


def answer_text(n_chars: int) -> str:
    """A markdown answer of exactly ``n_chars`` characters (paragraphs and a list)."""
    words = ANSWER_WORDS.split()
    out: list[str] = []
    size = i = 0
    while size < n_chars:
        if i % 40 == 39:
            piece = "\n\n- "
        elif i % 13 == 12:
            piece = f"**{words[i % len(words)]}** "
        else:
            piece = words[i % len(words)] + " "
        out.append(piece)
        size += len(piece)
        i += 1
    return "".join(out)[:n_chars]


def turns_source(n_tools: int, n_chars: int, model: str, delay: float, chunk_size: int = 3) -> str:
    """Kernel code making the notebook agent's model (``%agent model``).

    ``model`` is ``TimedModel`` or ``ScriptedModel``; the variable is named ``model``.
    """
    first = f"[tool_call('ping', {{'i': i}}, call_id=f'ping_{{i}}') for i in range({n_tools})]"
    turns = f"[{first}, [text(TEXT)]]" if n_tools else "[[text(TEXT)]]"
    return (
        f"TEXT = {answer_text(n_chars)!r}\n"
        f"model = {model}({turns}, delay={delay!r}, chunk_size={chunk_size})\n"
        "%agent model model"
    )


@dataclass
class RunStats:
    """What one streamed run sent to the frontend."""

    comm_per_s_max: int
    comm_per_s_max_sliding: int
    comm_msgs: int
    comm_kib: float
    delays_ms: list[float]
    recv_delays_ms: list[float]
    stream_s: float
    deltas: int
    extra: dict[str, Any] = field(default_factory=dict)


def widget_comm(received: list[Received]) -> str:
    """The comm id of the run widget (the one whose initial state has a ``header``)."""
    for r in received:
        content = r.msg["content"]
        if r.msg["msg_type"] == "comm_open" and "header" in content["data"].get("state", {}):
            return str(content["comm_id"])
    raise RuntimeError("the %%agent cell opened no run widget")


def per_second_max(times: list[float], start: float) -> tuple[int, int]:
    """Most messages in one 1-s bucket from ``start``, and in any sliding 1-s window."""
    buckets: dict[int, int] = {}
    for t in times:
        key = int((t - start) // 1)
        buckets[key] = buckets.get(key, 0) + 1
    sliding = lo = 0
    for hi, t in enumerate(times):
        while t - times[lo] >= 1.0:
            lo += 1
        sliding = max(sliding, hi - lo + 1)
    return max(buckets.values(), default=0), sliding


def analyse(received: list[Received], deltas: list[list[Any]]) -> RunStats:
    """Comm rate, payload and delta-to-comm delays of one run."""
    comm = widget_comm(received)
    opened = next(r.sent for r in received if r.msg["content"].get("comm_id") == comm)
    updates = [
        r
        for r in received
        if r.msg["msg_type"] == "comm_msg" and r.msg["content"]["comm_id"] == comm
    ]
    if not any(r.msg["msg_type"] == "comm_close" for r in received):
        raise RuntimeError("the run widget was not closed at the end of the run")
    sent = [r.sent for r in updates]
    bucketed, sliding = per_second_max(sent, opened)
    payload = sum(len(json.dumps(r.msg["content"]["data"])) for r in updates)

    # For each text block: the deltas in order, matched to the first update covering them.
    pending: dict[str, list[tuple[float, int]]] = {}
    for t, item_id, end in deltas:
        pending.setdefault(f"t:{item_id}", []).append((t, end))
    next_index = dict.fromkeys(pending, 0)
    delays: list[float] = []
    recv_delays: list[float] = []
    for r in updates:
        for key, length in _text_lengths(r.msg["content"]["data"]):
            if key not in pending:
                continue
            entries, i = pending[key], next_index[key]
            while i < len(entries) and entries[i][1] <= length:
                delays.append(round((r.sent - entries[i][0]) * 1000, 3))
                recv_delays.append(round((r.recv - entries[i][0]) * 1000, 3))
                i += 1
            next_index[key] = i
    missing = sum(len(entries) - next_index[key] for key, entries in pending.items())
    if missing:
        raise RuntimeError(f"{missing} deltas never reached the widget")
    times = [d[0] for d in deltas]
    return RunStats(
        comm_per_s_max=bucketed,
        comm_per_s_max_sliding=sliding,
        comm_msgs=len(updates),
        comm_kib=payload / 1024,
        delays_ms=delays,
        recv_delays_ms=recv_delays,
        stream_s=max(times) - min(times) if times else 0.0,
        deltas=len(deltas),
    )


def _text_lengths(data: dict[str, Any]) -> list[tuple[str, int]]:
    """(text block id, characters the frontend has) after one widget comm message: an
    ``append`` / ``text`` custom message, or a state update (``n`` while live, ``text`` at the
    end; older versions resent the whole ``text`` every time)."""
    if data.get("method") == "custom":
        content = data.get("content") or {}
        if content.get("type") == "append":
            return [(content["id"], content["at"] + len(content["text"]))]
        if content.get("type") == "text":
            return [(content["id"], len(content["text"]))]
        return []
    found = []
    for block in data.get("state", {}).get("blocks", []):
        if block.get("kind") == "text" or "text" in block:
            length = len(block["text"]) if "text" in block else int(block.get("n") or 0)
            found.append((str(block.get("id")), length))
    return found


@contextlib.contextmanager
def reader_gc_off() -> Iterator[None]:
    """No garbage collection in this process while it reads a run's messages.

    A full collection here (this process holds the runtime and its imports) pauses the reader
    for ~40 ms and would be charged to the frontend receipt times.
    """
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def streamed_run(
    kernel: Kernel, n_tools: int, n_chars: int, delay: float, chunk_size: int = 3
) -> RunStats:
    """One ``%%agent`` run in ``kernel`` (set up already); its stats."""
    kernel.execute(turns_source(n_tools, n_chars, "TimedModel", delay, chunk_size))
    with reader_gc_off():
        _, received = kernel.execute(RUN_CELL.format(tools=n_tools))
    deltas = kernel.value("model.deltas")
    expected = -(-n_chars // chunk_size)
    if len(deltas) != expected:
        raise RuntimeError(f"expected {expected} deltas, the model logged {len(deltas)}")
    stats = analyse(received, deltas)
    errors = [r.msg["content"] for r in received if r.msg["msg_type"] == "error"]
    if errors:
        raise RuntimeError(f"the %%agent cell failed: {errors}")
    return stats


def _quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {}
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * (len(ordered) - 1) + 0.5))], 2),
        "max": round(ordered[-1], 2),
    }


# -- saved notebooks -------------------------------------------------------------------------


def notebook(n_tools: int, n_chars: int) -> Any:
    """A notebook: load the extension, set up the tool and the model, run the agent cell."""
    import nbformat

    cells = [
        nbformat.v4.new_code_cell("%load_ext jupyter_agents"),
        nbformat.v4.new_code_cell(
            TOOL_SETUP + "\n" + turns_source(n_tools, n_chars, "ScriptedModel", 0.0)
        ),
        nbformat.v4.new_code_cell(RUN_CELL.format(tools=n_tools)),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


async def saved_sizes(
    env: dict[str, str], tool_counts: list[int], n_chars: int
) -> list[dict[str, int]]:
    """Execute one notebook per tool count (concurrently: only sizes are measured), save each.

    Per notebook: the saved file's bytes, and the bytes without ``metadata.widgets``.
    """
    import nbformat
    from nbclient import NotebookClient

    async def one(n_tools: int) -> dict[str, int]:
        nb = notebook(n_tools, n_chars)
        client = NotebookClient(
            nb,
            timeout=KERNEL_TIMEOUT,
            kernel_name="python3",
            resources={"metadata": {"path": env["BENCH_KERNEL_DIR"]}},
        )
        await client.async_execute(env=env)
        for output in nb.cells[-1].outputs:
            if output.get("output_type") == "error":
                raise RuntimeError(f"the notebook's agent cell failed: {output.get('evalue')}")
        path = Path(env["BENCH_KERNEL_DIR"], f"run_{n_tools}.ipynb")
        nbformat.write(nb, path)
        bare = copy.deepcopy(nb)
        bare.metadata.pop("widgets", None)
        nbformat.write(bare, path.with_suffix(".bare.ipynb"))
        outputs = json.dumps(nb.cells[-1].outputs)
        return {
            "file": path.stat().st_size,
            "without_widget_state": path.with_suffix(".bare.ipynb").stat().st_size,
            "agent_cell_outputs": len(outputs),
        }

    return list(await asyncio.gather(*(one(n) for n in tool_counts)))


def plain_kernel_start(env: dict[str, str]) -> float:
    """Seconds from starting a fresh kernel to the reply of its first cell (``pass``)."""
    t0 = time.perf_counter()
    kernel = Kernel(env)
    try:
        kernel.execute("pass")
        return round(time.perf_counter() - t0, 4)
    finally:
        kernel.close()


# -- the workload ----------------------------------------------------------------------------


def measure(impl: Impl, quick: bool) -> Measured:
    if impl.name != "ours":
        raise SystemExit("N1 measures the notebook layer of jupyter_agents only (--impl ours)")
    if _common._profiler is not None:
        raise SystemExit("N1 runs in a kernel: --profile does not apply")
    n_tools, n_chars, runs, extra_kernels = (5, 600, 1, 0) if quick else (50, 15_000, 2, 2)
    nb_tools = 5 if quick else 100
    metrics: dict[str, list[float]] = {}
    info: dict[str, Any] = {"tools": n_tools, "deltas": n_chars // 3, "runs_per_variant": runs}

    def add(name: str, *values: float) -> None:
        metrics.setdefault(name, []).extend(values)

    with kernel_env() as env:
        kernel = Kernel(env)
        try:
            kernel.execute(TIME_LOAD_EXT)
            add("load_ext_s", kernel.value("_bench_load_ext_s"))
            info["kernel_runtime"] = kernel.value("__import__('jupyter_agents').__file__")
            info["flush_interval_default"] = kernel.value(FLUSH_INTERVAL)
            kernel.execute(TOOL_SETUP + TIMED_MODEL)
            kernel.execute(turns_source(1, 30, "TimedModel", 0.0))  # warm-up run
            kernel.execute(RUN_CELL.format(tools=1))
            for suffix, delay in (("", 0.001), ("_nodelay", 0.0)):
                for _ in range(runs):
                    stats = streamed_run(kernel, n_tools, n_chars, delay)
                    add(f"comm_per_s_max{suffix}", stats.comm_per_s_max)
                    add(f"comm_msgs{suffix}", stats.comm_msgs)
                    add(f"delta_ms{suffix}", *stats.delays_ms)
                    add(f"delta_max_ms{suffix}", max(stats.delays_ms))
                    add(f"stream_s{suffix}", round(stats.stream_s, 4))
                    if not suffix:
                        add("comm_kib", round(stats.comm_kib, 2))
                        add("recv_delta_max_ms", max(stats.recv_delays_ms))
                    info.setdefault(f"runs{suffix or '_delay'}", []).append(
                        {
                            "comm_per_s_max_sliding": stats.comm_per_s_max_sliding,
                            "comm_kib": round(stats.comm_kib, 2),
                            "delta_ms": _quantiles(stats.delays_ms),
                            "recv_delta_ms": _quantiles(stats.recv_delays_ms),
                        }
                    )
            # A long answer: the wire must carry it about once, not once per sync.
            long_chars = 200_000 if quick else 10_000_000
            stats = streamed_run(kernel, 0, long_chars, 0.0, chunk_size=max(3, long_chars // 2000))
            add("long_answer_comm_mib", round(stats.comm_kib / 1024, 2))
            add("long_answer_wire_ratio", round(stats.comm_kib * 1024 / long_chars, 2))
            add("long_answer_stream_s", round(stats.stream_s, 3))
            info["long_answer_chars"] = long_chars
        finally:
            kernel.close()
        for _ in range(extra_kernels):
            fresh = Kernel(env)
            try:
                fresh.execute(TIME_LOAD_EXT)
                add("load_ext_s", fresh.value("_bench_load_ext_s"))
            finally:
                fresh.close()
        for _ in range(extra_kernels + 1):
            add("kernel_start_s", plain_kernel_start(env))
        with_tools, without = asyncio.run(saved_sizes(env, [nb_tools, 0], min(n_chars, 3000)))
    scale = 100 / nb_tools / 1000  # KB, as in the target
    add("nb_kb_per_100_tools", round((with_tools["file"] - without["file"]) * scale, 2))
    add(
        "nb_kb_per_100_tools_outputs",
        round((with_tools["without_widget_state"] - without["without_widget_state"]) * scale, 2),
    )
    info["notebook_bytes"] = {f"{nb_tools} tools": with_tools, "0 tools": without}
    return Measured(metrics=metrics, info=info)


if __name__ == "__main__":
    main(WORKLOAD, measure)
