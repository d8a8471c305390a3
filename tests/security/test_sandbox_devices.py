"""The host's device nodes a sandbox shows (``/dev/null``, ``/dev/full``, ...) stay as they were:
root inside the sandbox owns them, so it can change their modes without any capability, which
would break the host's other users (``chmod 000 /dev/null``). They are put back after the
command (and the command is told). Real bwrap, real kernels; root only (nobody else owns them).
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_agents.runtime.kernels import ManagedKernel
from jupyter_agents.runtime.sandbox import SandboxPolicy, run_sandboxed
from jupyter_agents.runtime.sandbox._devices import DEVICE_NODES

from ..prerequisites import needs_bwrap

pytestmark = [
    needs_bwrap,
    pytest.mark.timeout(90),
    pytest.mark.skipif(os.geteuid() != 0, reason="only root owns the host's device nodes"),
]

NODE = "/dev/full"
"""The node the attacks change (the least used one, should a test fail half way)."""


def mode(node: str = NODE) -> int:
    return stat.S_IMODE(os.stat(node).st_mode)


@pytest.fixture(autouse=True)
def _kept_modes() -> Iterator[None]:
    """Whatever a test does, the host's nodes end as they began."""
    before = {n: mode(n) for n in DEVICE_NODES if os.path.exists(n)}
    yield
    for node, bits in before.items():
        if mode(node) != bits:
            os.chmod(node, bits)


@pytest.fixture
def policy(tmp_path: Path) -> SandboxPolicy:
    return SandboxPolicy("workspace-write", tmp_path)


@pytest.mark.parametrize("attack", ["chmod 000 {n}", "chmod 600 {n}", "chmod u+s,g-w,o-rw {n}"])
async def test_a_changed_device_node_is_put_back_and_the_command_told(
    policy: SandboxPolicy, attack: str
) -> None:
    before = mode()
    result = await run_sandboxed(attack.format(n=NODE) + "; ls -l " + NODE, policy)
    assert mode() == before
    assert "put back" in result.stderr and NODE in result.stderr


async def test_device_nodes_still_work_in_the_sandbox(policy: SandboxPolicy) -> None:
    command = (
        "echo gone > /dev/null && head -c 8 /dev/urandom | wc -c && head -c 3 /dev/zero | wc -c"
    )
    result = await run_sandboxed(command, policy)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["8", "3"] and "put back" not in result.stderr


async def test_a_parallel_command_cannot_make_the_repair_undo_itself(
    policy: SandboxPolicy,
) -> None:
    """B starts while A's change is in place and ends after A: the mode restored is the one
    from before A, not the changed one B saw when it began."""
    before = mode()
    release = policy.workspace / "release"
    attacker = asyncio.create_task(
        run_sandboxed(
            f"chmod 600 {NODE}; while [ ! -e release ]; do sleep 0.01; done", policy, timeout=30
        )
    )
    deadline = time.monotonic() + 20
    while mode() == before:  # the change is visible on the host while A runs
        assert time.monotonic() < deadline, "the attack never changed the node"
        await asyncio.sleep(0.01)
    bystander = asyncio.create_task(
        run_sandboxed("while [ ! -e release ]; do sleep 0.01; done", policy, timeout=30)
    )
    release.touch()
    await asyncio.gather(attacker, bystander)
    assert mode() == before


async def test_a_full_access_command_is_not_watched(tmp_path: Path) -> None:
    """Unsandboxed, the person chose to give the command everything: nothing is put back."""
    before = mode()
    policy = SandboxPolicy("danger-full-access", tmp_path)
    result = await run_sandboxed(f"chmod 600 {NODE}", policy)
    assert mode() == 0o600 != before and "put back" not in result.stderr


@pytest.mark.kernel
async def test_code_in_a_sandboxed_kernel_cannot_keep_a_node_changed(policy: SandboxPolicy) -> None:
    before = mode()
    kernel = ManagedKernel(policy)
    try:
        result = await kernel.run(f"import os; os.chmod({NODE!r}, 0o600); print('done')", 60)
    finally:
        await kernel.shutdown()
    assert result.status == "ok" and "done" in str(result.output)
    assert mode() == before and "put back" in str(result.output)
