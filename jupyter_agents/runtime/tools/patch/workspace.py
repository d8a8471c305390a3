"""``WorkspaceEditor``: applies patch operations to files under one folder, all or none.

Every operation is worked out in memory before anything is written: each path is placed (no
``..`` out of the workspace, nothing in ``.git`` or ``.jupyter_agents`` unless a person allowed
it), each file is read without following links, and each hunk is applied. Then the changes are
written together (see ``_safe_fs``): from folder descriptors, never following a symlink (even
one swapped in meanwhile), keeping each file's permission bits, and putting every file back if
anything fails or the call is cancelled.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...errors import UserError
from ._patch_apply import apply_codex_update, apply_diff, codex_new_file
from ._patch_format import PatchError, PatchOp
from ._patch_policy import locate
from ._safe_fs import Change, Current, PatchCancelled, Spot, commit, read

__all__ = ["WorkspaceEditor"]


@dataclass
class _Planned:
    text: str | None  # None: delete
    mode: int | None  # None: a new file


class WorkspaceEditor:
    """Applies patches under ``root`` (default: the current folder)."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        folder = os.path.realpath(root if root is not None else os.getcwd())
        if not os.path.isdir(folder):
            raise UserError(f"WorkspaceEditor: {folder!r} is not a folder.")
        self.root = Path(folder)

    def spot(self, path: str, allow_outside: bool = False) -> Spot:
        """Where ``path`` is (relative to the workspace, or absolute).

        Raises:
            PatchError: The path is malformed, or is outside the workspace or in its ``.git``
                or ``.jupyter_agents`` and ``allow_outside`` (a person allowed it) is false.
        """
        where = locate(path, self.root)
        if where.inside is not None and (allow_outside or not where.protected):
            return Spot(str(self.root), where.inside[:-1], where.inside[-1], path)
        if where.inside is not None:
            folder = next(p for p in where.inside if p in (".git", ".jupyter_agents"))
            raise PatchError(
                f"{path!r} is inside {folder}, which patches change only with the user's approval."
            )
        if not allow_outside:
            raise PatchError(f"{path!r} is outside the workspace; it was not touched.")
        # A path a person approved: its folder as it really is now, then no links.
        parent = Path(os.path.realpath("/" + "/".join(where.absolute[:-1])))
        return Spot("/", parent.parts[1:], where.absolute[-1], path)

    def apply(
        self,
        ops: Sequence[PatchOp],
        *,
        allow_outside: bool = False,
        cancel: threading.Event | None = None,
    ) -> list[str]:
        """Apply ``ops`` (all, or none on any error); one line per operation, worded as the
        SDK's editor words them (``Created a.txt``, ``Updated b.py``, ``Deleted c.md``).

        Args:
            ops: The operations, in order (a later one sees what an earlier one did).
            allow_outside: Paths outside the workspace or in its protected folders may be
                written (a person approved them, or the sandbox is ``danger-full-access``).
            cancel: Set it to stop: nothing is written (checked between steps).

        Raises:
            PatchError: A path is refused, a file is missing, a link or a special file is in
                the way, a hunk does not apply, or a write failed; nothing was changed.
        """
        plan = _Plan(self, allow_outside, _checker(cancel))
        for op in ops:
            plan.check()
            plan.add(op)
        commit(plan.changes(), plan.check)
        return plan.done


def _checker(cancel: threading.Event | None) -> Callable[[], None]:
    def check() -> None:
        if cancel is not None and cancel.is_set():
            raise PatchCancelled("The call was cancelled; nothing was changed.")

    return check


class _Plan:
    """The new state of every file a patch touches, worked out before anything is written."""

    def __init__(self, editor: WorkspaceEditor, allow_outside: bool, check: Callable[[], None]):
        self.editor = editor
        self.allow_outside = allow_outside
        self.check = check
        self.disk: dict[Spot, tuple[Current | None, str | None]] = {}
        self.planned: dict[Spot, _Planned] = {}
        self.done: list[str] = []

    def _current(self, spot: Spot) -> tuple[str | None, int | None]:
        """The text and permission bits of the file now (as planned so far)."""
        if spot in self.planned:
            planned = self.planned[spot]
            return planned.text, planned.mode
        if spot not in self.disk:
            try:
                found = read(spot)
            except OSError as e:
                raise PatchError(f"{spot.shown!r} could not be read ({e.strerror or e}).") from None
            try:
                text = None if found is None else found.data.decode("utf-8")
            except UnicodeDecodeError:
                raise PatchError(
                    f"{spot.shown!r} is not UTF-8 text; patches change text files."
                ) from None
            self.disk[spot] = (found, text)
        found, text = self.disk[spot]
        return text, None if found is None else found.mode

    def add(self, op: PatchOp) -> None:
        spot = self.editor.spot(op.path, self.allow_outside)
        text, mode = self._current(spot)
        if op.type == "create_file":
            created = (
                codex_new_file(op.diff)
                if op.style == "codex"
                else apply_diff("", op.diff, "create", check=self.check)
            )
            self.planned[spot] = _Planned(created, mode)
            replaced = " (it replaced the file that was there)" if text is not None else ""
            self.done.append(f"Created {op.path}{replaced}")
            return
        if text is None:
            verb = "update" if op.type == "update_file" else "delete"
            raise PatchError(f"There is no file {op.path!r} to {verb}; nothing was changed.")
        if op.type == "delete_file":
            self.planned[spot] = _Planned(None, None)
            self.done.append(f"Deleted {op.path}")
            return
        updated = self._updated(op, text)
        destination = self.editor.spot(op.move_to, self.allow_outside) if op.move_to else spot
        if destination == spot:
            self.planned[spot] = _Planned(updated, mode)
            self.done.append(f"Updated {op.path}")
            return
        self._current(destination)  # checks what is there (a folder, a link) before planning
        self.planned[spot] = _Planned(None, None)
        self.planned[destination] = _Planned(updated, mode)  # it keeps the source's mode
        self.done.append(f"Updated {op.path}\nMoved {op.path} to {op.move_to}")

    def _updated(self, op: PatchOp, text: str) -> str:
        if not op.diff.strip():
            raise PatchError(
                f"The update of {op.path!r} has no hunk: send '@@' hunks with the lines to "
                "change, or leave the file alone."
            )
        try:
            if op.style == "codex":
                return apply_codex_update(text, op.diff, check=self.check)
            return apply_diff(text, op.diff, check=self.check)
        except PatchCancelled:
            raise
        except PatchError as e:
            raise PatchError(f"{op.path}: {e}\nNo file was changed.") from None

    def changes(self) -> list[Change]:
        """The planned changes, encoded (what really changes only).

        Raises:
            PatchError: A new text is not valid Unicode, or a file to write is read-only.
        """
        changes = []
        for spot, planned in self.planned.items():
            found = self.disk[spot][0] if spot in self.disk else None
            if planned.text is None:
                if found is not None:
                    changes.append(Change(spot, None, None, found.stamp))
                continue
            try:
                data = planned.text.encode("utf-8")
            except UnicodeEncodeError:
                raise PatchError(
                    f"The new text of {spot.shown!r} is not valid Unicode (it holds a lone "
                    "surrogate such as \\ud800); nothing was changed."
                ) from None
            if found is not None and not found.writable:
                raise PatchError(f"{spot.shown!r} is read-only; nothing was changed.")
            if found is None or data != found.data or planned.mode != found.mode:
                stamp = found.stamp if found is not None else None
                changes.append(Change(spot, data, planned.mode, stamp))
        return changes
