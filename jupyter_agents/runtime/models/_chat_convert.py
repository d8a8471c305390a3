"""Converting between Responses API items and Chat Completions messages: the SDK's
``Converter`` (``agents.models.chatcmpl_converter``), which the Chat Completions models of this
project (``OpenAIChatCompletionsModel``, ``LitellmModel``) use for every request and answer.

Its defaults are the SDK's. The models add two options of this project (keyword-only, off by
default): ``tool_output_attachments`` sends a tool's images and files in one user message
after the turn's tool messages (Chat Completions tool messages carry text only, and the model
should still see them), and ``developer_as_system`` sends developer messages as system ones
(servers other than OpenAI's often know only ``system``).
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from openai import Omit, omit

from ..errors import AgentsException, UserError
from ..items import FAKE_RESPONSES_ID, TResponseInputItem
from ..model_settings import MCPToolChoice
from ._chat_helpers import ChatCmplHelpers
from ._chat_reasoning import (
    REASONING_FIELD_KEY,
    ChatReasoning,
    ReasoningContentReplayContext,
    ReasoningContentSource,
    ShouldReplayReasoningContent,
    default_should_replay_reasoning_content,
    field_of,
)
from ._openai_params import chat_tools, response_format
from ._responses_build import function_call_item, refusal_part

__all__ = ["FAKE_RESPONSES_ID", "Converter", "refusal_of"]

logger = logging.getLogger("openai.agents")
"""The SDK's logger name: its tests (and users' log filters) look for these warnings there."""


OMITTED_TOOL_OUTPUT = "[tool output omitted]"
"""What a tool message says when the output had nothing Chat Completions carries."""

_ROLES = ("user", "assistant", "system", "developer")


def refusal_of(message: Any) -> str | None:
    """A message's (or a delta's) refusal: ``refusal``, or where LiteLLM keeps it."""
    refusal = field_of(message, "refusal")
    if not refusal:
        extra = field_of(message, "provider_specific_fields")
        refusal = extra.get("refusal") if isinstance(extra, dict) else None
    return refusal if isinstance(refusal, str) and refusal else None


def _breakpoint(source: Mapping[str, Any], target: dict[str, Any]) -> dict[str, Any]:
    """``target`` with ``source``'s ``prompt_cache_breakpoint``, if it has one."""
    mark = source.get("prompt_cache_breakpoint")
    if mark is not None:
        target["prompt_cache_breakpoint"] = mark
    return target


def _canonical_part(part: Any) -> Any:
    """A raw Chat Completions content part (``text``, ``image_url``) as the Responses part
    it stands for; an assistant's ``output_text`` as text. Anything else as it is."""
    if not isinstance(part, dict):
        return part
    kind = part.get("type")
    if kind in ("text", "output_text"):
        if not isinstance(part.get("text"), str):
            raise UserError(f"Only text content is supported here, got: {part}")
        return _breakpoint(part, {"type": "input_text", "text": part["text"]})
    if kind != "image_url":
        return part
    image = part.get("image_url")
    url = image.get("url") if isinstance(image, dict) else None
    if not isinstance(url, str) or not url:
        raise UserError(f"Only image URLs are supported for image_url {part}")
    assert isinstance(image, dict)
    canonical: dict[str, Any] = {"type": "input_image", "image_url": url}
    if image.get("detail") is not None:
        canonical["detail"] = image["detail"]
    return _breakpoint(part, canonical)


def _chat_part(part: Any) -> dict[str, Any]:
    """One Responses input content part as a Chat Completions content part."""
    part = _canonical_part(part)
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "input_text":
        return _breakpoint(part, {"type": "text", "text": part["text"]})
    if kind == "input_image":
        if not part.get("image_url"):
            raise UserError(f"Only image URLs are supported for input_image {part}")
        detail = part.get("detail", "auto")
        # Chat Completions has auto, low and high: "original" asks for the most detail.
        image = {"url": part["image_url"], "detail": "high" if detail == "original" else detail}
        return _breakpoint(part, {"type": "image_url", "image_url": image})
    if kind == "video_url":
        video = part.get("video_url")
        if not isinstance(video, dict) or not video.get("url"):
            raise UserError(f"Only video URLs are supported for video_url {part}")
        return {"type": "video_url", "video_url": {"url": video["url"]}}
    if kind == "input_audio":
        audio = part.get("input_audio")
        if not audio:
            raise UserError(f"Only audio data is supported for input_audio {part}")
        if not isinstance(audio, dict):
            raise UserError(f"input_audio must provide audio data and format {part}")
        if not audio.get("data") or not audio.get("format"):
            raise UserError(f"input_audio requires both data and format {part}")
        sound = {"data": audio["data"], "format": audio["format"]}
        return _breakpoint(part, {"type": "input_audio", "input_audio": sound})
    if kind == "input_file":
        # Inline data first, else an uploaded file's id; a file_url has no chat form.
        if part.get("file_data"):
            file: dict[str, Any] = {"file_data": part["file_data"]}
        elif part.get("file_id"):
            file = {"file_id": part["file_id"]}
        else:
            raise UserError(f"Only file_data or file_id is supported for input_file {part}")
        if part.get("filename"):
            file["filename"] = part["filename"]
        return _breakpoint(part, {"type": "file", "file": file})
    raise UserError(f"Unknown content: {part}")


@dataclass
class _Replay:
    """What the reasoning item before an assistant message adds to it."""

    blocks: list[dict[str, Any]] | None = None
    native_blocks: bool = False
    """True: LiteLLM's ``thinking_blocks`` field; False: blocks rebuilt from an older item,
    which go first in the message's content."""
    reasoning: str | None = None
    reasoning_content: str | None = None

    def apply_blocks(self, message: dict[str, Any]) -> None:
        if not self.blocks:
            return
        if self.native_blocks:
            message["thinking_blocks"] = self.blocks
        else:
            content = message.get("content")
            if isinstance(content, str):
                parts: list[Any] = [{"type": "text", "text": content}]
            else:
                parts = list(content or [])
            message["content"] = [*self.blocks, *parts]
        self.blocks, self.native_blocks = None, False

    def apply_text(self, message: dict[str, Any]) -> None:
        if self.reasoning_content:
            message["reasoning_content"] = self.reasoning_content
        if self.reasoning:
            message["reasoning"] = self.reasoning
        self.reasoning_content = self.reasoning = None


def _is_claude(model: str | None) -> bool:
    name = (model or "").lower()
    return "claude" in name or "anthropic" in name


def _texts(parts: Any, kind: str) -> list[str]:
    return [
        p["text"]
        for p in parts or ()
        if isinstance(p, dict) and p.get("type", kind) == kind and p.get("text")
    ]


@dataclass
class _Builder:
    """The state of one ``items_to_messages`` conversion."""

    model: str | None
    thinking_blocks: bool
    all_tool_content: bool
    base_url: str | None
    hook: ShouldReplayReasoningContent | None
    strict: bool
    attachments_mode: bool
    developer_as_system: bool
    messages: list[dict[str, Any]] = field(default_factory=list)
    assistant: dict[str, Any] | None = None
    replay: _Replay = field(default_factory=_Replay)
    attachments: list[dict[str, Any]] = field(default_factory=list)

    def flush(self, *, keep_reasoning: bool = False) -> None:
        """End the assistant message being built; the reasoning waiting for the next one is
        dropped too unless ``keep_reasoning`` (it belongs to the turn right after it)."""
        if self.assistant is not None:
            if not self.assistant.get("tool_calls"):
                self.assistant.pop("tool_calls", None)
                self.replay.reasoning = self.replay.reasoning_content = None
            self.messages.append(self.assistant)
            self.assistant = None
        if not keep_reasoning:
            self.replay = _Replay()

    def add(self, message: dict[str, Any]) -> None:
        if self.attachments and message.get("role") != "tool":
            self._add_attachments()
        self.messages.append(message)

    def _add_attachments(self) -> None:
        text = {"type": "text", "text": "Tool output attachments:"}
        self.messages.append({"role": "user", "content": [text, *self.attachments]})
        self.attachments = []

    def calling_assistant(self) -> dict[str, Any]:
        """The assistant message the next tool call goes in."""
        if self.assistant is None:
            if self.attachments:
                self._add_attachments()
            self.assistant = {"role": "assistant", "content": None, "tool_calls": []}
        self.replay.apply_blocks(self.assistant)
        self.replay.apply_text(self.assistant)
        return self.assistant

    def role_message(self, role: str, content: Any) -> None:
        self.flush()
        if role == "user":
            self.add({"role": "user", "content": Converter.extract_all_content(content)})
            return
        if role == "developer" and self.developer_as_system:
            role = "system"
        self.add({"role": role, "content": Converter.extract_text_content(content)})

    def output_message(self, item: Mapping[str, Any]) -> None:
        texts: list[str] = []
        refusal: str | None = None
        for part in item["content"]:
            kind = part.get("type")
            if kind == "output_text":
                texts.append(part["text"])
            elif kind == "refusal":
                refusal = part["refusal"]
            elif kind == "output_audio":
                raise UserError(
                    f"Only audio IDs are supported for chat completions, but got: {part}"
                )
            else:
                raise UserError(f"Unknown content type in ResponseOutputMessage: {part}")
        text = "\n".join(texts)
        pending = self.assistant
        content = pending.get("content") if pending is not None else None
        if (
            pending is not None
            and pending.get("tool_calls")
            and "refusal" not in pending
            and (content is None or isinstance(content, list))
        ):
            # The same turn, its calls streamed before its text: one assistant message (the
            # API refuses an assistant message with tool calls followed by another one).
            if text:
                pending["content"] = (
                    [*content, {"type": "text", "text": text}]
                    if isinstance(content, list)
                    else text
                )
            if refusal is not None:
                pending["refusal"] = refusal
            self.replay.apply_blocks(pending)
            self.replay.apply_text(pending)
            return
        # Reasoning, then this message, then the turn's calls: the reasoning stays pending.
        self.flush(keep_reasoning=True)
        if self.attachments:
            self._add_attachments()
        message: dict[str, Any] = {"role": "assistant"}
        if refusal is not None:
            message["refusal"] = refusal
        if text:
            message["content"] = text
        self.replay.apply_blocks(message)
        message["tool_calls"] = []
        self.replay.apply_text(message)
        self.assistant = message

    def function_call(self, item: Mapping[str, Any]) -> None:
        assistant = self.calling_assistant()
        call: dict[str, Any] = {
            "id": item["call_id"],
            "type": "function",
            "function": {"name": item["name"], "arguments": item.get("arguments") or "{}"},
        }
        data = item.get("provider_data")
        if isinstance(data, dict) and "gemini" in (self.model or "").lower():
            signature = data.get("thought_signature")
            if signature:
                call["extra_content"] = {"google": {"thought_signature": signature}}
        assistant["tool_calls"] = [*assistant.get("tool_calls", []), call]

    def file_search_call(self, item: Mapping[str, Any]) -> None:
        assistant = self.calling_assistant()
        arguments = json.dumps({"queries": item.get("queries", []), "status": item.get("status")})
        call = {
            "id": item["id"],
            "type": "function",
            "function": {"name": "file_search_call", "arguments": arguments},
        }
        assistant["tool_calls"] = [*assistant.get("tool_calls", []), call]

    def function_output(self, item: Mapping[str, Any]) -> None:
        call_id = item.get("call_id")
        if call_id is None:
            raise UserError(
                "Unpaired function outputs are supported by Responses but cannot be converted "
                "to Chat Completions tool messages. Use a Responses model to preserve this input."
            )
        self.flush()
        output = item["output"]
        content: Any
        if self.all_tool_content or isinstance(output, str):
            content = Converter.extract_all_content(output)
        else:
            parts = Converter.extract_all_content(output)
            assert isinstance(parts, list)
            texts = [p for p in parts if p.get("type") == "text"]
            media = [p for p in parts if p.get("type") != "text"]
            content = self._with_attachments(texts, media) if self.attachments_mode else texts
            if not content:
                content = self._omitted()
        self.add({"role": "tool", "tool_call_id": call_id, "content": content})

    def _with_attachments(self, texts: list[dict[str, Any]], media: list[dict[str, Any]]) -> str:
        """The tool message's text; its images and files wait for the turn's last tool
        message, then go in one user message."""
        summary = "\n".join(p["text"] for p in texts)
        if media:
            self.attachments.extend(media)
            note = f"[{len(media)} attachment(s) follow after the tool results]"
            summary = f"{summary}\n{note}" if summary else note
        return summary

    def _omitted(self) -> str:
        problem = (
            "Chat Completions tool outputs cannot be empty or contain only non-text content "
            "unless preserve_tool_output_all_content=True."
        )
        if self.strict:
            raise UserError(problem)
        logger.warning(
            "%s Replacing the tool output with a placeholder; enable strict feature "
            "validation to raise an error instead.",
            problem,
        )
        return OMITTED_TOOL_OUTPUT

    def reasoning(self, item: Mapping[str, Any]) -> None:
        self.replay = replay = _Replay()
        data = item.get("provider_data")
        data = data if isinstance(data, dict) else {}
        origin = data.get("model", "")
        came_as = data.get(REASONING_FIELD_KEY)
        content = item.get("content") or []
        if came_as == "reasoning" and self.model == origin:
            texts = _texts(content, "reasoning_text")
            if texts:
                replay.reasoning = "\n".join(texts)
        other_data = any(key != "thinking_blocks" for key in data)
        if (
            self.thinking_blocks
            and _is_claude(self.model)
            and (self.model == origin or not other_data)
        ):
            blocks = data.get("thinking_blocks")
            if isinstance(blocks, list) and blocks and all(isinstance(b, dict) for b in blocks):
                replay.reasoning = None
                replay.blocks, replay.native_blocks = copy.deepcopy(blocks), True
            elif content and came_as != "reasoning":
                signatures = (item.get("encrypted_content") or "").split("\n")
                signatures = [s for s in signatures if s] if item.get("encrypted_content") else []
                rebuilt: list[dict[str, Any]] = []
                for part in content:
                    if isinstance(part, dict) and part.get("type") == "reasoning_text":
                        block = {"type": "thinking", "thinking": part.get("text", "")}
                        if signatures:
                            block["signature"] = signatures.pop(0)
                        rebuilt.append(block)
                replay.blocks, replay.native_blocks = rebuilt, False
        if self.model is None:
            return
        context = ReasoningContentReplayContext(
            model=self.model,
            base_url=self.base_url,
            reasoning=ReasoningContentSource(
                item=item, origin_model=origin or None, provider_data=data
            ),
        )
        decide = self.hook or default_should_replay_reasoning_content
        if decide(context):
            texts = _texts(item.get("summary"), "summary_text")
            if texts:
                replay.reasoning_content = "\n".join(texts)

    def finish(self) -> list[dict[str, Any]]:
        self.flush()
        if self.attachments:
            self._add_attachments()
        return self.messages


class Converter:
    """Conversions between the Responses API's items and Chat Completions messages."""

    @classmethod
    def convert_tool_choice(
        cls, tool_choice: Literal["auto", "required", "none"] | str | MCPToolChoice | None
    ) -> Any:
        """``ModelSettings.tool_choice`` as Chat Completions' ``tool_choice`` (``omit`` for
        None); a tool name picks that function."""
        if tool_choice is None:
            return omit
        if isinstance(tool_choice, MCPToolChoice):
            raise UserError("MCPToolChoice is not supported for Chat Completions models")
        if tool_choice in ("auto", "required", "none"):
            return tool_choice
        return {"type": "function", "function": {"name": tool_choice}}

    @classmethod
    def convert_response_format(cls, final_output_schema: Any) -> dict[str, Any] | Omit:
        """An agent's output schema as ``response_format`` (``omit`` for plain text)."""
        if final_output_schema is None or final_output_schema.is_plain_text():
            return omit
        fmt = response_format(final_output_schema)
        assert fmt is not None
        return {
            "type": "json_schema",
            "json_schema": {
                "name": "final_output",
                "strict": fmt["strict"],
                "schema": fmt["schema"],
            },
        }

    @classmethod
    def tool_to_openai(cls, tool: Any) -> dict[str, Any]:
        """A function tool as a Chat Completions tool; other tools are a ``UserError``."""
        converted = chat_tools([tool], {tool.name})
        if not converted:
            raise UserError(
                "Hosted tools are not supported with the ChatCompletions API. Got tool type: "
                f"{type(tool)}, tool: {tool}"
            )
        return converted[0]

    @classmethod
    def convert_handoff_tool(cls, handoff: Any) -> dict[str, Any]:
        """A handoff as the function tool the model calls to take it."""
        return chat_tools([], set(), [handoff])[0]

    @classmethod
    def message_to_output_items(
        cls,
        message: Any,
        provider_data: dict[str, Any] | None = None,
        strict_feature_validation: bool = False,
        *,
        new_id: Callable[[str], str] | None = None,
    ) -> list[Any]:
        """A chat completion's message as Responses output items: its reasoning, then its
        text and refusal, then its function calls.

        Args:
            message: The ``ChatCompletionMessage`` (or LiteLLM's message).
            provider_data: Goes on every item (the model, the response's id).
            strict_feature_validation: Raise a ``UserError`` for a custom tool call rather
                than leave it out.
            new_id: This project's: makes each item's id from a prefix (``msg``, ``fc``,
                ``rs``), and gives a call without an id one; default ``FAKE_RESPONSES_ID``.
        """
        ids = new_id or (lambda _prefix: FAKE_RESPONSES_ID)
        items: list[Any] = []
        reasoning = ChatReasoning.of_message(message)
        if reasoning:
            items.append(reasoning.item(ids("rs"), provider_data or {}))
        parts: list[Any] = []
        text = field_of(message, "content")
        if text:
            annotations = ChatCmplHelpers.convert_url_citations(field_of(message, "annotations"))
            parts.append(_output_text(text, annotations))
        refusal = refusal_of(message)
        if refusal:
            parts.append(refusal_part(refusal))
        if field_of(message, "audio"):
            raise AgentsException("Audio is not currently supported")
        if parts:
            from openai.types.responses import ResponseOutputMessage

            fields: dict[str, Any] = {
                "id": ids("msg"),
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": parts,
            }
            if provider_data:
                fields["provider_data"] = dict(provider_data)
            items.append(ResponseOutputMessage.model_construct(**fields))
        for call in field_of(message, "tool_calls") or ():
            kind = getattr(call, "type", "function")
            if kind == "custom":
                if strict_feature_validation:
                    raise UserError(
                        "Custom tool calls are not supported by the Chat Completions converter"
                    )
                continue
            function = getattr(call, "function", None)
            if function is None:
                continue
            call_id = call.id
            if not call_id and new_id is not None:
                call_id = new_id("call")
            item = function_call_item(function.name, function.arguments or "", call_id, ids("fc"))
            extra: dict[str, Any] = dict(provider_data or {})
            google = (field_of(call, "extra_content") or {}).get("google")
            if isinstance(google, dict) and google.get("thought_signature"):
                extra["thought_signature"] = google["thought_signature"]
            if extra:
                item.provider_data = extra  # type: ignore[attr-defined]
            items.append(item)
        return items

    @classmethod
    def maybe_easy_input_message(cls, item: Any) -> dict[str, Any] | None:
        """``item`` if it is a bare ``{"role", "content"}`` message (``type`` ``message`` and
        ``phase`` allowed), else None."""
        if not isinstance(item, dict):
            return None
        keys = set(item)
        if not {"content", "role"} <= keys or not keys <= {"content", "role", "type", "phase"}:
            return None
        if item.get("type", "message") != "message":
            return None
        if item.get("phase") not in (None, "commentary", "final_answer"):
            return None
        return item if item["role"] in _ROLES else None

    @classmethod
    def maybe_input_message(cls, item: Any) -> dict[str, Any] | None:
        """``item`` if it is a ``message`` of a user, system or developer, else None."""
        if (
            isinstance(item, dict)
            and item.get("type") == "message"
            and item.get("role") in ("user", "system", "developer")
        ):
            return item
        return None

    @classmethod
    def maybe_file_search_call(cls, item: Any) -> dict[str, Any] | None:
        return _of_type(item, "file_search_call")

    @classmethod
    def maybe_function_tool_call(cls, item: Any) -> dict[str, Any] | None:
        return _of_type(item, "function_call")

    @classmethod
    def maybe_function_tool_call_output(cls, item: Any) -> dict[str, Any] | None:
        return _of_type(item, "function_call_output")

    @classmethod
    def maybe_item_reference(cls, item: Any) -> dict[str, Any] | None:
        return _of_type(item, "item_reference")

    @classmethod
    def maybe_response_output_message(cls, item: Any) -> dict[str, Any] | None:
        """``item`` if it is an assistant's output message (with ``id`` and ``content``)."""
        if (
            isinstance(item, dict)
            and item.get("type") == "message"
            and item.get("role") == "assistant"
            and {"id", "content"} <= set(item)
        ):
            return item
        return None

    @classmethod
    def maybe_reasoning_message(cls, item: Any) -> dict[str, Any] | None:
        return _of_type(item, "reasoning")

    @classmethod
    def extract_all_content(cls, content: str | Iterable[Any]) -> str | list[dict[str, Any]]:
        """Message content as Chat Completions content: a string as it is, parts converted
        (raw Chat Completions parts are taken too)."""
        if isinstance(content, str):
            return content
        return [_chat_part(part) for part in content]

    @classmethod
    def extract_text_content(cls, content: str | Iterable[Any]) -> str | list[dict[str, Any]]:
        """Like ``extract_all_content``, keeping only the text parts."""
        converted = cls.extract_all_content(content)
        if isinstance(converted, str):
            return converted
        texts: list[dict[str, Any]] = []
        for part in converted:
            if part.get("type") == "text":
                texts.append(part)
            elif part.get("type") == "video_url":
                raise UserError(f"Only text content is supported here, got: {part}")
        return texts

    @classmethod
    def items_to_messages(
        cls,
        items: str | Iterable[TResponseInputItem],
        model: str | None = None,
        preserve_thinking_blocks: bool = False,
        preserve_tool_output_all_content: bool = False,
        base_url: str | None = None,
        should_replay_reasoning_content: ShouldReplayReasoningContent | None = None,
        strict_feature_validation: bool = False,
        *,
        tool_output_attachments: bool = False,
        developer_as_system: bool = False,
    ) -> list[dict[str, Any]]:
        """Responses input items as Chat Completions messages.

        A turn's text and function calls make one assistant message with ``tool_calls``,
        whatever their order; function outputs become tool messages. A reasoning item adds
        to the assistant message after it what the model wants back: Claude's thinking blocks
        (``preserve_thinking_blocks``, for the model that wrote them), the ``reasoning`` text
        to the model that wrote it, and its summary as ``reasoning_content`` where
        ``should_replay_reasoning_content`` (default: DeepSeek's rule) says so.

        Args:
            items: A user's text, or input items.
            model: The model the messages go to.
            preserve_thinking_blocks: Send Claude's thinking blocks back (LiteLLM takes them).
            preserve_tool_output_all_content: Keep a tool output's images and files in its
                tool message; otherwise only its text goes (an output without text becomes a
                placeholder, with a warning).
            base_url: The request's endpoint, for the replay hook.
            should_replay_reasoning_content: The replay hook.
            strict_feature_validation: Raise a ``UserError`` instead of sending a placeholder.
            tool_output_attachments: This project's: a tool output's images and files go in
                one user message after the turn's tool messages, the tool message's text
                (a string) saying they follow.
            developer_as_system: This project's: developer messages go as system messages.
        """
        if isinstance(items, str):
            return [{"role": "user", "content": items}]
        builder = _Builder(
            model=model,
            thinking_blocks=preserve_thinking_blocks,
            all_tool_content=preserve_tool_output_all_content,
            base_url=base_url.rstrip("/") if base_url is not None else None,
            hook=should_replay_reasoning_content,
            strict=strict_feature_validation,
            attachments_mode=tool_output_attachments,
            developer_as_system=developer_as_system,
        )
        for item in items:
            if (easy := cls.maybe_easy_input_message(item)) is not None:
                if easy["role"] == "assistant":
                    builder.flush()
                    content = cls.extract_text_content(easy["content"])
                    builder.add({"role": "assistant", "content": content})
                else:
                    builder.role_message(easy["role"], easy["content"])
            elif (message := cls.maybe_input_message(item)) is not None:
                builder.role_message(message["role"], message["content"])
            elif (output := cls.maybe_response_output_message(item)) is not None:
                builder.output_message(output)
            elif (search := cls.maybe_file_search_call(item)) is not None:
                builder.file_search_call(search)
            elif (call := cls.maybe_function_tool_call(item)) is not None:
                builder.function_call(call)
            elif (result := cls.maybe_function_tool_call_output(item)) is not None:
                builder.function_output(result)
            elif (reference := cls.maybe_item_reference(item)) is not None:
                raise UserError(
                    f"Encountered an item_reference, which is not supported: {reference}"
                )
            elif (reasoning := cls.maybe_reasoning_message(item)) is not None:
                builder.reasoning(reasoning)
            elif _of_type(item, "compaction") is not None:
                raise UserError(
                    "Compaction items are not supported for chat completions. "
                    "Please use the Responses API to handle compaction."
                )
            else:
                raise UserError(f"Unhandled item type or structure: {item}")
        return builder.finish()


def _of_type(item: Any, kind: str) -> dict[str, Any] | None:
    return item if isinstance(item, dict) and item.get("type") == kind else None


def _output_text(text: str, annotations: list[Any]) -> Any:
    from openai.types.responses import ResponseOutputText

    return ResponseOutputText.model_construct(
        type="output_text", text=text, annotations=annotations, logprobs=[]
    )
