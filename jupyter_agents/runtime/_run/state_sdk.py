"""The SDK's ``RunState`` schema (``$schemaVersion``): the saved form ``to_json`` writes.

A paused run is first put in this project's own form (``state_schema.SavedState``, which the
loader checks field by field); this module turns that form into a document of the SDK's
schema, and a document of the SDK's schema (written here, or by the SDK) back into it. What the
SDK's schema has no field for (the per-call approval ledger bound to each call's arguments, the
waiting calls, the spend, the mode, the exact model input) travels in a ``jupyter_agents`` entry
the SDK leaves alone; a document without it (one the SDK wrote) is read from the SDK's own
fields. Both directions are pure functions over dicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Final, Union

from pydantic import StrictBool, StrictInt, StrictStr, TypeAdapter
from pydantic import ValidationError as _ValidationError
from typing_extensions import NotRequired, TypedDict

from ..errors import UserError
from .state_schema import (
    STATE_FORMAT,
    STATE_VERSION,
    SavedDecision,
    SavedItem,
    SavedLedger,
    SavedResponse,
    SavedState,
    SavedUsage,
    damaged,
)
from .state_versions import SDK_SCHEMA_VERSION, SDK_SCHEMA_VERSIONS

__all__ = [
    "SDK_SCHEMA_VERSION",
    "SDK_SCHEMA_VERSIONS",
    "from_sdk",
    "is_legacy_version",
    "place_in_document",
    "sdk_usage",
    "to_sdk",
]

EXTENSION: Final = "jupyter_agents"
"""The entry holding what the SDK's schema has no field for."""


class SdkAgentRef(TypedDict):
    """An agent named in a document: its name, and which same-name agent it is."""

    name: StrictStr
    identity: NotRequired[StrictStr]


class SdkItem(TypedDict):
    """One of the run's items (``generated_items``)."""

    type: StrictStr
    raw_item: dict[str, Any]
    agent: SdkAgentRef
    source_agent: NotRequired[Union[SdkAgentRef, None]]
    target_agent: NotRequired[Union[SdkAgentRef, None]]
    approved: NotRequired[Union[StrictBool, None]]
    status: NotRequired[StrictStr]


class SdkInterruption(TypedDict):
    """A call waiting for a decision (``current_step.data.interruptions``)."""

    raw_item: dict[str, Any]
    tool_name: NotRequired[Union[StrictStr, None]]


class SdkStepData(TypedDict):
    """What the run paused on."""

    interruptions: NotRequired[list[SdkInterruption]]


class SdkStep(TypedDict):
    """How the run stood when saved (``current_step``): paused on calls, or to run again."""

    type: StrictStr
    data: NotRequired[SdkStepData]


class SdkApproval(TypedDict):
    """Decisions on one tool (``context.approvals``): call ids, or ``True`` for every call."""

    approved: NotRequired[Union[StrictBool, list[StrictStr]]]
    rejected: NotRequired[Union[StrictBool, list[StrictStr]]]


class SdkContextMeta(TypedDict):
    """How the context was saved."""

    omitted: NotRequired[StrictBool]


class SdkContext(TypedDict):
    """The run's context entry: usage, decisions and the saved context."""

    usage: NotRequired[dict[str, Any]]
    approvals: NotRequired[dict[str, SdkApproval]]
    context: NotRequired[Any]
    context_meta: NotRequired[Union[SdkContextMeta, None]]


SdkState = TypedDict(
    "SdkState",
    {
        "$schemaVersion": StrictStr,
        "current_turn": StrictInt,
        "current_agent": SdkAgentRef,
        "original_input": Union[StrictStr, list[dict[str, Any]]],
        "model_responses": NotRequired[list[SavedResponse]],
        "context": NotRequired[SdkContext],
        "max_turns": NotRequired[Union[StrictInt, None]],
        "generated_items": NotRequired[list[SdkItem]],
        "current_step": NotRequired[Union[SdkStep, None]],
        "trace": NotRequired[Union[dict[str, Any], None]],
        "jupyter_agents": NotRequired[dict[str, Any]],
    },
)
"""The parts of the SDK's document read here (unknown keys are dropped)."""


@cache
def _adapter() -> TypeAdapter[SdkState]:
    return TypeAdapter(SdkState)


def is_legacy_version(version: str) -> bool:
    """Whether a document's version predates hook-independent agent identities (1.21)."""
    return tuple(int(p) for p in version.split(".")) < (1, 21)


# -- writing ------------------------------------------------------------------------------


def _ref(name: str | None, identity: str | None = None) -> dict[str, Any] | None:
    if name is None:
        return None
    ref: dict[str, Any] = {"name": name}
    if identity is not None and identity != name:
        ref["identity"] = identity
    return ref


def sdk_usage(usage: SavedUsage) -> dict[str, Any]:
    """Usage in the SDK's shape (token details as a list of one object)."""
    input_details = {"cached_tokens": usage["cached_tokens"]}
    if usage.get("cache_write_tokens"):
        input_details["cache_write_tokens"] = usage.get("cache_write_tokens", 0)
    return {
        "requests": usage["requests"],
        "input_tokens": usage["input_tokens"],
        "input_tokens_details": [input_details],
        "output_tokens": usage["output_tokens"],
        "output_tokens_details": [{"reasoning_tokens": usage["reasoning_tokens"]}],
        "total_tokens": usage["total_tokens"],
        "request_usage_entries": [],
    }


def _sdk_approvals(ledger: SavedLedger) -> dict[str, dict[str, Any]]:
    """The ledger in the SDK's shape (per tool: the call ids approved and rejected, or
    ``True`` for a standing decision); read back only from a document without the ledger."""
    approvals: dict[str, dict[str, Any]] = {}
    for name, d in ledger.get("always", {}).items():
        approvals[name] = {"approved": d["approved"], "rejected": not d["approved"]}
    for call_id, c in ledger.get("calls", {}).items():
        entry = approvals.setdefault(c["tool_name"], {"approved": [], "rejected": []})
        key = "approved" if c["approved"] else "rejected"
        if isinstance(entry[key], list):
            entry[key].append(call_id)
    return approvals


def _sdk_item(item: SavedItem, identities: Mapping[str, str]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "type": item["type"],
        "raw_item": item["raw"],
        "agent": _ref(item["agent"], identities.get(item["agent"])),
    }
    if "source" in item or "target" in item:
        entry["source_agent"] = _ref(item.get("source"))
        entry["target_agent"] = _ref(item.get("target"))
    if item["type"] == "tool_call_output_item":
        entry["output"] = item["raw"].get("output")
    if "approved" in item:
        entry["approved"] = item["approved"]
    if "status" in item:
        entry["status"] = item["status"]
    return entry


def to_sdk(
    saved: SavedState,
    responses: list[dict[str, Any]],
    interruptions: list[dict[str, Any]],
    context: dict[str, Any] | None,
    context_type: str,
) -> dict[str, Any]:
    """``saved`` as a document of the SDK's schema; ``interruptions`` are the waiting calls
    (``{"raw_item", "tool_name", "agent"}``), ``context`` the serializer's payload (None: the
    context is left out)."""
    identity = saved.get("current_agent_identity")
    current = saved["current_agent"]
    identities = {current: identity} if identity is not None else {}
    extension = {k: v for k, v in saved.items() if k in _EXTENSION_KEYS}
    extension["nested"] = {
        call_id: to_sdk(inner, [], [], None, "none")
        for call_id, inner in saved.get("nested", {}).items()
    }
    for entry in interruptions:
        entry["agent"] = _ref(entry["agent"], identities.get(entry["agent"]))
    return {
        "$schemaVersion": SDK_SCHEMA_VERSION,
        "current_turn": saved["current_turn"],
        "current_agent": _ref(current, identity),
        "original_input": saved["original_input"],
        "pending_input": [],
        "model_responses": responses,
        "context": {
            "usage": sdk_usage(saved["usage"]),
            "approvals": _sdk_approvals(saved["ledger"]),
            "tool_invocations": {},
            "context": context if context is not None else {},
            "context_meta": {
                "original_type": context_type,
                "serialized_via": "context_serializer" if context is not None else "omitted",
                "requires_deserializer": context is not None,
                "omitted": context is None,
            },
        },
        "tool_use_tracker": {},
        "max_turns": saved["max_turns"],
        "no_active_agent_run": True,
        "input_guardrail_results": [],
        "output_guardrail_results": [],
        "tool_input_guardrail_results": [],
        "tool_output_guardrail_results": [],
        "conversation_id": None,
        "previous_response_id": None,
        "auto_previous_response_id": False,
        "generated_items": [_sdk_item(i, identities) for i in saved["new_items"]],
        "session_items": [],
        "current_step": _current_step(interruptions),
        "last_model_response": responses[-1] if responses else None,
        "last_processed_response": _processed(interruptions, saved["new_items"], identities),
        "current_turn_persisted_item_count": 0,
        "trace": saved.get("trace"),
        EXTENSION: extension,
    }


_EXTENSION_KEYS = frozenset(
    {
        "state_id",
        "model_input",
        "history_length",
        "ledger",
        "pending_calls",
        "pending_mcp",
        "pending_handoffs",
        "escalations",
        "spend",
        "mode",
    }
)
"""The fields of ``SavedState`` kept in the ``jupyter_agents`` entry (``nested`` too, as
documents of the SDK's schema)."""


_NO_ACTIONS: Final = (
    "computer_actions",
    "custom_tool_actions",
    "local_shell_actions",
    "shell_actions",
    "apply_patch_actions",
    "handoffs",
    "mcp_approval_requests",
)


def _processed(
    interruptions: list[dict[str, Any]], items: list[SavedItem], identities: Mapping[str, str]
) -> dict[str, Any] | None:
    """The SDK's ``last_processed_response`` for the waiting function calls: what the SDK needs
    to resume a state written here (the decisions are not in it: the SDK asks again)."""
    if not interruptions:
        return None
    calls = [i for i in interruptions if i["raw_item"].get("type") == "function_call"]
    ids = {i["raw_item"].get("call_id") for i in calls}
    return {
        "new_items": [
            _sdk_item(i, identities)
            for i in items
            if i["type"] == "tool_call_item" and i["raw"].get("call_id") in ids
        ],
        "tools_used": [i["tool_name"] for i in calls],
        "functions": [
            {"tool_call": i["raw_item"], "tool": {"name": i["tool_name"]}} for i in calls
        ],
        **{key: [] for key in _NO_ACTIONS},
        "interruptions": [{"type": "tool_approval_item", **i} for i in interruptions],
        "mcp_tool_bindings": {},
    }


def _current_step(interruptions: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not interruptions:
        return None
    return {
        "type": "next_step_interruption",
        "data": {
            "interruptions": [{"type": "tool_approval_item", **i} for i in interruptions],
            "response_accepted": True,
            "llm_end_hooks_started": True,
        },
    }


# -- reading ------------------------------------------------------------------------------


def check_sdk_document(data: dict[str, Any]) -> SdkState:
    """``data`` checked against the parts of the SDK's schema read here; ``UserError``
    naming the first problem."""
    version = data.get("$schemaVersion")
    if not isinstance(version, str) or version not in SDK_SCHEMA_VERSIONS:
        shown = (
            repr(version[:40]) if isinstance(version, str) else f"of type {type(version).__name__}"
        )
        raise UserError(
            f"This RunState has schema version {shown}, which this version of "
            f"jupyter_agents cannot read (it reads 1.0 to {SDK_SCHEMA_VERSION}). Resume it with "
            "the version that saved it."
        )
    try:
        return _adapter().validate_python(data)
    except _ValidationError as e:
        first = e.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "the state"
        message = " ".join(first["msg"].split())
        raise damaged(f"{where}: {message}") from None


def from_sdk(doc: SdkState) -> dict[str, Any]:
    """A checked document of the SDK's schema in this project's form (to be checked as a
    ``SavedState`` next); the ``jupyter_agents`` entry, when there, gives what the SDK's
    fields do not hold."""
    extension = doc.get(EXTENSION) or {}
    if not isinstance(extension, dict):
        raise damaged(f"{EXTENSION}: not an object")
    context = doc.get("context") or {}
    items = [_item(i) for i in doc.get("generated_items", [])]
    saved: dict[str, Any] = {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "current_agent": doc["current_agent"]["name"],
        "original_input": doc["original_input"],
        "new_items": items,
        "usage": _usage(context.get("usage") or {}),
        "current_turn": doc["current_turn"],
        "max_turns": _max_turns(doc.get("max_turns")),
        "model_responses": doc.get("model_responses", []),
    }
    identity = doc["current_agent"].get("identity")
    if identity is not None:
        saved["current_agent_identity"] = identity
    if doc.get("trace"):
        saved["trace"] = doc["trace"]  # checked as a SavedTrace next
    if "ledger" not in extension or "pending_calls" not in extension:
        saved.update(_waiting_from_sdk(doc, items))
    saved.update({k: v for k, v in extension.items() if k in _EXTENSION_KEYS})
    nested = extension.get("nested") or {}
    if not isinstance(nested, dict):
        raise damaged(f"{EXTENSION}.nested: not an object")
    saved["nested"] = {}
    for call_id, inner in nested.items():
        if not isinstance(inner, dict):
            raise damaged(f"{EXTENSION}.nested.{call_id}: not an object")
        saved["nested"][call_id] = from_sdk(check_sdk_document(inner))
    meta = context.get("context_meta") or {}
    payload = context.get("context")
    if not meta.get("omitted", False) and isinstance(payload, dict):
        saved["context"] = payload
    return saved


_PLACES: Final = {
    "usage": "context.usage",
    "context": "context.context",
    "new_items": "generated_items",
    "current_agent": "current_agent.name",
    "current_agent_identity": "current_agent.identity",
}
_ITEM_PLACES: Final = {"raw": "raw_item", "agent": "agent.name"}


def place_in_document(loc: tuple[str | int, ...]) -> str:
    """Where a field of the project's form (as ``from_sdk`` made it) is in the document of
    the SDK's schema it came from, for error messages."""
    if not loc:
        return ""
    head, rest = str(loc[0]), [str(p) for p in loc[1:]]
    if head in _EXTENSION_KEYS or head == "nested":
        return ".".join([EXTENSION, head, *rest])
    if head == "new_items" and len(rest) >= 2:
        rest[1] = _ITEM_PLACES.get(rest[1], rest[1])
    return ".".join([_PLACES.get(head, head), *rest])


def _max_turns(value: int | None) -> int:
    """The SDK saves ``None`` for a run without a turn limit (1.10 on)."""
    return 10**9 if value is None else value


def _item(entry: SdkItem) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": entry["type"],
        "agent": entry["agent"]["name"],
        "raw": entry["raw_item"],
    }
    source, target = entry.get("source_agent"), entry.get("target_agent")
    if source is not None:
        item["source"] = source["name"]
    if target is not None:
        item["target"] = target["name"]
    if "approved" in entry:
        item["approved"] = entry["approved"]
    if "status" in entry:
        item["status"] = entry["status"]
    return item


def _waiting_from_sdk(doc: SdkState, items: list[dict[str, Any]]) -> dict[str, Any]:
    """The waiting calls and the decisions on them, from the SDK's ``current_step`` and
    ``context.approvals`` (a decision is bound to the waiting call with its call id, and to
    that call's arguments)."""
    step = doc.get("current_step")
    waiting = []
    if step is not None and step["type"] == "next_step_interruption":
        data = step.get("data") or {}
        waiting = [i["raw_item"].get("call_id") for i in data.get("interruptions", [])]
    calls = {
        i["raw"].get("call_id"): i["raw"]
        for i in items
        if i["type"] == "tool_call_item" and isinstance(i["raw"].get("call_id"), str)
    }
    pending = [c for c in waiting if isinstance(c, str) and c in calls]
    ledger: dict[str, Any] = {"always": {}, "calls": {}}
    approvals = (doc.get("context") or {}).get("approvals") or {}
    for tool_name, record in approvals.items():
        for approved in (True, False):
            value = record.get("approved" if approved else "rejected", [])
            if value is True:
                decision: SavedDecision = {"approved": approved, "always": True}
                ledger["always"][tool_name] = decision
            elif isinstance(value, list):
                for call_id in value:
                    raw = calls.get(call_id)
                    if raw is None or raw.get("name") != tool_name or call_id not in pending:
                        continue  # a decision applies only to the waiting call it names
                    ledger["calls"][call_id] = {
                        "approved": approved,
                        "tool_name": tool_name,
                        "call_arguments": str(raw.get("arguments", "")),
                    }
    return {"pending_calls": pending, "pending_mcp": [], "ledger": ledger}


def _first(value: Any) -> dict[str, Any]:
    """The SDK writes token details as a list of one object (older versions: the object)."""
    if isinstance(value, list):
        value = value[0] if value else {}
    return value if isinstance(value, dict) else {}


def _usage(usage: dict[str, Any]) -> dict[str, Any]:
    inputs = _first(usage.get("input_tokens_details"))
    outputs = _first(usage.get("output_tokens_details"))
    return {
        "requests": usage.get("requests", 0),
        "input_tokens": usage.get("input_tokens", 0),
        "output_tokens": usage.get("output_tokens", 0),
        "total_tokens": usage.get("total_tokens", 0),
        "cached_tokens": inputs.get("cached_tokens", 0),
        "cache_write_tokens": inputs.get("cache_write_tokens", 0),
        "reasoning_tokens": outputs.get("reasoning_tokens", 0),
    }
