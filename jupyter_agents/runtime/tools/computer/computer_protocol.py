"""The computers a ``ComputerTool`` drives: the SDK's
``Computer`` (synchronous, run on a worker thread) and ``AsyncComputer`` interfaces."""

from __future__ import annotations

import abc
from typing import Literal, TypeAlias

__all__ = ["AsyncComputer", "Button", "Computer", "Environment"]

Environment: TypeAlias = Literal["mac", "windows", "ubuntu", "browser"]
Button: TypeAlias = Literal["left", "right", "wheel", "back", "forward"]


class Computer(abc.ABC):
    """A computer the tool drives synchronously (run on a worker thread)."""

    @property
    def environment(self) -> Environment | None:
        """What kind of computer it is (the model is told)."""
        return None

    @property
    def dimensions(self) -> tuple[int, int] | None:
        """The screen's width and height in pixels."""
        return None

    @abc.abstractmethod
    def screenshot(self) -> str:
        """The screen as base64 PNG."""

    @abc.abstractmethod
    def click(self, x: int, y: int, button: Button) -> None:
        """Click at ``(x, y)``."""

    @abc.abstractmethod
    def double_click(self, x: int, y: int) -> None:
        """Double-click at ``(x, y)``."""

    @abc.abstractmethod
    def scroll(self, x: int, y: int, scroll_x: int, scroll_y: int) -> None:
        """Scroll by ``(scroll_x, scroll_y)`` with the pointer at ``(x, y)``."""

    @abc.abstractmethod
    def type(self, text: str) -> None:
        """Type ``text``."""

    @abc.abstractmethod
    def wait(self) -> None:
        """Wait a moment."""

    @abc.abstractmethod
    def move(self, x: int, y: int) -> None:
        """Move the pointer to ``(x, y)``."""

    @abc.abstractmethod
    def keypress(self, keys: list[str]) -> None:
        """Press ``keys`` together (e.g. ``["CTRL", "A"]``)."""

    @abc.abstractmethod
    def drag(self, path: list[tuple[int, int]]) -> None:
        """Drag along ``path``."""


class AsyncComputer(abc.ABC):
    """A computer the tool drives with coroutines (the same methods, ``async``)."""

    @property
    def environment(self) -> Environment | None:
        """What kind of computer it is (the model is told)."""
        return None

    @property
    def dimensions(self) -> tuple[int, int] | None:
        """The screen's width and height in pixels."""
        return None

    @abc.abstractmethod
    async def screenshot(self) -> str:
        """The screen as base64 PNG."""

    @abc.abstractmethod
    async def click(self, x: int, y: int, button: Button) -> None:
        """Click at ``(x, y)``."""

    @abc.abstractmethod
    async def double_click(self, x: int, y: int) -> None:
        """Double-click at ``(x, y)``."""

    @abc.abstractmethod
    async def scroll(self, x: int, y: int, scroll_x: int, scroll_y: int) -> None:
        """Scroll by ``(scroll_x, scroll_y)`` with the pointer at ``(x, y)``."""

    @abc.abstractmethod
    async def type(self, text: str) -> None:
        """Type ``text``."""

    @abc.abstractmethod
    async def wait(self) -> None:
        """Wait a moment."""

    @abc.abstractmethod
    async def move(self, x: int, y: int) -> None:
        """Move the pointer to ``(x, y)``."""

    @abc.abstractmethod
    async def keypress(self, keys: list[str]) -> None:
        """Press ``keys`` together."""

    @abc.abstractmethod
    async def drag(self, path: list[tuple[int, int]]) -> None:
        """Drag along ``path``."""
