"""Finding skills: the project's ``.agents/skills/*/SKILL.md`` and the person's own, checked,
with a one-line warning for each one skipped.

* The project is the nearest folder up from the start folder that holds a ``.git``, else the
  start folder itself; its skills are in ``<project>/.agents/skills/``. No link is followed
  from the project down to a ``SKILL.md`` (a cloned repository could carry one).
* The person's skills are in ``skills/`` of their configuration folder
  (``~/.jupyter/jupyter_agents/skills/``, or ``$JUPYTER_CONFIG_DIR/jupyter_agents/skills/``).
  That folder and each skill folder in it may be links (the person made them); nothing inside
  a skill folder is followed.
* A project skill wins over the person's of the same name. Each source is read in name order.
* A skill whose folder lies where the sandbox hides secrets is skipped (``sandbox/readable.py``).
"""

from __future__ import annotations

import os
import stat
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeAlias

from ..mcp.untrusted import printable
from ..nofollow import NotRead, TooLarge, open_folder, read_regular, why_not_opened
from ..project.places import project_root, user_config_dir
from ..sandbox.readable import secret_place
from .front_matter import InvalidSkill, SkillHead, parse_skill
from .listing import DEFAULT_BUDGET, skills_listing

__all__ = [
    "MAX_SKILLS",
    "MAX_SKILL_BYTES",
    "PROJECT_SKILLS",
    "Skill",
    "SkillSource",
    "Skills",
    "config_folder",
    "discover_cached",
    "project_root",
    "user_skills_folder",
]

SkillSource: TypeAlias = Literal["project", "user"]
"""Where a skill was found: the project's ``.agents/skills/`` or the person's folder."""

PROJECT_SKILLS = (".agents", "skills")
"""Where a project keeps its skills, below its root."""

MAX_SKILLS = 200
"""Skill folders read per source; the rest are skipped with a warning."""

MAX_SKILL_BYTES = 100_000
"""The largest ``SKILL.md`` read."""


def config_folder() -> Path:
    """The person's configuration folder for jupyter_agents (``places.user_config_dir``:
    ``$JUPYTER_CONFIG_DIR/jupyter_agents``, else ``~/.jupyter/jupyter_agents``)."""
    return user_config_dir()


def user_skills_folder() -> Path:
    """Where the person's own skills are: ``skills/`` in ``config_folder()``."""
    return config_folder() / "skills"


@dataclass(frozen=True)
class Skill:
    """A skill: a folder whose ``SKILL.md`` names and describes it."""

    name: str
    """Its name (lowercase letters, digits and hyphens; its folder's name)."""
    description: str
    """What it does and when to use it, as its ``SKILL.md`` says."""
    folder: Path
    """Its folder (absolute)."""
    source: SkillSource
    """``"project"`` or ``"user"``."""
    base: tuple[Path, tuple[str, ...]] | None = field(default=None, repr=False, compare=False)
    """Where its files are reached from, one folder at a time without following a link: a
    folder, and the names from it down to the skill's folder (the project's root and
    ``(".agents", "skills", name)`` for a project skill; the skill's folder, resolved, and
    ``()`` for the person's). None: ``folder`` itself."""

    @property
    def reached_from(self) -> tuple[Path, tuple[str, ...]]:
        """``base``, or ``folder`` and no names."""
        return self.base or (self.folder, ())


@dataclass(frozen=True)
class Skills:
    """The skills found for a folder, and the warnings of those skipped."""

    skills: tuple[Skill, ...] = ()
    """Project skills first, then the person's, each in name order."""
    warnings: tuple[str, ...] = ()
    """One line per skill skipped: its file, why, and what to change."""

    @classmethod
    def discover(
        cls,
        start: str | os.PathLike[str] | None = None,
        *,
        user: bool = True,
        user_folder: str | os.PathLike[str] | None = None,
        warn: bool = True,
    ) -> Skills:
        """The skills of the project holding ``start`` (default: the current folder) and, with
        ``user``, the person's (``user_folder``, default ``user_skills_folder()``).

        Each skill skipped is a line of ``warnings``, also issued as a ``UserWarning`` when
        ``warn``; nothing found is no error.
        """
        root = project_root(start)
        found = _Found()
        found.scan(root, PROJECT_SKILLS, "project")
        if user:
            mine = Path(user_folder).expanduser() if user_folder else user_skills_folder()
            found.scan(mine.absolute(), (), "user")
        skills = cls(tuple(found.skills.values()), tuple(found.warnings))
        if warn:
            for line in skills.warnings:
                warnings.warn(line, UserWarning, stacklevel=2)
        return skills

    def __iter__(self) -> Iterator[Skill]:
        return iter(self.skills)

    def __len__(self) -> int:
        return len(self.skills)

    def __contains__(self, name: object) -> bool:
        return any(skill.name == name for skill in self.skills)

    def get(self, name: str) -> Skill | None:
        """The skill named ``name``, or None."""
        return next((skill for skill in self.skills if skill.name == name), None)

    @property
    def names(self) -> list[str]:
        """The skills' names, in order."""
        return [skill.name for skill in self.skills]

    def listing(self, budget: int = DEFAULT_BUDGET) -> str:
        """A line per skill, ``- name: description`` (``listing.skills_listing``)."""
        return skills_listing(((s.name, s.description, None) for s in self.skills), budget)


@dataclass
class _Found:
    """Skills found so far (a name found first wins) and the warnings."""

    skills: dict[str, Skill] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def skip(self, where: Path | str, why: str) -> None:
        self.warnings.append(printable(f"Skill skipped: {where}: {why}.", keep_newlines=False))

    def scan(self, base: Path, inside: tuple[str, ...], source: SkillSource) -> None:
        """Add the skills in ``base/inside`` (reached from ``base`` without following a link)."""
        folder = base.joinpath(*inside)
        names = self._entries(base, inside, folder)
        if names and secret_place(folder) is not None:
            self.skip(folder, "it lies where the sandbox hides secrets: move the skills out")
            return
        for count, (name, link) in enumerate(names):
            if count == MAX_SKILLS:
                self.skip(folder / name, f"more than {MAX_SKILLS} skills here: remove some")
                return
            if name in self.skills:  # a project skill wins over the person's
                continue
            if link and source == "project":
                self.skip(
                    folder / name,
                    "it is a symbolic link, and a project's skills are read only from real "
                    "folders: move the skill's folder here",
                )
                continue
            self._add(base, inside, name, source)

    def _entries(self, base: Path, inside: tuple[str, ...], folder: Path) -> list[tuple[str, bool]]:
        """The folders and links in ``folder`` (sorted), each with whether it is a link."""
        try:
            fd = open_folder(base, inside)
        except FileNotFoundError:
            return []
        except OSError as e:
            self.skip(folder, f"{why_not_opened(e)}; make it a real folder")
            return []
        try:
            with os.scandir(fd) as entries:
                return sorted(
                    (e.name, e.is_symlink())
                    for e in entries
                    if not e.name.startswith(".")
                    and (e.is_dir(follow_symlinks=False) or e.is_symlink())
                )
        except OSError as e:
            self.skip(folder, why_not_opened(e))
            return []
        finally:
            os.close(fd)

    def _add(self, base: Path, inside: tuple[str, ...], name: str, source: SkillSource) -> None:
        folder = base.joinpath(*inside, name)
        if source == "user":  # the person's own links are followed to the skill's folder
            base, inside = Path(os.path.realpath(folder)), ()
            if secret_place(base) is not None:
                self.skip(folder, "it leads where the sandbox hides secrets: move it out")
                return
        else:
            inside = (*inside, name)
        try:
            head = _read_head(base, inside, name)
        except (NotRead, InvalidSkill) as e:
            self.skip(folder / "SKILL.md", str(e))
            return
        self.skills[name] = Skill(head.name, head.description, folder, source, (base, inside))


def _read_head(base: Path, inside: tuple[str, ...], name: str) -> SkillHead:
    """The checked ``SKILL.md`` of the skill folder ``base/inside``, named ``name``.

    Raises:
        NotRead: It is missing, a link, too large or not UTF-8 (the message says the fix).
        InvalidSkill: It breaks a rule of the format.
    """
    relative = "/".join((*inside, "SKILL.md"))
    try:
        data = read_regular(base, relative, MAX_SKILL_BYTES)
    except TooLarge as e:
        raise NotRead(f"it is {e}: move the details into references/ files") from None
    except NotRead as e:
        if str(e).startswith("it is gone"):
            raise NotRead("there is none: add a SKILL.md, or move the folder out") from None
        raise NotRead(f"{e}; make it a regular file in the skill's folder") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotRead("it is not UTF-8 text: save it as UTF-8") from None
    return parse_skill(text, name)


_Stamp: TypeAlias = tuple[tuple[int, int, int, int] | None, ...]
_cache: OrderedDict[tuple[str, str | None], tuple[_Stamp, Skills]] = OrderedDict()
_cache_lock = threading.Lock()
_CACHED = 8


def _stat(path: Path) -> tuple[int, int, int, int] | None:
    """What changes when ``path`` (not followed) is edited, replaced or swapped for a link."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size, stat.S_IFMT(info.st_mode))


def _stamp(folder: Path) -> _Stamp:
    """The skills folder's stamp: its own, and each entry's and its ``SKILL.md``'s."""
    stamps: list[tuple[int, int, int, int] | None] = [_stat(folder)]
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return tuple(stamps)
    for name in names:
        stamps += [_stat(folder / name), _stat(folder / name / "SKILL.md")]
    return tuple(stamps)


def discover_cached(
    start: str | os.PathLike[str] | None = None, report: Callable[[str], None] | None = None
) -> Skills:
    """``Skills.discover(start)``, kept until a skills folder, a skill folder or a
    ``SKILL.md`` changes (by their modification times, sizes and inodes): each call costs a
    few ``stat`` calls. Each warning goes to ``report`` (default: a ``UserWarning``) when the
    folders are read, not when the kept skills are returned."""
    root = project_root(start)
    mine = user_skills_folder().absolute()
    key = (str(root), str(mine))
    stamp = _stamp(root.joinpath(*PROJECT_SKILLS)) + _stamp(mine)
    with _cache_lock:
        kept = _cache.get(key)
        if kept is not None and kept[0] == stamp:
            _cache.move_to_end(key)
            return kept[1]
    skills = Skills.discover(root, user_folder=mine, warn=report is None)
    if report is not None:
        for line in skills.warnings:
            report(line)
    with _cache_lock:
        _cache[key] = (stamp, skills)
        while len(_cache) > _CACHED:
            _cache.popitem(last=False)
    return skills
