"""``ModelSettings(retry=ModelRetrySettings(...))``: retries configured per agent or per run."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from typing import Any, TypeAlias, Union

from ..errors import UserError
from ._types import RetryPolicy

__all__ = [
    "ModelRetryBackoffInput",
    "ModelRetryBackoffSettings",
    "ModelRetrySettings",
    "coerce_retry_settings",
    "merge_retry_settings",
]


@dataclass
class ModelRetryBackoffSettings:
    """The waits between retries when the policy names no delay of its own.

    A field left ``None`` takes the value of ``RunConfig.model_retry`` (``initial_delay``,
    ``max_delay``, ``backoff``, ``jitter``).
    """

    initial_delay: float | None = None
    """Seconds before the first retry."""

    max_delay: float | None = None
    """Upper bound on a computed wait (not on a policy's ``delay`` nor a ``Retry-After``)."""

    multiplier: float | None = None
    """Factor between successive waits."""

    jitter: bool | None = None
    """Spread each computed wait randomly, by ± ``RunConfig.model_retry.jitter`` (25 % unless
    set otherwise)."""

    def __post_init__(self) -> None:
        for name in ("initial_delay", "max_delay", "multiplier"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise UserError(f"backoff {name} must be a number >= 0, got {value!r}")
        if self.jitter is not None and not isinstance(self.jitter, bool):
            raise UserError(f"backoff jitter must be True or False, got {self.jitter!r}")

    def to_json_dict(self) -> dict[str, Any]:
        """The four fields as a JSON-compatible dict."""
        return dataclasses.asdict(self)


ModelRetryBackoffInput: TypeAlias = Union[ModelRetryBackoffSettings, dict[str, Any]]
"""A ``ModelRetryBackoffSettings`` or a dict of its fields."""


@dataclass
class ModelRetrySettings:
    """How an agent's model calls are retried, as the OpenAI Agents SDK spells it.

    When the resolved ``ModelSettings`` has ``retry``, it decides instead of
    ``RunConfig.model_retry``; a field it leaves ``None`` falls back to that policy:
    ``max_retries`` to ``max_attempts - 1``, the backoff to its delays, and ``policy`` to
    ``retry_policies.provider_suggested()`` (HTTP 408/409/429/5xx, timeouts, connection errors).
    """

    max_retries: int | None = None
    """Retries after the first attempt (0: none)."""

    backoff: ModelRetryBackoffInput | None = None
    """The waits when the policy names no delay (a dict of the same fields works too)."""

    policy: RetryPolicy | None = field(default=None, repr=False)
    """Decides each retry (see ``retry_policies``). Runtime only: never serialized."""

    def __post_init__(self) -> None:
        retries = self.max_retries
        if retries is not None and (
            isinstance(retries, bool) or not isinstance(retries, int) or retries < 0
        ):
            raise UserError(f"max_retries must be an int >= 0, got {retries!r}")
        self.backoff = _coerce_backoff(self.backoff)
        if self.policy is not None and not callable(self.policy):
            raise UserError(f"retry policy must be callable, got {self.policy!r}")

    @property
    def backoff_settings(self) -> ModelRetryBackoffSettings | None:
        """``backoff`` as a ``ModelRetryBackoffSettings``."""
        return _coerce_backoff(self.backoff)

    def to_json_dict(self) -> dict[str, Any]:
        """``max_retries`` and ``backoff`` as a JSON-compatible dict (the policy is left out)."""
        backoff = self.backoff_settings
        return {
            "max_retries": self.max_retries,
            "backoff": backoff.to_json_dict() if backoff is not None else None,
        }


def _coerce_backoff(value: Any) -> ModelRetryBackoffSettings | None:
    if value is None or isinstance(value, ModelRetryBackoffSettings):
        return value
    if isinstance(value, dict):
        return ModelRetryBackoffSettings(**_known(value, ModelRetryBackoffSettings, "backoff"))
    raise UserError(
        f"backoff must be a ModelRetryBackoffSettings or a dict, got {type(value).__name__}"
    )


def _known(value: dict[str, Any], cls: type, what: str) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    unknown = sorted(str(key) for key in value if key not in names)
    if unknown:
        raise UserError(f"Unknown {what} settings: {', '.join(unknown)}")
    return value


def coerce_retry_settings(value: Any) -> ModelRetrySettings | None:
    """``ModelSettings.retry`` as given (a ``ModelRetrySettings``, a dict of its fields, None)."""
    if value is None or isinstance(value, ModelRetrySettings):
        return value
    if isinstance(value, dict):
        return ModelRetrySettings(**_known(value, ModelRetrySettings, "retry"))
    raise UserError(f"retry must be a ModelRetrySettings or a dict, got {type(value).__name__}")


def merge_retry_settings(
    base: ModelRetrySettings | None, override: ModelRetrySettings | None
) -> ModelRetrySettings | None:
    """``override`` on top of ``base``, field by field (the backoff's fields too)."""
    if base is None or override is None:
        return override if base is None else base
    merged = _merge(base.backoff_settings, override.backoff_settings)
    changes = {
        name: getattr(override, name)
        for name in ("max_retries", "policy")
        if getattr(override, name) is not None
    }
    return dataclasses.replace(base, **changes, backoff=merged)


def _merge(
    base: ModelRetryBackoffSettings | None, override: ModelRetryBackoffSettings | None
) -> ModelRetryBackoffSettings | None:
    if base is None or override is None:
        return override if base is None else base
    changes = {f.name: getattr(override, f.name) for f in fields(override)}
    return dataclasses.replace(base, **{k: v for k, v in changes.items() if v is not None})
