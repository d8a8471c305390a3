"""The SDK's ``agents.function_schema``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.tools.function._docstrings import (
    DocstringStyle,
    FuncDocumentation,
    generate_func_documentation,
)
from .runtime.tools.function.schema import FuncSchema, function_schema

__all__ = [
    "DocstringStyle",
    "FuncDocumentation",
    "FuncSchema",
    "function_schema",
    "generate_func_documentation",
]
