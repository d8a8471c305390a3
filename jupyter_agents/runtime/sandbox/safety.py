"""Which shell commands are known to be safe: they only read, and only what is already there.

Commands are parsed with ``shlex`` (never matched as substrings). A command line is safe when it
has no redirection, no background job, no command or process substitution, no variable
expansion, and every command in it (joined by ``|``, ``&&``, ``||`` or ``;``) is a known
read-only program with options that keep it read-only. Anything unknown is unsafe.
"""

from __future__ import annotations

import shlex

__all__ = ["is_known_safe"]

_READ_ONLY = frozenset(
    {
        "ls", "cat", "head", "tail", "wc", "pwd", "echo", "printf", "grep", "egrep", "fgrep",
        "rg", "sort", "uniq", "cut", "tr", "diff", "cmp", "stat", "file", "which", "whoami",
        "date", "uname", "true", "false", "basename", "dirname", "realpath", "readlink", "du",
        "df", "tree", "nl", "column", "id", "hostname", "env", "seq", "expr", "test", "[",
    }
)  # fmt: skip
_GIT_READ_ONLY = frozenset({"status", "diff", "log", "show", "blame", "ls-files", "rev-parse"})
_WRITING_OPTIONS: dict[str, tuple[str, ...]] = {
    "sort": ("-o", "--output", "--compress-program"),
    "tree": ("-o",),
    "date": ("-s", "--set"),
    "hostname": ("-F", "--file", "-b", "--boot"),
    "file": ("-C", "--compile"),
    "rg": ("--pre", "--hostname-bin", "-z", "--search-zip"),
}
"""Options that make a read-only program write, change the system or run another program."""
_MAX_OPERANDS = {"uniq": 1, "hostname": 0}
"""Programs whose later operands are written: ``uniq IN OUT``, ``hostname NAME``."""
_OPERATORS = frozenset({"|", "&&", "||", ";"})
_FIND_WRITES = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint",
                          "-fprint0", "-fprintf", "-fls"})  # fmt: skip


def _command_is_safe(words: list[str]) -> bool:
    if not words:
        return False
    program, args = words[0], words[1:]
    if "/" in program:  # a path: it could be anything
        return False
    if program == "git":
        while args and args[0] == "--no-pager":
            args = args[1:]
        subcommand = args[0] if args else None  # options before it (-c, --exec-path) could run code
        return subcommand in _GIT_READ_ONLY and not any(
            a.startswith(("--output", "-o")) or a == "--ext-diff" for a in args
        )
    if program == "find":
        return not any(a in _FIND_WRITES for a in args)
    if program == "sed":
        return (
            "-n" in args
            and not any(a.startswith(("-i", "--in-place")) for a in args)
            and (not any(a.endswith(("w", "W")) and not a.startswith("-") for a in args[1:]))
        )
    if program == "env":
        return not args  # with arguments it runs another program
    if program not in _READ_ONLY:
        return False
    banned = _WRITING_OPTIONS.get(program, ())
    if any(
        a == b or a.startswith(b + "=") or _short_cluster_has(a, b) for a in args for b in banned
    ):
        return False
    positional = [a for a in args if not a.startswith("-")]
    return len(positional) <= _MAX_OPERANDS.get(program, len(positional))


def _short_cluster_has(arg: str, option: str) -> bool:
    """Whether ``arg`` is a cluster of short options (``-rno``) that includes ``option``
    (a short option such as ``-o``), or ``option`` with its value attached (``-oFILE``)."""
    if len(option) != 2 or not arg.startswith("-") or arg.startswith("--"):
        return False
    return option[1] in arg[1:]


def is_known_safe(command: str) -> bool:
    """Whether ``command`` (a shell command line) only reads; unknown means no."""
    if not command.strip() or any(c in command for c in "`$\n\r"):
        return False  # substitutions, expansions, several lines
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return False  # unbalanced quotes
    words: list[str] = []
    for token in tokens:
        if token in _OPERATORS:
            if not _command_is_safe(words):
                return False
            words = []
        elif set(token) <= set("|&;<>()"):
            return False  # a redirection, a background job or a subshell
        else:
            words.append(token)
    return _command_is_safe(words)
