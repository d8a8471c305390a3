"""``BaseTool``: tools written as classes, the way Qwen-Agent's tools are.

A subclass names itself (``name``), says what it does (``description``), takes ``parameters``
(a JSON schema, a pydantic model, or Qwen's list of ``{"name", "type", "description",
"required"}``) and implements ``call(params, **kwargs)``, sync or async. ``params`` is the
model's arguments (a dict, already checked against the schema; ``parse_params`` also takes the
JSON text), and ``kwargs`` holds ``ctx``, the call's ``ToolContext``. The result is a string, a
dict (sent as JSON), or ``ContentItem`` values: text, images (an image input for the model
and a picture in the card) and files.

Settings: ``BaseTool(cfg)`` takes a dict; ``BaseTool.setting`` reads a key from it, else
from the environment variable ``JUPYTER_AGENTS_<NAME>_<KEY>``, else from the class's
``defaults``. Register a class with ``@register_tool("name")`` to name it in
``Agent(tools=["name", {"name": "name", "key": value}])``.

A tool that raises does not end the run: its ``failure_error_function`` (as for function tools)
turns the exception into the model's message, by default one line naming the tool and the
error (``one_line_tool_error``); the person's card keeps the traceback of their own code.
Give another function (``BaseTool(failure_error_function=f)``, ``cfg`` or a class attribute)
or None to let the exception end the run.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import inspect
import json
import mimetypes
import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

from ..errors import UserError
from ..tracing import custom_span
from .capabilities import ToolCapabilities
from .display import DisplayPart, LiveOutput, ToolDisplay, output_parts
from .function._json_validate import check_arguments
from .function.function_form import FunctionFormKind
from .function.tool_cache import ToolCache
from .kinds import ParsedCall, register_tool_kind
from .outputs import ToolOutput, ToolOutputFileContent, ToolOutputImage, ToolOutputText
from .view_image import image_type

if TYPE_CHECKING:
    from ..context import ToolContext

__all__ = ["BaseTool", "ContentItem", "one_line_tool_error"]

MAX_CONTENT_BYTES = 5 * 1024 * 1024
"""Largest image or file a tool's result may carry inline."""

MAX_ERROR_CHARS = 2_000
"""Longest error message the model is told (the rest is cut)."""

_UNSET: Final = object()


def one_line_tool_error(ctx: Any, error: Exception) -> str:
    """The model's message when a class-based tool raises (its default
    ``failure_error_function``): ``Tool 'NAME' failed: TYPE: MESSAGE`` on one line, cut at
    ``MAX_ERROR_CHARS``, and no traceback (those frames are ours, not the model's to fix)."""
    name = getattr(ctx, "tool_name", "") or "?"
    text = " ".join(str(error).split())
    if len(text) > MAX_ERROR_CHARS:
        text = f"{text[:MAX_ERROR_CHARS]}… ({len(text) - MAX_ERROR_CHARS:,} characters cut)"
    described = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return f"Tool {name!r} failed: {described}"


@dataclass(frozen=True)
class ContentItem:
    """One piece of a tool's result: ``text``, an ``image`` (a ``data:`` URL, an ``https:`` URL
    or a local path to a PNG, JPEG, GIF or WebP file) or a ``file`` (a local path)."""

    text: str | None = None
    image: str | None = None
    file: str | None = None

    def __post_init__(self) -> None:
        if sum(v is not None for v in (self.text, self.image, self.file)) != 1:
            raise UserError("ContentItem takes exactly one of text=, image= or file=.")

    def to_output(self) -> ToolOutput:
        """The structured tool output the model receives."""
        if self.text is not None:
            return ToolOutputText(self.text)
        if self.image is not None:
            if self.image.startswith(("data:image/", "https://", "http://")):
                return ToolOutputImage(image_url=self.image)
            data = _read_limited(self.image)
            kind = image_type(data[:16])
            if kind is None:
                raise UserError(
                    f"ContentItem(image={self.image!r}) is not a PNG, JPEG, GIF or WebP."
                )
            return ToolOutputImage(image_url=f"data:{kind};base64,{_b64(data)}")
        assert self.file is not None
        data = _read_limited(self.file)
        kind = mimetypes.guess_type(self.file)[0] or "application/octet-stream"
        return ToolOutputFileContent(
            file_data=f"data:{kind};base64,{_b64(data)}", filename=Path(self.file).name
        )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _read_limited(path: str) -> bytes:
    file = Path(path)
    if not file.is_file():
        raise UserError(f"ContentItem: {path!r} is not a file.")
    if file.stat().st_size > MAX_CONTENT_BYTES:
        raise UserError(f"ContentItem: {path!r} is larger than {MAX_CONTENT_BYTES:,} bytes.")
    return file.read_bytes()


def _schema_of(parameters: Any) -> dict[str, Any]:
    """A JSON schema from a schema, a pydantic model class or Qwen's list of parameters."""
    if isinstance(parameters, dict):
        return parameters or {"type": "object", "properties": {}}
    if isinstance(parameters, type) and hasattr(parameters, "model_json_schema"):
        return dict(parameters.model_json_schema())
    if isinstance(parameters, list):
        properties = {
            p["name"]: {k: v for k, v in p.items() if k not in ("name", "required")}
            for p in parameters
        }
        required = [p["name"] for p in parameters if p.get("required")]
        return {"type": "object", "properties": properties, "required": required}
    raise UserError(
        f"Tool parameters must be a JSON schema, a pydantic model or a list, got {parameters!r}."
    )


class BaseTool(ToolCapabilities):
    """A tool written as a class (Qwen-Agent's ``BaseTool``); see the module docstring."""

    name: str = ""
    """The tool's name (a class attribute; ``@register_tool("name")`` sets it too)."""
    description: str = ""
    """What the tool does, for the model (a class attribute)."""
    parameters: ClassVar[Any] = {}
    defaults: ClassVar[dict[str, Any]] = {}
    """Settings and their default values (``cfg`` and the environment override them)."""
    reuse_instances: ClassVar[bool] = False
    """Named in several agents with the same settings, the tool is one shared instance (for
    heavy tools, such as one kernel per notebook)."""
    failure_error_function: Any = staticmethod(one_line_tool_error)
    """``(tool_context, error) -> str``: what the model is told when ``call`` raises (sync
    or async); None lets the exception end the run. A class attribute, ``cfg`` or keyword."""
    display_live: ClassVar[LiveOutput] = "text"
    """How the card shows what the tool prints while it runs (``ToolDisplay.live``); with
    ``"terminal"`` its text output is terminal output too (it repeats what was printed)."""

    def __init__(
        self,
        cfg: dict[str, Any] | None = None,
        *,
        cache: ToolCache | None = None,
        needs_approval: Any = None,
        timeout: float | None = None,
        failure_error_function: Any = _UNSET,
    ) -> None:
        if not type(self).name:
            raise UserError(f"{type(self).__name__} needs a name (or @register_tool('name')).")
        self.cfg = dict(cfg or {})
        self.cache = cache if cache is not None else self.cfg.pop("cache", None)
        approval = needs_approval if needs_approval is not None else self.cfg.get("needs_approval")
        self.needs_approval: Any = bool(approval) if isinstance(approval, bool) else approval
        if self.needs_approval is None:
            self.needs_approval = False
        self.timeout = timeout if timeout is not None else self.cfg.get("timeout")
        self.failure_error_function = _error_function(self, failure_error_function)
        self.params_json_schema: dict[str, Any] = _schema_of(type(self).parameters)
        self._cache_hits: deque[str] = deque(maxlen=256)

    def setting(self, key: str) -> Any:
        """``cfg[key]``, else ``$JUPYTER_AGENTS_<NAME>_<KEY>`` (JSON, or text), else the
        class's default (None when it has none)."""
        if key in self.cfg:
            return self.cfg[key]
        variable = f"JUPYTER_AGENTS_{self.name}_{key}".upper().replace("-", "_")
        if (raw := os.environ.get(variable)) is not None:
            try:
                return json.loads(raw)
            except ValueError:
                return raw
        return type(self).defaults.get(key)

    def parse_params(self, params: str | dict[str, Any]) -> dict[str, Any]:
        """``params`` as a dict checked against the schema; a ``ToolArgumentsError`` (told to
        the model) when it is not."""
        from . import ToolArgumentsError

        if isinstance(params, str):
            try:
                params = json.loads(params) if params.strip() else {}
            except ValueError:
                raise ToolArgumentsError(
                    f"{self.name}: the arguments are not valid JSON."
                ) from None
        if not isinstance(params, dict):
            raise ToolArgumentsError(f"{self.name}: the arguments must be a JSON object.")
        problem = check_arguments(params, self.params_json_schema)
        if problem:
            raise ToolArgumentsError(f"{self.name}: {problem}")
        return params

    def display_arguments(self, arguments: dict[str, Any]) -> tuple[DisplayPart, ...]:
        """How a person sees the arguments (e.g. the code to run), in place of their JSON;
        override. The parts show the call (``role="call"``)."""
        return ()

    def validate_arguments(self, arguments: dict[str, Any]) -> str | None:
        """Why edited ``arguments`` cannot be used (None: they can)."""
        return check_arguments(arguments, self.params_json_schema)

    def call(self, params: dict[str, Any], **kwargs: Any) -> Any:
        """Run the tool (override; may be async)."""
        raise NotImplementedError(f"{type(self).__name__}.call is not written.")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def _error_function(tool: BaseTool, given: Any) -> Any:
    """The keyword's function, else ``cfg``'s, else the class's (a plain function written as a
    class attribute is taken as it is, not as a method)."""
    if given is _UNSET:
        given = tool.cfg.pop("failure_error_function", _UNSET)
    if given is _UNSET:
        given = inspect.getattr_static(type(tool), "failure_error_function", None)
        if isinstance(given, (staticmethod, classmethod)):
            given = given.__get__(None, type(tool))
    if given is not None and not callable(given):
        raise UserError(
            f"{type(tool).__name__}: failure_error_function must be a function "
            f"(tool_context, error) -> str, or None; got {given!r}."
        )
    return given


def result_value(result: Any) -> Any:
    """A tool's result as the run keeps it: text, or a list of structured outputs."""
    if isinstance(result, ContentItem):
        result = [result]
    if (
        isinstance(result, (list, tuple))
        and result
        and all(isinstance(r, ContentItem) for r in result)
    ):
        return [r.to_output() for r in result]
    if isinstance(result, dict):
        return json.dumps(result, ensure_ascii=False, default=str)
    return result if isinstance(result, (str, list)) else str(result)


class BaseToolKind(FunctionFormKind[BaseTool, Any]):
    """Class-based tools: offered as function tools on both wire formats."""

    def __init__(self) -> None:
        super().__init__(name="base_tool", tool_classes=(BaseTool,), executable=True)

    async def invoke(self, tool: BaseTool, ctx: ToolContext[Any], arguments: str) -> Any:
        params = tool.parse_params(arguments)
        cache: ToolCache | None = tool.cache
        key = ToolCache.key(tool.name, params) if cache is not None else ""
        if cache is not None and (hit := cache.get(key)) is not None:
            tool._cache_hits.append(ctx.tool_call_id)
            with custom_span("tool cache hit", {"tool": tool.name, "age_s": round(hit.age, 3)}):
                return hit.value
        result = await _call(tool, params, ctx)
        value = result_value(result)
        if cache is not None:
            cache.put(key, value)
        return value

    def output_item(self, call: ParsedCall, value: Any) -> dict[str, Any]:
        return self.chat_output_item(call, value)

    def describe(self, raw: Any, output: object = None) -> ToolDisplay:
        call = self.parse_chat_call(raw)
        parts = () if output is None else output_parts(output)
        return ToolDisplay(
            kind=self.name,
            title=call.name,
            arguments=self.parsed_arguments(call.arguments),
            parts=parts,
        )

    def with_tool(self, tool: BaseTool, raw: Any, display: ToolDisplay) -> ToolDisplay:
        call = tool.display_arguments(display.arguments or {})
        live = tool.display_live
        cached = str(getattr(raw, "call_id", "")) in tool._cache_hits
        if not call and not cached and live == "text":
            return display
        parts = display.parts
        if live == "terminal":
            parts = tuple(
                dataclasses.replace(p, type="terminal") if p.type == "text" else p for p in parts
            )
        return dataclasses.replace(
            display,
            parts=(*(dataclasses.replace(p, role="call") for p in call), *parts),
            live=live,
            badge="cached" if cached else display.badge,
        )


async def _call(tool: BaseTool, params: dict[str, Any], ctx: ToolContext[Any]) -> Any:
    """``tool.call(params, ctx=ctx)``: awaited when async, on a worker thread when sync (so a
    slow tool does not stop the run's loop)."""
    call = tool.call
    if inspect.iscoroutinefunction(call):
        return await call(params, ctx=ctx)
    result = await asyncio.to_thread(call, params, ctx=ctx)
    return await result if inspect.isawaitable(result) else result


BASE_TOOL = BaseToolKind()
"""The kind of class-based tools."""

register_tool_kind(BASE_TOOL)
