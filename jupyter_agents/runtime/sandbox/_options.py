"""Reading a program's arguments the way GNU ``getopt_long`` does, for the known-safe rules.

GNU programs accept any unambiguous prefix of a long option (``sort --out=F`` is
``--output=F``), clusters of short options (``sed -Ei``), an option's value attached to it
(``-oFILE``, ``--output=FILE``) and ``--`` (everything after it is an operand). A rule bans
options by name; ``operands`` returns None when an argument could be a banned option
under any of those spellings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["OptionRules", "operands"]


@dataclass(frozen=True)
class OptionRules:
    """Which options make a read-only program unsafe, and how it reads its arguments."""

    banned_short: str = ""
    """Short option letters that are banned, alone or anywhere in a cluster."""
    banned_long: frozenset[str] = frozenset()
    """Long option names (without ``--``) that are banned, and every abbreviation of them."""
    short_values: str = ""
    """Short options that take a value (the rest of the cluster, else the next argument)."""
    long_values: frozenset[str] = frozenset()
    """Long options that take a value (``--name=VALUE`` or ``--name VALUE``)."""


def _banned_long(name: str, rules: OptionRules) -> bool:
    """Whether ``--name`` may mean a banned option: it is one, or a prefix of one (getopt
    resolves an unambiguous prefix to it; an ambiguous one is an error, refused as well)."""
    return any(banned.startswith(name) for banned in rules.banned_long)


def operands(args: Sequence[str], rules: OptionRules) -> list[str] | None:
    """The operands in ``args`` (options may come anywhere, as GNU permutes them); None when
    an argument is or may be a banned option."""
    found: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            found.extend(args[index:])
            break
        if arg.startswith("--"):
            name, has_value, _ = arg[2:].partition("=")
            if _banned_long(name, rules):
                return None
            if name in rules.long_values and not has_value:
                index += 1  # getopt takes the next argument as the value, whatever it is
        elif arg.startswith("-") and arg != "-":
            if any(letter in rules.banned_short for letter in arg[1:]):
                return None  # also when the letter is in an attached value: erring on "no"
            index += _value_follows(arg, rules)
        else:
            found.append(arg)
    return found


def _value_follows(cluster: str, rules: OptionRules) -> int:
    """1 when the last option of ``cluster`` takes the next argument as its value."""
    for position, letter in enumerate(cluster[1:], start=1):
        if letter in rules.short_values:
            return 1 if position == len(cluster) - 1 else 0
    return 0
