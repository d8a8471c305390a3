"""CI smoke test of the benchmarks: ``python -m bench.run --quick`` runs every workload.

No timing is asserted; only that each workload runs and produces numbers. openai-agents (the
peer) is optional: without it the peer columns are empty. N1 (the notebook layer) is ours only
and starts real kernels, so it has its own test, marked ``kernel``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents.testing.db_servers import find_pg_bin
from tests.prerequisites import fail_or_skip

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_WORKLOADS = {"W1", "W2", "W3", "W4", "W5", "W6", "SYNC"}


def quick_run(tmp_path: Path, workloads: set[str]) -> tuple[dict[str, Any], str]:
    """``bench.run --quick --only ...``: its results (checked for errors) and its stdout."""
    out = tmp_path / "results.json"
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_BASE_URL"}
    only = ",".join(sorted(workloads))
    proc = subprocess.run(
        [sys.executable, "-m", "bench.run", "--quick", "--only", only, "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=140,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results: dict[str, Any] = json.loads(out.read_text())
    assert results["errors"] == []
    rows = results["rows"]
    assert {row["workload"] for row in rows} == workloads
    for workload in workloads:
        measured = [row for row in rows if row["workload"] == workload and row["ours"]]
        assert measured, f"no numbers for {workload} (ours)"
        for row in measured:
            assert isinstance(row["ours"]["median"], (int, float))
    for run in results["runs"]:
        assert run["info"]["network_attempts"] == [], (run["workload"], run["impl"])
    return results, proc.stdout


@pytest.mark.timeout(150)
def test_quick_run_covers_every_runtime_workload(tmp_path: Path) -> None:
    results, stdout = quick_run(tmp_path, RUNTIME_WORKLOADS)
    peer_ran = "peer" in results["meta"]["impls"]
    for workload in RUNTIME_WORKLOADS:
        has_peer = any(row["peer"] for row in results["rows"] if row["workload"] == workload)
        assert has_peer == peer_ran, workload
    assert "| W1 " in stdout


@pytest.mark.timeout(150)
def test_quick_run_covers_the_sandbox_workload(tmp_path: Path) -> None:
    results, stdout = quick_run(tmp_path, {"S1"})
    rows = {row["metric"]: row for row in results["rows"]}
    assert all(row["peer"] is None for row in rows.values())  # ours only
    assert rows["sandboxed_ms"]["ours"]["median"] > 0 and rows["added_ms"]["ours"]["n"] == 1
    assert "| S1 " in stdout


@pytest.mark.timeout(150)
def test_quick_run_covers_the_retrieval_workload(tmp_path: Path) -> None:
    results, stdout = quick_run(tmp_path, {"R1"})
    rows = {row["metric"]: row for row in results["rows"]}
    assert all(row["peer"] is None for row in rows.values())  # ours only
    assert rows["chunks"]["ours"]["median"] == 1000 and rows["query_ms"]["ours"]["median"] > 0
    assert "| R1 " in stdout


@pytest.mark.timeout(150)
def test_quick_run_covers_the_mcp_workload(tmp_path: Path) -> None:
    results, stdout = quick_run(tmp_path, {"M1"})
    rows = {row["metric"]: row for row in results["rows"]}
    assert all(row["peer"] is None for row in rows.values())  # ours only
    assert rows["stdio_ours_ms"]["ours"]["median"] > 0 and rows["http_raw_ms"]["ours"]["n"] == 20
    assert rows["list_cached_ms"]["ours"]["median"] < rows["list_uncached_ms"]["ours"]["median"]
    assert "| M1 " in stdout


@pytest.mark.timeout(150)
def test_quick_run_covers_the_batch_workload(tmp_path: Path) -> None:
    results, stdout = quick_run(tmp_path, {"B1"})
    rows = {row["metric"]: row for row in results["rows"]}
    assert all(row["peer"] is None for row in rows.values())  # ours only
    assert rows["ideal_s"]["ours"]["median"] == pytest.approx(200 * 0.2 / 32)
    assert rows["wall_s"]["ours"]["median"] >= rows["ideal_s"]["ours"]["median"]
    assert {"cpu_ms_per_row", "rss_10_mib", "rss_50_mib", "rss_100_mib"} <= set(rows)
    assert rows["ray_wall_s"]["ours"]["median"] > 0  # Ray is in the test extra
    assert "| B1 " in stdout


@pytest.mark.timeout(150)
def test_quick_run_covers_the_patch_workload(tmp_path: Path) -> None:
    results, stdout = quick_run(tmp_path, {"P1"})
    rows = {row["metric"]: row for row in results["rows"]}
    assert rows["spread_1m_s"]["ours"]["median"] > 0
    assert rows["repetitive_200k_s"]["ours"]["median"] > 0
    peer_ran = "peer" in results["meta"]["impls"]
    assert (rows["spread_1m_s"]["peer"] is not None) == peer_ran  # the SDK's apply_diff too
    assert "| P1 " in stdout


@pytest.mark.kernel
@pytest.mark.timeout(150)
def test_quick_run_covers_the_code_interpreter_workload(tmp_path: Path) -> None:
    results, stdout = quick_run(tmp_path, {"K1"})
    rows = {row["metric"]: row for row in results["rows"]}
    assert all(row["peer"] is None for row in rows.values())  # ours only
    assert rows["ours_ms"]["ours"]["median"] > 0 and rows["first_ms"]["ours"]["n"] == 1
    assert "| K1 " in stdout


@pytest.mark.kernel
@pytest.mark.timeout(150)
def test_quick_run_covers_the_notebook_workload(tmp_path: Path) -> None:
    results, stdout = quick_run(tmp_path, {"N1"})
    rows = {row["metric"]: row for row in results["rows"]}
    assert all(row["peer"] is None for row in rows.values())  # ours only
    assert [run["impl"] for run in results["runs"]] == ["ours"]
    assert rows["comm_msgs"]["ours"]["median"] >= 1
    assert rows["delta_ms"]["ours"]["n"] == 200  # every delta of the quick run was matched
    assert rows["delta_max_ms"]["ours"]["n"] == 1
    assert rows["nb_kb_per_100_tools"]["ours"]["median"] > 0
    assert rows["load_ext_s"]["ours"]["median"] > 0
    assert "| N1 " in stdout


@pytest.mark.browser
@pytest.mark.timeout(240)
def test_quick_run_covers_the_notebook_tools_workload(tmp_path: Path) -> None:
    results, stdout = quick_run(tmp_path, {"NB1"})
    rows = {row["metric"]: row for row in results["rows"]}
    assert all(row["peer"] is None for row in rows.values())  # ours only
    for metric in ("echo_ms", "read_cell_ms", "edit_cell_ms", "run_cells_ms"):
        assert rows[metric]["ours"]["n"] == 5 and rows[metric]["ours"]["median"] > 0
    assert "| NB1 " in stdout


@pytest.mark.timeout(150)
def test_quick_run_covers_the_replay_workload(tmp_path: Path) -> None:
    results, stdout = quick_run(tmp_path, {"RP1"})
    rows = {row["metric"]: row for row in results["rows"]}
    assert all(row["peer"] is None for row in rows.values())  # ours only
    assert rows["replay_ms"]["ours"]["median"] > 0 and rows["live_ms"]["ours"]["n"] == 2
    assert "| RP1 " in stdout


@pytest.mark.timeout(240)
def test_quick_run_covers_the_session_store_workload(tmp_path: Path) -> None:
    if find_pg_bin() is None or shutil.which("redis-server") is None:
        fail_or_skip("SS1 needs postgresql and redis-server (apt-get install both)")
    results, stdout = quick_run(tmp_path, {"SS1"})
    rows = {row["metric"]: row for row in results["rows"]}
    for store in ("sqlite", "pg", "sa_sqlite", "redis"):
        assert rows[f"{store}_items_per_s"]["ours"]["median"] > 0
        assert rows[f"{store}_read_ms_10k"]["ours"]["n"] == 10
    peer_ran = "peer" in results["meta"]["impls"]
    assert (rows["pg_items_per_s"]["peer"] is not None) == peer_ran  # the SDK's stores too
    assert "| SS1 " in stdout
