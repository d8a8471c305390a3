"""CI smoke test of the benchmarks: ``python -m bench.run --quick`` runs every workload.

No timing is asserted; only that each workload runs and produces numbers. openai-agents (the
peer) is optional: without it the peer columns are empty.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = {"W1", "W2", "W3", "W4", "W5", "W6", "SYNC"}


@pytest.mark.timeout(150)
def test_quick_run_covers_every_workload(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_BASE_URL"}
    proc = subprocess.run(
        [sys.executable, "-m", "bench.run", "--quick", "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=140,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads(out.read_text())
    assert results["errors"] == []
    rows = results["rows"]
    assert {row["workload"] for row in rows} == WORKLOADS
    for workload in WORKLOADS:
        measured = [row for row in rows if row["workload"] == workload and row["ours"]]
        assert measured, f"no numbers for {workload} (ours)"
        for row in measured:
            assert isinstance(row["ours"]["median"], (int, float))
    peer_ran = "peer" in results["meta"]["impls"]
    for workload in WORKLOADS:
        has_peer = any(row["peer"] for row in rows if row["workload"] == workload)
        assert has_peer == peer_ran, workload
    for run in results["runs"]:
        assert run["info"]["network_attempts"] == [], (run["workload"], run["impl"])
    assert "| W1 " in proc.stdout
