"""Other notebooks, for the notebook agent: ``list_notebooks`` (reads, so ``ask`` mode offers
it), ``create_notebook`` (writes a new file: the person approves each one) and
``open_notebook`` (asks the page to open one in a tab: the ``open_notebook`` request of the
document comm).

Every path is the model's, so untrusted: relative to the workspace (``%agent policy
--workspace``, else the kernel's folder, which is the notebook's), no ``..``, no hidden part,
ending in ``.ipynb``; folders are opened one at a time without following a link
(``runtime/nofollow.py``), so a link planted in the workspace cannot lead a listing or a new
file outside it; a new notebook never replaces a file (``O_EXCL``). A new notebook's cells are
written, never run.

Each tool's answer names the notebook it is about; the cell tools act on the notebook whose
kernel runs the agent, named by the frontend that holds it (``DocumentChannel.notebook``), and
their cards say which (``origin``): no "current notebook" pointer that two agents could race on.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from typing_extensions import TypedDict

from ...runtime.context import ToolContext
from ...runtime.nofollow import open_folder, why_not_opened
from ...runtime.tools import FunctionTool, function_tool
from .document_comm import DocumentChannel, NoFrontend, outcome

__all__ = ["MAX_LISTED", "NewCell", "notebook_file_tools", "notebook_path_problem"]

MAX_LISTED = 200
"""The most notebooks ``list_notebooks`` names."""

MAX_DEPTH = 4
"""How deep under the folder ``list_notebooks`` looks."""

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)

MAX_NEW_CELLS = 200
MAX_NEW_SOURCE = 100_000


class NewCell(TypedDict):
    """One cell of a new notebook."""

    cell_type: Literal["code", "markdown"]
    source: str


def notebook_path_problem(path: str, *, folder: bool = False) -> str | None:
    """Why ``path`` (the model's) cannot name a notebook (or, ``folder``, a folder) in the
    workspace; None when it can."""
    if not isinstance(path, str) or len(path) > 1024 or "\x00" in path or "\\" in path:
        return "give a relative path with / between folders"
    pure = PurePosixPath(path)
    if pure.is_absolute():
        return "give a path relative to the workspace, not an absolute one"
    parts = [p for p in pure.parts if p != "."]
    if any(p == ".." for p in parts):
        return "the path may not go up (..): notebooks outside the workspace are not reachable"
    if any(p.startswith(".") for p in parts):
        return "hidden files and folders are not reachable"
    if not folder and (not parts or not parts[-1].endswith(".ipynb") or parts[-1] == ".ipynb"):
        return "a notebook's path ends in .ipynb"
    return None


def _listing(root: Path, folder: str, here: str | None) -> str:
    parts = [p for p in PurePosixPath(folder or ".").parts if p != "."]
    try:
        fd = open_folder(root, parts)
    except OSError as e:
        return f"Cannot list {folder or '.'!r}: {why_not_opened(e)}."
    found: list[str] = []
    more = False

    def walk(fd: int, prefix: str, depth: int) -> None:
        nonlocal more
        with os.scandir(fd) as entries:
            ordered = sorted(entries, key=lambda e: e.name)
        for entry in ordered:
            if entry.name.startswith(".") or entry.is_symlink():
                continue
            name = f"{prefix}{entry.name}"
            if entry.is_file(follow_symlinks=False) and entry.name.endswith(".ipynb"):
                if len(found) >= MAX_LISTED:
                    more = True
                    return
                found.append(name + ("  (this notebook)" if name == here else ""))
            elif entry.is_dir(follow_symlinks=False) and depth < MAX_DEPTH:
                try:
                    child = os.open(
                        entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd
                    )
                except OSError:
                    continue
                try:
                    walk(child, name + "/", depth + 1)
                finally:
                    os.close(child)

    try:
        walk(fd, "/".join(parts) + "/" if parts else "", 0)
    finally:
        os.close(fd)
    if not found:
        return f"No notebooks under {folder or 'the workspace'!r}."
    tail = [f"(only the first {MAX_LISTED} are listed)"] if more else []
    return "\n".join([f"Notebooks under {folder or 'the workspace'!r}:", *found, *tail])


def _new_notebook(cells: list[NewCell]) -> bytes:
    made = []
    for n, cell in enumerate(cells):
        kind = cell.get("cell_type")
        source = cell.get("source")
        if kind not in ("code", "markdown") or not isinstance(source, str):
            raise ValueError(f"cell {n + 1} needs cell_type code or markdown and a source")
        if len(source) > MAX_NEW_SOURCE:
            raise ValueError(f"cell {n + 1} is longer than {MAX_NEW_SOURCE:,} characters")
        entry: dict[str, Any] = {
            "cell_type": kind,
            "id": f"cell-{n + 1}",
            "metadata": {},
            "source": source,
        }
        if kind == "code":
            entry |= {"execution_count": None, "outputs": []}
        made.append(entry)
    notebook = {
        "cells": made,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode()


def _create(root: Path, path: str, data: bytes) -> str | None:
    """Write ``data`` as the new file ``path`` under ``root``; why not, or None."""
    parts = list(PurePosixPath(path).parts)
    try:
        fd = open_folder(root, [p for p in parts[:-1] if p != "."])
    except OSError as e:
        return f"its folder cannot be used: {why_not_opened(e)}"
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        out = os.open(parts[-1], flags, 0o644, dir_fd=fd)
    except FileExistsError:
        return "a file of that name is there already (a notebook is never replaced)"
    except OSError as e:
        return why_not_opened(e)
    finally:
        os.close(fd)
    with os.fdopen(out, "wb") as f:
        f.write(data)
    return None


def notebook_file_tools(
    document: Callable[[], DocumentChannel], root: Callable[[], Path]
) -> list[FunctionTool]:
    """``list_notebooks``, ``create_notebook`` and ``open_notebook``; ``root``: the workspace."""

    def here() -> str | None:
        """The running notebook's name, when the listing's root is its folder."""
        try:
            path = document().notebook
        except NoFrontend:
            return None
        same = root().resolve() == Path.cwd().resolve()
        return PurePosixPath(path).name if path and same else None

    def list_notebooks(folder: str = "") -> str:
        """List the notebooks in the workspace (or one of its folders), with the one you run in
        marked.

        Args:
            folder: A folder relative to the workspace (default: the workspace itself).
        """
        problem = notebook_path_problem(folder, folder=True) if folder else None
        if problem is not None:
            return f"list_notebooks: {problem}."
        return _listing(root(), folder, here())

    def create_notebook(path: str, cells: list[NewCell] | None = None) -> str:
        """Create a new notebook file in the workspace, with the cells given (they are not run).
        The user approves it first. It never replaces a file.

        Args:
            path: The new notebook's path relative to the workspace, ending in .ipynb.
            cells: Its cells, in order (default: none).
        """
        problem = notebook_path_problem(path)
        if problem is None and len(cells or []) > MAX_NEW_CELLS:
            problem = f"give at most {MAX_NEW_CELLS} cells"
        if problem is not None:
            return f"create_notebook: {problem}."
        try:
            data = _new_notebook(list(cells or []))
        except ValueError as e:
            return f"create_notebook: {e}."
        why = _create(root(), path, data)
        if why is not None:
            return f"create_notebook: {path!r} was not created: {why}."
        count = len(cells or [])
        return f"Created the notebook {path!r} with {count} cell(s); open_notebook opens it."

    async def open_notebook(ctx: ToolContext[Any], path: str) -> str:
        """Open a notebook of the workspace in a new tab for the user (it does not run it).

        Args:
            path: The notebook's path relative to the workspace, ending in .ipynb.
        """
        problem = notebook_path_problem(path)
        if problem is not None:
            return f"open_notebook: {problem}."
        try:
            reply = await document().request({"op": "open_notebook", "args": {"path": path}})
        except NoFrontend as e:
            return f"open_notebook: {e}"
        said = outcome(reply)
        if said is not None and "refused" in said:
            return f"open_notebook: {path!r} was not opened: {said['refused']}"
        if said is None or "done" not in said:
            return f"open_notebook: {path!r} was not opened."
        return f"Opened {path!r} in a new tab."

    return [
        function_tool(read_only=True)(list_notebooks),
        function_tool(needs_approval=True)(create_notebook),
        function_tool(open_notebook),
    ]
