"""``RunConfig``: settings for a whole run, overriding the agents' own."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias, Union

from .approvals import ApprovalHandler
from .context import RunContextWrapper, TContext
from .errors import UserError
from .guardrails import InputGuardrail, OutputGuardrail
from .handoffs import HandoffInputFilter
from .model_settings import ModelSettings
from .models.interface import Model, ModelProvider
from .retry import ModelRetryPolicy
from .sandbox.bwrap import SandboxMode
from .sandbox.policy import ApprovalPolicy, check_policy_names
from .sessions.settings import SessionSettings, coerce_session_settings
from .tracing.config import TracingConfig

if TYPE_CHECKING:
    from .agent import Agent
    from .compaction import Compaction
    from .durable import JournalRun
    from .items import TResponseInputItem
    from .modes import Mode
    from .replay import Cassette

__all__ = [
    "DEFAULT_TOOL_TIMEOUT",
    "CallModelData",
    "ModelInputData",
    "RunConfig",
    "SessionInputCallback",
    "ToolErrorFormatter",
    "ToolErrorFormatterArgs",
    "ToolNameCollisionPolicy",
    "ToolNotFoundBehavior",
]

DEFAULT_TOOL_TIMEOUT = 600.0
"""Seconds a function tool call may take unless the tool or ``RunConfig.tool_timeout`` says."""


@dataclass
class ModelInputData:
    """What is about to be sent to the model."""

    input: list[TResponseInputItem]
    """The input items (a copy: change it freely)."""

    instructions: str | None
    """The system prompt."""


@dataclass
class CallModelData:
    """What ``RunConfig.call_model_input_filter`` receives."""

    model_data: ModelInputData
    agent: Agent[Any]
    context: Any
    """The user's context object."""


CallModelInputFilter: TypeAlias = Callable[
    [CallModelData], Union[ModelInputData, Awaitable[ModelInputData]]
]
SessionInputCallback: TypeAlias = Callable[
    [list["TResponseInputItem"], list["TResponseInputItem"]],
    Union[list["TResponseInputItem"], Awaitable[list["TResponseInputItem"]]],
]
"""``(history, new_input) -> input`` (sync or async): how session history and new input merge."""


ToolNotFoundBehavior: TypeAlias = Literal["raise_error", "return_error_to_model"]
ToolNameCollisionPolicy: TypeAlias = Literal["warn", "error"]
"""What a call to a tool the agent does not offer does (``RunConfig.tool_not_found_behavior``)."""


@dataclass
class ToolErrorFormatterArgs(Generic[TContext]):
    """What ``RunConfig.tool_error_formatter`` receives."""

    kind: Literal["approval_rejected", "tool_not_found", "mode_refused"]
    """Which error the model is about to be told of."""

    tool_type: str
    """The tool kind's name, e.g. ``"function"``."""

    tool_name: str
    """The tool the call named."""

    call_id: str
    """The call's id."""

    default_message: str
    """What the model is told unless the formatter returns something else."""

    run_context: RunContextWrapper[TContext]
    """The run's context."""


ToolErrorFormatter: TypeAlias = Callable[
    [ToolErrorFormatterArgs[Any]], Union[str, Awaitable[Union[str, None]], None]
]
"""``(args) -> message`` (sync or async); None keeps ``args.default_message``."""


@dataclass
class RunConfig:
    """Settings for a whole run, overriding the agents' own."""

    model: str | Model | None = None
    """A model (name or instance) used for every agent of the run."""

    model_provider: ModelProvider | None = None
    """Turns model names into models (default: OpenAI, see ``set_default_openai_api``)."""

    model_settings: ModelSettings | None = None
    """Settings applied on top of each agent's ``model_settings``."""

    workflow_name: str = "Agent workflow"
    """A name for the run, for logs and traces."""

    max_turns: int | None = None
    """Turn limit, used when ``Runner.run`` is not given ``max_turns``."""

    max_cost_usd: float | Decimal | None = None
    """A budget in US dollars for the run's model calls (those before a resume included, and
    those of the agents it runs as tools: one budget for the whole run). Before each call the
    run estimates its cost; a call that would go over is not made and the run stops with
    ``BudgetExceeded`` (resumable from its ``run_state``), also when the call is a nested
    run's. A model without a known price cannot run under a budget (``UserError``). None: no
    budget."""

    approval_handler: ApprovalHandler | None = None
    """Decides on calls that need approval while the run waits; None pauses the run instead."""

    handoff_input_filter: HandoffInputFilter | None = None
    """Trims what the next agent sees on every handoff without its own ``input_filter``."""

    input_guardrails: list[InputGuardrail[Any]] = field(default_factory=list)
    """Input guardrails added to the first agent's."""

    output_guardrails: list[OutputGuardrail[Any]] = field(default_factory=list)
    """Output guardrails added to the final agent's."""

    call_model_input_filter: CallModelInputFilter | None = None
    """Edits the input and instructions just before each model call."""

    session_input_callback: SessionInputCallback | None = None
    """Merges a session's history with the new input (default: history then input)."""

    session_settings: SessionSettings | None = None
    """Overrides the session's own settings for this run, e.g. ``SessionSettings(limit=50)``
    loads only the latest 50 history items (a dict of the fields is accepted too)."""

    replay: Cassette | None = None
    """Record every run into this cassette, and replay a recording instead of calling the
    model when a run's inputs are the same (see ``Cassette`` for the modes)."""

    durable: JournalRun | None = None
    """Save the run after every step into this journal (``RunJournal.begin(meta)``), so a run
    cut off by a crash can be resumed from its last finished step (``runtime/durable``). The
    journal is ended when the run ends, however it ends, unless its process dies first."""

    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT
    """Seconds a function tool call may take when the tool sets no ``timeout`` of its own
    (None: no limit). A sync tool on a thread may still finish after it; see ``killable``."""

    tool_error_formatter: ToolErrorFormatter | None = None
    """Words the model sees for a rejected call (without a rejection message of its own) or a
    call to a tool that is not there. Returning None, or failing, keeps the default words."""

    tool_not_found_behavior: ToolNotFoundBehavior = "raise_error"
    """A call to a tool the agent does not offer: stop the run with ``ModelBehaviorError``
    (``"raise_error"``, the default, as in the SDK), or tell the model and go on
    (``"return_error_to_model"``, what the notebook's ``%%agent`` runs do)."""

    model_retry: ModelRetryPolicy = field(default_factory=ModelRetryPolicy)
    """How failed model calls are retried (``ModelRetryPolicy(max_attempts=1)`` turns it off).
    Where the resolved ``ModelSettings`` has ``retry``, that decides instead, with this policy's
    values for the fields it leaves unset."""

    mode: Mode = "agent"
    """What the run may do: ``ask`` (only tools that change nothing), ``plan`` (those, and a
    plan a person approves before the run acts) or ``agent`` (every tool, under the approval
    and sandbox policies). Enforced, not asked of the model: see ``runtime/modes.py``. A
    resumed run keeps the mode it was in."""

    compaction: Compaction | None = None
    """Compact the conversation before a model call that would pass a share of the model's
    context window: its older part becomes a summary the model writes (``runtime/compaction.py``;
    None: never)."""

    approval_policy: ApprovalPolicy | None = None
    """When tools that run commands (``ShellTool``, ``LocalShellTool``) ask a person:
    ``untrusted`` (the default: unless every command only reads), ``on-request`` (only when the
    model asks to leave the sandbox), ``on-failure`` (when the sandbox stopped a command: run it
    again outside?) or ``never``. A tool's own setting wins."""

    sandbox_mode: SandboxMode | None = None
    """Where those commands may write: ``read-only``, ``workspace-write`` (the default: the
    workspace and a private ``/tmp``; ``.git`` stays read-only) or ``danger-full-access``."""

    workspace: str | os.PathLike[str] | None = None
    """The folder commands run in and may write to (default: the current folder)."""

    network_access: bool | None = None
    """Let sandboxed commands use the network (default: no)."""

    tracing_disabled: bool = False
    """Record no trace for this run."""

    trace_include_sensitive_data: bool = True
    """Keep inputs and outputs (prompts, tool arguments and results) in spans."""

    trace_id: str | None = None
    """The trace id (default: a new one)."""

    group_id: str | None = None
    """Groups traces of one conversation."""

    trace_metadata: dict[str, Any] | None = None
    """Extra data stored with the trace."""

    tracing: TracingConfig | None = None
    """How the run's trace is exported: ``{"api_key": ...}`` sends it with that key (an
    exporter such as ``BackendSpanExporter`` uses it). ``{"include_task_and_turn_spans":
    False}`` leaves out the task span (the run) and the turn spans (default: recorded)."""

    tool_name_collision_policy: ToolNameCollisionPolicy = "warn"
    """Two of an agent's tools or handoffs with one name: log a warning and offer only the one
    a call would reach, the last handoff of that name, else the last tool (``"warn"``, as in
    the SDK); or stop the run with ``UserError`` before the model is called (``"error"``)."""

    def __post_init__(self) -> None:
        check_policy_names(self.approval_policy, self.sandbox_mode, "RunConfig")
        if self.tool_name_collision_policy not in ("warn", "error"):
            raise UserError("RunConfig: tool_name_collision_policy must be 'warn' or 'error'.")
        if self.session_settings is not None:
            self.session_settings = coerce_session_settings(self.session_settings)
        budget = self.max_cost_usd
        if budget is not None and (
            isinstance(budget, bool)
            or not isinstance(budget, (int, float, Decimal))
            or not budget > 0
        ):
            raise UserError(
                f"RunConfig: max_cost_usd must be a positive number of dollars, got {budget!r}."
            )
        if self.workspace is not None and not os.path.isdir(self.workspace):
            folder = os.fspath(self.workspace)
            raise UserError(f"RunConfig: the workspace {folder!r} is not a folder.")
