"""M1: an MCP tool call's round trip, and listing tools with and without the cache.

``echo`` on a warm session through ``MCPServerStdio`` / ``MCPServerStreamableHttp`` (the
session lives on the background loop; the call comes from another loop, as a run's does)
against the same call sent with the ``mcp`` SDK's own ``ClientSession`` on the caller's loop
(the server's and the transport's time: the floor). Metrics: each median, the overhead ours
adds (difference of the medians per batch), and ``list_tools`` with ``cache_tools_list`` on and
off. Ours only: the peer's MCP servers cannot be closed from another task, and its timings
would measure the same SDK.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from jupyter_agents.mcp import MCPServerStdio, MCPServerStreamableHttp

from .._common import Impl, Measured, main

WORKLOAD = "M1"
SERVER = Path(__file__).resolve().parent.parent / "servers" / "echo_server.py"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_http() -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("the echo server did not start")


async def _raw_session(stack: AsyncExitStack, transport: Any) -> ClientSession:
    streams = await stack.enter_async_context(transport)
    session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
    await session.initialize()
    return session


async def _pair(
    ours: Any, raw: ClientSession, batches: int, per_batch: int
) -> dict[str, list[float]]:
    for _ in range(20):
        await ours.call_tool("echo", {"text": "hi"})
        await raw.call_tool("echo", {"text": "hi"})
    ours_ms: list[float] = []
    raw_ms: list[float] = []
    added: list[float] = []
    for _ in range(batches):
        a: list[float] = []
        b: list[float] = []
        for _ in range(per_batch):
            started = time.perf_counter()
            await ours.call_tool("echo", {"text": "hi"})
            a.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            await raw.call_tool("echo", {"text": "hi"})
            b.append((time.perf_counter() - started) * 1000)
        ours_ms += a
        raw_ms += b
        added.append(statistics.median(a) - statistics.median(b))
    return {"ours": ours_ms, "raw": raw_ms, "added": added}


async def _listing(server: Any, cached: bool, rounds: int) -> list[float]:
    server.cache_tools_list = cached
    await server.list_tools()
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        await server.list_tools()
        times.append((time.perf_counter() - started) * 1000)
    return times


async def measure(impl: Impl, quick: bool) -> Measured:
    batches, per_batch = (1, 20) if quick else (5, 100)
    metrics: dict[str, list[float]] = {}
    stdio_params = {"command": sys.executable, "args": [str(SERVER)]}
    started = time.perf_counter()
    ours = MCPServerStdio(stdio_params, name="echo")  # type: ignore[arg-type]
    await ours.connect()
    metrics["stdio_start_ms"] = [(time.perf_counter() - started) * 1000]
    process, url = _start_http()
    try:
        async with AsyncExitStack() as stack:
            raw = await _raw_session(
                stack,
                stdio_client(StdioServerParameters(command=sys.executable, args=[str(SERVER)])),
            )
            pair = await _pair(ours, raw, batches, per_batch)
            metrics.update(
                stdio_ours_ms=pair["ours"], stdio_raw_ms=pair["raw"], stdio_added_ms=pair["added"]
            )
            metrics["list_cached_ms"] = await _listing(ours, True, per_batch)
            metrics["list_uncached_ms"] = await _listing(ours, False, per_batch)
        await ours.cleanup()
        web = MCPServerStreamableHttp({"url": url}, name="web")
        await web.connect()
        async with AsyncExitStack() as stack:
            raw = await _raw_session(stack, streamable_http_client(url))
            pair = await _pair(web, raw, batches, per_batch)
            metrics.update(
                http_ours_ms=pair["ours"], http_raw_ms=pair["raw"], http_added_ms=pair["added"]
            )
        await web.cleanup()
    finally:
        process.terminate()
        process.wait(10)
    return Measured(metrics=metrics, info={"batches": batches, "per_batch": per_batch})


if __name__ == "__main__":
    main(WORKLOAD, measure)
