"""The tool-kind seam: everything the run needs to know about one kind of tool, in one place.

A ``ToolKind`` says how its tools are offered on the wire (the Responses API ``tools``
entry, and the Chat Completions form where the kind can be a function tool), which model output
item types are its calls, how a call is read, how it runs and what output item answers it, and
how a person sees it (``ToolDisplay``, plain data the notebook layer renders). Approval is
the same for every kind: a tool's ``needs_approval`` (bool or callable) decides. What the run
reads of a tool, whatever its kind, is declared on ``ToolCapabilities``, which every kind's
tool classes subclass.

A new kind of tool is one module with its tool class and its kind, plus one
``register_tool_kind`` call. Hosted tools are declarations run by the provider: their kind
claims their call types but has no executor. A call type nobody claims is a
``ModelBehaviorError``.

The built-in kinds' modules (shell, apply_patch, computer, plan, base tools) are imported by the
first lookup (or registration), not by importing the tools package: a run, a saved state or a
notebook view knows their call items even before anyone imports their tools.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

from ..errors import ModelBehaviorError, UserError
from .capabilities import ToolCapabilities
from .display import DisplayPart, ToolDisplay, output_parts
from .function.function_tool import FunctionTool, raising_invoker
from .hosted import HostedTool
from .outputs import to_model_output

if TYPE_CHECKING:
    from ..context import ToolContext

__all__ = [
    "DisplayPart",
    "LocalTool",
    "ParsedCall",
    "ToolCapabilities",
    "ToolDisplay",
    "ToolKind",
    "chat_form_kind",
    "describe_call",
    "function_kind_param",
    "json_object",
    "kind_for_call",
    "kind_for_tool",
    "register_tool_kind",
    "tool_kinds",
]


def json_object(arguments: str) -> dict[str, Any]:
    """``arguments`` as a dict: empty when they are blank, not JSON, or not an object."""
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


LocalTool: TypeAlias = ToolCapabilities
"""What the run reads of a tool it executes (any kind): ``ToolCapabilities``."""

ToolT = TypeVar("ToolT", bound=ToolCapabilities)
"""The class of a kind's tools (``ShellTool`` for the shell kind); every tool class declares
its capabilities (``ToolCapabilities``)."""

ValueT = TypeVar("ValueT")
"""What a kind's ``ToolKind.invoke`` returns: its calls' own value (``ShellResult``, or a
text saying why the command did not run)."""


@dataclass(frozen=True)
class ParsedCall:
    """A call read off a model output item."""

    name: str
    """The tool name the call names (the kind's name for kinds with one tool)."""

    call_id: str
    """The id the output item must answer."""

    arguments: str
    """The raw arguments text (JSON for function tools)."""


@dataclass
class ToolKind(Generic[ToolT, ValueT]):
    """One kind of tool. Subclass it (or instantiate it for hosted-style kinds) and register.

    Generic over its tools' class (``ToolT``) and what running a call returns (``ValueT``): a
    subclass says both (``class ShellKind(ToolKind[ShellTool, ShellResult | str])``), and its
    methods are checked against them. The run holds kinds of every sort: ``ToolKind[Any, Any]``.
    An output item is made from the call's value or, when it did not run (rejected, failed,
    timed out), from a text saying so; a display is made from whatever output the run kept
    (a restored run keeps only the model's view of it), hence ``object``.

    The defaults describe a kind with no executor (hosted): its calls are shown and recorded,
    never run here.
    """

    name: str
    """Unique name, e.g. ``"function"``."""

    tool_classes: tuple[type[ToolCapabilities], ...]
    """Tool objects of these classes belong to the kind (each a ``ToolCapabilities``)."""

    call_types: tuple[str, ...] = ()
    """Model output item types that are calls of this kind."""

    executable: bool = False
    """Whether calls run in this process (False: the provider ran them)."""

    def responses_param(self, tool: ToolT) -> dict[str, Any]:
        """The tool as a Responses API ``tools`` entry."""
        return dict(tool.to_tool_param())  # type: ignore[attr-defined]

    def chat_param(self, tool: ToolT) -> dict[str, Any] | None:
        """The tool as a Chat Completions ``tools`` entry; None when it cannot be one."""
        return None

    def parse_call(self, raw: Any) -> ParsedCall:
        """Read a call item of this kind."""
        call_id = getattr(raw, "call_id", None) or getattr(raw, "id", None) or ""
        name = getattr(raw, "name", None) or raw.type.removesuffix("_call")
        return ParsedCall(name=str(name), call_id=str(call_id), arguments="")

    def parse_chat_call(self, raw: Any) -> ParsedCall:
        """Read a call of this kind that came in its Chat Completions form: a ``function_call``
        item naming one of the kind's tools (see ``chat_param``)."""
        return ParsedCall(name=raw.name, call_id=raw.call_id, arguments=raw.arguments or "")

    def chat_output_item(self, call: ParsedCall, value: ValueT | str) -> dict[str, Any]:
        """The input item answering a call made in the Chat Completions form (a function call
        output: text, images and files, see ``to_model_output``)."""
        return {
            "type": "function_call_output",
            "call_id": call.call_id,
            "output": to_model_output(value),
        }

    def argument_problem(self, tool: ToolT, arguments: str) -> str | None:
        """Why ``arguments`` cannot be used at all (checked before approval); None if usable."""
        return None

    def parsed_arguments(self, arguments: str) -> dict[str, Any]:
        """The arguments as a dict, for approval requests and displays."""
        return {}

    async def invoke(self, tool: ToolT, ctx: ToolContext[Any], arguments: str) -> ValueT:
        """Run the call; returns the tool's own value."""
        raise ModelBehaviorError(f"Tools of kind {self.name!r} run at the provider, not here.")

    def output_item(self, call: ParsedCall, value: ValueT | str) -> dict[str, Any]:
        """The input item that answers ``call`` with ``value`` (or why it did not run)."""
        raise ModelBehaviorError(f"Tools of kind {self.name!r} run at the provider, not here.")

    def decided_alone(self, arguments: str, tool: Any = None, run_config: Any = None) -> bool:
        """Whether the call (to ``tool``, in a run with ``run_config``) is decided on its own
        (it asks to run outside the sandbox, runs a dangerous command, writes where the sandbox
        would not): no standing ("always") decision covers it, and none is made from it."""
        return False

    def escalated_arguments(self, arguments: str, reason: str) -> str:
        """The arguments of the same call asking to run outside the sandbox, for ``reason``
        (a kind whose ``invoke`` raises ``EscalationRequest`` implements this)."""
        raise NotImplementedError(f"Tools of kind {self.name!r} do not run in a sandbox.")

    def with_tool(self, tool: ToolT, raw: Any, display: ToolDisplay) -> ToolDisplay:
        """``display`` with what only the tool knows (a ``cached`` badge, its code); called when
        the call's tool is known."""
        return display

    def describe(self, raw: Any, output: object = None) -> ToolDisplay:
        """How a person sees the call (and its output, once there is one)."""
        call = self.parse_call(raw)
        error = getattr(raw, "error", None) if output is None else None
        if output is None:  # a hosted call carries its own result
            output = getattr(raw, "output", None)
        parts = () if output is None else output_parts(output)
        if error:
            parts = (*parts, DisplayPart("error", str(error)))
        return ToolDisplay(kind=self.name, title=call.name, arguments=None, parts=parts)


def function_kind_param(tool: FunctionTool) -> dict[str, Any]:
    """A function tool as a Responses API ``tools`` entry (``defer_loading`` when set)."""
    param: dict[str, Any] = {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.params_json_schema,
        "strict": tool.strict_json_schema,
    }
    if tool.defer_loading:
        param["defer_loading"] = True
    return param


class FunctionKind(ToolKind[FunctionTool, Any]):
    """Function tools: JSON arguments in, any value out; offered on both wire formats."""

    def __init__(self) -> None:
        super().__init__(
            name="function",
            tool_classes=(FunctionTool,),
            call_types=("function_call",),
            executable=True,
        )

    def responses_param(self, tool: FunctionTool) -> dict[str, Any]:
        return function_kind_param(tool)

    def chat_param(self, tool: FunctionTool) -> dict[str, Any] | None:
        return {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.params_json_schema,
                "strict": tool.strict_json_schema,
            },
        }

    def parse_call(self, raw: Any) -> ParsedCall:
        return ParsedCall(name=raw.name, call_id=raw.call_id, arguments=raw.arguments or "")

    def argument_problem(self, tool: FunctionTool, arguments: str) -> str | None:
        if not arguments.strip():
            return None
        try:
            value = json.loads(arguments)
        except ValueError:
            return (
                f"Invalid JSON input for tool {tool.name}: the arguments are not valid JSON. "
                "Call the tool again with a JSON object."
            )
        if isinstance(value, dict):
            problem = tool.arguments_problem(value)  # a tool's own rules (ask_user)
            return f"Tool {tool.name!r}: {problem}. Call it again, fixed." if problem else None
        shown = arguments if len(arguments) <= 40 else arguments[:40] + "..."
        return (
            f"Invalid JSON input for tool {tool.name}: expected a JSON object, got {shown}. "
            "Call the tool again with a JSON object."
        )

    def parsed_arguments(self, arguments: str) -> dict[str, Any]:
        return json_object(arguments)

    async def invoke(self, tool: FunctionTool, ctx: ToolContext[Any], arguments: str) -> Any:
        return await raising_invoker(tool)(ctx, arguments)

    def output_item(self, call: ParsedCall, value: Any) -> dict[str, Any]:
        return {
            "type": "function_call_output",
            "call_id": call.call_id,
            "output": to_model_output(value),
        }

    def describe(self, raw: Any, output: object = None) -> ToolDisplay:
        call = self.parse_call(raw)
        try:
            arguments: Any = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError:
            arguments = call.arguments
        parts = () if output is None else output_parts(output)
        return ToolDisplay(kind=self.name, title=call.name, arguments=arguments, parts=parts)

    def with_tool(self, tool: FunctionTool, raw: Any, display: ToolDisplay) -> ToolDisplay:
        if tool.describe_this_call is not None:  # a card made for this very call item when
            return tool.describe_this_call(display, raw)  # it asked (the notebook's cell tools)
        return tool.describe_call(display)  # e.g. an MCP tool names its server


@dataclass
class _Registry:
    kinds: list[ToolKind[Any, Any]] = field(default_factory=list)
    by_call_type: dict[str, ToolKind[Any, Any]] = field(default_factory=dict)
    built_in_loaded: bool = False


_registry = _Registry()

_BUILT_IN_MODULES = (
    "patch.apply_patch",
    "base_tool",
    "computer.computer_tool",
    "plan",
    "shell.shell_tool",
)
"""The modules of the built-in kinds besides function and hosted tools (defined here); each
registers its kinds when it is imported."""
_BUILT_IN_KINDS = {"apply_patch", "base_tool", "computer", "plan", "shell", "local_shell"}
"""The names of the kinds those modules register."""


def _load_built_in_kinds() -> None:
    """Import the built-in kinds' modules, the first time a kind is looked up or registered.

    Registering one of them imports the others (it calls ``register_tool_kind``): an import
    already under way returns at once, and the registry counts as loaded once every built-in
    kind is in it. A kind registered by anyone else therefore comes after the built-ins and
    replaces their claims, as when the tools package imported them all.
    """
    if _registry.built_in_loaded:
        return
    for name in _BUILT_IN_MODULES:
        importlib.import_module(f"{__package__}.{name}")
    _registry.built_in_loaded = {k.name for k in _registry.kinds} >= _BUILT_IN_KINDS


def _add(kind: ToolKind[Any, Any]) -> None:
    _registry.kinds = [k for k in _registry.kinds if k.name != kind.name] + [kind]
    for call_type in kind.call_types:
        _registry.by_call_type[call_type] = kind


def register_tool_kind(kind: ToolKind[Any, Any]) -> None:
    """Make ``kind`` known to every run (a later kind claiming the same class or call type
    replaces the earlier claim).

    Raises:
        UserError: One of its tool classes does not subclass ``ToolCapabilities`` (the run
            reads what a tool declares there).
    """
    for cls in kind.tool_classes:
        if not (isinstance(cls, type) and issubclass(cls, ToolCapabilities)):
            raise UserError(
                f"Tool kind {kind.name!r}: its tool class {cls!r} does not subclass "
                "ToolCapabilities (from jupyter_agents.runtime.tools.kinds), which declares "
                "what the run reads of a tool, each with a default: derive the class from it."
            )
    _load_built_in_kinds()
    _add(kind)


def tool_item_types() -> frozenset[str]:
    """The input item types that carry tool traffic: every registered kind's calls and, for
    kinds that run here, their outputs (``shell_call`` and ``shell_call_output``, ...)."""
    types: set[str] = set()
    for kind in tool_kinds():
        types.update(kind.call_types)
        if kind.executable:
            types.update(f"{call_type}_output" for call_type in kind.call_types)
    return frozenset(types)


def tool_kinds() -> tuple[ToolKind[Any, Any], ...]:
    """Every registered kind."""
    _load_built_in_kinds()
    return tuple(_registry.kinds)


def kind_for_tool(tool: object) -> ToolKind[Any, Any] | None:
    """The kind ``tool`` belongs to (the most recently registered match), or None."""
    _load_built_in_kinds()
    matches = (k for k in reversed(_registry.kinds) if isinstance(tool, k.tool_classes))
    return next(matches, None)


def kind_for_call(call_type: str) -> ToolKind[Any, Any] | None:
    """The kind whose calls have output item type ``call_type``, or None."""
    _load_built_in_kinds()
    return _registry.by_call_type.get(call_type)


def chat_form_kind(raw: Any, tool: Any) -> ToolKind[Any, Any] | None:
    """The kind of ``tool`` when ``raw`` is a call to it in that kind's Chat Completions form
    (a ``function_call`` naming a tool of a kind that is not a function tool); else None."""
    if tool is None or getattr(raw, "type", None) != "function_call":
        return None
    kind = kind_for_tool(tool)
    if kind is None or kind is FUNCTION or kind.chat_param(tool) is None:
        return None
    return kind


def describe_call(call_item: Any, output_item: Any = None) -> ToolDisplay:
    """How a person sees a run's tool call item (and its output item, once there is one; a
    replayed output brings how it looked when it was recorded)."""
    recorded = getattr(output_item, "display", None)
    if isinstance(recorded, ToolDisplay):
        return recorded
    raw = call_item.raw_item
    kind = kind_for_call(raw.type)
    tool = None
    if kind is FUNCTION:  # perhaps a tool of another kind in its function form (a shell)
        agent = getattr(call_item, "agent", None)
        named = getattr(agent, "tool_named", None)
        tool = named(raw.name) if callable(named) else None
        kind = chat_form_kind(raw, tool) or kind
    output = getattr(output_item, "output", None) if output_item is not None else None
    if kind is None:
        name = getattr(raw, "name", None) or raw.type
        return ToolDisplay(kind="unknown", title=str(name))
    display = kind.describe(raw, output)
    return display if tool is None else kind.with_tool(tool, raw, display)


FUNCTION = FunctionKind()
"""The kind of function tools (``@tool``)."""

HOSTED: ToolKind[HostedTool, Any] = ToolKind(
    name="hosted",
    tool_classes=(HostedTool,),
    call_types=(
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "tool_search_call",
    ),
)
"""Hosted tools: declarations the provider runs; their calls are shown, never run here."""

_add(FUNCTION)  # the built-ins defined here: the other modules' come when first needed
_add(HOSTED)
