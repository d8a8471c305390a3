"""Tools an agent can use."""

from __future__ import annotations

from typing import TypeAlias, Union

from .function import (
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
    MCPToolApprovalFunction,
    MCPToolApprovalFunctionResult,
    MCPToolApprovalRequest,
    ProgrammaticToolCallingTool,
    ToolSearchTool,
    WebSearchTool,
)
from .outputs import (
    ToolOutputFileContent,
    ToolOutputFileContentDict,
    ToolOutputImage,
    ToolOutputImageDict,
    ToolOutputText,
    ToolOutputTextDict,
    to_model_output,
)

__all__ = [
    "CodeInterpreterTool",
    "FileSearchTool",
    "FunctionTool",
    "HostedMCPTool",
    "HostedTool",
    "ImageGenerationTool",
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
    "default_tool_error_function",
    "function_tool",
    "to_model_output",
    "tool",
]

# The built-in local tool kinds register themselves on import: import them here, so a run, a
# saved state or a notebook view knows their call items even before anyone imports the tools.
from . import apply_patch as _apply_patch
from . import base_tool as _base_tool
from . import computer as _computer
from . import plan as _plan
from . import shell as _shell

Tool: TypeAlias = Union[
    FunctionTool,
    HostedTool,
    _shell.ShellTool,
    _apply_patch.ApplyPatchTool,
    _computer.ComputerTool,
    _base_tool.BaseTool,
    _plan.PlanTool,
]
"""Any tool an agent can carry: every registered kind's tool classes (``LocalShellTool`` is a
``ShellTool``; MCP tools are function tools)."""
