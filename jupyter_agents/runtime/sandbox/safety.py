"""Which shell command lines are known to be safe: they only read, and only what is there.

A line is parsed with tree-sitter-bash (:mod:`._bash`); it must consist only of plain words
joined by ``&&``, ``||``, ``;``, ``|`` or newlines (no comment, substitution, expansion,
redirection, heredoc, assignment, subshell, group or background job). ``bash -lc SCRIPT``,
``sh -c SCRIPT`` and ``zsh -lc SCRIPT`` are read as their script, as Codex does. Then every
command must match one of the exact forms below, with options resolved the way GNU programs
read them (abbreviated long options, short clusters, ``--``). Anything unknown is unsafe.
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
    if program == "git":
        return _git_is_safe(args)
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


_GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "branch", "blame", "ls-files",
                            "rev-parse"})  # fmt: skip
_GIT_GLOBAL_FLAGS = frozenset({"--no-pager", "-P", "--no-replace-objects", "--literal-pathspecs",
                               "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
                               "--no-optional-locks", "--no-advice"})  # fmt: skip
"""The only options allowed before a git subcommand: flags without a value that change no
config (``-c``, ``--config-env``, ``--git-dir``, ``--exec-path``, ``-C`` and ``-p`` are out)."""
_GIT_ARGS = OptionRules(
    banned_long=frozenset({"output", "ext-diff", "textconv", "exec", "paginate",
                           "open-files-in-pager"}),
    exact=frozenset({"text"}),
)  # fmt: skip
"""Subcommand options that write a file or run a program (abbreviations included)."""
_GIT_BRANCH_LISTING = frozenset({"--list", "-l", "--show-current", "-a", "--all", "-r",
                                 "--remotes", "-v", "-vv", "--verbose"})  # fmt: skip


def _git_is_safe(args: Sequence[str]) -> bool:
    index = 0
    while index < len(args) and args[index] in _GIT_GLOBAL_FLAGS:
        index += 1
    if index == len(args) or args[index] not in _GIT_READ_ONLY:
        return False  # the first word after the global options is the subcommand
    subcommand, rest = args[index], args[index + 1 :]
    if operands(rest, _GIT_ARGS) is None:
        return False
    return subcommand != "branch" or _git_branch_lists(rest)


def _git_branch_lists(args: Sequence[str]) -> bool:
    """``git branch`` only lists: no arguments, or only listing flags (a name creates, renames
    or deletes a branch), as Codex has it."""
    return not args or all(a in _GIT_BRANCH_LISTING or a.startswith("--format=") for a in args)
