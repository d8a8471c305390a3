"""Layered settings: the site's (an administrator's), the person's, the project's, then what the
notebook sets in its kernel; and the site's locks.

The files are ``jupyter_agents_config.json``: in Jupyter's system configuration folders for the
site (``$JUPYTER_CONFIG_PATH``, ``{sys.prefix}/etc/jupyter``, ``/usr/local/etc/jupyter``,
``/etc/jupyter``; an earlier folder wins), in the person's (``$JUPYTER_CONFIG_DIR``, else
``~/.jupyter``), and in the project's root. Each holds keys of ``settings_keys.KEYS``; the
site's may hold ``"locked": [KEY, ...]``.

How they combine: the person's values replace the site's, except that a locked key may only be
made stricter (the site's value is a floor: ``settings_keys.is_looser``); the project's values
are taken only where they are at least as strict as what came before (a repository someone
sent can tighten, never loosen); the notebook's (``allows``) may be anything a lock allows.
Only the site locks: a ``"locked"`` elsewhere is ignored, with a warning. Files are read
without following links, capped, parsed as JSON; a bad value is skipped with a warning naming
the file and the key.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..nofollow import NotRead, TooLarge, read_regular
from .places import jupyter_config_dir as user_folder
from .places import project_root
from .settings_keys import DEFAULTS, KEYS, Key, is_looser, parse_value, stricter_of

__all__ = [
    "FILE_NAME",
    "Lock",
    "Settings",
    "active_settings",
    "load_settings",
    "shown",
    "site_folders",
    "site_locks",
    "use_settings",
]

FILE_NAME = "jupyter_agents_config.json"
MAX_BYTES = 64 * 1024


@dataclasses.dataclass(frozen=True)
class Lock:
    """A key the site locked: the loosest value any layer may choose, and the file saying so."""

    value: Any
    path: Path


@dataclasses.dataclass
class Settings:
    """The settings before the notebook's own: each key's value and the layer it came from
    (``source``: ``site``, ``user``, ``project``, or ``default`` when no file sets it), the
    site's locks, and warnings about what was left out."""

    values: dict[str, Any] = dataclasses.field(default_factory=dict)
    source: dict[str, str] = dataclasses.field(default_factory=dict)
    locks: dict[str, Lock] = dataclasses.field(default_factory=dict)
    warnings: list[str] = dataclasses.field(default_factory=list)

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)

    def refusal(self, name: str, value: Any) -> str | None:
        """Why ``value`` may not be set for ``name`` (None: it may): one line naming the lock."""
        lock = self.locks.get(name)
        if lock is None or not is_looser(KEYS[name], value, lock.value):
            return None
        return (
            f"{name} is locked by your administrator at {shown(lock.value)} (in {lock.path}); "
            "it can only be made stricter"
        )

    def clamp(self, name: str, value: Any) -> Any:
        """``value``, or the lock's when ``value`` is looser than the lock allows."""
        lock = self.locks.get(name)
        return value if lock is None else stricter_of(KEYS[name], lock.value, value)


def shown(value: Any) -> str:
    """A value as ``%agent config`` shows it (None: no limit)."""
    if value is None:
        return "no limit"
    if isinstance(value, tuple):
        return ", ".join(value) or "(none)"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def site_folders() -> list[Path]:
    """Jupyter's system configuration folders, the first winning."""
    extra = [Path(p) for p in os.environ.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep) if p]
    system = [
        Path(sys.prefix) / "etc" / "jupyter",
        Path("/usr/local/etc/jupyter"),
        Path("/etc/jupyter"),
    ]
    return list(dict.fromkeys([*extra, *system]))


def _read(folder: Path, warnings: list[str]) -> dict[str, Any] | None:
    """The JSON object in ``folder/FILE_NAME`` (None: no file, or a bad one, said in
    ``warnings``)."""
    path = folder / FILE_NAME
    if not (path.exists() or path.is_symlink()):
        return None
    try:
        data = json.loads(read_regular(folder, FILE_NAME, MAX_BYTES).decode("utf-8"))
    except TooLarge:
        warnings.append(f"{path}: larger than {MAX_BYTES:,} bytes: not read")
        return None
    except NotRead as e:
        warnings.append(f"{path}: not read: {e}")
        return None
    except (UnicodeDecodeError, ValueError) as e:
        warnings.append(f"{path}: not JSON ({str(e)[:80]}): not read")
        return None
    if not isinstance(data, dict):
        warnings.append(f"{path}: not a JSON object of settings: not read")
        return None
    return data


def _values(data: Mapping[str, Any], path: Path, warnings: list[str]) -> dict[str, Any]:
    """The valid settings in ``data`` (the others said in ``warnings``)."""
    found: dict[str, Any] = {}
    for name, raw in data.items():
        if name == "locked":
            continue
        key = KEYS.get(name)
        if key is None:
            warnings.append(f"{path}: {name!r} is not a setting: left out")
            continue
        try:
            found[name] = parse_value(key, raw)
        except ValueError as e:
            warnings.append(f"{path}: {name} must be {e}: left out")
    return found


def load_settings(start: Path | str | None = None) -> Settings:
    """The site's, the person's and the project's (for the folder ``start``, default the
    working folder) settings, combined as the module says."""
    settings = _site()
    warnings = settings.warnings
    user = _read(user_folder(), warnings)
    if user is not None:
        path = user_folder() / FILE_NAME
        if "locked" in user:
            warnings.append(f"{path}: only the site's files lock settings: 'locked' ignored")
        for name, value in _values(user, path, warnings).items():
            _set(settings, name, value, "user", path)
    root = project_root(Path(start) if start is not None else Path.cwd())
    project = _read(root, warnings)
    if project is not None:
        path = root / FILE_NAME
        if "locked" in project:
            warnings.append(f"{path}: only the site's files lock settings: 'locked' ignored")
        for name, value in _values(project, path, warnings).items():
            _tighten(settings, name, value, path)
    return settings


def _site() -> Settings:
    """The site's settings and locks."""
    settings = Settings()
    for folder in reversed(site_folders()):  # the first folder wins: read it last
        data = _read(folder, settings.warnings)
        if data is None:
            continue
        path = folder / FILE_NAME
        for name, value in _values(data, path, settings.warnings).items():
            settings.values[name], settings.source[name] = value, "site"
        _take_locks(settings, data, path)
    return settings


def _take_locks(settings: Settings, data: Mapping[str, Any], path: Path) -> None:
    locked = data.get("locked", [])
    if not isinstance(locked, list):
        settings.warnings.append(f"{path}: 'locked' must be a list of settings: ignored")
        return
    for name in locked:
        if name not in KEYS:
            settings.warnings.append(f"{path}: cannot lock {name!r}: not a setting")
        elif name not in settings.values:
            settings.warnings.append(f"{path}: cannot lock {name}: the file gives it no value")
        else:  # two site files locking one key: the stricter lock holds
            held = settings.locks.get(name)
            value = settings.values[name]
            if held is None or is_looser(KEYS[name], held.value, value):
                settings.locks[name] = Lock(value, path)


def _set(settings: Settings, name: str, value: Any, source: str, path: Path) -> None:
    refused = settings.refusal(name, value)
    if refused is not None:
        settings.warnings.append(f"{path}: {refused}: left out")
        return
    settings.values[name], settings.source[name] = value, source


def _tighten(settings: Settings, name: str, value: Any, path: Path) -> None:
    key: Key = KEYS[name]
    before = settings.values.get(name, DEFAULTS.get(name))
    if key.kind != "free" and is_looser(key, value, before):
        settings.warnings.append(
            f"{path}: {name} {shown(value)} is looser than {shown(before)}: a project's file "
            "can only make settings stricter: left out"
        )
        return
    _set(settings, name, value, "project", path)


_provider: Callable[[], Settings | None] | None = None


def use_settings(provider: Callable[[], Settings | None] | None) -> None:
    """Make ``provider`` (the loaded notebook extension's settings, with what the notebook set)
    what ``active_settings`` gives; None: read the files each time."""
    global _provider
    _provider = provider


def active_settings() -> Settings:
    """The settings in force here: the notebook's when the extension is loaded, else the
    files' for the working folder (read now)."""
    given = _provider() if _provider is not None else None
    return given if given is not None else load_settings()


_site_cache: dict[tuple[Any, ...], dict[str, Lock]] = {}
_site_files_cache: dict[tuple[str, str], tuple[str, ...]] = {}


def _site_files() -> tuple[str, ...]:
    """The site's settings files, as strings (worked out again when what names the folders
    changes): every run stats them, so this is on the hot path."""
    where = (os.environ.get("JUPYTER_CONFIG_PATH", ""), sys.prefix)
    files = _site_files_cache.get(where)
    if files is None:
        files = tuple(os.path.join(folder, FILE_NAME) for folder in site_folders())
        _site_files_cache.clear()
        _site_files_cache[where] = files
    return files


def site_locks() -> dict[str, Lock]:
    """The site's locks (kept while the site's files are unchanged): what a run's policy is
    clamped by, whatever its ``RunConfig`` or tools say."""
    files = _site_files()
    stamp: list[tuple[int, int] | None] = []
    for file in files:
        try:
            info = os.stat(file)
        except OSError:
            stamp.append(None)
        else:
            stamp.append((info.st_mtime_ns, info.st_size))
    key = (files, *stamp)
    locks = _site_cache.get(key)
    if locks is None:
        _site_cache.clear()
        locks = _site_cache[key] = _site().locks
    return locks
