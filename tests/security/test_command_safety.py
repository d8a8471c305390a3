"""Which shell lines run without asking (known safe) and which always ask (dangerous): Codex's
own cases and our attacks (``command_cases.py``), the parser checked against a real ``sh``,
git commands that would run what a repository's config names, and the speed of the check that
runs before every shell call."""

from __future__ import annotations

import os
import pty
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_agents import Agent, ApprovalDecision, Runner, ShellTool
from jupyter_agents.runtime.sandbox import is_dangerous, is_known_safe
from jupyter_agents.runtime.sandbox._bash import plain_commands
from jupyter_agents.testing import ScriptedModel, output_item

from ..prerequisites import needs, needs_bwrap
from .command_cases import DANGEROUS_CASES, PARSE_CASES, SAFE_CASES, Case


def _id(case: Case) -> str:
    return repr(case.command[:60])


@pytest.mark.parametrize("case", SAFE_CASES, ids=_id)
def test_is_known_safe(case: Case) -> None:
    assert is_known_safe(case.command) is case.expected, case


@pytest.mark.parametrize("case", DANGEROUS_CASES, ids=_id)
def test_is_dangerous(case: Case) -> None:
    assert is_dangerous(case.command) is case.expected, case


@pytest.mark.parametrize(("script", "words", "origin"), PARSE_CASES, ids=lambda v: repr(v)[:50])
def test_plain_commands(script: str, words: list[list[str]] | None, origin: str) -> None:
    parsed = plain_commands(script)
    got = None if parsed is None else [list(c.words) for c in parsed]
    assert got == words, origin


def test_no_line_is_both_safe_and_dangerous() -> None:
    lines = [c.command for c in SAFE_CASES + DANGEROUS_CASES]
    assert [line for line in lines if is_known_safe(line) and is_dangerous(line)] == []


def test_patterns_mark_the_words_the_shell_may_rewrite() -> None:
    parsed = plain_commands("ls *.py '*.md' ~/x a=~/y HEAD~1 {a,b} \"[x]\"")
    assert parsed is not None
    assert parsed[0].patterns == {1, 3, 4, 6}


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _sh_words(script: str, programs: set[str], cwd: Path, shell: str = "sh") -> list[list[str]]:
    """The words ``sh -c`` passes to each program of ``script``: every program is replaced
    by a function that prints its arguments."""
    prelude = "exec 3>&1\n" + "".join(  # fd 3: a pipeline's left side writes to the pipe
        # one printf, so one write: pipeline members print at the same time
        f"{name}() {{ command printf '%s\\037' {name} \"$@\" '\x1e' >&3; }}\n"
        for name in sorted(programs)
    )
    done = subprocess.run(
        [shell, "-c", prelude + script], cwd=cwd, capture_output=True, text=True, timeout=30
    )
    records = [r for r in done.stdout.split("\x1e\x1f") if r]
    return [record.split("\x1f")[:-1] for record in records]


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs sh")
def test_the_parser_reads_words_as_sh_does(tmp_path: Path) -> None:
    """Every accepted script, run by the real sh with its programs replaced by printers, gives
    the programs exactly the words the parser found (pipelines in any order)."""
    scripts = [script for script, words, _ in PARSE_CASES if words]
    scripts += [c.command for c in SAFE_CASES if c.expected and len(c.command) < 500]
    checked = 0
    for script in scripts:
        commands = plain_commands(script)
        assert commands is not None, script
        if not commands or any(c.patterns for c in commands):
            continue  # globs and tildes are the shell's to expand
        programs = {c.words[0] for c in commands}
        if not all(_NAME.fullmatch(p) for p in programs):
            continue
        expected = sorted([list(c.words) for c in commands])
        assert sorted(_sh_words(script, programs, tmp_path)) == expected, script
        checked += 1
    assert checked > 50


_UNQUOTED = st.text("abcxyz-_=.,:/@%+^#!0189é", min_size=1, max_size=4)
_QUOTED_CHARS = "abc -#!é\\$`'\"\t\n;&|<>(){}*?"
_PART = st.one_of(
    _UNQUOTED,
    st.text(_QUOTED_CHARS.replace("'", ""), max_size=4).map(lambda t: f"'{t}'"),
    st.text(_QUOTED_CHARS, max_size=4).map(lambda t: f'"{t}"'),
    st.sampled_from(["\\", "\\\n", "\\ ", "$'x'", "$", "~"]),
)
_WORD = st.lists(_PART, min_size=1, max_size=3).map("".join)
_BLANK = st.sampled_from([" ", "\t", "  ", " \\\n ", "\\\n", "\\ ", "\\\t"])
_OPERATOR = st.sampled_from([";", "&&", "|", "\n", " ; ", " | ", ";\n", " # ", "&"])


@st.composite
def _scripts(draw: st.DrawFn) -> str:
    commands = []
    for _ in range(draw(st.integers(1, 3))):
        words = [draw(st.sampled_from(["ls", "cat", "wc"])), *draw(st.lists(_WORD, max_size=3))]
        commands.append("".join(w + draw(_BLANK) for w in words[:-1]) + words[-1])
    return "".join(c + draw(_OPERATOR) for c in commands[:-1]) + commands[-1]


@pytest.mark.parametrize("shell", ["sh", "bash"])
@settings(max_examples=150, deadline=None)
@given(script=_scripts())
def test_any_accepted_script_gives_the_shell_the_parsed_words(shell: str, script: str) -> None:
    """Random scripts of words, quotes, escapes, blanks and operators: whatever the parser
    accepts, dash (``sh -c``) and bash (``bash -lc`` wrappers) read the same words."""
    commands = plain_commands(script)
    if not commands or any(c.patterns for c in commands) or shutil.which(shell) is None:
        return
    expected = sorted([list(c.words) for c in commands])
    empty = Path(tempfile.mkdtemp())
    try:
        assert sorted(_sh_words(script, {c.words[0] for c in commands}, empty, shell)) == expected
    finally:
        empty.rmdir()


@pytest.mark.parametrize(
    ("line", "made"),
    [
        ("cat x#; touch pwned", "pwned"),
        ("test -e a#|| touch pwned", "pwned"),
        ("uniq -- IN -OUT", "-OUT"),
        ("sort --out=pwned IN", "pwned"),
        ("sed -n 1p '--expression=w pwned' IN", "pwned"),
    ],
)
def test_the_attacks_are_real_and_not_known_safe(tmp_path: Path, line: str, made: str) -> None:
    """Each line writes a file when sh runs it: that is why it must not run unasked."""
    (tmp_path / "IN").write_text("a\nb\n")
    (tmp_path / "1p").write_text("line\n")
    subprocess.run(["sh", "-c", line], cwd=tmp_path, capture_output=True, timeout=30)
    assert (tmp_path / made).exists()
    assert not is_known_safe(line)


def test_the_check_is_fast() -> None:
    typical = "ls -la && cat README.md"
    start = time.perf_counter()
    for _ in range(200):
        assert is_known_safe(typical)
    assert (time.perf_counter() - start) / 200 < 0.002  # measured: about 0.03 ms
    longest = "cat " + "a " * (32 * 1024 - 3)
    start = time.perf_counter()
    assert is_known_safe(longest) and not is_dangerous(longest)
    assert time.perf_counter() - start < 5.0  # linear: about 0.2 s; a quadratic walk takes minutes


# -- git runs programs a repository's config names -------------------------------------------------
# A repository someone sent carries its own .git/config: git status runs its core.fsmonitor,
# git diff, log -p and show run a diff driver's textconv, and git's pager is core.pager. So no
# git command runs without asking (as in Codex, "git_commands_require_approval").

needs_git = needs(shutil.which("git") is not None, "git")

GIT_PLANTS = [
    pytest.param("core.fsmonitor", "git status", id="core.fsmonitor: git status"),
    pytest.param("core.fsmonitor", "git status --porcelain", id="core.fsmonitor: --porcelain"),
    pytest.param("diff.plant.textconv", "git diff", id="textconv: git diff"),
    pytest.param("diff.plant.textconv", "git log -p -1", id="textconv: git log -p"),
    pytest.param("diff.plant.textconv", "git show HEAD", id="textconv: git show"),
    pytest.param("core.pager", "git log -1", id="core.pager: git log (on a terminal)"),
    pytest.param("core.pager", "git branch", id="core.pager: git branch (on a terminal)"),
]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, timeout=30)


def _planted_repository(root: Path, key: str) -> tuple[Path, Path]:
    """A repository with one commit and a changed file, whose config names a program at
    ``key`` that leaves a marker file: the repository and the marker."""
    repo = root / "received"
    repo.mkdir()
    marker = repo / "RAN"
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "a@example.com")
    _git(repo, "config", "user.name", "a")
    (repo / "a.txt").write_text("one\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-q", "-m", "one")
    (repo / "a.txt").write_text("one\ntwo\n")
    (repo / ".gitattributes").write_text("*.txt diff=plant\n")
    _git(repo, "config", key, f"touch {marker}; cat")  # git runs it with the shell
    return repo, marker


def _on_a_terminal(argv: list[str], cwd: Path) -> None:
    """Run ``argv`` with its output on a pseudo-terminal (git pages only there)."""
    leader, follower = pty.openpty()
    try:
        subprocess.run(
            argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, timeout=30
        )
    finally:
        os.close(follower)
        os.close(leader)


@needs_git
@pytest.mark.parametrize(("key", "command"), GIT_PLANTS)
def test_a_repositorys_config_makes_git_run_its_program_and_git_is_never_known_safe(
    tmp_path: Path, key: str, command: str
) -> None:
    repo, marker = _planted_repository(tmp_path, key)
    _on_a_terminal(command.split(), repo)  # the attack, unconfined: it is real
    assert marker.exists(), f"{key} did not run on {command!r}"
    for line in (
        command,
        f"bash -lc {command!r}",
        f"ls && {command}",
        f"git --no-pager {command[4:]}",
    ):
        assert not is_known_safe(line), line


def shell_call(*commands: str) -> Any:
    return output_item(
        {
            "type": "shell_call",
            "id": "sh_1",
            "call_id": "s1",
            "status": "completed",
            "action": {"commands": list(commands)},
        }
    )


async def _asked_and_rejected(tool: ShellTool, command: str) -> list[Any]:
    """The calls a person was asked about when the model sent ``command`` (each rejected)."""
    asked: list[Any] = []

    def reject(request: Any) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.reject("no")

    model = ScriptedModel([[shell_call(command)], ["done"]])
    await Runner.run(Agent(name="sh", model=model, tools=[tool]), "go", approval_handler=reject)
    return asked


@needs_git
@pytest.mark.parametrize(
    "mode", ["danger-full-access", pytest.param("workspace-write", marks=needs_bwrap)]
)
@pytest.mark.parametrize(("key", "command"), [p for p in GIT_PLANTS if "pager" not in str(p.id)])
async def test_a_planted_git_program_does_not_run_without_asking(
    tmp_path: Path, mode: str, key: str, command: str
) -> None:
    """The model sends a git command in a received repository under ``untrusted``: a person
    is asked, and rejected, nothing runs (the planted program would leave its marker)."""
    repo, marker = _planted_repository(tmp_path, key)
    tool = ShellTool(workspace=repo, sandbox_mode=mode)  # type: ignore[arg-type]
    asked = await _asked_and_rejected(tool, command)
    assert [r.arguments["commands"] for r in asked] == [[command]]
    assert not marker.exists()
