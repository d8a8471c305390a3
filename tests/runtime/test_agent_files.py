"""Agents defined in files: Markdown with front matter or YAML, validated, built with the tools,
servers and handoffs they name (never more), and one clear line for every kind of bad file."""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path

import pytest

from jupyter_agents import (
    Agent,
    AgentFile,
    AgentFileError,
    Runner,
    find_agent_file,
    load_agent_file,
    tool,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call

ANALYST = """---
name: analyst
description: Answers questions about the sales table.
model: gpt-4o-mini
tools: [describe_sales, update_plan]
handoffs: [writer]
mode: plan
budget: 0.50
---
You analyse sales. Answer in {currency}.
"""
WRITER = """name: writer
description: Writes the report.
instructions: Write short reports.
handoffs: [analyst]
"""
SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "agent-file.schema.json"


@tool(read_only=True)
def describe_sales() -> str:
    """The sales table."""
    return "Paris: 120"


@tool
def drop_city(city: str) -> str:
    """Drop a city."""
    return f"dropped {city}"


def folder(tmp_path: Path) -> Path:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "analyst.md").write_text(ANALYST)
    (agents / "writer.yaml").write_text(WRITER)
    return agents


def test_a_markdown_file_and_its_yaml_handoff_make_agents(tmp_path: Path) -> None:
    agents = folder(tmp_path)
    spec = load_agent_file(agents / "analyst.md")
    assert (spec.mode, spec.budget, spec.tools) == (
        "plan",
        Decimal("0.5"),
        ["describe_sales", "update_plan"],
    )
    agent = Agent.from_file(agents / "analyst.md", tools=[describe_sales, drop_city])
    assert agent.name == "analyst" and agent.model == "gpt-4o-mini"
    assert agent.instructions == "You analyse sales. Answer in {currency}."  # text, as written
    assert [t.name for t in agent.tools] == ["describe_sales", "update_plan"]  # not drop_city
    assert agent.handoff_description == "Answers questions about the sales table."
    (writer,) = agent.handoffs
    assert isinstance(writer, Agent) and writer.name == "writer"
    assert writer.instructions == "Write short reports." and writer.handoffs == [agent]  # a cycle


async def test_an_agent_from_a_file_runs_with_the_tool_it_names(tmp_path: Path) -> None:
    model = ScriptedModel([[tool_call("describe_sales", {}, call_id="d1")], [text("Paris leads.")]])
    (tmp_path / "solo.md").write_text("---\ntools: [describe_sales]\n---\nBe brief.")
    solo = Agent.from_file(tmp_path / "solo.md", tools=[describe_sales], model=model)
    result = await Runner.run(solo, "Who leads?")
    assert result.final_output == "Paris leads." and solo.name == "solo"
    assert model.requests[0].system_instructions == "Be brief."
    assert model.requests[1].input[-1]["output"] == "Paris: 120"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("no front matter", "start the file with front matter"),
        ("---\nname: x\n", "no closing '---' line"),
        ("---\ntool: [a]\n---\n", "'tool' is not a field of an agent file; did you mean 'tools'?"),
        (
            "---\nmode: yolo\n---\n",
            "field 'mode': Input should be 'ask', 'plan' or 'agent' (got 'yolo').",
        ),
        ("---\nbudget: -1\n---\n", "field 'budget': Input should be greater than 0"),
        ("---\nname: [1\n---\n", "not valid YAML (line 3)"),
        ("---\n- a\n- b\n---\n", "the YAML must be a mapping of fields"),
        ("---\n!!python/object/apply:os.system [echo pwned]\n---\n", "not valid YAML"),
        ("---\ninstructions: a\n---\nbody", "instructions are given twice"),
        ("---\nhandoffs: [../x]\n---\n", "'../x' is not an agent file's name"),
        ("---\ntools: [a, a]\n---\n", "names a tool or server twice"),
        ('---\nname: "a\\u0007b"\n---\n', "holds control characters"),
    ],
)
def test_a_bad_file_is_one_line_naming_the_field(tmp_path: Path, content: str, said: str) -> None:
    path = tmp_path / "agents" / "bad.md"
    path.parent.mkdir()
    path.write_text(content)
    with pytest.raises(AgentFileError) as raised:
        Agent.from_file(path)
    message = str(raised.value)
    assert message.startswith("agents/bad.md: ") and said in message and "\n" not in message


def test_a_file_names_tools_servers_and_handoffs_it_never_brings(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("---\ntools: [notebook_python]\n---\nx")
    with pytest.raises(AgentFileError, match=r"tool 'notebook_python' is not one this notebook"):
        Agent.from_file(path, tools=[describe_sales])  # a registered tool the caller did not give
    path.write_text("---\nmcp_servers: [git]\n---\nx")
    with pytest.raises(AgentFileError, match=r"MCP server 'git' is not one .* %agent mcp add"):
        Agent.from_file(path)
    path.write_text("---\nhandoffs: [ghost]\n---\nx")
    with pytest.raises(AgentFileError, match=r"handoff 'ghost': no ghost.md or ghost.yaml"):
        Agent.from_file(path)


def test_a_link_a_huge_file_and_another_suffix_are_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("---\n---\nPRIVATE")
    (tmp_path / "link.md").symlink_to(secret)
    with pytest.raises(AgentFileError, match="symbolic link"):
        load_agent_file(tmp_path / "link.md")
    (tmp_path / "huge.md").write_text("---\n---\n" + "x" * 70_000)
    with pytest.raises(AgentFileError, match="larger than 65,536 bytes"):
        load_agent_file(tmp_path / "huge.md")
    with pytest.raises(AgentFileError, match=r"ends with \.md, \.yaml or \.yml"):
        load_agent_file(tmp_path / "agent.txt")
    os.mkfifo(tmp_path / "fifo.md")
    with pytest.raises(AgentFileError, match="not a regular file"):
        load_agent_file(tmp_path / "fifo.md")


def test_find_looks_here_then_the_project_root_then_the_persons_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, here, config = tmp_path / "repo", tmp_path / "repo" / "nb", tmp_path / "config"
    for folder in (here / "agents", root / "agents", config / "jupyter_agents" / "agents"):
        folder.mkdir(parents=True)
    (root / ".git").mkdir()
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(config))
    (config / "jupyter_agents" / "agents" / "a.md").write_text("mine")
    assert find_agent_file("a", here) == config / "jupyter_agents" / "agents" / "a.md"
    (root / "agents" / "a.yaml").write_text("root")
    assert find_agent_file("a", here) == root / "agents" / "a.yaml"
    (here / "agents" / "a.md").write_text("here")
    assert find_agent_file("a", here) == (here / "agents" / "a.md").resolve()
    assert find_agent_file("../a", here) is None and find_agent_file("b", here) is None


def test_the_published_schema_is_the_validators() -> None:
    assert json.loads(SCHEMA.read_text()) == AgentFile.model_json_schema(), (
        "regenerate docs/agent-file.schema.json from AgentFile.model_json_schema()"
    )
