"""Executing the function calls of one model response, concurrently."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from ._util import call_maybe_async
from .context import RunContextWrapper, ToolContext
from .errors import UserError
from .items import ToolCallItem, ToolCallOutputItem
from .tools import FunctionTool, ToolArgumentsError, to_model_output

if TYPE_CHECKING:
    from .agent import Agent

logger = logging.getLogger("jupyter_agents")


class ToolBatch:
    """The function calls of one response: run together, reported as each finishes.

    Iterate :meth:`run` to get outputs in completion order; afterwards :attr:`outputs` holds
    them in call order, which is the order the model gets them back in.
    """

    def __init__(
        self,
        agent: Agent[Any],
        calls: Sequence[ToolCallItem],
        enabled: dict[str, FunctionTool],
        all_names: Sequence[str],
        context_wrapper: RunContextWrapper[Any],
    ) -> None:
        self._agent = agent
        self._calls = calls
        self._enabled = enabled
        self._all_names = all_names
        self._context = context_wrapper
        self.outputs: list[ToolCallOutputItem] = []

    async def run(self) -> AsyncIterator[ToolCallOutputItem]:
        """Start every call at once; yield each output as its call finishes."""
        if len(self._calls) == 1:  # the common case: no task, no extra loop iteration
            _, output = await self._run_one(0, self._calls[0])
            self.outputs = [output]
            yield output
            return
        results: list[ToolCallOutputItem | None] = [None] * len(self._calls)
        tasks = [
            asyncio.ensure_future(self._run_one(i, call)) for i, call in enumerate(self._calls)
        ]
        try:
            for next_done in asyncio.as_completed(tasks):
                index, output = await next_done
                results[index] = output
                yield output
        finally:
            pending = [task for task in tasks if not task.done()]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
        self.outputs = [item for item in results if item is not None]

    async def _run_one(self, index: int, call: ToolCallItem) -> tuple[int, ToolCallOutputItem]:
        raw = call.raw_item
        value = await self._invoke(raw.name, raw.call_id, raw.arguments or "")
        output = ToolCallOutputItem(
            agent=self._agent,
            raw_item={
                "type": "function_call_output",
                "call_id": raw.call_id,
                "output": to_model_output(value),
            },
            output=value,
        )
        return index, output

    async def _invoke(self, name: str, call_id: str, arguments: str) -> Any:
        tool = self._enabled.get(name)
        if tool is None:
            return self._missing_tool_message(name)
        try:
            if arguments.strip():
                json.loads(arguments)
        except json.JSONDecodeError as e:
            return (
                f"The arguments for tool {name!r} are not valid JSON ({e}). "
                "Call the tool again with a JSON object."
            )
        ctx = ToolContext.from_run_context(
            self._context, tool_name=name, tool_call_id=call_id, tool_arguments=arguments
        )
        try:
            return await tool.on_invoke_tool(ctx, arguments)
        except ToolArgumentsError as e:
            return str(e)
        except Exception as e:
            if tool.failure_error_function is None:
                raise
            logger.info("tool %r raised %r; the model is told", name, e)
            try:
                return await call_maybe_async(tool.failure_error_function, ctx, e)
            except Exception as handler_error:
                raise UserError(
                    f"The failure_error_function of tool {name!r} raised {handler_error!r} "
                    f"while handling {e!r}."
                ) from handler_error

    def _missing_tool_message(self, name: str) -> str:
        if name in self._all_names:
            return f"Tool {name!r} is not available right now. Do not call it again in this turn."
        available = ", ".join(sorted(self._enabled)) or "none"
        return f"Tool {name!r} does not exist. Available tools: {available}."
