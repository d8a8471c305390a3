"""Structured final output: the JSON schema sent to the model and validation of its answer."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, get_origin

import pydantic
from typing_extensions import is_typeddict

from .errors import ModelBehaviorError, UserError
from .tools.strict_schema import ensure_strict_json_schema

__all__ = ["AgentOutputSchema"]

_WRAPPER_KEY = "response"


def _is_object_type(output_type: Any) -> bool:
    return (
        isinstance(output_type, type)
        and (issubclass(output_type, pydantic.BaseModel) or dataclasses.is_dataclass(output_type))
    ) or is_typeddict(output_type)


class AgentOutputSchema:
    """The schema of an agent's ``output_type``, and validation of the model's answer.

    Objects (pydantic models, dataclasses, TypedDicts) are sent as they are; other types
    (``int``, ``list[str]``, ...) are wrapped as ``{"response": <value>}``, since the APIs want an
    object at the top.
    """

    def __init__(self, output_type: Any, strict_json_schema: bool = True) -> None:
        if output_type is None or output_type is str:
            raise UserError("A plain-text agent needs no output schema.")
        self.output_type = output_type
        self.wrapped = not _is_object_type(output_type)
        target: Any = output_type
        if self.wrapped:
            target = pydantic.create_model("final_output", **{_WRAPPER_KEY: (output_type, ...)})  # type: ignore[call-overload]
        try:
            self._adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(target)
            schema = self._adapter.json_schema()
        except Exception as e:
            raise UserError(f"output_type {output_type!r} has no JSON schema: {e}") from None
        self.strict_json_schema = strict_json_schema
        self.json_schema = ensure_strict_json_schema(schema) if strict_json_schema else schema

    @property
    def name(self) -> str:
        """A name for the schema (``final_output`` or the type's name)."""
        origin = get_origin(self.output_type) or self.output_type
        return "final_output" if self.wrapped else getattr(origin, "__name__", "final_output")

    def validate_json(self, text: str) -> Any:
        """The validated final output for the model's JSON text.

        Raises:
            ModelBehaviorError: The text is not valid JSON for the schema (the message says why).
        """
        try:
            data = json.loads(text)
        except ValueError as e:
            raise ModelBehaviorError(
                f"The final output is not valid JSON ({e}): {text[:200]!r}"
            ) from None
        try:
            value = self._adapter.validate_python(data)
        except pydantic.ValidationError as e:
            raise ModelBehaviorError(
                f"The final output does not match {self.name}: {e.errors(include_url=False)}"
            ) from None
        if self.wrapped:
            return getattr(value, _WRAPPER_KEY)
        return value
