"""A pytest plugin that writes each test's outcome to a JSON-lines file, for ``sdk_tests``.

Loaded with ``-p jupyter_agents.testing._sdk_record``; the file is named by the environment
variable ``JUPYTER_AGENTS_SDK_RECORD``. One line per test (``{"id", "outcome", "why"}``, the
outcome ``passed``, ``failed`` or ``skipped``, ``why`` the first line of what went wrong), and one
per test file that failed to import (``{"file", "outcome": "error", "why"}``). Under xdist it runs
in the controller, which sees every worker's reports.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

__all__ = ["RECORD_ENV", "Outcome", "crash_line"]

RECORD_ENV = "JUPYTER_AGENTS_SDK_RECORD"


@dataclass(frozen=True)
class Outcome:
    """One test's result in a run."""

    outcome: str
    """``passed``, ``failed``, ``skipped`` or ``error`` (its file did not import)."""
    why: str = ""
    """What went wrong, in one line."""


def crash_line(longrepr: Any) -> str:
    """The one line saying what went wrong in a report's ``longrepr``."""
    crash = getattr(longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    if isinstance(message, str) and message.strip():
        return message.strip().splitlines()[0][:300]
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
        return str(longrepr[2])[:300]
    lines = [line for line in str(longrepr).splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("E ")]
    return (errors[0][1:].strip() if errors else lines[-1] if lines else "")[:300]


def _write(entry: dict[str, str]) -> None:
    path = os.environ.get(RECORD_ENV)
    if path:
        with Path(path).open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Record a test once: its call's outcome, or its setup's or teardown's failure."""
    outcome = report.outcome
    if report.when == "call" or (report.when == "setup" and outcome != "passed"):
        why = "" if outcome == "passed" else crash_line(report.longrepr)
        _write({"id": report.nodeid, "outcome": outcome, "why": why})
    elif report.when == "teardown" and outcome == "failed":
        _write({"id": report.nodeid, "outcome": "failed", "why": crash_line(report.longrepr)})


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """Record a test file that did not import (none of its tests ran)."""
    if report.outcome == "failed" and report.nodeid.endswith(".py"):
        _write({"file": report.nodeid, "outcome": "error", "why": crash_line(report.longrepr)})
