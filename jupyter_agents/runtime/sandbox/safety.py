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
        subcommand = next((a for a in args if not a.startswith("-")), None)
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
    return program in _READ_ONLY


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
