"""``NotebookHost``: what ``%load_ext jupyter_agents`` sets up for one IPython shell (the
notebook agent's settings, toolbox, conversations, runs and last result).

Named "host", not "session": a session is a conversation's memory (``Session``), as in the SDK.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ..runtime.tools.function.listeners import add_tool_listener, remove_tool_listener
from .cells.standing import StandingApprovals
from .chat.comm import ChatChannel
from .magics.costs import CostBook
from .magics.policy_magic import NotebookPolicy
from .run_registry import RunRegistry
from .runs_comm import RunsChannel
from .toolbox import Toolbox
from .workspace.document_comm import DocumentChannel

if TYPE_CHECKING:  # imported where used: the extension loads without the runtime
    from ..runtime.agent import Agent
    from ..runtime.durable import CutOffRun, JournalRun, RunJournal
    from ..runtime.models.interface import Model
    from ..runtime.modes import Mode
    from ..runtime.project.agents_md import ProjectInstructions
    from ..runtime.project.settings import Settings
    from ..runtime.result import RunResult
    from ..runtime.retrieval import DocumentStore
    from ..runtime.skills import Skills
    from ..runtime.tools import FunctionTool
    from .cells.conversation import Conversation
    from .magics.session_magic import SessionStore

JOURNAL = Path(".jupyter_agents") / "runs.sqlite"
"""Where ``runtime.durable`` keeps the runs' journal (its ``DEFAULT_JOURNAL``), relative to the
working folder."""

__all__ = [
    "DEFAULT_INSTRUCTIONS",
    "ChosenAgent",
    "NotebookHost",
    "current_host",
    "set_current_host",
]

DEFAULT_INSTRUCTIONS = (
    "You are a helpful assistant working inside a Jupyter notebook. Use the tools you are "
    "given when they help, and answer concisely in Markdown."
)


@dataclasses.dataclass
class ChosenAgent:
    """The agent a cell runs, the project's AGENTS.md its instructions hold (None: none were
    added), and the mode and budget its agent file asks for (the run keeps to the stricter)."""

    agent: Agent[Any]
    context: ProjectInstructions | None = None
    mode: Mode | None = None
    budget: Decimal | None = None


class NotebookHost:
    """Everything ``%load_ext jupyter_agents`` sets up for one IPython shell."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.toolbox = Toolbox(notify=self._note)
        self.conversations: dict[str, Conversation] = {}
        self.session_store: SessionStore | None = None
        """``%agent session``: the database conversations are stored in (None: memory)."""
        self.model: str | Model | None = None
        """The notebook agent's model (None: the provider's default)."""
        self.instructions = DEFAULT_INSTRUCTIONS
        self.use_context = True
        """``%agent context on|off``: whether the project's AGENTS.md files join the notebook
        agent's instructions."""
        self.docs: DocumentStore | None = None
        """``%agent docs add``: the documents the notebook agent searches."""
        self.policy = NotebookPolicy()
        self.replay_mode = "auto"
        """How agent cells replay their recordings (``%agent replay``, ``cell_replay.py``)."""
        self.standing = StandingApprovals()
        """Decisions made "always for this notebook" (``%agent approvals``)."""
        """``%agent policy``: approvals and sandbox for tools that run commands."""
        self.mcp_servers: dict[str, Any] = {}
        """``%agent mcp add``: MCP servers whose tools the notebook agent gets, by name."""
        self.toolbox_server: Any = None
        """``%agent mcp serve``: the notebook's tools offered over MCP, once started."""
        self.last_result: RunResult | Any = None
        self.background: set[asyncio.Task[Any]] = set()
        self.durable = os.environ.get("JUPYTER_AGENTS_DURABLE", "1") != "0"
        """Whether each run is saved after every step, to resume after a crash."""
        self._journal: RunJournal | None = None
        self.runs = RunRegistry()
        """The kernel's runs, for views outside their cells (the lab extension)."""
        self.costs = CostBook()
        """What the notebook's runs cost, and its budgets (``%agent cost``, ``%agent budget``)."""
        self._channel: RunsChannel | None = None
        self.document: DocumentChannel | None = None
        """The ``jupyter_agents.document`` comm to the frontend holding the notebook."""
        self.chat: ChatChannel | None = None
        """The ``jupyter_agents.chat`` comm: the chat panel's completions."""
        self.settings: Settings | None = None
        """The site's, the person's and the project's settings, and the site's locks
        (``apply_settings``); what the magics set is the notebook's layer on top."""
        add_tool_listener(self._on_tool_created)

    # -- settings ----------------------------------------------------------------------

    def apply_settings(self) -> Settings:
        """Read the settings files (``runtime/project/settings.py``) and take their values as
        the notebook's starting point; the lab's settings and the magics change them after,
        within the site's locks."""
        from ..runtime.project.settings import load_settings, use_settings

        self.settings = settings = load_settings()
        use_settings(lambda: self.settings)
        self.runs.guard = self.refusal
        where = {  # each setting the notebook holds: on what, under which name
            "approval_policy": (self.policy, "approval_policy"),
            "sandbox_mode": (self.policy, "sandbox_mode"),
            "network_access": (self.policy, "network_access"),
            "mode": (self.runs, "mode"),
            "approve": (self.runs, "default_approve"),
            "model": (self, "model"),
            "budget_per_cell": (self.costs, "cell_budget"),
            "budget_per_notebook": (self.costs, "notebook_budget"),
            "context": (self, "use_context"),
        }
        for name, (holder, attribute) in where.items():
            if name in settings.values:
                setattr(holder, attribute, settings.values[name])
        return settings

    def refusal(self, name: str, value: Any) -> str | None:
        """Why the notebook may not set ``name`` to ``value`` (None: it may)."""
        if self.settings is None:
            return None
        if name in ("model",) and isinstance(value, str):
            from ..runtime.project.settings_keys import allowed_by

            allowed = self.settings.get("allowed_models")
            if not allowed_by(allowed, value):
                return f"model {value!r} is not one of the allowed models ({', '.join(allowed)})"
        return self.settings.refusal(name, value)

    def check(self, name: str, value: Any, where: str) -> None:
        """Raise a one-line ``UsageError`` when the notebook may not set ``name`` to ``value``."""
        refused = self.refusal(name, value)
        if refused is not None:
            raise UsageError(f"{where}: {refused}.")

    def open_runs_channel(self) -> None:
        """Offer ``runs`` to frontends on the ``jupyter_agents.runs`` comm, ask for the
        document on ``jupyter_agents.document`` and answer the chat panel on
        ``jupyter_agents.chat`` (in a kernel)."""
        if self._channel is None and getattr(self.shell, "kernel", None) is not None:
            self._channel = RunsChannel(self.runs)
            self._channel.open()
            self.document = DocumentChannel()
            self.document.open()
            self.chat = ChatChannel(self)
            self.chat.open()

    def close(self) -> None:
        """Stop collecting tools, close the document index, MCP servers and the runs comm."""
        from ..runtime.blocking import run_blocking

        remove_tool_listener(self._on_tool_created)
        if self.settings is not None:
            from ..runtime.project.settings import use_settings

            use_settings(None)
        self._close_conversations()
        if self.toolbox_server is not None:
            self.toolbox_server.stop()
            self.toolbox_server = None
        for server in list(self.mcp_servers.values()):
            try:
                run_blocking(server.cleanup())
            except Exception:  # closing anyway; its process sees its stdin close
                pass
        self.mcp_servers.clear()
        if self.docs is not None:
            from ..runtime.tools import retrieval_tool

            retrieval_tool.default_store = None
            self.docs.close()
            self.docs = None
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        if self.document is not None:
            self.document.close()
            self.document = None
        if self.chat is not None:
            self.chat.close()
            self.chat = None

    # -- tools -------------------------------------------------------------------------

    def _note(self, text: str) -> None:
        print(f"jupyter_agents: {text}")

    def _on_tool_created(self, tool: FunctionTool) -> None:
        func = tool.func
        if func is None or getattr(func, "__module__", None) != "__main__":
            return  # only tools defined in the notebook itself
        self.toolbox.add(tool, self.current_cell())

    def current_cell(self) -> str:
        """The id of the running cell (from the execute request), or ``In [n]``."""
        cell_id = (self._request().get("metadata") or {}).get("cellId")
        return str(cell_id) if cell_id else f"In [{self.shell.execution_count}]"

    def current_client(self) -> str:
        """The session id of the kernel client that sent the running cell (a page's kernel
        connection; empty outside a kernel)."""
        session = (self._request().get("header") or {}).get("session")
        return session if isinstance(session, str) else ""

    def current_source(self) -> str | None:
        """The running cell's whole text, as the execute request carried it (None outside a
        kernel)."""
        code = (self._request().get("content") or {}).get("code")
        return code if isinstance(code, str) else None

    def _request(self) -> dict[str, Any]:
        """The execute request being run (empty outside a kernel)."""
        kernel = getattr(self.shell, "kernel", None)
        if kernel is None:
            return {}
        try:
            parent = kernel.get_parent("shell")
        except Exception:
            return {}
        return parent if isinstance(parent, dict) else {}

    # -- agents ------------------------------------------------------------------------

    def project_context(self) -> ProjectInstructions | None:
        """The project's ``AGENTS.md`` files for the kernel's working folder (the notebook's),
        read now; None when ``%agent context off``."""
        if not self.use_context:
            return None
        from ..runtime.project.agents_md import project_instructions

        return project_instructions(Path.cwd())

    def notebook_agent(self, context: ProjectInstructions | None = None) -> Agent[Any]:
        """The default agent: the notebook's instructions (then ``context``'s, the project's
        AGENTS.md), model and every notebook tool, and ``update_plan``, ``ask_user`` (a question
        to the person instead of a guess) and, when there are skills, ``load_skill``
        (``skills()``), unless a notebook tool has that name."""
        from ..runtime.agent import Agent
        from ..runtime.tools.ask_user import AskUserTool
        from ..runtime.tools.plan import PlanTool
        from ..runtime.tools.skills_tool import skills_tool

        tools: list[Any] = list(self.toolbox.tools)
        if "update_plan" not in self.toolbox:
            tools.append(PlanTool())
        if "ask_user" not in self.toolbox:
            tools.append(AskUserTool())
        if "load_skill" not in self.toolbox:
            skills = self.skills()
            if len(skills):
                tools.append(skills_tool(skills))
        extra = context.text() if context is not None else ""
        return Agent(
            name="notebook",
            instructions=f"{self.instructions}\n\n{extra}" if extra else self.instructions,
            model=self.model,
            tools=tools,
            mcp_servers=list(self.mcp_servers.values()),
        )

    def skills(self) -> Skills:
        """The skills of the notebook's project (from the kernel's working folder up to the
        nearest ``.git``) and the person's own, read when a run starts and kept until their
        folders change; each skill skipped is a printed note, once per change."""
        from ..runtime.skills import discover_cached

        return discover_cached(Path.cwd(), report=self._note)

    def choose_agent(self, name: str | None) -> ChosenAgent:
        """The agent a ``%%agent [NAME]`` cell runs: the notebook agent when ``name`` is None,
        else the variable ``name``, else the agent file ``agents/NAME.md`` (or ``.yaml``; see
        ``runtime/project/agent_files.py``). The notebook agent and file agents get the
        project's AGENTS.md (``project_context``)."""
        from ..runtime.agent import Agent

        if name is None:
            context = self.project_context()
            return ChosenAgent(self.notebook_agent(context), context)
        value = self.shell.user_ns.get(name)
        if value is None:
            return self._file_agent(name)
        if not isinstance(value, Agent):
            raise UsageError(f"%%agent: {name!r} is a {type(value).__name__}, not an Agent.")
        return ChosenAgent(value)

    def agent_named(self, name: str | None) -> Agent[Any]:
        """``choose_agent(name)``'s agent."""
        return self.choose_agent(name).agent

    def _file_agent(self, name: str) -> ChosenAgent:
        from ..runtime.project.agent_files import (
            AgentFileError,
            build_agent,
            find_agent_file,
            load_agent_file,
        )

        path = find_agent_file(name)
        if path is None:
            raise UsageError(
                f"%%agent: no variable named {name!r} and no agents/{name}.md or "
                f"agents/{name}.yaml; define an Agent or write that file first."
            )
        context = self.project_context()
        try:
            spec = load_agent_file(path)
            agent = build_agent(
                path,
                tools=self.notebook_agent().tools,
                mcp_servers=self.mcp_servers,
                model=self.model,
                extra_instructions=context.text() if context is not None else "",
            )
        except AgentFileError as e:
            raise UsageError(f"%%agent: {e}") from None
        return ChosenAgent(agent, context, spec.mode, spec.budget)

    def resolve_model(self, text: str) -> str | Model:
        """A model from ``%agent model X``: a Model in the namespace, or a model name."""
        from ..runtime.models.interface import Model

        text = text.strip()
        try:
            value = eval(text, self.shell.user_ns)  # the user's own expression
        except Exception:
            value = None
        return value if isinstance(value, Model) else text

    def document_store(self) -> DocumentStore:
        """The notebook's document store (its index beside the notebook), made on first use;
        from then on ``Agent(tools=["retrieval"])`` searches it too."""
        from ..runtime.retrieval import DocumentStore
        from ..runtime.tools import retrieval_tool

        if self.docs is None:
            self.docs = DocumentStore(Path.cwd())
            retrieval_tool.default_store = lambda: self.docs
        return self.docs

    def journal(self) -> RunJournal:
        """The journal of the runs started in the working folder (the notebook's)."""
        from ..runtime.durable import DEFAULT_JOURNAL, RunJournal

        path = Path.cwd() / DEFAULT_JOURNAL
        if self._journal is None or self._journal.path != path:
            self._journal = RunJournal(path)
        return self._journal

    def journal_run(self, meta: dict[str, Any]) -> JournalRun | None:
        """A new run's journal; None when runs are not saved, or the journal cannot be written
        (said on stderr: the run goes on, it just cannot be resumed)."""
        if not self.durable:
            return None
        try:
            return self.journal().begin(meta)
        except Exception as e:  # a link, a damaged or locked file, a full disk
            print(f"jupyter_agents: this run is not saved for resuming: {e}", file=sys.stderr)
            return None

    def cut_off(self) -> list[CutOffRun]:
        """The runs of this folder cut off by a crash or a restart (none when not saved)."""
        if not self.durable or not (Path.cwd() / JOURNAL).exists():  # (nothing imported at load)
            return []
        try:
            return self.journal().cut_off()
        except Exception as e:  # a damaged journal must not stop the extension loading
            print(f"jupyter_agents: the run journal could not be read: {e}", file=sys.stderr)
            return []

    def conversation(self, agent_name: str) -> Conversation:
        """The conversation of ``agent_name`` (created on first use), in the session store
        ``%agent session`` set, else in memory."""
        from .cells.conversation import Conversation

        found = self.conversations.get(agent_name)
        if found is None:
            store = self.session_store
            found = Conversation(store.open(agent_name)) if store else Conversation()
            self.conversations[agent_name] = found
        return found

    def use_session_store(self, store: SessionStore | None) -> None:
        """Store conversations from now on in ``store`` (``None``: in memory); each agent's
        conversation continues from what that store holds for it."""
        self._close_conversations()
        self.session_store = store

    def _close_conversations(self) -> None:
        """Forget the conversations, closing their database connections (``%agent session``;
        what they stored stays in the database)."""
        from ..runtime.blocking import run_blocking

        for conversation in self.conversations.values():
            close = getattr(conversation.session, "close", None)
            try:
                closing = close() if close is not None else None
                if asyncio.iscoroutine(closing):
                    run_blocking(closing)
            except Exception:  # closing anyway: the connections go with the engine
                pass
        self.conversations.clear()

    # -- descriptions ------------------------------------------------------------------

    def model_name(self, model: str | Model | None = None) -> str:
        """The name of the model a run will use (a ``Model``'s own name, else its class's), as
        the site's ``allowed_models`` are matched against."""
        model = self.model if model is None else model
        if model is not None and not isinstance(model, str):
            named = getattr(model, "name", None) or getattr(model, "model", None)
            return named if isinstance(named, str) and named else type(model).__name__
        from ..runtime.models.provider import DEFAULT_MODEL

        return model or os.environ.get("OPENAI_DEFAULT_MODEL") or DEFAULT_MODEL

    def file_policy(self) -> NotebookPolicy:
        """The policy the settings files give (what ``%agent policy reset`` goes back to)."""
        values = self.settings.values if self.settings is not None else {}
        names = ("approval_policy", "sandbox_mode", "network_access")
        return NotebookPolicy(**{n: values[n] for n in names if n in values})

    def model_label(self, model: str | Model | None = None) -> str:
        """A short description of the model a run will use."""
        model = self.model if model is None else model
        if model is not None and not isinstance(model, str):  # a Model
            named = getattr(model, "name", None) or getattr(model, "model", None)
            return named if isinstance(named, str) and named else type(model).__name__
        from ..runtime.models.provider import DEFAULT_MODEL, get_default_openai_api

        name = model or os.environ.get("OPENAI_DEFAULT_MODEL") or DEFAULT_MODEL
        if name.startswith("litellm/"):
            return f"{name.removeprefix('litellm/')} (LiteLLM)"
        api = "Chat Completions" if get_default_openai_api() == "chat_completions" else "Responses"
        return f"{name} ({api} API)"

    def has_credentials(self) -> bool:
        """Whether a model is configured by the environment: the default OpenAI client can be
        built, or ``OPENAI_DEFAULT_MODEL`` names a LiteLLM model (whose keys LiteLLM reads)."""
        litellm = os.environ.get("OPENAI_DEFAULT_MODEL", "").startswith("litellm/")
        openai = os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL")
        return bool(litellm or openai)


_current: NotebookHost | None = None


def current_host() -> NotebookHost | None:
    """The host of the loaded extension, if any."""
    return _current


def set_current_host(host: NotebookHost | None) -> None:
    """Make ``host`` the current one (None when the extension is unloaded)."""
    global _current
    _current = host
