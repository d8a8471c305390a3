"""Run items: what a run produces, each wrapping a Responses API object.

A run turns every model output into a ``RunItem``. The ``raw_item`` of an item is the
``openai`` package's Responses API object (or, for tool outputs, the input dict sent back to the
model), so items can be fed back to the model unchanged with ``RunItemBase.to_input_item``.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, Union

from pydantic import BaseModel

from .tools.outputs import to_model_output
from .usage import Usage

if TYPE_CHECKING:
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputItem,
        ResponseOutputMessage,
        ResponseReasoningItem,
        ResponseStreamEvent,
    )

    from .agent import Agent
    from .approvals import ApprovalDecision
    from .questions import Question
    from .tools.display import ToolDisplay

__all__ = [
    "FAKE_RESPONSES_ID",
    "HandoffCallItem",
    "HandoffOutputItem",
    "ItemHelpers",
    "MCPApprovalRequestItem",
    "MCPApprovalResponseItem",
    "MCPListToolsItem",
    "MessageOutputItem",
    "ModelResponse",
    "ReasoningItem",
    "RunItem",
    "RunItemBase",
    "TResponseInputItem",
    "TResponseOutputItem",
    "TResponseStreamEvent",
    "ToolApprovalItem",
    "ToolCallItem",
    "ToolCallOutputItem",
    "ToolError",
    "ToolSearchCallItem",
    "ToolSearchOutputItem",
    "ToolStatus",
]

FAKE_RESPONSES_ID = "__fake_id__"
"""The id the SDK gives Responses items made from another API's answer (a chat completion)."""

ToolStatus: TypeAlias = Literal["ok", "error", "timeout", "rejected", "blocked", "cancelled"]
"""How a tool call ended: it returned (``ok``), raised or was refused by its own checks
(``error``), ran out of time (``timeout``), was rejected by a person (``rejected``), was blocked by
a tool guardrail (``blocked``) or was stopped with the run (``cancelled``)."""


@dataclass(frozen=True)
class ToolError:
    """Why a tool call failed, for people: never sent to the model."""

    type: str
    """The exception's class name (``"ValueError"``), or a short kind such as ``"timeout"``."""

    message: str
    """The exception's message."""

    traceback: str | None = None
    """The traceback of the user's own tool code (library frames left out), when there is one."""


TResponseInputItem: TypeAlias = dict[str, Any]
"""One item of model input, in the Responses API's input format (a plain dict)."""

TResponseOutputItem: TypeAlias = "ResponseOutputItem"
"""One item of model output (an ``openai.types.responses`` object)."""

TResponseStreamEvent: TypeAlias = "ResponseStreamEvent"
"""One raw streaming event of the Responses API."""


def _dump(raw: Any) -> TResponseInputItem:
    """``raw`` as replayable input: a dict stays that dict unless it carries ``created_by``
    (output-only metadata the API refuses as input), which is then left out of a copy, at the
    top and in a ``shell_call_output``'s chunks; the original is never changed."""
    if isinstance(raw, dict):
        item: TResponseInputItem = raw
    else:
        item = raw.model_dump(exclude_unset=True, mode="json")
    if "created_by" in item:
        item = {k: v for k, v in item.items() if k != "created_by"}
    if item.get("type") == "shell_call_output":
        chunks = item.get("output")
        if isinstance(chunks, list) and any(
            isinstance(c, dict) and "created_by" in c for c in chunks
        ):
            item = {**item, "output": [_without_created_by(c) for c in chunks]}
    return item


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, bytearray, BaseModel)):
        return [_plain(v) for v in value]
    return value


def _without_created_by(chunk: Any) -> Any:
    if isinstance(chunk, dict) and "created_by" in chunk:
        return {k: v for k, v in chunk.items() if k != "created_by"}
    return chunk


class _AgentField:
    """An agent-valued field of a run item that ``release_agent`` can turn into a weak
    reference: reading it then gives the agent while something else keeps it alive, and None
    after it is collected."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ref = f"_{name}_ref"

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        data = obj.__dict__
        value = data.get(self.name)
        if value is not None:
            return value
        ref = data.get(self.ref)
        return ref() if ref is not None else None

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.name] = value
        obj.__dict__.pop(self.ref, None)

    def release(self, obj: Any) -> None:
        value = obj.__dict__.get(self.name)
        if value is None:
            return
        try:
            obj.__dict__[self.ref] = weakref.ref(value)
        except TypeError:  # not weakly referenceable: keep the strong reference
            return
        obj.__dict__[self.name] = None


@dataclass(eq=False)
class RunItemBase:
    """Common shape of every run item."""

    agent: Agent[Any]
    """The agent whose turn produced the item."""

    raw_item: Any
    """The Responses API object (or input dict) this item wraps."""

    def to_input_item(self) -> TResponseInputItem:
        """The item as model input, for the next turn or a later run (without the output-only
        ``created_by`` field)."""
        return _dump(self.raw_item)

    def release_agent(self) -> None:
        """Keep only a weak reference to the agent(s) this item names: ``item.agent`` stays
        the agent while something else holds it, and becomes None once it is collected."""
        for name in _AGENT_FIELDS.get(type(self), ("agent",)):
            field_ = getattr(type(self), name)
            if isinstance(field_, _AgentField):
                field_.release(self)


@dataclass(eq=False)
class MessageOutputItem(RunItemBase):
    """A message from the model."""

    raw_item: ResponseOutputMessage
    type: Literal["message_output_item"] = "message_output_item"


@dataclass(eq=False)
class ToolCallItem(RunItemBase):
    """A tool call requested by the model: a function call, or a hosted tool's call."""

    raw_item: Any
    type: Literal["tool_call_item"] = "tool_call_item"
    description: str | None = None
    """The tool's description, when whoever made the item knew it (the SDK's field; the run
    leaves it None). Never sent to the model as part of the call."""
    title: str | None = None
    """A short label for the call in user interfaces, when known (the SDK's field; the run
    leaves it None). Never sent to the model as part of the call."""

    @property
    def tool_name(self) -> str | None:
        """Name of the called tool, when the call names one."""
        if isinstance(self.raw_item, Mapping):
            return self.raw_item.get("name")
        return getattr(self.raw_item, "name", None)

    @property
    def call_id(self) -> str | None:
        """The call id the matching output refers to (the item's ``id`` for hosted calls
        without one)."""
        return _call_id(self.raw_item)


@dataclass(eq=False)
class ToolCallOutputItem(RunItemBase):
    """The output of a tool call, as sent back to the model."""

    raw_item: TResponseInputItem
    output: Any = None
    """The tool's own return value, before it was converted for the model."""
    approval: ApprovalDecision | None = None
    """The decision that let the call run or refused it, when the call needed approval."""
    status: ToolStatus = "ok"
    """How the call ended; user interfaces show this, never a guess from the output text."""
    error: ToolError | None = None
    """What went wrong, for ``error`` and ``timeout`` outputs (kept out of what the model sees)."""
    call_item: ToolCallItem | None = None
    """The call this output answers (the same object the run emitted), when known."""
    replayed: bool = False
    """The output comes from a recording (``RunConfig.replay``); the tool did not run."""
    display: ToolDisplay | None = None
    """How the call's card looked when it was recorded (a replayed output): user interfaces
    show it as it was."""
    type: Literal["tool_call_output_item"] = "tool_call_output_item"

    @property
    def call_id(self) -> str | None:
        """The call id this output answers (its ``id`` without one; None without either)."""
        return _call_id(self.raw_item)

    def to_input_item(self) -> TResponseInputItem:
        """The output as model input; a ``shell_call_output`` loses the fields the API does
        not take back (``status``, ``shell_output``, ``provider_data``)."""
        raw = self.raw_item
        if isinstance(raw, dict) and raw.get("type") == "shell_call_output":
            raw = {
                k: v for k, v in raw.items() if k not in ("status", "shell_output", "provider_data")
            }
        return _dump(raw)


@dataclass(eq=False)
class ToolApprovalItem(RunItemBase):
    """A function call waiting for a person's approval (an interruption, or a live request)."""

    raw_item: ResponseFunctionToolCall
    tool_name: str = ""
    """The tool the model wants to run."""
    arguments: dict[str, Any] = field(default_factory=dict)
    """The arguments the model sent, parsed."""
    call_item: ToolCallItem | None = None
    """The call waiting (the same object the run emitted), when known."""
    escalation: str | None = None
    """Set when the call ran in the sandbox, was stopped there, and now asks to run outside
    it (approval policy ``on-failure``): why it failed. ``arguments`` then carry
    ``sandbox_permissions: "require_escalated"``."""
    question: Question | None = None
    """Set when the call asks the person a question (``ask_user``): answer it with
    ``RunState.answer(item, value)``, or ``RunState.skip(item)``."""
    type: Literal["tool_approval_item"] = "tool_approval_item"

    @property
    def name(self) -> str:
        """The tool's name (the SDK's spelling of ``tool_name``)."""
        return self.tool_name

    @property
    def call_id(self) -> str:
        """The id of the call waiting for a decision."""
        return str(self.raw_item.call_id)


def _call_id(raw: Any) -> str | None:
    if isinstance(raw, Mapping):
        value = raw.get("call_id") or raw.get("id")
    else:
        value = getattr(raw, "call_id", None) or getattr(raw, "id", None)
    return str(value) if value is not None else None


@dataclass(eq=False)
class ToolSearchCallItem(RunItemBase):
    """A Responses API ``tool_search_call`` (the model searching deferred tools), kept as the
    ``openai`` object or a dict. This project has no tool search tool; the item exists so that
    histories holding such calls (from the SDK or the Responses API) can be read, filtered
    and replayed."""

    raw_item: Any
    type: Literal["tool_search_call_item"] = "tool_search_call_item"


@dataclass(eq=False)
class ToolSearchOutputItem(RunItemBase):
    """A Responses API ``tool_search_output`` (the tools a search loaded), kept as the
    ``openai`` object or a dict; see ``ToolSearchCallItem``."""

    raw_item: Any
    type: Literal["tool_search_output_item"] = "tool_search_output_item"


@dataclass(eq=False)
class HandoffCallItem(RunItemBase):
    """The model asked to hand off to another agent (a ``transfer_to_...`` call)."""

    raw_item: ResponseFunctionToolCall
    type: Literal["handoff_call_item"] = "handoff_call_item"


@dataclass(eq=False)
class HandoffOutputItem(RunItemBase):
    """A handoff happened: the output sent back for the call."""

    raw_item: TResponseInputItem
    source_agent: Agent[Any] | None = None
    """The agent that handed off."""
    target_agent: Agent[Any] | None = None
    """The agent that took over."""
    type: Literal["handoff_output_item"] = "handoff_output_item"


@dataclass(eq=False)
class MCPListToolsItem(RunItemBase):
    """The tools a hosted MCP server offered (Responses API ``mcp_list_tools``)."""

    raw_item: Any
    type: Literal["mcp_list_tools_item"] = "mcp_list_tools_item"


@dataclass(eq=False)
class MCPApprovalRequestItem(RunItemBase):
    """A hosted MCP server asks to approve a call (``mcp_approval_request``)."""

    raw_item: Any
    type: Literal["mcp_approval_request_item"] = "mcp_approval_request_item"

    @property
    def tool_name(self) -> str:
        """The MCP tool to run."""
        return str(self.raw_item.name)

    @property
    def call_id(self) -> str:
        """The approval request's id; a decision binds to it."""
        return str(self.raw_item.id)

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments, parsed (empty when they are not a JSON object)."""
        return _parse_arguments(self.raw_item.arguments)


@dataclass(eq=False)
class MCPApprovalResponseItem(RunItemBase):
    """Our answer to a hosted MCP approval request (``mcp_approval_response``)."""

    raw_item: TResponseInputItem
    type: Literal["mcp_approval_response_item"] = "mcp_approval_response_item"


def _parse_arguments(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


@dataclass(eq=False)
class ReasoningItem(RunItemBase):
    """A reasoning item (summaries of the model's thinking)."""

    raw_item: ResponseReasoningItem
    type: Literal["reasoning_item"] = "reasoning_item"


RunItem: TypeAlias = Union[
    MessageOutputItem,
    HandoffCallItem,
    HandoffOutputItem,
    ToolCallItem,
    ToolCallOutputItem,
    ReasoningItem,
    ToolApprovalItem,
    MCPListToolsItem,
    MCPApprovalRequestItem,
    MCPApprovalResponseItem,
    ToolSearchCallItem,
    ToolSearchOutputItem,
]
"""Any item a run produces."""

_AGENT_FIELDS: dict[type, tuple[str, ...]] = {
    HandoffOutputItem: ("agent", "source_agent", "target_agent")
}
"""The agent-valued fields of each item class, when not just ``agent``."""

RunItemBase.agent = _AgentField("agent")  # type: ignore[assignment]
HandoffOutputItem.source_agent = _AgentField("source_agent")  # type: ignore[assignment]
HandoffOutputItem.target_agent = _AgentField("target_agent")  # type: ignore[assignment]


@dataclass
class ModelResponse:
    """One complete model response."""

    output: list[Any]
    """Output items (``openai.types.responses`` objects)."""

    usage: Usage = field(default_factory=Usage)
    """Token usage of this response."""

    response_id: str | None = None
    """The provider's id for the response, for server-side conversation state."""

    request_id: str | None = None
    """The provider's id for the request, when it sent one."""

    raw_usage: dict[str, Any] | None = None
    """The provider's usage payload as it came (JSON data), with
    ``ModelSettings(preserve_raw_usage=True)``; None otherwise or when there was none."""

    def to_input_items(self) -> list[TResponseInputItem]:
        """The output as input items for a later request."""
        return [_dump(item) for item in self.output]


class ItemHelpers:
    """Helpers to read text out of items and to build input lists."""

    @classmethod
    def extract_last_content(cls, message: Any) -> str:
        """The last text or refusal of an output message; "" for anything else."""
        if getattr(message, "type", None) != "message" or not message.content:
            return ""
        last = message.content[-1]
        if last.type == "output_text":
            return str(last.text)
        if last.type == "refusal":
            return str(last.refusal)
        return ""

    @classmethod
    def extract_last_text(cls, message: Any) -> str | None:
        """The last text of an output message, or None."""
        if getattr(message, "type", None) != "message" or not message.content:
            return None
        last = message.content[-1]
        return str(last.text) if last.type == "output_text" else None

    @classmethod
    def extract_text(cls, message: Any) -> str | None:
        """All text parts of an output message joined, or None when it has none."""
        if getattr(message, "type", None) != "message":
            return None
        # A part's text can be None (built with model_construct, or from some gateways).
        text = "".join(p.text or "" for p in message.content if p.type == "output_text")
        return text or None

    @classmethod
    def input_to_new_input_list(
        cls, input: str | Sequence[TResponseInputItem]
    ) -> list[TResponseInputItem]:
        """A fresh list of input items: a string becomes one user message; a list is copied
        deeply into plain dicts and lists (so validated ``openai`` params, whose lists are
        lazy iterators, can be dumped as JSON)."""
        if isinstance(input, str):
            return [{"role": "user", "content": input}]
        return [_plain(item) for item in input]

    @classmethod
    def text_message_outputs(cls, items: Iterable[RunItem]) -> str:
        """The text of every message item, concatenated."""
        return "".join(
            cls.text_message_output(item) for item in items if isinstance(item, MessageOutputItem)
        )

    @classmethod
    def text_message_output(cls, message: MessageOutputItem) -> str:
        """The text of one message item."""
        return "".join(part.text for part in message.raw_item.content if part.type == "output_text")

    @classmethod
    def tool_call_output_item(
        cls, tool_call: ResponseFunctionToolCall, output: Any
    ) -> TResponseInputItem:
        """A ``function_call_output`` input item answering ``tool_call``: ``output`` as the
        model sees a tool's return value (a string as it is; ``ToolOutputText``,
        ``ToolOutputImage``, ``ToolOutputFileContent``, their dict forms or a list of them as
        ``input_text`` / ``input_image`` / ``input_file`` parts; anything else through
        ``str()``)."""
        converted = to_model_output(output)
        return {"type": "function_call_output", "call_id": tool_call.call_id, "output": converted}
