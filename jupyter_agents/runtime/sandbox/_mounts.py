"""The mounts of a sandboxed command: what is hidden, what may be written, and what stays
read-only inside what may be written.

Order matters to bubblewrap (a later mount covers an earlier one), so the plan is built in
layers: the read-only root; hidden folders (empty ``tmpfs``) and files (``/dev/null``); the
writable roots (with the home folder's top level read-only again when they hold it, see
``._home``); hidden places inside writable roots; then read-only binds that must win over
the writable roots (every ``.git`` in them, this project's state, this Python's environments,
the folders on ``PATH``).
"""

from __future__ import annotations

import functools
import os
import site
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from .._util import make_state_folder
from ._home import home_mounts, in_read_only_home, writable_home
from ._home import under as _under_str
from ._walk import find_git, forget_walks

__all__ = [
    "CREDENTIAL_STORES",
    "PROTECTED",
    "forget_walks",
    "hidden_places",
    "mount_args",
    "protected_in",
    "python_envs",
]

PROTECTED = (".git", ".jupyter_agents")
"""Entries of the workspace that stay read-only in ``workspace-write`` mode: the repository and
this project's own state (such as a document index). Nested ``.git`` entries are found too."""

STATE = ".jupyter_agents"

CREDENTIAL_STORES = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".config/rclone",
    ".config/git/credentials",
    ".local/share/keyrings",
    ".password-store",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".my.cnf",
    ".pypirc",
    ".npmrc",
    ".yarnrc.yml",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".vault-token",
    ".boto",
    ".s3cfg",
    ".terraform.d/credentials.tfrc.json",
    ".m2/settings.xml",
    ".kaggle",
    ".databrickscfg",
    ".huggingface",
    ".cache/huggingface/token",
    ".config/op",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".node_repl_history",
)
"""Where the home folder usually keeps keys, tokens and agent sockets (and the shell
histories, where typed secrets end up): hidden in the sandbox."""


_PROC_READ_ONLY = [
    arg
    for name in ("sys", "sysrq-trigger", "fs")
    if os.geteuid() == 0 and os.path.exists(f"/proc/{name}")
    for arg in ("--ro-bind", f"/proc/{name}", f"/proc/{name}")
]
"""Kernel settings in ``/proc`` stay read-only for root, who keeps write access to them even
without capabilities (``kernel.core_pattern`` or ``kernel.modprobe`` run a program as root on
the host; ``sysrq-trigger`` reboots it) and for whom bubblewrap leaves ``/proc/sys`` writable
(it covers ``/proc/irq`` and ``/proc/bus`` itself). Other users cannot write them anyway."""


RUN_SOFTWARE = (
    "/run/current-system",
    "/run/booted-system",
    "/run/opengl-driver",
    "/run/opengl-driver-32",
    "/run/wrappers",
)
"""Software, not services, that some systems keep under ``/run`` (NixOS: every program on
``PATH``, the GPU drivers): shown again, read-only, after ``/run`` is hidden."""


def python_envs() -> tuple[str, ...]:
    """This Python's environments (venv and base, as given and resolved) and the user's
    site-packages: kept read-only so sandboxed code cannot plant what a kernel imports."""
    user_site = site.getusersitepackages() if hasattr(site, "getusersitepackages") else ""
    return _existing_folders(
        (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, user_site)
    )


@functools.lru_cache(maxsize=8)
def _existing_folders(paths: tuple[str, ...]) -> tuple[str, ...]:
    found: list[str] = []
    for path in paths:
        if not path:
            continue
        for form in (os.path.abspath(path), os.path.realpath(path)):
            if os.path.isdir(form) and form not in found:
                found.append(form)
    return tuple(found)


JUPYTER_SECRETS = ("runtime", "jupyter_agents", "notebook_secret", "nbsignatures.db")
"""What of Jupyter's data folder a sandboxed command never sees: the runtime folder (server
tokens, kernel connection files), this project's recording secret (it signs the person's
recordings as theirs) and the notary's secret and signatures (they mark notebooks trusted)."""


def _runtime_folders(home: str) -> list[str]:
    """Where local services keep their sockets and tokens and Jupyter its secrets: ``/run``
    (with ``/var/run``), the user's runtime folder and ``JUPYTER_SECRETS``."""
    env = os.environ
    data = env.get("JUPYTER_DATA_DIR") or os.path.join(
        env.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share"), "jupyter"
    )
    folders = ["/run", "/var/run", *(os.path.join(data, name) for name in JUPYTER_SECRETS)]
    for name in ("XDG_RUNTIME_DIR", "JUPYTER_RUNTIME_DIR"):
        value = env.get(name, "")
        if value.startswith("/"):
            folders.append(value)
    return folders


def _hidden() -> list[Path]:
    """Existing places to hide, resolved, outermost first (a place inside another is kept:
    the workspace may be bound between them, as a folder inside ``/tmp`` can be). (Plain
    strings until the end: this runs before every sandboxed command.)"""
    home = os.path.expanduser("~")
    try:
        present = set(os.listdir(home))  # one read instead of a stat per credential store
    except OSError:
        present = set()
    places = ["/tmp", *_runtime_folders(home)]
    places += [os.path.join(home, n) for n in CREDENTIAL_STORES if n.split("/")[0] in present]
    resolved = {os.path.realpath(p) for p in places if os.path.exists(p)}
    return sorted(Path(p) for p in resolved if p != "/")


def hidden_places() -> list[Path]:
    """The existing places every sandboxed command finds empty (``/tmp``, the runtime folders,
    Jupyter's secrets, the credential stores), resolved: what tools that read files in this
    process keep out of too (``sandbox/readable.py``)."""
    return _hidden()


def _outermost(places: Sequence[Path]) -> list[Path]:
    """``places`` (sorted) without those inside another: hiding the outer hides them."""
    kept: list[Path] = []
    for place in places:  # sorted: a folder comes before what it holds
        if not any(_under(place, outer) for outer in kept):
            kept.append(place)
    return kept


def _hide(place: Path) -> list[str]:
    if place.is_dir():
        return ["--tmpfs", str(place)]
    return ["--ro-bind", "/dev/null", str(place)]


def _under(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or inside it (both absolute and normalised); cheaper than
    ``Path.is_relative_to``, which runs for every mount of every command."""
    return _under_str(str(path), str(folder))


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(_under(path, root) for root in roots)


def _ro(paths: Iterable[Path]) -> list[str]:
    argv: list[str] = []
    for path in sorted(set(paths), key=lambda p: (len(p.parts), p)):
        argv += ["--ro-bind", str(path), str(path)]
    return argv


def mount_args(
    mode: str, workspace: Path, writable: Sequence[Path], *, network: bool
) -> tuple[list[str], bool]:
    """The bubblewrap mount options for a sandboxed ``mode`` (``workspace`` and ``writable``
    resolved), and whether the search for nested ``.git`` stopped at its cap."""
    roots = [workspace, *writable] if mode == "workspace-write" else list(writable)
    bound = [workspace, *writable]  # mounted over the hidden places: hide again what they hold
    hidden = [place for place in _hidden() if place not in bound]  # the person chose those
    late = _outermost([place for place in hidden if _inside(place, bound)])
    early = _outermost([place for place in hidden if not _inside(place, bound)])
    envs = [Path(env) for env in python_envs()]
    holds_root = [e for e in envs if any(_under(root, e) for root in roots)]
    argv = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *_PROC_READ_ONLY]
    for place in early:
        argv += _hide(place)
    argv += _ro(e for e in holds_root if _inside(e, hidden))  # before the root it holds
    if mode == "workspace-write":
        argv += ["--bind", str(workspace), str(workspace)]
    else:  # the workspace stays visible (read-only) even when it lives in a hidden place
        argv += ["--ro-bind", str(workspace), str(workspace)]
    home = writable_home(roots)
    if home is not None:
        argv += home_mounts(home)
    for folder in writable:
        argv += ["--bind", str(folder), str(folder)]
    writes = workspace if mode == "workspace-write" else None
    protected, incomplete = _read_only_in(roots, envs, writes)
    for folder in _pinned(protected, roots):  # cannot be renamed away and replaced
        if home is None or not in_read_only_home(str(folder), home):
            argv += ["--bind", str(folder), str(folder)]
    argv += _ro(protected)
    for place in late:  # after the read-only binds, which would show them again
        argv += _hide(place)
    shown = [e for e in envs if e not in holds_root and _inside(e, [*roots, *hidden])]
    shown += [Path(p) for p in RUN_SOFTWARE if os.path.exists(p) and _inside(Path(p), hidden)]
    if network:
        shown += _resolver(hidden)
    return argv + _ro(shown), incomplete


def _pinned(protected: Sequence[Path], roots: Sequence[Path]) -> list[Path]:
    """The folders between a writable root and what stays read-only in it. A mount point
    cannot be renamed or removed, so binding each onto itself stops ``mv vendor/lib x &&
    mkdir -p vendor/lib/.git``, which would leave a repository of the command's making where
    the person's was."""
    pinned: set[Path] = set()
    for path in protected:
        for folder in path.parents:
            if folder in roots or not _inside(folder, roots):
                break
            if not _inside(folder, protected):
                pinned.add(folder)
    return sorted(pinned, key=lambda p: (len(p.parts), p))


def _resolver(hidden: Sequence[Path]) -> list[Path]:
    """``/etc/resolv.conf``'s file when it lives in a hidden folder (systemd-resolved keeps it
    in ``/run``), so names still resolve with the network on."""
    real = Path(os.path.realpath("/etc/resolv.conf"))
    return [real] if real.is_file() and _inside(real, hidden) else []


def protected_in(workspace: Path) -> tuple[list[Path], bool]:
    """What stays read-only inside ``workspace`` (resolved) in ``workspace-write`` mode, found
    as the sandbox finds it before each command (the home folder's rule aside, see
    ``._home``): whether the search for nested ``.git`` stopped at its cap too."""
    envs = [Path(env) for env in python_envs()]
    found, incomplete = _read_only_in([workspace], envs, None)
    return found + [e for e in envs if _under(e, workspace)], incomplete


def _read_only_in(
    roots: Sequence[Path], envs: Sequence[Path], workspace: Path | None
) -> tuple[list[Path], bool]:
    """What stays read-only inside the writable ``roots``: every ``.git`` (folders, files and
    the git folders those point to), every state folder of this project (the workspace's made
    first, before the command could make it its own; others where a document store or a batch
    store made them), and the folders on ``PATH`` (what the person's shell runs by name)."""
    keep: list[Path] = []
    incomplete = False
    for root in roots:
        state = root / STATE
        if root == workspace and not os.path.lexists(state):
            try:
                make_state_folder(state)  # first, so the command cannot make it its own
            except OSError:
                pass
        found, cut = find_git(root, skip=envs)
        incomplete = incomplete or cut
        keep += [p for p in found if p.name == STATE]
        keep += _git_targets([p for p in found if p.name != STATE], roots)
    keep += _path_folders(roots, envs)
    return [p for p in keep if os.path.exists(p)], incomplete


def _path_folders(roots: Sequence[Path], envs: Sequence[Path]) -> list[Path]:
    """The folders on ``PATH`` (resolved) that lie inside a writable root (outside this
    Python's environments, read-only anyway): a program planted there runs, unconfined, when
    the person next types its name. (A root itself on ``PATH`` stays writable.)"""
    tops, skip = [str(r) for r in roots], [str(e) for e in envs]
    found: list[str] = []
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        real = _real_folder(entry) if entry.startswith("/") else None
        if real is None or real in tops or real in found:
            continue
        inside = any(_under_str(real, top) for top in tops)
        if inside and not any(_under_str(real, env) for env in skip):
            found.append(real)
    return [Path(folder) for folder in found]


_real: dict[str, tuple[str, int, int]] = {}
"""``PATH`` entries resolved, with the device and inode of the folder they resolved to."""


def _real_folder(entry: str) -> str | None:
    """The folder ``entry`` names, resolved (None: none). A resolution is used again while
    the entry and the resolved path both still lead to the same folder (two ``stat`` calls
    instead of resolving every component before each command)."""
    try:
        info = os.stat(entry)
    except OSError:
        return None
    known = _real.get(entry)
    if known is not None and known[1:] == (info.st_dev, info.st_ino):
        try:
            again = os.stat(known[0])
        except OSError:
            again = None
        if again is not None and (again.st_dev, again.st_ino) == known[1:]:
            return known[0]
    real = os.path.realpath(entry)
    if not os.path.isdir(real):
        return None
    _real[entry] = (real, info.st_dev, info.st_ino)
    return real


def _git_targets(gits: Iterable[Path], roots: Sequence[Path]) -> list[Path]:
    """The ``.git`` entries, and what a ``.git`` file (a worktree's or a submodule's
    ``gitdir:``) or symlink points to, when that lies inside a writable root."""
    found: list[Path] = []
    for git in gits:
        if git.is_symlink():
            real = Path(os.path.realpath(git))
            if _inside(real, roots):
                found.append(real)
            continue
        found.append(git)
        if git.is_file():
            for target in _gitdir_chain(git):
                if _inside(target, roots):
                    found.append(target)
    return found


def _gitdir_chain(git_file: Path) -> list[Path]:
    """The git folder a ``.git`` file names, and the common folder a worktree's names."""
    found: list[Path] = []
    pointer = _read_pointer(git_file, "gitdir:")
    if pointer is not None:
        gitdir = Path(os.path.realpath(git_file.parent / pointer))
        found.append(gitdir)
        common = _read_pointer(gitdir / "commondir", "")
        if common is not None:
            found.append(Path(os.path.realpath(gitdir / common)))
    return found


def _read_pointer(path: Path, prefix: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            line = f.read(4096).strip()
    except OSError:
        return None
    if not line.startswith(prefix):
        return None
    value = line[len(prefix) :].strip()
    return value or None
