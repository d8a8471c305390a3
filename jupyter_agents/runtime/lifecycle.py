"""Lifecycle hooks: run-wide (``RunHooks``) and per agent (``AgentHooks``).

Subclass and override what you need; every method is async and does nothing by default.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic

from .context import AgentHookContext, RunContextWrapper, TContext

if TYPE_CHECKING:
    from .agent import Agent
    from .items import ModelResponse, TResponseInputItem
    from .tools import Tool

__all__ = ["AgentHooks", "HookCaller", "RunHooks"]


class RunHooks(Generic[TContext]):
    """Callbacks for every agent of a run (``Runner.run(..., hooks=...)``)."""

    async def on_agent_start(self, context: AgentHookContext[TContext], agent: Agent[Any]) -> None:
        """An agent starts (at the start of the run, and after each handoff)."""

    async def on_agent_end(
        self, context: AgentHookContext[TContext], agent: Agent[Any], output: Any
    ) -> None:
        """An agent produced the final output."""

    async def on_handoff(
        self, context: RunContextWrapper[TContext], from_agent: Agent[Any], to_agent: Agent[Any]
    ) -> None:
        """Control passes from one agent to another."""

    async def on_tool_start(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], tool: Tool
    ) -> None:
        """A function tool is about to run."""

    async def on_tool_end(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], tool: Tool, result: Any
    ) -> None:
        """A function tool returned (``result`` is what the model will see)."""

    async def on_llm_start(
        self,
        context: RunContextWrapper[TContext],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[TResponseInputItem],
    ) -> None:
        """The model is about to be called."""

    async def on_llm_end(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], response: ModelResponse
    ) -> None:
        """The model answered."""


class AgentHooks(Generic[TContext]):
    """Callbacks for one agent (``Agent(hooks=...)``)."""

    async def on_start(self, context: AgentHookContext[TContext], agent: Agent[Any]) -> None:
        """This agent starts."""

    async def on_end(
        self, context: AgentHookContext[TContext], agent: Agent[Any], output: Any
    ) -> None:
        """This agent produced the final output."""

    async def on_handoff(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], source: Agent[Any]
    ) -> None:
        """This agent (``source``) handed control to ``agent``.

        Called on the hooks of the agent that hands off, as the SDK does: ``agent`` is the
        agent receiving control and ``source`` is this one.
        """

    async def on_tool_start(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], tool: Tool
    ) -> None:
        """One of this agent's function tools is about to run."""

    async def on_tool_end(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], tool: Tool, result: Any
    ) -> None:
        """One of this agent's function tools returned."""

    async def on_llm_start(
        self,
        context: RunContextWrapper[TContext],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[TResponseInputItem],
    ) -> None:
        """This agent's model is about to be called."""

    async def on_llm_end(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], response: ModelResponse
    ) -> None:
        """This agent's model answered."""


class HookCaller:
    """Calls the run's hooks and the acting agent's hooks together (internal)."""

    def __init__(self, run_hooks: RunHooks[Any] | None, context: RunContextWrapper[Any]) -> None:
        self.run_hooks = run_hooks
        self.context = context

    async def agent_start(
        self, agent: Agent[Any], turn_input: list[TResponseInputItem] | None = None
    ) -> None:
        """``turn_input``: the input the start hooks see (``context.turn_input``), when known."""
        if turn_input is not None:
            self.context.turn_input = list(turn_input)
        if self.run_hooks is not None:
            await self.run_hooks.on_agent_start(self.context, agent)
        if agent.hooks is not None:
            await agent.hooks.on_start(self.context, agent)

    async def agent_end(self, agent: Agent[Any], output: Any) -> None:
        if self.run_hooks is not None:
            await self.run_hooks.on_agent_end(self.context, agent, output)
        if agent.hooks is not None:
            await agent.hooks.on_end(self.context, agent, output)

    async def handoff(self, source: Agent[Any], target: Agent[Any]) -> None:
        if self.run_hooks is not None:
            await self.run_hooks.on_handoff(self.context, source, target)
        # As the SDK: the handing-off agent's hooks hear of it (``agent`` is the receiver).
        if source.hooks is not None:
            await source.hooks.on_handoff(self.context, target, source)

    async def tool_start(
        self, agent: Agent[Any], tool: Tool, context: RunContextWrapper[Any] | None = None
    ) -> None:
        """``context``: the call's ``ToolContext`` (tool name, call id, arguments), when known."""
        ctx = self.context if context is None else context
        if self.run_hooks is not None:
            await self.run_hooks.on_tool_start(ctx, agent, tool)
        if agent.hooks is not None:
            await agent.hooks.on_tool_start(ctx, agent, tool)

    async def tool_end(
        self,
        agent: Agent[Any],
        tool: Tool,
        result: Any,
        context: RunContextWrapper[Any] | None = None,
    ) -> None:
        ctx = self.context if context is None else context
        if self.run_hooks is not None:
            await self.run_hooks.on_tool_end(ctx, agent, tool, result)
        if agent.hooks is not None:
            await agent.hooks.on_tool_end(ctx, agent, tool, result)

    async def llm_start(
        self, agent: Agent[Any], system_prompt: str | None, input_items: list[TResponseInputItem]
    ) -> None:
        if self.run_hooks is not None:
            await self.run_hooks.on_llm_start(self.context, agent, system_prompt, input_items)
        if agent.hooks is not None:
            await agent.hooks.on_llm_start(self.context, agent, system_prompt, input_items)

    async def llm_end(self, agent: Agent[Any], response: ModelResponse) -> None:
        if self.run_hooks is not None:
            await self.run_hooks.on_llm_end(self.context, agent, response)
        if agent.hooks is not None:
            await agent.hooks.on_llm_end(self.context, agent, response)
