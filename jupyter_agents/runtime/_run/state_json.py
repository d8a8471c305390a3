"""A paused run's progress to and from its saved form (``RunState.to_json`` / ``from_json``).

The fields are defined once, in ``state_schema``: ``dump_progress`` builds a ``SavedState``,
``dump_document`` writes it as a document of the SDK's schema (``state_sdk``), and
``load_progress`` rebuilds the progress from such a document (or from the project's earlier
format) once ``check_saved_state`` validated what it holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from pydantic import TypeAdapter, ValidationError

from ..approval_ledger import ApprovalLedger
from ..approvals import ApprovalDecision
from ..context import RunContextWrapper
from ..errors import UserError
from ..items import (
    HandoffCallItem,
    HandoffOutputItem,
    ItemHelpers,
    MCPApprovalRequestItem,
    MCPApprovalResponseItem,
    MCPListToolsItem,
    MessageOutputItem,
    ModelResponse,
    ReasoningItem,
    RunItem,
    ToolApprovalItem,
    ToolCallItem,
    ToolCallOutputItem,
    _dump,
)
from ..modes import RunMode
from ..questions import tool_question
from ..tools.kinds import ToolKind, kind_for_call
from ..tools.lookup_names import call_lookup_name
from ..usage import InputTokensDetails, OutputTokensDetails, Usage
from .agent_identity import LEGACY_AMBIGUOUS, agent_graph, find_agent, identity_of, legacy_ambiguous
from .progress import Paused, RunProgress
from .run_trace import loaded_trace, saved_trace
from .spend import Spend
from .state_schema import (
    STATE_FORMAT,
    STATE_VERSION,
    SavedItem,
    SavedResponse,
    SavedState,
    SavedTrace,
    SavedUsage,
    check_saved_state,
    damaged,
)
from .state_sdk import (
    check_sdk_document,
    from_sdk,
    is_legacy_version,
    place_in_document,
    sdk_usage,
    to_sdk,
)

if TYPE_CHECKING:
    from openai.types.responses import ResponseOutputItem

    from ..agent import Agent
    from ..run_state import RunState

__all__ = ["dump_document", "dump_progress", "load_progress", "progress_from", "raw_arguments"]

_ITEM_TYPES: dict[str, type[Any]] = {
    cls.type: cls
    for cls in (
        HandoffCallItem,
        HandoffOutputItem,
        MessageOutputItem,
        ToolCallItem,
        ToolCallOutputItem,
        ReasoningItem,
        MCPListToolsItem,
        MCPApprovalRequestItem,
        MCPApprovalResponseItem,
    )
}


def dump_progress(progress: RunProgress, state_id: str) -> SavedState:
    """The progress in its saved form (JSON-compatible, once ``default=str`` writes what is
    not JSON as text)."""
    paused = progress.paused
    saved: SavedState = {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "state_id": state_id,
        "current_agent": progress.current_agent.name,
        "original_input": progress.original_input,
        "model_input": progress.model_input,
        "new_items": [_dump_item(i) for i in progress.new_items],
        "usage": _dump_usage(progress.context_wrapper.usage),
        "current_turn": progress.current_turn,
        "max_turns": progress.max_turns,
        "history_length": progress.history_length,
        "ledger": progress.ledger.to_json(),
        "pending_calls": [_waiting_id(c) for c in paused.calls],
        "pending_mcp": [r.call_id for r in paused.mcp],
        "pending_handoffs": [h.raw_item.call_id for h in paused.handoffs],
        "nested": {cid: dump_progress(s.progress, s.state_id) for cid, s in paused.nested.items()},
        "escalations": dict(paused.escalations),
        "spend": progress.spend.to_json(),
    }
    if progress.mode.mode != "agent":  # written only when it restricts: agent-mode states
        saved["mode"] = progress.mode.mode  # stay byte for byte what they were
    trace = saved_trace(progress.trace)
    if trace is not None:
        saved["trace"] = cast("SavedTrace", trace)  # TraceState.to_json's keys
    root = progress.starting_agent
    if root is not None and root is not progress.current_agent:
        identity = identity_of(root, progress.current_agent)
        if identity is not None and identity != progress.current_agent.name:
            saved["current_agent_identity"] = identity  # only when agents share its name
    return saved


def dump_document(
    saved: SavedState, progress: RunProgress, context: dict[str, Any] | None, context_type: str
) -> dict[str, Any]:
    """``dump_progress``'s ``saved`` as a document of the SDK's schema, with ``progress``'s
    model responses and waiting calls; ``context`` is the serializer's payload (None: the
    context is left out)."""
    responses = [_dump_response(r) for r in progress.model_responses]
    waiting = [
        {"raw_item": _dump(i.raw_item), "tool_name": i.tool_name, "agent": i.agent.name}
        for i in progress.paused.interruptions
        if isinstance(i, ToolApprovalItem)
    ]
    return to_sdk(saved, responses, waiting, context, context_type)


def _dump_response(response: ModelResponse) -> dict[str, Any]:
    return {
        "usage": sdk_usage(_dump_usage(response.usage)),
        "output": response.to_input_items(),
        "response_id": response.response_id,
        "request_id": response.request_id,
    }


def load_progress(
    agent: Agent[Any],
    text: str,
    context: Any,
    load_context: Callable[[dict[str, Any]], Any] | None = None,
) -> tuple[RunProgress, str | None]:
    """Progress (and its state id) rebuilt from ``dump_progress``'s JSON text; a saved
    context becomes the context through ``load_context`` (when ``context`` is None)."""
    parsed = _load_checked(text)
    if "$schemaVersion" in parsed:
        data = check_saved_state(_project_form(agent, parsed), place_in_document)
    else:  # the project's earlier format
        data = check_saved_state(parsed)
    if load_context is not None and "context" in data:
        context = load_context(data["context"])
    return progress_from(agent, data, context)


def progress_from(
    agent: Agent[Any], data: SavedState, context: Any
) -> tuple[RunProgress, str | None]:
    """Progress (and its state id) rebuilt from a validated saved state."""
    root = agent
    agent = find_agent(root, data["current_agent"], data.get("current_agent_identity"))
    owners = _item_owners(root, agent)
    items = [_load_item(raw, owners, n) for n, raw in enumerate(data["new_items"])]
    calls = {i.call_id: i for i in items if isinstance(i, ToolCallItem) and i.call_id}
    mcp = {i.call_id: i for i in items if isinstance(i, MCPApprovalRequestItem)}
    handoffs = {i.raw_item.call_id: i for i in items if isinstance(i, HandoffCallItem)}
    pending_calls = _pending(calls, data["pending_calls"], "pending_calls")
    pending_mcp = _pending(mcp, data["pending_mcp"], "pending_mcp")
    pending_handoffs = _pending(handoffs, data.get("pending_handoffs", []), "pending_handoffs")
    nested = _load_nested(agent, data.get("nested", {}), pending_calls, context)
    saved_escalations = data.get("escalations", {})
    escalations = {
        c.call_id: _json_object(saved_escalations[c.call_id], "escalations")
        for c in pending_calls
        if c.call_id in saved_escalations
    }
    interruptions = _interruptions(agent, pending_calls, nested, escalations)
    interruptions.extend(pending_mcp)
    usage = _usage(data["usage"])
    responses = data.get("model_responses", [])
    model_input = data.get("model_input")
    if model_input is None:  # a document the SDK wrote: the input, then the items
        model_input = ItemHelpers.input_to_new_input_list(data["original_input"])
        model_input += [i.to_input_item() for i in items]
    progress = RunProgress(
        current_agent=agent,
        original_input=data["original_input"],
        model_input=model_input,
        context_wrapper=RunContextWrapper(context=context, usage=usage),
        max_turns=data["max_turns"],
        new_items=items,
        current_turn=data["current_turn"],
        ledger=ApprovalLedger.from_json(data["ledger"]),
        paused=Paused(
            pending_calls, pending_mcp, pending_handoffs, interruptions, nested, escalations
        ),
        history_length=data.get("history_length", 0),
        spend=Spend.from_json(data.get("spend", [])),
        mode=RunMode(data.get("mode", "agent")),
        starting_agent=root,
        model_responses=[_load_response(r, n) for n, r in enumerate(responses)],
        trace=loaded_trace(data.get("trace")),
    )
    return progress, data.get("state_id")


def _item_owners(root: Agent[Any], current: Agent[Any]) -> dict[str, Agent[Any]]:
    """The agents a saved item's agent name stands for: the running agent's name is that
    agent; another name is the one agent of the graph with it (an item whose name several
    agents share, or none, is given the running agent)."""
    counts: dict[str, list[Agent[Any]]] = {}
    for a in agent_graph(root) if root is not current else [current]:
        counts.setdefault(a.name, []).append(a)
    owners = {name: found[0] for name, found in counts.items() if len(found) == 1}
    owners[current.name] = current
    owners[""] = current
    return owners


def _interruptions(
    agent: Agent[Any],
    pending_calls: list[ToolCallItem],
    nested: dict[str, RunState],
    escalations: dict[str, str],
) -> list[ToolApprovalItem | MCPApprovalRequestItem]:
    """What the paused calls wait for: a nested run's own interruptions, or an approval of
    the call (with the escalated arguments the person was shown, when it asks to leave the
    sandbox)."""
    interruptions: list[ToolApprovalItem | MCPApprovalRequestItem] = []
    for c in pending_calls:
        if c.call_id in nested:
            interruptions.extend(nested[c.call_id].interruptions)
            continue
        kind = _call_kind(c)
        parsed = kind.parse_call(c.raw_item)
        escalated = escalations.get(c.call_id or "")
        arguments = json.loads(escalated) if escalated else kind.parsed_arguments(parsed.arguments)
        interruptions.append(
            ToolApprovalItem(
                agent=agent,
                raw_item=c.raw_item,
                tool_name=parsed.name,
                arguments=arguments,
                call_item=c,
                escalation=str(arguments.get("justification", "")) if escalated else None,
                question=tool_question(
                    _tool_named(agent, call_lookup_name(c.raw_item, parsed.name)), arguments
                ),
            )
        )
    return interruptions


def _tool_named(agent: Agent[Any], name: str) -> Any:
    return next((t for t in agent.tools if t.lookup_name == name), None)


def _dump_usage(usage: Usage) -> SavedUsage:
    return cast("SavedUsage", usage.totals())  # the same keys: SavedUsage types them


def _waiting_id(call: ToolCallItem) -> str:
    """A waiting call's id: every call a tool kind runs has one (its output names it)."""
    assert call.call_id is not None
    return call.call_id


def _usage(saved: SavedUsage) -> Usage:
    return Usage(
        requests=saved["requests"],
        input_tokens=saved["input_tokens"],
        output_tokens=saved["output_tokens"],
        total_tokens=saved["total_tokens"],
        input_tokens_details=InputTokensDetails(
            saved["cached_tokens"], saved.get("cache_write_tokens", 0)
        ),
        output_tokens_details=OutputTokensDetails(saved["reasoning_tokens"]),
    )


def _load_nested(
    agent: Agent[Any],
    saved: dict[str, SavedState],
    pending_calls: list[ToolCallItem],
    context: Any,
) -> dict[str, RunState]:
    """The paused runs of agent tools, rebuilt with the agents those tools run."""
    nested: dict[str, RunState] = {}
    for call_id, data in saved.items():
        call = next((c for c in pending_calls if c.call_id == call_id), None)
        if call is None:
            raise damaged(f"nested names call {call_id!r}, which is not a pending call")
        tool = next((t for t in agent.tools if t.name == call.tool_name), None)
        inner = tool.nested_agent() if tool is not None else None
        if inner is None:
            raise UserError(
                f"This RunState holds a paused run of agent tool {call.tool_name!r}, but agent "
                f"{agent.name!r} has no such agent tool now."
            )
        from ..run_state import RunState  # the state wraps progress: it imports this module

        progress, state_id = progress_from(inner, data, context)
        nested[call_id] = RunState(progress, state_id=state_id)
    return nested


def _pending(known: dict[Any, Any], ids: list[str], field: str) -> list[Any]:
    missing = [c for c in ids if c not in known]
    if missing:
        raise damaged(f"{field} names call {missing[0]!r}, which is not among new_items")
    found = [known[c] for c in ids]
    if field == "pending_calls" and not all(
        getattr(kind_for_call(c.raw_item.type), "executable", False) for c in found
    ):
        raise damaged(f"{field} names a call that no tool kind runs here")
    return found


def _call_kind(call: ToolCallItem) -> ToolKind[Any, Any]:
    kind = kind_for_call(call.raw_item.type)
    if kind is None:
        raise damaged(f"no tool kind handles {call.raw_item.type!r} calls")
    return kind


def raw_arguments(item: ToolApprovalItem | MCPApprovalRequestItem) -> str:
    """The arguments text a decision binds to, as the model sent it (for a call asking to
    leave the sandbox, with the escalation the person was shown)."""
    if isinstance(item, MCPApprovalRequestItem):
        return str(item.raw_item.arguments or "")
    if item.escalation is not None:
        return json.dumps(item.arguments)  # made by json.dumps: the same text
    kind = kind_for_call(item.raw_item.type)
    if kind is None:
        return str(getattr(item.raw_item, "arguments", "") or "")
    return kind.parse_call(item.raw_item).arguments


def _load_response(saved: SavedResponse, index: int) -> ModelResponse:
    """A saved model response, its output items checked as the model's output items."""
    try:
        output = [
            _output_items().validate_python(o, by_alias=True, by_name=True) for o in saved["output"]
        ]
    except ValidationError as e:
        problem = str(e).splitlines()[0]
        raise damaged(f"model_responses.{index} is malformed ({problem})") from None
    usage = saved.get("usage") or {}
    return ModelResponse(
        output=output,
        usage=_usage(cast("SavedUsage", _flat_usage(usage))),
        response_id=saved.get("response_id"),
        request_id=saved.get("request_id"),
    )


def _flat_usage(usage: dict[str, Any]) -> dict[str, int]:
    """A response's usage, in the flat form or the SDK's (token details as lists)."""
    counts = {k: v for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)}
    for key in ("input_tokens_details", "output_tokens_details"):
        details = usage.get(key)
        details = details[0] if isinstance(details, list) and details else details
        if isinstance(details, dict):
            counts.update({k: v for k, v in details.items() if isinstance(v, int)})
    names = ("requests", "input_tokens", "output_tokens", "total_tokens", "cached_tokens")
    more = ("cache_write_tokens", "reasoning_tokens")
    return {k: max(0, counts.get(k, 0)) for k in names + more}


def _project_form(root: Agent[Any], data: dict[str, Any]) -> dict[str, Any]:
    """A document of the SDK's schema, checked, in the project's form."""
    doc = check_sdk_document(data)
    if is_legacy_version(doc["$schemaVersion"]) and legacy_ambiguous(root):
        raise UserError(LEGACY_AMBIGUOUS)
    return from_sdk(doc)


def _load_checked(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as e:
        raise UserError(f"This is not a saved RunState (invalid JSON: {e}).") from None
    except RecursionError:
        raise UserError("This is not a saved RunState (its JSON nests too deeply).") from None
    if isinstance(data, dict) and "$schemaVersion" in data:
        return data
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise UserError("This is not a saved RunState (no '$schemaVersion' marker).")
    version = data.get("version")
    if version != STATE_VERSION:
        raise UserError(
            f"This RunState was saved by an incompatible version of jupyter_agents (state "
            f"version {version}, this version reads {STATE_VERSION}). Resume it with the "
            "version that saved it."
        )
    return data


def _dump_item(item: RunItem) -> SavedItem:
    entry: SavedItem = {
        "type": item.type,
        "agent": item.agent.name,
        "raw": item.to_input_item(),
    }
    if isinstance(item, HandoffOutputItem):
        if item.source_agent is not None:
            entry["source"] = item.source_agent.name
        if item.target_agent is not None:
            entry["target"] = item.target_agent.name
    if isinstance(item, ToolCallOutputItem):
        if item.approval is not None:
            entry["approved"] = item.approval.approved
        if item.status != "ok":
            entry["status"] = item.status
    return entry


def _load_item(entry: SavedItem, owners: dict[str, Agent[Any]], index: int) -> RunItem:
    agent = owners.get(entry["agent"], owners[""])
    cls = _ITEM_TYPES.get(entry["type"])
    if cls is None:
        raise UserError(f"Unknown item type {entry['type']!r} in a saved RunState.")
    try:
        return _build_item(cls, entry, agent, owners)
    except (ValidationError, KeyError, TypeError, AttributeError) as e:
        problem = str(e).splitlines()[0]
        raise damaged(f"new_items.{index} ({entry['type']}) is malformed ({problem})") from None


def _build_item(
    cls: type[Any], entry: SavedItem, agent: Agent[Any], owners: dict[str, Agent[Any]]
) -> RunItem:
    raw = entry["raw"]
    if cls is HandoffOutputItem:
        if raw.get("type") != "function_call_output" or not isinstance(raw.get("call_id"), str):
            raise TypeError("a handoff output must be a function_call_output with a call_id")
        return HandoffOutputItem(
            agent=agent,
            raw_item=raw,
            source_agent=owners.get(entry.get("source", ""), agent),
            target_agent=owners.get(entry.get("target", ""), agent),
        )
    if cls in (ToolCallOutputItem, MCPApprovalResponseItem):
        if cls is ToolCallOutputItem:
            approved = entry.get("approved")
            approval = None if approved is None else ApprovalDecision(approved=bool(approved))
            if not isinstance(raw.get("call_id"), str):
                raise TypeError("a tool output needs a string call_id")
            return ToolCallOutputItem(
                agent=agent,
                raw_item=raw,
                output=raw.get("output"),
                approval=approval,
                status=entry.get("status", "ok"),
            )
        return MCPApprovalResponseItem(agent=agent, raw_item=raw)
    # A saved call may name a field by its Python name (``async_``) or its alias (``async``).
    parsed = _output_items().validate_python(raw, by_alias=True, by_name=True)
    if cls is HandoffCallItem and parsed.type != "function_call":
        raise TypeError("a handoff must be a function_call")
    item: RunItem = cls(agent=agent, raw_item=parsed)
    return item


@cache
def _output_items() -> TypeAdapter[ResponseOutputItem]:
    """Checks a saved model output item (built once: building it takes a tenth of a second;
    ``openai``'s types are imported when a state is first loaded)."""
    from openai.types.responses import ResponseOutputItem

    return TypeAdapter(ResponseOutputItem)


def _json_object(text: str, where: str) -> str:
    """``text`` when it is a JSON object (a call's arguments); else the state is damaged."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise damaged(f"{where}: not the arguments of a call")
    return text
