"""The ``%agent`` line magic: status, model, mode, instructions, context, config, tools, docs, mcp,
policy, approvals, replay, cost, budget, new, compact, history, session, help (``COMMANDS``)."""

from __future__ import annotations

import difflib
import json
import shlex
from typing import Any

from IPython.core.error import UsageError
from IPython.display import Markdown, display

from ..._render import escape_html, escape_markdown, markdown_to_html
from ...runtime.blocking import run_blocking
from ...runtime.errors import UserError
from ...runtime.items import ItemHelpers
from ...runtime.tools.registry import resolve_tool_spec
from ..cells.cell_replay import replay_magic
from ..cells.standing import approvals_magic
from ..host import NotebookHost
from ..workspace import notebook_python as _notebook_python  # noqa: F401 (registers notebook_python)
from ..workspace.notebook_tools import NotebookTools
from .compact_magic import compact_magic
from .config_magic import config_magic
from .context_magic import context_magic
from .costs import budget_magic, cost_magic
from .mcp_magic import mcp_magic
from .mode_magic import mode_magic
from .policy_magic import policy_magic
from .resume_magic import resume_magic
from .session_magic import session_magic

__all__ = ["agent_line_magic"]

COMMANDS: dict[str, tuple[str, str]] = {
    "status": ("", "the model, tools, conversation, policy and instructions (the default)"),
    "model": ("NAME", "use another model: a name, or a variable holding a Model"),
    "mode": ("[ask|plan|agent]", "what runs may do: only read, plan first, or act"),
    "instructions": ("TEXT", "replace the notebook agent's instructions"),
    "context": ("[on|off]", "the project's AGENTS.md files in the instructions"),
    "config": ("[KEY VALUE]", "every setting, where it comes from, and the site's locks"),
    "tools": ("[add NAME [KEY=VALUE...] | remove NAME]", "list, add or remove the agent's tools"),
    "docs": ("[add PATH...]", "documents the agent searches (its retrieval tool)"),
    "mcp": ("[list | add | log | restart | remove | serve ...]", "tools from MCP servers"),
    "policy": ("[...]", "the approval policy and sandbox of the shell and patch tools"),
    "approvals": ("[forget [TOOL]]", "the calls approved always in this notebook"),
    "replay": ("[auto|on|off|strict|forget CELL]", "when agent cells replay their recordings"),
    "cost": ("", "what this notebook's runs cost"),
    "budget": ("[DOLLARS | --notebook DOLLARS | off]", "a spending cap per cell or notebook"),
    "new": ("[AGENT]", "start a new conversation"),
    "compact": ("[AGENT]", "summarise the older part of a conversation now"),
    "resume": ("[RUN | list]", "go on with a run a kernel restart or crash cut off"),
    "history": ("[AGENT]", "the conversation so far"),
    "session": ("[URL [ID] | off]", "keep conversations in a database"),
    "help": ("", "this list"),
}
"""``%agent`` subcommands: their arguments and one line on what each does."""

LINE_USAGE = (
    "%agent [" + " | ".join(f"{name} {args}".strip() for name, (args, _) in COMMANDS.items()) + "]"
)


def _help() -> str:
    """``%agent help``: one line per subcommand."""
    lines = [f"%agent {name} {args}".rstrip() for name, (args, _) in COMMANDS.items()]
    width = max(len(line) for line in lines)
    rows = [
        f"{line:<{width}}  {about}"
        for line, (_, about) in zip(lines, COMMANDS.values(), strict=True)
    ]
    return "\n".join(["%agent COMMAND: the notebook agent's settings.", *rows])


def _unknown(command: str) -> UsageError:
    """The one-line error for a mistyped subcommand, with the nearest name when one is close."""
    near = difflib.get_close_matches(command, COMMANDS, n=1, cutoff=0.6)
    guess = f" Did you mean %agent {near[0]}?" if near else ""
    return UsageError(f"%agent: unknown command {command!r}.{guess} %agent help lists them.")


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
        f"**model**: {escape_markdown(host.model_label())}  \n**mode**: {host.runs.mode}  \n"
        f"**tools**: {tools}  \n"
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


def _tools(host: NotebookHost, words: list[str]) -> None:
    """``%agent tools``: list the notebook agent's tools; ``add NAME [KEY=VALUE ...]`` or
    ``remove NAME`` one."""
    if words[:1] == ["add"]:
        _add_tool(host, words[1:])
    elif words[:1] == ["remove"]:
        if len(words) != 2:
            raise UsageError("%agent tools remove NAME")
        if not host.toolbox.remove(words[1]):
            raise UsageError(f"%agent tools remove: no tool named {words[1]!r}.")
        print(f"jupyter_agents: removed tool {words[1]!r}")
    elif words:
        raise UsageError(f"%agent tools: unknown argument {words[0]!r}. Usage: {LINE_USAGE}")
    else:
        if not len(host.toolbox):
            print("No tools yet: decorate a function with @tool in a cell.")
        else:
            columns = ["name", "description", "parameters", "approval"]
            display(Markdown(_table(host.toolbox.rows(), columns)))
        built_in = [t.name for t in host.notebook_agent().tools if t.name not in host.toolbox]
        print(f"The notebook agent also has {', '.join(built_in)} (built in).")


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
        model = host.resolve_model(line.split(None, 1)[1])
        host.check("model", host.model_name(model), "%agent model")
        host.model = model
        print(f"jupyter_agents: the notebook agent now uses {host.model_label()}")
    elif command == "mode":
        mode_magic(host, rest)
    elif command == "instructions":
        if not rest:
            raise UsageError("%agent instructions: give the new instructions text.")
        host.instructions = line.split(None, 1)[1].strip()
    elif command == "context":
        context_magic(host, rest)
    elif command == "config":
        config_magic(host, rest)
    elif command == "tools":
        _tools(host, rest)
    elif command == "docs":
        _docs(host, rest)
    elif command == "mcp":
        mcp_magic(host, rest)
    elif command == "policy":
        policy_magic(host.policy, rest, host.check, host.file_policy())
    elif command == "approvals":
        approvals_magic(host.standing, rest)
    elif command == "replay":
        replay_magic(host, rest)
    elif command == "cost":
        cost_magic(host.costs, rest)
    elif command == "budget":
        budget_magic(host.costs, rest, host.check)
    elif command == "new":
        name = rest[0] if rest else "notebook"
        run_blocking(host.conversation(name).clear())
        print(f"jupyter_agents: new conversation for {name!r}")
    elif command == "compact":
        compact_magic(host, rest)
    elif command == "resume":
        return resume_magic(host, rest)
    elif command == "session":
        session_magic(host, rest)
    elif command == "history":
        display(_history(host, rest[0] if rest else "notebook"), raw=True)
    elif command == "help":
        print(_help())
    else:
        raise _unknown(command)
    return None


def last_text(result: Any) -> str:
    """The final text of a result (for reprs)."""
    return ItemHelpers.text_message_outputs(result.new_items)
