"""Callable objects as function tools (the SDK's contract) and ``FunctionTool.__wrapped__``."""

from __future__ import annotations

import copy
import dataclasses
import functools
from typing import Any, Generic, TypeVar

import pytest
from pydantic import BaseModel

from jupyter_agents import FunctionTool, RunContextWrapper, ToolContext, UserError, function_tool

T = TypeVar("T")


def ctx() -> ToolContext[Any]:
    return ToolContext(context=None, tool_name="t", tool_call_id="1", tool_arguments="{}")


async def test_an_async_callable_object_is_awaited_and_documented_by_its_class() -> None:
    class Doubler:
        """Double numbers."""

        class Payload(BaseModel):
            value: int

        async def __call__(self, payload: Payload) -> int:
            """Ignored for the tool's description.

            Args:
                payload: What to double.
            """
            return payload.value * 2

    made = function_tool(Doubler())
    assert made.name == "Doubler"
    assert made.description == "Double numbers."
    assert made.params_json_schema["properties"]["payload"]["description"] == "What to double."
    assert await made.on_invoke_tool(ctx(), '{"payload": {"value": 4}}') == 8


async def test_a_sync_callable_object_takes_the_context_first() -> None:
    class Greeter:
        def __call__(self, run: RunContextWrapper[Any], name: str) -> str:
            return f"hi {name}"

    made = function_tool(name_override="greet")(Greeter())
    assert made.name == "greet"
    assert list(made.params_json_schema["properties"]) == ["name"]
    assert await made.on_invoke_tool(ctx(), '{"name": "ann"}') == "hi ann"


async def _target(value: int) -> int:
    return value


class _Static:
    __call__ = staticmethod(_target)


class _Generic(Generic[T]):
    async def __call__(self, value: T) -> T:
        return value


class _LateContext:
    async def __call__(self, value: int, run: ToolContext[Any]) -> int:
        return value


@pytest.mark.parametrize(
    ("handler", "words"),
    [
        (functools.partial(_target, 1), "functools.partial"),
        (_Static(), "plain __call__"),
        (_Generic[int](), "Unsupported generic"),
        (_LateContext(), "first positional parameter"),
        (type("Café", (), {"__call__": _target})(), "Pass name_override"),
    ],
)
def test_shapes_whose_contract_is_unclear_are_refused(handler: Any, words: str) -> None:
    with pytest.raises(UserError, match=words):
        function_tool(handler)


async def test_wrapped_is_the_original_while_the_tool_invokes_it() -> None:
    class Counter:
        async def __call__(self, value: int) -> int:
            return value

    counter = Counter()
    made = function_tool(counter)
    for clone in (made, copy.copy(made), copy.deepcopy(made), dataclasses.replace(made, name="x")):
        assert clone.__wrapped__ is counter
    with pytest.raises(AttributeError):
        made.__wrapped__ = counter

    async def replacement(run: ToolContext[Any], arguments: str) -> str:
        return arguments

    made.on_invoke_tool = replacement
    assert not hasattr(made, "__wrapped__")
    assert not hasattr(FunctionTool, "__wrapped__")

    def plain(value: int) -> int:
        return value

    assert function_tool(plain).__wrapped__ is plain
