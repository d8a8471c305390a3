"""KernelCodeInterpreter on real kernels: results, plots, timeouts, crashes, the sandbox, and
no kernel process left behind."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any

import openai
import pytest

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    ApprovalRequest,
    KernelCodeInterpreter,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall

from ..prerequisites import needs_bwrap
from ..recorded import json_body

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.timeout(120),
    needs_bwrap,
]


def interpreter(workspace: Path, **cfg: Any) -> KernelCodeInterpreter:
    return KernelCodeInterpreter({"workspace": str(workspace), "approval_policy": "never", **cfg})


async def ask(tool: KernelCodeInterpreter, *codes: str) -> list[Any]:
    """Run each code in its own call; the outputs the model got back, in order."""
    script = [[tool_call("code_interpreter", {"code": c}, f"c{i}")] for i, c in enumerate(codes)]
    model = ScriptedModel([*script, [text("done")]])
    await Runner.run(Agent(name="a", model=model, tools=[tool]), "go", max_turns=20)
    return [model.requests[i + 1].input[-1]["output"] for i in range(len(codes))]


def kernel_processes(folder: Path) -> list[int]:
    """Processes whose command line names ``folder`` (the kernel, or bubblewrap around it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if str(folder).encode() in command:
            found.append(int(entry.name))
    return found


def wait_gone(folder: Path, timeout: float = 15.0) -> list[int]:
    """Wait until no process names ``folder``; what is left at the deadline."""
    deadline = time.monotonic() + timeout
    left = kernel_processes(folder)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = kernel_processes(folder)
    return left


async def test_results_state_errors_and_the_sandbox(tmp_path: Path) -> None:
    tool = interpreter(tmp_path)
    try:
        first, second, third, fourth = await ask(
            tool,
            "x = 20\nprint('computing')\nx + 1",
            "x * 2",
            "1 / 0",
            "open('made.txt', 'w').write('ok')\nopen('/usr/evil.txt', 'w')",
        )
    finally:
        await tool.shutdown()
    assert first == "computing\n21\n"
    assert second == "40\n"  # state persists across calls
    assert "ZeroDivisionError" in third and "\x1b[" not in third  # traceback, no colours
    assert "Read-only file system: '/usr/evil.txt'" in fourth
    assert (tmp_path / "made.txt").read_text() == "ok"  # the workspace is writable


FAKE_BWRAP = '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n'
"""A "bwrap" that drops every option and runs the command unconfined."""


async def test_the_kernel_is_confined_like_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``bwrap`` planted on PATH (the workspace's venv) does not unconfine the kernel, which
    sees no secret, cannot touch a nested repository or anything outside, and runs under the
    sandbox's system-call filter (also after a restart)."""
    planted = tmp_path / ".venv" / "bin" / "bwrap"
    planted.parent.mkdir(parents=True)
    planted.write_text(FAKE_BWRAP)
    planted.chmod(0o755)
    monkeypatch.setenv("PATH", f"{planted.parent}:{os.environ['PATH']}")
    monkeypatch.setenv("PGPASSWORD", "pg-secret")
    (tmp_path / "vendor" / "lib" / ".git" / "hooks").mkdir(parents=True)
    outside = Path.home() / f"ja-kernel-outside-{uuid.uuid4().hex}"
    tool = interpreter(tmp_path)
    try:
        secret, escaped, hook, uring = await ask(
            tool,
            "import os; print(os.environ.get('PGPASSWORD'))",
            f"open({str(outside)!r}, 'w').write('x')",
            "open('vendor/lib/.git/hooks/pre-commit', 'w').write('x')",
            "import ctypes; c = ctypes.CDLL(None, use_errno=True); c.syscall(425, 1, None); "
            "print('errno', ctypes.get_errno())",  # io_uring_setup: the seccomp filter applies
        )
    finally:
        await tool.shutdown()
    made = outside.exists()
    outside.unlink(missing_ok=True)
    assert not made
    assert "Read-only file system" in escaped
    assert "Read-only file system" in hook
    assert secret == "None\n"
    assert uring == "errno 1\n"


async def test_a_plot_comes_back_as_an_image(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    tool = interpreter(tmp_path)
    try:
        (output,) = await ask(
            tool,
            "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('trend')\nplt.show()",
        )
    finally:
        await tool.shutdown()
    images = [p for p in output if p["type"] == "input_image"]
    assert len(images) == 1 and images[0]["image_url"].startswith("data:image/png;base64,iVBOR")


async def test_an_endless_loop_is_interrupted_and_the_state_kept(tmp_path: Path) -> None:
    tool = interpreter(tmp_path, timeout=1.5)
    try:
        _, looped, after = await ask(
            tool, "kept = 'yes'", "import time\nwhile True:\n    time.sleep(0.05)", "kept"
        )
    finally:
        await tool.shutdown()
    assert (
        "KeyboardInterrupt" in looped and "[interrupted: the code ran longer than 1.5 s]" in looped
    )
    assert after == "'yes'\n"


async def test_a_kernel_that_ignores_the_interrupt_is_restarted(tmp_path: Path) -> None:
    tool = interpreter(tmp_path, timeout=1.0)
    stubborn = textwrap.dedent(
        """
        import time
        while True:
            try:
                time.sleep(0.05)
            except KeyboardInterrupt:
                pass
        """
    )
    try:
        _, looped, after = await ask(tool, "kept = 1", stubborn, "print('kept' in dir())")
    finally:
        await tool.shutdown()
    assert "[the kernel was restarted: variables and imports" in looped
    assert after == "False\n"  # the new kernel starts empty, and works


async def test_a_kernel_killed_mid_call_is_reported_and_restarted(tmp_path: Path) -> None:
    tool = interpreter(tmp_path)
    try:
        await ask(tool, "1")
        session = tool._session
        assert session is not None and session._dir is not None
        folder, old = session._dir, session.pid
        killed, after = await ask(
            tool, "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "2 + 2"
        )
        assert "[the kernel died while running this code]" in killed
        assert after == "4\n" and session.pid != old
        assert old not in kernel_processes(folder)
    finally:
        await tool.shutdown()
    assert wait_gone(folder) == []


async def test_the_policy_asks_under_untrusted_and_comes_from_the_run(tmp_path: Path) -> None:
    tool = KernelCodeInterpreter({"workspace": str(tmp_path)})
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.approve()

    model = ScriptedModel([[tool_call("code_interpreter", {"code": "6 * 7"})], [text("ok")]])
    agent = Agent(name="a", model=model, tools=[tool])
    try:
        await Runner.run(agent, "go", approval_handler=approve)
        assert [r.arguments for r in asked] == [{"code": "6 * 7"}]  # untrusted: asked
        assert model.requests[1].input[-1]["output"] == "42\n"
        model = ScriptedModel([[tool_call("code_interpreter", {"code": "7 * 7"})], [text("ok")]])
        config = RunConfig(approval_policy="on-request")
        await Runner.run(
            agent.clone(model=model),
            "go",
            run_config=config,
            approval_handler=approve,
        )
        assert len(asked) == 1 and model.requests[1].input[-1]["output"] == "49\n"
    finally:
        await tool.shutdown()


LAUNCH = """
import asyncio, sys
from pathlib import Path
from jupyter_agents import KernelCodeInterpreter
from jupyter_agents.runtime.sandbox import SandboxPolicy
tool = KernelCodeInterpreter({"workspace": sys.argv[1], "sandbox_mode": sys.argv[2]})
session, _ = tool.session(SandboxPolicy(sys.argv[2], Path(sys.argv[1])))
result = asyncio.run(session.run("40 + 2", 60))
print(session._dir, result.output.strip(), flush=True)
if sys.argv[3] == "wait":
    sys.stdin.read()  # until the test kills us
"""


@pytest.mark.parametrize("mode", ["workspace-write", "danger-full-access"])
@pytest.mark.parametrize("end", ["exit", "killed"])
def test_no_kernel_outlives_its_process(tmp_path: Path, mode: str, end: str) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, str(tmp_path), mode, "wait" if end == "killed" else "exit"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    folder, answer = parent.stdout.readline().split()
    assert answer == "42"
    if end == "killed":
        assert kernel_processes(Path(folder)) != []  # the kernel runs while its parent does
        parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=30)
    assert wait_gone(Path(folder)) == []


@pytest.mark.http
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_over_http_in_both_wire_formats(
    openai_server: FakeOpenAIServer, tmp_path: Path, kind: str
) -> None:
    openai_server.enqueue(
        Reply([ReplyToolCall("code_interpreter", {"code": "sum(range(10))"}, call_id="k1")]),
        Reply([ReplyText("It is 45.")]),
    )
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    tool = interpreter(tmp_path)
    agent = Agent(name="a", model=cls("gpt-test", openai_client=client), tools=[tool])
    try:
        result = await Runner.run(agent, "Add up 0..9.")
    finally:
        await tool.shutdown()
    assert result.final_output == "It is 45."
    assert "45\\n" in json.dumps(json_body(openai_server.model_requests[1]))


def test_a_run_sync_caller_keeps_its_kernel_between_runs(tmp_path: Path) -> None:
    tool = interpreter(tmp_path)
    try:
        first = ScriptedModel([[tool_call("code_interpreter", {"code": "n = 5"})], [text("ok")]])
        Runner.run_sync(Agent(name="a", model=first, tools=[tool]), "go")
        second = ScriptedModel([[tool_call("code_interpreter", {"code": "n + 1"})], [text("ok")]])
        Runner.run_sync(Agent(name="a", model=second, tools=[tool]), "go")
        assert second.requests[1].input[-1]["output"] == "6\n"  # another loop, the same kernel
    finally:
        asyncio.run(tool.shutdown())
