"""Private PostgreSQL and Redis servers for tests and benchmarks of the server-backed sessions
(Debian's ``postgresql`` and ``redis-server`` packages).

Each server lives in a fresh temporary folder, listens only on a Unix socket there, and is
stopped (and its folder removed) when the ``with`` block ends::

    with postgres_server() as url:  # postgresql+asyncpg://postgres@/postgres?host=/tmp/...
        session = SQLAlchemySession.from_url("s", url=url, create_tables=True)

PostgreSQL refuses to run as root, so as root its files and process belong to the
``postgres`` user (which Debian's package creates).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["ServerMissing", "find_pg_bin", "postgres_server", "redis_server"]

READY_TIMEOUT = 60.0
"""Seconds a server may take to accept connections."""


class ServerMissing(RuntimeError):
    """The server's programs are not installed here (the message says what to install)."""


def find_pg_bin() -> Path | None:
    """The folder of PostgreSQL's server programs (``pg_ctl``, ``initdb``), if installed."""
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


def _server_user() -> str | None:
    """Who runs PostgreSQL: this user, or ``postgres`` when this is root."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise ServerMissing(
            "PostgreSQL cannot run as root and there is no 'postgres' user"
        ) from None
    return "postgres"


@contextmanager
def postgres_server(*, fsync: bool = True) -> Iterator[str]:
    """Start a PostgreSQL server; yield its SQLAlchemy ``postgresql+asyncpg`` URL.

    Args:
        fsync: Flush commits to disk (PostgreSQL's default); off makes tests faster.

    Raises:
        ServerMissing: PostgreSQL is not installed.
    """
    bin_dir = find_pg_bin()
    if bin_dir is None:
        raise ServerMissing("needs PostgreSQL's server (apt-get install postgresql)")
    user = _server_user()
    home = Path(tempfile.mkdtemp(prefix="ja-pg-"))
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(home, entry.pw_uid, entry.pw_gid)
    data = home / "data"

    def run(*args: str) -> None:
        done = subprocess.run(args, user=user, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {done.stdout}{done.stderr}")

    options = f"-k {home} -c listen_addresses='' -c max_connections=200"
    options += "" if fsync else " -c fsync=off"
    try:
        run(str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-N")
        # -w: pg_ctl returns once the server accepts connections
        log = str(home / "log")
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", log, "-w", "start")
        try:
            yield f"postgresql+asyncpg://postgres@/postgres?host={home}"
        finally:
            run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(home, ignore_errors=True)


@contextmanager
def redis_server() -> Iterator[str]:
    """Start a Redis server (in memory, no snapshots); yield its ``unix://`` URL.

    Raises:
        ServerMissing: ``redis-server`` is not installed.
    """
    binary = shutil.which("redis-server")
    if binary is None:
        raise ServerMissing("needs redis-server (apt-get install redis-server)")
    home = Path(tempfile.mkdtemp(prefix="ja-redis-"))
    socket = home / "redis.sock"
    command = [binary, "--port", "0", "--unixsocket", str(socket), "--unixsocketperm", "700"]
    command += ["--save", "", "--appendonly", "no", "--dir", str(home)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ready = threading.Event()
    log: list[str] = []

    def watch() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            log.append(line)
            if "ready to accept connections" in line.lower():  # Redis 6 and 7 say it differently
                ready.set()
        ready.set()  # the server exited: stop waiting

    threading.Thread(target=watch, daemon=True).start()
    try:
        if not ready.wait(READY_TIMEOUT) or proc.poll() is not None:
            raise RuntimeError("redis-server did not start: " + "".join(log))
        yield f"unix://{socket}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(home, ignore_errors=True)
