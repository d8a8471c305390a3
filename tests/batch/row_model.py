"""A model for batch tests that answers each row by its own prompt: with ``tool_name`` it first
calls that tool with ``{"to": prompt}``, then answers with the tool's output; without, it says
the prompt back. It records every prompt it was asked (the rows that really ran)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any
from uuid import uuid4

from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from jupyter_agents.runtime.items import ModelResponse
from jupyter_agents.runtime.models.interface import ModelRequest, RequestModel

sent: list[str] = []
"""What the tests' ``send`` tool sent."""


class RowModel(RequestModel):
    def __init__(
        self,
        tool_name: str | None = None,
        delay: float = 0.0,
        arguments: Callable[[str], dict[str, Any]] | None = None,
    ) -> None:
        self.tool_name = tool_name
        self.arguments = arguments or (lambda prompt: {"to": prompt})
        self.delay = delay
        self.prompts: list[str] = []

    async def respond(self, request: ModelRequest) -> ModelResponse:
        if self.delay:
            await asyncio.sleep(self.delay)
        items: list[Any] = (
            request.input
            if isinstance(request.input, list)
            else [{"role": "user", "content": request.input}]
        )
        prompt = next(str(i["content"]) for i in items if i.get("role") == "user")
        outputs = [i for i in items if i.get("type") == "function_call_output"]
        if self.tool_name is not None and not outputs:
            self.prompts.append(prompt)
            call = ResponseFunctionToolCall(
                type="function_call",
                id=f"fc_{uuid4().hex[:8]}",
                call_id=f"call_{uuid4().hex[:8]}",
                name=self.tool_name,
                arguments=json.dumps(self.arguments(prompt)),
                status="completed",
            )
            return ModelResponse(output=[call])
        if self.tool_name is None:
            self.prompts.append(prompt)
        text = str(outputs[-1]["output"]) if outputs else prompt
        message = ResponseOutputMessage(
            id=f"msg_{uuid4().hex[:8]}",
            type="message",
            role="assistant",
            status="completed",
            content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
        )
        return ModelResponse(output=[message])

    async def stream(self, request: ModelRequest) -> Any:
        raise NotImplementedError("batch rows are not streamed")
        yield  # pragma: no cover
