"""The name the run finds a call's tool by (light: no imports), so that two namespaces
(``tool_namespace``) may each hold a tool of one name; a tool's own is
``ToolCapabilities.lookup_name``."""

from __future__ import annotations

from typing import Any

__all__ = ["call_lookup_name"]


def call_lookup_name(raw: Any, name: str) -> str:
    """The name a function call named ``name`` finds its tool by: ``namespace.name`` when the
    call came with a namespace, ``name`` without one or when the namespace is the tool's own
    name (a deferred-loading top-level tool's calls)."""
    namespace = raw.get("namespace") if isinstance(raw, dict) else getattr(raw, "namespace", None)
    if isinstance(namespace, str) and namespace and namespace != name:
        return f"{namespace}.{name}"
    return name
