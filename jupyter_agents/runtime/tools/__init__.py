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

# The built-in local tool kinds register themselves on import: import them here, so a run, a
# saved state or a notebook view knows their call items even before anyone imports the tools.
from . import apply_patch as _apply_patch  # noqa: E402, F401
from . import base_tool as _base_tool  # noqa: E402, F401
from . import computer as _computer  # noqa: E402, F401
from . import shell as _shell  # noqa: E402, F401
