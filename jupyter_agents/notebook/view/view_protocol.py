"""``LiveView``: what the cell driver needs of a run's view (the widget, or the terminal's)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from ...runtime.approvals import ApprovalDecision, ApprovalRequest
from ...runtime.modes import Mode
from ...runtime.tools.background import BackgroundCall
from ...runtime.usage import Usage
from .widget_state import RunStatus, Wait

__all__ = ["LiveView"]


class LiveView(Protocol):
    """A run's view: ``RunView`` (the notebook widget) and ``TextView`` (terminal IPython)."""

    rendered: threading.Event
    """Set once someone can see the run (and so decide on approvals)."""

    on_stop: Callable[[], None] | None
    """Called when the user asks to stop the run."""

    def display(self) -> None:
        """Show the view."""

    def card_ref(self) -> tuple[str, str] | None:
        """The card's widget model id and display id, which let a page that did not start the
        run show it (None: the view has no widget)."""

    def on_event(self, event: Any) -> None:
        """Apply one stream event of the run."""

    def set_status(self, status: RunStatus, detail: str | None = None) -> None:
        """Set the run status (running, waiting, done, failed, cancelled, background)."""

    def set_usage(self, usage: Usage, cost: str | None = None) -> None:
        """Show the run's token usage, and what it cost (``"$0.0123"``, ``"price unknown"``)."""

    def tool_progress(self, call_id: str, done: float, total: float | None, message: str) -> None:
        """Show how far running call ``call_id`` has got (``total`` None: not known)."""

    def set_context(self, used: int, window: int | None) -> None:
        """Show how much of the model's context window (None: not known) the last request
        used."""

    def set_mode(self, mode: Mode) -> None:
        """Show the run's mode (``ask``, ``plan``, ``agent``), at the start and when it
        changes (an approved plan turns ``plan`` into ``agent``)."""

    def set_wait(self, wait: Wait | None) -> None:
        """Show what the run waits for (the model, a tool, the person); None: nothing."""

    def tool_output_text(self, call_id: str, text: str) -> None:
        """Show what a running tool printed."""

    def add_notice(self, text: str, level: str = "info") -> None:
        """Add a line (info, warning or error)."""

    def left_running(self, call: BackgroundCall) -> None:
        """Show that a sync tool call goes on in the background, then how it ended."""

    def inbox(self, request: ApprovalRequest) -> Any:
        """The approval handler: registers ``request`` and returns what the run awaits."""

    def decide(self, request_id: str, decision: ApprovalDecision) -> bool:
        """Decide a waiting request; False when nothing was waiting."""

    def finish(
        self, status: RunStatus, detail: str | None = None, *, replayed: bool = False
    ) -> None:
        """End the view (``replayed``: the run followed its recording)."""
