"""The model provider a run makes for itself, and its closing when the run ends.

A run given no ``model_provider`` (no ``run_config``, or a dict without one) gets a fresh
``MultiProvider`` and owns it: the provider is closed when the run ends, whether it finished,
failed or was cancelled, as in the OpenAI Agents SDK. A provider the caller passes is theirs and
stays open for their next run.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..errors import UserError
from ..models.interface import ModelProvider
from ..models.multi_provider import MultiProvider
from ..run_config import RunConfig

__all__ = ["close_run_provider", "run_config_of"]

logger = logging.getLogger("jupyter_agents")

# The methods as defined (a subclass's override, or one replaced later, is another function).
_NO_OP_CLOSE = ModelProvider.aclose
_MULTI_CLOSE = MultiProvider.aclose


def run_config_of(value: Any) -> tuple[RunConfig, ModelProvider | None]:
    """The run's ``RunConfig`` (from None, a ``RunConfig`` or a dict of its fields), and the
    provider the run made for itself (None when the caller gave one, or a ``RunConfig``)."""
    if isinstance(value, RunConfig):
        return value, None
    if value is not None and not isinstance(value, dict):
        raise UserError(
            f"run_config must be a RunConfig or a dict of its fields, got {type(value).__name__}."
        )
    fields = dict(value or {})
    owned: ModelProvider | None = None
    if fields.get("model_provider") is None:
        owned = fields["model_provider"] = MultiProvider()
    try:
        return RunConfig(**fields), owned
    except TypeError as error:
        raise UserError(f"run_config: {error} (use RunConfig's field names).") from None


async def close_run_provider(provider: ModelProvider) -> None:
    """Close ``provider``, finishing even when the run is cancelled meanwhile (again and again),
    then let the cancellation go on. A failure to close is logged, never raised: it must not
    hide how the run ended."""
    if _closes_at_once(provider):  # nothing to wait for, so nothing a cancellation can cut
        await _close_logged(provider)
        return
    closing = asyncio.ensure_future(_close_logged(provider))
    try:
        await asyncio.shield(closing)
    except asyncio.CancelledError:
        while not closing.done():
            try:
                await asyncio.shield(closing)
            except asyncio.CancelledError:
                continue
        raise


def _closes_at_once(provider: ModelProvider) -> bool:
    """Whether closing ``provider`` waits on nothing: ``ModelProvider``'s no-op, or a
    ``MultiProvider`` (its own ``aclose``) whose providers all close at once. A task and a
    shield cost more than a run's whole bookkeeping (80 us), so the usual case skips them."""
    close = type(provider).aclose
    if close is _NO_OP_CLOSE:
        return True
    return (
        close is _MULTI_CLOSE
        and isinstance(provider, MultiProvider)
        and all(held is provider or _closes_at_once(held) for held in provider._held())
    )


async def _close_logged(provider: ModelProvider) -> None:
    try:
        await provider.aclose()
    except Exception as error:
        logger.warning("Failed to close model provider created for run: %s", error)
