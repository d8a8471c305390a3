"""The interface between the run loop and a language model."""

from __future__ import annotations

import abc
import enum
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..items import ModelResponse, TResponseInputItem, TResponseStreamEvent
    from ..model_settings import ModelSettings
    from ..tools import Tool

__all__ = ["Model", "ModelProvider", "ModelRequest", "ModelTracing", "RequestModel"]


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

    price_provider: str | None = None
    """The genai-prices provider id its calls are priced with (``"anthropic"``, ``"google"``,
    ...); None: the provider genai-prices finds for the model's name (``model.model``, else
    ``model.name``). Set it on a model served by a provider its name does not tell."""

    @property
    def traces_own_calls(self) -> bool:
        """Whether the model records its calls' spans itself, as the SDK's models do (False:
        the run records a generation span for each call). For such a model, the run passes
        the call's ``ModelTracing`` and makes its turn's span current during the call, so
        that the model's spans go under it."""
        return False

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
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any | None,
    ) -> ModelResponse:
        """Return one complete response. The run passes every argument, the last three by
        keyword, as the SDK's runner does."""

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
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """Stream Responses API events, ending with ``response.completed``."""


class ModelProvider(abc.ABC):
    """Turns a model name into a ``Model``."""

    @abc.abstractmethod
    def get_model(self, model_name: str | None) -> Model:
        """The model for ``model_name`` (``None``: the provider's default)."""

    async def aclose(self) -> None:  # noqa: B027 (a no-op to override, not abstract)
        """Release what the provider holds (cached models, connections); a no-op here.

        A run closes the provider it made for itself (no ``RunConfig.model_provider``) when
        it ends; a provider you pass stays open for your next run.
        """


@dataclass
class ModelRequest:
    """The arguments of one model call, as one value (what a ``RequestModel`` gets)."""

    system_instructions: str | None
    """The system prompt."""

    input: str | list[TResponseInputItem]
    """The input items (do not mutate them)."""

    model_settings: ModelSettings
    """The resolved settings."""

    tools: list[Tool]
    """The tools offered."""

    output_schema: Any | None = None
    """The final output's schema, or None for text."""

    handoffs: list[Any] = field(default_factory=list)
    """The handoffs offered (``Handoff`` objects)."""

    tracing: ModelTracing = ModelTracing.DISABLED
    """Whether the call is traced."""

    previous_response_id: str | None = None
    """Continue this stored Responses API response (send only new items)."""

    conversation_id: str | None = None
    """The Responses API conversation the call belongs to."""

    prompt: Any | None = None
    """A stored prompt, ``{"id": ..., "version": ..., "variables": ...}``."""


class RequestModel(Model):
    """A ``Model`` written against one ``ModelRequest``: implement ``respond``
    and ``stream`` instead of the two long SDK signatures."""

    @abc.abstractmethod
    async def respond(self, request: ModelRequest) -> ModelResponse:
        """Return one complete response."""

    @abc.abstractmethod
    def stream(self, request: ModelRequest) -> AsyncIterator[TResponseStreamEvent]:
        """Stream Responses API events, ending with ``response.completed``."""

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
        """``respond`` to the call's arguments."""
        return await self.respond(
            ModelRequest(
                system_instructions,
                input,
                model_settings,
                tools,
                output_schema,
                handoffs,
                tracing,
                previous_response_id,
                conversation_id,
                prompt,
            )
        )

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
        """``stream`` for the call's arguments."""
        return self.stream(
            ModelRequest(
                system_instructions,
                input,
                model_settings,
                tools,
                output_schema,
                handoffs,
                tracing,
                previous_response_id,
                conversation_id,
                prompt,
            )
        )
