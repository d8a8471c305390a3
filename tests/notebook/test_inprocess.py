"""The notebook layer in an in-process IPython shell: magics, interpolation, the toolbox."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agents.notebook.cells.conversation import Conversation
from jupyter_agents.notebook.cells.options import CellOptions, parse_cell_options
from jupyter_agents.notebook.cells.prompt import PromptError, interpolate, summarize
from jupyter_agents.notebook.host import NotebookHost, current_host
from jupyter_agents.notebook.magics.agent_magic import COMMANDS, _status

from ..prerequisites import needs_bwrap


@pytest.fixture
def shell(capsys: pytest.CaptureFixture[str]) -> Any:
    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext jupyter_agents", store_history=False)
    yield ip
    ip.run_cell("%unload_ext jupyter_agents", store_history=False)
    ip.user_ns.clear()
    InteractiveShell.clear_instance()


def host() -> NotebookHost:
    """The notebook's host, asserted to be there (the extension is loaded)."""
    found = current_host()
    assert found is not None
    return found


def run(shell: Any, code: str) -> Any:
    result = shell.run_cell(code)
    return result


def test_banner_names_the_version_and_how_to_set_a_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ip = InteractiveShell.instance()
    try:
        ip.run_cell("%load_ext jupyter_agents")
        out = capsys.readouterr().out
        assert out.startswith("jupyter_agents 0.1.0")
        assert "no model configured" in out and "%agent model" in out
    finally:
        ip.run_cell("%unload_ext jupyter_agents")
        InteractiveShell.clear_instance()


def test_a_litellm_model_name_is_said_as_such(
    shell: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(shell, "%agent model litellm/gemini/gemini-2.5-flash")
    assert host().model == "litellm/gemini/gemini-2.5-flash"
    out = capsys.readouterr().out
    assert "now uses gemini/gemini-2.5-flash (LiteLLM)" in out
    run(
        shell,
        "from jupyter_agents.extensions.models.litellm_model import LitellmModel\n"
        "claude = LitellmModel('anthropic/claude-sonnet-4-5')\n%agent model claude",
    )
    assert "now uses anthropic/claude-sonnet-4-5" in capsys.readouterr().out
    monkeypatch.setenv("OPENAI_DEFAULT_MODEL", "litellm/anthropic/claude-sonnet-4-5")
    host().model = None
    assert host().has_credentials()  # LiteLLM reads the provider's key itself


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("", CellOptions()),
        ("helper --new --max-turns 3", CellOptions(agent="helper", new=True, max_turns=3)),
        (
            "--model gpt-x --out res --approve auto --background",
            CellOptions(model="gpt-x", out="res", approve="auto", background=True),
        ),
        ("--over rows --approve review", CellOptions(over="rows", approve="review")),
        (
            "--over rows --backend ray --keep-warm",
            CellOptions(over="rows", backend="ray", keep_warm=True),
        ),
        (
            "--eval evals/qa.yaml --scorer a --scorer b --concurrency 4",
            CellOptions(eval="evals/qa.yaml", scorers=("a", "b"), concurrency=4),
        ),
    ],
)
def test_cell_options(line: str, expected: CellOptions) -> None:
    assert parse_cell_options(line) == expected


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--approve maybe", "invalid choice: 'maybe'"),
        ("--max-turns zero", "invalid int value"),
        ("--max-turns 0", "at least 1"),
        ("a b", "unrecognized arguments: b"),
        ("--out 1x", "not a valid Python name"),
        ("'unclosed", "No closing quotation"),
        ("--approve review", "--approve review goes with --over DATAFRAME"),
        ("--over rows --keep-warm", "--keep-warm goes with --backend ray"),
        ("--scorer s", "--scorer goes with --eval DATASET"),
        ("--eval qa --over rows", "--over and --eval do not go together"),
        ("--eval qa --background", "--background does not go with --eval"),
        ("--eval qa --scorer 2x", "'2x' is not a valid Python name"),
    ],
)
def test_cell_option_errors_are_one_line_usage_errors(line: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        parse_cell_options(line)
    assert "\n" not in str(caught.value)


def test_interpolation_summarises_and_escapes() -> None:
    ns = {"city": "Paris", "big": "x" * 5000, "nums": list(range(100)), "d": {"a": 1}}
    text = interpolate("Weather in {city}? {{literal}} {len(nums)} {d}", ns)
    assert text == "Weather in Paris? {literal} 100 {'a': 1}"
    assert "truncated: 3,000 more characters" in interpolate("{big}", ns)
    assert "(100 items; showing 20)" in interpolate("{nums}", ns)


def test_interpolation_errors_point_at_the_expression() -> None:
    with pytest.raises(PromptError, match=r"in \{missing\}: NameError"):
        interpolate("Tell me about {missing}", {})
    with pytest.raises(PromptError, match="invalid syntax"):
        interpolate("{1 +}", {})
    with pytest.raises(PromptError, match="unclosed"):
        interpolate("a {b", {})
    with pytest.raises(PromptError, match="unmatched"):
        interpolate("a } b", {})


def test_dataframe_like_values_show_shape_columns_and_head() -> None:
    class Frame:
        shape = (1000, 3)
        columns = ["a", "b", "c"]

        def head(self, n: int) -> Any:
            class Head:
                def to_markdown(self) -> str:
                    return "| a | b | c |"

            return Head()

    text = summarize(Frame())
    assert text.startswith("Frame with 1,000 rows × 3 columns")
    assert "columns: a, b, c" in text and "| a | b | c |" in text


def test_tools_defined_in_cells_join_the_toolbox(shell: Any, capsys: Any) -> None:
    run(
        shell,
        "from jupyter_agents import tool\n@tool\ndef greet(name: str) -> str:\n"
        "    '''Greet someone.'''\n    return 'hi ' + name",
    )
    assert [t.name for t in host().toolbox.tools] == ["greet"]
    capsys.readouterr()
    # run_cell without history keeps "In [n]": this is a re-run of the same cell.
    entry = host().toolbox.entry("greet")
    assert entry is not None
    run(
        shell,
        "@tool\ndef greet(name: str, loud: bool = False) -> str:\n"
        '    """Greet someone."""\n    return \'hi \' + name',
    )
    assert capsys.readouterr().out == "jupyter_agents: tool 'greet' updated: + loud\n"
    updated = host().toolbox.entry("greet")
    assert updated is not None and updated.tool is not entry.tool
    shell.run_cell(
        '@tool(name_override=\'greet\')\ndef other(x: int) -> int:\n    """Other."""\n    return x',
        store_history=True,
    )
    assert "was defined in another cell (In [1])" in capsys.readouterr().out


def test_same_cell_rerun_shows_the_schema_change() -> None:
    from jupyter_agents import tool
    from jupyter_agents.notebook.toolbox import Toolbox

    notes: list[str] = []
    box = Toolbox(notify=notes.append)

    def v1(city: str) -> str:
        """Weather."""
        return city

    def v2(city: str, days: int = 1) -> str:
        """Weather."""
        return city

    v2.__name__ = "v1"
    box.add(tool(v1), cell="cell-a")
    box.add(tool(v2), cell="cell-a")
    assert notes == ["tool 'v1' updated: + days"]
    assert box.remove("v1") and not box.remove("v1")


def test_agent_line_magic(shell: Any, capsys: Any) -> None:
    run(shell, "%agent model gpt-test")
    assert host().model == "gpt-test"
    run(shell, "from jupyter_agents.testing import ScriptedModel\nm = ScriptedModel(['hi'])")
    run(shell, "%agent model m")
    assert host().model is shell.user_ns["m"]
    run(shell, "%agent instructions Be terse.")
    assert host().instructions == "Be terse."
    capsys.readouterr()
    run(shell, "%agent tools")
    listed = capsys.readouterr().out
    assert "No tools yet" in listed
    assert "The notebook agent also has update_plan, ask_user (built in)." in listed
    bad = run(shell, "%agent frobnicate")
    assert isinstance(bad.error_in_exec, UsageError)


def test_agent_cell_in_a_terminal_shell_streams_text(shell: Any, capsys: Any) -> None:
    run(
        shell,
        "from jupyter_agents import tool\n"
        "from jupyter_agents.testing import ScriptedModel, text, tool_call\n"
        "@tool\ndef get_weather(city: str) -> str:\n"
        "    '''Weather.'''\n    print('looking up', city)\n    return 'sunny'\n"
        "demo = ScriptedModel([[tool_call('get_weather', {'city': 'Paris'})],"
        " [text('It is sunny in Paris.')]])",
    )
    run(shell, "%agent model demo")
    capsys.readouterr()
    result = run(shell, "%%agent --out res\nWeather in {'Par' + 'is'}?")
    assert result.error_in_exec is None, result.error_in_exec
    res = shell.user_ns["res"]
    assert res.final_output == "It is sunny in Paris."
    request = shell.user_ns["demo"].requests[0]
    assert request.input[-1] == {"role": "user", "content": "Weather in Paris?"}
    assert request.tool_names == ["ask_user", "get_weather", "update_plan"]  # with the defaults
    assert host().last_result is res


def test_an_agent_cell_tells_the_model_of_an_unknown_tool(shell: Any, capsys: Any) -> None:
    # the runtime's default ends the run (as the SDK); a notebook run tells the model instead
    run(
        shell,
        "from jupyter_agents.testing import ScriptedModel, text, tool_call\n"
        "demo = ScriptedModel([[tool_call('no_such_tool', {})], [text('Sorry.')]])",
    )
    run(shell, "%agent model demo")
    result = run(shell, "%%agent --out res\nDo it.")
    assert result.error_in_exec is None, result.error_in_exec
    assert shell.user_ns["res"].final_output == "Sorry."
    told = shell.user_ns["demo"].requests[1].input[-1]["output"]
    assert told.startswith("Tool 'no_such_tool' does not exist. Available tools:")


async def test_conversation_records_per_cell_and_rerun_replaces() -> None:
    conv = Conversation()

    async def contents(cell: str) -> list[str]:
        return [i["content"] for i in await conv.history_before(cell)]

    await conv.record("a", [{"role": "user", "content": "1"}])
    await conv.record("b", [{"role": "user", "content": "2"}])
    assert await contents("c") == ["1", "2"]
    assert await contents("b") == ["1"]
    await conv.record("b", [{"role": "user", "content": "2'"}])
    assert [t.cell for t in conv.turns] == ["a", "b"]
    assert [i["content"] for i in await conv.items()] == ["1", "2'"]
    await conv.record("a", [{"role": "user", "content": "1'"}])
    assert [t.cell for t in conv.turns] == ["a"]
    assert [i["content"] for i in await conv.session.get_items()] == ["1'"]


def test_empty_cell_and_unknown_agent_are_usage_errors(shell: Any) -> None:
    assert isinstance(run(shell, "%%agent\n   ").error_in_exec, UsageError)
    assert isinstance(run(shell, "%%agent nobody\nhi").error_in_exec, UsageError)
    run(shell, "x = 3")
    err = run(shell, "%%agent x\nhi").error_in_exec
    assert isinstance(err, UsageError) and "not an Agent" in str(err)
    err = run(shell, "%%agent\nabout {undefined_name}").error_in_exec
    assert isinstance(err, UsageError) and "NameError" in str(err)


def test_default_approval_mode_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUPYTER_AGENTS_APPROVE", "auto")
    assert parse_cell_options("").approve == "auto"
    assert parse_cell_options("--approve deny").approve == "deny"
    monkeypatch.setenv("JUPYTER_AGENTS_APPROVE", "sometimes")
    with pytest.raises(UsageError, match="JUPYTER_AGENTS_APPROVE"):
        parse_cell_options("")


def test_terminal_asks_for_approval_at_a_prompt(
    shell: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions: list[str] = []

    def answer(question: str, cancelled: Any, write: Any) -> str:
        questions.append(question)
        return "y"

    monkeypatch.setattr("jupyter_agents.notebook.view.text_view._read_line", answer)
    run(
        shell,
        "from jupyter_agents import tool\n"
        "from jupyter_agents.testing import ScriptedModel, text, tool_call\n"
        "sent = []\n"
        "@tool(needs_approval=True)\ndef send_email(to: str) -> str:\n"
        "    '''Send.'''\n    sent.append(to)\n    return 'sent'\n"
        "m = ScriptedModel([[tool_call('send_email', {'to': 'ana@x.org'})], [text('Done.')]])",
    )
    run(shell, "%agent model m")
    result = run(shell, "%%agent\nEmail Ana.")
    assert result.error_in_exec is None, result.error_in_exec
    assert questions == ["Approve? [y]es / [n]o (a reason may follow) / [a]lways for this tool: "]
    assert shell.user_ns["sent"] == ["ana@x.org"]


@needs_bwrap
def test_agent_policy_sets_the_runs_policy(shell: Any, capsys: Any, tmp_path: Any) -> None:
    run(shell, "%agent policy")
    assert "approval untrusted · sandbox workspace-write" in capsys.readouterr().out
    run(shell, f"%agent policy never read-only --workspace {tmp_path}")
    out = capsys.readouterr().out
    assert f"approval never · sandbox read-only · workspace {tmp_path} · network off" in out
    run(
        shell,
        "from jupyter_agents import Agent, ShellTool\n"
        "from jupyter_agents.testing import ScriptedModel, output_item, text\n"
        "call = output_item({'type': 'shell_call', 'id': 'sh_1', 'call_id': 's1',"
        " 'status': 'completed', 'action': {'commands': ['echo x > made.txt']}})\n"
        "sh = Agent(name='sh', model=ScriptedModel([[call], [text('Done.')]]),"
        " tools=[ShellTool()])",
    )
    result = run(shell, "%%agent sh --out res\nWrite the file.")
    assert result.error_in_exec is None, result.error_in_exec
    res = shell.user_ns["res"]
    assert res.final_output == "Done." and res.interruptions == []  # nobody was asked
    (answer,) = res.new_items[1].raw_item["output"]
    assert "Read-only file system" in answer["stderr"]  # read-only, in the workspace given
    assert not (tmp_path / "made.txt").exists()
    assert "**policy**: approval never" in _status(host())
    bad = run(shell, "%agent policy sometimes")
    assert isinstance(bad.error_in_exec, UsageError)
    assert "unknown word 'sometimes'" in str(bad.error_in_exec)
    missing = run(shell, f"%agent policy --workspace {tmp_path / 'nope'}")
    assert "is not a folder" in str(missing.error_in_exec)
    run(shell, "%agent policy reset on-request")
    assert "approval on-request · sandbox workspace-write" in capsys.readouterr().out


def test_percent_agent_help_lists_every_command_on_one_line(shell: Any, capsys: Any) -> None:
    capsys.readouterr()
    assert run(shell, "%agent help").error_in_exec is None
    lines = capsys.readouterr().out.splitlines()
    for name in COMMANDS:
        (line,) = [x for x in lines if x.split()[:2] == ["%agent", name]]
        assert len(line.split("  ")) > 1, line  # the command, then what it does
    assert len(lines) == len(COMMANDS) + 1


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("hepl", "%agent: unknown command 'hepl'. Did you mean %agent help?"),
        ("--help", "Did you mean %agent help?"),
        ("stauts", "Did you mean %agent status?"),
        ("buget 5", "Did you mean %agent budget?"),
        ("frobnicate", "%agent: unknown command 'frobnicate'. %agent help lists them."),
    ],
)
def test_a_mistyped_command_is_one_line_with_the_nearest_name(
    shell: Any, typed: str, said: str
) -> None:
    error = run(shell, f"%agent {typed}").error_in_exec
    assert isinstance(error, UsageError)
    assert said in str(error) and "\n" not in str(error)


def test_the_notebooks_mode_is_set_and_shown(shell: Any) -> None:
    run(shell, "%agent mode plan")
    assert host().runs.mode == "plan"
    run(shell, "%agent mode ask")
    assert host().runs.mode == "ask"
    assert "**mode**: ask" in _status(host())
