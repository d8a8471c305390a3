"""Planting a module where Python would import it instead of an installed one, tried as a
hostile model would: ``ipykernel_launcher.py`` in a notebook's folder runs, unconfined, when
the person's next kernel starts there; ``pandas.py`` runs at their next ``import pandas``. A
sandboxed command or code-interpreter execution that leaves one has it renamed afterwards (and
is told); a patch that would write one asks a person first. Real bwrap, real kernels."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from jupyter_agents import ApplyPatchTool, ShellTool, describe_call
from jupyter_agents.runtime.sandbox import SandboxPolicy, _shadow, run_sandboxed
from jupyter_agents.runtime.tools.patch.apply_patch import APPLY_PATCH

from ..prerequisites import needs_bwrap
from ..runtime.test_code_interpreter import ask, interpreter
from ..runtime.test_shell_tool import run as run_shell
from .test_startup_file_attacks import _add, _config

pytestmark = pytest.mark.timeout(120)

EXTENSION = EXTENSION_SUFFIXES[0]  # ".cpython-311-x86_64-linux-gnu.so" here

# (what the command does, what is renamed): each name is an installed module's.
PLANTS = [
    ("echo 'import os' > ipykernel_launcher.py", ["ipykernel_launcher.py"]),
    ("echo 'import os' > random.py", ["random.py"]),
    ("printf 'x' > random.pyc", ["random.pyc"]),
    (f"printf 'x' > json{EXTENSION}", [f"json{EXTENSION}"]),
    ("mkdir traitlets && echo 'import os' > traitlets/__init__.py", ["traitlets"]),
    ("ln -s /usr/lib openai", ["openai"]),
    ("mkdir google && touch google/__init__.py", ["google"]),  # an installed namespace
    ("ln -s elsewhere.txt random.py", ["random.py"]),
    ("mkdir traitlets && ln -s ../evil.py traitlets/__init__.py", ["traitlets"]),
    ("mkdir nb && echo x > nb/json.py", ["nb/json.py"]),
    ("touch mylib/work.ipynb && echo x > mylib/random.py", ["mylib/random.py"]),  # a kernel's
    ("mkdir -p a/b && echo x > a/b/ipykernel_launcher.py", ["a/b/ipykernel_launcher.py"]),
    ("touch __init__.py && echo x > json.py", ["json.py"]),  # the top made a package
    ("mkdir new && touch new/__init__.py new/random.py", ["new/random.py"]),
    ("echo x >> mylib/ipykernel_launcher.py", ["mylib/ipykernel_launcher.py"]),
    ("echo 'import os' >> string.py", ["string.py"]),  # the person's own, changed
    ("touch random.py.blocked && echo x > random.py", ["random.py"]),
    ("echo x > random.py && touch -d 2000-01-01 random.py", ["random.py"]),  # mtime set back
]


def _workspace(root: Path) -> Path:
    """A notebook folder with the person's own files: a module named like a standard one
    (``string.py``, theirs to keep) and a package of theirs whose modules share names with
    installed ones (``mylib/json.py``)."""
    ws = root / "ws"
    (ws / "mylib").mkdir(parents=True)
    (ws / "mylib" / "__init__.py").write_text("")
    (ws / "mylib" / "json.py").write_text("# mine\n")
    (ws / "string.py").write_text("# mine\n")
    (ws / "notes.ipynb").write_text("{}")
    _after_the_clock_moves(ws / "string.py")
    return ws


def _after_the_clock_moves(path: Path, timeout: float = 5.0) -> None:
    """Wait until the file system's clock has moved past ``path``'s change time, so that
    what the test made counts as made before the command (the clock is coarse: a few ms)."""
    probe, target = path.parent / ".probe", os.lstat(path).st_ctime_ns
    deadline = time.monotonic() + timeout
    try:
        while True:
            probe.touch()
            if os.lstat(probe).st_ctime_ns > target:
                return
            assert time.monotonic() < deadline, "the file system's clock did not move"
    finally:
        probe.unlink(missing_ok=True)


@needs_bwrap
@pytest.mark.parametrize(("attack", "renamed"), PLANTS, ids=[p[0] for p in PLANTS])
async def test_a_module_planted_by_a_command_is_renamed_and_the_command_told(
    tmp_path: Path, attack: str, renamed: list[str]
) -> None:
    ws = _workspace(tmp_path)
    result = await run_sandboxed(attack, SandboxPolicy("workspace-write", ws))
    assert result.exit_code == 0, result.stderr
    for entry in renamed:
        assert not os.path.lexists(ws / entry), entry
        assert os.path.lexists(ws / f"{entry}.blocked") or os.path.lexists(
            ws / f"{entry}.blocked-2"
        ), entry
        assert entry in result.stderr
    assert result.renamed == tuple(renamed)
    assert "Python would have imported these instead of the installed modules" in result.stderr
    assert (ws / "mylib" / "json.py").read_text() == "# mine\n"  # the package's own, untouched


@needs_bwrap
async def test_the_card_says_what_was_renamed(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    tool = ShellTool(workspace=ws, approval_policy="never")
    one, _ = await run_shell(tool, "echo x > random.py")
    two, model = await run_shell(tool, "echo x > json.py && echo x > ipykernel_launcher.py")
    badges = []
    for result in (one, two):
        call, output = (i for i in result.new_items if i.type.startswith("tool_call"))
        badges.append(describe_call(call, output).badge)
    assert badges == [
        "sandboxed: workspace-write · renamed random.py",
        "sandboxed: workspace-write · renamed 2 modules",
    ]
    told = json.dumps(model.requests[1].input[-1])  # the model reads the note, and can rename
    assert "json.py -> json.py.blocked" in told


@needs_bwrap
async def test_what_imports_nothing_installed_and_what_was_there_is_left_alone(
    tmp_path: Path,
) -> None:
    ws = _workspace(tmp_path)
    command = (
        "echo x > helper.py && mkdir -p data && echo x > data/random.txt && "
        "echo '# edited' > mylib/json.py && echo x > mylib/types.py && cat string.py && "
        "echo x > test.py && mkdir docs && touch docs/__init__.py"  # no installed docs package
    )
    result = await run_sandboxed(command, SandboxPolicy("workspace-write", ws))
    assert result.exit_code == 0
    assert "renamed" not in result.stderr
    kept = ("helper.py", "data/random.txt", "mylib/json.py", "mylib/types.py", "string.py")
    for entry in (*kept, "test.py", "docs/__init__.py"):
        assert (ws / entry).is_file(), entry
    assert not list(ws.rglob("*.blocked"))


async def test_an_unconfined_command_is_not_watched(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    result = await run_sandboxed("echo x > random.py", SandboxPolicy("danger-full-access", ws))
    assert (ws / "random.py").exists()  # the person chose no sandbox: nothing is promised
    assert "renamed" not in result.stderr


def test_the_rename_never_follows_a_link_on_its_way(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (outside / "json.py").write_text("theirs\n")
    (ws / "sub").symlink_to(outside)  # swapped in after the walk saw a real folder
    said = _shadow._rename(ws, str(ws / "sub"), "json.py")
    assert "could not be renamed" in said.done
    assert (outside / "json.py").read_text() == "theirs\n"


def test_the_plants_would_run_outside_the_sandbox(tmp_path: Path) -> None:
    """The attack is real: unconfined, the planted files run instead of the installed ones."""
    (tmp_path / "ipykernel_launcher.py").write_text("print('planted launcher')\n")
    (tmp_path / "random.py").write_text("print('planted random')\n")
    start = subprocess.run(
        [sys.executable, "-m", "ipykernel_launcher", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert start.stdout.startswith("planted launcher")
    script = tmp_path / "analysis.py"
    script.write_text("import random\n")
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert ran.stdout == "planted random\n"


@needs_bwrap
@pytest.mark.kernel
async def test_code_the_interpreter_runs_cannot_leave_a_module_behind(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    tool = interpreter(ws)
    try:
        (out,) = await ask(tool, "open('random.py', 'w').write('import os')")
    finally:
        await tool.shutdown()
    assert not (ws / "random.py").exists()
    assert (ws / "random.py.blocked").exists()
    assert "renamed random.py -> random.py.blocked" in json.dumps(out)


@pytest.mark.parametrize(
    ("path", "decision"),
    [
        ("ipykernel_launcher.py", "ask"),
        ("random.py", "ask"),
        ("nested/deeper/openai.py", "ask"),
        ("traitlets/__init__.py", "ask"),
        ("mylib/ipykernel_launcher.py", "ask"),
        ("helper.py", "write"),
        ("mylib/json.py", "write"),
        ("data/random.txt", "write"),
    ],
)
def test_a_patch_that_would_plant_a_module_asks(tmp_path: Path, path: str, decision: str) -> None:
    ws = _workspace(tmp_path)
    tool = ApplyPatchTool()
    verdict = tool.verdict(_add(path), _config(ws))
    assert verdict.decision == decision, verdict.reason
    if decision == "ask":
        assert "would be imported instead of the installed module" in verdict.reason
        assert tool.verdict(_add(path), _config(ws, "never")).decision == "refuse"
        assert APPLY_PATCH.decided_alone(json.dumps(_add(path)), tool, _config(ws))
