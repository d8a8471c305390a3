"""What the run's policy says of a web tool's call: whether it asks, and whether the run
allows the network at all (shared by ``web_fetch`` and ``web_search``)."""

from __future__ import annotations

from typing import Any

from ...approvals import NeedsApproval
from ...errors import UserError
from ...sandbox.policy import APPROVAL_POLICIES, DEFAULT_APPROVAL, ApprovalPolicy

__all__ = ["approval_for", "network_refusal"]


def network_refusal(ctx: Any, name: str) -> str | None:
    """The one line a call gets when its run says no network (``RunConfig.network_access``
    set to False, as ``%agent policy --no-network`` does); None when the run says nothing or
    allows it."""
    run_config = getattr(ctx, "run_config", None)  # a ToolContext's; None outside a run
    if getattr(run_config, "network_access", None) is False:
        return (
            f"{name} is off in this run: its policy says no network (RunConfig("
            "network_access=False), or %agent policy --no-network)."
        )
    return None


def approval_for(
    name: str, approval_policy: ApprovalPolicy | None, needs_approval: NeedsApproval | None
) -> NeedsApproval:
    """A tool's ``needs_approval``: the one given, else a function of the run's approval
    policy (the tool's own, else ``RunConfig.approval_policy``, else ``untrusted``) that asks
    under ``untrusted`` only, and not for a call the run's network policy refuses anyway.

    Raises:
        UserError: ``approval_policy`` is not one of the policies.
    """
    if approval_policy is not None and approval_policy not in APPROVAL_POLICIES:
        raise UserError(
            f"{name}: approval_policy must be one of {', '.join(APPROVAL_POLICIES)}, got "
            f"{approval_policy!r}."
        )
    if needs_approval is not None:
        return needs_approval

    def asks(ctx: Any, _arguments: dict[str, Any], _call_id: str) -> bool:
        if network_refusal(ctx, name) is not None:
            return False  # refused at once: nobody is asked about a call that cannot run
        run_config = getattr(ctx, "run_config", None)
        shared = getattr(run_config, "approval_policy", None)
        policy = approval_policy or shared or DEFAULT_APPROVAL
        return bool(policy == "untrusted")

    return asks
