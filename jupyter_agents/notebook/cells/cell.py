"""Running one ``%%agent`` cell: prompt, conversation, view, approvals, the run itself."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from IPython import get_ipython
from IPython.core.error import UsageError

from ...runtime.agent import Agent
from ...runtime.compaction import Compaction, known_window
from ...runtime.context import ToolContext
from ...runtime.cost import warm_up_prices
from ...runtime.durable import CutOffRun, JournalRun
from ...runtime.items import ToolCallOutputItem
from ...runtime.modes import Mode, stricter
from ...runtime.project.agents_md import ProjectInstructions
from ...runtime.replay import Cassette
from ...runtime.replay.cassette import NO_RECORDING
from ...runtime.result import RunResultStreaming
from ...runtime.run import RunConfig, Runner
from ...runtime.tools import FunctionTool
from ...runtime.tools.background import BackgroundCall, background_call_sink
from ...runtime.tools.function.function_tool import raising_invoker
from ...runtime.tools.live_output import tool_output_sink, tool_progress_sink
from ...runtime.tools.plan import plan_of
from ..host import NotebookHost, current_host
from ..magics.costs import CostEntry
from ..run_registry import RunRecord
from ..view.view_protocol import LiveView
from ..view.waiting import ToolClock, WaitWatch
from . import _tool_output
from .background_run import BackgroundRun
from .cell_approvals import UNKNOWN_TOOL, approval_handler, how_to_switch
from .cell_replay import cell_cassette, keep_recording
from .options import CellOptions, parse_cell_options
from .prompt import PromptError, interpolate

__all__ = [
    "AgentRunError",
    "AgentRunInterrupted",
    "run_agent_cell",
    "run_beside",
    "say_context",
    "start_background",
    "with_file_mode",
]

TICK = 0.1
"""Seconds between wake-ups of the kernel loop while a run waits (lets Interrupt land)."""


class AgentRunError(Exception):
    """A ``%%agent`` run failed; shown as one line instead of a traceback from our internals.

    The run's view already shows the error in full; this line says where to look.
    """

    def _render_traceback_(self) -> list[str]:
        return [f"\x1b[31m{type(self).__name__}\x1b[0m: {self}"]


class AgentRunInterrupted(KeyboardInterrupt):
    """A ``%%agent`` run was interrupted: one short line, like an interrupted normal cell."""

    def __init__(self) -> None:
        super().__init__("the agent run was stopped")

    def _render_traceback_(self) -> list[str]:
        return [f"\x1b[31mKeyboardInterrupt\x1b[0m: {self}"]


def _host() -> NotebookHost:
    host = current_host()
    if host is None:
        raise UsageError("Run %load_ext jupyter_agents first.")
    return host


def _printing_to_cards(agent: Agent[Any]) -> Agent[Any]:
    """A copy of ``agent`` whose function tools' ``print()`` is their call's live output: it
    reaches the view the way a shell's output does (``tool_output_sink``, set by ``_drive``),
    so every tool's output takes one way into its card."""

    def wrap(tool: FunctionTool) -> FunctionTool:
        invoke = raising_invoker(tool)  # the run words its errors and records how it ended

        async def invoke_printing(ctx: ToolContext[Any], arguments: str) -> Any:
            with _tool_output.printing_to(ctx.tool_call_id):
                return await invoke(ctx, arguments)

        return dataclasses.replace(tool, on_invoke_tool=invoke_printing)

    tools = [wrap(t) if isinstance(t, FunctionTool) else t for t in agent.tools]
    return agent.clone(tools=tools)


def _make_view(host: NotebookHost, agent: Agent[Any], model_label: str) -> LiveView:
    if getattr(host.shell, "kernel", None) is None:
        from ..view.text_view import TextView

        return TextView(agent=agent.name, model=model_label)
    from ..view.run_view import RunView

    return RunView(agent=agent.name, model=model_label, standing=host.standing)


@dataclasses.dataclass
class _Prepared:
    view: LiveView
    cell: str
    agent: Agent[Any]
    prompt: str
    model: Any
    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    result: RunResultStreaming | None = None
    record: RunRecord | None = None
    """The run in the kernel's run list (views outside the cell)."""
    cassette: Cassette | None = None
    """The cell's recordings (``cell_replay.py``)."""
    budget: Decimal | None = None
    """The run's ``max_cost_usd`` (``%agent budget``)."""
    mode: Mode = "agent"
    """What the run may do (``--mode``, else ``%agent mode``)."""
    conversation: str | None = None
    """The conversation the turn belongs to (None: the agent's own; a chat thread's)."""
    model_name: str = ""
    """The model's name (its context window is looked up by it)."""
    resume: CutOffRun | None = None
    """The run cut off by a crash that this one resumes (``%agent resume``)."""
    durable: JournalRun | None = None
    """The run's journal (None: not saved)."""


def with_file_mode(host: NotebookHost, opts: CellOptions) -> CellOptions:
    """``opts`` with the stricter of its mode and the agent file's, when the cell runs one (a
    batch or evaluation decides its plan from ``opts.mode``)."""
    if opts.agent is None or opts.agent in host.shell.user_ns:
        return opts
    chosen = host.choose_agent(opts.agent)
    if chosen.mode is None:
        return opts
    return dataclasses.replace(opts, mode=stricter(opts.mode or host.runs.mode, chosen.mode))


def say_context(view: LiveView, context: ProjectInstructions) -> None:
    """Name on the card the AGENTS.md files the run's instructions hold, and those left out."""
    if context.files:
        view.add_notice("Instructions from " + ", ".join(context.names()), "info")
    for line in context.skipped:
        view.add_notice(f"Not used: {line}", "warning")


def _options(line: str) -> tuple[NotebookHost, CellOptions]:
    """The host and the cell's options, read once (misuse, or an option the site's locks do
    not allow, is a ``UsageError`` here)."""
    host = _host()
    opts = parse_cell_options(line, host.runs.default_approve)
    if opts.mode is not None:
        host.check("mode", opts.mode, "%%agent --mode")
    host.check("approve", opts.approve, "%%agent --approve")
    _warm_up_prices()
    return host, opts


_prices_warming = threading.Event()


def _warm_up_prices() -> None:
    """Import genai-prices and price once (about 0.7 s) on a thread when the first agent cell
    runs: by its first model response the run's price is quick. Not when the extension loads,
    which imports nothing heavy (a kernel that never runs an agent cell never pays it)."""
    if not _prices_warming.is_set():
        _prices_warming.set()
        name = "jupyter_agents-prices"
        threading.Thread(target=warm_up_prices, name=name, daemon=True).start()


def _prepare(
    host: NotebookHost,
    opts: CellOptions,
    body: str,
    *,
    cell: str | None = None,
    literal: bool = False,
    conversation: str | None = None,
) -> _Prepared:
    """Check the cell (usage errors are raised here, at once) and make its view. A chat turn
    (``notebook/chat/``) names its ``cell`` and ``conversation`` and takes its text
    ``literal`` (no ``{expression}``)."""
    chosen = host.choose_agent(opts.agent)
    agent = chosen.agent
    try:
        prompt = body.strip() if literal else interpolate(body.strip(), host.shell.user_ns)
    except PromptError as e:
        raise UsageError(f"%%agent: {e}") from None
    if not prompt:
        raise UsageError("%%agent: the cell is empty; write the prompt below the %%agent line.")
    model = host.resolve_model(opts.model) if opts.model else None
    model_name = host.model_name(model if model is not None else agent.model)
    host.check("model", model_name, "%%agent")
    label = host.model_label(model if model is not None else agent.model)
    view = _make_view(host, agent, label)
    cell = cell or host.current_cell()
    mode = opts.mode or host.runs.mode
    if chosen.mode is not None:  # an agent file's mode only ever makes it stricter
        mode = stricter(mode, chosen.mode)
    budget = host.costs.budget_for_cell()
    if chosen.budget is not None:
        budget = chosen.budget if budget is None else min(budget, chosen.budget)
    run = _Prepared(view, cell, agent, prompt, model, budget=budget, mode=mode)
    run.conversation = conversation
    run.model_name = model_name
    view.set_mode(mode)
    if chosen.context is not None:
        say_context(view, chosen.context)
    run.record = host.runs.start(view, cell, agent.name, label, host.current_client())
    return run


async def _start(host: NotebookHost, opts: CellOptions, run: _Prepared, hooks: ToolClock) -> None:
    """Load the conversation and start the streamed run."""
    conversation = host.conversation(run.conversation or run.agent.name)
    if opts.new:
        await conversation.clear()
    if run.resume is not None:  # as the run that was cut off had it
        run.history = list(run.resume.meta.get("history") or [])
        run.cassette = run.resume.cassette()
    else:
        run.history = await conversation.history_before(run.cell)
        configured = run.model is not None or run.agent.model is not None
        run.cassette = await cell_cassette(
            host,
            run.cell,
            opts.replay,
            opts.replay_tools,
            configured=configured or host.has_credentials(),
        )
    durable = run.durable = host.journal_run(_saved_as(opts, run))
    run.result = Runner.run_streamed(
        _printing_to_cards(run.agent),
        [*run.history, {"role": "user", "content": run.prompt}],
        max_turns=opts.max_turns,
        run_config=RunConfig(
            model=run.model,
            replay=run.cassette,
            max_cost_usd=run.budget,
            mode=run.mode,
            compaction=Compaction(),  # near the model's window, older turns become a summary
            durable=durable,
            tool_error_formatter=how_to_switch(run.mode),
            tool_not_found_behavior=UNKNOWN_TOOL,
            **host.policy.run_config_fields(),
        ),
        approval_handler=approval_handler(opts, run.view, host, _record(run)),
        hooks=hooks,
    )
    run.view.on_stop = run.result.cancel
    host.runs.update(_record(run), stop=run.result.cancel)
    if run.resume is not None:
        host.runs.resumed(run.resume.run_id)
        if durable is not None:  # the new journal holds it all now
            durable.journal.end(run.resume.run_id, "resumed")


END_AFTER_INTERRUPT = 3.0
"""Seconds an interrupted run's journal stays open: a kernel restart interrupts the cell before
it shuts down, and that run must stay resumable; a kernel that lives on ends it."""


def _end_later(run: _Prepared) -> None:
    """End an interrupted run's journal soon, if the kernel is still there then."""
    durable = run.durable
    if durable is not None:
        asyncio.get_running_loop().call_later(END_AFTER_INTERRUPT, durable.end, "cancelled")


def _saved_as(opts: CellOptions, run: _Prepared) -> dict[str, Any]:
    """What a run's journal says it is: enough to start it again (``resume_cut_off``)."""
    return {
        "cell": run.cell,
        "prompt": run.prompt,
        "history": run.history,
        "conversation": run.conversation,
        "agent": opts.agent,
        "model": opts.model,
        "mode": run.mode,
        "max_turns": opts.max_turns,
        "approve": opts.approve,
    }


def resume_cut_off(host: NotebookHost, cut: CutOffRun) -> BackgroundRun:
    """Resume ``cut``, a run cut off by a crash, in this cell: its card streams here, as a
    background run's does (the cell returns its handle)."""
    meta = cut.meta
    _, opts = _options("")
    opts = dataclasses.replace(
        opts,
        agent=meta.get("agent"),
        model=meta.get("model"),
        mode=meta.get("mode"),
        max_turns=meta.get("max_turns"),
        approve=meta.get("approve") or opts.approve,
        background=True,
    )
    cell, conversation = str(meta.get("cell") or host.current_cell()), meta.get("conversation")
    run = _prepare(
        host, opts, str(meta.get("prompt", "")), cell=cell, literal=True, conversation=conversation
    )
    run.resume = cut
    _tool_output.install()
    run.view.display()
    unknown = (
        f"; {len(cut.running)} call(s) were running and are asked about" if cut.running else ""
    )
    run.view.add_notice(
        f"Resuming a run cut off by a kernel restart: {cut.steps} saved steps replay{unknown}.",
        "info",
    )
    return start_background(host, opts, run)


async def _drive(host: NotebookHost, opts: CellOptions, run: _Prepared) -> None:
    """Feed the run's events to its view; record the turn when it succeeds."""
    view = run.view
    runs, record = host.runs, _record(run)
    waits = WaitWatch(view, runs, record)  # what the run waits for, from 5 s on

    async def tick() -> None:
        while True:
            await asyncio.sleep(TICK)
            waits.check(run.result.model_wait if run.result is not None else None)

    def went_on(call: BackgroundCall) -> None:  # a sync tool the run stopped waiting for
        view.left_running(call)
        runs.left_running(record, call)

    ticker = asyncio.ensure_future(tick())
    streaming = tool_output_sink.set(view.tool_output_text)  # every tool's, as it comes
    progressing = tool_progress_sink.set(view.tool_progress)
    going_on = background_call_sink.set(went_on)
    try:
        await _start(host, opts, run, waits.tools)
        result = run.result
        assert result is not None
        async for event in result.stream_events():
            view.on_event(event)
            if result.mode != run.mode:  # the person approved the plan: the run acts now
                run.mode = result.mode
                view.set_mode(result.mode)
            if event.type == "raw_response_event" and event.data.type == "response.completed":
                _show_usage(host, run, record)
            elif event.type == "run_item_stream_event" and event.name == "tool_output":
                plan = plan_of(event.item) or record.plan  # an update_plan call's, or as it was
                runs.update(record, tool_calls=record.tool_calls + 1, plan=plan)
    except (asyncio.CancelledError, KeyboardInterrupt):
        _end_later(run)  # an Interrupt, unless the kernel is going down (a restart)
        _show_usage(host, run, record, "cancelled")
        view.finish("cancelled", "interrupted")
        runs.update(record, status="cancelled")
        raise AgentRunInterrupted() from None
    except Exception as e:
        _show_usage(host, run, record, "failed")
        view.finish("failed", f"{type(e).__name__}: {e}")
        runs.update(record, status="failed")
        raise AgentRunError(_failed_in(e)) from None
    finally:
        ticker.cancel()
        tool_output_sink.reset(streaming)
        tool_progress_sink.reset(progressing)
        background_call_sink.reset(going_on)
    if result.is_cancelled:
        _show_usage(host, run, record, "cancelled")
        view.finish("cancelled", "stopped")
        runs.update(record, status="cancelled")
        return
    _show_usage(host, run, record, "done")
    items = result.to_input_list()[len(run.history) :]
    await host.conversation(run.conversation or run.agent.name).record(run.cell, items)
    replayed, detail = False, None
    if run.cassette is not None:
        replayed, detail = _say_how_it_ran(view, run.cassette)
        await keep_recording(host, run.cell, run.cassette)
    host.last_result = result
    if opts.out and not opts.background:  # a background run's variable holds its handle
        host.shell.user_ns[opts.out] = result
    parts = (result.plan_rejected, _failed_calls(result), detail)
    detail = "; ".join(d for d in parts if d) or None
    view.finish("done", detail, replayed=replayed)
    runs.update(record, status="done")


def _say_how_it_ran(view: LiveView, cassette: Cassette) -> tuple[bool, str | None]:
    """Whether the run replayed, and the header's detail: what changed, for a run that went
    live although a replay was wanted (a line under it says it in full)."""
    last = cassette.last or {}
    if last.get("replayed"):
        why = (
            "no model is set up (set OPENAI_API_KEY, or %agent model NAME, to run it live)"
            if getattr(cassette, "unconfigured", False)
            else "%%agent --live asks the model"
        )
        ran = (
            "its tools ran again"
            if cassette.replay_tools == "run"
            else "tool calls answered from the recording"
        )
        view.add_notice(
            f"Replayed from this cell's recording: no model request, {ran}; {why}.", "info"
        )
        return True, None
    changed = [str(c) for c in last.get("changed") or () if c != NO_RECORDING]
    if cassette.mode not in ("replay", "strict") or not changed:  # a first run says nothing
        return False, None
    view.add_notice(
        f"Ran live: the inputs changed since the recording ({'; '.join(changed)[:300]}).", "info"
    )
    first = changed[0] if len(changed[0]) <= 100 else changed[0][:99] + "…"
    more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
    return False, f"ran live, changed since its recording: {first}{more}"


def _show_usage(
    host: NotebookHost, run: _Prepared, record: RunRecord, ended: str | None = None
) -> None:
    """Show the run's tokens and cost in its view and the run list; once it has ``ended``,
    keep its cost for ``%agent cost`` and the notebook's budget."""
    result = run.result
    if result is None:
        return
    usage, cost = result.context_wrapper.usage, result.cost
    shown = str(cost) if cost.requests else None  # no "$0.00" for a run that made no call
    run.view.set_usage(usage, shown)
    if usage.request_usage_entries:
        used = usage.request_usage_entries[-1].input_tokens
        run.view.set_context(used, known_window(run.model_name) if run.model_name else None)
    host.runs.update(record, tokens=usage.total_tokens, cost=shown)
    if ended is not None:
        entry = CostEntry(run.cell, run.agent.name, record.model, ended, usage.total_tokens, cost)
        host.costs.add(entry)


def _record(run: _Prepared) -> RunRecord:
    assert run.record is not None  # made by _prepare
    return run.record


def _failed_in(error: BaseException) -> str:
    """The cell's error line: the run above already says the error in full (once is enough)."""
    return f"the agent run failed ({type(error).__name__}); the run above shows why"


def _failed_calls(result: RunResultStreaming) -> str | None:
    """``"2 of 3 tool calls failed"`` for a run whose tool calls failed (an error or a
    timeout), so that a run which ended well does not read "done" as if they had not."""
    outputs = [item for item in result.new_items if isinstance(item, ToolCallOutputItem)]
    failed = sum(1 for item in outputs if item.status in ("error", "timeout"))
    if not failed:
        return None
    if failed == len(outputs):
        return "its tool call failed" if failed == 1 else f"all {failed} tool calls failed"
    return f"{failed} of {len(outputs)} tool calls failed"


async def run_agent_cell(line: str, body: str) -> BackgroundRun | None:
    """Run a ``%%agent`` cell in place (the rewritten cell awaits this); a ``--background``
    cell's value is the handle on its run (``_``)."""
    host, opts = _options(line)
    return await _run_cell(host, opts, body)


async def _run_cell(host: NotebookHost, opts: CellOptions, body: str) -> BackgroundRun | None:
    if opts.over is not None or opts.eval is not None:
        opts = with_file_mode(host, opts)
    if opts.over is not None:
        from .batch_cell import run_batch_cell

        await run_batch_cell(host, opts, body)
        return None
    if opts.eval is not None:
        from .eval_cell import run_eval_cell

        await run_eval_cell(host, opts, body)
        return None
    run = _prepare(host, opts, body)
    _tool_output.install()
    run.view.display()
    if opts.background:
        return start_background(host, opts, run)
    run.view.set_status("running")
    await _drive(host, opts, run)
    return None


async def run_beside(
    host: NotebookHost,
    prompt: str,
    *,
    cell: str,
    conversation: str,
    mode: Mode | None = None,
    tools: Sequence[FunctionTool] = (),
) -> None:
    """Run the notebook agent on ``prompt``, taken literally and live, from beside the notebook
    (a chat turn, an assist): the run's view is displayed in this execution's output. ``cell``
    names the run (never a real cell's id: it has a ``/``), ``conversation`` is its own,
    ``mode`` the one the person chose (None: the notebook's ``%agent mode``); each of ``tools``
    is added when the agent has no tool of that name."""
    _, opts = _options("--live")
    if mode is not None:
        opts = dataclasses.replace(opts, mode=mode)
    run = _prepare(host, opts, prompt, cell=cell, literal=True, conversation=conversation)
    names = {t.name for t in run.agent.tools}
    missing = [t for t in tools if t.name not in names]
    if missing:
        run.agent = run.agent.clone(tools=[*run.agent.tools, *missing])
    _tool_output.install()
    run.view.display()
    run.view.set_status("running")
    await _drive(host, opts, run)


def start_background(host: NotebookHost, opts: CellOptions, run: _Prepared) -> BackgroundRun:
    """Let the run go on as a task; the cell returns at once, with a handle on it (also in the
    ``--out`` variable)."""
    run.view.set_status("background")
    host.runs.update(_record(run), status="background")
    handle = BackgroundRun(run.cell, run.agent.name, run.record)

    async def go() -> None:
        try:
            await _drive(host, opts, run)
        except (AgentRunError, AgentRunInterrupted, asyncio.CancelledError) as e:
            handle.failed(e)

    task = asyncio.ensure_future(go())
    handle.start(task, lambda: run.result)
    host.background.add(task)
    task.add_done_callback(host.background.discard)
    if opts.out:
        host.shell.user_ns[opts.out] = handle
    return handle


def run_agent_cell_magic(line: str, body: str) -> BackgroundRun | None:
    """The ``%%agent`` cell magic: for kernels without live async cells, and the terminal."""
    host, opts = _options(line)
    if getattr(get_ipython(), "kernel", None) is None or opts.over or opts.eval:
        from ...runtime.blocking import run_blocking

        return run_blocking(_run_cell(host, opts, body))  # the terminal, or a batch
    run = _prepare(host, opts, body)
    _tool_output.install()
    run.view.display()
    run.view.add_notice(
        "This kernel cannot take button clicks while a cell runs, so the run continues in the "
        "background: the cell has returned, Run All will not wait, and Interrupt cannot stop "
        "it (use Stop). Upgrade to ipykernel >= 7.4 for live runs.",
        "warning",
    )
    return start_background(host, dataclasses.replace(opts, background=True), run)
