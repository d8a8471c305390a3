"""The settings keys (``settings.py`` layers them): what each holds, and which of two values is
the stricter, so that a lock can be a floor ("at least as strict as") rather than a fixed value.

Kinds: ``order`` (named values, the strictest first), ``off`` (a switch whose ``False`` is the
stricter), ``amount`` (dollars; smaller is stricter; None is no limit), ``names`` (a list of
allowed names or ``fnmatch`` patterns; a shorter list is stricter; None allows everything),
``denied`` (a list of refused names; a longer list is stricter) and ``free`` (a name or switch
with no "stricter": a lock fixes it).
"""

from __future__ import annotations

import dataclasses
import fnmatch
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

__all__ = ["DEFAULTS", "KEYS", "Key", "allowed_by", "is_looser", "parse_value", "stricter_of"]

Kind = Literal["order", "off", "amount", "names", "denied", "free"]


@dataclasses.dataclass(frozen=True)
class Key:
    """One setting: its name, kind, values (``order``: the strictest first) and what it is."""

    name: str
    kind: Kind
    about: str
    values: tuple[str, ...] = ()


KEYS: dict[str, Key] = {
    k.name: k
    for k in [
        Key(
            "approval_policy",
            "order",
            "when commands ask before they run (%agent policy)",
            ("untrusted", "on-request", "on-failure", "never"),
        ),
        Key(
            "sandbox_mode",
            "order",
            "what commands may write (%agent policy)",
            ("read-only", "workspace-write", "danger-full-access"),
        ),
        Key("network_access", "off", "whether sandboxed commands reach the network"),
        Key(
            "approve", "order", "who answers approvals (%%agent --approve)", ("deny", "ask", "auto")
        ),
        Key("mode", "order", "what runs may do (%agent mode)", ("ask", "plan", "agent")),
        Key("budget_per_cell", "amount", "dollars one cell may spend (%agent budget)"),
        Key("budget_per_notebook", "amount", "dollars the notebook may spend (%agent budget)"),
        Key("allowed_models", "names", "the models runs may use (names or patterns)"),
        Key("allowed_mcp_commands", "names", "the programs %agent mcp add may start"),
        Key(
            "web_allowed_domains",
            "names",
            "the only hosts web_fetch may read (and their subdomains)",
        ),
        Key("web_denied_domains", "denied", "hosts web_fetch never reads"),
        Key("show_variables", "off", "whether the model may see the notebook's variables"),
        Key("show_outputs", "off", "whether the model may see cells' outputs"),
        Key("model", "free", "the notebook agent's model (%agent model)"),
        Key("context", "free", "whether AGENTS.md files join the instructions (%agent context)"),
    ]
}
"""Every key, in the order ``%agent config`` lists them."""


DEFAULTS: dict[str, Any] = {
    "approval_policy": "untrusted",
    "sandbox_mode": "workspace-write",
    "network_access": False,
    "approve": "ask",
    "mode": "agent",
    "budget_per_cell": None,
    "budget_per_notebook": None,
    "allowed_models": None,
    "allowed_mcp_commands": None,
    "web_allowed_domains": None,
    "web_denied_domains": None,
    "show_variables": True,
    "show_outputs": True,
    "context": True,
}
"""What a key is when no layer sets it (``model``: the provider's default, not listed)."""


def parse_value(key: Key, raw: Any) -> Any:
    """``raw`` (from a JSON file, or a magic's word) as ``key``'s value.

    Raises:
        ValueError: It is not one (the message says what is).
    """
    if key.kind == "order":
        if raw not in key.values:
            raise ValueError(f"one of {', '.join(key.values)}")
        return raw
    if key.kind in ("off", "free") and key.name != "model":
        if isinstance(raw, bool):
            return raw
        if raw in ("true", "on", "yes"):
            return True
        if raw in ("false", "off", "no"):
            return False
        raise ValueError("true or false")
    if key.kind == "amount":
        if raw is None or raw == "off":
            return None
        try:
            amount = Decimal(str(raw))
        except InvalidOperation:
            raise ValueError("an amount in dollars, such as 0.50, or off") from None
        if isinstance(raw, bool) or not amount.is_finite() or amount <= 0:
            raise ValueError("an amount in dollars above 0, or off")
        return amount
    if key.kind in ("names", "denied"):
        if raw is None:
            return None
        items = raw.split(",") if isinstance(raw, str) else raw
        if not isinstance(items, list) or not all(isinstance(i, str) and i.strip() for i in items):
            raise ValueError("a list of names (or patterns such as gpt-4o*)")
        return tuple(i.strip() for i in items)
    if not isinstance(raw, str) or not raw.strip() or len(raw) > 200:
        raise ValueError("a model name")
    return raw.strip()


def is_looser(key: Key, value: Any, than: Any) -> bool:
    """Whether ``value`` allows more than ``than`` (``free`` keys: whether they differ)."""
    if key.kind == "order":
        return bool(key.values.index(value) > key.values.index(than))
    if key.kind == "off":
        return bool(value) and not than
    if key.kind == "amount":
        return than is not None and (value is None or value > than)
    if key.kind == "names":
        return than is not None and (value is None or not set(value) <= set(than))
    if key.kind == "denied":
        return than is not None and not set(than) <= set(value or ())
    return bool(value != than)


def stricter_of(key: Key, first: Any, second: Any) -> Any:
    """The stricter of two values (``names``: what both allow; ``free``: ``second``)."""
    if key.kind == "names" and first is not None and second is not None:
        return tuple(n for n in second if n in first)
    if key.kind == "denied" and (first is not None or second is not None):
        return tuple(dict.fromkeys([*(first or ()), *(second or ())]))
    return first if is_looser(key, second, first) else second


def allowed_by(patterns: tuple[str, ...] | None, name: str) -> bool:
    """Whether ``name`` is one of ``patterns`` (``fnmatch``; None allows every name)."""
    return patterns is None or any(fnmatch.fnmatchcase(name, p) for p in patterns)
