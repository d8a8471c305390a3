"""``%agent config [KEY VALUE]``: every setting's effective value for this notebook, where it
came from (the site's, your or the project's settings file, this notebook, or the default) and
whether the site locks it; or set one for this notebook, within the locks
(``runtime/project/settings.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.display import Markdown, display

from ..._render import escape_markdown

if TYPE_CHECKING:
    from ..host import NotebookHost

__all__ = ["config_magic", "effective"]

USAGE = "%agent config [KEY VALUE]"


def effective(host: NotebookHost) -> dict[str, Any]:
    """Each key's value for this notebook's next run."""
    from ...runtime.sandbox.policy import DEFAULT_APPROVAL, DEFAULT_MODE

    values = host.settings.values if host.settings is not None else {}
    return {
        "approval_policy": host.policy.approval_policy or DEFAULT_APPROVAL,
        "sandbox_mode": host.policy.sandbox_mode or DEFAULT_MODE,
        "network_access": bool(host.policy.network_access),
        "approve": host.runs.default_approve,
        "mode": host.runs.mode,
        "budget_per_cell": host.costs.cell_budget,
        "budget_per_notebook": host.costs.notebook_budget,
        "allowed_models": values.get("allowed_models"),
        "allowed_mcp_commands": values.get("allowed_mcp_commands"),
        "web_allowed_domains": values.get("web_allowed_domains"),
        "web_denied_domains": values.get("web_denied_domains"),
        "show_variables": values.get("show_variables", True),
        "show_outputs": values.get("show_outputs", True),
        "model": host.model_name(),
        "context": host.use_context,
    }


def config_magic(host: NotebookHost, words: list[str]) -> None:
    """Show the settings, or set one."""
    from ...runtime.project.settings_keys import KEYS, parse_value

    if not words:
        _show(host)
        return
    if len(words) != 2:
        raise UsageError(f"Usage: {USAGE} (keys: {', '.join(KEYS)})")
    name, raw = words
    key = KEYS.get(name)
    if key is None:
        raise UsageError(f"%agent config: {name!r} is not a setting (keys: {', '.join(KEYS)}).")
    try:
        value = parse_value(key, raw)
    except ValueError as e:
        raise UsageError(f"%agent config {name}: give {e}.") from None
    host.check(name, value, f"%agent config {name}")
    _set(host, name, value)
    print(f"jupyter_agents: {name} is {_shown(value)} for this notebook")


def _set(host: NotebookHost, name: str, value: Any) -> None:
    if name in ("approval_policy", "sandbox_mode", "network_access"):
        setattr(host.policy, name, value)
    elif name == "approve":
        host.runs.default_approve = value
    elif name == "mode":
        host.runs.set_mode(value)
    elif name == "budget_per_cell":
        host.costs.cell_budget = value
    elif name == "budget_per_notebook":
        host.costs.notebook_budget = value
    elif name == "model":
        host.model = value
    elif name == "context":
        host.use_context = value
    elif host.settings is not None:  # the lists and switches only the settings hold
        host.settings.values[name] = value
        host.settings.source[name] = "notebook"


def _shown(value: Any) -> str:
    from ...runtime.project.settings import shown

    return shown(value)


def _show(host: NotebookHost) -> None:
    from ...runtime.project.settings_keys import KEYS

    settings = host.settings
    files = settings.values if settings is not None else {}
    rows = ["| setting | value | from | locked |", "|---|---|---|---|"]
    for name, value in effective(host).items():
        source = settings.source.get(name, "default") if settings is not None else "default"
        if _set_here(name, value, files):
            source = "this notebook"
        lock = settings.locks.get(name) if settings is not None else None
        locked = f"at least as strict as {_shown(lock.value)}" if lock is not None else ""
        cells = [name, _shown(value), source, locked]
        rows.append("| " + " | ".join(escape_markdown(c) for c in cells) + " |")
    about = "\n".join(f"- `{k.name}`: {k.about}" for k in KEYS.values())
    warned = settings.warnings if settings is not None else []
    notes = "\n".join(f"- {escape_markdown(w)}" for w in warned)
    text = "\n".join(rows) + "\n\n" + about
    if notes:
        text += "\n\nLeft out of the settings files:\n" + notes
    display(Markdown(text))


def _set_here(name: str, value: Any, files: dict[str, Any]) -> bool:
    """Whether this notebook set ``name``: its value is not the files' (or, when no file sets
    it, not the default; a model is never said to be)."""
    from ...runtime.project.settings_keys import DEFAULTS

    if name in files:
        return bool(files[name] != value)
    return name in DEFAULTS and DEFAULTS[name] != value
