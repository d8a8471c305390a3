"""Retrying failed model calls.

Two ways to configure it: ``RunConfig(model_retry=ModelRetryPolicy(...))`` for the whole run
(on by default), and the OpenAI Agents SDK's ``ModelSettings(retry=ModelRetrySettings(...))``
with composable ``retry_policies``, per agent or per run. When the resolved ``ModelSettings``
has ``retry``, it decides; the fields it leaves unset come from ``RunConfig.model_retry``.
"""

from __future__ import annotations

from ._engine import EffectiveRetry, advice_source, decide_retry, wait
from ._policies import RetryPolicies, retry_policies
from ._policy import ModelRetryPolicy, describe_error, retry_delay
from ._settings import (
    ModelRetryBackoffInput,
    ModelRetryBackoffSettings,
    ModelRetrySettings,
    coerce_retry_settings,
    merge_retry_settings,
)
from ._types import (
    ModelRetryAdvice,
    ModelRetryAdviceRequest,
    ModelRetryNormalizedError,
    RetryDecision,
    RetryPolicy,
    RetryPolicyContext,
)

__all__ = [
    "EffectiveRetry",
    "ModelRetryAdvice",
    "ModelRetryAdviceRequest",
    "ModelRetryBackoffInput",
    "ModelRetryBackoffSettings",
    "ModelRetryNormalizedError",
    "ModelRetryPolicy",
    "ModelRetrySettings",
    "RetryDecision",
    "RetryPolicies",
    "RetryPolicy",
    "RetryPolicyContext",
    "advice_source",
    "coerce_retry_settings",
    "decide_retry",
    "describe_error",
    "merge_retry_settings",
    "retry_delay",
    "retry_policies",
    "wait",
]
