"""The chat panel's kernel side in an IPython shell: a turn runs the notebook agent with the
message as written and the attached context after it, one conversation per thread, a thread
continued after a restart from its saved texts only; completion names; MCP prompt arguments."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from IPython.core.error import UsageError

from jupyter_agents.notebook.chat import prompts
from jupyter_agents.notebook.chat.mentions import file_names, variable_names
from jupyter_agents.notebook.chat.request import RequestError, parse_request
from jupyter_agents.notebook.chat.turn import chat_turn, conversation_name
from jupyter_agents.notebook.host import current_host
from jupyter_agents.testing import ScriptedModel

from .shells import loaded_shell


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.chdir(tmp_path)
    yield from loaded_shell()


def scripted(ip: Any, *answers: str) -> ScriptedModel:
    model = ScriptedModel(list(answers))
    ip.user_ns["chat_model"] = model
    ip.run_cell("%agent model chat_model", store_history=False)
    return model


def turn(**fields: Any) -> None:
    asyncio.run(chat_turn(json.dumps({"thread": "t1", **fields})))


def test_a_turn_sends_the_message_as_written(shell: Any) -> None:
    model = scripted(shell, "ok")
    shell.user_ns["secret_value"] = 42
    message = 'Why {secret_value}? {{x}} """ %time \\n\nline two'
    turn(message=message)
    assert model.requests[-1].user_text == message.strip()


def test_each_thread_has_its_own_conversation(shell: Any) -> None:
    model = scripted(shell, "one", "two", "three")
    turn(message="first in t1")
    asyncio.run(chat_turn(json.dumps({"thread": "t2", "message": "first in t2"})))
    turn(message="second in t1")
    texts = [json.dumps(r.input) for r in model.requests]
    assert "first in t1" not in texts[1]  # t2 does not see t1
    assert "first in t1" in texts[2] and "first in t2" not in texts[2]
    host = current_host()
    assert host is not None
    assert len(host.conversation(conversation_name("t1"))) == 2
    assert len(host.conversation("notebook")) == 0  # cells' conversation untouched


def test_a_variable_and_a_file_mention_are_attached_as_context(shell: Any) -> None:
    model = scripted(shell, "ok")
    shell.user_ns["prices"] = [3, 1, 4, 1, 5]
    Path("notes.txt").write_text("the notes say hello")
    mentions = [{"kind": "var", "name": "prices"}, {"kind": "file", "name": "notes.txt"}]
    turn(message="Look at @var:prices and @file:notes.txt", mentions=mentions)
    sent = model.requests[-1].user_text
    assert sent.startswith("Look at @var:prices and @file:notes.txt\n\nContext the person")
    assert "[3, 1, 4, 1, 5]" in sent and "the notes say hello" in sent


def test_a_thread_the_kernel_does_not_know_starts_from_its_saved_texts(shell: Any) -> None:
    model = scripted(shell, "again")
    history = [
        {"role": "user", "text": "What is 2+2?"},
        {"role": "assistant", "text": "4."},
        {"role": "tool", "text": "not a role: dropped"},
        {"role": "assistant", "text": {"not": "text"}},
    ]
    turn(message="And 3+3?", history=history)
    sent = model.requests[-1].input
    roles = [(i.get("role"), i.get("content")) for i in sent if isinstance(i, dict)]
    assert roles[:2] == [("user", "What is 2+2?"), ("assistant", "4.")]
    assert "not a role" not in json.dumps(sent)
    assert roles[-1] == ("user", "And 3+3?")


def test_the_mode_is_checked(shell: Any) -> None:
    scripted(shell, "ok")
    with pytest.raises(UsageError, match="mode must be one of ask, plan, agent"):
        turn(message="hi", mode="yolo")
    turn(message="hi", mode="ask")  # carried to the cell options (enforced by the modes)


@pytest.mark.parametrize(
    ("request_", "problem"),
    [
        ("not json", "not JSON"),
        ("[]", "not a JSON object"),
        (json.dumps({"thread": "../x", "message": "hi"}), "thread id"),
        (json.dumps({"thread": "a" * 65, "message": "hi"}), "thread id"),
        (json.dumps({"thread": "t", "message": 3}), "message must be text"),
        (json.dumps({"thread": "t", "message": "x", "mentions": [{"kind": "sh"}]}), "mention"),
        (json.dumps({"thread": "t", "message": "x", "active_cell": 3}), "active cell"),
        (json.dumps({"thread": "t", "message": "x", "command": {"name": ""}}), "slash command"),
    ],
)
def test_a_malformed_request_is_refused_in_one_line(request_: str, problem: str) -> None:
    with pytest.raises(RequestError, match=problem):
        parse_request(request_)


def test_variable_and_file_completion(tmp_path: Path) -> None:
    namespace = {"prices": [1, 2], "price_list": "x", "_hidden": 1, "other": 2}
    assert [c["label"] for c in variable_names(namespace, "pri")] == ["price_list", "prices"]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.csv").write_text("a,b\n")
    (tmp_path / ".secret").write_text("x")
    (tmp_path / "link.txt").symlink_to("/etc/hostname")
    labels = [c["label"] for c in file_names(tmp_path, "")]
    assert labels == ["data/a.csv"]
    assert file_names(tmp_path, "zzz") == []


def test_prompt_arguments_are_read_by_name_or_in_order() -> None:
    one = [SimpleNamespace(name="topic")]
    two = [SimpleNamespace(name="name"), SimpleNamespace(name="note")]
    assert prompts._arguments(one, "the whole text here") == {"topic": "the whole text here"}
    assert prompts._arguments(two, "Ada be kind to her") == {
        "name": "Ada",
        "note": "be kind to her",
    }
    assert prompts._arguments(two, "note=hi name=Bo") == {"note": "hi", "name": "Bo"}
    assert prompts._arguments([], "ignored") == {}
