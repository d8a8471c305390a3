"""The notebook's toolbox: every ``@tool`` defined in a cell, and registered tools added with
``%agent tools add``, by name."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:  # the toolbox is made when the extension loads, before any tool
    from ..runtime.tools import FunctionTool
    from ..runtime.tools.base_tool import BaseTool

NotebookTool: TypeAlias = "FunctionTool | BaseTool"

__all__ = ["ToolEntry", "Toolbox", "schema_changes"]


@dataclass
class ToolEntry:
    """A tool and the cell that defined it."""

    tool: NotebookTool
    cell: str
    """The defining cell's id (or "In [n]" when the frontend sends no id)."""


def _params(tool: NotebookTool) -> dict[str, Any]:
    properties = tool.params_json_schema.get("properties", {})
    return properties if isinstance(properties, dict) else {}


def schema_changes(old: NotebookTool, new: NotebookTool) -> list[str]:
    """What changed between two versions of a tool, for a short note."""
    changes: list[str] = []
    before, after = _params(old), _params(new)
    changes += [f"+ {name}" for name in after if name not in before]
    changes += [f"- {name}" for name in before if name not in after]
    changes += [
        f"~ {name}"
        for name in after
        if name in before
        and json.dumps(after[name], sort_keys=True) != json.dumps(before[name], sort_keys=True)
    ]
    if old.description != new.description:
        changes.append("~ description")
    if old.needs_approval != new.needs_approval:
        changes.append("~ needs_approval")
    return changes


class Toolbox:
    """Tools defined in notebook cells. Re-running a cell replaces its tools."""

    def __init__(self, notify: Callable[[str], None] | None = None) -> None:
        self._entries: dict[str, ToolEntry] = {}
        self._notify = notify or (lambda text: None)

    def __contains__(self, name: str) -> bool:
        return name in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def tools(self) -> list[NotebookTool]:
        """The tools, sorted by name."""
        return [self._entries[name].tool for name in sorted(self._entries)]

    def entry(self, name: str) -> ToolEntry | None:
        """The entry for ``name``."""
        return self._entries.get(name)

    def add(self, tool: NotebookTool, cell: str) -> None:
        """Add ``tool`` defined in ``cell``; replaces a tool of the same name with a note."""
        old = self._entries.get(tool.name)
        self._entries[tool.name] = ToolEntry(tool, cell)
        if old is None:
            return
        if old.cell != cell:
            self._notify(
                f"tool {tool.name!r} was defined in another cell ({old.cell}); the definition "
                f"in this cell replaces it. Rename one of them (name_override=...) to keep both."
            )
            return
        changes = schema_changes(old.tool, tool)
        if changes:
            self._notify(f"tool {tool.name!r} updated: {', '.join(changes)}")

    def remove(self, name: str) -> bool:
        """Remove a tool; False if there was none of that name."""
        return self._entries.pop(name, None) is not None

    def clear(self) -> None:
        """Remove every tool."""
        self._entries.clear()

    def rows(self) -> list[dict[str, str]]:
        """One row per tool: name, description, parameters, approval, cell."""
        rows = []
        for tool in self.tools:
            params = _params(tool)
            required = set(tool.params_json_schema.get("required", []))
            shown = [
                f"{name}: {spec.get('type', 'any')}" + ("" if name in required else "?")
                for name, spec in params.items()
            ]
            approval = tool.needs_approval
            rows.append(
                {
                    "name": tool.name,
                    "description": (tool.description or "").split("\n")[0],
                    "parameters": ", ".join(shown) or "(none)",
                    "approval": "yes"
                    if approval is True
                    else "per call"
                    if callable(approval)
                    else "no",
                    "cell": self._entries[tool.name].cell,
                }
            )
        return rows
