"""Function tools: Python functions the model can call."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar, Union, overload

import pydantic

from ..._threads import run_in_thread
from ..._util import call_maybe_async
from ...approvals import NeedsApproval
from ...context import RunContextWrapper, ToolContext
from ...errors import ModelBehaviorError, ToolArgumentsError, UserError
from ..capabilities import ToolCapabilities, ToolReplay, ToolTimeoutBehavior
from ._json_validate import check_arguments
from .callable_object import adapt_callable_object
from .listeners import ToolListener, add_tool_listener, remove_tool_listener, tool_created
from .schema import function_schema

if TYPE_CHECKING:
    from ...agent import Agent
    from ..display import ToolDisplay

__all__ = [
    "FunctionTool",
    "ToolArgumentsError",
    "ToolErrorFunction",
    "ToolListener",
    "add_tool_listener",
    "default_tool_error_function",
    "function_tool",
    "raising_invoker",
    "remove_tool_listener",
    "tool",
]

MaybeAwaitable: TypeAlias = Union[Awaitable[Any], Any]
ToolErrorFunction: TypeAlias = Callable[[RunContextWrapper[Any], Exception], MaybeAwaitable]
"""Turns an exception raised by a tool into the message the model sees (sync or async)."""

IsEnabled: TypeAlias = Union[bool, Callable[[RunContextWrapper[Any], "Agent[Any]"], MaybeAwaitable]]
"""A bool, or a sync/async callable ``(run_context, agent) -> bool`` evaluated each turn."""

DocstringStyle: TypeAlias = Literal["google", "numpy", "sphinx"]
F = TypeVar("F", bound=Callable[..., Any])


def default_tool_error_function(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """The message the model sees when a tool raises (the default ``failure_error_function``)."""
    return f"An error occurred while running the tool. Please try again. Error: {error}"


class _WrappedCallable:
    """``FunctionTool.__wrapped__``: the callable ``@function_tool`` made the tool from (as it
    was given), while the tool still invokes it; no such attribute on tools built by hand or
    whose ``on_invoke_tool`` was replaced, nor on the class."""

    def __get__(self, tool: FunctionTool | None, owner: Any = None) -> Any:
        if tool is None:
            raise AttributeError("__wrapped__")
        invoker = tool.on_invoke_tool
        original = getattr(invoker, "_tool_function", _NOTHING)
        if original is _NOTHING:
            raise AttributeError("__wrapped__")
        return original

    def __set__(self, tool: Any, value: Any) -> None:
        raise AttributeError("FunctionTool.__wrapped__ is read-only")


_NOTHING = object()


@dataclass
class FunctionTool(ToolCapabilities):
    """A tool the model calls with JSON arguments.

    Build one with ``@function_tool`` / ``@tool``, or by hand with your own JSON schema and an
    async ``on_invoke_tool(tool_context, arguments_json) -> output``.
    """

    __wrapped__ = _WrappedCallable()

    name: str
    """The name the model calls the tool by."""

    # ``field()``: required, not defaulted to ``ToolCapabilities``' None (see its docstring)
    description: str = field()
    """What the tool does, for the model."""

    params_json_schema: dict[str, Any] = field()
    """JSON schema of the arguments."""

    on_invoke_tool: Callable[[ToolContext[Any], str], Awaitable[Any]]
    """Invokes the tool with the context and the raw JSON arguments; returns the output."""

    strict_json_schema: bool = True
    """Whether the schema is in strict mode (the model must follow it exactly)."""

    is_enabled: IsEnabled = True
    """Whether the model sees the tool; a callable decides per turn."""

    failure_error_function: ToolErrorFunction | None = default_tool_error_function
    """Turns an exception into a message for the model; ``None`` makes the run raise instead."""

    needs_approval: NeedsApproval = False
    """Whether a person must approve each call: a bool, or a sync/async function
    ``(run_context, arguments, call_id) -> bool`` deciding per call."""

    always_asks: bool = False
    """Each call is decided on its own (restarting the kernel): no "always" decision covers
    it, none is made from it, and user interfaces offer none."""

    tool_input_guardrails: list[Any] = field(default_factory=list)
    """``ToolInputGuardrail`` checks on each call's arguments, before the tool runs."""

    tool_output_guardrails: list[Any] = field(default_factory=list)
    """``ToolOutputGuardrail`` checks on each call's output, before the model sees it."""

    timeout: float | None = None
    """Seconds a call may take; when it fires, the model is told the call timed out. None:
    the run's ``RunConfig.tool_timeout`` (600 s by default)."""

    timeout_behavior: ToolTimeoutBehavior = "error_as_result"
    """A call out of time: ``"error_as_result"`` tells the model and the run goes on,
    ``"raise_exception"`` ends the run with ``ToolTimeoutError``."""

    timeout_error_function: ToolErrorFunction | None = None
    """``(tool_context, ToolTimeoutError) -> str``: what the model is told when a call runs out
    of time (None: a message naming the tool, the limit and whether it may still finish)."""

    runs_in_thread: bool = False
    """A sync function run on a worker thread: a timeout, Stop or interrupt cannot stop it,
    only stop waiting; it goes on, reported as a ``BackgroundCall`` (``tools.background``)."""

    defer_loading: bool = False
    """Hidden until the model finds it with tool search (``@function_tool(defer_loading=True)``):
    the Responses API gets the tool marked ``defer_loading`` and needs a ``ToolSearchTool()``
    next to it; Chat Completions models refuse it (they have no tool search)."""

    read_only: bool = False
    """Its calls change nothing (``@tool(read_only=True)``): offered in ``ask`` and ``plan``
    modes too. Say it only of a function that reads."""

    killable: bool = False
    """Runs in a child process that a timeout, Stop or interrupt kills with every program it
    started (``@tool(killable=True)``)."""

    replay: ToolReplay | None = None
    """How a replayed run answers this tool's calls: ``"run"`` (it runs again, like a cell),
    ``"recorded"`` (its recorded output, for a tool that acts on the outside world); None: as
    the run's cassette says (``Cassette.replay_tools``)."""

    arguments_validator: Callable[[dict[str, Any]], str | None] | None = field(
        default=None, repr=False
    )
    """Checks arguments (None: valid, else the problem); default: the JSON schema."""

    func: Callable[..., Any] | None = field(default=None, repr=False)
    """The decorated function, when there is one; calling the tool calls it."""

    _tool_namespace: str | None = field(default=None, kw_only=True, repr=False)
    """The namespace ``tool_namespace()`` put this copy in (None: a top-level tool)."""

    _tool_namespace_description: str | None = field(default=None, kw_only=True, repr=False)
    """What that namespace is for, as the model reads it."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise UserError("A tool needs a non-empty string name.")
        if not callable(self.on_invoke_tool):
            raise UserError(f"Tool {self.name!r}: on_invoke_tool must be an async callable.")
        if not isinstance(self.params_json_schema, dict):
            raise UserError(f"Tool {self.name!r}: params_json_schema must be a dict.")
        if self.timeout is not None and not (
            isinstance(self.timeout, (int, float)) and self.timeout > 0
        ):
            raise UserError(f"Tool {self.name!r}: timeout must be a positive number of seconds.")
        if self.timeout_behavior not in ("error_as_result", "raise_exception"):
            raise UserError(
                f"Tool {self.name!r}: timeout_behavior must be 'error_as_result' or "
                f"'raise_exception', not {self.timeout_behavior!r}."
            )
        if self.timeout_error_function is not None and not callable(self.timeout_error_function):
            raise UserError(f"Tool {self.name!r}: timeout_error_function must be a function.")
        if not isinstance(self.needs_approval, bool) and not callable(self.needs_approval):
            raise UserError(
                f"Tool {self.name!r}: needs_approval must be True, False or a function "
                "(run_context, arguments, call_id) -> bool."
            )

    @property
    def qualified_name(self) -> str:
        """``namespace.name`` for a tool put in a namespace by ``tool_namespace()``, else
        ``name``: the name its calls are found by."""
        namespace = self._tool_namespace
        return f"{namespace}.{self.name}" if namespace else self.name

    @property
    def lookup_name(self) -> str:
        """``qualified_name``: calls to a namespaced tool come back with its namespace."""
        return self.qualified_name

    def validate_arguments(self, arguments: dict[str, Any]) -> str | None:
        """Check arguments against the tool's JSON schema, strictly (no coercion, no extra
        keys): None when valid, else the problem."""
        problem = check_arguments(arguments, self.params_json_schema)
        if problem is None and self.arguments_validator is not None:
            problem = self.arguments_validator(arguments)
        return problem

    def arguments_problem(self, arguments: dict[str, Any]) -> str | None:
        """Why the model's ``arguments`` (a JSON object) cannot be used at all, told to the
        model before anyone is asked (``ask_user``: they make no question); None when they
        can (the default)."""
        return None

    def describe_call(self, display: ToolDisplay) -> ToolDisplay:
        """The card of a call to this tool: ``display`` as the function kind drew it, refined
        with what only the tool knows (an MCP tool names its server; ``ask_user`` shows its
        question). The default changes nothing."""
        return display

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly (handy to try a tool by hand)."""
        if self.func is None:
            raise TypeError(f"Tool {self.name!r} was built by hand and has no function to call.")
        return self.func(*args, **kwargs)


def raising_invoker(tool: FunctionTool) -> Callable[[ToolContext[Any], str], Awaitable[Any]]:
    """What a run calls for ``tool``: its ``on_invoke_tool``, less the ``failure_error_function``
    that a decorated tool's applies itself (the run applies it, and records how the call
    ended). Wrap this one to wrap how a run invokes the tool."""
    invoker = tool.on_invoke_tool
    raising: Callable[[ToolContext[Any], str], Awaitable[Any]] = getattr(
        invoker, "raising", invoker
    )
    return raising


def _describe_validation_error(
    tool_name: str, error: pydantic.ValidationError, for_model: bool = True
) -> str:
    problems = []
    for err in error.errors(include_url=False):
        where = ".".join(str(part) for part in err["loc"]) or "arguments"
        problems.append(f"{where}: {err['msg']}")
    listed = "; ".join(problems)
    if not for_model:
        return f"Invalid arguments for tool {tool_name!r}: {listed}."
    # The SDK's words first (code matches on them), then what to do.
    return (
        f"Invalid JSON input for tool {tool_name}: {listed}. "
        "Call the tool again with arguments that match its schema."
    )


def _make_tool(
    func: Callable[..., Any],
    *,
    name_override: str | None,
    description_override: str | None,
    docstring_style: DocstringStyle | None,
    use_docstring_info: bool,
    failure_error_function: ToolErrorFunction | None,
    strict_mode: bool,
    is_enabled: IsEnabled,
    needs_approval: NeedsApproval,
    extra: dict[str, Any],
    original: Any = None,
) -> FunctionTool:
    schema = function_schema(
        func,
        docstring_style=docstring_style,
        name_override=name_override,
        description_override=description_override,
        use_docstring_info=use_docstring_info,
        strict_json_schema=strict_mode,
    )
    is_async = inspect.iscoroutinefunction(func)
    killable = bool(extra.get("killable"))
    if killable and is_async:
        raise UserError(
            f"Tool {schema.name!r}: killable=True is for plain (sync) functions; an async tool "
            "is already stopped when it times out."
        )
    if killable:
        from .._process import can_fork  # multiprocessing: loaded only for killable tools

        if not can_fork():
            raise UserError("killable=True needs a platform with fork() (Linux or macOS).")

    async def invoke(ctx: ToolContext[Any], arguments: str) -> Any:
        try:
            data = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as e:
            raise ModelBehaviorError(
                f"Invalid JSON input for tool {schema.name}: {e}. "
                "Call the tool again with a JSON object."
            ) from None
        try:
            parsed = schema.params_pydantic_model.model_validate(data)
        except pydantic.ValidationError as e:
            raise ModelBehaviorError(_describe_validation_error(schema.name, e)) from None
        args, kwargs = schema.to_call_args(parsed)
        if schema.takes_context:
            args = [ctx, *args]
        if is_async:
            return await func(*args, **kwargs)
        if killable:
            from .._process import run_in_process

            return await run_in_process(func, *args, **kwargs)
        return await run_in_thread(func, *args, **kwargs)

    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> Any:
        try:
            return await invoke(ctx, arguments)
        except Exception as e:  # as in the SDK: the tool's handler words any error
            if failure_error_function is None:
                raise
            return await call_maybe_async(failure_error_function, ctx, e)

    # What ``FunctionTool.__wrapped__`` gives while this is the tool's invoker.
    on_invoke_tool._tool_function = func if original is None else original  # type: ignore[attr-defined]
    # What a run calls instead: its errors reach the run, which words them the same way and
    # also records how the call ended (``ToolCallOutputItem.status`` and ``.error``).
    on_invoke_tool.raising = invoke  # type: ignore[attr-defined]

    def validate(arguments: dict[str, Any]) -> str | None:
        try:
            schema.params_pydantic_model.model_validate(arguments)
        except pydantic.ValidationError as e:
            return _describe_validation_error(schema.name, e, for_model=False)
        return None

    return FunctionTool(
        name=schema.name,
        description=schema.description or "",
        params_json_schema=schema.params_json_schema,
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=strict_mode,
        is_enabled=is_enabled,
        failure_error_function=failure_error_function,
        needs_approval=needs_approval,
        arguments_validator=validate,
        runs_in_thread=not is_async and not killable,
        **extra,
        func=func,
    )


@overload
def function_tool(func: Callable[..., Any], /) -> FunctionTool: ...


@overload
def function_tool(
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: DocstringStyle | None = None,
    use_docstring_info: bool = True,
    failure_error_function: ToolErrorFunction | None = default_tool_error_function,
    strict_mode: bool = True,
    is_enabled: IsEnabled = True,
    needs_approval: NeedsApproval = False,
    tool_input_guardrails: list[Any] | None = None,
    tool_output_guardrails: list[Any] | None = None,
    timeout: float | None = None,
    killable: bool = False,
    replay: ToolReplay | None = None,
    read_only: bool = False,
    defer_loading: bool = False,
    timeout_behavior: ToolTimeoutBehavior = "error_as_result",
    timeout_error_function: ToolErrorFunction | None = None,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def function_tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: DocstringStyle | None = None,
    use_docstring_info: bool = True,
    failure_error_function: ToolErrorFunction | None = default_tool_error_function,
    strict_mode: bool = True,
    is_enabled: IsEnabled = True,
    needs_approval: NeedsApproval = False,
    tool_input_guardrails: list[Any] | None = None,
    tool_output_guardrails: list[Any] | None = None,
    timeout: float | None = None,
    killable: bool = False,
    replay: ToolReplay | None = None,
    read_only: bool = False,
    defer_loading: bool = False,
    timeout_behavior: ToolTimeoutBehavior = "error_as_result",
    timeout_error_function: ToolErrorFunction | None = None,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Turn a Python function into a ``FunctionTool``; use bare or with arguments.

    The JSON schema comes from the signature, descriptions from the docstring (Google, NumPy or
    Sphinx style, detected automatically). A first parameter annotated ``RunContextWrapper`` or
    ``ToolContext`` receives the run context and is not shown to the model. Sync functions run
    on a worker thread, so they never block the event loop.

    Args:
        func: The function, when used as a bare decorator.
        name_override: The tool's name (default: the function's name).
        description_override: The tool's description (default: from the docstring).
        docstring_style: Force a docstring style instead of detecting it.
        use_docstring_info: Use the docstring for descriptions.
        failure_error_function: Turns an exception into the model's message; ``None`` re-raises
            it and ends the run.
        strict_mode: Send a strict JSON schema (recommended).
        is_enabled: Whether the model sees the tool; a callable ``(ctx, agent)`` decides per turn.
        needs_approval: Whether a person must approve each call; a callable
            ``(ctx, arguments, call_id)`` decides per call.
        tool_input_guardrails: Checks on each call's arguments before the tool runs.
        tool_output_guardrails: Checks on each call's output before the model sees it.
        timeout: Seconds a call may take; the model is told when it times out (default: the
            run's ``RunConfig.tool_timeout``). A sync function on a thread cannot be stopped,
            by a timeout or by stopping the run: it may still finish later, and its side
            effects still happen. Use ``killable=True`` when it must be stopped.
        killable: Run the (sync) function in a forked child process that a timeout, Stop or
            interrupt kills, with every program it started. Its result must be picklable, and
            what it does to objects in memory happens in the child's copy (your variables do
            not change).
        replay: How a replayed run answers its calls: ``"run"`` again, or ``"recorded"``
            (its recorded output: for a tool that sends mail or pays); default: as the
            cassette says (``Cassette.replay_tools``).
        read_only: The function only reads (cells, data, files): a run in ``ask`` or
            ``plan`` mode offers it too. Other tools are not offered in those modes.
        defer_loading: Hide the tool until the model finds it with tool search: the
            Responses API needs a ``ToolSearchTool()`` among the agent's tools; Chat
            Completions models refuse such a tool.
        timeout_behavior: A call out of time: ``"error_as_result"`` (the default) tells the
            model, ``"raise_exception"`` ends the run with ``ToolTimeoutError``.
        timeout_error_function: ``(tool_context, ToolTimeoutError) -> str``: what the model is
            told when a call runs out of time.
    """
    if replay not in (None, "run", "recorded"):
        raise UserError(f"@function_tool(replay=...) must be 'run' or 'recorded', not {replay!r}.")

    def decorate(f: Callable[..., Any]) -> FunctionTool:
        if not callable(f):
            raise UserError(f"@function_tool decorates functions, not {type(f).__name__}.")
        target, class_description = adapt_callable_object(
            f,
            name_override=name_override,
            use_docstring_info=use_docstring_info,
            docstring_style=docstring_style,
        )
        made = _make_tool(
            target,
            name_override=name_override,
            description_override=description_override or class_description,
            original=f,
            docstring_style=docstring_style,
            use_docstring_info=use_docstring_info,
            failure_error_function=failure_error_function,
            strict_mode=strict_mode,
            is_enabled=is_enabled,
            needs_approval=needs_approval,
            extra={
                "tool_input_guardrails": list(tool_input_guardrails or []),
                "tool_output_guardrails": list(tool_output_guardrails or []),
                "timeout": timeout,
                "killable": killable,
                "replay": replay,
                "read_only": bool(read_only),
                "defer_loading": bool(defer_loading),
                "timeout_behavior": timeout_behavior,
                "timeout_error_function": timeout_error_function,
            },
        )
        tool_created(made)
        return made

    if func is not None:
        return decorate(func)
    return decorate


tool = function_tool
"""Alias of ``function_tool``."""
