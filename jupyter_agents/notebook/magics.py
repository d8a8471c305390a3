"""The ``%agent`` line magic: status, model, instructions, tools, docs, mcp, policy, cost,
budget, new, history, session."""

from __future__ import annotations

import json
import shlex
from typing import Any

from IPython.core.error import UsageError
from IPython.display import Markdown, display

from .._render import escape_html, escape_markdown, markdown_to_html
from ..runtime.blocking import run_blocking
from ..runtime.errors import UserError
from ..runtime.items import ItemHelpers
from ..runtime.tools.registry import resolve_tool_spec
from . import notebook_python as _notebook_python  # noqa: F401 (registers notebook_python)
from .cell_replay import replay_magic
from .costs import budget_magic, cost_magic
from .host import NotebookHost
from .mcp_magic import mcp_magic
from .notebook_tools import NotebookTools
from .policy_magic import policy_magic
from .session_magic import session_magic
from .standing import approvals_magic

__all__ = ["agent_line_magic"]

LINE_USAGE = (
    "%agent [status | model NAME | instructions TEXT | tools [add NAME [KEY=VALUE...] | "
    "remove NAME] | docs [add PATH...] | mcp [...] | policy [...] | "
    "approvals [forget [TOOL]] | replay [auto|on|off|strict|forget CELL] | cost | "
    "budget [DOLLARS | --notebook DOLLARS | off] | new [AGENT] | history [AGENT] | "
    "session [URL [ID] | off]]"
)


def _table(rows: list[dict[str, str]], columns: list[str]) -> str:
    def cell(text: str) -> str:
        return escape_markdown(text)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines)


def _status(host: NotebookHost) -> str:
    names = ", ".join(escape_markdown(t.name) for t in host.toolbox.tools)
    tools = names or "none yet (decorate with @tool)"
    turns = sum(len(c) for c in host.conversations.values())
    store = host.session_store.describe() if host.session_store else "in memory"
    return (
        f"**model**: {escape_markdown(host.model_label())}  \n**tools**: {tools}  \n"
        f"**conversation turns**: {turns} ({escape_markdown(store)})  \n"
        f"**policy**: {escape_markdown(host.policy.describe())}  \n"
        f"**instructions**: {escape_markdown(host.instructions)}"
    )


def _history(host: NotebookHost, agent: str) -> dict[str, str]:
    """The conversation as a display bundle; every text in it is sanitised."""
    conversation = host.conversations.get(agent)
    if not conversation:
        text = f"No conversation yet for agent {agent!r}."
        return {"text/plain": text, "text/html": f"<p>{escape_html(text)}</p>"}
    html: list[str] = []
    plain: list[str] = []
    for item in run_blocking(conversation.items()):
        role = item.get("role")
        if role == "user" and isinstance(item.get("content"), str):
            who, text = "you", item["content"]
        elif item.get("type") == "message":
            who, text = agent, "".join(p.get("text", "") for p in item.get("content", []))
        elif item.get("type") == "function_call":
            call = f"{item.get('name', '')}({item.get('arguments', '')})"
            html.append(f"<p><code>{escape_html(call)}</code></p>")
            plain.append(call)
            continue
        else:
            continue
        html.append(f"<p><strong>{escape_html(who)}</strong></p>{markdown_to_html(text)}")
        plain.append(f"{who}: {text}")
    body = "".join(html)
    return {
        "text/plain": "\n\n".join(plain),
        "text/html": f'<div class="jupyter-agents-history">{body}</div>',
        "text/markdown": '<div class="jupyter-agents-md">' + body.replace("\n", "&#10;") + "</div>",
    }


def _add_tool(host: NotebookHost, words: list[str]) -> None:
    """``%agent tools add NAME [KEY=VALUE ...]``: a registered tool, with its settings (values
    are JSON when they parse: ``timeout=30``, ``needs_approval=false``)."""
    if not words:
        raise UsageError(
            "%agent tools add NAME [KEY=VALUE ...], e.g. %agent tools add notebook_python"
        )
    settings: dict[str, Any] = {}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise UsageError(f"%agent tools add: {word!r} is not KEY=VALUE.")
        try:
            settings[key] = json.loads(value)
        except ValueError:
            settings[key] = value
    if words[0] == "notebook":  # a toolset: the notebook's reading and editing tools
        if settings:
            raise UsageError("%agent tools add notebook takes no settings.")
        for tool in NotebookTools():
            host.toolbox.add(tool, "%agent tools add")
        print(
            "jupyter_agents: the notebook agent can read the notebook's cells and variables, "
            "and change cells with your approval"
        )
        return
    try:
        tool = resolve_tool_spec({"name": words[0], **settings})
    except UserError as e:
        raise UsageError(f"%agent tools add: {e}") from None
    host.toolbox.add(tool, "%agent tools add")
    print(f"jupyter_agents: the notebook agent can use {tool.name!r}")


def _docs(host: NotebookHost, words: list[str]) -> None:
    """``%agent docs add PATH...``: documents (files or folders under the notebook's folder)
    the notebook agent searches with its ``retrieval`` tool; ``%agent docs`` lists them."""
    if words[:1] == ["add"] and len(words) > 1:
        store = host.document_store()
        try:
            report = store.add(*words[1:])
        except UserError as e:
            raise UsageError(f"%agent docs add: {e}") from None
        if "retrieval" not in host.toolbox:
            host.toolbox.add(resolve_tool_spec({"name": "retrieval", "store": store}), "docs")
        done = report.added + report.updated
        print(
            f"jupyter_agents: indexed {done} file(s), {report.chunks} passage(s); "
            f"{store.count()} passage(s) in all; the notebook agent can search them"
        )
        for path, why in report.skipped.items():
            print(f"jupyter_agents: skipped {path}: {why}")
        for warning in report.warnings:  # e.g. embeddings unreachable: keyword search only
            print(f"jupyter_agents: {warning}")
    elif not words:
        known = host.docs
        sources = known.sources() if known is not None else []
        print("Documents: " + (", ".join(sources) if sources else "none (%agent docs add PATH)"))
    else:
        raise UsageError("%agent docs [add PATH...]")


def agent_line_magic(host: NotebookHost, line: str) -> Any:
    """Handle ``%agent ...``."""
    try:
        words = shlex.split(line)
    except ValueError as e:
        raise UsageError(f"%agent: {e}. Usage: {LINE_USAGE}") from None
    command, rest = (words[0], words[1:]) if words else ("status", [])
    if command == "status":
        display(Markdown(_status(host)))
    elif command == "model":
        if not rest:
            raise UsageError("%agent model: give a model name, or a variable holding a Model.")
        host.model = host.resolve_model(line.split(None, 1)[1])
        print(f"jupyter_agents: the notebook agent now uses {host.model_label()}")
    elif command == "instructions":
        if not rest:
            raise UsageError("%agent instructions: give the new instructions text.")
        host.instructions = line.split(None, 1)[1].strip()
    elif command == "tools":
        if rest[:1] == ["add"]:
            _add_tool(host, rest[1:])
        elif rest[:1] == ["remove"]:
            if len(rest) != 2:
                raise UsageError("%agent tools remove NAME")
            if not host.toolbox.remove(rest[1]):
                raise UsageError(f"%agent tools remove: no tool named {rest[1]!r}.")
            print(f"jupyter_agents: removed tool {rest[1]!r}")
        elif rest:
            raise UsageError(f"%agent tools: unknown argument {rest[0]!r}. Usage: {LINE_USAGE}")
        else:
            if not len(host.toolbox):
                print("No tools yet: decorate a function with @tool in a cell.")
            else:
                columns = ["name", "description", "parameters", "approval"]
                display(Markdown(_table(host.toolbox.rows(), columns)))
            built_in = [t.name for t in host.notebook_agent().tools if t.name not in host.toolbox]
            print(f"The notebook agent also has {', '.join(built_in)} (built in).")
    elif command == "docs":
        _docs(host, rest)
    elif command == "mcp":
        mcp_magic(host, rest)
    elif command == "policy":
        policy_magic(host.policy, rest)
    elif command == "approvals":
        approvals_magic(host.standing, rest)
    elif command == "replay":
        replay_magic(host, rest)
    elif command == "cost":
        cost_magic(host.costs, rest)
    elif command == "budget":
        budget_magic(host.costs, rest)
    elif command == "new":
        name = rest[0] if rest else "notebook"
        run_blocking(host.conversation(name).clear())
        print(f"jupyter_agents: new conversation for {name!r}")
    elif command == "session":
        session_magic(host, rest)
    elif command == "history":
        display(_history(host, rest[0] if rest else "notebook"), raw=True)
    else:
        raise UsageError(f"%agent: unknown command {command!r}. Usage: {LINE_USAGE}")
    return None


def last_text(result: Any) -> str:
    """The final text of a result (for reprs)."""
    return ItemHelpers.text_message_outputs(result.new_items)
