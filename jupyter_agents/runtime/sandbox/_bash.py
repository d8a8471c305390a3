"""Shell command lines parsed with tree-sitter-bash, the parser Codex uses for the same job.

``plain_commands`` accepts only scripts made of plain words (unquoted words, single-quoted
strings, double-quoted strings without expansions, numbers) joined by ``&&``, ``||``, ``;``,
``|`` or newlines; anything else is None. The words are what the shell passes to the program,
so safety rules can match them exactly. ``literal_commands`` is the lenient reading that
the dangerous-command check needs: every command anywhere in the script, with the words it can
read.

The line runs under ``sh -c`` (dash) while the grammar is bash's, so every place where the two
could disagree about the words is refused rather than guessed: control and unusual whitespace
characters, backslashes outside quotes, ``$`` and backquotes outside single quotes.
"""

from __future__ import annotations

import codecs
import re
import threading
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = [
    "MAX_SCRIPT",
    "PlainCommand",
    "literal_commands",
    "plain_commands",
    "shell_script",
]

MAX_SCRIPT = 64 * 1024
"""Characters of a command line the parser reads; a longer line is never known safe."""

_PARSER_LOCK = threading.Lock()  # a tree-sitter parser keeps state between calls
_parsers: list[Parser] = []

_CONTAINERS = frozenset({"program", "list", "pipeline", "command", "command_name"})
_WORD_KINDS = frozenset({"word", "number", "string", "raw_string", "concatenation"})
_ALLOWED_KINDS = _CONTAINERS | _WORD_KINDS | {"string_content"}
_ALLOWED_TOKENS = frozenset({"&&", "||", ";", "|", '"'})
_UNQUOTED_FORBIDDEN = frozenset("\\$`'\";&|<>() \t\n")
"""Characters that never belong to a plain unquoted word (tree-sitter would not put them there;
if it ever did, sh would read them differently)."""
_PATTERN_CHARS = frozenset("*?[]{}")
_NOT_PLAIN_ASCII = re.compile(r"[^\x20-\x7e\t\n]")
_SHELLS = frozenset({"bash", "sh", "zsh"})
_SHELL_FLAGS = frozenset({"-c", "-lc"})


@dataclass(frozen=True)
class PlainCommand:
    """One simple command of a plain script."""

    words: tuple[str, ...]
    """The words as the program receives them (quotes removed)."""
    patterns: frozenset[int] = frozenset()
    """Indexes of words the shell may replace before the program sees them: unquoted glob or
    brace patterns, tildes, and zsh's ``=cmd``."""


def _odd_character(script: str) -> bool:
    """Whether ``script`` holds a character sh and tree-sitter may split differently: a control
    or format character (carriage return, NUL, zero-width space...) or unusual whitespace."""
    for found in _NOT_PLAIN_ASCII.finditer(script):
        char = found.group()
        if char.isascii() or unicodedata.category(char)[0] in "CZ":
            return True
    return False


def _parse(source: bytes) -> Node:
    with _PARSER_LOCK:
        if not _parsers:
            # Loaded on the first command judged, not when jupyter_agents is imported (the
            # grammar costs a few milliseconds that an agent without a shell never needs).
            import tree_sitter_bash
            from tree_sitter import Language, Parser

            _parsers.append(Parser(Language(tree_sitter_bash.language())))
        return _parsers[0].parse(source).root_node


def _only_plain_nodes(root: Node, source: bytes) -> bool:
    """Whether every node is one a plain script may hold, and the text between the tokens is
    only what sh too reads as blanks."""
    leaves = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_named:
            if node.type not in _ALLOWED_KINDS:
                return False
        elif node.type not in _ALLOWED_TOKENS:
            return False
        if node.child_count:
            stack.extend(node.children)
        else:
            leaves.append((node.start_byte, node.end_byte))
    end = 0
    for start, stop in sorted(leaves):
        if not _blank(source[end:start]):
            return False
        end = stop
    return _blank(source[end:])


def _blank(gap: bytes) -> bool:
    """Whether text the parser skipped between two tokens is blank to sh too. Tree-sitter skips
    a backslash before any blank, sh only before a newline (a line continuation, which joins
    the words around it: ``ls\\<newline>-la`` is the one word ``ls-la``)."""
    if b"\\\n" in gap:
        gap = gap.replace(b"\\\n", b"")
        if not gap:
            return False
    return not gap.strip(b" \t\n")


def _command_nodes(root: Node) -> Iterator[Node]:
    """Every ``command`` node under ``root``, in source order."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "command":
            yield node
        stack.extend(reversed(node.children))


def _text(node: Node) -> str:
    return (node.text or b"").decode()


def _double_quoted(node: Node, *, strict: bool = True) -> str | None:
    """The value of a ``"..."`` string with no expansion in it (None: it has one; when
    ``strict``, also for any ``$`` or backquote, even one sh would keep as it is)."""
    if any(child.type != "string_content" for child in node.named_children):
        return None
    raw = _text(node)
    if len(raw) < 2 or raw[0] != '"' or raw[-1] != '"':
        return None
    out: list[str] = []
    chars = iter(raw[1:-1])
    for char in chars:
        if strict and char in "$`":
            return None
        if char == "\\":
            following = next(chars, "")
            if following in ("$", "`", '"', "\\"):
                out.append(following)
            elif following != "\n":  # backslash-newline joins lines
                out.append("\\" + following)
        else:
            out.append(char)
    return "".join(out)


def _unquoted(node: Node) -> str | None:
    if node.type not in ("word", "number") or node.named_child_count:
        return None
    text = _text(node)
    if not text or not _UNQUOTED_FORBIDDEN.isdisjoint(text):
        return None
    return text


def _may_expand(text: str, *, first: bool) -> bool:
    """Whether sh, bash or zsh may rewrite this unquoted text: a glob or brace pattern, a tilde
    (bash expands ``a=~/x`` even as an argument) or zsh's ``=cmd``."""
    if not _PATTERN_CHARS.isdisjoint(text) or text.startswith("~"):
        return True
    return "=~" in text or ":~" in text or (first and text.startswith("="))


def _word(node: Node) -> tuple[str, bool] | None:
    """A plain word's value and whether the shell may rewrite it (None: not plain)."""
    parts = node.named_children if node.type == "concatenation" else [node]
    if not parts:
        return None
    value: list[str] = []
    pattern = False
    for index, part in enumerate(parts):
        if part.type == "raw_string":
            raw = _text(part)
            value.append(raw[1:-1])
            continue
        text = _double_quoted(part) if part.type == "string" else _unquoted(part)
        if text is None:
            return None
        if part.type != "string":
            if index == 0 and text.startswith("#"):
                return None  # sh reads a word starting with # as a comment
            pattern = pattern or _may_expand(text, first=index == 0)
        value.append(text)
    return "".join(value), pattern


def _plain_command(node: Node) -> PlainCommand | None:
    words: list[str] = []
    patterns: set[int] = set()
    for child in node.named_children:
        if child.type == "command_name":
            name = child.named_children
            if len(name) != 1 or name[0].type != "word":
                return None  # Codex too: the program is an unquoted word
            child = name[0]
        elif child.type not in _WORD_KINDS:
            return None
        parsed = _word(child)
        if parsed is None:
            return None
        if parsed[1]:
            patterns.add(len(words))
        words.append(parsed[0])
    if not words:
        return None
    return PlainCommand(tuple(words), frozenset(patterns))


def plain_commands(script: str) -> list[PlainCommand] | None:
    """The commands of ``script`` when it is only plain words joined by ``&&``, ``||``, ``;``,
    ``|`` or newlines; None for anything else (a comment, a substitution or expansion, a
    redirection, a heredoc, an assignment, a subshell or group, ``&``, a parse error, a
    line longer than ``MAX_SCRIPT``). An empty script has no commands."""
    if len(script) > MAX_SCRIPT or _odd_character(script):
        return None
    source = script.encode()
    root = _parse(source)
    if root.has_error or not _only_plain_nodes(root, source):
        return None
    commands = []
    for node in _command_nodes(root):
        command = _plain_command(node)
        if command is None:
            return None
        commands.append(command)
    return commands


def shell_script(words: Sequence[str]) -> str | None:
    """The script of ``bash -lc SCRIPT`` (also ``-c``, ``sh``, ``zsh``), as Codex reads such a
    wrapper: exactly three words, the shell by its bare name. None: not such a wrapper."""
    if len(words) == 3 and words[0] in _SHELLS and words[1] in _SHELL_FLAGS:
        return words[2]
    return None


def _lenient_word(node: Node) -> str | None:
    """What a word surely is, reading escapes as sh does; None when it holds an expansion."""
    parts = node.named_children if node.type == "concatenation" else [node]
    value = []
    for part in parts:
        if part.type == "raw_string":
            value.append(_text(part)[1:-1])
        elif part.type == "ansi_c_string":  # bash's $'...'
            text = _ansi_c(_text(part))
            if text is None:
                return None
            value.append(text)
        elif part.type == "string":
            text = _double_quoted(part, strict=False)
            if text is None:
                return None
            value.append(text)
        elif part.type in ("word", "number") and not part.named_child_count:
            text = _text(part)
            if "$" in text or "`" in text:
                return None
            value.append(_unescape(text))
        else:
            return None
    return "".join(value)


def _ansi_c(raw: str) -> str | None:
    try:
        return codecs.decode(raw[2:-1], "unicode_escape")
    except UnicodeError:  # a malformed escape: not a word we can read
        return None


def _unescape(text: str) -> str:
    out = []
    chars = iter(text)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            if following != "\n":
                out.append(following)
        else:
            out.append(char)
    return "".join(out)


_SKIPPED = frozenset({"variable_assignment", "file_redirect", "heredoc_redirect",
                      "herestring_redirect", "comment"})  # fmt: skip


def literal_commands(script: str) -> list[list[str | None]]:
    """Every command anywhere in ``script`` (inside substitutions, subshells, loops, even a
    script that does not parse), as its words: a word holding an expansion is None.
    Assignments and redirections are left out. The caller bounds the length."""
    root = _parse(script.encode())
    commands = []
    for node in _command_nodes(root):
        words: list[str | None] = []
        for child in node.named_children:
            if child.type in _SKIPPED:
                continue
            if child.type == "command_name" and child.named_child_count == 1:
                child = child.named_children[0]
            words.append(_lenient_word(child))
        if words:
            commands.append(words)
    return commands
