"""The CI gate: fail when a scorer's average dropped more than allowed from a baseline report.

``python -m jupyter_agents.evals gate BASELINE.json CURRENT.json --max-drop 0.02`` prints one
line per scorer and exits 0 (no scorer dropped more than ``--max-drop``), 1 (one did, or a
baseline scorer is missing from the current report) or 2 (bad input: a missing file, a file
that is not a saved report, a bad option), with one line saying which.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from ..runtime.errors import UserError
from .report import EvalReport

__all__ = ["GateLine", "check_gate", "main"]


@dataclass(frozen=True)
class GateLine:
    """One scorer's verdict."""

    name: str
    """The scorer's result name."""
    baseline: float | None
    """Its average in the baseline (None: new in the current report)."""
    current: float | None
    """Its average now (None: missing now)."""
    ok: bool
    """Whether it passes the gate."""

    def __str__(self) -> str:
        mark = "ok  " if self.ok else "FAIL"
        if self.current is None:
            return f"{mark} {self.name}: {self.baseline:.4f} -> missing from the current report"
        if self.baseline is None:
            return f"{mark} {self.name}: new, {self.current:.4f}"
        change = self.current - self.baseline
        return f"{mark} {self.name}: {self.baseline:.4f} -> {self.current:.4f} ({change:+.4f})"


def check_gate(baseline: EvalReport, current: EvalReport, max_drop: float) -> list[GateLine]:
    """Each scorer of either report with its verdict: it fails when its average dropped by
    more than ``max_drop`` or it is missing now."""
    before, after = baseline.averages(), current.averages()
    lines = []
    for name in dict.fromkeys([*before, *after]):
        a, b = before.get(name), after.get(name)
        ok = b is not None and (a is None or a - b <= max_drop + 1e-12)
        lines.append(GateLine(name, a, b, ok))
    return lines


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="python -m jupyter_agents.evals", exit_on_error=False)
    commands = parser.add_subparsers(dest="command", required=True)
    gate = commands.add_parser("gate", help="fail when a scorer's average dropped")
    gate.add_argument("baseline", help="the baseline report (EvalReport.to_json)")
    gate.add_argument("current", help="the current report")
    gate.add_argument("--max-drop", type=float, default=0.0, help="the largest drop allowed")
    try:
        args = parser.parse_args(argv)
    except (argparse.ArgumentError, SystemExit) as e:
        if isinstance(e, SystemExit) and e.code == 0:  # --help
            return 0
        print(
            f"error: {e}" if isinstance(e, argparse.ArgumentError) else "error: bad arguments",
            file=out,
        )
        return 2
    if args.max_drop < 0:
        print("error: --max-drop is 0 or more", file=out)
        return 2
    try:
        baseline = EvalReport.from_json(args.baseline)
        current = EvalReport.from_json(args.current)
    except UserError as e:
        print(f"error: {e}", file=out)
        return 2
    lines = check_gate(baseline, current, args.max_drop)
    for line in lines:
        print(line, file=out)
    return 0 if all(line.ok for line in lines) else 1
