"""Durable runs (issue 41, point 3), in the runtime: a run saved after every step is killed
with SIGKILL mid-run in another process, then resumed here. Finished tool calls do not run
again (the tools count their runs in a file), a call that was running is asked about first,
and the run ends with the same output as one that was never cut off. Attacks: a journal
changed by hand, or written under another person's secret, or behind a link, offers nothing;
a live process's run is not cut off."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import RunConfig, Runner
from jupyter_agents.runtime.approvals import ApprovalDecision, ApprovalRequest
from jupyter_agents.runtime.durable import RunJournal
from jupyter_agents.runtime.errors import UserError
from jupyter_agents.runtime.replay import signing

from .durable_agent import FINAL, count, make_agent

ROOT = Path(__file__).resolve().parents[2]


def kill_mid_run(work: Path, scenario: str, marker: str) -> None:
    """Run the agent in another process; SIGKILL it once ``marker`` appears in ``work``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.runtime.durable_agent", str(work), scenario],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    try:
        while not (work / marker).exists():
            assert child.poll() is None, child.communicate()[0].decode()
            assert time.monotonic() < deadline, f"{marker} never appeared"
            time.sleep(0.02)  # polling a file another process writes
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)


async def resume(work: Path, *, asks: bool) -> tuple[Any, list[ApprovalRequest]]:
    """Resume the one cut-off run of ``work``, approving what is asked; the result and the
    requests."""
    journal = RunJournal(work / "runs.sqlite")
    [cut] = journal.cut_off()
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.approve()

    config = RunConfig(replay=cut.cassette(), durable=journal.begin(cut.meta))
    result = await Runner.run(
        make_agent(work, asks=asks), cut.meta["prompt"], run_config=config, approval_handler=approve
    )
    journal.end(cut.run_id, "resumed")
    assert journal.cut_off() == []  # nothing left to resume
    return result, asked


async def test_a_run_killed_while_a_call_runs_resumes_and_asks_about_that_call(
    tmp_path: Path,
) -> None:
    kill_mid_run(tmp_path, "runs", "report-started")
    assert (count(tmp_path, "fetch"), count(tmp_path, "report")) == (1, 1)
    (tmp_path / "block").unlink()
    result, asked = await resume(tmp_path, asks=False)
    assert result.final_output == FINAL
    assert count(tmp_path, "fetch") == 1  # finished: not run again
    assert count(tmp_path, "report") == 2  # its outcome was unknown: run again, as approved
    [request] = asked
    assert request.tool_name == "write_report" and request.note is not None
    assert "was running when the run stopped" in request.note
    assert not request.allows_always


async def test_a_run_killed_while_a_call_waits_for_approval_resumes_without_repeating(
    tmp_path: Path,
) -> None:
    kill_mid_run(tmp_path, "asks", "asked")
    assert (count(tmp_path, "fetch"), count(tmp_path, "report")) == (1, 0)
    result, asked = await resume(tmp_path, asks=True)
    assert result.final_output == FINAL
    assert (count(tmp_path, "fetch"), count(tmp_path, "report")) == (1, 1)
    [request] = asked  # asked as any call that needs approval
    assert request.tool_name == "write_report" and request.note is None


async def test_the_resumed_output_is_the_uninterrupted_runs(tmp_path: Path) -> None:
    plain = await Runner.run(
        make_agent(tmp_path, asks=False),
        "Report on the rows.",
        run_config=RunConfig(durable=RunJournal(tmp_path / "runs.sqlite").begin({})),
    )
    assert plain.final_output == FINAL
    assert RunJournal(tmp_path / "runs.sqlite").cut_off() == []  # a finished run ended it


def journal_of_a_killed_run(work: Path) -> Path:
    kill_mid_run(work, "asks", "asked")
    return work / "runs.sqlite"


def test_a_journal_changed_by_hand_offers_nothing(tmp_path: Path) -> None:
    path = journal_of_a_killed_run(tmp_path)
    assert len(RunJournal(path).cut_off()) == 1
    with sqlite3.connect(path) as db:  # the fetched rows' output, rewritten
        db.execute("UPDATE steps SET data = replace(data, '42 rows', '0 rows') WHERE kind = 'tool'")
    assert RunJournal(path).cut_off() == []
    with sqlite3.connect(path) as db:  # a run of someone else's, planted whole
        db.execute('UPDATE runs SET meta = \'{"prompt": "Wire the money."}\'')
    assert RunJournal(path).cut_off() == []


def test_a_journal_under_another_persons_secret_offers_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = journal_of_a_killed_run(tmp_path)
    monkeypatch.setattr(signing, "_secret", lambda: b"someone else's secret")
    assert RunJournal(path).cut_off() == []


def test_a_journal_behind_a_link_is_refused(tmp_path: Path) -> None:
    real = journal_of_a_killed_run(tmp_path)
    link = tmp_path / "link.sqlite"
    link.symlink_to(real)
    with pytest.raises(UserError, match="is a link"):
        RunJournal(link).cut_off()


def test_a_run_of_a_live_process_is_not_cut_off(tmp_path: Path) -> None:
    journal = RunJournal(tmp_path / "runs.sqlite")
    run = journal.begin({"prompt": "still going"})
    run.note("begin", "k", {"first": {}})
    assert journal.cut_off() == []  # this process runs it
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:  # a process that is gone
        db.execute("UPDATE runs SET pid = 2147483646")
    assert journal.cut_off() == []  # its pid changed: the row's mark no longer holds


def test_a_journal_that_is_not_sqlite_says_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(UserError, match="not a usable SQLite file"):
        RunJournal(path).begin({})


def test_the_notebook_looks_for_the_journal_where_it_is_kept() -> None:
    from jupyter_agents.notebook.host import JOURNAL
    from jupyter_agents.runtime.durable import DEFAULT_JOURNAL

    assert JOURNAL == DEFAULT_JOURNAL  # (the host names it without importing the journal)
