"""``%agent session``: conversations in a database that outlives the kernel; passwords hidden."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agents.notebook.cells.conversation import Conversation
from jupyter_agents.notebook.host import current_host
from jupyter_agents.notebook.magics.session_magic import SessionStore, default_prefix, mask_url
from jupyter_agents.runtime.sessions import InMemorySession


@pytest.fixture
def shell() -> Any:
    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext jupyter_agents", store_history=False)
    yield ip
    ip.run_cell("%unload_ext jupyter_agents", store_history=False)
    ip.user_ns.clear()
    InteractiveShell.clear_instance()


def restart(ip: Any) -> Any:
    """A new kernel: the old shell and its host are gone."""
    ip.run_cell("%unload_ext jupyter_agents", store_history=False)
    InteractiveShell.clear_instance()
    fresh = InteractiveShell.instance()
    fresh.run_cell("%load_ext jupyter_agents", store_history=False)
    return fresh


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql+asyncpg://app:s3cret@db:5432/agents",
            "postgresql+asyncpg://app:***@db:5432/agents",
        ),
        ("redis://:s3cret@cache:6379/0", "redis://:***@cache:6379/0"),
        ("rediss://user:p%40ss@cache/1", "rediss://user:***@cache/1"),
        ("postgresql+asyncpg://app@db/agents", "postgresql+asyncpg://app@db/agents"),
        ("sqlite+aiosqlite:///history.db", "sqlite+aiosqlite:///history.db"),
        ("unix:///run/redis.sock", "unix:///run/redis.sock"),
        ("redis://[::1", "<an unreadable URL>"),
    ],
)
def test_mask_url_hides_the_password(url: str, shown: str) -> None:
    assert mask_url(url) == shown


def test_session_ids_are_user_notebook_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUPYTERHUB_USER", "ana")
    monkeypatch.setenv("JPY_SESSION_NAME", "/home/jovyan/work/analysis.ipynb")
    assert default_prefix() == "ana/analysis"
    monkeypatch.delenv("JUPYTERHUB_USER")
    monkeypatch.delenv("JPY_SESSION_NAME")
    assert default_prefix() == f"{getpass.getuser()}/notebook"
    store = SessionStore("sqlite+aiosqlite:///h.db", "ana/analysis")
    assert store.session_id("notebook") == "ana/analysis/notebook"
    assert store.describe() == "sqlite+aiosqlite:///h.db (session ids ana/analysis/AGENT)"


def test_history_survives_a_kernel_restart(
    shell: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'history.db'}"
    shell.run_cell(f"%agent session {url} team/demo")
    assert "conversations are stored in" in capsys.readouterr().out
    shell.run_cell(
        "from jupyter_agents.testing import ScriptedModel\nm = ScriptedModel(['Hi Ana.'])"
    )
    shell.run_cell("%agent model m")
    result = shell.run_cell("%%agent\nI am Ana.")
    assert result.error_in_exec is None, result.error_in_exec

    ip = restart(shell)
    ip.run_cell(f"%agent session {url} team/demo")
    ip.run_cell("from jupyter_agents.testing import ScriptedModel\nm = ScriptedModel(['Ana.'])")
    ip.run_cell("%agent model m")
    result = ip.run_cell("%%agent\nWho am I?")
    assert result.error_in_exec is None, result.error_in_exec
    sent = ip.user_ns["m"].requests[0].input
    assert [i.get("content") for i in sent if i.get("role") == "user"] == ["I am Ana.", "Who am I?"]

    capsys.readouterr()
    ip.run_cell("%agent session")
    assert "team/demo/AGENT" in capsys.readouterr().out
    ip.run_cell("%agent session off")
    host = current_host()
    assert host is not None and host.session_store is None
    assert isinstance(host.conversation("notebook").session, InMemorySession)
    ip.run_cell("%unload_ext jupyter_agents", store_history=False)


def test_a_rerun_cell_replaces_its_turn_after_an_earlier_kernels_history(tmp_path: Path) -> None:
    import asyncio

    from jupyter_agents.extensions.memory import SQLAlchemySession

    async def go() -> list[str]:
        url = f"sqlite+aiosqlite:///{tmp_path / 'h.db'}"
        earlier = SQLAlchemySession.from_url("c", url=url, create_tables=True)
        await earlier.add_items([{"role": "user", "content": "old"}])
        conv = Conversation(SQLAlchemySession.from_url("c", url=url, create_tables=True))
        await conv.record("a", [{"role": "user", "content": "1"}])
        assert [i["content"] for i in await conv.history_before("a")] == ["old"]
        await conv.record("a", [{"role": "user", "content": "1'"}])
        items = [i["content"] for i in await conv.items()]
        for session in (earlier, conv.session):
            await session.close()  # type: ignore[attr-defined]
        return items

    assert asyncio.run(go()) == ["old", "1'"]


def test_an_unreachable_database_is_one_line_without_the_password(
    shell: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"postgresql+asyncpg://app:hunter2@/agents?host={tmp_path}"  # no server there
    result = shell.run_cell(f"%agent session {url}")
    error = result.error_in_exec
    assert isinstance(error, UsageError)
    assert "\n" not in str(error) and "hunter2" not in str(error)
    assert "app:***@" in str(error)
    assert "hunter2" not in capsys.readouterr().out
    host = current_host()
    assert host is not None and host.session_store is None


@pytest.mark.parametrize("line", ["%agent session not-a-url", "%agent session a:// b c"])
def test_bad_session_arguments_are_usage_errors(shell: Any, line: str) -> None:
    error = shell.run_cell(line).error_in_exec
    assert isinstance(error, UsageError) and "%agent session [URL [ID] | off]" in str(error)
