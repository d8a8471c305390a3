"""``retry_policies``: ready-made retry policies and the ``any``/``all`` combinators."""

from __future__ import annotations

from collections.abc import Iterable
from inspect import isawaitable

from ._types import RetryDecision, RetryPolicy, RetryPolicyContext

__all__ = ["RetryPolicies", "evaluate_policy", "retry_policies"]


async def evaluate_policy(policy: RetryPolicy, context: RetryPolicyContext) -> RetryDecision:
    """Call ``policy`` (sync or async) and turn its answer into a ``RetryDecision``."""
    answer = policy(context)
    if isawaitable(answer):
        answer = await answer
    if isinstance(answer, RetryDecision):
        return answer
    return RetryDecision(retry=bool(answer))


def _combined(first: RetryDecision, later: RetryDecision) -> RetryDecision:
    """Two positive decisions as one: the later delay and reason win, consents add up."""
    combined = RetryDecision(
        retry=True,
        delay=later.delay if later.delay is not None else first.delay,
        reason=later.reason if later.reason is not None else first.reason,
        approve_unsafe_replay=first.approve_unsafe_replay or later.approve_unsafe_replay,
    )
    combined._provider_safe = first._provider_safe or later._provider_safe
    return combined


def _settle(replay_veto: RetryDecision, positive: RetryDecision | None) -> RetryDecision:
    """A provider's replay-unsafe "no" stands unless a positive decision consents to replay."""
    if positive is None or not positive.approve_unsafe_replay:
        return replay_veto
    settled = _combined(RetryDecision(retry=True, reason=replay_veto.reason), positive)
    settled.approve_unsafe_replay = True
    return settled


class RetryPolicies:
    """The type of ``retry_policies``. Every method returns a new ``RetryPolicy``."""

    def never(self) -> RetryPolicy:
        """Never retry."""

        def never(context: RetryPolicyContext) -> bool:
            return False

        return never

    def provider_suggested(self) -> RetryPolicy:
        """Retry when the provider's advice suggests it, waiting its ``retry_after``.

        A provider's "do not retry" is a veto that ``any`` and ``all`` keep; when the provider
        marked the request replay-unsafe, only a policy's ``approve_unsafe_replay`` lifts it.
        A provider's "safe to replay" lets a stateful request be retried.
        """

        def provider_suggested(context: RetryPolicyContext) -> bool | RetryDecision:
            advice = context.provider_advice
            suggested = context._facts.suggested
            if advice is None or suggested is None:
                return False
            if suggested is False:
                veto = RetryDecision(retry=False, reason=advice.reason)
                veto._veto = "replay" if context.replay_safety == "unsafe" else "provider"
                return veto
            decision = RetryDecision(retry=True, delay=advice.retry_after, reason=advice.reason)
            decision._provider_safe = context.replay_safety == "safe"
            return decision

        return provider_suggested

    def network_error(self) -> RetryPolicy:
        """Retry connection errors and timeouts."""

        def network_error(context: RetryPolicyContext) -> bool:
            return context.normalized.is_network_error or context.normalized.is_timeout

        return network_error

    def retry_after(self) -> RetryPolicy:
        """Retry when the server said how long to wait, waiting exactly that (no
        ``max_delay`` cap)."""

        def retry_after(context: RetryPolicyContext) -> bool | RetryDecision:
            delay = context.normalized.retry_after
            if delay is None and context.provider_advice is not None:
                delay = context.provider_advice.retry_after
            return False if delay is None else RetryDecision(retry=True, delay=delay)

        return retry_after

    def http_status(self, statuses: Iterable[int]) -> RetryPolicy:
        """Retry when the HTTP status is one of ``statuses``."""
        allowed = frozenset(statuses)

        def http_status(context: RetryPolicyContext) -> bool:
            return context.normalized.status_code in allowed

        return http_status

    def any(self, *policies: RetryPolicy) -> RetryPolicy:
        """Retry when one of ``policies`` says so (each is asked, in order).

        A provider veto from ``provider_suggested()`` wins; the positive answers combine (the
        last delay and reason given win). No policies: never.
        """
        if not policies:
            return self.never()

        async def any_of(context: RetryPolicyContext) -> RetryDecision:
            positive: RetryDecision | None = None
            negative: RetryDecision | None = None
            replay_veto: RetryDecision | None = None
            for policy in policies:
                decision = await evaluate_policy(policy, context)
                if decision._veto == "provider":
                    return decision
                if decision._veto == "replay":
                    replay_veto = replay_veto or decision
                elif decision.retry:
                    positive = decision if positive is None else _combined(positive, decision)
                else:
                    negative = decision
            if replay_veto is not None:
                return _settle(replay_veto, positive)
            return positive or negative or RetryDecision(retry=False)

        return any_of

    def all(self, *policies: RetryPolicy) -> RetryPolicy:
        """Retry only when every one of ``policies`` says so (asked in order, stopping at the
        first no). The positive answers combine as in ``any``. No policies: never."""
        if not policies:
            return self.never()

        async def all_of(context: RetryPolicyContext) -> RetryDecision:
            combined = RetryDecision(retry=True)
            replay_veto: RetryDecision | None = None
            for policy in policies:
                decision = await evaluate_policy(policy, context)
                if decision._veto == "replay":
                    replay_veto = replay_veto or decision
                    continue
                if not decision.retry:
                    return decision
                combined = _combined(combined, decision)
            return combined if replay_veto is None else _settle(replay_veto, combined)

        return all_of


retry_policies = RetryPolicies()
"""Ready-made retry policies: ``never()``, ``provider_suggested()``, ``network_error()``,
``retry_after()``, ``http_status([...])``, and ``any(...)`` / ``all(...)`` to combine them."""
