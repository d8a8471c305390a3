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
    "Tool",
    "ToolArgumentsError",
    "ToolErrorFunction",
    "ToolOutputFileContent",
    "ToolOutputFileContentDict",
    "ToolOutputImage",
    "ToolOutputImageDict",
    "ToolOutputText",
    "ToolOutputTextDict",
    "WebSearchTool",
    "default_tool_error_function",
    "function_tool",
    "to_model_output",
    "tool",
]

Tool: TypeAlias = Union[FunctionTool, HostedTool]
"""Any tool an agent can carry."""
