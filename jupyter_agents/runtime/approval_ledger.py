"""The decisions of one run: per call, each used once, and the standing "always" ones."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .approvals import ApprovalDecision

if TYPE_CHECKING:
    from ._run.state_schema import SavedDecision, SavedLedger

__all__ = ["ApprovalLedger"]


@dataclass(frozen=True)
class _Recorded:
    decision: ApprovalDecision
    tool_name: str
    arguments: str


@dataclass
class ApprovalLedger:
    """The decisions of one run: per call, each used once; and "always" per tool.

    A per-call decision comes from ``RunState.approve`` / ``RunState.reject`` and is
    consumed by the one call it was made for (same call id, tool and arguments): a model that
    repeats the call later is asked again. Only "always" decisions stand.
    """

    always: dict[str, ApprovalDecision] = field(default_factory=dict)
    """Standing decisions by tool name."""

    calls: dict[str, _Recorded] = field(default_factory=dict)
    """Decisions not used yet, by call id, bound to the tool and raw arguments."""

    def take(
        self, tool_name: str, call_id: str, arguments: str, *, standing: bool = True
    ) -> ApprovalDecision | None:
        """The decision for this call, used up; else the tool's standing decision (unless
        ``standing`` is False), or None."""
        if self.holds(tool_name, call_id, arguments):
            recorded = self.calls.pop(call_id)
            if standing:
                self.remember_always(tool_name, recorded.decision)
            return recorded.decision
        return self.always.get(tool_name) if standing else None

    def holds(self, tool_name: str, call_id: str, arguments: str) -> bool:
        """Whether a decision waits for exactly this call (same call id, tool and arguments)."""
        recorded = self.calls.get(call_id)
        return recorded is not None and (recorded.tool_name, recorded.arguments) == (
            tool_name,
            arguments,
        )

    def record(
        self, tool_name: str, call_id: str, arguments: str, decision: ApprovalDecision
    ) -> bool:
        """Store a decision for one call; False (nothing stored) if it already has one."""
        if call_id in self.calls:
            return False
        self.calls[call_id] = _Recorded(decision, tool_name, arguments)
        self.remember_always(tool_name, decision)
        return True

    def remember_always(self, tool_name: str, decision: ApprovalDecision) -> None:
        """Keep ``decision`` as the tool's standing decision when it says "always" (the first
        such decision wins)."""
        if decision.always and tool_name not in self.always:
            self.always[tool_name] = ApprovalDecision(
                approved=decision.approved,
                always=True,
                message=decision.message,
                exact=decision.exact,
            )

    def to_json(self) -> SavedLedger:
        """The saved form (``RunState``'s ``ledger``)."""
        return {
            "always": {name: _dump(d) for name, d in self.always.items()},
            "calls": {
                call_id: {
                    "tool_name": r.tool_name,
                    "call_arguments": r.arguments,
                    **_dump(r.decision),
                }
                for call_id, r in self.calls.items()
            },
        }

    @classmethod
    def from_json(cls, data: SavedLedger) -> ApprovalLedger:
        """Rebuild from ``to_json`` (a saved state's, validated first)."""
        ledger = cls(always={name: _load(d) for name, d in data.get("always", {}).items()})
        for call_id, d in data.get("calls", {}).items():
            ledger.calls[call_id] = _Recorded(_load(d), d["tool_name"], d["call_arguments"])
        return ledger


def _dump(d: ApprovalDecision) -> SavedDecision:
    saved: SavedDecision = {
        "approved": d.approved,
        "always": d.always,
        "edited_arguments": d.arguments,
        "message": d.message,
    }
    if d.exact:
        saved["exact"] = True
    return saved


def _load(d: SavedDecision) -> ApprovalDecision:
    return ApprovalDecision(
        approved=d["approved"],
        always=d.get("always", False),
        arguments=d.get("edited_arguments"),
        message=d.get("message"),
        exact=d.get("exact", False),
    )
