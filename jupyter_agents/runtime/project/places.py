"""Where a project's files are: its root (the nearest folder up holding ``.git``), the folders
from there down to the working folder, and the person's own configuration folder
(``$JUPYTER_CONFIG_DIR/jupyter_agents``, by default ``~/.jupyter/jupyter_agents``)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["folders_down", "jupyter_config_dir", "project_root", "user_config_dir"]


def project_root(start: str | os.PathLike[str] | None = None) -> Path:
    """The nearest folder from ``start`` (default: the working folder) up that holds ``.git``
    (a folder, a worktree's file, even a link); ``start`` itself when none does."""
    start = start if start is not None else os.getcwd()
    start = Path(os.path.realpath(start))
    for folder in (start, *start.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return start


def folders_down(root: Path, start: Path) -> list[Path]:
    """The folders from ``root`` down to ``start``, both included (``[start]`` when ``start`` is
    not inside ``root``)."""
    start = start.resolve()
    try:
        parts = start.relative_to(root.resolve()).parts
    except ValueError:
        return [start]
    folders = [root.resolve()]
    for part in parts:
        folders.append(folders[-1] / part)
    return folders


def jupyter_config_dir() -> Path:
    """The person's Jupyter configuration folder: ``$JUPYTER_CONFIG_DIR``, else ``~/.jupyter``."""
    base = os.environ.get("JUPYTER_CONFIG_DIR")
    return Path(base) if base else Path.home() / ".jupyter"


def user_config_dir() -> Path:
    """The person's configuration folder for jupyter_agents: ``jupyter_agents`` in their
    Jupyter configuration folder."""
    return jupyter_config_dir() / "jupyter_agents"
