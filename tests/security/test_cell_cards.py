"""A cell tool's card shows what will run (or change), and only that runs.

The notebook agent's ``run_cells``, ``edit_cell``, ``insert_cell``, ``delete_cell`` and
``move_cell`` ask first with a card. Written as an attacker would: a notebook someone sent
(its sources, its cell ids, the versions it lets a model name without reading anything, two
sources whose versions collide) and a model that does what the notebook tells it. Each test
drives a real run (``Runner`` and the notebook's ``RunView``: the card is the widget state a
person sees, the click is the widget's decision message) against the headless runner's own
document (``HeadlessDocument``, wired in-process to the kernel's ``DocumentChannel``); the
last ones run a real kernel through jupyter_client, with this test as the frontend.

What runs is recorded by a stand-in for the kernel's cell runner (in-process) or seen in the
outputs the real kernel relays. A person "types" by changing the document between the card and
the click.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from types import SimpleNamespace as NS
from typing import Any

import nbformat
import pytest

from jupyter_agents import Agent, ApprovalRequest
from jupyter_agents import Runner as JARunner
from jupyter_agents.notebook.run_registry import RunRegistry
from jupyter_agents.notebook.view.run_view import RunView
from jupyter_agents.notebook.workspace.cell_outputs import cell_version
from jupyter_agents.notebook.workspace.cell_runner import CellRun
from jupyter_agents.notebook.workspace.document_comm import DocumentChannel
from jupyter_agents.notebook.workspace.headless_document import HeadlessDocument
from jupyter_agents.notebook.workspace.notebook_edits import editing_tools
from jupyter_agents.notebook.workspace.notebook_run import running_tools
from jupyter_agents.notebook.workspace.notebook_tools import NotebookTools
from jupyter_agents.runtime.approvals import OnLoop
from jupyter_agents.runtime.tools import Tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

from ..notebook.test_view import blocks, decide_on, drive

EVIL = "import os\nprint('EVIL', os.getcwd())"
SAFE = "print('hello')"

# Two sources of one version (the first 12 hex digits of their sha256), found in minutes on
# one core by Brent's cycle search over f(x) = version(template(x)), where template(x) is
# "print('harmless')  # x" or "print('EVIL')  # x" by the last digit of x.
COLLIDING = (
    "print('harmless')  # c77dc37b8b6b",
    "print('EVIL')  # e38a4bc4ce60",
)


# -- the page: the headless runner's document, in-process -------------------------------------


class _KernelComm:
    """The kernel's end of the document comm: what it sends reaches the page."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.callback: Any = None

    def on_msg(self, callback: Any) -> None:
        self.callback = callback

    def on_close(self, callback: Any) -> None:
        pass

    def send(self, data: dict[str, Any]) -> None:
        self.page.requests.append(data)
        message = {"content": {"data": json.loads(json.dumps(data))}}
        asyncio.get_running_loop().call_soon(self.page.comm.handle_msg, message)

    def deliver(self, data: dict[str, Any]) -> None:
        self.callback({"content": {"data": data}})


class Page:
    """A notebook held by ``HeadlessDocument`` (the headless runner's document), answering the
    kernel's ``DocumentChannel`` as it does in a headless run."""

    def __init__(self, cells: list[tuple[str, str]], markdown: tuple[str, ...] = ()) -> None:
        made = []
        for cell_id, source in cells:
            new = (
                nbformat.v4.new_markdown_cell if cell_id in markdown else nbformat.v4.new_code_cell
            )
            cell = new(source)
            cell["id"] = cell_id
            made.append(cell)
        self.nb = nbformat.v4.new_notebook(cells=made)
        self.requests: list[dict[str, Any]] = []
        self.channel = DocumentChannel()
        self._kernel = _KernelComm(self)
        self.channel._comms.adopt(self._kernel)
        kc = NS(session=NS(msg=self._msg), shell_channel=NS(send=self._to_kernel))
        client = NS(nb=self.nb, comm_open_handlers={}, kc=kc)
        self.document = HeadlessDocument(client, "sent-to-you.ipynb")
        self.comm = self.document._opened({"content": {"comm_id": "document"}})

    @staticmethod
    def _msg(msg_type: str, content: dict[str, Any]) -> dict[str, Any]:
        return {"msg_type": msg_type, "content": content}

    def _to_kernel(self, msg: dict[str, Any]) -> None:
        data = json.loads(json.dumps(msg["content"]["data"]))
        asyncio.get_running_loop().call_soon(self._kernel.deliver, data)

    def source(self, cell_id: str) -> str:
        return next(str(c.source) for c in self.nb.cells if c.get("id") == cell_id)

    def type_into(self, cell_id: str, source: str) -> None:
        """The person changes a cell (as the page holds it)."""
        next(c for c in self.nb.cells if c.get("id") == cell_id)["source"] = source

    def ids(self) -> list[str]:
        return [str(c.get("id")) for c in self.nb.cells]

    def ops(self, op: str) -> list[dict[str, Any]]:
        return [r.get("args", {}) for r in self.requests if r.get("op") == op]


class Runner:
    """Stands in for the kernel's cell runner: records the code it is given to run."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, str]] = []
        self.kernel = NS(get_parent=lambda _channel: {})

    async def run(self, source: str, cell_id: str, relay: Any) -> CellRun:
        self.ran.append((cell_id, source))
        return CellRun(execution_count=len(self.ran))


def cell_tools(page: Page, runner: Runner, own: str = "agent") -> list[Tool]:
    """The notebook agent's tools on ``page`` (``read_cell`` and the others), with ``runner``
    as the kernel that runs cells."""
    document = lambda: page.channel  # noqa: E731
    mine = lambda: own  # noqa: E731
    reading = NotebookTools(channel=page.channel, namespace=dict, own_cell=mine)[:4]
    running = running_tools(document, mine, lambda: runner)  # type: ignore[arg-type,return-value]
    return [*reading, *editing_tools(document, mine), *running]


# -- the run and its cards --------------------------------------------------------------------


def shown(card: dict[str, Any]) -> str:
    """What the card shows of its call: the parts that show it, else its arguments."""
    parts = [str(p.get("text", "")) for p in card.get("parts", []) if p.get("role") == "call"]
    return "\n".join(parts) if parts else str(card.get("args", ""))


class Run:
    """One agent run in a view, the model scripted, the person clicking on the cards."""

    def __init__(
        self, page: Page, runner: Runner, turns: list[Any], runs: RunRegistry | None = None
    ) -> None:
        self.page, self.runner = page, runner
        self.model = ScriptedModel([*turns, [text("Done.")]])
        self.view = RunView(agent="a", model="m")
        agent = Agent(name="a", model=self.model, tools=cell_tools(page, runner))
        if runs is None:
            self.task = asyncio.ensure_future(drive(self.view, agent))
            return
        self.record = runs.start(self.view, "agent", "a", "m")  # as the cell driver does

        def ask(request: ApprovalRequest) -> Any:
            waiting = self.view.inbox(request)
            runs.waiting(self.record, request, waiting)
            return waiting

        async def go() -> None:
            result = JARunner.run_streamed(agent, "go", approval_handler=OnLoop(ask))
            async for event in result.stream_events():
                self.view.on_event(event)
            self.view.finish("done")

        self.task = asyncio.ensure_future(go())

    async def card(self, call_id: str) -> dict[str, Any]:
        """The card of ``call_id`` once it waits for a decision."""
        for _ in range(2000):
            card = blocks(self.view).get(call_id)
            if card is not None and (card.get("approval") or {}).get("state") == "pending":
                return card
            if self.task.done():
                self.task.result()
                raise AssertionError(f"the run ended without asking about {call_id}")
            await asyncio.sleep(0.005)
        raise AssertionError(f"no card waits for {call_id}")

    def approve(self, call_id: str) -> None:
        decide_on(self.view, call_id, approved=True)

    async def told(self) -> list[str]:
        """What the model was told of each call, once the run is over."""
        await asyncio.wait_for(self.task, 10)
        return [
            str(item["output"])
            for request in self.model.requests
            for item in request.input[-1:]
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]


def run_call(cells: list[dict[str, str]], call_id: str = "c1") -> list[Any]:
    return [tool_call("run_cells", {"cells": cells}, call_id)]


def read_then_run(cell_id: str, source: str) -> list[Any]:
    """The model reads the cell, then runs it by the version it read."""
    read = [tool_call("read_cell", {"id": cell_id}, "r1")]
    return [read, run_call([{"id": cell_id, "version": cell_version(source)}])]


# -- what a card shows is what runs -----------------------------------------------------------


async def test_a_version_never_read_shows_the_code_it_runs() -> None:
    page = Page([("data", "x = 1"), ("evil", EVIL), ("agent", "%%agent")])
    runner = Runner()
    # the notebook told the model the version: nothing was read before the card
    run = Run(page, runner, [run_call([{"id": "evil", "version": cell_version(EVIL)}])])
    card = await run.card("c1")
    assert EVIL in shown(card), shown(card)
    run.approve("c1")
    await run.told()
    assert runner.ran == [("evil", EVIL)]
    assert all(source in shown(card) for _cell, source in runner.ran)


async def test_an_edit_of_a_version_never_read_shows_what_it_replaces() -> None:
    page = Page([("model", "weights = load('model.bin')"), ("agent", "%%agent")])
    runner = Runner()
    edit = {"id": "model", "version": cell_version(page.source("model")), "new_source": "w = 1"}
    run = Run(page, runner, [[tool_call("edit_cell", edit, "e1")]])
    card = await run.card("e1")
    assert "-weights = load('model.bin')" in shown(card) and "+w = 1" in shown(card)
    run.approve("e1")
    assert (await run.told())[0].startswith("Edited cell model")
    assert page.source("model") == "w = 1"


async def test_a_delete_card_shows_the_lines_that_go() -> None:
    page = Page([("keys", "KEY = 'the only copy'"), ("agent", "%%agent")])
    runner = Runner()
    delete = {"id": "keys", "version": cell_version("KEY = 'the only copy'")}
    run = Run(page, runner, [[tool_call("delete_cell", delete, "d1")]])
    card = await run.card("d1")
    assert "-KEY = 'the only copy'" in shown(card), shown(card)
    run.approve("d1")
    await run.told()
    assert page.ids() == ["agent"]


async def test_two_sources_of_one_version_each_show_their_own() -> None:
    harmless, evil = COLLIDING
    assert cell_version(harmless) == cell_version(evil)
    page = Page([("b", evil), ("a", harmless), ("agent", "%%agent")])
    runner = Runner()
    turns = [
        [tool_call("read_cell", {"id": "a"}, "r1")],  # the kernel has read both sources now
        run_call([{"id": "b", "version": cell_version(evil)}]),
    ]
    run = Run(page, runner, turns)
    card = await run.card("c1")
    assert evil in shown(card) and harmless not in shown(card), shown(card)
    run.approve("c1")
    await run.told()
    assert runner.ran == [("b", evil)]


# -- the person types after the card was shown ------------------------------------------------


async def test_a_cell_changed_after_its_card_was_shown_does_not_run() -> None:
    page = Page([("train", "fit(model)"), ("agent", "%%agent")])
    runner = Runner()
    run = Run(page, runner, [run_call([{"id": "train", "version": cell_version("fit(model)")}])])
    card = await run.card("c1")
    assert "fit(model)" in shown(card)
    page.type_into("train", "fit(model, epochs=100)")
    run.approve("c1")
    (told,) = await run.told()
    assert runner.ran == []
    assert "changed since the card showed it" in told and "\n" not in told, told


async def test_an_edit_is_refused_when_the_cell_changed_after_its_card() -> None:
    page = Page([("notes", "# my notes"), ("agent", "%%agent")])
    runner = Runner()
    edit = {"id": "notes", "version": cell_version("# my notes"), "new_source": "# theirs"}
    run = Run(page, runner, [[tool_call("edit_cell", edit, "e1")]])
    card = await run.card("e1")
    assert "-# my notes" in shown(card)
    page.type_into("notes", "# my notes, and more")
    run.approve("e1")
    (told,) = await run.told()
    assert page.source("notes") == "# my notes, and more"
    assert "changed since the card showed it" in told and "\n" not in told, told


@pytest.mark.parametrize("changed", ["moved", "anchor"])
async def test_a_move_is_refused_when_a_cell_its_card_shows_changed(changed: str) -> None:
    page = Page([("top", "import os"), ("agent", "%%agent"), ("loader", "data = load()")])
    runner = Runner()
    move = {"id": "loader", "after_id": "top"}
    run = Run(page, runner, [[tool_call("move_cell", move, "m1")]])
    card = await run.card("m1")
    assert "data = load()" in shown(card) and "import os" in shown(card), shown(card)
    if changed == "moved":
        page.type_into("loader", "data = load(); os.remove('data')")
    else:
        page.type_into("top", "import shutil as os")
    run.approve("m1")
    (told,) = await run.told()
    assert page.ids() == ["top", "agent", "loader"]
    assert "changed since the card showed it" in told, told


async def test_an_insert_is_refused_when_the_cell_it_goes_after_changed() -> None:
    page = Page([("load", "df = read()"), ("agent", "%%agent")])
    runner = Runner()
    insert = {"cell_type": "code", "source": "df.describe()", "after_id": "load"}
    run = Run(page, runner, [[tool_call("insert_cell", insert, "i1")]])
    card = await run.card("i1")
    assert "+df.describe()" in shown(card) and "df = read()" in shown(card), shown(card)
    page.type_into("load", "del df")
    run.approve("i1")
    (told,) = await run.told()
    assert page.ids() == ["load", "agent"]
    assert "changed since the card showed it" in told, told


async def test_two_cards_for_one_cell_each_run_only_what_they_showed() -> None:
    page = Page([("cell", "a = 1"), ("agent", "%%agent")])
    runner = Runner()
    first = Run(page, runner, read_then_run("cell", "a = 1"))
    card_one = await first.card("c1")
    page.type_into("cell", "a = 2")
    second = Run(page, runner, read_then_run("cell", "a = 2"))
    card_two = await second.card("c1")
    assert "a = 1" in shown(card_one) and "a = 2" in shown(card_two)
    second.approve("c1")
    (_, two) = await second.told()
    first.approve("c1")
    (_, one) = await first.told()
    assert runner.ran == [("cell", "a = 2")]
    assert "changed since the card showed it" in one and two.startswith("Cell cell ran")


async def test_the_approved_arguments_cannot_name_a_cell_the_card_did_not_show() -> None:
    page = Page([("shown", SAFE), ("hidden", EVIL), ("agent", "%%agent")])
    runner = Runner()
    run = Run(page, runner, [run_call([{"id": "shown", "version": cell_version(SAFE)}])])
    card = await run.card("c1")
    edited = {"cells": [{"id": "hidden", "version": cell_version(EVIL)}]}
    decide_on(run.view, "c1", approved=True, arguments=edited)  # "Edit arguments"
    (told,) = await run.told()
    assert EVIL not in shown(card) and runner.ran == []
    assert told.startswith("Not run:") and "not on the card" in told, told


async def test_a_call_whose_card_shows_the_code_is_never_approved_from_outside_the_card() -> None:
    page = Page([("evil", EVIL), ("agent", "%%agent")])
    runner = Runner()
    runs = RunRegistry()
    run = Run(page, runner, [run_call([{"id": "evil", "version": cell_version(EVIL)}])], runs)
    await run.card("c1")
    (pending,) = run.record.pending.values()  # what the runs panel and a notification show
    assert "print" not in pending["arguments"] and pending["on_card"] is True
    assert runs.decide(run.record.run_id, pending["request"], True, None) is False
    assert runs.decide(run.record.run_id, pending["request"], False, "not from here") is True
    (told,) = await run.told()
    assert runner.ran == [] and "not from here" in told


# -- what the notebook's sender controls --------------------------------------------------------


async def test_a_hostile_cell_id_cannot_write_on_the_card() -> None:
    # a cell id (kept as it is by nbformat) that would turn the code after it into a string
    hostile = 'notes\nDOC = r"""'
    page = Page([("notes", EVIL), ("agent", "%%agent")])
    page.nb.cells[0]["id"] = hostile
    runner = Runner()
    run = Run(page, runner, read_then_run(hostile, EVIL))
    card = await run.card("c1")
    (code,) = [p["text"] for p in card["parts"] if p.get("role") == "call"]
    header, body = code.split("\n", 1)
    assert body == EVIL, code  # the first line names the cell, the rest is its source
    assert header.startswith("# cell ") and "\\n" in header
    run.approve("c1")
    await run.told()
    assert runner.ran == [(hostile, EVIL)]


@pytest.mark.parametrize(
    ("source", "mark"),
    [
        ("# tidy up\rimport os; os.remove('x')", "U+000D"),  # Python reads CR as a line break
        ("access = 'user' # \u202e } \u2066if admin:\u2069 \u2066 # begin admins", "U+202E"),
        ("print('ok')\u200b; print('also')", "U+200B"),
        ("x = 1\x1b[8mhidden", "U+001B"),
    ],
)
async def test_characters_that_do_not_show_are_marked_on_the_card(source: str, mark: str) -> None:
    page = Page([("cell", source), ("agent", "%%agent")])
    runner = Runner()
    run = Run(page, runner, read_then_run("cell", source))
    card = await run.card("c1")
    text_shown = shown(card)
    invisible = [c for c in text_shown if c in "\r\x1b\u200b\u202e\u2066\u2069"]
    assert invisible == [] and mark in text_shown, text_shown
    run.approve("c1")
    await run.told()
    assert runner.ran == [("cell", source)]  # what runs is the source itself


async def test_a_long_cell_is_shown_whole() -> None:
    long = "\n".join(f"row_{i} = {i}  # a long, dull cell" for i in range(200)) + "\n" + EVIL
    page = Page([("long", long), ("agent", "%%agent")])
    runner = Runner()
    run = Run(page, runner, read_then_run("long", long))
    card = await run.card("c1")
    assert not [p for p in card["parts"] if p.get("cut")], "the card cut the code"
    assert long in shown(card)
    run.approve("c1")
    await run.told()
    assert runner.ran == [("long", long)]


# -- a real kernel, this test the frontend ----------------------------------------------------


@pytest.fixture(scope="module")
def kernel() -> Iterator[Any]:
    from ..kernel.frontend import Frontend

    frontend = Frontend()
    try:
        frontend.run("%load_ext jupyter_agents", timeout=60)
        yield frontend
    finally:
        frontend.close()


class KernelPage:
    """This test as the frontend of a real kernel's document comm, answering from a
    ``HeadlessDocument`` (the headless runner's checks) over ``cells``."""

    def __init__(self, fe: Any, cells: list[tuple[str, str]]) -> None:
        import threading

        self.fe = fe
        made = []
        for cell_id, source in cells:
            cell = nbformat.v4.new_code_cell(source)
            cell["id"] = cell_id
            made.append(cell)
        self.nb = nbformat.v4.new_notebook(cells=made)
        self.comm = fe.open_comm("jupyter_agents.document", {"type": "open"})
        kc = NS(session=NS(msg=Page._msg), shell_channel=NS(send=self._send))
        self.document = HeadlessDocument(NS(nb=self.nb, comm_open_handlers={}, kc=kc), "t")
        self.handle = self.document._opened({"content": {"comm_id": self.comm}})
        self.requests: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._answer, daemon=True)
        self._thread.start()

    def _send(self, msg: dict[str, Any]) -> None:
        self.fe.send_comm(self.comm, msg["content"]["data"])

    def _answer(self) -> None:
        seen = 0
        while not self._stop.is_set():
            messages = self.fe.comm_messages(self.comm)
            for data in messages[seen:]:
                if isinstance(data, dict) and data.get("type") == "request":
                    self.requests.append(data)
                if isinstance(data, dict):
                    self.handle.handle_msg({"content": {"data": data}})
            seen = len(messages)
            try:
                self.fe.wait_for(lambda n=seen: len(self.fe.comm_messages(self.comm)) > n, 0.5)
            except TimeoutError:
                pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        kc = self.fe.kc
        kc.shell_channel.send(kc.session.msg("comm_close", {"comm_id": self.comm, "data": {}}))

    def ran(self) -> list[str]:
        """The text the cells the agent ran printed (as relayed into them)."""
        return [
            str(o.get("text", ""))
            for cell in self.nb.cells
            for o in cell.get("outputs", [])
            if o.get("output_type") == "stream"
        ]


def start_agent(fe: Any, cell: str, version: str) -> tuple[str, int]:
    """Script the model to run ``cell`` by ``version`` and start the agent's cell: its
    execute request, and the index its run's widget will have."""
    fe.run(
        "from jupyter_agents.testing import ScriptedModel, text, tool_call\n"
        "demo = ScriptedModel([\n"
        f"    [tool_call('run_cells', {{'cells': [{{'id': {cell!r}, 'version': {version!r}}}]}},"
        " 'r1')],\n"
        "    [text('Ran it.')],\n"
        "])\n"
        "%agent model demo\n"
        "%agent tools add notebook\n"
        "%agent new"
    )
    widgets = len(fe.run_widgets())
    return str(fe.execute("%%agent --approve ask\nRun it.", cell_id="agent")), widgets


def waiting_card(fe: Any, index: int) -> tuple[str, dict[str, Any]]:
    """The widget of the agent's run (shown: it says hello) and its card waiting for a
    decision."""
    widget = fe.widget(index)
    fe.hello(widget)

    def waiting() -> Any:
        cards = [b for b in fe.state(widget).get("blocks", []) if b.get("call_id") == "r1"]
        return cards and (cards[0].get("approval") or {}).get("state") == "pending" and cards[0]

    return widget, fe.wait_for(waiting, 30, "a waiting card")


def click(fe: Any, widget: str, card: dict[str, Any], approved: bool = True) -> None:
    request = card["approval"]["request"]
    decision = {"type": "decision", "id": card["id"], "request": request, "approved": approved}
    fe.send_custom(widget, decision)


@pytest.mark.kernel
@pytest.mark.timeout(120)
def test_in_a_real_kernel_the_card_shows_the_code_of_a_version_never_read(kernel: Any) -> None:
    source = "print('ran the cell the card showed')"
    page = KernelPage(kernel, [("sent", source), ("agent", "%%agent --approve ask\nRun it.")])
    try:
        agent, index = start_agent(kernel, "sent", cell_version(source))
        widget, card = waiting_card(kernel, index)
        assert source in shown(card), shown(card)
        click(kernel, widget, card)
        assert kernel.reply(agent, timeout=60)["content"]["status"] == "ok"
        assert page.ran() == ["ran the cell the card showed\n"]
    finally:
        page.close()
        kernel.settle()


@pytest.mark.kernel
@pytest.mark.timeout(120)
def test_in_a_real_kernel_a_cell_changed_after_its_card_does_not_run(kernel: Any) -> None:
    source = "print('as shown')"
    page = KernelPage(kernel, [("cell", source), ("agent", "%%agent --approve ask\nRun it.")])
    try:
        agent, index = start_agent(kernel, "cell", cell_version(source))
        widget, card = waiting_card(kernel, index)
        assert source in shown(card), shown(card)
        page.nb.cells[0]["source"] = "print('typed after the card')"
        click(kernel, widget, card)
        assert kernel.reply(agent, timeout=60)["content"]["status"] == "ok"
        assert page.ran() == [] and [r for r in page.requests if r.get("op") == "ran"] == []
        told = kernel.state(widget)["blocks"]
        (done,) = [b for b in told if b.get("call_id") == "r1"]
        output = " ".join(p["text"] for p in done["parts"] if p.get("role") != "call")
        assert "changed since the card showed it" in output, output
    finally:
        page.close()
        kernel.settle()
