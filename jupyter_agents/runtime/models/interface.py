"""The interface between the run loop and a language model."""

from __future__ import annotations

import abc
import enum
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..items import ModelResponse, TResponseInputItem, TResponseStreamEvent
    from ..model_settings import ModelSettings
    from ..tools import Tool

__all__ = ["Model", "ModelProvider", "ModelTracing"]


class ModelTracing(enum.Enum):
    """Whether a model call is traced, and with its data or without."""

    DISABLED = 0
    ENABLED = 1
    ENABLED_WITHOUT_DATA = 2

    def is_disabled(self) -> bool:
        """True when nothing is traced."""
        return self is ModelTracing.DISABLED

    def include_data(self) -> bool:
        """True when inputs and outputs go into the trace."""
        return self is ModelTracing.ENABLED


class Model(abc.ABC):
    """A language model the run loop can call, with or without streaming.

    ``input`` holds Responses API input items (dicts). Implementations must not mutate it.
    """

    @abc.abstractmethod
    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: Any | None,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any | None = None,
    ) -> ModelResponse:
        """Return one complete response."""

    @abc.abstractmethod
    def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: Any | None,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any | None = None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """Stream Responses API events, ending with ``response.completed``."""


class ModelProvider(abc.ABC):
    """Turns a model name into a :class:`Model`."""

    @abc.abstractmethod
    def get_model(self, model_name: str | None) -> Model:
        """The model for ``model_name`` (``None``: the provider's default)."""
