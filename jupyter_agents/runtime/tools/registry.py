"""The tool registry: class-based tools by name, as Qwen-Agent has it.

``@register_tool("name")`` registers a ``BaseTool`` subclass in ``TOOL_REGISTRY``;
``Agent(tools=["name", {"name": "name", "setting": value}, ...])`` is resolved here into tool
instances (``resolve_tool_spec``). Classes with ``reuse_instances`` give one shared instance
per set of settings.
"""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import UserError

if TYPE_CHECKING:
    from .base_tool import BaseTool

__all__ = ["TOOL_REGISTRY", "register_tool", "resolve_tool_spec"]

T = TypeVar("T", bound="type[BaseTool]")

TOOL_REGISTRY: dict[str, type[BaseTool]] = {}
"""Registered tool classes by name."""

BUILT_IN = {
    "code_interpreter": "jupyter_agents.runtime.tools.code_interpreter",
    "retrieval": "jupyter_agents.runtime.tools.retrieval_tool",
}
"""Registered on first use: name -> the module that registers it (the notebook extension adds
its own when it loads)."""

_shared: dict[tuple[str, str], BaseTool] = {}
_lock = threading.Lock()


def register_tool(name: str, allow_overwrite: bool = False) -> Callable[[T], T]:
    """Register a ``BaseTool`` subclass under ``name`` (a class decorator)."""

    def register(cls: T) -> T:
        from .base_tool import BaseTool  # (the registry is read before any tool is made)

        if not (isinstance(cls, type) and issubclass(cls, BaseTool)):
            raise UserError(f"@register_tool({name!r}) decorates BaseTool subclasses, not {cls!r}.")
        if cls.name and cls.name != name:
            raise UserError(
                f"@register_tool({name!r}): the class is named {cls.name!r}; use one name."
            )
        known = TOOL_REGISTRY.get(name)
        if known is not None and known is not cls and not allow_overwrite:
            raise UserError(
                f"Tool {name!r} is already registered ({known.__module__}.{known.__qualname__});"
                " pass allow_overwrite=True to replace it."
            )
        cls.name = name
        TOOL_REGISTRY[name] = cls
        return cls

    return register


def _registered(name: str) -> type[BaseTool]:
    if name not in TOOL_REGISTRY and name in BUILT_IN:
        importlib.import_module(BUILT_IN[name])
    cls = TOOL_REGISTRY.get(name)
    if cls is None:
        known = ", ".join(sorted({*TOOL_REGISTRY, *BUILT_IN})) or "none"
        raise UserError(
            f"No tool named {name!r} is registered (registered: {known}). Register a class "
            "with @register_tool(name)."
        )
    return cls


def resolve_tool_spec(spec: Any) -> Any:
    """A tool for ``spec``: a registered name, or a dict with ``"name"`` and the tool's settings
    (its ``cfg``); anything else is returned as it is."""
    if isinstance(spec, str):
        name, cfg = spec, {}
    elif isinstance(spec, dict):
        if not isinstance(spec.get("name"), str):
            raise UserError(f"A tool given as a dict needs a 'name': {spec!r}.")
        name, cfg = spec["name"], {k: v for k, v in spec.items() if k != "name"}
    else:
        return spec
    cls = _registered(name)
    if not cls.reuse_instances:
        return cls(cfg)
    key = (name, json.dumps(cfg, sort_keys=True, default=repr))
    with _lock:
        tool = _shared.get(key)
        if tool is None:
            tool = _shared[key] = cls(cfg)
        return tool
