"""The layout of a saved ``RunState``, checked before anything is rebuilt from it.

A damaged or hand-edited state is a ``UserError`` that says what is wrong, never a
``KeyError`` from the middle of the loader.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from pydantic import ValidationError as _ValidationError

from .state_json import damaged

__all__ = ["check_saved_state"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Decision(_Model):
    approved: StrictBool
    always: StrictBool = False
    edited_arguments: Optional[dict[str, Any]] = None
    message: Optional[StrictStr] = None


class _CallDecision(_Decision):
    tool_name: StrictStr
    call_arguments: StrictStr


class _Ledger(_Model):
    always: dict[str, _Decision] = Field(default_factory=dict)
    calls: dict[str, _CallDecision] = Field(default_factory=dict)


class _Item(_Model):
    type: StrictStr
    agent: StrictStr
    raw: dict[str, Any]
    approved: Optional[StrictBool] = None
    status: StrictStr = "ok"


class _Usage(_Model):
    requests: StrictInt = Field(ge=0)
    input_tokens: StrictInt = Field(ge=0)
    output_tokens: StrictInt = Field(ge=0)
    total_tokens: StrictInt = Field(ge=0)
    cached_tokens: StrictInt = Field(ge=0)
    cache_write_tokens: StrictInt = Field(default=0, ge=0)
    reasoning_tokens: StrictInt = Field(ge=0)


class _SpentCall(_Model):
    model: StrictStr
    price_model: Optional[StrictStr] = None
    provider: Optional[StrictStr] = None
    input_tokens: StrictInt = Field(ge=0)
    output_tokens: StrictInt = Field(ge=0)
    cached_tokens: StrictInt = Field(default=0, ge=0)
    cache_write_tokens: StrictInt = Field(default=0, ge=0)
    reasoning_tokens: StrictInt = Field(default=0, ge=0)


class _State(_Model):
    format: Literal["jupyter_agents.run_state"]
    version: StrictInt
    state_id: Optional[StrictStr] = None
    current_agent: StrictStr
    original_input: Union[StrictStr, list[dict[str, Any]]]
    model_input: list[dict[str, Any]]
    new_items: list[_Item]
    usage: _Usage
    current_turn: StrictInt = Field(ge=0)
    max_turns: StrictInt = Field(ge=1)
    history_length: StrictInt = Field(default=0, ge=0)
    ledger: _Ledger
    pending_calls: list[StrictStr]
    pending_mcp: list[StrictStr]
    pending_handoffs: list[StrictStr] = Field(default_factory=list)
    nested: dict[str, dict[str, Any]] = Field(default_factory=dict)
    escalations: dict[str, StrictStr] = Field(default_factory=dict)
    spend: list[_SpentCall] = Field(default_factory=list)


def check_saved_state(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with defaults filled in; ``UserError`` naming the first problem when it is
    not a saved state."""
    try:
        return _State.model_validate(data).model_dump(exclude_unset=False)
    except _ValidationError as e:
        first = e.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "the state"
        raise damaged(f"{where}: {first['msg']}") from None
