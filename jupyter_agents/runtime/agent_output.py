"""Structured final output: the JSON schema sent to the model and validation of its answer."""

from __future__ import annotations

import abc
import dataclasses
import json
from typing import Any, get_origin

import pydantic
from typing_extensions import is_typeddict

from .errors import ModelBehaviorError, UserError
from .tools.function.strict_schema import ensure_strict_json_schema

__all__ = ["AgentOutputSchema", "AgentOutputSchemaBase", "output_schema_for"]

_WRAPPER_KEY = "response"


def _is_object_type(output_type: Any) -> bool:
    return (
        isinstance(output_type, type)
        and (issubclass(output_type, pydantic.BaseModel) or dataclasses.is_dataclass(output_type))
    ) or is_typeddict(output_type)


class AgentOutputSchemaBase(abc.ABC):
    """What the runtime needs from an output schema; subclass it for a schema of your own.

    Give an instance as ``Agent(output_type=...)``: its JSON schema is sent to the model and
    ``validate_json`` turns the model's answer into the final output (raise
    ``ModelBehaviorError`` for an answer you refuse).
    """

    @abc.abstractmethod
    def is_plain_text(self) -> bool:
        """True when the final output is plain text (no schema is sent)."""

    @abc.abstractmethod
    def name(self) -> str:
        """The schema's name, as the model API shows it."""

    @abc.abstractmethod
    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of the final output."""

    @abc.abstractmethod
    def is_strict_json_schema(self) -> bool:
        """Whether the model API should enforce the schema strictly."""

    @abc.abstractmethod
    def validate_json(self, json_str: str) -> Any:
        """The final output for the model's JSON text (raise ``ModelBehaviorError`` if wrong)."""


def output_schema_for(output_type: Any) -> AgentOutputSchemaBase | None:
    """The schema behind an agent's ``output_type`` (None for plain text)."""
    if isinstance(output_type, AgentOutputSchemaBase):
        return None if output_type.is_plain_text() else output_type
    if output_type is None or output_type is str:
        return None
    return AgentOutputSchema(output_type)


class AgentOutputSchema(AgentOutputSchemaBase):
    """The schema of an agent's ``output_type``, and validation of the model's answer.

    Objects (pydantic models, dataclasses, TypedDicts) are sent as they are; other types
    (``int``, ``list[str]``, ...) are wrapped as ``{"response": <value>}``, since the APIs want an
    object at the top. ``AgentOutputSchema(str)`` (or ``None``) is plain text, as in the SDK:
    ``is_plain_text()`` is True, no schema is sent, and the answer is the final output as is.
    """

    def __init__(self, output_type: Any, strict_json_schema: bool = True) -> None:
        self.output_type = output_type
        self.strict_json_schema = strict_json_schema
        self._plain = output_type is None or output_type is str
        self.wrapped = False
        if self._plain:
            return
        self.wrapped = not _is_object_type(output_type)
        target: Any = output_type
        if self.wrapped:
            target = pydantic.create_model("final_output", **{_WRAPPER_KEY: (output_type, ...)})  # type: ignore[call-overload]
        try:
            self._adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(target)
            schema = self._adapter.json_schema()
        except Exception as e:
            raise UserError(f"output_type {output_type!r} has no JSON schema: {e}") from None
        self._json_schema = ensure_strict_json_schema(schema) if strict_json_schema else schema

    def is_plain_text(self) -> bool:
        """True for ``str`` (or ``None``): the answer's text is the final output."""
        return self._plain

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema sent to the model (made strict unless ``strict_json_schema=False``).

        Raises:
            UserError: The output is plain text, which has no JSON schema.
        """
        if self._plain:
            raise UserError("A plain-text output (str) has no JSON schema: no schema is sent.")
        return self._json_schema

    def is_strict_json_schema(self) -> bool:
        """Whether the schema was made strict."""
        return self.strict_json_schema

    def name(self) -> str:
        """A name for the schema (``final_output`` or the type's name)."""
        if self._plain:
            return "str"
        origin = get_origin(self.output_type) or self.output_type
        return "final_output" if self.wrapped else getattr(origin, "__name__", "final_output")

    def validate_json(self, json_str: str) -> Any:
        """The validated final output for the model's JSON text.

        Raises:
            ModelBehaviorError: The text is not valid JSON for the schema (the message says why).
        """
        if self._plain:
            return json_str
        try:
            data = json.loads(json_str)
        except ValueError as e:
            raise ModelBehaviorError(
                f"The final output is not valid JSON ({e}): {json_str[:200]!r}"
            ) from None
        try:
            value = self._adapter.validate_python(data)
        except pydantic.ValidationError as e:
            raise ModelBehaviorError(
                f"The final output does not match {self.name()}: {e.errors(include_url=False)}"
            ) from None
        if self.wrapped:
            return getattr(value, _WRAPPER_KEY)
        return value
