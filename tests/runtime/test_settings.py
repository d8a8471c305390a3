"""Layered settings: the site's files (an administrator's), the person's, the project's; the
site's locks as floors no layer, ``RunConfig`` or tool can go below; a project's file that only
tightens; bad files and values left out with a line saying why."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import Agent, RunConfig, Runner, ShellTool, tool
from jupyter_agents.runtime.project.settings import FILE_NAME, load_settings, site_locks
from jupyter_agents.runtime.sandbox.policy import ExecPolicy
from jupyter_agents.testing import ScriptedModel, text, tool_call


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A site folder, the person's folder and a project (with ``.git``), all empty."""
    found = {n: tmp_path / n for n in ("site", "site2", "user", "repo")}
    for folder in found.values():
        folder.mkdir()
    (found["repo"] / ".git").mkdir()
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", f"{found['site']}:{found['site2']}")
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(found["user"]))
    return found


def write(folder: Path, **values: Any) -> None:
    (folder / FILE_NAME).write_text(json.dumps(values))


def test_the_persons_values_replace_the_sites_but_not_below_a_lock(places: dict[str, Path]) -> None:
    write(
        places["site"],
        approval_policy="on-request",
        sandbox_mode="workspace-write",
        model="gpt-4o-mini",
        locked=["approval_policy"],
    )
    write(places["user"], approval_policy="never", sandbox_mode="read-only", model="gpt-4o")
    settings = load_settings(places["repo"])
    assert settings.values == {
        "approval_policy": "on-request",  # the lock held
        "sandbox_mode": "read-only",
        "model": "gpt-4o",
    }
    assert settings.source == {"approval_policy": "site", "sandbox_mode": "user", "model": "user"}
    (warning,) = settings.warnings
    assert "approval_policy is locked by your administrator at on-request" in warning
    assert settings.refusal("approval_policy", "untrusted") is None  # stricter: fine
    refused = settings.refusal("approval_policy", "on-failure")
    assert refused is not None and str(places["site"] / FILE_NAME) in refused


def test_a_projects_file_only_tightens(places: dict[str, Path]) -> None:
    write(
        places["user"], sandbox_mode="workspace-write", budget_per_cell=1, allowed_models=["a", "b"]
    )
    write(
        places["repo"],
        sandbox_mode="danger-full-access",  # looser: left out
        budget_per_cell=0.25,  # stricter: taken
        allowed_models=["a", "c"],  # not within: left out
        approval_policy="never",  # the person set none: the default is untrusted, still looser
        model="gpt-4o",  # a free key
        locked=["model"],
    )
    settings = load_settings(places["repo"] / "sub")
    assert settings.values["sandbox_mode"] == "workspace-write"
    assert settings.values["budget_per_cell"] == Decimal("0.25")
    assert settings.values["allowed_models"] == ("a", "b") and settings.values["model"] == "gpt-4o"
    assert "approval_policy" not in settings.values  # never is looser than the default
    assert settings.locks == {}  # only the site locks
    said = "\n".join(settings.warnings)
    assert "sandbox_mode danger-full-access is looser than workspace-write" in said
    assert "allowed_models a, c is looser than a, b" in said
    assert "approval_policy never is looser than untrusted" in said
    assert "only the site's files lock settings" in said


def test_bad_files_and_values_are_left_out_and_said(places: dict[str, Path]) -> None:
    write(places["site"], mode="yolo", colour="blue", budget_per_cell=-1, locked=["nope", "mode"])
    (places["user"] / FILE_NAME).write_text("{not json")
    secret = places["repo"] / "secret.json"
    secret.write_text(json.dumps({"mode": "ask"}))
    (places["repo"] / FILE_NAME).symlink_to(secret)
    settings = load_settings(places["repo"])
    assert settings.values == {} and settings.locks == {}
    said = "\n".join(settings.warnings)
    for part in [
        "mode must be one of ask, plan, agent",
        "'colour' is not a setting",
        "budget_per_cell must be an amount in dollars above 0",
        "cannot lock 'nope'",
        "cannot lock mode: the file gives it no value",
        "not JSON",
        "symbolic link",
    ]:
        assert part in said, part


def test_the_first_site_folder_wins_and_the_stricter_lock_holds(places: dict[str, Path]) -> None:
    write(places["site"], sandbox_mode="workspace-write", locked=["sandbox_mode"])
    write(places["site2"], sandbox_mode="read-only", locked=["sandbox_mode"])
    settings = load_settings(places["repo"])
    assert settings.values["sandbox_mode"] == "workspace-write"
    assert settings.locks["sandbox_mode"].value == "read-only"


def test_a_tool_and_a_run_config_are_clamped_by_the_sites_locks(places: dict[str, Path]) -> None:
    write(
        places["site"],
        approval_policy="on-request",
        sandbox_mode="read-only",
        network_access=False,
        locked=["approval_policy", "sandbox_mode", "network_access"],
    )
    shell = ShellTool(
        approval_policy="never", sandbox_mode="danger-full-access", network_access=True
    )
    policy = ExecPolicy.resolve(shell, RunConfig(approval_policy="never"))
    assert (policy.approval, policy.sandbox.mode, policy.sandbox.network_access) == (
        "on-request",
        "read-only",
        False,
    )
    strict = ExecPolicy.resolve(ShellTool(approval_policy="untrusted"), None)
    assert strict.approval == "untrusted"  # stricter than the lock: kept


async def test_a_locked_mode_holds_whatever_the_run_config_says(places: dict[str, Path]) -> None:
    write(places["site"], mode="ask", locked=["mode"])
    changed: list[str] = []

    @tool
    def change(what: str) -> str:
        """Change something."""
        changed.append(what)
        return "changed"

    model = ScriptedModel([[tool_call("change", {"what": "x"}, call_id="c1")], [text("No.")]])
    agent = Agent(name="a", model=model, tools=[change])
    result = await Runner.run(agent, "Change x.", run_config=RunConfig(mode="agent"))
    assert result.mode == "ask" and changed == []
    assert model.requests[1].input[-1]["output"].startswith("ask mode: change is not one of")


def test_site_locks_are_read_again_when_a_file_changes(places: dict[str, Path]) -> None:
    assert site_locks() == {}
    write(places["site"], network_access=False, locked=["network_access"])
    assert site_locks()["network_access"].value is False


def test_site_locks_follow_a_changed_jupyter_config_path(
    places: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(places["site"], network_access=False, locked=["network_access"])
    assert site_locks()["network_access"].value is False
    other = tmp_path / "other-site"
    other.mkdir()
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(other))
    assert site_locks() == {}  # the folder list is worked out again, not kept from before
    write(other, model="gpt-4o-mini", locked=["model"])
    assert list(site_locks()) == ["model"]
