"""What every workload shares: the two runtimes behind one face, the CLI and the output.

A workload module defines ``WORKLOAD`` (its id) and ``measure(impl, quick) -> Measured``, and
ends with ``main(WORKLOAD, measure)``. Run alone it prints a summary, with ``--json`` one JSON
object (what ``bench.run`` reads)::

    python -m bench.workloads.w1 --impl ours --json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib.metadata
import ipaddress
import json
import os
import socket
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .scripted import scripted_model

__all__ = [
    "Impl",
    "Measured",
    "block_network",
    "load_impl",
    "main",
    "profiled",
]

IMPLS = ("ours", "peer")


@dataclass(frozen=True)
class Impl:
    """One runtime behind the names the workloads need."""

    name: str
    """``"ours"`` (jupyter_agents) or ``"peer"`` (openai-agents)."""

    version: str
    """The runtime's version."""

    Agent: Any
    Runner: Any
    function_tool: Any
    model_base: type
    """The runtime's ``Model`` ABC."""

    make_response: Callable[[list[Any], str], Any]
    """Builds the runtime's ``ModelResponse`` (output items, response id)."""

    location: str
    """Where the runtime's package was imported from."""

    def new_model(self) -> Any:
        """A fresh scripted model for this runtime."""
        return scripted_model(self.model_base, self.make_response)


def _load_ours() -> Impl:
    import jupyter_agents as ja

    def make_response(output: list[Any], response_id: str) -> Any:
        usage = ja.Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15)
        return ja.ModelResponse(output=output, usage=usage, response_id=response_id)

    return Impl(
        name="ours",
        version=ja.__version__,
        Agent=ja.Agent,
        Runner=ja.Runner,
        function_tool=ja.function_tool,
        model_base=ja.Model,
        make_response=make_response,
        location=os.path.dirname(ja.__file__),
    )


def _load_peer() -> Impl:
    import agents
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage

    agents.set_tracing_disabled(True)

    def make_response(output: list[Any], response_id: str) -> Any:
        usage = Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15)
        return ModelResponse(output=output, usage=usage, response_id=response_id)

    return Impl(
        name="peer",
        version=importlib.metadata.version("openai-agents"),
        Agent=agents.Agent,
        Runner=agents.Runner,
        function_tool=agents.function_tool,
        model_base=Model,
        make_response=make_response,
        location=os.path.dirname(agents.__file__),
    )


def load_impl(name: str) -> Impl:
    """Import one runtime (after making sure nothing can reach the network)."""
    block_network()
    os.environ["OPENAI_API_KEY"] = "sk-bench"
    return _load_ours() if name == "ours" else _load_peer()


# -- network ---------------------------------------------------------------------------------


class NetworkBlocked(RuntimeError):
    """A benchmark tried to leave the machine."""


def _is_local(host: Any) -> bool:
    host = host.decode() if isinstance(host, bytes) else str(host)
    if host in ("localhost", "", "None"):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


NETWORK_ATTEMPTS: list[str] = []
"""Every refused connection or lookup (reported in the workload's ``info``)."""


def block_network() -> None:
    """Make every non-loopback connection or name lookup raise :class:`NetworkBlocked`."""
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        if isinstance(address, tuple) and not _is_local(address[0]):
            NETWORK_ATTEMPTS.append(f"connect {address[0]}")
            raise NetworkBlocked(f"benchmark tried to reach {address[0]}")
        return real_connect(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and not _is_local(host):
            NETWORK_ATTEMPTS.append(f"resolve {host!r}")
            raise NetworkBlocked(f"benchmark tried to resolve {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo


# -- measuring -------------------------------------------------------------------------------


@dataclass
class Measured:
    """What one workload process measured."""

    metrics: dict[str, list[float]] = field(default_factory=dict)
    """Samples per metric name (the names are listed in ``bench.run.METRICS``)."""

    info: dict[str, Any] = field(default_factory=dict)
    """Anything else worth keeping (sizes, error messages)."""


_profiler: Any = None


@contextlib.contextmanager
def profiled() -> Iterator[None]:
    """Marks the timed part of a workload: it is what ``--profile`` records."""
    if _profiler is None:
        yield
        return
    _profiler.start()
    try:
        yield
    finally:
        _profiler.stop()


def settle() -> None:
    """Collect garbage so one phase's leftovers are not charged to the next."""
    gc.collect()


def rss_kib() -> float:
    """The current resident set size of this process, in KiB (Linux; else the peak)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 1024
    except (OSError, ValueError):
        import resource

        return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def summary(measured: Measured) -> str:
    """A human-readable summary of one workload process."""
    lines = []
    for name, samples in measured.metrics.items():
        if not samples:
            lines.append(f"  {name}: no samples")
            continue
        lines.append(
            f"  {name}: median {statistics.median(samples):.4g} "
            f"(min {min(samples):.4g}, max {max(samples):.4g}, n={len(samples)})"
        )
    for key, value in measured.info.items():
        lines.append(f"  [{key}] {value}")
    return "\n".join(lines)


def flat_profile(session: Any, top: int = 30) -> str:
    """Self and inclusive time per function of a pyinstrument session, every frame shown."""
    root = session.root_frame()
    total = root.time if root is not None else 0.0
    own: dict[str, float] = {}
    inclusive: dict[str, float] = {}

    def name(frame: Any) -> str:
        qual = f"{frame.class_name}.{frame.function}" if frame.class_name else frame.function
        return f"{qual}  {frame.file_path_short}:{frame.line_no}"

    def walk(frame: Any, on_stack: frozenset[str]) -> None:
        key = name(frame)
        # pyinstrument records a frame's own time as a synthetic "[self]" child.
        spent = frame.time - sum(c.time for c in frame.children if not c.is_synthetic)
        own[key] = own.get(key, 0.0) + spent
        if key not in on_stack:  # count recursion once
            inclusive[key] = inclusive.get(key, 0.0) + frame.time
        for child in frame.children:
            if not child.is_synthetic:
                walk(child, on_stack | {key})

    if root is not None:
        walk(root, frozenset())
    lines = [f"total {total:.3f} s", "", f"top {top} by self time:"]
    for key, value in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"{100 * value / total:6.1f}%  {key}")
    lines += ["", f"top {top} by inclusive time:"]
    for key, value in sorted(inclusive.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"{100 * value / total:6.1f}%  {key}")
    return "\n".join(lines) + "\n"


def main(
    workload: str,
    measure: Callable[[Impl, bool], Awaitable[Measured] | Measured],
) -> None:
    """The command line of a workload module."""
    global _profiler
    parser = argparse.ArgumentParser(description=f"Benchmark workload {workload}.")
    parser.add_argument("--impl", choices=IMPLS, default="ours")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    parser.add_argument(
        "--profile",
        metavar="PATH",
        help="profile the timed part with pyinstrument: PATH (tree), PATH.flat.txt (self and "
        "inclusive time per function), PATH.html",
    )
    args = parser.parse_args()
    impl = load_impl(args.impl)
    if args.profile:
        from pyinstrument import Profiler

        _profiler = Profiler(interval=0.0002, async_mode="disabled")
    started = time.perf_counter()
    result = measure(impl, args.quick)
    if asyncio.iscoroutine(result):
        result = asyncio.run(result)
    assert isinstance(result, Measured)
    result.info.setdefault("process_seconds", round(time.perf_counter() - started, 3))
    result.info["network_attempts"] = list(NETWORK_ATTEMPTS)
    if _profiler is not None:
        outputs = {
            args.profile: _profiler.output_text(time="percent_of_total"),
            args.profile + ".flat.txt": flat_profile(_profiler.last_session),
            args.profile + ".html": _profiler.output_html(),
        }
        for path, text in outputs.items():
            with open(path, "w") as f:
                f.write(text)
    if args.json:
        out = {
            "workload": workload,
            "impl": impl.name,
            "version": impl.version,
            "location": impl.location,
            "python": sys.version.split()[0],
            "metrics": result.metrics,
            "info": result.info,
        }
        print(json.dumps(out))
    else:
        print(f"{workload} ({impl.name} {impl.version})")
        print(summary(result))
