"""The project's ``AGENTS.md`` instructions, found as Codex finds them.

The person's own ``AGENTS.md`` (in their configuration folder, ``places.user_config_dir``)
comes first, then one file per folder from the project's root (the nearest folder up holding
``.git``) down to the working folder, the outermost first: a deeper file refines the ones
above it. In a folder, ``AGENTS.override.md`` is read instead of ``AGENTS.md``. All the text
together is capped (``MAX_BYTES``, 32 KiB as in Codex): the file that reaches the cap is cut,
later ones are left out and listed as skipped.

The files are the person's project, so their text is trusted as instructions; they are still
read as data (``nofollow``: a symbolic link is skipped, never followed; only regular files;
text that is not UTF-8 gets replacement characters) and never evaluated or rendered.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Literal

from ..nofollow import NotRead, read_head
from .places import folders_down, project_root, user_config_dir

__all__ = ["MAX_BYTES", "NAMES", "InstructionFile", "ProjectInstructions", "project_instructions"]

MAX_BYTES = 32 * 1024
"""Bytes of ``AGENTS.md`` text, all files together, that reach the model."""

NAMES = ("AGENTS.override.md", "AGENTS.md")
"""The file read in each folder: the first of these that is there."""

INTRO = (
    "The project's instructions follow, from its AGENTS.md files, the outermost first: a file "
    "deeper in the project refines the ones above it."
)


@dataclasses.dataclass(frozen=True)
class InstructionFile:
    """One ``AGENTS.md`` read: its path, its text (``cut``: at the cap) and where it is."""

    path: Path
    text: str
    source: Literal["user", "project"]
    cut: bool = False


@dataclasses.dataclass(frozen=True)
class ProjectInstructions:
    """The ``AGENTS.md`` files for a working folder, in order, and those left out (one line
    each: why)."""

    root: Path
    files: tuple[InstructionFile, ...] = ()
    skipped: tuple[str, ...] = ()

    def name(self, file: InstructionFile) -> str:
        """How ``file`` is named to people: relative to the project's root, or
        ``(your configuration)/AGENTS.md``."""
        if file.source == "user":
            return f"(your configuration)/{file.path.name}"
        try:
            return file.path.relative_to(self.root).as_posix()
        except ValueError:
            return str(file.path)

    def names(self) -> list[str]:
        return [self.name(f) for f in self.files]

    def text(self) -> str:
        """The block added to an agent's instructions ("" when there is no file)."""
        if not self.files:
            return ""
        parts = [INTRO]
        for file in self.files:
            cut = " (cut: the instructions' size limit was reached)" if file.cut else ""
            parts.append(f"--- {self.name(file)}{cut} ---\n{file.text.strip()}")
        return "\n\n".join(parts)


def project_instructions(
    start: Path | str | None = None,
    *,
    user_dir: Path | None = None,
    max_bytes: int = MAX_BYTES,
) -> ProjectInstructions:
    """The ``AGENTS.md`` files that apply in ``start`` (default: the working folder), the
    person's own first (``user_dir``: their configuration folder; default
    ``places.user_config_dir()``)."""
    here = Path(start) if start is not None else Path.cwd()
    root = project_root(here)
    candidates: list[tuple[Path, Literal["user", "project"]]] = [
        (user_dir if user_dir is not None else user_config_dir(), "user")
    ]
    candidates += [(folder, "project") for folder in folders_down(root, here)]
    files: list[InstructionFile] = []
    skipped: list[str] = []
    left = max_bytes
    for folder, source in candidates:
        name = next((n for n in NAMES if (folder / n).exists() or (folder / n).is_symlink()), None)
        if name is None:
            continue
        if left <= 0:
            skipped.append(f"{folder / name}: left out, the instructions' size limit was reached")
            continue
        try:
            data, cut = read_head(folder, name, left)
        except NotRead as e:
            skipped.append(f"{folder / name}: {e}")
            continue
        left -= len(data)
        text = data.decode("utf-8", errors="replace")
        files.append(InstructionFile(folder / name, text, source, cut))
    return ProjectInstructions(root, tuple(files), tuple(skipped))
