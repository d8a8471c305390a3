"""``WorkspaceEditor``: applies patch operations to files under one folder, all or nothing.

Every path is checked before anything is written: no absolute path, no ``..`` out of the root,
no symlink (of the file or a folder on its way) that leads out, nothing inside ``.git``. The new
contents are computed in memory first, so a hunk that does not apply changes nothing. Files are
written atomically (a temporary file in the same folder, then ``os.replace``), and if a later
write fails, the files already written are put back.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ..errors import UserError
from ._patch_format import PatchError, PatchOp, apply_diff

__all__ = ["WorkspaceEditor"]


class WorkspaceEditor:
    """Applies patches under ``root`` (default: the current folder)."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        folder = Path(root if root is not None else os.getcwd()).resolve()
        if not folder.is_dir():
            raise UserError(f"WorkspaceEditor: {str(folder)!r} is not a folder.")
        self.root = folder

    def resolve(self, path: str) -> Path:
        """The file ``path`` names inside the workspace.

        Raises:
            PatchError: The path is empty, absolute, leaves the workspace or enters ``.git``.
        """
        if not path or "\x00" in path:
            raise PatchError("Every operation needs the path of a file in the workspace.")
        if Path(path).is_absolute():
            raise PatchError(f"{path!r} is absolute; give paths relative to the workspace.")
        target = (self.root / path).resolve()
        if target == self.root or not target.is_relative_to(self.root):
            raise PatchError(f"{path!r} is outside the workspace; it was not touched.")
        if ".git" in target.relative_to(self.root).parts:
            raise PatchError(f"{path!r} is inside .git, which patches may not change.")
        return target

    def apply(self, ops: Sequence[PatchOp]) -> list[str]:
        """Apply ``ops`` (all, or none on any error); one line per change made.

        Raises:
            PatchError: A path is refused, a file is missing or already there, or a hunk does
                not apply (nothing was changed).
        """
        planned: dict[Path, str | None] = {}  # new content; None: delete
        done: list[str] = []
        for op in ops:
            target = self.resolve(op.path)
            current = planned[target] if target in planned else self._read(target)
            if op.type == "create_file":
                if current is not None:
                    raise PatchError(f"{op.path!r} exists already; update it instead.")
                planned[target] = apply_diff("", op.diff, mode="create")
                done.append(f"created {op.path}")
                continue
            if current is None:
                raise PatchError(f"There is no file {op.path!r} to {op.type.split('_')[0]}.")
            if op.type == "delete_file":
                planned[target] = None
                done.append(f"deleted {op.path}")
                continue
            try:
                updated = apply_diff(current, op.diff)
            except PatchError as e:
                raise PatchError(f"{e} of {op.path}; no file was changed.") from None
            if op.move_to:
                destination = self.resolve(op.move_to)
                there = planned[destination] if destination in planned else self._read(destination)
                if destination != target and there is not None:
                    raise PatchError(f"{op.move_to!r} exists already; it was not overwritten.")
                planned[target] = None
                planned[destination] = updated
                done.append(f"updated {op.path} and moved it to {op.move_to}")
            else:
                planned[target] = updated
                done.append(f"updated {op.path}")
        self._commit(planned)
        return done

    @staticmethod
    def _read(path: Path) -> str | None:
        if path.is_dir():
            raise PatchError(f"{path.name!r} is a folder, not a file.")
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError:
            raise PatchError(
                f"{path.name!r} is not UTF-8 text; patches change text files."
            ) from None

    def _commit(self, planned: dict[Path, str | None]) -> None:
        backups: dict[Path, str | None] = {p: self._read(p) for p in planned}
        written: list[Path] = []
        try:
            for path, content in planned.items():
                if content is None:
                    if path.exists():
                        path.unlink()
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    _write_atomic(path, content)
                written.append(path)
        except OSError as e:
            for path in written:  # put back what was already changed
                old = backups[path]
                if old is None:
                    path.unlink(missing_ok=True)
                else:
                    _write_atomic(path, old)
            reason = e.strerror or e
            raise PatchError(f"Writing {path.name!r} failed ({reason}); nothing changed.") from None


def _write_atomic(path: Path, content: str) -> None:
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(content)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
