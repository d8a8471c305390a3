"""The SDK's small tool helpers: ``ToolContext.from_agent_context``, tool guardrails as
generic classes, and ``apply_diff``'s end-of-file hunks and anchor errors."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from jupyter_agents import (
    RunContextWrapper,
    ToolContext,
    ToolInputGuardrail,
    ToolOutputGuardrail,
    UserError,
    apply_diff,
)


def test_from_agent_context_reads_the_call_and_shares_the_context() -> None:
    ctx = RunContextWrapper(context={"user": "ann"})
    call = SimpleNamespace(name="lookup", arguments='{"q": 1}')
    tool_ctx = ToolContext.from_agent_context(ctx, "call_1", call)
    assert (tool_ctx.tool_name, tool_ctx.tool_arguments) == ("lookup", '{"q": 1}')
    assert tool_ctx.tool_call_id == "call_1" and tool_ctx.tool_call is call
    assert tool_ctx.context is ctx.context and tool_ctx.usage is ctx.usage
    named = ToolContext.from_agent_context(
        tool_ctx, "call_2", tool_name="other", tool_arguments="{}"
    )
    assert named.tool_name == "other"
    with pytest.raises(UserError, match="needs tool_call"):
        ToolContext.from_agent_context(ctx, "call_3")


def test_tool_guardrails_take_a_context_type() -> None:
    guard: Any = ToolInputGuardrail[dict[str, Any]](guardrail_function=lambda data: None)
    assert isinstance(guard, ToolInputGuardrail)
    assert ToolOutputGuardrail[Any].__origin__ is ToolOutputGuardrail  # type: ignore[attr-defined]


def test_end_of_file_hunks_go_after_the_last_line() -> None:
    assert apply_diff("a\nb\n", "@@\n+c\n*** End of File") == "a\nb\nc\n"
    assert apply_diff("a\nb", "@@\n+c\n*** End of File") == "a\nb\nc"
    assert apply_diff("a\r\nb\r\n", "@@\n+c\n*** End of File") == "a\r\nb\r\nc\r\n"
    # The context is looked for at the end first: the last "foo", not the first.
    assert apply_diff("x\nfoo\ny\nfoo\n", " foo\n+added\n*** End of File") == (
        "x\nfoo\ny\nfoo\nadded\n"
    )


def test_a_missing_stacked_anchor_is_an_invalid_anchor() -> None:
    with pytest.raises(ValueError, match=r"Invalid Anchor: hunk 1: .*'@@ missing'"):
        apply_diff("a\nb\n", "@@ missing\n@@\n-b\n+B")


def _pairs(*args: tuple[int, str]) -> int:
    return len(args)


def _many(*args: tuple[int, ...]) -> int:
    return len(args)


def test_star_args_with_a_fixed_length_tuple_is_refused() -> None:
    from jupyter_agents.function_schema import function_schema

    with pytest.raises(UserError, match=r"use tuple\[T, \.\.\.\] or list\[T\] instead"):
        function_schema(_pairs, use_docstring_info=False)
    assert function_schema(_many, use_docstring_info=False).params_json_schema["type"] == "object"
