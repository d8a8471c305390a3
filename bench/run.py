"""Run the benchmark workloads against jupyter_agents and openai-agents; print and save a table.

From the repository root::

    python -m bench.run                 # every workload, 3 rounds
    python -m bench.run --quick         # smoke: tiny sizes, one round, no timing asserted
    python -m bench.run --only W1,W3 --repeat 5

Each workload runs in its own subprocess per runtime. Rounds interleave the two runtimes
(ours, peer, then peer, ours, ...) so both see the same machine load; the samples of all rounds
are pooled. Without openai-agents installed the peer columns stay empty. Workloads in
``OURS_ONLY`` (N1, the notebook layer) run for jupyter_agents alone.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import importlib.util
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["METRICS", "OURS_ONLY", "WORKLOADS", "main"]

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "bench" / "results" / "latest.json"

WORKLOADS: dict[str, str] = {
    "W1": "w1",
    "W2": "w2",
    "W3": "w3",
    "W4": "w4",
    "W5": "w5",
    "W6": "w6",
    "SYNC": "sync_loop",
    "N1": "n1",
    "S1": "s1",
    "K1": "k1",
    "R1": "r1",
    "M1": "m1",
    "B1": "b1",
    "P1": "p1",
    "NB1": "nb1",
    "RP1": "rp1",
    "D1": "d1",
    "EV1": "ev1",
    "SS1": "ss1",
}
"""Workload id -> module under ``bench.workloads``."""

OURS_ONLY = frozenset({"N1", "S1", "K1", "R1", "M1", "B1", "NB1", "RP1", "EV1", "D1"})
"""Workloads the peer cannot run (N1 needs the notebook layer, S1 the sandbox, K1 a local code
interpreter, R1 a document store; the peer has none of them; M1 compares our MCP servers with
the mcp SDK's own session, which is what the peer's servers use)."""


@dataclass(frozen=True)
class Target:
    """One condition a metric should meet (the project's performance goals)."""

    kind: str
    """``ratio_max`` / ``ratio_min`` (ours/peer medians), ``max`` / ``min`` (ours median) or
    ``p95_max`` (ours p95)."""

    value: float

    def text(self, unit: str) -> str:
        sign = "<=" if self.kind.endswith("max") else ">="
        if unit == "bool":
            return "yes" if self.kind == "min" else "no"
        if self.kind.startswith("ratio") or unit == "x":
            return f"{sign} {self.value:g}x"
        if self.kind == "p95_max":
            return f"p95 {sign} {self.value:g} {unit}"
        return f"{sign} {self.value:g} {unit}"

    def met(self, ours: float, ratio: float | None, p95: float | None = None) -> bool | None:
        if self.kind == "p95_max":
            return None if p95 is None else p95 <= self.value
        if self.kind.startswith("ratio"):
            if ratio is None:
                return None
            return ratio <= self.value if self.kind == "ratio_max" else ratio >= self.value
        return ours <= self.value if self.kind == "max" else ours >= self.value


@dataclass(frozen=True)
class Metric:
    """How one measured quantity is shown and judged."""

    workload: str
    key: str
    label: str
    unit: str
    higher_is_better: bool = False
    targets: tuple[Target, ...] = field(default=())


def _m(
    workload: str, key: str, label: str, unit: str, *targets: Target, up: bool = False
) -> Metric:
    return Metric(workload, key, label, unit, up, targets)


def _ratio_max(value: float) -> Target:
    return Target("ratio_max", value)


def _ratio_min(value: float) -> Target:
    return Target("ratio_min", value)


def _max(value: float) -> Target:
    return Target("max", value)


def _p95_max(value: float) -> Target:
    return Target("p95_max", value)


METRICS: list[Metric] = [
    _m("W1", "ms_per_turn", "ms per turn (run / 50)", "ms", _ratio_max(0.1)),
    _m("W1", "turn1_ms", "turn 1 cost", "ms"),
    _m("W1", "turn49_ms", "turn 49 cost", "ms"),
    _m("W1", "turn49_over_turn1", "turn 49 / turn 1", "x", _max(1.5)),
    _m("W1", "ms_per_turn_async_tool", "ms per turn, async tool instead", "ms"),
    _m("W2", "run_wall_ms", "run wall, 20 tools x 50 ms", "ms", _max(60)),
    _m("W2", "reply_to_first_tool_ms", "model reply -> 1st tool start", "ms", _max(2)),
    _m("W3", "events_per_s", "events/s, stream never pauses", "ev/s", _ratio_min(3), up=True),
    _m("W3", "ttfd_ms", "1st delta lag, never pauses", "ms", _max(2)),
    _m("W3", "ttfd_from_start_ms", "1st delta from run start", "ms"),
    _m("W3", "events_per_s_yielding", "events/s, stream yields", "ev/s", up=True),
    _m("W3", "ttfd_ms_yielding", "1st delta lag, stream yields", "ms", _max(2)),
    _m("W4", "ms_per_tool_pydantic", "ms/tool, pydantic param (cold)", "ms", _ratio_max(0.3)),
    _m("W4", "ms_per_tool_typeddict", "ms/tool, TypedDict (cold)", "ms", _ratio_max(0.3)),
    _m("W4", "ms_per_tool_pydantic_rerun", "ms/tool, pydantic, cell re-run", "ms"),
    _m("W4", "ms_per_tool_typeddict_rerun", "ms/tool, TypedDict, cell re-run", "ms"),
    _m("W4", "ms_per_tool_pydantic_same_fn", "ms/tool, pydantic, same fn", "ms"),
    _m("W4", "ms_per_tool_typeddict_same_fn", "ms/tool, TypedDict, same fn", "ms"),
    _m("W5", "import_s", "python -c 'import <pkg>'", "s", _ratio_max(0.15), _max(0.5)),
    _m("W5", "import_api_s", "import Agent, Runner, tool", "s"),
    _m("W5", "bare_python_s", "python -c pass (floor)", "s"),
    _m("W6", "runs_per_s", "1-turn runs/s", "runs/s", _ratio_min(5), up=True),
    _m("W6", "tracemalloc_growth_kib", "memory left per 1k runs", "KiB", _max(64)),
    _m("W6", "rss_growth_kib", "RSS growth per 1k runs", "KiB"),
    _m("SYNC", "works", "run_sync in a running loop works", "bool", Target("min", 1), up=True),
    _m("SYNC", "wall_ms", "run_sync in a running loop, wall", "ms"),
    _m("S1", "plain_ms", "one command, no sandbox", "ms"),
    _m("S1", "sandboxed_ms", "one command, bubblewrap workspace-write", "ms"),
    _m("S1", "added_ms", "latency the sandbox adds", "ms", _max(20)),
    _m("K1", "first_ms", "code interpreter: first call (kernel start)", "ms"),
    _m("K1", "ours_ms", "code interpreter: 1+1, warm kernel", "ms"),
    _m("K1", "raw_ms", "jupyter_client: 1+1, plain kernel", "ms"),
    _m("K1", "added_ms", "overhead ours adds to 1+1", "ms", _max(30)),
    _m("M1", "stdio_start_ms", "MCP stdio server: start + initialize", "ms"),
    _m("M1", "stdio_ours_ms", "MCP call over stdio, ours", "ms"),
    _m("M1", "stdio_raw_ms", "MCP call over stdio, mcp SDK session", "ms"),
    _m("M1", "stdio_added_ms", "overhead ours adds to a stdio call", "ms", _max(1)),
    _m("M1", "http_ours_ms", "MCP call over Streamable HTTP, ours", "ms"),
    _m("M1", "http_raw_ms", "MCP call over Streamable HTTP, SDK session", "ms"),
    _m("M1", "http_added_ms", "overhead ours adds to an HTTP call", "ms", _max(1)),
    _m("M1", "list_cached_ms", "list_tools, cache on", "ms"),
    _m("M1", "list_uncached_ms", "list_tools, cache off", "ms"),
    _m("B1", "wall_s", "batch wall time", "s"),
    _m("B1", "ideal_s", "ideal: rows x latency / concurrency", "s"),
    _m("B1", "wall_over_ideal_pct", "wall over ideal", "%", _max(10)),
    _m("B1", "cpu_ms_per_row", "framework CPU time per row", "ms"),
    _m("B1", "rss_10_mib", "resident memory after 10% of rows", "MiB"),
    _m("B1", "rss_50_mib", "resident memory after 50% of rows", "MiB"),
    _m("B1", "rss_100_mib", "resident memory after all rows", "MiB"),
    _m("B1", "ray_wall_s", "batch wall time on local Ray", "s"),
    _m("B1", "ray_wall_over_ideal_pct", "wall over ideal on local Ray", "%", _max(10)),
    _m("B1", "ray_startup_s", "Ray: starting the actors", "s"),
    _m("B1", "ray_after_startup_over_ideal_pct", "Ray: wall after start over ideal", "%"),
    _m("B1", "ray_warm_wall_s", "batch wall time on warm Ray actors", "s"),
    _m("B1", "ray_warm_wall_over_ideal_pct", "wall over ideal on warm Ray actors", "%", _max(10)),
    _m("P1", "spread_1m_s", "apply_diff, 1M lines, 12 KB patch", "s", _max(3)),
    _m("P1", "repetitive_200k_s", "apply_diff, 200k same lines, 400-line context", "s", _max(1)),
    _m("R1", "chunks", "chunks indexed", "chunks"),
    _m("R1", "index_chunks_per_s", "indexing throughput", "chunks/s", up=True),
    _m("R1", "query_ms", "keyword query, 10k chunks", "ms", _max(20)),
    _m("N1", "comm_per_s_max", "comm msgs/s, busiest 1-s window", "msg/s", _max(30)),
    _m("N1", "comm_msgs", "comm msgs per run", "msgs"),
    _m("N1", "comm_kib", "widget state sent per run", "KiB"),
    _m("N1", "delta_ms", "delta -> its comm msg (all deltas)", "ms"),
    _m("N1", "delta_max_ms", "delta -> its comm msg, worst", "ms", _max(100)),
    _m("N1", "recv_delta_max_ms", "delta -> frontend receipt, worst", "ms"),
    _m("N1", "stream_s", "stream length (1 ms per delta)", "s"),
    _m("N1", "comm_per_s_max_nodelay", "no delay: comm msgs/s, busiest 1 s", "msg/s", _max(30)),
    _m("N1", "comm_msgs_nodelay", "no delay: comm msgs per run", "msgs"),
    _m("N1", "delta_ms_nodelay", "no delay: delta -> comm msg", "ms"),
    _m("N1", "delta_max_ms_nodelay", "no delay: delta -> comm msg, worst", "ms", _max(100)),
    _m("N1", "stream_s_nodelay", "no delay: stream length", "s"),
    _m("N1", "long_answer_comm_mib", "10 MB answer: comm payload", "MiB"),
    _m("N1", "long_answer_wire_ratio", "10 MB answer: wire bytes per answer byte", "x", _max(3)),
    _m("N1", "long_answer_stream_s", "10 MB answer: stream length", "s"),
    _m("N1", "nb_kb_per_100_tools", "saved nb per 100 tools (nbclient)", "KB", _max(50)),
    _m("N1", "nb_kb_per_100_tools_outputs", "saved nb per 100 tools, outputs", "KB", _max(50)),
    _m("N1", "load_ext_s", "%load_ext in a fresh kernel", "s", _max(0.15)),
    _m("N1", "kernel_start_s", "plain kernel start to its first cell", "s"),
    _m("D1", "plain_ms", "50-turn run, not saved", "ms"),
    _m("D1", "recorded_ms", "the same run, recorded (a notebook cell)", "ms"),
    _m("D1", "durable_ms", "recorded and saved after every step (SQLite)", "ms"),
    _m("D1", "ms_per_step", "what saving adds to a step", "ms", _max(2)),
    _m("D1", "saving_ms_per_step", "recording and saving, per step", "ms"),
    _m("RP1", "live_ms", "20-tool run live, server answers at once", "ms"),
    _m("RP1", "replay_ms", "the same run replayed from its recording", "ms"),
    _m("RP1", "replay_pct", "replay / live (instant server)", "%", _max(5)),
    _m("RP1", "live_model_ms", "20-tool run live, 150 ms per model reply", "ms"),
    _m("RP1", "replay_pct_model", "replay / live (150 ms model)", "%"),
    _m("EV1", "batch_s", "1,000 rows as run_batch (50 ms model, concurrency 64)", "s"),
    _m("EV1", "eval_s", "the same 1,000 as evaluate, 4 scorers", "s"),
    _m("EV1", "eval_over_batch_pct", "evaluate over run_batch", "%", _max(10)),
    _m("EV1", "rescore_ms", "rescore 1,000 stored cases, 4 scorers", "ms"),
    _m("EV1", "compare_ms", "compare two 1,000-case reports", "ms"),
    _m("NB1", "echo_ms", "document comm echo, kernel -> page -> kernel", "ms"),
    _m("NB1", "read_cell_ms", "read_cell round trip in JupyterLab", "ms", _p95_max(150)),
    _m("NB1", "edit_cell_ms", "edit_cell round trip in JupyterLab", "ms", _p95_max(150)),
    _m("NB1", "run_cells_ms", "run_cells of `x = N` in JupyterLab", "ms"),
    _m("SS1", "sqlite_items_per_s", "SQLiteSession: items appended/s", "items/s", up=True),
    _m("SS1", "sqlite_read_ms_10k", "SQLiteSession: read 10k-item history", "ms"),
    _m("SS1", "sqlite_read_latest50_ms", "SQLiteSession: read latest 50 of 10k", "ms"),
    _m("SS1", "pg_items_per_s", "SQLAlchemy+PostgreSQL: items appended/s", "items/s", up=True),
    _m("SS1", "pg_read_ms_10k", "SQLAlchemy+PostgreSQL: read 10k-item history", "ms"),
    _m("SS1", "pg_read_latest50_ms", "SQLAlchemy+PostgreSQL: read latest 50 of 10k", "ms"),
    _m("SS1", "sa_sqlite_items_per_s", "SQLAlchemy+SQLite: items appended/s", "items/s", up=True),
    _m("SS1", "sa_sqlite_read_ms_10k", "SQLAlchemy+SQLite: read 10k-item history", "ms"),
    _m("SS1", "sa_sqlite_read_latest50_ms", "SQLAlchemy+SQLite: read latest 50 of 10k", "ms"),
    _m("SS1", "redis_items_per_s", "Redis: items appended/s", "items/s", up=True),
    _m("SS1", "redis_read_ms_10k", "Redis: read 10k-item history", "ms"),
    _m("SS1", "redis_read_latest50_ms", "Redis: read latest 50 of 10k", "ms"),
]
"""Every row of the table, in order, with its targets."""


# -- running ---------------------------------------------------------------------------------


def peer_version() -> str | None:
    """openai-agents' version when it is importable here, else None."""
    if importlib.util.find_spec("agents") is None:
        return None
    try:
        return importlib.metadata.version("openai-agents")
    except importlib.metadata.PackageNotFoundError:
        return None


def _env(snapshot: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    env["OPENAI_API_KEY"] = "sk-bench"  # a dummy: nothing may reach a real service
    env["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
    env.pop("OPENAI_BASE_URL", None)
    paths = [str(snapshot) if snapshot else None, str(ROOT), env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    return env


def run_one(
    workload: str, impl: str, quick: bool, timeout: float, snapshot: Path | None = None
) -> dict[str, Any]:
    """Run one workload for one runtime in a fresh process; its JSON, or an ``error`` entry.

    With ``snapshot`` (a folder holding a ``jupyter_agents`` package), that package is measured
    instead of the working tree's: the process starts there, so it comes first on ``sys.path``.
    """
    cmd = [sys.executable, "-m", f"bench.workloads.{WORKLOADS[workload]}", "--impl", impl, "--json"]
    if quick:
        cmd.append("--quick")
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd,
            cwd=snapshot or ROOT,
            env=_env(snapshot),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"workload": workload, "impl": impl, "error": f"timed out after {timeout:g} s"}
    seconds = time.perf_counter() - start
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip()[-2000:]
        return {"workload": workload, "impl": impl, "error": f"exit {proc.returncode}: {tail}"}
    out: dict[str, Any] = json.loads(lines[-1])
    out["wall_seconds"] = round(seconds, 3)
    return out


def collect(
    workloads: list[str],
    impls: list[str],
    repeat: int,
    quick: bool,
    timeout: float,
    snapshot: Path | None = None,
) -> list[dict[str, Any]]:
    """Every (round, workload, runtime) process, interleaving the runtimes."""
    runs = []
    for round_ in range(repeat):
        for workload in workloads:
            order = impls if round_ % 2 == 0 else impls[::-1]
            if workload in OURS_ONLY:
                order = [impl for impl in order if impl == "ours"]
            for impl in order:
                print(f"[{round_ + 1}/{repeat}] {workload} {impl} ...", end="", file=sys.stderr)
                sys.stderr.flush()
                out = run_one(workload, impl, quick, timeout, snapshot)
                out["round"] = round_
                if "error" in out:
                    print(f" FAILED: {out['error']}", file=sys.stderr)
                else:
                    print(f" {out['wall_seconds']:.1f} s", file=sys.stderr)
                runs.append(out)
    return runs


# -- summarising -----------------------------------------------------------------------------


def _stats(samples: list[float], higher_is_better: bool) -> dict[str, Any] | None:
    if not samples:
        return None
    ordered = sorted(samples)
    # The slow tail: the 95th percentile of a time, the 5th of a rate.
    rank = 0.05 if higher_is_better else 0.95
    tail = ordered[min(len(ordered) - 1, int(rank * (len(ordered) - 1) + 0.5))]
    return {
        "median": statistics.median(ordered),
        "p95": tail,
        "mean": statistics.fmean(ordered),
        "min": ordered[0],
        "max": ordered[-1],
        "n": len(ordered),
    }


def summarise(
    runs: list[dict[str, Any]], workloads: list[str], judge: bool = True
) -> list[dict[str, Any]]:
    """One row per metric of the selected workloads (peer stats None when not run).

    ``judge=False`` (smoke mode) leaves ``met`` empty: tiny sizes say nothing about targets.
    """
    pooled: dict[tuple[str, str, str], list[float]] = {}
    for out in runs:
        for key, samples in out.get("metrics", {}).items():
            pooled.setdefault((out["workload"], out["impl"], key), []).extend(samples)
    rows = []
    for metric in METRICS:
        if metric.workload not in workloads:
            continue
        up = metric.higher_is_better
        ours = _stats(pooled.get((metric.workload, "ours", metric.key), []), up)
        peer = _stats(pooled.get((metric.workload, "peer", metric.key), []), up)
        ratio = None
        if ours is not None and peer is not None and peer["median"] > 0 and ours["median"] >= 0:
            ratio = ours["median"] / peer["median"]
        met: bool | None = None
        if judge and ours is not None and metric.targets:
            checks = [t.met(ours["median"], ratio, ours.get("p95")) for t in metric.targets]
            met = None if None in checks else all(checks)
        rows.append(
            {
                "workload": metric.workload,
                "metric": metric.key,
                "label": metric.label,
                "unit": metric.unit,
                "higher_is_better": metric.higher_is_better,
                "ours": ours,
                "peer": peer,
                "ratio": ratio,
                "target": " and ".join(t.text(metric.unit) for t in metric.targets),
                "met": met,
            }
        )
    return rows


def _fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return ""
    if unit == "bool":
        return "yes" if value >= 1 else "no"
    magnitude = abs(value)
    if magnitude >= 1000:
        return f"{value:,.0f}"
    if magnitude >= 100:
        return f"{value:.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 1 or magnitude == 0:
        return f"{value:.2f}"
    return f"{value:.3g}"


def _fmt_ratio(ratio: float | None, unit: str) -> str:
    if ratio is None or unit == "bool":
        return ""
    if 0 < ratio < 0.01:
        return "<0.01x"
    return f"{ratio:.3g}x"


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table."""
    header = [
        "workload",
        "metric",
        "unit",
        "ours median",
        "ours p95",
        "peer median",
        "peer p95",
        "ours/peer",
        "target",
        "met?",
    ]
    body = []
    for row in rows:
        ours, peer, unit = row["ours"] or {}, row["peer"] or {}, row["unit"]
        met = {True: "yes", False: "**no**", None: "-" if row["target"] else ""}[row["met"]]
        ratio = row["ratio"]
        body.append(
            [
                row["workload"],
                row["label"],
                unit,
                _fmt(ours.get("median"), unit),
                _fmt(ours.get("p95"), unit),
                _fmt(peer.get("median"), unit),
                _fmt(peer.get("p95"), unit),
                _fmt_ratio(ratio, unit),
                row["target"],
                met,
            ]
        )
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), rule, *(line(r) for r in body)])


def _loadavg() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "executable": sys.executable,
    }
    try:
        with open("/proc/cpuinfo") as f:
            names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        info["cpu"] = names[0] if names else None
        with open("/proc/meminfo") as f:
            total_kib = int(f.readline().split()[1])
        info["ram_gib"] = round(total_kib / 1024 / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    for package in ("jupyter_agents", "openai-agents", "openai", "pydantic"):
        try:
            info[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            info[package] = None
    return info


def _git(*args: str) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def source(rev: str | None, commit: str | None) -> dict[str, Any]:
    """The commit measured, and whether the runtime had uncommitted changes."""
    if rev is not None:
        return {"commit": commit, "snapshot_of": rev}
    changed = _git("status", "--porcelain", "--", "jupyter_agents")
    return {
        "commit": _git("rev-parse", "--short", "HEAD"),
        "runtime_uncommitted_files": None if changed is None else len(changed.splitlines()),
    }


def extract_snapshot(rev: str, into: Path) -> None:
    """Write the ``jupyter_agents`` package of commit ``rev`` into the folder ``into``."""
    proc = subprocess.run(
        ["git", "archive", "--format=tar", rev, "jupyter_agents"],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
    )
    if proc.returncode != 0:
        raise SystemExit(f"git archive {rev} failed: {proc.stderr.decode(errors='replace')}")
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        tar.extractall(into)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke mode: tiny sizes, one round")
    parser.add_argument("--only", help="comma-separated workload ids, e.g. W1,W3")
    parser.add_argument("--repeat", type=int, help="rounds per runtime (default 3; --quick: 1)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results file")
    parser.add_argument("--no-peer", action="store_true", help="skip openai-agents")
    parser.add_argument("--timeout", type=float, help="seconds per workload process")
    parser.add_argument(
        "--rev",
        help="measure the runtime as committed at this git revision (e.g. HEAD) instead of the "
        "working tree, so concurrent edits cannot break or skew a long run",
    )
    args = parser.parse_args(argv)

    workloads = list(WORKLOADS)
    if args.only:
        workloads = [w.strip().upper() for w in args.only.split(",") if w.strip()]
        unknown = [w for w in workloads if w not in WORKLOADS]
        if unknown:
            parser.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(WORKLOADS)}")
    repeat = args.repeat or (1 if args.quick else 3)
    if repeat < 1:
        parser.error("--repeat must be at least 1")
    peer = None if args.no_peer else peer_version()
    impls = ["ours", "peer"] if peer else ["ours"]
    if peer is None and not args.no_peer:
        print("openai-agents is not installed: peer columns stay empty.", file=sys.stderr)
    timeout = args.timeout or (120.0 if args.quick else 900.0)

    started = time.perf_counter()
    load_before = _loadavg()
    commit = None
    if args.rev:
        # Resolved once: the branch may move while the run goes on.
        commit = _git("rev-parse", "--short", f"{args.rev}^{{commit}}")
        if commit is None:
            parser.error(f"--rev {args.rev}: not a commit of this repository")
    with tempfile.TemporaryDirectory(prefix="bench-snapshot-") as tmp:
        snapshot = None
        if commit:
            snapshot = Path(tmp)
            extract_snapshot(commit, snapshot)
        runs = collect(workloads, impls, repeat, args.quick, timeout, snapshot)
    rows = summarise(runs, workloads, judge=not args.quick)
    errors = [f"{r['workload']} {r['impl']}: {r['error']}" for r in runs if "error" in r]
    results = {
        "meta": {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "quick": args.quick,
            "repeat": repeat,
            "workloads": workloads,
            "impls": impls,
            "seconds": round(time.perf_counter() - started, 1),
            "machine": machine(),
            "load_average_1min": {"start": load_before, "end": _loadavg()},
            "source": source(args.rev, commit),
        },
        "rows": rows,
        "runs": runs,
        "errors": errors,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    print(table(rows))
    if args.quick:
        print("\nSmoke mode (--quick): tiny sizes, so the targets are not judged.")
    print(f"\n{len(runs)} processes in {results['meta']['seconds']} s; results in {args.out}")
    if errors:
        print("\nFAILED:\n" + "\n".join(errors), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
