"""The SDK's ``agents.exceptions``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.errors import (
    AgentsException,
    InputGuardrailTripwireTriggered,
    MaxTurnsExceeded,
    MCPToolCancellationError,
    ModelBehaviorError,
    ModelRefusalError,
    ModelTimeoutError,
    OutputGuardrailTripwireTriggered,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailTripwireTriggered,
    ToolTimeoutError,
    UserError,
)
from .runtime.result import RunErrorDetails, pretty_print_run_error_details

__all__ = [
    "AgentsException",
    "InputGuardrailTripwireTriggered",
    "MCPToolCancellationError",
    "MaxTurnsExceeded",
    "ModelBehaviorError",
    "ModelRefusalError",
    "ModelTimeoutError",
    "OutputGuardrailTripwireTriggered",
    "RunErrorDetails",
    "ToolInputGuardrailTripwireTriggered",
    "ToolOutputGuardrailTripwireTriggered",
    "ToolTimeoutError",
    "UserError",
    "pretty_print_run_error_details",
]
