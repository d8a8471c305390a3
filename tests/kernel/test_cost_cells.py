"""Cost and budgets in a real kernel: the run header's cost, ``%agent cost`` and
``%agent budget``, with the frontend's comm messages played by the test."""

from __future__ import annotations

from decimal import Decimal

import pytest
from genai_prices import Usage as PriceUsage
from genai_prices import calc_price

from jupyter_agents.runtime.cost import format_usd

from .frontend import Frontend
from .test_agent_cells import final_state, start

pytestmark = pytest.mark.kernel

TWO_CALLS = '[[tool_call("get_weather", {"city": "Paris"})], [text("Sunny.")]]'


def priced_model(fe: Frontend, name: str, turns: str = TWO_CALLS) -> None:
    """The notebook agent gets a scripted model called ``name`` whose every call reports
    10,000 input tokens (2,000 of them cached) and 500 output tokens."""
    fe.run(
        "from jupyter_agents import Usage\n"
        "from jupyter_agents.runtime.usage import InputTokensDetails\n"
        f"demo = ScriptedModel({turns}, name={name!r}, usage=Usage(input_tokens=10_000, "
        "output_tokens=500, input_tokens_details=InputTokensDetails(2_000)))\n"
        "%agent model demo\n%agent budget off"
    )


def call_price(name: str) -> Decimal:
    usage = PriceUsage(input_tokens=10_000, cache_read_tokens=2_000, output_tokens=500)
    return calc_price(usage, model_ref=name).total_price


def markdown_of(fe: Frontend, msg_id: str) -> str:
    return "".join(
        m["content"]["data"].get("text/markdown", "")
        for m in fe.outputs(msg_id)
        if m["msg_type"] == "display_data"
    )


def test_the_header_shows_the_cost_and_percent_agent_cost_lists_it(fe: Frontend) -> None:
    fe.run("%agent new")
    priced_model(fe, "gpt-4.1")
    cell, comm = start(fe, "%%agent\nWeather in Paris?")
    fe.hello(comm)
    assert fe.reply(cell)["content"]["status"] == "ok"
    header = final_state(fe, comm)["header"]
    want = format_usd(2 * call_price("gpt-4.1"))
    assert header["cost"] == want and header["tokens"]["total"] == 21_000
    listing = fe.execute("%agent cost")
    fe.reply(listing)
    table = markdown_of(fe, listing)
    escaped = want.replace("$", "\\$").replace(".", "\\.")  # literal Markdown, not math
    assert escaped in table and "gpt\\-4\\.1" in table
    assert "**total**" in table


def test_a_model_without_a_price_says_price_unknown(fe: Frontend) -> None:
    priced_model(fe, "my-local-llama")
    cell, comm = start(fe, "%%agent\nWeather in Paris?")
    fe.hello(comm)
    assert fe.reply(cell)["content"]["status"] == "ok"
    assert final_state(fe, comm)["header"]["cost"] == "price unknown"


def test_a_cell_budget_stops_the_run_with_one_line(fe: Frontend) -> None:
    priced_model(fe, "gpt-4.1")
    shown = fe.run("%agent budget 0.03")
    budget_line = fe.stdout(shown["parent_header"]["msg_id"])
    assert "budget per cell $0.03" in budget_line
    cell, comm = start(fe, "%%agent\nWeather in Paris?")
    fe.hello(comm)
    reply = fe.reply(cell)["content"]
    assert reply["status"] == "error"
    (line,) = reply["traceback"]  # one line naming the error; the run says it in full
    assert "BudgetExceeded" in line and "the run above shows why" in line
    header = final_state(fe, comm)["header"]
    assert header["status"] == "failed" and header["cost"] == format_usd(call_price("gpt-4.1"))
    assert "Budget of $0.03 reached" in header["detail"]
    status = fe.run("%agent budget")
    assert "spent" in fe.stdout(status["parent_header"]["msg_id"])
    fe.run("%agent budget off")


def test_a_spent_notebook_budget_refuses_the_next_cell(fe: Frontend) -> None:
    priced_model(fe, "gpt-4.1")
    fe.run("%agent budget --notebook 0.02")
    cell, comm = start(fe, "%%agent\nWeather in Paris?")
    fe.hello(comm)
    assert fe.reply(cell)["content"]["status"] == "error"  # stopped by the budget
    refused = fe.reply(fe.execute("%%agent\nAgain?"))["content"]
    assert refused["ename"] == "UsageError" and "the notebook's budget of" in refused["evalue"]
    fe.run("%agent budget off")


def test_budget_words_are_checked(fe: Frontend) -> None:
    for words in ("%agent budget lots", "%agent budget -1", "%agent budget --notebook"):
        reply = fe.reply(fe.execute(words))["content"]
        assert reply["status"] == "error" and reply["ename"] == "UsageError", words
