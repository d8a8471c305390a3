"""A small driver for end-to-end tests: a real JupyterLab server and headless Chromium.

- :func:`lab_server` starts ``jupyter lab`` on 127.0.0.1 (free port, random token, its own
  config / runtime / settings / workspace dirs, in its own process group, the package's server
  extension on) and always kills it.
- :func:`require_browser_tools` checks that Debian's Chromium, Python Playwright and JupyterLab
  are there: it fails the test with install instructions when ``CI`` is set, and skips otherwise.
- :class:`Lab` is one browser page on that server, with helpers that wait for conditions
  (never for a fixed time): open a notebook and wait for the kernel's websocket handshake, run
  cells (retried when a keystroke was dropped), find cells and outputs, save, take screenshots.

Playwright's sync API is used; Chromium is Debian's (``/usr/bin/chromium``), never one
downloaded by ``playwright install``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..prerequisites import fail_or_skip

try:  # Playwright's `expect`, for the test modules: they import it from here
    from playwright.sync_api import expect as expect
except ImportError:  # the fixtures skip (or fail under CI) with install instructions
    expect = None  # type: ignore[assignment]

CHROMIUM = Path(os.environ.get("JUPYTER_AGENTS_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Without these Chromium keeps trying to reach Google's servers.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
"""Screenshots and logs of the browser tests (gitignored)."""

STRIPPED_ENV = re.compile(
    r"^(OPENAI_|JUPYTER_AGENTS_|JUPYTER_CONFIG|JUPYTER_DATA|JUPYTER_RUNTIME|JUPYTERLAB_)"
)
"""Variables the server (and so the kernel) must not inherit: no real model, no outside config."""

EXECUTED = re.compile(r"\[(\d+|\*)\]")
"""An input prompt that shows the cell was sent to the kernel: ``[*]`` or ``[n]``."""


# -- prerequisites -----------------------------------------------------------------------------


def missing_browser_tools() -> list[str]:
    """What the browser tests need and cannot find, each with how to install it."""
    missing = []
    if not CHROMIUM.exists():
        missing.append(
            f"Chromium at {CHROMIUM}: `apt-get update && apt-get install -y chromium` "
            "(Debian's package; never `playwright install`)"
        )
    if importlib.util.find_spec("playwright") is None:
        missing.append(
            "Python Playwright: `pip install -e '.[test]'` (or `pip install playwright`)"
        )
    for module in ("jupyterlab", "anywidget", "ipywidgets"):
        if importlib.util.find_spec(module) is None:
            missing.append(f"{module}: `pip install -e '.[lab]'`")
    return missing


def require_browser_tools() -> None:
    """Fail (under CI) or skip (elsewhere) when a prerequisite of the browser tests is missing."""
    missing = missing_browser_tools()
    if missing:
        fail_or_skip("browser tests need " + "; ".join(missing))


# -- the server --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LabServer:
    """A running ``jupyter lab``; ``root`` is its root dir (notebooks go there)."""

    root: Path
    base: str
    token: str
    log: Path

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}/{path.lstrip('/')}{sep}token={self.token}"

    def api(self, method: str, path: str, body: Any = None) -> Any:
        """Call the server's REST API; returns the decoded JSON (None when empty)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.base}/api/{path.lstrip('/')}",
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
        return json.loads(text) if text else None

    def sessions(self, path: str | None = None) -> list[dict[str, Any]]:
        sessions = self.api("GET", "sessions")
        return [s for s in sessions if path is None or s["path"] == path]


def _server_env(work: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The server's (and so its kernels') environment: this one without ``STRIPPED_ENV`` (but
    with ``PYTHONPATH`` and ``JUPYTER_PATH``, which pick the package and the lab extension a
    worktree tests), its own folders, then ``extra`` (``JUPYTER_CONFIG_PATH``: a site)."""
    env = {k: v for k, v in os.environ.items() if not STRIPPED_ENV.match(k)}
    bindir = str(Path(sys.executable).parent)
    env.update(
        PATH=bindir + os.pathsep + env.get("PATH", ""),
        JUPYTER_CONFIG_DIR=str(work / "config"),
        JUPYTER_DATA_DIR=str(work / "data"),  # notebook signatures (trust) stay here too
        JUPYTER_RUNTIME_DIR=str(work / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(work / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(work / "workspaces"),
        PYTHONUNBUFFERED="1",
    )
    env.update(extra or {})
    return env


def _write_settings(settings: Path) -> None:
    """User settings: no news or update checks (the machine is offline)."""
    folder = settings / "@jupyterlab" / "apputils-extension"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )


@contextlib.contextmanager
def lab_server(
    timeout: float = 60,
    disabled: tuple[str, ...] = (),
    app: str = "lab",
    env: Mapping[str, str] | None = None,
    server_extension: bool = True,
) -> Iterator[LabServer]:
    """Start an isolated JupyterLab on loopback; kill its process group on the way out.
    ``disabled`` names lab extensions to turn off (as ``jupyter labextension disable`` does);
    ``app="notebook"`` starts Notebook 7 instead, ``app="server"`` a Jupyter server alone;
    ``env`` is more environment for the server and its kernels (``JUPYTER_CONFIG_PATH``);
    ``server_extension=False`` leaves the package's server extension to the configuration."""
    work = Path(tempfile.mkdtemp(prefix="ja-e2e-"))
    root = work / "root"
    root.mkdir()
    _write_settings(work / "settings")
    if disabled:
        labconfig = work / "config" / "labconfig"
        labconfig.mkdir(parents=True, exist_ok=True)
        page_config = {"disabledExtensions": {name: True for name in disabled}}
        (labconfig / "page_config.json").write_text(json.dumps(page_config))
    ARTIFACTS.mkdir(exist_ok=True)
    log_path = ARTIFACTS / "e2e-lab-server.log"
    port, token = free_port(), secrets.token_hex(16)
    command = [
        sys.executable,
        "-m",
        "jupyter",
        app,
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--allow-root",
    ]
    if server_extension:
        # What installing enables (etc/jupyter/jupyter_server_config.d/jupyter_agents.json); an
        # environment whose editable install predates that file does not have it.
        command.append("--ServerApp.jpserver_extensions=jupyter_agents=True")
    if app == "lab":
        command += [
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ]
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            command,
            cwd=root,
            env=_server_env(work, env),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        server = LabServer(root=root, base=f"http://127.0.0.1:{port}", token=token, log=log_path)
        try:
            _wait_until_up(proc, server, timeout)
            yield server
        finally:
            _kill_group(proc)
            shutil.rmtree(work, ignore_errors=True)


def _wait_until_up(proc: subprocess.Popen[bytes], server: LabServer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(
                f"jupyter lab exited with {proc.returncode}; see {server.log}:\n"
                + server.log.read_text()[-3000:]
            )
        try:
            server.api("GET", "status")
            return
        except (OSError, urllib.error.URLError) as e:
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"jupyter lab did not answer in {timeout} s; see {server.log}"
                ) from e
            time.sleep(0.2)  # polling a process that is starting: nothing to wait on


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)


# -- the browser -------------------------------------------------------------------------------


KERNEL_WS = re.compile(r"/api/kernels/([0-9a-f-]+)/channels")


def _frame_has(payload: Any, needle: bytes) -> bool:
    data = payload if isinstance(payload, (bytes, bytearray)) else str(payload).encode()
    return needle in data


@dataclass
class Lab:
    """One Chromium page on a :class:`LabServer`, showing one notebook (see :meth:`open`)."""

    server: LabServer
    page: Any  # playwright.sync_api.Page
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    sockets: dict[str, Any] = field(default_factory=dict)
    """The latest websocket of each kernel id."""
    ready: set[str] = field(default_factory=set)
    """Kernel ids whose websocket answered ``kernel_info_request``."""
    panel_id: str | None = None
    opened: list[str] = field(default_factory=list)
    """Notebooks opened by :meth:`open`."""

    def __post_init__(self) -> None:
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("websocket", self._on_websocket)

    def _on_websocket(self, ws: Any) -> None:
        m = KERNEL_WS.search(ws.url)
        if not m:
            return
        kernel_id = m.group(1)
        self.sockets[kernel_id] = ws

        def on_frame(payload: Any) -> None:
            if _frame_has(payload, b"kernel_info_reply"):
                self.ready.add(kernel_id)

        ws.on("framereceived", on_frame)

    # -- notebooks ---------------------------------------------------------------------------

    def write_notebook(self, name: str, cells: list[str], ids: list[str] | None = None) -> Path:
        """Write a notebook of code cells (with ``ids``, when given) into the server's root."""
        import nbformat

        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
        }
        nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
        for cell, cell_id in zip(nb.cells, ids or [], strict=False):
            cell["id"] = cell_id
        path = self.server.root / name
        nbformat.write(nb, path)
        return path

    def open(self, name: str, *, timeout: float = 60_000) -> None:
        """Open notebook ``name`` in a fresh workspace (no other tabs restored) and wait until
        its kernel finished the websocket handshake.

        The toolbar says "Idle" before that handshake is done, and a cell run in that window is
        dropped: wait for a ``kernel_info_reply`` frame on this notebook's kernel instead.
        """
        self.opened.append(name)
        workspace = f"e2e-{secrets.token_hex(4)}"
        self.page.goto(self.server.url(f"lab/workspaces/{workspace}/tree/{name}"), timeout=timeout)
        self._wait_open(name, timeout)

    def _wait_open(self, name: str, timeout: float, idle: bool = True) -> None:
        """Wait until notebook ``name``'s tab, first cell and kernel are there (and the
        kernel idle, unless ``idle`` is false: it may be busy running a cell)."""
        label = self.page.locator(
            ".lm-TabBar-tabLabel", has_text=re.compile(f"^{re.escape(name)}$")
        )
        tab = self.page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has=label)
        tab.wait_for(timeout=timeout)
        self.panel_id = tab.get_attribute("data-id")
        self.cell(0).wait_for(timeout=timeout)
        self.wait_for_kernel(name, timeout, idle)

    def reload_page(self, name: str, *, timeout: float = 60_000) -> None:
        """Reload the browser page (as F5 does, unsaved changes and all) and wait until
        notebook ``name`` is open again and its kernel answered on the new websocket."""
        self.page.once("dialog", lambda dialog: dialog.accept())  # "leave the page?"
        self.ready.clear()
        self.page.reload(timeout=timeout)
        self._wait_open(name, timeout, idle=False)

    def close_and_reopen(self, name: str, *, timeout: float = 60_000) -> None:
        """Close notebook ``name``'s tab (discarding unsaved changes; its kernel goes on) and
        open it again from the file browser, in the same page."""
        tab = self.page.locator(f".lm-TabBar-tab[data-id='{self.panel_id}']")
        tab.locator(".lm-TabBar-tabCloseIcon").click()
        dialog = self.page.locator(".jp-Dialog")
        discard = dialog.get_by_role("button", name="Discard")
        with contextlib.suppress(Exception):  # no dialog when nothing was unsaved
            discard.click(timeout=5_000)
        tab.wait_for(state="detached", timeout=timeout)
        self.ready.clear()
        item = self.page.locator(".jp-DirListing-item", has_text=re.compile(re.escape(name)))
        item.dblclick(timeout=timeout)
        self._wait_open(name, timeout, idle=False)

    def wait_for_kernel(self, name: str, timeout: float = 60_000, idle: bool = True) -> str:
        """Wait until the kernel of notebook ``name`` answered on its websocket (and is idle,
        unless ``idle`` is false); its id."""
        deadline = time.monotonic() + timeout / 1000

        def left() -> float:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"the kernel of {name} never finished its handshake")
            return remaining

        kernel_id: str | None = None
        while kernel_id is None:
            sessions = self.server.sessions(name)
            if sessions and sessions[0].get("kernel"):
                kernel_id = sessions[0]["kernel"]["id"]
            else:
                self.page.wait_for_timeout(min(left(), 0.1) * 1000)  # lets page events run
        while kernel_id not in self.ready:
            wait = min(left(), 5) * 1000
            ws = self.sockets.get(kernel_id)
            with contextlib.suppress(Exception):  # a timeout here: look again
                if ws is not None and not ws.is_closed():
                    ws.wait_for_event(
                        "framereceived",
                        predicate=lambda p: _frame_has(p, b"kernel_info_reply"),
                        timeout=wait,
                    )
                else:
                    self.page.wait_for_event("websocket", timeout=wait)
        if idle:
            indicator = self.panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
            indicator.wait_for(timeout=left() * 1000)
        return kernel_id

    # -- cells -------------------------------------------------------------------------------

    @property
    def panel(self) -> Any:
        """The notebook panel opened by :meth:`open`."""
        assert self.panel_id, "open a notebook first"
        return self.page.locator(f"[id='{self.panel_id}']")

    @property
    def notebook(self) -> Any:
        return self.panel.locator(".jp-Notebook")

    @property
    def cell_selector(self) -> str:
        """CSS for the cells of the open notebook (append ``[data-windowed-list-index='i']``)."""
        return f"[id='{self.panel_id}'] .jp-Notebook .jp-Cell"

    def cell(self, index: int) -> Any:
        """Cell ``index``, by its stable windowed-list index (JupyterLab attaches cells lazily,
        so ``nth`` would count only the attached ones)."""
        return self.page.locator(f"{self.cell_selector}[data-windowed-list-index='{index}']")

    def prompt(self, index: int) -> Any:
        return self.cell(index).locator(".jp-InputArea-prompt")

    def outputs(self, index: int) -> Any:
        return self.cell(index).locator(".jp-OutputArea-output")

    def tracebacks(self) -> Any:
        """Error outputs (tracebacks) anywhere in the notebook."""
        stderr = self.panel.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
        )
        return stderr.filter(has_text=re.compile(r"Traceback|Error"))

    def execution_count(self, index: int) -> int | None:
        m = re.search(r"\[(\d+)\]", self.prompt(index).inner_text())
        return int(m.group(1)) if m else None

    def _started(self, index: int, timeout: float) -> bool:
        try:
            self.prompt(index).filter(has_text=EXECUTED).wait_for(timeout=timeout)
            return True
        except Exception:
            return False

    def scroll_to_top(self, index: int) -> None:
        """Scroll the notebook so that cell ``index`` starts at the top of the view."""
        self.cell(index).evaluate("e => e.scrollIntoView({block: 'start'})")

    def run_cell(self, index: int, tries: int = 3) -> Any:
        """Shift+Enter in cell ``index``; retried when the prompt never shows ``[*]``/``[n]``."""
        cell = self.cell(index)
        for _ in range(tries):
            cell.locator(".cm-content").click()
            self.page.keyboard.press("Shift+Enter")
            if self._started(index, 15_000):
                return cell
        raise AssertionError(f"cell {index} never started running")

    def menu(self, *labels: str) -> None:
        """Click through the main menu: ``menu("Run", "Run All Cells")``."""
        first, *rest = labels
        self.page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{first}$")).click()
        for label in rest:
            name = self.page.locator(
                ".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(label)}$")
            )
            self.page.locator(".lm-Menu .lm-Menu-item", has=name).click()

    def run_all(self, tries: int = 3, first: int = 0) -> None:
        """Run ▸ Run All Cells; retried when the first code cell (``first``) never starts."""
        for _ in range(tries):
            self.notebook.click(position={"x": 4, "y": 4})  # this notebook is the current one
            self.menu("Run", "Run All Cells")
            if self._started(first, 15_000):
                return
        raise AssertionError("Run All Cells never started the first code cell")

    def reload_from_disk(self, timeout: float = 30_000) -> None:
        """File ▸ Reload Notebook from Disk; wait until the cells were rebuilt from the file."""
        self.page.locator(self.cell_selector).evaluate_all(
            "els => els.forEach((e) => { e.dataset.e2eStale = '1'; })"
        )
        self.menu("File", "Reload Notebook from Disk")
        dialog = self.page.locator(".jp-Dialog")
        fresh = self.page.locator(f"{self.cell_selector}:not([data-e2e-stale])")
        fresh.or_(dialog).first.wait_for(timeout=timeout)
        if dialog.count():  # "the notebook has unsaved changes": reload anyway
            dialog.locator(".jp-mod-accept").click()
        fresh.first.wait_for(timeout=timeout)

    def save(self, path: Path, timeout: float = 15_000) -> None:
        """Ctrl+S, as a user saves; wait for the server's answer and a clean tab."""
        self.notebook.click(position={"x": 4, "y": 4})  # command mode, focus in the notebook
        with self.page.expect_response(
            lambda r: r.request.method == "PUT" and f"/api/contents/{path.name}" in r.url,
            timeout=timeout,
        ) as response:
            self.page.keyboard.press("Control+s")
        assert response.value.ok, f"saving {path.name} failed: HTTP {response.value.status}"
        tab = self.page.locator(f".lm-TabBar-tab[data-id='{self.panel_id}']")
        tab.and_(self.page.locator(":not(.jp-mod-dirty)")).wait_for(timeout=timeout)

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path

    def dump_logs(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        lines = [*self.console, *(f"pageerror: {e}" for e in self.errors)]
        (ARTIFACTS / f"{name}-console.log").write_text("\n".join(lines) + "\n")


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Yield a headless Debian Chromium (Playwright ``Browser``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Session:
    """What the module fixture yields: the server and the browser."""

    server: LabServer
    browser: Any

    @contextlib.contextmanager
    def lab(self, name: str, viewport: tuple[int, int] = (1280, 900)) -> Iterator[Lab]:
        """A fresh browser context and page; logs land in ``test-artifacts/{name}-console.log``.

        On the way out the page is closed and the kernels of the notebooks it opened are shut
        down (JupyterLab leaves them running), so tests do not pile up kernels.
        """
        context = self.browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        context.set_default_timeout(30_000)
        lab = Lab(self.server, context.new_page())
        try:
            yield lab
        except BaseException:
            with contextlib.suppress(Exception):
                lab.screenshot(f"{name}-failure")
            raise
        finally:
            lab.dump_logs(name)
            context.close()
            for path in lab.opened:
                for session in self.server.sessions(path):
                    with contextlib.suppress(OSError):
                        self.server.api("DELETE", f"sessions/{session['id']}")


@contextlib.contextmanager
def lab_session(
    disabled: tuple[str, ...] = (), env: Mapping[str, str] | None = None
) -> Iterator[Session]:
    """Server + browser, both always torn down (``disabled``: lab extensions turned off;
    ``env``: more environment for the server, see :func:`lab_server`)."""
    require_browser_tools()
    with lab_server(disabled=disabled, env=env) as server, chromium() as browser:
        yield Session(server, browser)


@contextlib.contextmanager
def expecting_session(
    timeout_ms: int = 30_000,
    disabled: tuple[str, ...] = (),
    env: Mapping[str, str] | None = None,
) -> Iterator[Session]:
    """:func:`lab_session` with Playwright's ``expect`` waiting ``timeout_ms`` (runs take
    seconds; its default is 5 s), put back afterwards: what a test module's ``session`` is."""
    with lab_session(disabled, env) as s:
        from playwright.sync_api import expect

        expect.set_options(timeout=timeout_ms)
        try:
            yield s
        finally:
            expect.set_options(timeout=5_000)
