"""A paused run's saved fields, defined once: what ``to_json`` writes and ``from_json`` reads.

``to_json`` writes a document of the SDK's schema (``state_sdk``); this is the project's own
form under it, which the SDK's document is turned into and then checked as, and the whole
format states were saved in before (``format`` / ``version`` 1), which still loads.

The writers (``state_json.dump_progress``, ``ApprovalLedger.to_json``, ``Spend.to_json``) build
these dicts, so mypy checks them against this definition; the reader validates the parsed JSON
against the same definition (``check_saved_state``) before anything is rebuilt from it, then
reads the validated dicts through the same types. A saved state is untrusted input (a file
someone sent): every scalar is strict, counts are not negative, and a damaged or hand-edited
state is one ``UserError`` line naming the first problem, never a ``KeyError`` from the middle
of the loader.

Keys added after version 1 was first written (``state_id``, ``history_length``,
``pending_handoffs``, ``nested``, ``escalations``, ``spend``, ``mode``, ``context``, an output's
``status``, the ``cache_write_tokens`` counts) are ``NotRequired``, so older states still load;
the writer always writes them (``mode`` and ``context`` only when set). The layout is version 1;
``STATE_VERSION`` stays 1: new states are written in the SDK's schema. Writers import this module
only for type checking: pydantic is loaded when a state is, not before.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import Field, StrictBool, StrictInt, StrictStr, TypeAdapter
from pydantic import ValidationError as _ValidationError
from typing_extensions import NotRequired, TypedDict

from ..errors import UserError
from ..items import ToolStatus, TResponseInputItem
from ..modes import Mode
from .state_versions import STATE_FORMAT, STATE_VERSION

__all__ = [
    "STATE_FORMAT",
    "STATE_VERSION",
    "SavedCallDecision",
    "SavedDecision",
    "SavedItem",
    "SavedLedger",
    "SavedResponse",
    "SavedSpentCall",
    "SavedState",
    "SavedUsage",
    "check_saved_state",
    "damaged",
]


Count = Annotated[StrictInt, Field(ge=0)]
"""A number of tokens, requests or turns."""


class SavedDecision(TypedDict):
    """A person's decision (``ApprovalDecision``)."""

    approved: StrictBool
    always: NotRequired[StrictBool]
    """Whether it stands for the tool's later calls (default False)."""
    edited_arguments: NotRequired[Union[dict[str, Any], None]]
    """Arguments the person gave instead of the model's."""
    message: NotRequired[Union[StrictStr, None]]
    """What the model is told of a rejection."""
    exact: NotRequired[StrictBool]
    """Whether ``message`` is all the model is told (default False)."""


class SavedCallDecision(SavedDecision):
    """A decision for one call, bound to its tool and the arguments it was made on."""

    tool_name: StrictStr
    call_arguments: StrictStr
    """The call's arguments text, as the decision saw it."""


class SavedLedger(TypedDict):
    """The decisions not used yet (``ApprovalLedger``)."""

    always: NotRequired[dict[str, SavedDecision]]
    """Standing decisions by tool name."""
    calls: NotRequired[dict[str, SavedCallDecision]]
    """Per-call decisions by call id."""


class SavedItem(TypedDict):
    """One of the run's items: its kind, its agent's name and the item as model input."""

    type: StrictStr
    """The ``RunItem`` type (``tool_call_item``, ``message_output_item``, ...)."""
    agent: StrictStr
    raw: TResponseInputItem
    """Checked as a JSON object here, and as the item type's own model when rebuilt."""
    approved: NotRequired[Union[StrictBool, None]]
    """For a tool output: the decision it ran or was refused under."""
    status: NotRequired[ToolStatus]
    """For a tool output: how it ended (written only when not ``ok``)."""
    source: NotRequired[StrictStr]
    """For a handoff's output: the agent that handed off."""
    target: NotRequired[StrictStr]
    """For a handoff's output: the agent that took over."""


class SavedUsage(TypedDict):
    """The run's usage (``Usage``)."""

    requests: Count
    input_tokens: Count
    output_tokens: Count
    total_tokens: Count
    cached_tokens: Count
    cache_write_tokens: NotRequired[Count]
    reasoning_tokens: Count


class SavedSpentCall(TypedDict):
    """One model call's spending (``SpentCall``)."""

    model: StrictStr
    price_model: NotRequired[Union[StrictStr, None]]
    """What it is priced as (None: never priced)."""
    provider: NotRequired[Union[StrictStr, None]]
    input_tokens: Count
    output_tokens: Count
    cached_tokens: NotRequired[Count]
    cache_write_tokens: NotRequired[Count]
    reasoning_tokens: NotRequired[Count]


class SavedResponse(TypedDict):
    """One model response (``ModelResponse``), as the SDK's schema saves it."""

    usage: NotRequired[dict[str, Any]]
    output: list[dict[str, Any]]
    """Output items by their Python field names; checked as output items when rebuilt."""
    response_id: NotRequired[Union[StrictStr, None]]
    request_id: NotRequired[Union[StrictStr, None]]


class SavedTrace(TypedDict):
    """The paused run's trace (``TraceState``, without the tracing key: its fingerprint only)."""

    id: StrictStr
    object: NotRequired[StrictStr]
    workflow_name: NotRequired[Union[StrictStr, None]]
    group_id: NotRequired[Union[StrictStr, None]]
    metadata: NotRequired[Union[dict[str, Any], None]]
    tracing_api_key_hash: NotRequired[Union[StrictStr, None]]


class SavedState(TypedDict):
    """A paused run (``RunProgress``), in the order ``to_json`` writes it."""

    format: Literal["jupyter_agents.run_state"]
    version: Literal[1]
    state_id: NotRequired[Union[StrictStr, None]]
    """Identifies the pause: a state resumes once per process."""
    current_agent: StrictStr
    """The name of the agent that was running."""
    current_agent_identity: NotRequired[StrictStr]
    """Which of the same-name agents of the starting agent's graph of handoffs was running
    (``name#2``, ...; written only when agents share its name)."""
    original_input: Union[StrictStr, list[TResponseInputItem]]
    model_input: NotRequired[list[TResponseInputItem]]
    """What the next model call gets (a document the SDK wrote has none: it is then the input
    and the items)."""
    new_items: list[SavedItem]
    usage: SavedUsage
    current_turn: Count
    max_turns: Annotated[StrictInt, Field(ge=1)]
    history_length: NotRequired[Count]
    """How many of ``model_input``'s first items came from the session."""
    ledger: SavedLedger
    pending_calls: list[StrictStr]
    """Call ids (among ``new_items``) waiting for decisions."""
    pending_mcp: list[StrictStr]
    """Hosted MCP approval requests waiting, by id."""
    pending_handoffs: NotRequired[list[StrictStr]]
    """Handoffs performed once the calls are decided, by call id."""
    nested: NotRequired[dict[str, SavedState]]
    """Paused runs of agent tools, by the outer call id."""
    escalations: NotRequired[dict[str, StrictStr]]
    """For calls stopped by the sandbox: the escalated arguments the person is shown."""
    spend: NotRequired[list[SavedSpentCall]]
    mode: NotRequired[Mode]
    """The mode the run was in (``runtime/modes.py``); a resume makes it no freer than the
    ``RunConfig.mode`` it is resumed with."""
    context: NotRequired[dict[str, Any]]
    """The run's context, as ``to_json(context_serializer=...)`` gave it (written only then)."""
    model_responses: NotRequired[list[SavedResponse]]
    """The model's responses before the pause (a resumed result's first ``raw_responses``)."""
    trace: NotRequired[SavedTrace]
    """The paused run's trace; a resumed run continues it only when this process started it
    (``_run/run_trace.py``)."""


@cache
def _adapter() -> TypeAdapter[SavedState]:
    return TypeAdapter(SavedState)  # keys it does not know are dropped


def damaged(problem: str) -> UserError:
    """The error for a saved state that cannot be used (one line)."""
    return UserError(f"This saved RunState is damaged: {problem}. Save it again with to_json().")


def check_saved_state(
    data: dict[str, Any], where_in: Callable[[tuple[str | int, ...]], str] | None = None
) -> SavedState:
    """``data`` as a ``SavedState`` (unknown keys dropped); ``UserError`` naming the first
    problem when it is not one (``where_in`` names a field's place in the document read)."""
    try:
        return _adapter().validate_python(data)
    except _ValidationError as e:
        first = e.errors(include_url=False)[0]
        loc = tuple(first["loc"])
        where = (where_in(loc) if where_in else ".".join(str(p) for p in loc)) or "the state"
        message = " ".join(first["msg"].split())
        raise damaged(f"{where}: {message}") from None
