"""Guards on the package's shape: exports, layering, import cycles and function lengths."""

from __future__ import annotations

import ast
import importlib
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import jupyter_agents
from jupyter_agents._exports import EXPORTS
from jupyter_agents.runtime.tools.capabilities import ToolCapabilities

PACKAGE = Path(jupyter_agents.__file__).parent
FORBIDDEN_IN_RUNTIME = ("IPython", "ipywidgets", "anywidget", "traitlets", "ipykernel")


def _type_checking_names() -> set[str]:
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    names.update(alias.asname or alias.name for alias in stmt.names)
    return names


def test_the_lazy_export_table_and_the_type_checking_block_list_the_same_names() -> None:
    assert set(EXPORTS) == _type_checking_names()


def test_every_exported_name_resolves() -> None:
    for name, module in EXPORTS.items():
        assert getattr(importlib.import_module(f"jupyter_agents.{module}"), name) is getattr(
            jupyter_agents, name
        ), name


def _imports(path: Path, *, top_level_only: bool) -> list[str]:
    """Absolute module names ``path`` imports (module level only, TYPE_CHECKING left out)."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if path.name == "__init__.py":
        package = package.rsplit(".", 1)[0] + ".__init__"
    found: list[str] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
                continue
            if isinstance(node, ast.Import):
                found.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: -node.level]
                    module = ".".join([*base, node.module] if node.module else base)
                else:
                    module = node.module or ""
                found.append(module)
                found.extend(f"{module}.{alias.name}" for alias in node.names)
            elif not top_level_only:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.stmt):
                        visit([child])
            if top_level_only and isinstance(node, (ast.If, ast.Try, ast.With)):
                visit(
                    [*getattr(node, "body", []), *getattr(node, "orelse", [])]
                    + [h for t in getattr(node, "handlers", []) for h in t.body]
                )

    visit(tree.body)
    return found


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def test_the_notebook_layer_imports_no_private_runtime_module() -> None:
    for path in _modules(PACKAGE / "notebook"):
        for module in _imports(path, top_level_only=False):
            parts = module.split(".")
            if parts[:2] == ["jupyter_agents", "runtime"]:
                assert not any(p.startswith("_") and p != "__init__" for p in parts[2:]), (
                    f"{path.relative_to(PACKAGE)} imports {module}"
                )


def test_the_runtime_imports_no_notebook_machinery() -> None:
    for path in _modules(PACKAGE / "runtime"):
        for module in _imports(path, top_level_only=False):
            assert module.split(".")[0] not in FORBIDDEN_IN_RUNTIME, (
                f"{path.relative_to(PACKAGE)} imports {module}"
            )
            assert not module.startswith("jupyter_agents.notebook"), path
    code = (
        "import sys, jupyter_agents\n"
        "jupyter_agents.Runner, jupyter_agents.Agent, jupyter_agents.tool, jupyter_agents.trace\n"
        f"print([m for m in {FORBIDDEN_IN_RUNTIME!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_runtime_modules_have_no_import_cycle_at_import_time() -> None:
    runtime = {
        ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): p
        for p in _modules(PACKAGE / "runtime")
    }
    graph = {
        name: {
            target
            for module in _imports(path, top_level_only=True)
            for target in (module, module.removesuffix(".__init__"))
            if target in runtime and target != name
        }
        for name, path in runtime.items()
    }
    # A package imports its own submodules (its __init__ re-exports them): not a cycle.
    for name in graph:
        graph[name] = {t for t in graph[name] if not t.startswith(name + ".")}
    assert sum(map(len, graph.values())) > 100  # the scan sees the runtime's real imports
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                cycle = [*stack[stack.index(target) :], target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


SDK_PATHS = (
    "agent",
    "agent_output",
    "agent_tool_input",
    "computer",
    "decorators",
    "editor",
    "exceptions",
    "function_schema",
    "guardrail",
    "handoffs",
    "items",
    "lifecycle",
    "memory",
    "memory.session",
    "memory.session_settings",
    "memory.sqlite_session",
    "model_settings",
    "models",
    "models.chatcmpl_converter",
    "models.chatcmpl_helpers",
    "models.chatcmpl_stream_handler",
    "models.default_models",
    "models.fake_id",
    "models.interface",
    "models.multi_provider",
    "models.openai_chatcompletions",
    "models.openai_client_utils",
    "models.openai_provider",
    "models.openai_responses",
    "models.reasoning_content_replay",
    "prompts",
    "repl",
    "result",
    "retry",
    "run",
    "run_config",
    "run_context",
    "run_error_handlers",
    "run_state",
    "stream_events",
    "strict_schema",
    "tool",
    "tool_context",
    "tool_guardrails",
    "tracing",
    "tracing.config",
    "tracing.create",
    "tracing.logger",
    "tracing.processor_interface",
    "tracing.processors",
    "tracing.provider",
    "tracing.scope",
    "tracing.setup",
    "tracing.span_data",
    "tracing.spans",
    "tracing.traces",
    "tracing.util",
    "usage",
    "extensions.handoff_filters",
    "extensions.handoff_prompt",
    "extensions.memory",
    "extensions.memory.advanced_sqlite_session",
)
"""The OpenAI Agents SDK module paths mirrored here (see docs/sdk-compatibility.md)."""

SDK_EXTENSION_PATHS = {
    "extensions.models.litellm_model": "runtime.models.litellm_model",
    "extensions.models.litellm_provider": "runtime.models.litellm_model",
}
"""Mirrored SDK paths whose names stay off the top level, as in the SDK: the module of the
runtime each re-exports."""


def test_the_public_top_level_modules_are_the_known_ones() -> None:
    files = {p.stem for p in PACKAGE.glob("*.py")}
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    public = {name for name in files | packages if not name.startswith("_")}
    mirrored = {p.split(".")[0] for p in SDK_PATHS}
    # mcp mirrors agents.mcp; its names are not on the top level (they need the mcp package);
    # server_extension is what a Jupyter server loads (the site's locks for the lab)
    known = {"evals", "headless", "mcp", "notebook", "runtime", "server_extension", "testing"}
    assert public == known | mirrored


def test_the_sdk_module_paths_hold_the_very_objects_of_the_top_level() -> None:
    for path in SDK_PATHS:
        module = importlib.import_module(f"jupyter_agents.{path}")
        assert module.__all__, path
        for name in module.__all__:
            value = getattr(module, name)
            if name in EXPORTS:
                assert value is getattr(jupyter_agents, name), f"{path}.{name}"
            elif path == "extensions.memory":  # a store needing an extra: only at this path
                assert value.__module__.startswith(f"jupyter_agents.{path}."), name
            elif path == "extensions.handoff_filters":  # the same as handoff_filters.<name>
                assert value is getattr(jupyter_agents.handoff_filters, name), f"{path}.{name}"
            else:  # a name the SDK keeps off its top level: one of the project's own
                home = getattr(value, "__module__", None) or "jupyter_agents"
                if isinstance(value, (ModuleType, logging.Logger)):  # spans.util, the logger
                    home = getattr(value, "__name__", None) or value.name
                aliased = home in ("typing", "collections.abc") or isinstance(value, str)
                assert home.startswith("jupyter_agents") or aliased, name


MAX_FUNCTION_LINES = 60
"""A function whose own body is longer than this does more than one thing: split it by what
it does."""

LONG_FUNCTIONS_ALLOWED: dict[str, str] = {
    # None today. Each entry must still be too long: the test fails once it is short enough,
    # so an allowance goes with the reason for it.
}
"""``"path name"`` of functions allowed over ``MAX_FUNCTION_LINES`` for now -> why."""

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_Definition = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _own_lines(function: _Function) -> int:
    """Lines of ``function``'s own body: the lines its statements cover, without its
    docstring and without the functions and classes defined in it (their decorators too)."""
    has_docstring = ast.get_docstring(function, clean=False) is not None
    body = function.body[1:] if has_docstring else function.body
    lines = {n for stmt in body for n in range(stmt.lineno, (stmt.end_lineno or 0) + 1)}
    for node in ast.walk(function):
        if node is not function and isinstance(node, _Definition):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            lines.difference_update(range(start, (node.end_lineno or 0) + 1))
    return len(lines)


def _functions(node: ast.AST, prefix: str = "") -> Iterator[tuple[str, _Function]]:
    """Every function under ``node``, nested ones too, with its qualified name
    (``Class.method``, ``outer.inner``)."""
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, _Definition):
            yield from _functions(child, prefix)
            continue
        name = f"{prefix}{child.name}"
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield name, child
        yield from _functions(child, f"{name}.")


def _function_lengths() -> dict[str, tuple[int, int]]:
    """Every function and method of the package, as ``"path name"`` -> (its line, its own
    length); of two with one name (a property's getter and setter), the longer."""
    found: dict[str, tuple[int, int]] = {}
    for path in _modules(PACKAGE):
        where = path.relative_to(PACKAGE).as_posix()
        for name, function in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            length = _own_lines(function)
            if length >= found.get(f"{where} {name}", (0, -1))[1]:
                found[f"{where} {name}"] = (function.lineno, length)
    return found


def test_no_function_is_longer_than_the_limit() -> None:
    """No function or method has more than ``MAX_FUNCTION_LINES`` lines of its own body (its
    statements' lines; its docstring and the functions and classes nested in it not counted):
    one that does is doing several things, each of which reads better as a helper named for
    it."""
    lengths = _function_lengths()
    long = [
        f"{where.split()[0]}:{line} {where.split()[1]} ({n} lines)"
        for where, (line, n) in sorted(lengths.items())
        if n > MAX_FUNCTION_LINES and where not in LONG_FUNCTIONS_ALLOWED
    ]
    assert not long, (
        f"functions over {MAX_FUNCTION_LINES} lines of their own; split it by what it does:\n"
        + "\n".join(long)
    )
    stale = [
        f"{where} ({f'{lengths[where][1]} lines' if where in lengths else 'gone'})"
        for where in LONG_FUNCTIONS_ALLOWED
        if lengths.get(where, (0, 0))[1] <= MAX_FUNCTION_LINES
    ]
    assert not stale, (
        "in LONG_FUNCTIONS_ALLOWED but no longer too long (or gone); drop them from it: "
        + ", ".join(stale)
    )


def test_the_sdk_extension_paths_hold_the_runtime_objects_and_stay_off_the_top_level() -> None:
    for path, source in SDK_EXTENSION_PATHS.items():
        module = importlib.import_module(f"jupyter_agents.{path}")
        runtime = importlib.import_module(f"jupyter_agents.{source}")
        assert module.__all__, path
        for name in module.__all__:
            assert getattr(module, name) is getattr(runtime, name), f"{path}.{name}"
            assert name not in EXPORTS, name


def _folder_table() -> dict[str, tuple[str, ...]]:
    """docs/architecture.md's folder table: each folder -> the folders it may import (``x/`` the
    modules directly in x, ``x/**`` also every folder under it, ``**`` anything)."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    table: dict[str, tuple[str, ...]] = {}
    for line in text.split("## Folders", 1)[1].split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        folder = cells[0].strip("`").removeprefix("jupyter_agents/")
        may = cells[2]
        if may.startswith("same as"):
            table[folder] = table[may.split("`")[1]]
        else:
            table[folder] = tuple(may.split("`")[1::2])
    return table


def _folder_of(module: str) -> str | None:
    """The folder (``runtime/tools/``, ``""`` for the package itself) holding ``module``, or
    None when it is no module of the project (a name imported from one)."""
    parts = module.split(".")
    if parts[0] != "jupyter_agents":
        return None
    path = PACKAGE.joinpath(*parts[1:])
    if path.is_dir() and (path / "__init__.py").exists():
        return "/".join(parts[1:]) + "/" if len(parts) > 1 else ""
    if path.with_suffix(".py").exists():
        return "/".join(parts[1:-1]) + "/" if len(parts) > 2 else ""
    return None


def _allows(allowed: tuple[str, ...], folder: str) -> bool:
    for rule in allowed:
        if rule == "**" or rule == folder or (rule == "jupyter_agents/" and folder == ""):
            return True
        if rule.endswith("/**") and (folder + "/").startswith(rule[:-2]):
            return True
    return False


def _row_for(table: dict[str, tuple[str, ...]], folder: str) -> tuple[str, ...] | None:
    if folder in table:
        return table[folder]
    for row, allowed in table.items():
        if row.endswith("/**") and folder.startswith(row[:-2]):
            return allowed
    return None


def test_every_import_follows_the_folder_table_in_the_architecture_doc() -> None:
    table = _folder_table()
    wrong = []
    for path in _modules(PACKAGE):
        here = "/".join(path.relative_to(PACKAGE).parts[:-1])
        here = here + "/" if here else ""
        rule = _row_for(table, here)
        assert rule is not None, f"docs/architecture.md's folder table has no row for {here}"
        for module in _imports(path, top_level_only=False):
            there = _folder_of(module)
            if there is None or there == here or _allows(rule, there):
                continue
            wrong.append(f"{path.relative_to(PACKAGE)} imports {module} ({there or 'the package'})")
    assert not wrong, "\n".join(wrong)


TOOLISH = frozenset({"tool", "tools", "t", "spec", "function_tool", "found", "named", "hooked"})
"""Names the package gives tool objects: a ``getattr`` on one probes an undeclared ability."""

KIND_ABILITIES = frozenset({"arguments_problem", "describe_call", "display_arguments"})
"""Abilities a kind reads of its own tool class (``FunctionTool``, ``BaseTool``)."""

UNDECLARED_READS_ALLOWED = {
    ("notebook/extension.py", "jupyter_agents"): "IPython's input transformers, not tools",
    ("runtime/mcp/results.py", "description"): "an MCP server's content block, not a tool",
    ("runtime/_run/model_errors.py", "timeout_seconds"): "a model timeout error, not a tool",
}
"""``getattr`` calls the guard would flag that read something other than a tool, and why."""


def _declared_abilities() -> frozenset[str]:
    names = set(ToolCapabilities.__annotations__) | set(vars(ToolCapabilities))
    names = {n for n in names if not n.startswith("_")} | KIND_ABILITIES
    return frozenset(names - {"name"})  # items, agents and servers have names too


def _undeclared_tool_reads() -> list[str]:
    """``getattr``/``hasattr`` calls on a tool-ish name (``tool``, ``t``, ``x.tool``) or for a
    declared ability, by file, line and attribute."""
    abilities = _declared_abilities()
    found = []
    for path in _modules(PACKAGE):
        where = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2
            ):
                continue
            target, attribute = node.args[0], node.args[1]
            name = attribute.value if isinstance(attribute, ast.Constant) else None
            toolish = (isinstance(target, ast.Name) and target.id in TOOLISH) or (
                isinstance(target, ast.Attribute) and target.attr == "tool"
            )
            if (toolish or name in abilities) and (where, name) not in UNDECLARED_READS_ALLOWED:
                found.append(f"{where}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_tool_ability_is_read_with_getattr() -> None:
    """What the run reads of a tool is declared on ``ToolCapabilities`` (with its default) or on
    the kind's tool class, and read as an attribute, so mypy checks every reader: a ``getattr``
    on a tool, or for one of those abilities, reads something nobody declared."""
    found = _undeclared_tool_reads()
    assert not found, (
        "declare the ability on ToolCapabilities (runtime/tools/capabilities.py) and read it "
        "directly; or, for an object that is not a tool, add it to UNDECLARED_READS_ALLOWED "
        "with why:\n" + "\n".join(found)
    )
    stale = [
        f"{where} {name}"
        for where, name in UNDECLARED_READS_ALLOWED
        if not (PACKAGE / where).exists()
        or f'"{name}"' not in (PACKAGE / where).read_text(encoding="utf-8")
    ]
    assert not stale, f"in UNDECLARED_READS_ALLOWED but gone; drop them: {stale}"
