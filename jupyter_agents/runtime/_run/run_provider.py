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


async def _close_logged(provider: ModelProvider) -> None:
    try:
        await provider.aclose()
    except Exception as error:
        logger.warning("Failed to close model provider created for run: %s", error)
