"""Which shell command lines are known to be safe: they only read, and only what is there.

A line is parsed with tree-sitter-bash (``._bash``); it must consist only of plain words
joined by ``&&``, ``||``, ``;``, ``|`` or newlines (no comment, substitution, expansion,
redirection, heredoc, assignment, subshell, group or background job). ``bash -lc SCRIPT``,
``sh -c SCRIPT`` and ``zsh -lc SCRIPT`` are read as their script, as Codex does. Then every
command must match one of the exact forms below, with options resolved the way GNU programs
read them (abbreviated long options, short clusters, ``--``). Anything unknown is unsafe.

No git command is known safe, whatever its subcommand and options (as in Codex): git runs
programs that the repository's configuration names (``core.fsmonitor`` on ``git status``, a
diff driver's ``textconv`` on ``git diff``, ``log -p`` and ``show``, ``core.pager``, ...), and a
repository someone sent is as untrusted as a script they sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ._bash import PlainCommand, plain_commands, shell_script
from ._options import OptionRules, operands

__all__ = ["READ_ONLY_PROGRAMS", "is_known_safe"]

READ_ONLY_PROGRAMS = frozenset(
    {
        "basename", "cat", "cd", "cmp", "column", "cut", "df", "diff", "dirname", "du", "echo",
        "egrep", "expr", "false", "fgrep", "grep", "head", "id", "ls", "nl", "numfmt", "paste",
        "printenv", "printf", "pwd", "readlink", "realpath", "rev", "seq", "stat", "tac",
        "tail", "test", "tr", "true", "uname", "wc", "which", "whoami",
    }
)  # fmt: skip
"""Programs that only read and print whatever their options and operands: safe with any
arguments, globs included."""

_RULES = {
    "base64": OptionRules(banned_short="o", banned_long=frozenset({"output"})),
    "sort": OptionRules(
        banned_short="oT",
        banned_long=frozenset({"output", "compress-program", "temporary-directory"}),
    ),
    "file": OptionRules(banned_short="C", banned_long=frozenset({"compile"})),
    "tree": OptionRules(banned_short="oR", banned_long=frozenset({"output"})),
    "rg": OptionRules(
        banned_short="z", banned_long=frozenset({"pre", "hostname-bin", "search-zip"})
    ),
}
"""Programs that read unless given one of these options (``tree -R`` writes 00Tree.html files;
``sort -T`` writes temporary files; ``rg -z`` runs decompressors)."""

_UNIQ = OptionRules(
    short_values="fsw", long_values=frozenset({"skip-fields", "skip-chars", "check-chars"})
)
_DATE = OptionRules(
    banned_short="s", banned_long=frozenset({"set"}), short_values="dfr",
    long_values=frozenset({"date", "file", "reference", "resolution"}),
)  # fmt: skip
_HOSTNAME = OptionRules(banned_short="bF", banned_long=frozenset({"boot", "file"}))
_FIND_WRITES = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint",
                          "-fprint0", "-fprintf"})  # fmt: skip
_SED_PRINT = re.compile(r"(?:\d+,)?\d+p")


def _uniq(args: Sequence[str]) -> bool:
    found = operands(args, _UNIQ)  # uniq [INPUT [OUTPUT]]: a second operand is written
    return found is not None and len(found) <= 1


def _date(args: Sequence[str]) -> bool:
    found = operands(args, _DATE)  # an operand that is not +FORMAT sets the clock
    return found is not None and all(arg.startswith("+") for arg in found)


def _hostname(args: Sequence[str]) -> bool:
    return operands(args, _HOSTNAME) == []  # an operand sets the host (or NIS) name


def _sed(args: Sequence[str]) -> bool:
    """Only ``sed -n N[,M]p [FILE]``: any other script may write (``w``) or run (``e``)."""
    if len(args) not in (2, 3) or args[0] != "-n" or not _SED_PRINT.fullmatch(args[1]):
        return False
    return len(args) == 2 or not args[2].startswith("-")  # -fFILE, --expression=...: a script


def _find(args: Sequence[str]) -> bool:
    return not _FIND_WRITES.intersection(args)


def _env(args: Sequence[str]) -> bool:
    return not args  # with arguments it runs another program


def _with_rules(rules: OptionRules) -> Callable[[Sequence[str]], bool]:
    return lambda args: operands(args, rules) is not None


_FORMS: dict[str, Callable[[Sequence[str]], bool]] = {
    "date": _date,
    "env": _env,
    "find": _find,
    "hostname": _hostname,
    "sed": _sed,
    "uniq": _uniq,
    **{program: _with_rules(rules) for program, rules in _RULES.items()},
}
"""Programs safe only in some forms: each check gets the arguments after the program name."""


def _command_is_safe(command: PlainCommand) -> bool:
    program, args = command.words[0], command.words[1:]
    if 0 in command.patterns or "/" in program:  # a path could be anything
        return False
    if program in READ_ONLY_PROGRAMS:
        return True
    if command.patterns:  # a glob could expand to an option such as -i or --output=F
        return False
    check = _FORMS.get(program)
    return check is not None and check(args)


def is_known_safe(command: str) -> bool:
    """Whether the shell command line ``command`` only reads; unknown means no."""
    commands = plain_commands(command)
    if commands and len(commands) == 1 and not commands[0].patterns:
        script = shell_script(commands[0].words)
        if script is not None:
            commands = plain_commands(script)
    return bool(commands) and all(_command_is_safe(c) for c in commands or ())
