"""Questions to the person: what one asks and which answers fit it.

A question travels like an approval (``ApprovalRequest``
with ``question`` set): the run waits for the person, or pauses without an approval handler.
An answer is an approve decision whose arguments carry ``"answer"``
(``ApprovalRequest.answer``); skipping is a reject decision. So a question is kept in
``RunState``, recorded in a run's cassette and decided in the batch review queue exactly as an
approval is.

Questions come from the ``ask_user`` tool (``.tools.ask_user``) and from a running tool
that asks (``ask``: an MCP server's elicitation, for example).
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tools.capabilities import ToolCapabilities

__all__ = ["FIELD_TYPES", "Question", "ask_user", "asker", "form_problem", "tool_question"]

FIELD_TYPES = ("string", "number", "integer", "boolean")
"""The types a form's fields may have (strings may be enums)."""

_FIELD_KEYS = {"type", "title", "description", "enum", "default"}
_LOOSE_KEYS = {"format", "minLength", "maxLength", "minimum", "maximum", "enumNames", "oneOf"}
MAX_CHOICES = 20
MAX_FIELDS = 20


@dataclass(frozen=True)
class Question:
    """What a person is asked: free text, one of ``choices``, or the fields of ``form``."""

    text: str
    """The question itself."""

    choices: tuple[str, ...] = ()
    """When set, the answer is one of these."""

    form: Mapping[str, Any] | None = field(default=None, hash=False)
    """When set, the answer is an object: a JSON schema of type object whose properties are
    strings (or string enums), numbers, integers and booleans (``FIELD_TYPES``)."""

    origin: str | None = None
    """Who asks, when it is not the model (e.g. ``"mcp: git"``)."""

    @property
    def kind(self) -> str:
        """``"form"``, ``"choice"`` or ``"text"``."""
        return "form" if self.form is not None else "choice" if self.choices else "text"

    def problem(self, answer: Any) -> str | None:
        """Why ``answer`` does not fit the question; None when it does."""
        if self.form is not None:
            return _form_answer_problem(self.form, answer)
        if not isinstance(answer, str):
            return "the answer must be text"
        if self.choices:
            if answer not in self.choices:
                return f"the answer must be one of {', '.join(map(repr, self.choices))}"
        elif not answer.strip():
            return "the answer is empty (skip the question instead)"
        return None

    def to_dict(self) -> dict[str, Any]:
        """The question as JSON (what frontends draw)."""
        out: dict[str, Any] = {"text": self.text}
        if self.choices:
            out["choices"] = list(self.choices)
        if self.form is not None:
            out["form"] = dict(self.form)
        if self.origin:
            out["origin"] = self.origin
        return out


def answer_text(answer: Any) -> str:
    """An answer as the model reads it: text as it is, a form's values as JSON."""
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


def form_problem(form: Any, *, loose: bool = False) -> str | None:
    """Why ``form`` is not a form a person can fill in; None when it is.

    ``loose``: keywords the form cannot use (an MCP server's ``format`` or ``minLength``) are
    ignored instead of refused.
    """
    if not isinstance(form, Mapping) or form.get("type") != "object":
        return 'a form must be a JSON schema with "type": "object"'
    props = form.get("properties")
    if not isinstance(props, Mapping) or not props:
        return 'a form needs "properties": one entry per field'
    if len(props) > MAX_FIELDS:
        return f"a form has at most {MAX_FIELDS} fields"
    for name, spec in props.items():
        problem = _field_problem(str(name), spec, loose)
        if problem:
            return problem
    required = form.get("required", [])
    if not isinstance(required, list) or any(r not in props for r in required):
        return '"required" must list names of the form\'s properties'
    return None


def _field_problem(name: str, spec: Any, loose: bool) -> str | None:
    if not isinstance(spec, Mapping):
        return f"field {name!r} must be a schema object"
    kind = spec.get("type")
    if kind not in FIELD_TYPES:
        return f"field {name!r} must have a type of {', '.join(FIELD_TYPES)}"
    extra = set(spec) - _FIELD_KEYS - (_LOOSE_KEYS if loose else set())
    if extra:
        return f"field {name!r} uses {sorted(extra)[0]!r}, which a form cannot show"
    enum = spec.get("enum")
    if enum is not None and (
        kind != "string"
        or not isinstance(enum, list)
        or not enum
        or len(enum) > MAX_CHOICES
        or not all(isinstance(v, str) for v in enum)
    ):
        return f"field {name!r}: enum must be a list of 1 to {MAX_CHOICES} strings"
    return None


def _form_answer_problem(form: Mapping[str, Any], answer: Any) -> str | None:
    if not isinstance(answer, Mapping):
        return "the answer must be an object with the form's fields"
    props: Mapping[str, Any] = form.get("properties") or {}
    unknown = [k for k in answer if k not in props]
    if unknown:
        return f"the form has no field {unknown[0]!r}"
    for name in form.get("required", []):
        if answer.get(name) is None or answer.get(name) == "":
            return f"field {name!r} is required"
    for name, value in answer.items():
        if value is None:
            continue
        problem = _value_problem(props[name], value)
        if problem:
            return f"field {name!r}: {problem}"
    return None


def _value_problem(spec: Mapping[str, Any], value: Any) -> str | None:
    kind = spec.get("type")
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "must be a number"
        if not math.isfinite(value):
            return "must be a finite number"
        if kind == "integer" and not float(value).is_integer():
            return "must be a whole number"
        return None
    if not isinstance(value, str):
        return "must be text"
    enum = spec.get("enum")
    if enum is not None and value not in enum:
        return f"must be one of {', '.join(map(repr, enum))}"
    return None


def choices_problem(choices: Any) -> str | None:
    """Why ``choices`` cannot be offered; None when they can."""
    if not isinstance(choices, Sequence) or isinstance(choices, str):
        return "choices must be a list of strings"
    if not 2 <= len(choices) <= MAX_CHOICES:
        return f"offer 2 to {MAX_CHOICES} choices"
    if not all(isinstance(c, str) and c.strip() for c in choices):
        return "each choice must be non-empty text"
    if len(set(choices)) != len(choices):
        return "the choices must differ"
    return None


def tool_question(tool: ToolCapabilities | None, arguments: dict[str, Any]) -> Question | None:
    """The question a call of ``tool`` with ``arguments`` asks (the ``ask_user`` tool's
    calls), or None: the call asks whether it may run (or there is no such tool)."""
    return tool.question_for(arguments) if tool is not None else None


Asker = Callable[[Question], Awaitable[Any]]
"""Asks the person ``question`` and returns the answer, or None when they skip it."""

asker: ContextVar[Asker | None] = ContextVar("question_asker", default=None)
"""Set by the run around each tool call: how that call asks the person a question."""


async def ask_user(question: Question) -> Any:
    """Ask the person ``question`` from inside a running tool call: the answer (checked
    against the question), or None when they skip it, nobody can be asked now (a run that
    pauses for decisions cannot pause in the middle of a call), or outside a tool call."""
    ask_now = asker.get()
    if ask_now is None:
        return None
    return await ask_now(question)
