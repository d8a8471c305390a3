"""Execute notebooks/approvals.ipynb in a real kernel and check what its cells print."""

from __future__ import annotations

import nbformat
import pytest

from .notebook_helpers import (
    NOTEBOOKS,
    RUN_TIMEOUT,
    assert_clean,
    assert_stored_without_outputs,
    stdout,
)
from .notebook_helpers import execute as run_notebook

NOTEBOOK = NOTEBOOKS / "approvals.ipynb"

EMAIL_ANA = "  -> email sent to ana@example.com: 'The report is ready.'"
PAYMENT_REJECTED = (
    "The user rejected this call to tool 'pay'; it did not run. "
    "Reason: Payments over 100 dollars need a second signature."
)


def execute(monkeypatch: pytest.MonkeyPatch, **env: str) -> nbformat.NotebookNode:
    """Run approvals.ipynb offline (or with the given OpenAI settings)."""
    return run_notebook(NOTEBOOK, monkeypatch, **env)


def lines(nb: nbformat.NotebookNode, cell_id: str) -> list[str]:
    """The cell's printed lines."""
    return stdout(nb, cell_id).splitlines()


def test_stored_without_outputs() -> None:
    assert_stored_without_outputs(NOTEBOOK)


@pytest.mark.kernel
@pytest.mark.timeout(RUN_TIMEOUT)
def test_runs_offline_with_the_scripted_model(monkeypatch: pytest.MonkeyPatch) -> None:
    nb = execute(monkeypatch)
    assert_clean(nb)
    assert "ScriptedModel (offline)" in stdout(nb, "choose-model")

    # Live approve: asked first, then sent; the small payment needed no approval.
    approve = lines(nb, "live-approve")
    asked = [line for line in approve if line.startswith("approval asked:")]
    assert asked == [
        "approval asked: send_email {'to': 'ana@example.com', 'body': 'The report is ready.'}"
    ]
    assert approve.index(asked[0]) < approve.index(EMAIL_ANA)
    assert "  -> paid 30 dollars to Bob" in approve
    assert approve[-1] == "final: I emailed Ana that the report is ready and paid Bob 30 dollars."

    # Live reject: nothing sent; the model got the message.
    reject = stdout(nb, "live-reject")
    assert "email sent" not in reject
    assert (
        "tool output: The user rejected this call to tool 'send_email'; it did not run. "
        "Reason: Ana is on holiday this week; do not email her." in reject
    )
    assert "final: I did not email Ana: she is on holiday this week." in reject

    # Edited arguments: the edited body was sent.
    edit = stdout(nb, "live-edit")
    assert "edit is valid: True" in edit
    assert "  -> email sent to ana@example.com: 'The report is ready.\\n-- Dana'" in edit

    # Always: asked once, both payments made.
    always = lines(nb, "live-always")
    assert [line for line in always if line.startswith("approval asked:")] == [
        "approval asked: pay {'to': 'Carol', 'amount': 250}"
    ]
    assert "  -> paid 250 dollars to Carol" in always
    assert "  -> paid 400 dollars to Dave" in always

    # Interruptions: the run paused with both calls waiting and nothing done.
    pause = stdout(nb, "pause")
    assert "final output: None" in pause
    assert "waiting: send_email" in pause and "waiting: pay {'to': 'Carol', 'amount': 250}" in pause
    assert "->" not in pause
    decide = lines(nb, "decide")
    assert decide == ["approve: True", "reject: True", "approve the email again: False"]

    # Resume: the approved email is sent now, the payment was refused, the run finished.
    resume = lines(nb, "resume")
    assert resume[0] == EMAIL_ANA
    assert f"tool output: {PAYMENT_REJECTED}" in resume
    assert "-> paid" not in stdout(nb, "resume")
    assert resume[-1] == (
        "final: I emailed Ana. I did not pay Carol: payments over 100 dollars "
        "need a second signature."
    )

    # Save to a file, restore, approve, resume.
    assert "saved paused_run.json, waiting for: ['send_email']" in stdout(nb, "save")
    restore = lines(nb, "restore")
    assert restore[0] == "RunState(agent='assistant', turn=1, waiting=[send_email(call_1)])"
    assert "  -> email sent to bob@example.com: 'The meeting moves to Friday at 3 pm.'" in restore
    assert restore[-1] == "final: I told Bob the meeting moves to Friday at 3 pm."

    # The %%agent cell, run headless: nobody can click, so the call is refused after the grace
    # period, and the finished run says so.
    (cell,) = [c for c in nb.cells if c.get("id") == "buttons"]
    (shown,) = [o for o in cell.outputs if o.get("output_type") == "display_data"]
    html = shown["data"]["text/html"]
    assert "I did not email Ana: the call was not approved." in html
    assert "No notebook frontend is showing this run" in html
    assert "email sent to ana" not in stdout(nb, "buttons")

    # Streaming with an inbox: requests announced, decided once, outcomes on the outputs.
    stream = lines(nb, "stream")
    requested = "[approval requested] send_email"
    assert any(line.startswith(requested) for line in stream)
    first_request = next(i for i, line in enumerate(stream) if line.startswith(requested))
    assert first_request < stream.index(EMAIL_ANA)
    assert stream.count("  decided: True") == 2
    assert stream.count("  decided again: False") == 2
    assert "[tool output] sent to ana@example.com (approved: True)" in stream
    assert f"[tool output] {PAYMENT_REJECTED} (approved: False)" in stream
    assert "-> paid" not in stdout(nb, "stream")
    assert "I emailed Ana. Carol's payment was refused: it needs a second signature." in stdout(
        nb, "stream"
    )

    # Hosted MCP: the tool is only built.
    assert stdout(nb, "mcp").strip() == "hosted_mcp_wiki"
