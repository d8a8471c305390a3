"""``BrowserComputer``: a real computer for ``ComputerTool``, a Chromium page driven by Playwright.

It uses the Chromium (or Chrome) installed on the machine, in a system location or given; it
never downloads a browser. The browser runs outside any sandbox, so it is never looked up on
``PATH`` (a sandboxed command could put a program called ``chromium`` in a folder on it), and it
gets only the ordinary environment variables a sandboxed command gets (no API keys). Headless
by default, with a fixed viewport; it starts on first use (or with ``async with``) and stops
with ``BrowserComputer.close``. Install Playwright with
``pip install playwright`` (no ``playwright install`` needed).
"""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path
from typing import Any

from ...errors import UserError
from ...sandbox._env import scrubbed_env
from ...sandbox.bwrap import untrusted_reason
from .computer_tool import AsyncComputer, Button, Environment

__all__ = ["BrowserComputer", "find_chromium"]

SYSTEM_CHROMIUMS = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/opt/google/chrome/chrome",
    "/snap/bin/chromium",
)
"""Where an installed Chromium or Chrome is looked for (never ``PATH``)."""

_DISPLAY_ENV = ("DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR")
"""What a browser with a window needs beyond the ordinary variables."""

_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

_KEYS = {
    "ENTER": "Enter",
    "RETURN": "Enter",
    "ESC": "Escape",
    "ESCAPE": "Escape",
    "TAB": "Tab",
    "SPACE": " ",
    "BACKSPACE": "Backspace",
    "DELETE": "Delete",
    "CTRL": "Control",
    "CONTROL": "Control",
    "ALT": "Alt",
    "SHIFT": "Shift",
    "CMD": "Meta",
    "META": "Meta",
    "UP": "ArrowUp",
    "DOWN": "ArrowDown",
    "LEFT": "ArrowLeft",
    "RIGHT": "ArrowRight",
    "PAGEUP": "PageUp",
    "PAGEDOWN": "PageDown",
    "HOME": "Home",
    "END": "End",
}


def find_chromium() -> str | None:
    """The Chromium or Chrome to run: ``JUPYTER_AGENTS_CHROMIUM`` if set (the person's choice),
    else the first of ``SYSTEM_CHROMIUMS`` that nobody else can replace."""
    given = os.environ.get("JUPYTER_AGENTS_CHROMIUM")
    if given and os.path.exists(given):
        return given
    for candidate in SYSTEM_CHROMIUMS:
        if os.path.exists(candidate) and untrusted_reason(Path(candidate)) is None:
            return candidate
    return None


class BrowserComputer(AsyncComputer):
    """A Chromium page the model sees and drives."""

    def __init__(
        self,
        start_url: str | None = None,
        *,
        width: int = 1024,
        height: int = 768,
        headless: bool = True,
        executable_path: str | None = None,
        wait_seconds: float = 1.0,
    ) -> None:
        """Describe the browser (it starts on first use).

        Args:
            start_url: Opened at start (default: a blank page).
            width: Viewport width in pixels.
            height: Viewport height in pixels.
            headless: Run without a window.
            executable_path: The browser to run (default: ``find_chromium``).
            wait_seconds: How long the ``wait`` action waits.
        """
        if width < 100 or height < 100:
            raise UserError(
                f"BrowserComputer: the viewport must be at least 100x100, got {width}x{height}."
            )
        self.start_url = start_url
        self._size = (int(width), int(height))
        self.headless = headless
        self.executable_path = executable_path
        self.wait_seconds = wait_seconds
        self._playwright: Any = None
        self._browser: Any = None
        self._page: Any = None
        self._lock = asyncio.Lock()

    @property
    def environment(self) -> Environment:
        return "browser"

    @property
    def dimensions(self) -> tuple[int, int]:
        return self._size

    @property
    def page(self) -> Any:
        """The Playwright page (None before the browser started)."""
        return self._page

    async def start(self) -> BrowserComputer:
        """Start the browser (done on first use anyway)."""
        async with self._lock:
            if self._page is not None:
                return self
            try:
                from playwright.async_api import async_playwright
            except ImportError:
                raise UserError(
                    "BrowserComputer needs Playwright: pip install playwright (the browser is "
                    "the system's Chromium; no `playwright install` needed)."
                ) from None
            path = self.executable_path or find_chromium()
            if path is None:
                raise UserError(
                    "BrowserComputer found no Chromium: install it (Debian: apt-get install "
                    "chromium) or pass executable_path=..."
                )
            self._playwright = await async_playwright().start()
            try:
                self._browser = await self._playwright.chromium.launch(
                    executable_path=path,
                    headless=self.headless,
                    args=list(_ARGS),
                    env=scrubbed_env(os.environ, () if self.headless else _DISPLAY_ENV),
                )
                width, height = self._size
                page = await self._browser.new_page(viewport={"width": width, "height": height})
                if self.start_url:
                    await page.goto(self.start_url)
                self._page = page
            except BaseException:
                await self.close()
                raise
        return self

    async def close(self) -> None:
        """Stop the browser."""
        browser, playwright = self._browser, self._playwright
        self._page = self._browser = self._playwright = None
        if browser is not None:
            await browser.close()
        if playwright is not None:
            await playwright.stop()

    async def __aenter__(self) -> BrowserComputer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _ready(self) -> Any:
        if self._page is None:
            await self.start()
        return self._page

    async def screenshot(self) -> str:
        page = await self._ready()
        return base64.b64encode(await page.screenshot(type="png")).decode("ascii")

    async def click(self, x: int, y: int, button: Button = "left") -> None:
        page = await self._ready()
        which = {"right": "right", "wheel": "middle"}.get(button, "left")
        await page.mouse.click(x, y, button=which)

    async def double_click(self, x: int, y: int) -> None:
        page = await self._ready()
        await page.mouse.dblclick(x, y)

    async def scroll(self, x: int, y: int, scroll_x: int, scroll_y: int) -> None:
        page = await self._ready()
        await page.mouse.move(x, y)
        await page.mouse.wheel(scroll_x, scroll_y)
        # wheel events scroll asynchronously: wait for the page to have taken them
        await page.evaluate("() => new Promise(r => requestAnimationFrame(() => r(null)))")

    async def type(self, text: str) -> None:
        page = await self._ready()
        await page.keyboard.type(text)

    async def wait(self) -> None:
        await asyncio.sleep(self.wait_seconds)

    async def move(self, x: int, y: int) -> None:
        page = await self._ready()
        await page.mouse.move(x, y)

    async def keypress(self, keys: list[str]) -> None:
        page = await self._ready()
        names = [_KEYS.get(k.upper(), k) for k in keys]
        await page.keyboard.press("+".join(names))

    async def drag(self, path: list[tuple[int, int]]) -> None:
        if not path:
            return
        page = await self._ready()
        await page.mouse.move(*path[0])
        await page.mouse.down()
        for x, y in path[1:]:
            await page.mouse.move(x, y)
        await page.mouse.up()
