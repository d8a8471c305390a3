"""The project's AGENTS.md files, found as Codex finds them: the person's own first, then one per
folder from the nearest folder holding ``.git`` down to the working folder (``AGENTS.override.md``
instead of its folder's ``AGENTS.md``), 32 KiB in all; links, FIFOs and folders above the project
are never read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jupyter_agents import Agent, Cassette, ReplayMismatch, RunConfig, Runner
from jupyter_agents.runtime.project.agents_md import MAX_BYTES, project_instructions
from jupyter_agents.runtime.project.places import folders_down, project_root
from jupyter_agents.testing import ScriptedModel, text


def repo(tmp_path: Path) -> tuple[Path, Path]:
    """``outer/repo`` (with ``.git``) holding ``analysis/2026``; the repo and that folder."""
    root = tmp_path / "outer" / "repo"
    deep = root / "analysis" / "2026"
    deep.mkdir(parents=True)
    (root / ".git").mkdir()
    (tmp_path / "outer" / "AGENTS.md").write_text("ABOVE THE PROJECT")
    return root, deep


def test_the_files_come_root_first_and_the_persons_own_before_them(tmp_path: Path) -> None:
    root, deep = repo(tmp_path)
    user = tmp_path / "config"
    user.mkdir()
    (user / "AGENTS.md").write_text("Answer in British English.")
    (root / "AGENTS.md").write_text("Use pandas, never polars.")
    (root / "analysis" / "AGENTS.md").write_text("Plots use seaborn.")
    (deep / "AGENTS.md").write_text("ignored: the override wins")
    (deep / "AGENTS.override.md").write_text("This year: euros.")
    found = project_instructions(deep, user_dir=user)
    assert found.root == root.resolve()
    assert found.names() == [
        "(your configuration)/AGENTS.md",
        "AGENTS.md",
        "analysis/AGENTS.md",
        "analysis/2026/AGENTS.override.md",
    ]
    text = found.text()
    order = ["British", "pandas", "seaborn", "euros"]
    assert [text.index(word) for word in order] == sorted(text.index(w) for w in order)
    assert "ignored" not in text and "ABOVE THE PROJECT" not in text
    assert found.skipped == ()


def test_without_a_repository_only_the_working_folder_counts(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("parent")
    here = tmp_path / "notes"
    here.mkdir()
    (here / "AGENTS.md").write_text("here")
    found = project_instructions(here, user_dir=tmp_path / "none")
    assert project_root(here) == here.resolve() and found.names() == ["AGENTS.md"]
    assert "here" in found.text() and "parent" not in found.text()


def test_no_file_adds_nothing(tmp_path: Path) -> None:
    found = project_instructions(tmp_path, user_dir=tmp_path / "none")
    assert (found.files, found.text()) == ((), "")


def test_a_link_a_fifo_and_a_folder_are_skipped_and_said(tmp_path: Path) -> None:
    root, deep = repo(tmp_path)
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY")
    (root / "AGENTS.md").symlink_to(secret)
    os.mkfifo(root / "analysis" / "AGENTS.md")  # would hang a plain open()
    (deep / "AGENTS.md").mkdir()
    found = project_instructions(deep, user_dir=tmp_path / "none")
    assert found.files == () and "PRIVATE" not in found.text()
    assert len(found.skipped) == 3
    assert "symbolic link" in found.skipped[0] and "not a regular file" in found.skipped[1]
    assert "a folder" in found.skipped[2]


def test_the_text_is_capped_in_all_and_later_files_are_left_out(tmp_path: Path) -> None:
    root, deep = repo(tmp_path)
    (root / "AGENTS.md").write_text("a" * (MAX_BYTES - 10))
    (root / "analysis" / "AGENTS.md").write_text("b" * 100)
    (deep / "AGENTS.md").write_text("c")
    found = project_instructions(deep, user_dir=tmp_path / "none")
    first, second = found.files
    assert (first.cut, second.cut) == (False, True) and second.text == "b" * 10
    assert "(cut: the instructions' size limit was reached)" in found.text()
    assert len(found.skipped) == 1 and "size limit" in found.skipped[0]
    assert sum(len(f.text) for f in found.files) == MAX_BYTES


def test_bytes_that_are_not_utf8_become_replacement_characters(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"caf\xe9 {__import__('os')}")
    (file,) = project_instructions(tmp_path, user_dir=tmp_path / "none").files
    assert file.text == "caf\ufffd {__import__('os')}"  # text, never evaluated


def test_a_working_folder_outside_the_root_is_its_own_list(tmp_path: Path) -> None:
    assert folders_down(tmp_path / "a", tmp_path / "b") == [(tmp_path / "b").resolve()]


async def test_a_recording_replays_only_under_the_agents_md_it_was_made_with(
    tmp_path: Path,
) -> None:
    (tmp_path / "AGENTS.md").write_text("Use pandas.")
    path = tmp_path / "run.json"

    def agent(model: ScriptedModel) -> Agent[None]:
        context = project_instructions(tmp_path, user_dir=tmp_path / "none").text()
        return Agent(name="a", instructions=f"Be brief.\n\n{context}", model=model)

    live = ScriptedModel([[text("Hi.")]])
    await Runner.run(
        agent(live), "Hello", run_config=RunConfig(replay=Cassette(path, mode="record"))
    )
    assert "Use pandas." in (live.requests[0].system_instructions or "")
    same = await Runner.run(
        agent(ScriptedModel([])),
        "Hello",
        run_config=RunConfig(replay=Cassette(path, mode="strict")),
    )
    assert same.final_output == "Hi."  # replayed: no model request
    (tmp_path / "AGENTS.md").write_text("Use polars.")
    with pytest.raises(ReplayMismatch):
        await Runner.run(
            agent(ScriptedModel([])),
            "Hello",
            run_config=RunConfig(replay=Cassette(path, mode="strict")),
        )
