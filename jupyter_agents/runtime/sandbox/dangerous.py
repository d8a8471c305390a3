"""Which shell command lines might destroy data, as Codex's ``command_might_be_dangerous``
judges them: ``rm`` with ``-f`` (``rm -rf``, ``rm -f``), also behind ``sudo``.

Such a command asks a person under every approval policy but ``never``, where it is refused
unless the sandbox is off (``danger-full-access``), as in Codex. Unlike the known-safe check,
which trusts only what it fully understands, this check looks wherever it can: every command in
the line (inside substitutions, subshells and scripts that do not parse), any spelling of the
force option (``-fr``, ``-r -f``, ``--force``, ``--f``), ``rm`` by path, behind wrappers
(``sudo``, ``env``, ``xargs``, ``find -exec``...) and inside ``sh -c`` scripts.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._bash import MAX_SCRIPT, literal_commands

__all__ = ["is_dangerous"]

_WRAPPERS = frozenset({"sudo", "doas", "env", "command", "exec", "nice", "nohup", "time",
                       "timeout", "xargs", "stdbuf", "ionice", "setsid", "chrt", "taskset",
                       "find", "busybox", "unbuffer"})  # fmt: skip
"""Programs that run a program named among their arguments."""
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh"})
_FORCE_LONG = ("force", "no-preserve-root")
_MAX_DEPTH = 3
"""How deep ``sh -c 'sh -c ...'`` scripts are read."""


def _name(word: str | None) -> str:
    return (word or "").rsplit("/", 1)[-1]


def _rm_forces(args: Sequence[str | None]) -> bool:
    """Whether ``rm`` with ``args`` removes without asking: ``-f`` in any cluster, or
    ``--force`` (or an abbreviation, ``rm`` being GNU) before ``--``."""
    for arg in args:
        if arg is None:
            continue
        if arg == "--":
            return False
        if arg.startswith("--"):
            name = arg[2:].partition("=")[0]
            if any(option.startswith(name) for option in _FORCE_LONG):
                return True
        elif arg.startswith("-") and "f" in arg[1:]:
            return True
    return False


def _words_dangerous(words: Sequence[str | None], depth: int) -> bool:
    """Whether one command is dangerous: ``rm`` that forces, or one behind wrappers (the
    first ``rm`` or shell among a wrapper's arguments is taken as the program it runs)."""
    if _name(words[0]) not in _WRAPPERS | _SHELLS | {"rm"}:
        return False
    for index, word in enumerate(words):
        name = _name(word)
        if name == "rm":
            return _rm_forces(words[index + 1 :])
        if name in _SHELLS and name != "busybox":
            scripts = words[index + 1 :] if depth < _MAX_DEPTH else ()
            return any(script and _script_dangerous(script, depth + 1) for script in scripts)
    return False


def _script_dangerous(script: str, depth: int) -> bool:
    return any(_words_dangerous(words, depth) for words in literal_commands(script))


def is_dangerous(command: str) -> bool:
    """Whether the shell command line ``command`` might destroy data (``rm -rf`` and kin): it
    then needs a person's approval even where commands otherwise run without asking. A line
    longer than ``MAX_SCRIPT`` is not read, and counts as dangerous."""
    return len(command) > MAX_SCRIPT or _script_dangerous(command, 0)
