"""Terminal IPython (a real one, on a pseudo-terminal): the approval prompt and Ctrl-C."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pexpect = pytest.importorskip("pexpect")

from ..prerequisites import fail_or_skip  # noqa: E402

IPYTHON = Path(sys.executable).with_name("ipython")

SETUP = [
    "%load_ext jupyter_agents",
    "from jupyter_agents import tool",
    "from jupyter_agents.testing import ScriptedModel, text, tool_call",
    "sent = []",
    'exec("@tool(needs_approval=True)\\ndef send_email(to: str) -> str:\\n'
    '    \\"Send.\\"\\n    sent.append(to)\\n    return \'sent\'")',
]


@pytest.fixture
def shell(tmp_path: Path) -> Iterator[Any]:  # a pexpect.spawn (pexpect has no types)
    if not IPYTHON.exists() and shutil.which("ipython") is None:
        fail_or_skip("needs the ipython command")
    child = pexpect.spawn(
        str(IPYTHON),
        ["--no-banner", "--colors=NoColor", "--no-confirm-exit", "--HistoryManager.enabled=False"],
        cwd=str(tmp_path),
        env={"TERM": "dumb", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 200),
    )
    child.expect(r"In \[1\]: ")
    for line in SETUP:
        child.sendline(line)
        child.expect(r"In \[\d+\]: ")
    try:
        yield child
    finally:
        child.terminate(force=True)


def run_agent(child: Any, turns: str) -> None:
    child.sendline(f"%agent model ScriptedModel({turns})")
    child.expect(r"In \[\d+\]: ")
    child.sendline('get_ipython().run_cell_magic("agent", "", "email ana")')


OUT = r"Out\[\d+\]: (?:\x1b\[[0-9;?]*[A-Za-z])*"
"""An output prompt, with the terminal codes IPython may put after it."""

EMAIL = "[[tool_call('send_email', {'to': 'ana'}, 'c1')], [text('ok')]]"


def test_ctrl_c_at_the_approval_prompt_leaves_the_shell_usable_at_once(shell: Any) -> None:
    child = shell
    run_agent(child, EMAIL)
    child.expect("notebook wants to run send_email")  # the header names the agent
    child.expect(r"\[y\]es / \[n\]o")
    child.sendcontrol("c")
    child.expect("KeyboardInterrupt")
    child.expect(r"In \[\d+\]: ")
    child.sendline("6 * 7")
    child.expect(OUT + "42", timeout=5)  # the prompt thread did not eat this line
    child.sendline("sent")
    child.expect(OUT + r"\[\]", timeout=5)


def test_rejection_reason_and_empty_answers(shell: Any) -> None:
    child = shell
    run_agent(child, EMAIL)
    child.expect(r"\[y\]es / \[n\]o")
    child.sendline("")  # empty: asked again
    child.expect("Please answer y, n or a")
    child.sendline("n")
    child.expect("Reason for the model")
    child.sendline("not today")
    child.expect("rejected this call to tool 'send_email'; it did not run. Reason: not today")
    child.expect("── done")
    child.expect(r"In \[\d+\]: ")
    child.sendline("sent")
    child.expect(OUT + r"\[\]", timeout=5)


FORM = "{'type': 'object', 'properties': {'table': {'type': 'string', 'enum': ['sales', 'returns']}, 'rows': {'type': 'integer'}}, 'required': ['table']}"  # noqa: E501
ASK_FORM = (
    f"[[tool_call('ask_user', {{'question': 'Which table?', 'form': {FORM}}}, 'q1')], [text('ok')]]"
)
ASK_CHOICE = "[[tool_call('ask_user', {'question': 'Bar or line?', 'choices': ['bar', 'line']}, 'q1')], [text('ok')]]"  # noqa: E501


def test_a_form_question_is_asked_field_by_field_and_checked(shell: Any) -> None:
    child = shell
    run_agent(child, ASK_FORM)
    child.expect("notebook asks: Which table?")
    child.expect(r"table \(sales/returns\): ")
    child.sendline("returns")
    child.expect(r"rows \(integer\): ")
    child.sendline("ten")  # not a number: said, then asked again
    child.expect("field 'rows': must be a number")
    child.expect(r"table \(sales/returns\): ")
    child.sendline("returns")
    child.expect(r"rows \(integer\): ")
    child.sendline("20")
    child.expect("── done")
    child.expect(r"In \[\d+\]: ")
    child.sendline("import jupyter_agents; print(jupyter_agents.last_result().new_items[1].output)")
    child.expect(r'\{"table": "returns", "rows": 20\}', timeout=5)


def test_a_choice_by_number_and_an_empty_line_skips(shell: Any) -> None:
    child = shell
    run_agent(child, ASK_CHOICE)
    child.expect("1. bar")
    child.expect("2. line")
    child.expect("Answer \\(empty to skip\\): ")
    child.sendline("2")
    child.expect("── done")
    child.expect(r"In \[\d+\]: ")
    run_agent(child, ASK_CHOICE)
    child.expect("Answer \\(empty to skip\\): ")
    child.sendline("")
    child.expect("skipped this question without answering. Reason: skipped at the prompt")
    child.expect("── done")
