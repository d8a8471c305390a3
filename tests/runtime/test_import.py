"""Importing the package stays light: no IPython, no openai until needed."""

from __future__ import annotations

import subprocess
import sys


def modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    return set(out.split())


def test_import_jupyter_agents_does_not_import_ipython_or_openai() -> None:
    loaded = modules_after("import jupyter_agents")
    assert "IPython" not in loaded
    assert "openai" not in loaded
    assert "pydantic" not in loaded


def test_runtime_names_do_not_import_ipython_or_openai() -> None:
    loaded = modules_after(
        "from jupyter_agents import Agent, Runner, RunConfig, tool, ModelSettings, UserError"
    )
    assert "jupyter_agents.runtime.run" in loaded
    assert "IPython" not in loaded
    assert "openai" not in loaded


def test_public_names_resolve() -> None:
    import jupyter_agents

    for name in jupyter_agents.__all__:
        assert getattr(jupyter_agents, name) is not None, name
    assert "Agent" in dir(jupyter_agents)


def test_the_written_out_all_is_exactly_the_lazy_exports_and_the_entry_points() -> None:
    import jupyter_agents
    from jupyter_agents._exports import EXPORTS

    entry_points = {"__version__", "last_result", "load_ipython_extension"}
    entry_points.add("unload_ipython_extension")
    assert len(jupyter_agents.__all__) == len(set(jupyter_agents.__all__))
    assert set(jupyter_agents.__all__) == set(EXPORTS) | entry_points


def test_the_litellm_paths_do_not_import_litellm_until_a_call() -> None:
    loaded = modules_after(
        "import jupyter_agents\n"
        "from jupyter_agents.extensions.models.litellm_model import LitellmModel\n"
        "from jupyter_agents.extensions.models.litellm_provider import LitellmProvider\n"
        "LitellmProvider().get_model('anthropic/claude-sonnet-4-5')"
    )
    assert "jupyter_agents.runtime.models.litellm_model" in loaded
    assert "litellm" not in loaded


def test_session_stores_import_their_dependencies_only_when_used() -> None:
    drivers = {"sqlalchemy", "asyncpg", "aiosqlite", "redis", "cryptography"}
    for code in (
        "import jupyter_agents",
        "from jupyter_agents import Agent, Runner, SQLiteSession, SessionSettings",
        "from jupyter_agents.extensions.memory import AdvancedSQLiteSession",
    ):
        assert not drivers & modules_after(code), code
    assert "redis" in modules_after("from jupyter_agents.extensions.memory import RedisSession")
