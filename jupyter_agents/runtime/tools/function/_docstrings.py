"""Read a function's description and parameter descriptions from its docstring.

Parsing is delegated to griffe; this module only picks the style, normalises one common
Google-style slip (a section header glued to the line above it) and caches the result per
docstring text, so building many tools from the same function parses its docstring once.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from griffe import Docstring, DocstringSectionKind

__all__ = [
    "DocstringStyle",
    "FuncDocumentation",
    "detect_docstring_style",
    "generate_func_documentation",
]

DocstringStyle = Literal["google", "numpy", "sphinx"]
"""The docstring conventions the parser understands."""

_NUMPY_HEADER = re.compile(
    r"^[ \t]*(Parameters|Other Parameters|Returns|Yields|Raises|Attributes|See Also|Notes|Examples)"
    r"[ \t]*\n[ \t]*-{3,}[ \t]*$",
    re.MULTILINE,
)
_SPHINX_FIELD = re.compile(
    r"^[ \t]*:(param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?)\b",
    re.MULTILINE,
)

# Google section headers that griffe ignores when the line above is not blank. Inserting the
# missing blank line keeps the section out of the description and recovers its parameters.
_GOOGLE_HEADER = re.compile(
    r"^(Args|Arguments|Params|Parameters|Keyword Args|Keyword Arguments|Other Parameters"
    r"|Returns|Yields|Raises|Examples?|Notes?):[ \t]*$",
    re.IGNORECASE,
)
_PARAMETER_SECTIONS = (DocstringSectionKind.parameters, DocstringSectionKind.other_parameters)


@dataclass(frozen=True)
class FuncDocumentation:
    """What a function's docstring says about the function and its parameters."""

    name: str
    """The function's ``__name__``."""

    description: str | None
    """The docstring's text before (and outside) its sections, or ``None`` without a docstring."""

    param_descriptions: dict[str, str] = field(default_factory=dict)
    """Description of each documented parameter, keyed by parameter name (without ``*``/``**``)."""


def detect_docstring_style(doc: str) -> DocstringStyle:
    """Guess the convention a docstring is written in.

    Numpy underlined headers and Sphinx ``:param x:`` fields are unambiguous; anything else
    (including ``Args:``/``Returns:`` headers and plain prose) is treated as Google style.

    Args:
        doc: The docstring text.

    Returns:
        The detected style.
    """
    if _NUMPY_HEADER.search(doc):
        return "numpy"
    if _SPHINX_FIELD.search(doc):
        return "sphinx"
    return "google"


def generate_func_documentation(
    func: Callable[..., Any], style: DocstringStyle | None = None
) -> FuncDocumentation:
    """Extract the description and parameter descriptions from a function's docstring.

    Args:
        func: The function to document.
        style: The docstring convention; detected from the text when ``None``.

    Returns:
        The function's name, description and parameter descriptions.
    """
    name = getattr(func, "__name__", type(func).__name__)
    doc = inspect.getdoc(func)
    if not doc:
        return FuncDocumentation(name=name, description=None, param_descriptions={})
    description, params = _parse(doc, style)
    return FuncDocumentation(name=name, description=description, param_descriptions=dict(params))


@lru_cache(maxsize=2048)
def _parse(
    doc: str, style: DocstringStyle | None
) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """Parse a cleaned docstring; cached because tools are often built repeatedly."""
    resolved = style or detect_docstring_style(doc)
    if resolved == "google":
        doc = _separate_google_headers(doc)
    # griffe dedents again and ignores the first line when measuring the indentation; a leading
    # newline keeps a docstring that starts with a section header from losing its indentation.
    sections = Docstring("\n" + doc, lineno=1).parse(resolved, warnings=False)
    description: str | None = None
    params: dict[str, str] = {}
    for section in sections:
        if section.kind is DocstringSectionKind.text and description is None:
            description = section.value.strip() or None
        elif section.kind in _PARAMETER_SECTIONS:
            for param in section.value:
                # Google and numpy write variadic parameters as "*args"/"**kwargs".
                name, text = param.name.lstrip("*"), param.description.strip()
                # A malformed entry can come back with a garbled name; it matches no parameter.
                if name.isidentifier() and text:
                    params.setdefault(name, text)
    return description, tuple(params.items())


def _separate_google_headers(doc: str) -> str:
    """Insert a blank line above Google section headers that directly follow text."""
    lines = doc.split("\n")
    out: list[str] = []
    for line in lines:
        if out and out[-1].strip() and _GOOGLE_HEADER.match(line):
            out.append("")
        out.append(line)
    return "\n".join(out) if len(out) != len(lines) else doc
