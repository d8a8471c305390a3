"""Tools, at the path the OpenAI Agents SDK uses (``agents.tool``): the names its module
offers, where this project has them (the same objects as ``jupyter_agents``'s)."""

from __future__ import annotations

from .runtime.agent import FunctionToolResult
from .runtime.tools import (
    CodeInterpreterTool,
    FileSearchTool,
    FunctionTool,
    HostedMCPTool,
    ImageGenerationTool,
    ImageGenerationToolConfig,
    MCPToolApprovalFunction,
    MCPToolApprovalRequest,
    ProgrammaticToolCallingTool,
    Tool,
    ToolOutputFileContent,
    ToolOutputFileContentDict,
    ToolOutputImage,
    ToolOutputImageDict,
    ToolOutputText,
    ToolOutputTextDict,
    ToolSearchTool,
    WebSearchTool,
    WebSearchToolImageSettings,
    default_tool_error_function,
    function_tool,
    tool_namespace,
)
from .runtime.tools.computer.computer_tool import ComputerTool
from .runtime.tools.patch.apply_patch import ApplyPatchTool
from .runtime.tools.shell.shell_io import (
    ShellActionRequest,
    ShellCallData,
    ShellCallOutcome,
    ShellCommandOutput,
    ShellCommandRequest,
    ShellResult,
)
from .runtime.tools.shell.shell_offer import (
    ShellOnApprovalFunctionResult,
    ShellToolEnvironment,
    ShellToolLocalEnvironment,
    ShellToolLocalSkill,
)
from .runtime.tools.shell.shell_tool import LocalShellTool, ShellTool

__all__ = [
    "ApplyPatchTool",
    "CodeInterpreterTool",
    "ComputerTool",
    "FileSearchTool",
    "FunctionTool",
    "FunctionToolResult",
    "HostedMCPTool",
    "ImageGenerationTool",
    "ImageGenerationToolConfig",
    "LocalShellTool",
    "MCPToolApprovalFunction",
    "MCPToolApprovalRequest",
    "ProgrammaticToolCallingTool",
    "ShellActionRequest",
    "ShellCallData",
    "ShellCallOutcome",
    "ShellCommandOutput",
    "ShellCommandRequest",
    "ShellOnApprovalFunctionResult",
    "ShellResult",
    "ShellTool",
    "ShellToolEnvironment",
    "ShellToolLocalEnvironment",
    "ShellToolLocalSkill",
    "Tool",
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
    "tool_namespace",
]
