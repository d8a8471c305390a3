"""A sandbox kept for the next command must give it what a fresh one would: tried as a hostile
model would, leaving files, processes, IPC objects and changes behind, attacking the process
that stays in the sandbox, and racing commands. Real bwrap, real processes."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_agents.runtime.sandbox import SandboxPolicy, _box, run_sandboxed

from ..prerequisites import needs_bwrap

pytestmark = [needs_bwrap, pytest.mark.timeout(90)]

PY = shlex.quote(sys.executable)


@pytest.fixture(autouse=True)
def _no_kept_sandbox_from_before() -> Iterator[None]:
    _end_all()
    yield
    _end_all()


def _end_all() -> None:
    with _box._lock:
        kept = list(_box._idle)
        _box._idle.clear()
    for box in kept:
        box.end()


def kept() -> set[int]:
    """The kept sandboxes waiting now (their bubblewrap's process ids)."""
    with _box._lock:
        return {box.process.pid for box in _box._idle}


def run(command: str, policy: SandboxPolicy, **kwargs: object):  # type: ignore[no-untyped-def]
    result = asyncio.run(run_sandboxed(command, policy, **kwargs))  # type: ignore[arg-type]
    assert result.confinement.startswith("bubblewrap"), result
    return result


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace inside /tmp: the sandbox mounts it inside its own private /tmp."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("keep me\n")
    (root / "sub").mkdir()
    (root / "sub" / "data.csv").write_text("a,b\n")
    return root


@pytest.fixture
def policy(ws: Path) -> SandboxPolicy:
    return SandboxPolicy("workspace-write", ws)


def test_the_next_command_runs_in_the_same_sandbox(policy: SandboxPolicy) -> None:
    run("true", policy)
    first = kept()
    assert len(first) == 1
    run("true", policy)
    assert kept() == first


LIST_PRIVATE = "ls -A /tmp /dev/shm /run /dev/mqueue"


def test_files_left_in_private_folders_are_gone_for_the_next_command(policy: SandboxPolicy) -> None:
    fresh = run(LIST_PRIVATE, policy).stdout  # the folders on the way to what is mounted there
    box = kept()
    left = run(
        "echo x > /tmp/a && mkdir -p /tmp/d/e && touch /tmp/d/e/f && chmod 000 /tmp/d/e /tmp/d"
        " && ln -s /etc/passwd /tmp/link && mkfifo /tmp/fifo && echo y > /dev/shm/seg"
        " && echo z > /run/r && echo done",
        policy,
    )
    assert left.stdout == "done\n", left.stderr
    assert run(LIST_PRIVATE, policy).stdout == fresh
    assert kept() == box, "the sandbox was not reused, so the emptying was not tested"
    assert Path("/etc/passwd").exists()  # the link was removed, not followed


def test_a_workspace_inside_tmp_keeps_its_files_and_mode(ws: Path, policy: SandboxPolicy) -> None:
    mode = ws.stat().st_mode
    for _ in range(3):
        run("touch /tmp/x; mkdir -p /tmp/y", policy)
    assert kept(), "the sandbox was not reused, so the emptying was not tested"
    assert (ws / "notes.txt").read_text() == "keep me\n"
    assert (ws / "sub" / "data.csv").read_text() == "a,b\n"
    assert ws.stat().st_mode == mode


def test_no_process_lives_on_into_the_next_command(policy: SandboxPolicy) -> None:
    marker = f"ja-kept-{uuid.uuid4().hex[:8]}"
    script = f"exec {PY} -c 'import time; time.sleep(300)' {marker}"
    daemon = "import os, time; os.fork() or (os.setsid(), os.fork() or time.sleep(300))"
    started = run(
        f"(setsid sh -c {shlex.quote(script)} &) ;"
        f" nohup sh -c {shlex.quote(script)} >/dev/null 2>&1 &"
        f" {PY} -c {shlex.quote(daemon)} {marker} & echo started",
        policy,
    )
    assert started.stdout == "started\n"
    box = kept()
    seen = run("ls /proc | grep -E '^[0-9]+$' | wc -l", policy)
    assert kept() == box
    assert int(seen.stdout) <= 5, seen.stdout  # 1 (the server), sh, ls, grep, wc
    host = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    assert host.stdout == "", f"left running on the host: {host.stdout}"


def test_a_command_cannot_signal_trace_or_read_the_process_that_stays(
    policy: SandboxPolicy,
) -> None:
    run("true", policy)
    box = kept()
    attack = run(
        "kill -9 1; kill -INT 1; kill -TERM 1; cat /proc/1/environ; cat /proc/1/mem;"
        " for fd in /proc/1/fd/*; do readlink $fd && echo LEAK; (: <>$fd) 2>/dev/null && echo LEAK;"
        " done; echo end",
        policy,
    )
    assert attack.stdout.endswith("end\n") and "LEAK" not in attack.stdout, attack.stdout
    for place in ("/proc/1/environ", "/proc/1/mem"):
        assert f"{place}: Permission denied" in attack.stderr, attack.stderr
    assert kept() == box, "the process that stays was ended by the command"
    traced = run(
        f"{PY} -c 'import ctypes; libc = ctypes.CDLL(None, use_errno=True);"
        " print(libc.ptrace(16, 1, 0, 0), ctypes.get_errno())'",
        policy,
    )
    assert traced.stdout.split() == ["-1", "1"], traced  # PTRACE_ATTACH: EPERM


def test_the_control_channel_is_not_handed_to_commands(policy: SandboxPolicy) -> None:
    fds = run("ls /proc/self/fd", policy)
    assert sorted(fds.stdout.split()) == ["0", "1", "2", "3"]  # 3: ls reading the folder
    kinds = run("for fd in 0 1 2; do readlink /proc/$$/fd/$fd; done", policy)
    assert "socket" not in kinds.stdout


def test_system_v_ipc_objects_left_end_the_sandbox(policy: SandboxPolicy) -> None:
    run("true", policy)
    before = kept()
    run("ipcmk -M 4096 && ipcmk -Q && ipcmk -S 1", policy)
    assert not (kept() & before)
    assert run("ipcs -m -q -s | grep -c 0x || true", policy).stdout.strip() == "0"


def test_message_queues_left_are_removed(policy: SandboxPolicy) -> None:
    run("true", policy)
    before = kept()
    made = run(f'{PY} -c \'open("/dev/mqueue/q", "w")\' && ls /dev/mqueue', policy)
    assert made.stdout == "q\n", made
    assert run("ls -A /dev/mqueue | wc -l", policy).stdout.strip() == "0"
    assert kept() == before


def test_changes_to_dev_end_the_sandbox(policy: SandboxPolicy) -> None:
    run("true", policy)
    before = kept()
    run("rm -f /dev/stdout; touch /dev/planted", policy)
    assert not (kept() & before)
    after = run("ls /dev/planted; readlink /dev/stdout", policy)
    assert after.stdout == "/proc/self/fd/1\n"
    assert "No such file" in after.stderr


def test_a_changed_mode_on_tmp_ends_the_sandbox(policy: SandboxPolicy) -> None:
    run("true", policy)
    before = kept()
    run("chmod 000 /tmp /dev/shm", policy)
    assert not (kept() & before)
    assert run("touch /tmp/ok && echo ok", policy).stdout == "ok\n"


def test_a_new_repository_gets_a_new_sandbox_with_its_git_read_only(
    ws: Path, policy: SandboxPolicy
) -> None:
    run("mkdir -p vendor/lib/.git/hooks", policy)
    first = kept()
    hook = run("echo evil > vendor/lib/.git/hooks/pre-commit && echo written", policy)
    assert kept() - first, "the old plan's sandbox was reused"
    assert hook.stdout == "" and not (ws / "vendor/lib/.git/hooks/pre-commit").exists()


def test_commands_at_the_same_time_get_sandboxes_of_their_own(policy: SandboxPolicy) -> None:
    async def both() -> list[str]:
        probe = "touch /tmp/$0; sleep 0.5; ls /tmp"
        one = run_sandboxed(["sh", "-c", probe, "one"], policy)
        two = run_sandboxed(["sh", "-c", probe, "two"], policy)
        return [r.stdout for r in await asyncio.gather(one, two)]

    fresh = run("ls /tmp", policy).stdout.split()
    _end_all()
    one, two = asyncio.run(both())
    assert sorted(one.split()) == sorted(["one", *fresh])
    assert sorted(two.split()) == sorted(["two", *fresh])
    assert len(kept()) == 2


def test_a_timeout_ends_the_sandbox_and_everything_in_it(policy: SandboxPolicy) -> None:
    run("true", policy)
    before = kept()
    marker = f"ja-kept-{uuid.uuid4().hex[:8]}"
    result = run(f"exec {PY} -c 'import time; time.sleep(300)' {marker}", policy, timeout=0.5)
    assert result.timed_out and result.exit_code is None
    assert not (kept() & before)
    host = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    assert host.stdout == ""
    assert run("echo next", policy).stdout == "next\n"


def test_a_sandbox_ended_from_outside_while_waiting_is_replaced(policy: SandboxPolicy) -> None:
    run("true", policy)
    (pid,) = kept()
    os.kill(pid, 9)
    assert run("echo next", policy).stdout == "next\n"
    assert pid not in kept()


def test_each_command_gets_its_own_environment_and_umask(policy: SandboxPolicy, ws: Path) -> None:
    first = asyncio.run(
        run_sandboxed("echo $LANG", policy, env={"LANG": "C.one", "PATH": os.defpath})
    )
    second = asyncio.run(run_sandboxed("echo ${LANG-unset}", policy, env={"PATH": os.defpath}))
    assert (first.stdout, second.stdout) == ("C.one\n", "unset\n")
    old = os.umask(0o077)
    try:
        run("touch private", policy)
    finally:
        os.umask(old)
    assert (ws / "private").stat().st_mode & 0o777 == 0o600


def test_a_program_that_cannot_start_says_so(policy: SandboxPolicy) -> None:
    result = asyncio.run(run_sandboxed(["no-such-program-here"], policy))
    assert result.exit_code == 127
    assert "no-such-program-here: No such file or directory" in result.stderr
    assert run("echo still", policy).stdout == "still\n"


def test_a_repository_the_person_makes_again_stays_read_only(
    ws: Path, policy: SandboxPolicy
) -> None:
    (ws / ".git" / "hooks").mkdir(parents=True)
    run("true", policy)
    assert kept()
    shutil.rmtree(ws / ".git")  # the person, outside: rm -rf .git && git init
    (ws / ".git" / "hooks").mkdir(parents=True)
    hook = run("echo evil > .git/hooks/pre-commit && echo written", policy)
    assert hook.stdout == "" and not (ws / ".git/hooks/pre-commit").exists(), hook


def test_a_workspace_made_again_is_the_one_commands_see(tmp_path: Path) -> None:
    ws = tmp_path / "again"
    ws.mkdir()
    policy = SandboxPolicy("workspace-write", ws)
    run("true", policy)
    shutil.rmtree(ws)
    ws.mkdir()
    (ws / "new.txt").write_text("new\n")
    assert run("cat new.txt", policy).stdout == "new\n"


def test_a_credential_file_rewritten_outside_stays_hidden(
    policy: SandboxPolicy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path.home() / f"ja-home-{uuid.uuid4().hex[:8]}"  # outside /tmp, as a home is
    home.mkdir()
    try:
        (home / ".netrc").write_text("machine x password OLD-SECRET\n")
        monkeypatch.setenv("HOME", str(home))
        assert "OLD-SECRET" not in run("cat ~/.netrc; true", policy).stdout
        assert kept()
        fresh = home / ".netrc.new"  # tools rewrite it as a new file renamed over the old one
        fresh.write_text("machine x password NEW-SECRET\n")
        fresh.replace(home / ".netrc")
        assert "NEW-SECRET" not in run("cat ~/.netrc; true", policy).stdout
    finally:
        shutil.rmtree(home)


def test_a_forked_copy_of_the_kernel_uses_sandboxes_of_its_own(policy: SandboxPolicy) -> None:
    run("true", policy)
    parents = kept()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the forked copy: runs a command, reports what it kept
        try:
            result = asyncio.run(run_sandboxed("echo child", policy))
            os.write(write, f"{result.stdout.strip()} {sorted(kept())}".encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        said = answer.read()
    os.waitpid(child, 0)
    assert said.startswith("child ")
    assert not any(str(pid) in said for pid in parents), said
    assert kept() == parents


@pytest.mark.parametrize(
    ("options", "emptied"),
    [
        (["--tmpfs", "/run", "--tmpfs", "/tmp", "--bind", "/w", "/w"], ["/run", "/tmp"]),
        (["--tmpfs", "/tmp", "--bind", "/tmp", "/tmp"], []),  # the workspace is /tmp
        (["--tmpfs", "/h/.ssh", "--bind", "/h", "/h"], []),  # under a folder bound later
        (["--tmpfs", "/run", "--ro-bind", "/run/x/y", "/run/x/y"], ["/run"]),  # inside it
        (["--bind", "/h", "/h", "--tmpfs", "/h/.ssh"], ["/h/.ssh"]),  # hidden over the bind
    ],
)
def test_only_the_sandboxs_own_folders_are_emptied(options: list[str], emptied: list[str]) -> None:
    assert _box._scratch(["/usr/bin/bwrap", *options]) == [*emptied, "/dev/shm", "/dev/mqueue"]


def test_a_workspace_in_a_hidden_place_keeps_its_files(monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path.home() / f"ja-home-{uuid.uuid4().hex[:8]}"
    (home / ".ssh").mkdir(parents=True)
    try:
        monkeypatch.setenv("HOME", str(home))
        policy = SandboxPolicy("workspace-write", home / ".ssh")  # the person chose it
        run("echo mine > config", policy)
        assert run("cat config", policy).stdout == "mine\n"
        assert kept()
        assert (home / ".ssh" / "config").read_text() == "mine\n"
    finally:
        shutil.rmtree(home)


def test_a_sandbox_ended_from_outside_mid_command_says_so(policy: SandboxPolicy) -> None:
    run("true", policy)
    (pid,) = kept()

    async def killed_midway():  # type: ignore[no-untyped-def]
        seen = asyncio.Event()
        command = asyncio.ensure_future(
            run_sandboxed("echo up; sleep 30", policy, on_output=lambda text: seen.set())
        )
        await asyncio.wait_for(seen.wait(), 30)
        os.kill(pid, 9)
        return await command

    result = asyncio.run(killed_midway())
    assert result.exit_code == 137 and not result.timed_out
    assert result.stdout == "up\n"
    assert "the sandbox was ended from outside" in result.stderr
    assert run("echo next", policy).stdout == "next\n"


# -- what a command can set on the process that stays ---------------------------------------------
# A process may change the resource limits, the priority, the CPU affinity, the scheduling
# policy and the I/O priority of another process of the same user (prlimit, setpriority,
# sched_setaffinity, sched_setscheduler, ioprio_set), and children inherit them: set on the
# kept sandbox's first process, they would reach every later command.

_IOPRIO = {"x86_64": (251, 252), "aarch64": (30, 31)}.get(os.uname().machine)
"""``ioprio_set`` and ``ioprio_get``'s numbers here (the standard library has neither)."""
IOPRIO_SET, IOPRIO_GET = _IOPRIO or (0, 0)

PROBE = (
    "import ctypes, os, resource\n"
    "limits = [(n, resource.getrlimit(getattr(resource, n))) for n in sorted(dir(resource))"
    " if n.startswith('RLIMIT_')]\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    f"io = libc.syscall({IOPRIO_GET}, 1, 0) if {IOPRIO_GET} else None\n"
    "print(limits, os.getpriority(os.PRIO_PROCESS, 0), sorted(os.sched_getaffinity(0)),"
    " os.sched_getscheduler(0), os.sched_getparam(0).sched_priority, io)\n"
)
"""Prints what a command starts with: every resource limit, its nice value, the CPUs it may
run on, its scheduling policy and its I/O priority."""

_CPUS = sorted(os.sched_getaffinity(0))

SETTINGS_ATTACKS = [
    pytest.param(
        "import resource; resource.prlimit(1, resource.RLIMIT_FSIZE, (1, 1))",
        "import resource; print(resource.prlimit(1, resource.RLIMIT_FSIZE))",
        "(1, 1)",
        id="prlimit FSIZE: the next write dies of SIGXFSZ",
    ),
    pytest.param(
        "import resource; resource.prlimit(1, resource.RLIMIT_NOFILE, (16, 16))",
        "import resource; print(resource.prlimit(1, resource.RLIMIT_NOFILE))",
        "(16, 16)",
        id="prlimit NOFILE: a hard limit nobody can raise again",
    ),
    pytest.param(
        "import resource; resource.prlimit(1, resource.RLIMIT_NPROC, (5, 5))",
        "import resource; print(resource.prlimit(1, resource.RLIMIT_NPROC))",
        "(5, 5)",
        id="prlimit NPROC",
    ),
    pytest.param(
        "import os; os.setpriority(os.PRIO_PROCESS, 1, 19)",
        "import os; print(os.getpriority(os.PRIO_PROCESS, 1))",
        "19",
        id="setpriority: nice 19, which nobody can lower again",
    ),
    pytest.param(
        "import os; os.setpriority(os.PRIO_USER, os.getuid(), 18)",
        "import os; print(os.getpriority(os.PRIO_PROCESS, 1))",
        "18",
        id="setpriority on every process of the user",
    ),
    pytest.param(
        f"import os; os.sched_setaffinity(1, {{{_CPUS[-1]}}})",
        "import os; print(sorted(os.sched_getaffinity(1)))",
        f"[{_CPUS[-1]}]",
        id="sched_setaffinity: one CPU",
        marks=pytest.mark.skipif(len(_CPUS) < 2, reason="needs two CPUs"),
    ),
    pytest.param(
        "import os; os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0))",
        "import os; print(os.sched_getscheduler(1) == os.SCHED_IDLE)",
        "True",
        id="sched_setscheduler: SCHED_IDLE",
    ),
    pytest.param(
        "import ctypes; libc = ctypes.CDLL(None, use_errno=True);"
        f" assert libc.syscall({IOPRIO_SET}, 1, 1, 3 << 13) == 0",
        "import ctypes; libc = ctypes.CDLL(None, use_errno=True);"
        f" print(libc.syscall({IOPRIO_GET}, 1, 1) >> 13)",
        "3",
        id="ioprio_set: the idle I/O class",
        marks=pytest.mark.skipif(not IOPRIO_SET, reason="numbers known for x86-64, AArch64"),
    ),
]


@pytest.mark.parametrize(("attack", "proof", "proven"), SETTINGS_ATTACKS)
def test_limits_and_priorities_set_on_the_first_process_do_not_reach_the_next_command(
    policy: SandboxPolicy, ws: Path, attack: str, proof: str, proven: str
) -> None:
    fresh = run(f"{PY} -c {shlex.quote(PROBE)}", policy)
    assert fresh.exit_code == 0, fresh.stderr
    done = run(f"{PY} -c {shlex.quote(attack)} && {PY} -c {shlex.quote(proof)}", policy)
    assert done.stdout.strip() == proven, done  # the attack works on the first process
    later = run(f"{PY} -c {shlex.quote(PROBE)}", policy)
    assert later.stdout == fresh.stdout, "a later command inherited what the attack set"
    wrote = run("printf 'more than one byte' > out.txt && cat out.txt", policy)
    assert wrote.stdout == "more than one byte" and wrote.exit_code == 0, wrote


def test_settings_on_the_first_process_left_alone_keep_the_sandbox(policy: SandboxPolicy) -> None:
    own = "import os, resource; os.setpriority(os.PRIO_PROCESS, 0, 10);" + (
        " resource.setrlimit(resource.RLIMIT_FSIZE, (1, 1))"
    )
    run("true", policy)
    before = kept()
    run(f"{PY} -c {shlex.quote(own)}", policy)  # its own settings die with it
    assert kept() == before
