"""The ``ask_user`` tool: the model asks the person a question instead of guessing.

Free text, one of a few choices, or a small form (a JSON schema of strings, numbers, booleans
and string enums). Every call waits for the person like an approval (the run waits, or pauses
without an approval handler): answering approves the call with the answer added to its
arguments (``answer``,
``answer``), skipping rejects it. The model then
reads the answer, or that the person skipped the question.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from ..context import ToolContext
from ..questions import Question, answer_text, choices_problem, form_problem
from .display import DisplayPart, ToolDisplay
from .function.function_tool import FunctionTool

__all__ = ["AskUserTool", "question_of"]

_DESCRIPTION = (
    "Ask the user a question and wait for the answer. Use it when you need a fact, a choice "
    "or a preference only the user has, instead of guessing; not for confirmation of a tool "
    "call (those are approved separately). Give `choices` (2 to 20 short options) when the "
    "answer is one of them, or `form` (a JSON schema of type object whose properties are "
    "strings, string enums, numbers, integers or booleans) for a few values at once; else the "
    "answer is free text. The user may skip the question."
)

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "question": {"type": "string", "description": "The question, in one or two sentences."},
        "choices": {
            "type": "array",
            "items": {"type": "string"},
            "description": "The answers the user picks one of.",
        },
        "form": {
            "type": "object",
            "description": "A JSON schema (type object) of the values to fill in.",
        },
    },
    "required": ["question"],
    "additionalProperties": False,
}

SKIPPED = "The user skipped this question without answering."


def question_of(arguments: dict[str, Any]) -> Question | str:
    """The question an ``ask_user`` call asks, or why its arguments do not make one."""
    text = arguments.get("question")
    if not isinstance(text, str) or not text.strip():
        return "`question` must be non-empty text"
    unknown = set(arguments) - {"question", "choices", "form", "answer"}
    if unknown:
        return f"unknown argument {sorted(unknown)[0]!r}"
    choices, form = arguments.get("choices"), arguments.get("form")
    if choices is not None and form is not None:
        return "give `choices` or `form`, not both"
    if choices is not None:
        problem = choices_problem(choices)
        if problem:
            return problem
        return Question(text=text, choices=tuple(choices))
    if form is not None:
        problem = form_problem(form)
        if problem:
            return problem
        return Question(text=text, form=form)
    return Question(text=text)


class AskUserTool(FunctionTool):
    """``ask_user``: the model asks the person a question and reads the answer.

    ``Agent(tools=[AskUserTool()])``. Each call waits for the person: in a notebook the card
    shows a form; without an approval handler the run pauses and
    ``RunState.answer(item, value)`` / ``RunState.skip(item)`` decide it. Headless notebook
    runs ask on the terminal, or skip when ``JUPYTER_AGENTS_ASK=skip``.
    """

    def __init__(
        self, *, name: str = "ask_user", description: str = _DESCRIPTION, **fields: Any
    ) -> None:
        """Create the tool (``name`` and ``description`` as the model sees them; ``fields``
        are other ``FunctionTool`` fields, as ``dataclasses.replace`` passes them)."""
        settings: dict[str, Any] = {
            "params_json_schema": _SCHEMA,
            "on_invoke_tool": self._invoke,
            "strict_json_schema": False,
            **fields,
        }
        super().__init__(name=name, description=description, **settings)
        self.needs_approval = True  # every question waits for the person, on its own
        self.always_asks = True
        self.read_only = True  # a question changes nothing: asked in every mode

    def arguments_problem(self, arguments: dict[str, Any]) -> str | None:
        """Why the model's arguments do not make a question (told to the model; nobody is
        asked); None when they do."""
        if "answer" in arguments:
            return "unknown argument 'answer' (the user gives the answer)"
        found = question_of(arguments)
        return found if isinstance(found, str) else None

    def question_for(self, arguments: dict[str, Any]) -> Question | None:
        """The question a call with ``arguments`` asks (None when they make none)."""
        found = question_of(arguments)
        return found if isinstance(found, Question) else None

    def validate_arguments(self, arguments: dict[str, Any]) -> str | None:
        """Check a decision's arguments: the model's, plus an ``answer`` that fits."""
        found = question_of(arguments)
        if isinstance(found, str):
            return found
        if "answer" not in arguments:
            return "the answer is missing"
        return found.problem(arguments["answer"])

    def rejection_text(self, message: str | None) -> str:
        """What the model reads when the person skips the question."""
        return f"{SKIPPED} Reason: {message}" if message else SKIPPED

    def describe_call(self, display: ToolDisplay) -> ToolDisplay:
        """The card shows the question (and the choices or fields) instead of raw JSON."""
        args = display.arguments if isinstance(display.arguments, dict) else {}
        found = question_of(args)
        if isinstance(found, str):
            return display
        lines = [found.text]
        lines += [f"  ○ {choice}" for choice in found.choices]
        lines += [f"  · {name}" for name in (found.form or {}).get("properties", {})]
        asked = DisplayPart("text", "\n".join(lines), role="call")
        return dataclasses.replace(display, parts=(asked, *display.parts), badge="question")

    async def _invoke(self, ctx: ToolContext[Any], arguments: str) -> str:
        args = json.loads(arguments) if arguments.strip() else {}
        if not isinstance(args, dict) or "answer" not in args:
            return "The user let the question through without an answer."
        return answer_text(args["answer"])
