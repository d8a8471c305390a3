"""The SDK's ``agents.computer``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.tools.computer.computer_protocol import Button, Environment
from .runtime.tools.computer.computer_tool import AsyncComputer, Computer

__all__ = ["AsyncComputer", "Button", "Computer", "Environment"]
