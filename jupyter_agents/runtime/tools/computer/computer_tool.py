"""The computer tool: the model sees screenshots and sends mouse and keyboard actions.

``ComputerTool(computer)`` drives any ``Computer`` or ``AsyncComputer`` (the SDK's
protocols); ``BrowserComputer`` is a real
one (Playwright and the system Chromium). On the Responses API the tool is
``computer_use_preview`` (``computer_call`` items answered by a screenshot); Chat Completions
models get a function tool ``computer`` taking the same action. Safety checks the model raises
go through the approval flow: the call waits for a person unless ``on_safety_check`` decides.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, Union

from ..._util import call_maybe_async
from ...errors import ModelBehaviorError, UserError
from ..capabilities import ToolCapabilities
from ..kinds import DisplayPart, ParsedCall, ToolDisplay, ToolKind, json_object, register_tool_kind
from .computer_protocol import AsyncComputer, Button, Computer, Environment

if TYPE_CHECKING:
    from ...context import ToolContext

__all__ = [
    "AsyncComputer",
    "Button",
    "Computer",
    "ComputerAction",
    "ComputerTool",
    "ComputerToolSafetyCheckData",
    "Environment",
]

_BLANK_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJ"
    "RU5ErkJggg=="
)

ACTIONS = ("click", "double_click", "scroll", "type", "wait", "move", "keypress", "drag")
"""The actions a model may send (``screenshot`` only looks)."""


@dataclass
class ComputerToolSafetyCheckData:
    """What ``ComputerTool.on_safety_check`` gets for each check the model raised."""

    ctx_wrapper: Any
    """The run's context."""

    tool_call: dict[str, Any]
    """The call: its action and pending safety checks."""

    safety_check: dict[str, Any]
    """One check: ``id``, ``code`` and ``message``."""


SafetyCheckHandler: TypeAlias = Callable[
    [ComputerToolSafetyCheckData], Union[bool, Awaitable[bool]]
]


@dataclass(eq=False)
class ComputerTool(ToolCapabilities):
    """The computer tool for ``computer``.

    Calls run without asking unless ``needs_approval`` says so, or the model raised safety
    checks: those calls wait for a person (the checks are shown with the action), unless
    ``on_safety_check`` acknowledges every one of them (returns True).
    """

    computer: Computer | AsyncComputer
    """What the actions drive."""

    on_safety_check: SafetyCheckHandler | None = None
    """Decides on the model's safety checks without asking a person (sync or async)."""

    needs_approval: Any = False
    """As for any tool: a bool, or ``(run_context, arguments, call_id) -> bool``."""

    name: str = field(default="computer", init=False)
    """The name calls use (``computer``)."""

    def __post_init__(self) -> None:
        if not isinstance(self.computer, (Computer, AsyncComputer)):
            raise UserError(
                "ComputerTool needs a Computer or AsyncComputer (for example BrowserComputer()), "
                f"got {type(self.computer).__name__}."
            )
        asked = self.needs_approval
        if isinstance(asked, bool) and not asked:
            self.needs_approval = self._pending_checks_need_a_person

    async def _pending_checks_need_a_person(
        self, ctx: Any, arguments: dict[str, Any], _call_id: str
    ) -> bool:
        checks = arguments.get("pending_safety_checks") or []
        if not checks:
            return False
        if self.on_safety_check is None:
            return True
        for check in checks:
            data = ComputerToolSafetyCheckData(ctx, arguments, check)
            verdict = await call_maybe_async(self.on_safety_check, data)
            if not verdict:
                return True  # not acknowledged: a person decides
        return False

    @property
    def dimensions(self) -> tuple[int, int]:
        """The screen size the model is told (1024 x 768 when the computer does not say)."""
        return self.computer.dimensions or (1024, 768)


@dataclass(frozen=True)
class ComputerAction:
    """A call's action, checked."""

    type: str
    x: int = 0
    y: int = 0
    button: str = "left"
    text: str = ""
    keys: tuple[str, ...] = ()
    scroll_x: int = 0
    scroll_y: int = 0
    path: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, data: Any) -> ComputerAction:
        """The action in ``data`` (a dict); ``ValueError`` says what is wrong."""
        if not isinstance(data, dict) or data.get("type") not in (*ACTIONS, "screenshot"):
            raise ValueError(f"the action must be one of {', '.join(ACTIONS)} or screenshot")
        kind = data["type"]

        def number(key: str) -> int:
            value = data.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{kind} needs a number {key!r}")
            return int(value)

        path = tuple((number_of(p, "x"), number_of(p, "y")) for p in data.get("path") or [])
        keys = data.get("keys") or ()
        if not all(isinstance(k, str) for k in keys):
            raise ValueError("keys must be strings")
        text = data.get("text") or ""
        if not isinstance(text, str):
            raise ValueError("text must be a string")
        return cls(
            type=kind,
            x=number("x"),
            y=number("y"),
            button=str(data.get("button") or "left"),
            text=text,
            keys=tuple(keys),
            scroll_x=number("scroll_x"),
            scroll_y=number("scroll_y"),
            path=path,
        )


def number_of(point: Any, key: str) -> int:
    value = point.get(key) if isinstance(point, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"each point of a drag path needs a number {key!r}")
    return int(value)


@dataclass(frozen=True)
class ComputerResult:
    """What a computer call returns: the screen after the action."""

    screenshot: str
    """Base64 PNG."""

    acknowledged: tuple[dict[str, Any], ...] = ()
    """The safety checks a decision acknowledged."""

    action: str = ""
    """The action that was performed."""

    @property
    def image_url(self) -> str:
        return f"data:image/png;base64,{self.screenshot}"


async def _perform(computer: Computer | AsyncComputer, action: ComputerAction) -> str:
    """Do ``action`` and return the screenshot after it."""

    async def call(method: str, *args: Any) -> Any:
        function = getattr(computer, method)
        if isinstance(computer, AsyncComputer):
            return await function(*args)
        return await asyncio.to_thread(function, *args)

    kind = action.type
    if kind == "click":
        await call("click", action.x, action.y, action.button)
    elif kind == "double_click":
        await call("double_click", action.x, action.y)
    elif kind == "scroll":
        await call("scroll", action.x, action.y, action.scroll_x, action.scroll_y)
    elif kind == "type":
        await call("type", action.text)
    elif kind == "wait":
        await call("wait")
    elif kind == "move":
        await call("move", action.x, action.y)
    elif kind == "keypress":
        await call("keypress", list(action.keys))
    elif kind == "drag":
        await call("drag", [tuple(p) for p in action.path])
    shot = await call("screenshot")
    if not isinstance(shot, str) or not shot:
        raise ModelBehaviorError("The computer returned no screenshot.")
    return shot


_ACTION_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {
            "type": "object",
            "description": (
                "One action: {type: click|double_click|scroll|type|wait|move|keypress|drag|"
                "screenshot, x, y, button, text, keys, scroll_x, scroll_y, path: [{x, y}]}"
            ),
            "properties": {"type": {"type": "string", "enum": [*ACTIONS, "screenshot"]}},
            "required": ["type"],
        }
    },
    "required": ["action"],
}


class ComputerKind(ToolKind[ComputerTool, ComputerResult]):
    """``computer_call`` items (Responses) or ``computer`` function calls (Chat Completions)."""

    def __init__(self) -> None:
        super().__init__(
            name="computer",
            tool_classes=(ComputerTool,),
            call_types=("computer_call",),
            executable=True,
        )
        self._last: dict[str, str] = {}  # the latest screenshot, by tool name

    def responses_param(self, tool: ComputerTool) -> dict[str, Any]:
        width, height = tool.dimensions
        environment = tool.computer.environment or "browser"
        return {
            "type": "computer_use_preview",
            "display_width": width,
            "display_height": height,
            "environment": environment,
        }

    def chat_param(self, tool: ComputerTool) -> dict[str, Any] | None:
        width, height = tool.dimensions
        description = (
            f"Use a computer ({tool.computer.environment or 'browser'}, a {width}x{height} "
            "screen): send one action; the answer is a screenshot after it."
        )
        return {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": description,
                "parameters": _ACTION_SCHEMA,
            },
        }

    def parse_call(self, raw: Any) -> ParsedCall:
        action = _plain(getattr(raw, "action", None))
        checks = [_plain(c) for c in getattr(raw, "pending_safety_checks", None) or []]
        arguments = json.dumps({"action": action, "pending_safety_checks": checks})
        return ParsedCall(name="computer", call_id=str(raw.call_id), arguments=arguments)

    def parse_chat_call(self, raw: Any) -> ParsedCall:
        return ParsedCall(name=raw.name, call_id=raw.call_id, arguments=raw.arguments or "{}")

    def parsed_arguments(self, arguments: str) -> dict[str, Any]:
        return json_object(arguments)

    def argument_problem(self, tool: ComputerTool, arguments: str) -> str | None:
        try:
            ComputerAction.of(self.parsed_arguments(arguments).get("action"))
        except ValueError as e:
            return f"The computer action is not usable: {e}. Send one action object."
        return None

    async def invoke(
        self, tool: ComputerTool, ctx: ToolContext[Any], arguments: str
    ) -> ComputerResult:
        data = self.parsed_arguments(arguments)
        action = ComputerAction.of(data.get("action"))
        shot = await _perform(tool.computer, action)
        self._last[tool.name] = shot
        checks = tuple(c for c in data.get("pending_safety_checks") or [] if isinstance(c, dict))
        return ComputerResult(shot, checks, action.type)

    def output_item(self, call: ParsedCall, value: ComputerResult | str) -> dict[str, Any]:
        if isinstance(value, ComputerResult):
            image, acknowledged = value.image_url, list(value.acknowledged)
        else:  # not run (rejected, failed): the screen as it was, and nothing acknowledged
            image, acknowledged = self._last_image(call.name), []
        item: dict[str, Any] = {
            "type": "computer_call_output",
            "call_id": call.call_id,
            "output": {"type": "computer_screenshot", "image_url": image},
        }
        if acknowledged:
            item["acknowledged_safety_checks"] = acknowledged
        return item

    def chat_output_item(self, call: ParsedCall, value: ComputerResult | str) -> dict[str, Any]:
        if isinstance(value, ComputerResult):
            output: Any = [
                {"type": "input_text", "text": f"Done: {value.action}. The screen now:"},
                {"type": "input_image", "image_url": value.image_url, "detail": "auto"},
            ]
        else:
            output = str(value)
        return {"type": "function_call_output", "call_id": call.call_id, "output": output}

    def _last_image(self, name: str) -> str:
        return f"data:image/png;base64,{self._last.get(name, _BLANK_PNG)}"

    def describe(self, raw: Any, output: object = None) -> ToolDisplay:
        action = _plain(getattr(raw, "action", None))
        title = f"computer: {action.get('type', '?')}" if isinstance(action, dict) else "computer"
        parts: tuple[DisplayPart, ...] = ()
        if isinstance(output, ComputerResult):
            parts = (DisplayPart("image", output.image_url),)
        elif output is not None:
            parts = (DisplayPart("text", str(output)),)
        return ToolDisplay(kind=self.name, title=title, arguments=action, parts=parts)


def _plain(value: Any) -> Any:
    """An openai model object (or dict) as plain data."""
    if value is None:
        return None
    dump = getattr(value, "model_dump", None)
    return dump(exclude_none=True) if dump is not None else value


COMPUTER = ComputerKind()
"""The kind of computer tools."""

register_tool_kind(COMPUTER)
