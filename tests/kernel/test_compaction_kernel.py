"""Context in a real kernel: the run card's header says how much of the window the last
request used; ``%agent compact`` turns the older part of the notebook agent's conversation into
a summary the model writes, which the next cell's request starts with (the recent turns as
they were), while the conversation keeps every original item."""

from __future__ import annotations

import pytest

from .conftest import kernel_value, script
from .frontend import Frontend
from .test_agent_cells import final_state, start

pytestmark = pytest.mark.kernel

TEXTS = (
    "[i['content'] if isinstance(i.get('content'), str) else "
    "''.join(p.get('text', '') for p in i.get('content') or []) for i in demo.requests[-1].input]"
)
"""The text of each item of the last request the model got."""


def ask(fe: Frontend, prompt: str) -> dict[str, object]:
    cell, comm = start(fe, f"%%agent\n{prompt}")
    fe.hello(comm)
    assert fe.reply(cell)["content"]["status"] == "ok"
    return final_state(fe, comm)


def test_the_header_says_how_much_context_the_last_request_used(fe: Frontend) -> None:
    script(fe, '[[text("Hello.")]]')
    header = ask(fe, "Hi")["header"]
    assert isinstance(header, dict)
    context, tokens = header["context"], header["tokens"]
    assert context["window"] is None  # a scripted model: no known window
    assert context["used"] == tokens["input"] > 0  # one request: its input is the run's


def test_agent_compact_summarises_the_older_turns_for_the_next_cell(fe: Frontend) -> None:
    turns = ", ".join(f'[text("Answer {n}.")]' for n in range(6))
    script(fe, f'[{turns}, [text("SUMMARY: six questions answered.")], [text("Done.")]]')
    for n in range(6):
        ask(fe, f"Question {n}")
    msg_id = fe.execute("%agent compact")
    assert fe.reply(msg_id)["content"]["status"] == "ok"
    said = fe.stdout(msg_id)
    assert "compacted the 'notebook' conversation: its first 4 items are now a summary" in said
    summarised = kernel_value(fe, "demo.requests[6].user_text")
    assert "Question 0" in summarised and "Answer 1." in summarised
    assert "Question 2" not in summarised  # kept as it was
    ask(fe, "Question 6")
    sent = kernel_value(fe, TEXTS)
    assert sent[0].startswith("[The earlier part of this conversation was compacted")
    assert sent[0].endswith("SUMMARY: six questions answered.")
    assert sent[1:] == [
        "Question 2", "Answer 2.", "Question 3", "Answer 3.", "Question 4", "Answer 4.",
        "Question 5", "Answer 5.", "Question 6",
    ]  # fmt: skip
    fe.run(
        "from jupyter_agents.notebook.host import current_host\n"
        "held = await current_host().conversation('notebook').items()"
    )
    assert kernel_value(fe, "len(held)") == 14  # every original item, the last turn's too
