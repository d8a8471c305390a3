"""notebook_python: the agent's code in the notebook's own namespace, only when approved."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agents.notebook.host import current_host
from jupyter_agents.notebook.workspace.notebook_python import NotebookPython, describe_value

SCRIPT = (
    "from jupyter_agents.testing import ScriptedModel, text, tool_call\n"
    "code = \"total = sum(values)\\nprint('summing', len(values))\\ntotal * 10\"\n"
    "demo = ScriptedModel([[tool_call('notebook_python', {'code': code})], [text('Done.')]])\n"
)


@pytest.fixture
def shell(capsys: pytest.CaptureFixture[str]) -> Any:
    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext jupyter_agents", store_history=False)
    yield ip
    ip.run_cell("%unload_ext jupyter_agents", store_history=False)
    ip.user_ns.clear()
    InteractiveShell.clear_instance()


def test_added_with_the_magic_it_runs_in_the_users_namespace(shell: Any, capsys: Any) -> None:
    shell.run_cell("values = [1, 2, 3]")
    shell.run_cell(SCRIPT)
    shell.run_cell("%agent model demo")
    shell.run_cell("%agent tools add notebook_python")
    assert "can use 'notebook_python'" in capsys.readouterr().out
    host = current_host()
    assert host is not None and "notebook_python" in host.toolbox
    result = shell.run_cell("%%agent --approve auto --out res\nAdd up my values.")
    assert result.error_in_exec is None, result.error_in_exec
    assert shell.user_ns["total"] == 6  # made in the user's namespace
    answer = shell.user_ns["res"].new_items[1].raw_item["output"]
    assert answer == "summing 3\n60\nNew or changed variables: total (int)"
    capsys.readouterr()
    shell.run_cell("print('a later cell')")  # its printing is its own again
    assert capsys.readouterr().out == "a later cell\n"


def test_without_an_approval_nothing_runs(shell: Any) -> None:
    shell.run_cell("values = [1, 2, 3]")
    shell.run_cell(SCRIPT)
    shell.run_cell("%agent model demo")
    shell.run_cell("%agent tools add notebook_python")
    result = shell.run_cell("%%agent --approve deny --out res\nAdd up my values.")
    assert result.error_in_exec is None
    assert "total" not in shell.user_ns
    assert "rejected" in shell.user_ns["res"].new_items[1].raw_item["output"]


def test_bad_additions_are_usage_errors(shell: Any) -> None:
    missing = shell.run_cell("%agent tools add nope")
    assert isinstance(missing.error_in_exec, UsageError)
    assert "No tool named 'nope'" in str(missing.error_in_exec)
    bad = shell.run_cell("%agent tools add notebook_python oops")
    assert "'oops' is not KEY=VALUE" in str(bad.error_in_exec)
    shell.run_cell("%agent tools add notebook_python needs_approval=false")
    tool = current_host().toolbox.entry("notebook_python").tool  # type: ignore[union-attr]
    assert tool.needs_approval is False


async def test_errors_and_values_are_told_to_the_model() -> None:
    tool = NotebookPython()
    tool.namespace = {"n": 2}
    assert await tool.call({"code": "n / 0"}) == "ZeroDivisionError: division by zero"
    assert await tool.call({"code": "def f(:"}) == "SyntaxError: invalid syntax (line 1)"
    assert await tool.call({"code": "m = n + 1"}) == "New or changed variables: m (int)"
    assert await tool.call({"code": "x = 1"}) == "New or changed variables: x (int)"
    assert describe_value([1, 2]) == "list of 2" and describe_value("ab") == "str"


def test_agent_docs_add_gives_the_notebook_agent_retrieval(
    shell: Any, capsys: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "targets.md").write_text("# Targets\n\n## North\n\nThe north target for Q1 is 450.\n")
    monkeypatch.chdir(tmp_path)
    shell.run_cell("%agent docs")
    assert "none (%agent docs add PATH)" in capsys.readouterr().out
    (docs / "menu.txt").write_bytes(b"caf\xe9 au lait, cr\xe8me")  # Latin-1: read, and said so
    (docs / "notes.txt").symlink_to("/proc/self/environ")  # never read
    shell.run_cell("%agent docs add docs")
    out = capsys.readouterr().out
    assert "indexed 2 file(s), 2 passage(s)" in out and "can search them" in out
    assert "skipped docs/notes.txt" in out  # the person sees what was left out and why
    assert "jupyter_agents: docs/menu.txt" in out, out  # and each warning
    shell.run_cell("%agent docs")
    assert "Documents: docs" in capsys.readouterr().out
    shell.run_cell(
        "from jupyter_agents.testing import ScriptedModel, text, tool_call\n"
        "demo = ScriptedModel([[tool_call('retrieval', {'query': 'north target'})],"
        " [text('450.')]])"
    )
    shell.run_cell("%agent model demo")
    result = shell.run_cell("%%agent --out res\nWhat is the north target?")
    assert result.error_in_exec is None, result.error_in_exec
    answer = shell.user_ns["res"].new_items[1].raw_item["output"]
    assert answer.startswith("[1] docs/targets.md § Targets > North\n") and "450" in answer
    outside = shell.run_cell("%agent docs add /etc")
    assert "outside the store's folder" in str(outside.error_in_exec)
    shell.run_cell(
        "from jupyter_agents import Agent\nmine = Agent(name='mine', tools=['retrieval'])"
    )
    assert shell.user_ns["mine"].tools[0].store is current_host().docs  # type: ignore[union-attr]
