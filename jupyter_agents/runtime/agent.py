"""Agents: a model, instructions and tools."""

from __future__ import annotations

import dataclasses
import inspect
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict, Union

from ._util import accepts_positional, call_maybe_async
from .agent_base import AgentBase
from .agent_output import AgentOutputSchemaBase, output_schema_for
from .agent_tool import AgentToolStreamHandler, agent_as_tool
from .agent_tool_input import StructuredToolInputBuilder, use_structured_input
from .context import RunContextWrapper, TContext
from .errors import UserError
from .guardrails import InputGuardrail, OutputGuardrail
from .handoffs import Handoff, handoff
from .lifecycle import AgentHooks
from .model_settings import ModelSettings
from .models.interface import Model
from .prompts import DynamicPromptFunction, Prompt, check_prompt, resolve_prompt
from .tool_use import (
    FunctionToolResult,
    StopAtTools,
    ToolsToFinalOutputFunction,
    ToolsToFinalOutputResult,
    ToolUseBehavior,
)
from .tools import FunctionTool, Tool, ToolErrorFunction, default_tool_error_function
from .tools.kinds import kind_for_tool

if TYPE_CHECKING:
    from .lifecycle import RunHooks
    from .run_config import RunConfig
    from .sessions import Session

__all__ = [
    "Agent",
    "FunctionToolResult",
    "Instructions",
    "StopAtTools",
    "ToolUseBehavior",
    "ToolsToFinalOutputFunction",
    "ToolsToFinalOutputResult",
]


Instructions: TypeAlias = Union[
    str,
    Callable[[RunContextWrapper[Any], "Agent[Any]"], Union[str, Awaitable[str]]],
    None,
]
"""A system prompt, or a sync/async callable ``(run_context, agent) -> str``."""


class MCPConfig(TypedDict, total=False):
    """``Agent.mcp_config``."""

    convert_schemas_to_strict: bool
    """Send MCP tools' schemas in strict mode when that does not change what a call means
    (default True)."""


@dataclass
class Agent(AgentBase[TContext]):
    """An agent: a model configured with instructions and tools.

    Run it with ``Runner.run(agent, "...")``. ``TContext`` is the type of the context object
    given to the run, which tools and instructions receive.
    """

    name: str
    """A name for people and logs (and, later, for handoffs)."""

    instructions: Instructions = None
    """The system prompt, or a function of ``(run_context, agent)`` returning it."""

    model: str | Model | None = None
    """A model name for the provider, a ``Model``, or None for the default model."""

    model_settings: ModelSettings = field(default_factory=ModelSettings)
    """Temperature, tool choice and other settings for this agent's model calls."""

    tools: list[Tool] = field(default_factory=list)
    """Tools the model may call."""

    mcp_servers: list[Any] = field(default_factory=list)
    """MCP servers (``jupyter_agents.mcp``) whose tools the model may call, named
    ``mcp__<server>__<tool>``. A server not yet connected is connected when a run needs it."""

    mcp_config: MCPConfig = field(default_factory=lambda: MCPConfig())
    """MCP options: ``{"convert_schemas_to_strict": bool}`` (default True: strict when that does
    not change what a call means)."""

    handoff_description: str | None = None
    """A description of the agent, for when other agents can hand off to it."""

    handoffs: list[Agent[Any] | Handoff[Any]] = field(default_factory=list)
    """Agents (or ``handoff(...)`` objects) this agent can pass the conversation to."""

    output_type: Any = None
    """The type of the final output (a pydantic model, dataclass, TypedDict, primitive or list;
    None: plain text), or an ``AgentOutputSchemaBase`` of your own. The model gets its strict JSON
    schema; the answer is validated."""

    input_guardrails: list[InputGuardrail[Any]] = field(default_factory=list)
    """Checks on the run's input (when this agent starts the run)."""

    output_guardrails: list[OutputGuardrail[Any]] = field(default_factory=list)
    """Checks on this agent's final output."""

    hooks: AgentHooks[Any] | None = None
    """Callbacks for this agent's lifecycle."""

    tool_use_behavior: ToolUseBehavior = "run_llm_again"
    """After tool calls: ``"run_llm_again"`` (the model sees the outputs), ``"stop_on_first_tool"``
    (the first tool's output is the final output), ``StopAtTools([...])``, or a function
    ``(run_context, tool_results) -> ToolsToFinalOutputResult`` (sync or async)."""

    reset_tool_choice: bool = True
    """After a tool call, go back to ``tool_choice="auto"`` so a forced choice cannot loop."""

    prompt: Prompt | DynamicPromptFunction | None = None
    """A prompt stored on the OpenAI platform (Responses API models only), or a function
    ``(GenerateDynamicPromptData) -> Prompt`` asked before each model call."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise UserError("Agent needs a name: Agent(name='assistant', ...).")
        self._check_instructions()
        if not isinstance(self.model_settings, ModelSettings):
            raise UserError(
                f"Agent {self.name!r}: model_settings must be a ModelSettings, "
                f"got {type(self.model_settings).__name__}."
            )
        if self.model is not None and not isinstance(self.model, (str, Model)):
            raise UserError(
                f"Agent {self.name!r}: model must be a model name or a Model, "
                f"got {type(self.model).__name__}."
            )
        self._check_tools()
        self._check_mcp()
        self._check_lists()
        check_prompt(self.name, self.prompt)
        self._schema_of: tuple[Any, AgentOutputSchemaBase | None] | None = None

    def _check_lists(self) -> None:
        for item in self.handoffs:
            if not isinstance(item, (Agent, Handoff)):
                raise UserError(
                    f"Agent {self.name!r}: handoffs holds {item!r}; give Agents or handoff(...)."
                )
        for name, kind in (
            ("input_guardrails", InputGuardrail),
            ("output_guardrails", OutputGuardrail),
        ):
            for guard in getattr(self, name):
                if not isinstance(guard, kind):
                    raise UserError(
                        f"Agent {self.name!r}: {name} holds {guard!r}; decorate the function "
                        f"with @{name[:-1]}."
                    )
        behavior = self.tool_use_behavior
        if not (
            behavior in ("run_llm_again", "stop_on_first_tool")
            or isinstance(behavior, StopAtTools)
            or callable(behavior)
        ):
            raise UserError(
                f"Agent {self.name!r}: tool_use_behavior must be 'run_llm_again', "
                f"'stop_on_first_tool', StopAtTools([...]) or a function, got {behavior!r}."
            )

    @property
    def output_schema(self) -> AgentOutputSchemaBase | None:
        """The schema of ``output_type`` (None for plain text), made when first asked for (a run
        asks before its first model call, so an ``output_type`` that cannot be a schema stops
        the run, as in the SDK) and again when ``output_type`` was replaced."""
        cached = self._schema_of
        if cached is None or cached[0] is not self.output_type:
            cached = self._schema_of = (self.output_type, output_schema_for(self.output_type))
        return cached[1]

    async def get_handoffs(self, run_context: RunContextWrapper[TContext]) -> list[Handoff[Any]]:
        """The handoffs enabled for this turn, as ``Handoff`` objects."""
        enabled: list[Handoff[Any]] = []
        for item in self.handoffs:
            h = item if isinstance(item, Handoff) else handoff(item)
            flag = h.is_enabled
            if isinstance(flag, bool) and not flag:
                continue
            if not isinstance(flag, bool) and not await call_maybe_async(flag, run_context, self):
                continue
            enabled.append(h)
        return enabled

    def _check_instructions(self) -> None:
        value = self.instructions
        if value is None or isinstance(value, str):
            return
        if not callable(value):
            raise _InstructionsError(
                f"Agent {self.name!r}: Agent instructions must be a string, callable, or None, "
                f"got {type(value).__name__}."
            )
        if not accepts_positional(value, 2):
            raise _InstructionsError(
                f"Agent {self.name!r}: an instructions function must accept exactly 2 arguments "
                f"(run_context, agent), but got {_positional_count(value)}."
            )

    def _check_tools(self) -> None:
        if not isinstance(self.tools, list):
            raise UserError(f"Agent {self.name!r}: tools must be a list.")
        if any(isinstance(t, (str, dict)) for t in self.tools):  # registered tools, by name
            from .tools.registry import resolve_tool_spec

            self.tools = [resolve_tool_spec(t) for t in self.tools]
        for item in self.tools:
            if kind_for_tool(item) is not None:
                continue
            hint = " Decorate it with @tool first." if callable(item) else ""
            raise UserError(f"Agent {self.name!r}: {item!r} is not a tool.{hint}")

    def _check_mcp(self) -> None:
        if not isinstance(self.mcp_servers, list):
            raise UserError(f"Agent {self.name!r}: mcp_servers must be a list.")
        for server in self.mcp_servers:
            if not all(hasattr(server, a) for a in ("list_tools", "call_tool", "name")):
                raise UserError(
                    f"Agent {self.name!r}: mcp_servers holds {server!r}; give MCPServerStdio, "
                    "MCPServerStreamableHttp or MCPServerSse objects (jupyter_agents.mcp)."
                )
        if not isinstance(self.mcp_config, dict) or set(self.mcp_config) - {
            "convert_schemas_to_strict"
        }:
            raise UserError(
                f"Agent {self.name!r}: mcp_config takes only "
                "{'convert_schemas_to_strict': True or False}."
            )

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str],
        *,
        tools: Sequence[Tool] = (),
        mcp_servers: Mapping[str, Any] | None = None,
        model: str | Model | None = None,
    ) -> Agent[Any]:
        """The agent an agent file defines (Markdown with front matter, or YAML: see
        ``AgentFile``). Its tools are looked up by name among ``tools`` (and ``update_plan``,
        ``ask_user``), its MCP servers in ``mcp_servers`` (by name), its handoffs among the
        agent files beside it; ``model`` is used when the file names none. The file's ``mode``
        and ``budget`` are for the caller to apply (``load_agent_file(path).mode``).

        Raises:
            AgentFileError: The file is bad or names what is not given (one line).
        """
        from .project.agent_files import build_agent

        return build_agent(Path(path), tools=tools, mcp_servers=mcp_servers, model=model)

    def clone(self, **changes: Any) -> Agent[TContext]:
        """A copy of this agent with ``changes`` applied (lists are shared, not copied)."""
        return dataclasses.replace(self, **changes)

    def as_tool(
        self,
        tool_name: str | None = None,
        tool_description: str | None = None,
        custom_output_extractor: Callable[[Any], Any] | None = None,
        is_enabled: Any = True,
        on_stream: AgentToolStreamHandler | None = None,
        run_config: RunConfig | None = None,
        max_turns: int | None = None,
        hooks: RunHooks[Any] | None = None,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        session: Session | None = None,
        failure_error_function: ToolErrorFunction | None = default_tool_error_function,
        needs_approval: Any = False,
        parameters: type[Any] | None = None,
        input_builder: StructuredToolInputBuilder | None = None,
        include_input_schema: bool = False,
    ) -> FunctionTool:
        """This agent as a tool another agent can call.

        The nested run's streamed events are forwarded into the outer run's stream, and its
        gated calls ask the outer run's approval handler. The tool's output is the nested run's
        final output (or ``custom_output_extractor(result)``). ``is_enabled``,
        ``needs_approval`` and ``failure_error_function`` work as for any function tool.

        By default the tool takes one string, ``input``, the nested run's input. With
        ``parameters`` (a pydantic model or dataclass type) it takes those arguments instead,
        and ``input_builder`` (default: the arguments as JSON with a summary of the fields, or
        the whole schema with ``include_input_schema=True``) turns them into the nested input.

        ``on_stream`` (sync or async) gets every event of the nested run as an
        ``AgentToolStreamEvent``; its failures are logged, never the run's. ``run_config``,
        ``hooks``, ``session``, ``previous_response_id`` and ``conversation_id`` are passed to
        the nested run as to ``Runner.run``.

        The arguments after ``custom_output_extractor`` are best passed by keyword; by position
        they come in the SDK's order (``is_enabled``, ``on_stream``, ``run_config``,
        ``max_turns``, ...). A number where ``is_enabled`` goes, or something not callable where
        ``on_stream`` goes, is a ``UserError``.
        """
        if isinstance(is_enabled, int) and not isinstance(is_enabled, bool):
            raise UserError(
                "is_enabled must be a bool or a function, got a number: pass max_turns=... by "
                "keyword (the fourth positional argument of as_tool is is_enabled)."
            )
        if on_stream is not None and not callable(on_stream):
            raise UserError(
                "on_stream must be callable or None. Pass run configuration with run_config=... "
                "instead of as the fifth positional argument."
            )
        options = {
            "run_config": run_config,
            "hooks": hooks,
            "previous_response_id": previous_response_id,
            "conversation_id": conversation_id,
            "session": session,
        }
        made = agent_as_tool(
            self,
            tool_name,
            tool_description,
            custom_output_extractor,
            max_turns,
            on_stream,
            {key: value for key, value in options.items() if value is not None},
        )
        made.is_enabled = is_enabled
        made.needs_approval = needs_approval
        made.failure_error_function = failure_error_function
        if parameters is not None or input_builder is not None:
            use_structured_input(made, parameters, input_builder, include_input_schema)
        return made

    async def get_system_prompt(self, run_context: RunContextWrapper[TContext]) -> str | None:
        """The system prompt for this turn."""
        value = self.instructions
        if value is None or isinstance(value, str):
            return value
        result = await call_maybe_async(value, run_context, self)
        if result is not None and not isinstance(result, str):
            raise UserError(
                f"Agent {self.name!r}: the instructions function returned "
                f"{type(result).__name__}, expected a string."
            )
        return result

    async def get_prompt(self, run_context: RunContextWrapper[TContext]) -> dict[str, Any] | None:
        """The stored prompt to send with this turn's model call, if any."""
        return await resolve_prompt(self, run_context)

    def _repr_markdown_(self) -> str:
        """A readable summary for notebooks (every name and the instructions escaped)."""
        from .._render import escape_markdown, inert_markdown  # only notebooks need it

        model = (
            self.model
            if isinstance(self.model, str) or self.model is None
            else type(self.model).__name__
        )
        tools = ", ".join(escape_markdown(t.name) for t in self.tools) or "none"
        lines = [
            f"**Agent** {escape_markdown(self.name)} · model "
            f"{escape_markdown(model or 'default')} · tools: {tools}"
        ]
        if isinstance(self.instructions, str):
            lines.append(inert_markdown(self.instructions, limit=2_000))
        elif self.instructions is not None:
            lines.append("(instructions from a function)")
        return "\n\n".join(lines)

    def __repr__(self) -> str:
        model = (
            self.model
            if isinstance(self.model, str) or self.model is None
            else type(self.model).__name__
        )
        return f"Agent(name={self.name!r}, model={model!r}, tools={[t.name for t in self.tools]})"


class _InstructionsError(UserError, TypeError):
    """Instructions of the wrong kind: a ``UserError`` here, and the ``TypeError`` the SDK
    raises for them."""


def _positional_count(function: Any) -> int | str:
    """How many positional parameters ``function`` has (for the message)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return "an unknown number"
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)
