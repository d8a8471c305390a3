"""Exceptions raised by the runtime.

Every exception derives from one base class::

    AgentsException
     ├── MaxTurnsExceeded      the run used up its turns; carries the run data so far
     ├── BudgetExceeded        the next model call would go over ``max_cost_usd``; carries the
     │                         stopped run's ``run_state`` to resume with a larger budget
     ├── ModelBehaviorError    the model did something the run cannot continue from
     │    ├── ModelRefusalError  it refused to give the structured output
     │    └── ToolArgumentsError a tool cannot take the model's arguments; the model is told
     ├── ModelTimeoutError     a streamed model call sent nothing within its first-event limit
     ├── UserError             the code using the library is wrong; the message says what to change
     │    ├── SandboxUnavailable   a sandboxed mode was asked for and bubblewrap cannot run here
     │    └── StrictSchemaError    a tool's schema cannot be strict (in ``tools.strict_schema``)
     ├── PatchError            a patch does not apply (also a ``ValueError``); the model is told
     ├── MCPServerError        an MCP server failed to start, died or did not answer (also a
     │                         ``RuntimeError``); carries the end of its stderr
     ├── MCPToolError          an MCP server answered a call with an error; the model is told
     ├── InputGuardrailTripwireTriggered / OutputGuardrailTripwireTriggered
     │                         an agent guardrail tripped; carries its result
     └── ToolInputGuardrailTripwireTriggered / ToolOutputGuardrailTripwireTriggered
                               a tool guardrail asked to stop the run; carries its result

Control-flow signals (a paused run waiting for approval, a cancelled stream) are not errors.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._run.spend import Spend
    from .result import RunErrorDetails
    from .run_state import RunState

__all__ = [
    "AgentsException",
    "BudgetExceeded",
    "InputGuardrailTripwireTriggered",
    "MCPServerError",
    "MCPToolCancellationError",
    "MCPToolError",
    "MaxTurnsExceeded",
    "ModelBehaviorError",
    "ModelRefusalError",
    "ModelTimeoutError",
    "OutputGuardrailTripwireTriggered",
    "PatchError",
    "SandboxUnavailable",
    "ToolArgumentsError",
    "ToolInputGuardrailTripwireTriggered",
    "ToolOutputGuardrailTripwireTriggered",
    "ToolTimeoutError",
    "UserError",
]


class AgentsException(Exception):
    """Base class of every exception this library raises."""

    run_data: RunErrorDetails | None
    """What the run had produced when the error happened, when the error ended a run."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.run_data = None


class MaxTurnsExceeded(AgentsException):
    """The run reached ``max_turns`` without a final output.

    ``run_data`` holds the input, the items produced so far, the raw responses and the last agent,
    so nothing the run produced is lost.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BudgetExceeded(AgentsException):
    """The run's next model call would take it over its budget (``RunConfig.max_cost_usd``),
    so the call was not made and the run stopped there. The budget is the whole run's: the
    calls of the agents it runs as tools count, and a nested run stopped by it stops the run.

    ``run_state`` continues the run where it stopped, without repeating anything:
    ``Runner.run(agent, err.run_state, run_config=RunConfig(max_cost_usd=larger))``.
    """

    _spend: Spend | None = None
    """Whose budget it is: the spend of the run it belongs to (in memory only; an agent tool
    tells its nested run's own budget from the outer run's by it)."""

    def __init__(
        self,
        message: str,
        *,
        spent_usd: Decimal,
        next_call_usd: Decimal,
        budget_usd: Decimal,
        run_state: RunState | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.spent_usd = spent_usd
        """What the run's model calls cost so far (those before a resume included)."""
        self.next_call_usd = next_call_usd
        """The estimated cost of the call that was not made (0: the budget was already
        spent, and an agent tool's run was not started)."""
        self.budget_usd = budget_usd
        """The budget it would have gone over."""
        self.run_state = run_state
        """The stopped run, to resume with a larger budget (``Runner.run(agent, state, ...)``)."""


class ModelBehaviorError(AgentsException):
    """The model produced something the run cannot continue from (for example a malformed
    final output)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ModelRefusalError(ModelBehaviorError):
    """The model refused to give the structured output the agent asks for."""

    def __init__(self, refusal: str) -> None:
        super().__init__(f"The model refused to give the structured output: {refusal}")
        self.refusal = refusal
        """The model's refusal text."""


class ModelTimeoutError(AgentsException):
    """A streamed model call got no event within ``ModelTimeout.first_event`` seconds: the
    server took the request and did not start answering. Retried like any timeout; the
    message of the last one says which server, and what to change. (The OpenAI Agents SDK's
    name; the HTTP client's own connect and read timeouts stay the client's errors.)
    """

    def __init__(self, timeout_seconds: float, message: str | None = None) -> None:
        super().__init__(message or f"Model call timed out after {timeout_seconds:g} seconds.")
        self.timeout_seconds = timeout_seconds
        """The limit that was reached."""


class ToolTimeoutError(AgentsException):
    """A tool call ran out of time and its tool says so ends the run
    (``@function_tool(timeout_behavior="raise_exception")``); also what a
    ``timeout_error_function`` is given."""

    def __init__(self, tool_name: str, timeout_seconds: float) -> None:
        super().__init__(f"Tool '{tool_name}' timed out after {timeout_seconds:g} seconds.")
        self.tool_name = tool_name
        """The tool that ran out of time."""
        self.timeout_seconds = timeout_seconds
        """Its limit, in seconds."""


class UserError(AgentsException):
    """The library was used incorrectly; the message says what to change."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InputGuardrailTripwireTriggered(AgentsException):
    """An input guardrail tripped; ``guardrail_result`` says which and why."""

    def __init__(self, guardrail_result: Any) -> None:
        name = guardrail_result.guardrail.get_name()
        super().__init__(f"Input guardrail {name!r} triggered its tripwire")
        self.guardrail_result = guardrail_result


class OutputGuardrailTripwireTriggered(AgentsException):
    """An output guardrail tripped; ``guardrail_result`` says which and why."""

    def __init__(self, guardrail_result: Any) -> None:
        name = guardrail_result.guardrail.get_name()
        super().__init__(f"Output guardrail {name!r} triggered its tripwire")
        self.guardrail_result = guardrail_result


class ToolInputGuardrailTripwireTriggered(AgentsException):
    """A tool input guardrail asked to stop the run (``raise_exception``)."""

    def __init__(self, guardrail: Any, output: Any) -> None:
        super().__init__(
            f"Tool input guardrail {guardrail.get_name()!r} stopped the run "
            f"({type(guardrail).__name__} triggered its tripwire)"
        )
        self.guardrail = guardrail
        self.output = output


class ToolOutputGuardrailTripwireTriggered(AgentsException):
    """A tool output guardrail asked to stop the run (``raise_exception``)."""

    def __init__(self, guardrail: Any, output: Any) -> None:
        super().__init__(
            f"Tool output guardrail {guardrail.get_name()!r} stopped the run "
            f"({type(guardrail).__name__} triggered its tripwire)"
        )
        self.guardrail = guardrail
        self.output = output


class SandboxUnavailable(UserError):
    """A sandboxed mode was asked for and bubblewrap cannot run here."""


class ToolArgumentsError(ModelBehaviorError):
    """The model sent arguments a tool cannot accept; the message goes back to the model.

    Raise it from a hand-built tool's ``on_invoke_tool`` to tell the model what to fix. A
    ``ModelBehaviorError``, as the SDK's ``on_invoke_tool`` raises for such arguments (in a
    run, the model is told and the run goes on).
    """


class PatchError(AgentsException, ValueError):
    """A patch that cannot be applied; the message says where and why (for the model)."""


class MCPToolError(AgentsException, RuntimeError):
    """The server answered a call with ``isError``: its message goes to the model."""


class MCPToolCancellationError(AgentsException):
    """An MCP tool call was cancelled inside the MCP client or server (not by the run): the
    call fails with this error, which the model is told about like any failed call."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class MCPServerError(AgentsException, RuntimeError):
    """An MCP server failed to start, died, or did not answer; the message says which and
    what to do. ``stderr`` holds the end of a stdio server's error output, when there is one."""

    def __init__(self, message: str, server: str, stderr: str | None = None) -> None:
        super().__init__(message)
        self.server = server
        self.stderr = stderr
        self.type_name = "MCPServerError"
        self.traceback_text = f"Server stderr (last lines):\n{stderr}" if stderr else ""
        """Shown to the user under the error in the call's card (never a Python traceback)."""
