"""The CI gate: fail when a scorer's average dropped more than allowed from a baseline report.

``python -m jupyter_agents.evals gate BASELINE.json [CURRENT.json] --max-drop 0.02`` prints one
line per scorer and exits 0 (no scorer dropped more than ``--max-drop``), 1 (one did, or a
baseline scorer is missing from the current report) or 2 (bad input: a missing file, a file
that is not a saved report, a bad option), with one line saying which. Without
``CURRENT.json`` the evaluation runs now: ``--run MODULE:FUNCTION``, or the function the
baseline was made by (``python -m jupyter_agents.evals run MODULE:FUNCTION --out FILE``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from .._render.terminal import terminal_safe
from ..runtime.errors import UserError
from .report import EvalReport
from .source import run_source

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
        return terminal_safe(self._line()).replace("\n", " ")  # a dataset file names scorers

    def _line(self) -> str:
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m jupyter_agents.evals", exit_on_error=False)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run an evaluation function and save its report")
    run.add_argument("source", help="MODULE:FUNCTION returning an EvalReport")
    run.add_argument("--out", default="eval_report.json", help="where to save the report")
    gate = commands.add_parser("gate", help="fail when a scorer's average dropped")
    gate.add_argument("baseline", help="the baseline report (EvalReport.to_json)")
    gate.add_argument("current", nargs="?", help="the current report (default: run it now)")
    gate.add_argument("--run", dest="source", help="MODULE:FUNCTION making the current report")
    gate.add_argument("--max-drop", type=float, default=0.0, help="the largest drop allowed")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    out = out or sys.stdout
    try:
        args = _parser().parse_args(argv)
    except (argparse.ArgumentError, SystemExit) as e:
        if isinstance(e, SystemExit) and e.code == 0:  # --help
            return 0
        print(
            f"error: {e}" if isinstance(e, argparse.ArgumentError) else "error: bad arguments",
            file=out,
        )
        return 2
    try:
        if args.command == "run":
            report = run_source(args.source)
            report.to_json(args.out)
            print(f"{report.name}: {len(report.cases)} cases, saved to {args.out}", file=out)
            return 0
        if args.max_drop < 0:
            raise UserError("--max-drop is 0 or more")
        baseline = EvalReport.from_json(args.baseline)
        current = _current(baseline, args.current, args.source)
    except UserError as e:
        print(f"error: {e}", file=out)
        return 2
    lines = check_gate(baseline, current, args.max_drop)
    for line in lines:
        print(line, file=out)
    return 0 if all(line.ok for line in lines) else 1


def _current(baseline: EvalReport, path: str | None, source: str | None) -> EvalReport:
    if path is not None and source is not None:
        raise UserError("give CURRENT.json or --run MODULE:FUNCTION, not both")
    if path is not None:
        return EvalReport.from_json(path)
    if source is not None:
        return run_source(source)
    if baseline.source is None:
        raise UserError(
            "give CURRENT.json or --run MODULE:FUNCTION: the baseline names no evaluation to "
            "run (save it with: python -m jupyter_agents.evals run MODULE:FUNCTION --out FILE)"
        )
    return run_source(baseline.source, from_report=True)
