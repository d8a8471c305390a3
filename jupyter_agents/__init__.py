"""jupyter_agents: the agent runtime that lives inside Jupyter.

Public names are imported lazily on first use, so ``import jupyter_agents`` stays fast and loads
neither the ``openai`` package nor IPython.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._exports import EXPORTS
from ._version import __version__

if TYPE_CHECKING:
    from .runtime.agent import (
        Agent,
        FunctionToolResult,
        StopAtTools,
        ToolsToFinalOutputFunction,
        ToolsToFinalOutputResult,
    )
    from .runtime.agent_base import AgentBase
    from .runtime.agent_output import AgentOutputSchema, AgentOutputSchemaBase
    from .runtime.agent_tool import AgentToolStreamEvent
    from .runtime.approvals import (
        ApprovalDecision,
        ApprovalHandler,
        ApprovalInbox,
        ApprovalRequest,
        OnLoop,
    )
    from .runtime.batch import (
        BatchControl,
        BatchProgress,
        BatchResult,
        CostProjection,
        RowResult,
        TextProgress,
        arun_batch,
        release_ray_actors,
        run_batch,
        warm_ray_actors,
    )
    from .runtime.compaction import Compacted, Compaction
    from .runtime.context import AgentHookContext, RunContextWrapper, TContext, ToolContext
    from .runtime.cost import ModelCost, RunCost
    from .runtime.errors import (
        AgentsException,
        BudgetExceeded,
        InputGuardrailTripwireTriggered,
        MaxTurnsExceeded,
        MCPToolCancellationError,
        ModelBehaviorError,
        ModelRefusalError,
        ModelTimeoutError,
        OutputGuardrailTripwireTriggered,
        ToolInputGuardrailTripwireTriggered,
        ToolOutputGuardrailTripwireTriggered,
        ToolTimeoutError,
        UserError,
    )
    from .runtime.events import (
        AgentUpdatedStreamEvent,
        ContextCompactedStreamEvent,
        RawResponsesStreamEvent,
        RunItemStreamEvent,
        StreamEvent,
    )
    from .runtime.guardrails import (
        GuardrailFunctionOutput,
        InputGuardrail,
        InputGuardrailResult,
        OutputGuardrail,
        OutputGuardrailResult,
        input_guardrail,
        output_guardrail,
    )
    from .runtime.handoff_history import (
        HandoffHistoryMapper,
        default_handoff_history_mapper,
        get_conversation_history_wrappers,
        nest_handoff_history,
        reset_conversation_history_wrappers,
        set_conversation_history_wrappers,
    )
    from .runtime.handoff_prompt import RECOMMENDED_PROMPT_PREFIX, prompt_with_handoff_instructions
    from .runtime.handoffs import (
        Handoff,
        HandoffInputData,
        HandoffInputFilter,
        handoff,
        handoff_filters,
    )
    from .runtime.items import (
        HandoffCallItem,
        HandoffOutputItem,
        ItemHelpers,
        MCPApprovalRequestItem,
        MCPApprovalResponseItem,
        MCPListToolsItem,
        MessageOutputItem,
        ModelResponse,
        ReasoningItem,
        RunItem,
        ToolApprovalItem,
        ToolCallItem,
        ToolCallOutputItem,
        ToolError,
        ToolSearchCallItem,
        ToolSearchOutputItem,
        ToolStatus,
        TResponseInputItem,
    )
    from .runtime.lifecycle import AgentHooks, RunHooks
    from .runtime.logs import enable_verbose_stdout_logging
    from .runtime.model_settings import ModelSettings, ModelTimeout
    from .runtime.models.defaults import (
        get_default_model,
        get_default_model_settings,
        gpt_5_reasoning_settings_required,
        is_gpt_5_default,
    )
    from .runtime.models.interface import (
        Model,
        ModelProvider,
        ModelRequest,
        ModelTracing,
        RequestModel,
    )
    from .runtime.models.multi_provider import MultiProvider, MultiProviderMap
    from .runtime.models.openai_chat import OpenAIChatCompletionsModel
    from .runtime.models.openai_responses import OpenAIResponsesModel
    from .runtime.models.provider import (
        OpenAIProvider,
        set_default_openai_api,
        set_default_openai_client,
        set_default_openai_key,
        set_default_openai_responses_transport,
    )
    from .runtime.project.agent_files import (
        AgentFile,
        AgentFileError,
        find_agent_file,
        load_agent_file,
    )
    from .runtime.project.agents_md import ProjectInstructions, project_instructions
    from .runtime.prompts import DynamicPromptFunction, GenerateDynamicPromptData, Prompt
    from .runtime.questions import Question, ask_user
    from .runtime.repl import run_demo_loop
    from .runtime.replay import Cassette, ReplayMismatch
    from .runtime.result import RunErrorDetails, RunResult, RunResultBase, RunResultStreaming
    from .runtime.retrieval import DocumentLimits, DocumentStore
    from .runtime.retry import (
        ModelRetryAdvice,
        ModelRetryAdviceRequest,
        ModelRetryBackoffSettings,
        ModelRetryNormalizedError,
        ModelRetryPolicy,
        ModelRetrySettings,
        RetryDecision,
        RetryPolicy,
        RetryPolicyContext,
        retry_policies,
    )
    from .runtime.run import DEFAULT_MAX_TURNS, AgentRunner, Runner, RunOptions
    from .runtime.run_config import (
        DEFAULT_TOOL_TIMEOUT,
        CallModelData,
        ModelInputData,
        RunConfig,
        ToolErrorFormatter,
        ToolErrorFormatterArgs,
        ToolNotFoundBehavior,
    )
    from .runtime.run_error_handlers import (
        RunErrorData,
        RunErrorHandler,
        RunErrorHandlerInput,
        RunErrorHandlerResult,
        RunErrorHandlers,
    )
    from .runtime.run_state import RunState
    from .runtime.sessions import (
        AdvancedSQLiteSession,
        InMemorySession,
        Session,
        SessionABC,
        SessionSettings,
        SQLiteSession,
    )
    from .runtime.skills import Skill, Skills
    from .runtime.tool_guardrails import (
        ToolGuardrailFunctionOutput,
        ToolInputGuardrail,
        ToolInputGuardrailData,
        ToolInputGuardrailResult,
        ToolOutputGuardrail,
        ToolOutputGuardrailData,
        ToolOutputGuardrailResult,
        tool_input_guardrail,
        tool_output_guardrail,
    )
    from .runtime.tools import (
        CodeInterpreterTool,
        FileSearchTool,
        FunctionTool,
        HostedMCPTool,
        HostedTool,
        ImageGenerationTool,
        ImageGenerationToolConfig,
        MCPToolApprovalFunction,
        MCPToolApprovalFunctionResult,
        MCPToolApprovalRequest,
        ProgrammaticToolCallingTool,
        Tool,
        ToolArgumentsError,
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
        tool,
        tool_namespace,
    )
    from .runtime.tools.ask_user import AskUserTool
    from .runtime.tools.base_tool import BaseTool, ContentItem
    from .runtime.tools.code_interpreter import KernelCodeInterpreter
    from .runtime.tools.computer.browser_computer import BrowserComputer
    from .runtime.tools.computer.computer_tool import (
        AsyncComputer,
        Computer,
        ComputerTool,
        ComputerToolSafetyCheckData,
    )
    from .runtime.tools.function.tool_cache import ToolCache
    from .runtime.tools.kinds import (
        DisplayPart,
        ParsedCall,
        ToolDisplay,
        ToolKind,
        describe_call,
        register_tool_kind,
    )
    from .runtime.tools.patch.apply_patch import (
        ApplyPatchEditor,
        ApplyPatchOperation,
        ApplyPatchResult,
        ApplyPatchTool,
        apply_diff,
    )
    from .runtime.tools.patch.workspace import WorkspaceEditor
    from .runtime.tools.plan import Plan, PlanStep, PlanTool, latest_plan
    from .runtime.tools.registry import TOOL_REGISTRY, register_tool
    from .runtime.tools.shell.shell_io import ShellActionRequest, ShellCallData, ShellCallOutcome
    from .runtime.tools.shell.shell_offer import (
        ShellOnApprovalFunctionResult,
        ShellToolEnvironment,
        ShellToolLocalEnvironment,
        ShellToolLocalSkill,
        local_shell_skills,
    )
    from .runtime.tools.shell.shell_tool import (
        LocalShellTool,
        ShellCommandOutput,
        ShellCommandRequest,
        ShellResult,
        ShellTool,
    )
    from .runtime.tools.skills_tool import skills_tool
    from .runtime.tools.view_image import view_image_tool
    from .runtime.tools.web import (
        BraveSearch,
        OpenAICompatibleSearch,
        SearchProvider,
        SearchRequest,
        SearchResult,
        SearxngSearch,
        TavilySearch,
        web_fetch_tool,
        web_search_tool,
    )
    from .runtime.tracing import (
        AgentSpanData,
        BatchTraceProcessor,
        CustomSpanData,
        FunctionSpanData,
        GenerationSpanData,
        GuardrailSpanData,
        HandoffSpanData,
        JSONLinesExporter,
        OpenTelemetryExporter,
        Span,
        SpanData,
        SpanError,
        TaskSpanData,
        Trace,
        TracingExporter,
        TracingProcessor,
        TurnSpanData,
        add_trace_processor,
        agent_span,
        custom_span,
        flush_traces,
        function_span,
        gen_span_id,
        gen_trace_id,
        generation_span,
        get_current_span,
        get_current_trace,
        get_trace_processors,
        guardrail_span,
        handoff_span,
        set_trace_processors,
        set_trace_provider,
        set_tracing_disabled,
        set_tracing_export_api_key,
        task_span,
        trace,
        turn_span,
    )
    from .runtime.usage import RequestUsage, Usage


# Written out (not computed from ``EXPORTS``) so type checkers see what is exported;
# tests/runtime/test_import.py checks it is exactly the lazy exports and the entry points.
__all__ = [
    "DEFAULT_MAX_TURNS",
    "DEFAULT_TOOL_TIMEOUT",
    "RECOMMENDED_PROMPT_PREFIX",
    "TOOL_REGISTRY",
    "AdvancedSQLiteSession",
    "Agent",
    "AgentBase",
    "AgentFile",
    "AgentFileError",
    "AgentHookContext",
    "AgentHooks",
    "AgentOutputSchema",
    "AgentOutputSchemaBase",
    "AgentRunner",
    "AgentSpanData",
    "AgentToolStreamEvent",
    "AgentUpdatedStreamEvent",
    "AgentsException",
    "ApplyPatchEditor",
    "ApplyPatchOperation",
    "ApplyPatchResult",
    "ApplyPatchTool",
    "ApprovalDecision",
    "ApprovalHandler",
    "ApprovalInbox",
    "ApprovalRequest",
    "AskUserTool",
    "AsyncComputer",
    "BaseTool",
    "BatchControl",
    "BatchProgress",
    "BatchResult",
    "BatchTraceProcessor",
    "BraveSearch",
    "BrowserComputer",
    "BudgetExceeded",
    "CallModelData",
    "Cassette",
    "CodeInterpreterTool",
    "Compacted",
    "Compaction",
    "Computer",
    "ComputerTool",
    "ComputerToolSafetyCheckData",
    "ContentItem",
    "ContextCompactedStreamEvent",
    "CostProjection",
    "CustomSpanData",
    "DisplayPart",
    "DocumentLimits",
    "DocumentStore",
    "DynamicPromptFunction",
    "FileSearchTool",
    "FunctionSpanData",
    "FunctionTool",
    "FunctionToolResult",
    "GenerateDynamicPromptData",
    "GenerationSpanData",
    "GuardrailFunctionOutput",
    "GuardrailSpanData",
    "Handoff",
    "HandoffCallItem",
    "HandoffHistoryMapper",
    "HandoffInputData",
    "HandoffInputFilter",
    "HandoffOutputItem",
    "HandoffSpanData",
    "HostedMCPTool",
    "HostedTool",
    "ImageGenerationTool",
    "ImageGenerationToolConfig",
    "InMemorySession",
    "InputGuardrail",
    "InputGuardrailResult",
    "InputGuardrailTripwireTriggered",
    "ItemHelpers",
    "JSONLinesExporter",
    "KernelCodeInterpreter",
    "LocalShellTool",
    "MCPApprovalRequestItem",
    "MCPApprovalResponseItem",
    "MCPListToolsItem",
    "MCPToolApprovalFunction",
    "MCPToolApprovalFunctionResult",
    "MCPToolApprovalRequest",
    "MCPToolCancellationError",
    "MaxTurnsExceeded",
    "MessageOutputItem",
    "Model",
    "ModelBehaviorError",
    "ModelCost",
    "ModelInputData",
    "ModelProvider",
    "ModelRefusalError",
    "ModelRequest",
    "ModelResponse",
    "ModelRetryAdvice",
    "ModelRetryAdviceRequest",
    "ModelRetryBackoffSettings",
    "ModelRetryNormalizedError",
    "ModelRetryPolicy",
    "ModelRetrySettings",
    "ModelSettings",
    "ModelTimeout",
    "ModelTimeoutError",
    "ModelTracing",
    "MultiProvider",
    "MultiProviderMap",
    "OnLoop",
    "OpenAIChatCompletionsModel",
    "OpenAICompatibleSearch",
    "OpenAIProvider",
    "OpenAIResponsesModel",
    "OpenTelemetryExporter",
    "OutputGuardrail",
    "OutputGuardrailResult",
    "OutputGuardrailTripwireTriggered",
    "ParsedCall",
    "Plan",
    "PlanStep",
    "PlanTool",
    "ProgrammaticToolCallingTool",
    "ProjectInstructions",
    "Prompt",
    "Question",
    "RawResponsesStreamEvent",
    "ReasoningItem",
    "ReplayMismatch",
    "RequestModel",
    "RequestUsage",
    "RetryDecision",
    "RetryPolicy",
    "RetryPolicyContext",
    "RowResult",
    "RunConfig",
    "RunContextWrapper",
    "RunCost",
    "RunErrorData",
    "RunErrorDetails",
    "RunErrorHandler",
    "RunErrorHandlerInput",
    "RunErrorHandlerResult",
    "RunErrorHandlers",
    "RunHooks",
    "RunItem",
    "RunItemStreamEvent",
    "RunOptions",
    "RunResult",
    "RunResultBase",
    "RunResultStreaming",
    "RunState",
    "Runner",
    "SQLiteSession",
    "SearchProvider",
    "SearchRequest",
    "SearchResult",
    "SearxngSearch",
    "Session",
    "SessionABC",
    "SessionSettings",
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
    "Skill",
    "Skills",
    "Span",
    "SpanData",
    "SpanError",
    "StopAtTools",
    "StreamEvent",
    "TContext",
    "TResponseInputItem",
    "TaskSpanData",
    "TavilySearch",
    "TextProgress",
    "Tool",
    "ToolApprovalItem",
    "ToolArgumentsError",
    "ToolCache",
    "ToolCallItem",
    "ToolCallOutputItem",
    "ToolContext",
    "ToolDisplay",
    "ToolError",
    "ToolErrorFormatter",
    "ToolErrorFormatterArgs",
    "ToolGuardrailFunctionOutput",
    "ToolInputGuardrail",
    "ToolInputGuardrailData",
    "ToolInputGuardrailResult",
    "ToolInputGuardrailTripwireTriggered",
    "ToolKind",
    "ToolNotFoundBehavior",
    "ToolOutputFileContent",
    "ToolOutputFileContentDict",
    "ToolOutputGuardrail",
    "ToolOutputGuardrailData",
    "ToolOutputGuardrailResult",
    "ToolOutputGuardrailTripwireTriggered",
    "ToolOutputImage",
    "ToolOutputImageDict",
    "ToolOutputText",
    "ToolOutputTextDict",
    "ToolSearchCallItem",
    "ToolSearchOutputItem",
    "ToolSearchTool",
    "ToolStatus",
    "ToolTimeoutError",
    "ToolsToFinalOutputFunction",
    "ToolsToFinalOutputResult",
    "Trace",
    "TracingExporter",
    "TracingProcessor",
    "TurnSpanData",
    "Usage",
    "UserError",
    "WebSearchTool",
    "WebSearchToolImageSettings",
    "WorkspaceEditor",
    "__version__",
    "add_trace_processor",
    "agent_span",
    "apply_diff",
    "arun_batch",
    "ask_user",
    "custom_span",
    "default_handoff_history_mapper",
    "default_tool_error_function",
    "describe_call",
    "enable_verbose_stdout_logging",
    "find_agent_file",
    "flush_traces",
    "function_span",
    "function_tool",
    "gen_span_id",
    "gen_trace_id",
    "generation_span",
    "get_conversation_history_wrappers",
    "get_current_span",
    "get_current_trace",
    "get_default_model",
    "get_default_model_settings",
    "get_trace_processors",
    "gpt_5_reasoning_settings_required",
    "guardrail_span",
    "handoff",
    "handoff_filters",
    "handoff_span",
    "input_guardrail",
    "is_gpt_5_default",
    "last_result",
    "latest_plan",
    "load_agent_file",
    "load_ipython_extension",
    "local_shell_skills",
    "nest_handoff_history",
    "output_guardrail",
    "project_instructions",
    "prompt_with_handoff_instructions",
    "register_tool",
    "register_tool_kind",
    "release_ray_actors",
    "reset_conversation_history_wrappers",
    "retry_policies",
    "run_batch",
    "run_demo_loop",
    "set_conversation_history_wrappers",
    "set_default_openai_api",
    "set_default_openai_client",
    "set_default_openai_key",
    "set_default_openai_responses_transport",
    "set_trace_processors",
    "set_trace_provider",
    "set_tracing_disabled",
    "set_tracing_export_api_key",
    "skills_tool",
    "task_span",
    "tool",
    "tool_input_guardrail",
    "tool_namespace",
    "tool_output_guardrail",
    "trace",
    "turn_span",
    "unload_ipython_extension",
    "view_image_tool",
    "warm_ray_actors",
    "web_fetch_tool",
    "web_search_tool",
]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext jupyter_agents``: the ``%%agent`` and ``%agent`` magics, the toolbox."""
    from .notebook.extension import load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext jupyter_agents``."""
    from .notebook.extension import unload

    unload(ipython)


def last_result() -> Any:
    """The result of the last ``%%agent`` cell that finished (None before the first)."""
    from .notebook.host import current_host

    host = current_host()
    return host.last_result if host is not None else None


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where the prebuilt JupyterLab extension is (``jupyter labextension develop .``)."""
    return [{"src": "labextension", "dest": "jupyter-agents"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """The Jupyter server extension (``"jpserver_extensions": {"jupyter_agents": true}``, which
    installing writes): ``GET /jupyter-agents/locks``, the site's locks for the lab."""
    return [{"module": "jupyter_agents.server_extension"}]


def __getattr__(name: str) -> Any:
    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'jupyter_agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
