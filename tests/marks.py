"""What a test needs or costs, as marks: put on by path and by fixture, and checked where
processes start.

The marks are declared in ``pyproject.toml`` (``--strict-markers`` refuses any other) and listed
in docs/development.md. ``make check`` runs the tests that carry none of the costly ones
(``FAST`` in the Makefile); ``python -m pytest`` runs everything.

Three places put them on, so a test seldom needs to name one itself:

- ``PATH_MARKS``: every test under a folder or in a file (``tests/e2e/`` drives Chromium);
- ``FIXTURE_MARKS``: every test that uses a fixture (``local_ray`` starts Ray), directly
  or through another fixture;
- ``PARAM_MARKS``: a parameter value that picks a server (``kind="postgres"``).

The launch guard then checks each subprocess a test starts (``launched``): a test that
starts Chromium, a kernel, Ray, PostgreSQL or Redis, bubblewrap or an MCP server without the mark
fails there, before the process starts, saying which mark to add. So a fast selection never
starts a browser by accident, and a new test that does is told at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import subprocess
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "COLLECTED",
    "COSTLY",
    "FIXTURE_MARKS",
    "LAUNCHES",
    "MARKS",
    "PARAM_MARKS",
    "PATH_MARKS",
    "UnmarkedLaunch",
    "launched",
    "marks_for",
    "selects_any",
]

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

MARKS = {
    "kernel": "starts a real Jupyter kernel",
    "browser": "drives Chromium through Playwright (JupyterLab, the widget page, a computer)",
    "http": "talks to the local OpenAI-compatible server",
    "bwrap": "runs commands under real bubblewrap",
    "ray": "starts a local Ray instance",
    "servers": "starts a private PostgreSQL or Redis server",
    "mcp_servers": "starts real MCP servers (the demo server, the PyPI ones, Node's)",
    "bench": "runs the benchmarks' smoke mode (python -m bench.run --quick)",
    "slow": "takes seconds of its own (a fuzzer, many interpreters, whole notebooks)",
}
"""Every mark this suite defines, with what it means (pyproject.toml declares the same)."""

COSTLY = ("slow", "browser", "kernel", "ray", "servers", "mcp_servers", "bench")
"""The marks ``make check`` leaves out (the Makefile's ``FAST`` must exclude each)."""

PATH_MARKS: dict[str, tuple[str, ...]] = {
    # A folder (ending in /), a file, or one test (file::name, any parameters), from the root.
    "tests/e2e/": ("browser",),
    "tests/kernel/": ("kernel",),
    "tests/bench/": ("bench",),
    "tests/batch/test_ray_backend.py": ("ray",),
    "tests/batch/test_ray_warm.py": ("ray",),
    "tests/evals/test_evals_ray.py": ("ray",),
    "tests/notebook/test_widget_browser.py": ("browser",),
    "tests/notebook/test_steering_browser.py": ("browser",),
    "tests/notebook/test_eval_report_browser.py": ("browser",),
    "tests/notebook/test_shell_card_browser.py": ("browser", "bwrap"),
    "tests/notebook/test_code_card_browser.py": ("browser", "kernel", "bwrap"),
    "tests/notebook/test_toolbox_server_browser.py": ("browser", "kernel", "mcp_servers"),
    "tests/runtime/test_computer.py": ("browser",),
    # Kernels started from a subprocess (headless, nbconvert, papermill) or a module fixture.
    "tests/notebook/test_notebooks_replay.py": ("kernel", "bwrap", "slow"),
    "tests/notebook/test_quickstart_reproduced.py": ("kernel", "bwrap", "slow"),
    "tests/security/test_import_plants.py::test_the_plants_would_run_outside_the_sandbox": (
        "kernel",
    ),
    # MCP servers started by the tests themselves (MCPServerStdio on tests/mcp/servers/...).
    "tests/mcp/test_agent_tools.py": ("mcp_servers",),
    "tests/mcp/test_call_limits.py": ("mcp_servers",),
    "tests/mcp/test_elicitation.py": ("mcp_servers",),
    "tests/mcp/test_modes_mcp.py": ("mcp_servers",),
    "tests/mcp/test_servers.py": ("mcp_servers",),
    "tests/mcp/test_tasks_client.py": ("mcp_servers",),
    "tests/mcp/test_tasks_kernel.py": ("kernel",),
    "tests/mcp/test_third_party_servers.py": ("mcp_servers",),
    **{
        f"tests/security/test_mcp_attacks.py::{name}": ("mcp_servers",)
        for name in (
            "test_a_server_flooding_stderr_cannot_fill_the_disk",
            "test_a_server_that_never_lists_its_tools_fails_the_run_in_bounded_time",
            "test_adding_a_server_prints_its_tool_names_inert",
            "test_blocks_of_unknown_types_are_a_one_line_error_and_the_session_stays",
            "test_names_and_descriptions_reach_the_model_inert",
            "test_progress_messages_reach_the_card_inert_and_short",
            "test_the_card_shows_server_names_inert",
        )
    },
    # Bubblewrap without needs_bwrap (a parameter, or the wheel's bwrap).
    **{
        f"tests/runtime/test_sandbox.py::{name}": ("bwrap",)
        for name in (
            "test_a_command_too_long_to_run_says_what_to_do[workspace-write]",
            "test_the_wheels_bubblewrap_sandboxes_when_none_is_on_the_path",
        )
    },
    # Slow: each takes 3 s or more on an idle 2-core machine (measured with --durations).
    "tests/runtime/test_server_session_processes.py": ("slow",),  # eight interpreters at once
    "tests/batch/test_run_batch.py::test_two_thousand_rows_run_at_the_concurrency_asked": ("slow",),
    "tests/batch/test_batch_replay.py::test_a_crash_mid_batch_loses_no_finished_rows_recording": (
        "slow",
    ),
    "tests/evals/test_gate_source.py": ("slow",),  # the gate's command line, end to end
    "tests/evals/test_gate_statistics.py": ("slow",),  # hundreds of evaluations per case
    "tests/evals/test_gate.py::test_the_gate_fails_a_drop_larger_than_allowed": ("slow",),
    "tests/user_typing/test_user_types.py": ("slow",),  # mypy --strict on a user's script
    "tests/runtime/test_cost.py::test_import_and_unpriced_runs_do_not_load_genai_prices": ("slow",),
    "tests/notebook/test_document_fuzz.py": ("slow",),  # a fuzzer
    "tests/notebook/test_comm_contracts.py::test_the_extension_compiles_with_them": ("slow",),
    "tests/notebook/test_terminal.py": ("slow",),  # a terminal driven through a pty
    # A Jupyter server of their own (5 s to start).
    "tests/test_server_extension.py::test_the_server_answers_the_sites_locks": ("slow",),
    "tests/test_server_extension.py::test_the_server_refuses_a_request_without_the_token": (
        "slow",
    ),
}
"""Marks for everything under a path. A whole file's marks are known before it is imported, so
a selection that excludes them does not import it (see ``pytest_ignore_collect``)."""

FIXTURE_MARKS: dict[str, tuple[str, ...]] = {
    # A fixture name, or module:name where the name alone is too common to mean one thing.
    "tests.notebook.test_widget_browser:lab": ("browser",),
    "tests.notebook.test_eval_report_browser:page": ("browser",),
    "tests.runtime.test_computer:browser": ("browser",),
    "local_ray": ("ray",),
    "pg_url": ("servers",),
    "redis_url": ("servers",),
    "tests.mcp.conftest:demo_command": ("mcp_servers",),
    "tests.mcp.conftest:start_server": ("mcp_servers",),
    "tests.mcp.conftest:everything_command": ("mcp_servers",),
    "tests.security.test_mcp_task_attacks:hostile_tasks": ("mcp_servers",),
}
"""Marks for every test that uses a fixture (itself or through the fixtures it uses)."""

PARAM_MARKS: dict[tuple[str, object], tuple[str, ...]] = {
    # The session tests fetch the server fixture by name (request.getfixturevalue) for these.
    ("kind", "postgres"): ("servers",),
    ("kind", "redis"): ("servers",),
}
"""Marks for every test parametrized with a value."""


def _program(argv: Sequence[str]) -> str:
    return os.path.basename(argv[0])


def _runs_module(argv: Sequence[str], *modules: str) -> bool:
    """``python -m module`` for one of ``modules``, anywhere in ``argv`` (inside bwrap too)."""
    return any(
        os.path.basename(python).startswith("python") and flag == "-m" and module in modules
        for python, flag, module in zip(argv, argv[1:], argv[2:], strict=False)
    )


CHROMIUM = {"chromium", "chromium-browser", "chrome", "headless_shell", "chrome-headless-shell"}
KERNEL_RUNNERS = ("ipykernel", "ipykernel_launcher", "jupyter_agents.headless", "papermill")
MCP_SERVERS = str(TESTS / "mcp" / "servers")


def _chromium(argv: Sequence[str]) -> bool:
    return _program(argv) in CHROMIUM or "run-driver" in argv  # Playwright's driver starts it


def _kernel(argv: Sequence[str]) -> bool:
    return (
        "ipykernel_launcher" in argv  # jupyter_client's command, perhaps inside bwrap
        or _runs_module(argv, *KERNEL_RUNNERS)
        or ("nbconvert" in argv and "--execute" in argv)
    )


def _ray(argv: Sequence[str]) -> bool:
    return _program(argv) in ("gcs_server", "raylet")


def _server(argv: Sequence[str]) -> bool:
    return _program(argv) in ("initdb", "pg_ctl", "postgres", "redis-server")


def _bwrap(argv: Sequence[str]) -> bool:
    return _program(argv) == "bwrap"


def _mcp_server(argv: Sequence[str]) -> bool:
    return (
        any("server-everything" in arg or arg.startswith(MCP_SERVERS) for arg in argv)
        or _runs_module(argv, "mcp_server_time", "mcp_server_git")
        or _program(argv) in ("mcp-server-time", "mcp-server-git")
    )


LAUNCHES: tuple[tuple[str, str, Callable[[Sequence[str]], bool]], ...] = (
    ("browser", "Chromium", _chromium),
    ("kernel", "a Jupyter kernel", _kernel),
    ("ray", "Ray", _ray),
    ("servers", "PostgreSQL or Redis", _server),
    ("bwrap", "bubblewrap", _bwrap),
    ("mcp_servers", "an MCP server", _mcp_server),
)
"""What a command line starts, as (mark, what, test): the guard's table."""


def launched(argv: Sequence[str]) -> list[tuple[str, str]]:
    """The (mark, what) pairs that starting ``argv`` needs: ``[]`` for an ordinary command."""
    argv = [os.fsdecode(arg) for arg in argv]
    return [(mark, what) for mark, what, test in LAUNCHES if argv and test(argv)]


# -- putting marks on ------------------------------------------------------------------------


def _relative(path: Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def _covers(key: str, nodeid: str) -> bool:
    """Whether the ``PATH_MARKS`` key ``key`` covers the test ``nodeid``."""
    if key.endswith("/"):
        return nodeid.startswith(key)
    if "::" not in key:
        return nodeid.startswith(f"{key}::")
    return nodeid == key or nodeid.startswith(f"{key}[")


def _path_marks(nodeid: str) -> set[str]:
    return {mark for key, marks in PATH_MARKS.items() if _covers(key, nodeid) for mark in marks}


def _fixture_marks(item: pytest.Item) -> set[str]:
    found: set[str] = set()
    # The definitions behind each fixture name (pytest's own record; the name alone when absent).
    info = getattr(item, "_fixtureinfo", None)
    definitions = getattr(info, "name2fixturedefs", {})
    for name in getattr(item, "fixturenames", ()):
        modules = {getattr(d.func, "__module__", "") for d in definitions.get(name, ())}
        for key in (name, *(f"{module}:{name}" for module in modules)):
            found.update(FIXTURE_MARKS.get(key, ()))
    return found


def _param_marks(item: pytest.Item) -> set[str]:
    params = getattr(getattr(item, "callspec", None), "params", {})
    found: set[str] = set()
    for (name, value), marks in PARAM_MARKS.items():
        if name in params and params[name] == value:
            found.update(marks)
    return found


def marks_for(item: pytest.Item) -> set[str]:
    """The marks ``PATH_MARKS``, ``FIXTURE_MARKS`` and ``PARAM_MARKS`` give ``item``."""
    return _path_marks(item.nodeid) | _fixture_marks(item) | _param_marks(item)


@dataclasses.dataclass(frozen=True)
class Collected:
    """A collected test as the marks see it (kept before ``-m`` deselects any)."""

    nodeid: str
    marks: frozenset[str]
    fixtures: tuple[str, ...]


COLLECTED = pytest.StashKey[list[Collected]]()
"""Every test this run collected, with its marks: ``config.stash[COLLECTED]``."""


def apply(config: pytest.Config, items: Iterable[pytest.Item]) -> None:
    """Put each item's marks on it, and the bubblewrap skip on every ``bwrap`` test."""
    from jupyter_agents.runtime.sandbox import find_bwrap

    from .prerequisites import needs

    missing_bwrap = needs(find_bwrap() is not None, "bubblewrap (apt-get install bubblewrap)")
    collected = config.stash.setdefault(COLLECTED, [])
    for item in items:
        for mark in sorted(marks_for(item)):
            if item.get_closest_marker(mark) is None:
                item.add_marker(mark)
        if item.get_closest_marker("bwrap") is not None:
            item.add_marker(missing_bwrap)
        names = frozenset(mark.name for mark in item.iter_markers())
        collected.append(Collected(item.nodeid, names, tuple(getattr(item, "fixturenames", ()))))


# -- a selection that excludes a whole file ---------------------------------------------------


def selects_any(markexpr: str, marks: Iterable[str], *, exactly: bool = False) -> bool:
    """Whether ``-m markexpr`` can select a test that carries ``marks`` and any others (only
    these with ``exactly``).

    Conservative: True when the expression cannot be read here.
    """
    try:
        from _pytest.mark.expression import Expression

        expression = Expression.compile(markexpr)
    except Exception:  # a pytest without this module, or an expression pytest will report
        return True
    given = set(marks)
    if exactly:
        return _evaluate(expression, given)
    others = sorted(set(MARKS) - given)
    for extra in itertools.chain.from_iterable(
        itertools.combinations(others, n) for n in range(len(others) + 1)
    ):
        if _evaluate(expression, given | set(extra)):
            return True
    return False


def _evaluate(expression: Any, marks: set[str]) -> bool:
    try:
        return bool(expression.evaluate(lambda name, /, **kwargs: name in marks))
    except Exception:  # keyword arguments in -m (name(key=value)): assume it may select
        return True


def ignored(collection_path: Path, config: pytest.Config) -> bool:
    """True for a test file or folder every test of which ``-m`` deselects by its path marks."""
    markexpr = config.getoption("markexpr", "")
    if not markexpr:
        return False
    relative = _relative(collection_path)
    marks = {
        mark
        for key, ms in PATH_MARKS.items()
        if "::" not in key and (relative == key or f"{relative}/".startswith(key))
        for mark in ms
    }
    return bool(marks) and not selects_any(markexpr, marks)


# -- the launch guard ------------------------------------------------------------------------


class UnmarkedLaunch(Exception):
    """A test started a process that needs a mark it does not carry."""


_running: list[pytest.Item] = []  # the test running now (set around each test's protocol)
_refused: list[str] = []  # refusals since the phase began
_original_execute_child: Any = None


def check(argv: Sequence[str], item: pytest.Item | None = None) -> None:
    """Raise ``UnmarkedLaunch`` when the running test (or ``item``) may not start ``argv``."""
    item = item if item is not None else (_running[-1] if _running else None)
    if item is None:
        return  # outside a test (collection, a session fixture's teardown)
    for mark, what in launched(argv):
        if item.get_closest_marker(mark) is None:
            raise UnmarkedLaunch(
                f"{item.nodeid} starts {what} ({' '.join(map(str, argv[:3]))} ...) but is not "
                f"marked {mark!r}: add @pytest.mark.{mark} (or pytestmark), or a rule to "
                "tests/marks.py, so that `make check` leaves it out"
            )


def _guarded_execute_child(self: Any, args: Any, executable: Any, *rest: Any, **kw: Any) -> Any:
    argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
    if executable is not None and argv:
        argv[0] = executable
    try:
        check([os.fsdecode(arg) for arg in argv])
    except UnmarkedLaunch as refused:
        _refused.append(str(refused))  # reported after the phase, should a caller swallow it
        raise
    return _original_execute_child(self, args, executable, *rest, **kw)


def install() -> None:
    """Check every subprocess this process starts (``subprocess`` and ``asyncio`` alike)."""
    global _original_execute_child
    if _original_execute_child is None:
        _original_execute_child = subprocess.Popen._execute_child  # type: ignore[attr-defined]
        subprocess.Popen._execute_child = _guarded_execute_child  # type: ignore[attr-defined]


@contextlib.contextmanager
def running(item: pytest.Item) -> Iterator[None]:
    """Check the processes started while ``item`` sets up and runs. Not while it tears down:
    that is when the last test of a module stops its module's servers (``pg_ctl stop``)."""
    _running.append(item)
    try:
        yield
    finally:
        _running.remove(item)
    refused = take_refusals()
    if refused:  # a caller (or a thread) swallowed the exception: fail all the same
        pytest.fail("\n".join(refused), pytrace=False)


def take_refusals() -> list[str]:
    """The launches refused since the last call, forgotten once returned."""
    taken = list(_refused)
    _refused.clear()
    return taken
