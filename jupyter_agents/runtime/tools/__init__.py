"""Tools an agent can use.

Names are imported from their modules on first use (as ``jupyter_agents`` does), so importing
one light module of this package (``tools.display``, ``tools.background``, ``tools.listeners``)
does not import the function-tool machinery (pydantic, griffe) or every kind of tool. The
built-in kinds register themselves when the kind registry is first asked (``kinds.py``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import TypeAlias, Union

    from .base_tool import BaseTool
    from .computer.computer_tool import ComputerTool
    from .function.function_tool import (
        FunctionTool,
        ToolArgumentsError,
        ToolErrorFunction,
        default_tool_error_function,
        function_tool,
        tool,
    )
    from .hosted import (
        CodeInterpreterTool,
        FileSearchTool,
        HostedMCPTool,
        HostedTool,
        ImageGenerationTool,
        ImageGenerationToolConfig,
        MCPToolApprovalFunction,
        MCPToolApprovalFunctionResult,
        MCPToolApprovalRequest,
        ProgrammaticToolCallingTool,
        ToolSearchTool,
        WebSearchTool,
        WebSearchToolImageSettings,
    )
    from .namespace import tool_namespace
    from .outputs import (
        ToolOutputFileContent,
        ToolOutputFileContentDict,
        ToolOutputImage,
        ToolOutputImageDict,
        ToolOutputText,
        ToolOutputTextDict,
        to_model_output,
    )
    from .patch.apply_patch import ApplyPatchTool
    from .plan import PlanTool
    from .shell.shell_tool import ShellTool

    Tool: TypeAlias = Union[
        FunctionTool, HostedTool, ShellTool, ApplyPatchTool, ComputerTool, BaseTool, PlanTool
    ]
    """Any tool an agent can carry: every registered kind's tool classes (``LocalShellTool``
    is a ``ShellTool``; MCP tools are function tools)."""

__all__ = [
    "CodeInterpreterTool",
    "FileSearchTool",
    "FunctionTool",
    "HostedMCPTool",
    "HostedTool",
    "ImageGenerationTool",
    "ImageGenerationToolConfig",
    "MCPToolApprovalFunction",
    "MCPToolApprovalFunctionResult",
    "MCPToolApprovalRequest",
    "ProgrammaticToolCallingTool",
    "Tool",
    "ToolArgumentsError",
    "ToolErrorFunction",
    "ToolOutputFileContent",
    "ToolOutputFileContentDict",
    "ToolOutputImage",
    "ToolOutputImageDict",
    "ToolOutputText",
    "ToolOutputTextDict",
    "ToolSearchTool",
    "WebSearchTool",
    "WebSearchToolImageSettings",
    "default_tool_error_function",
    "function_tool",
    "to_model_output",
    "tool",
    "tool_namespace",
]

_MODULES = {
    "function.function_tool": (
        "FunctionTool",
        "ToolArgumentsError",
        "ToolErrorFunction",
        "default_tool_error_function",
        "function_tool",
        "tool",
    ),
    "hosted": (
        "CodeInterpreterTool",
        "FileSearchTool",
        "HostedMCPTool",
        "HostedTool",
        "ImageGenerationTool",
        "ImageGenerationToolConfig",
        "MCPToolApprovalFunction",
        "MCPToolApprovalFunctionResult",
        "MCPToolApprovalRequest",
        "ProgrammaticToolCallingTool",
        "ToolSearchTool",
        "WebSearchTool",
        "WebSearchToolImageSettings",
    ),
    "namespace": ("tool_namespace",),
    "outputs": (
        "ToolOutputFileContent",
        "ToolOutputFileContentDict",
        "ToolOutputImage",
        "ToolOutputImageDict",
        "ToolOutputText",
        "ToolOutputTextDict",
        "to_model_output",
    ),
}
_HOME = {name: module for module, names in _MODULES.items() for name in names}
"""Each lazily imported name -> the module of this package that defines it."""


def _tool_union() -> Any:
    """``Tool``: the union of every built-in kind's tool classes (imports them all)."""
    from typing import Union

    from .base_tool import BaseTool
    from .computer.computer_tool import ComputerTool
    from .function.function_tool import FunctionTool
    from .hosted import HostedTool
    from .patch.apply_patch import ApplyPatchTool
    from .plan import PlanTool
    from .shell.shell_tool import ShellTool

    return Union[
        FunctionTool, HostedTool, ShellTool, ApplyPatchTool, ComputerTool, BaseTool, PlanTool
    ]


def __getattr__(name: str) -> Any:
    if name == "Tool":
        value = _tool_union()
    elif name in _HOME:
        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    else:  # a submodule not imported yet: ``from .tools import shell`` imports it then
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
