"""Sort the OpenAI Agents SDK's test files into public-API, internal and repository tests.

Read from a copy of the SDK's source distribution (its ``src/``, ``docs/``, ``tests/`` and
``examples/``), without importing any of it:

- **documented** module paths: every module a reference page under ``docs/ref/`` renders
  (``::: agents.x``), except ``agents.run_internal.*`` (the run loop's own modules: their name
  says internal, and the site's navigation lists none of them), and every module the English
  guides import from (``from agents.x import ...`` in ``docs/*.md``);
- a test file is **public** when it, and every helper module of the SDK's tests or examples it
  imports (followed through their own imports), imports ``agents`` names only from documented
  paths, no ``_``-prefixed name, and touches no private attribute of the SDK (``obj._name``
  or the string ``"_name"``, where ``_name`` is defined in the SDK's source and not in the
  test's own files);
- **internal** otherwise, with the reasons; **repository** when it imports nothing of
  ``agents`` at all (the SDK's release scripts, CI workflows, docs tooling).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

__all__ = ["Analysis", "Classification", "SdkTestFile", "documented_modules", "private_names"]

Kind = Literal["public", "internal", "repository"]

_GUIDE_LANGUAGES_SKIPPED = ("ja", "ko", "zh", "ref")
_REF_DIRECTIVE = re.compile(r"^:::\s*(agents[\w.]*)", re.M)
_GUIDE_IMPORT = re.compile(r"^\s*(?:from|import)\s+(agents[\w.]*)", re.M)
_AGENTS_PATH = re.compile(r"agents(\.\w+)+")


@dataclass(frozen=True)
class SdkTestFile:
    """One test file of the SDK, sorted."""

    path: str
    """Its path under the SDK's ``tests/`` (``models/test_map.py``)."""
    kind: Kind
    """``public``, ``internal`` or ``repository`` (see the module)."""
    reasons: tuple[str, ...] = ()
    """Why an internal file is internal: each private path, name or attribute it uses."""


@dataclass
class Analysis:
    """What one Python file of the SDK's tests or examples uses (before following helpers)."""

    reasons: list[str] = field(default_factory=list)
    """Private or undocumented things it uses itself."""
    helpers: list[Path] = field(default_factory=list)
    """The SDK's test or example modules it imports."""
    imports_agents: bool = False
    """Whether it imports anything of ``agents``."""


def _module_of(src: Path, dotted: str) -> str:
    """The longest prefix of ``dotted`` that is a module of the SDK's ``src/``."""
    parts = dotted.split(".")
    while parts:
        base = src.joinpath(*parts)
        if base.with_suffix(".py").exists() or (base / "__init__.py").exists():
            return ".".join(parts)
        parts.pop()
    return dotted


def documented_modules(sdk: Path) -> frozenset[str]:
    """The module paths the SDK documents (see the module)."""
    src = sdk / "src"
    found: set[str] = {"agents"}
    for page in (sdk / "docs" / "ref").rglob("*.md"):
        for name in _REF_DIRECTIVE.findall(page.read_text(encoding="utf-8")):
            module = _module_of(src, name)
            if not module.startswith("agents.run_internal"):
                found.add(module)
    for page in (sdk / "docs").rglob("*.md"):
        if page.relative_to(sdk / "docs").parts[0] in _GUIDE_LANGUAGES_SKIPPED:
            continue
        found.update(_GUIDE_IMPORT.findall(page.read_text(encoding="utf-8")))
    return frozenset(found)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name != "_"


def private_names(src: Path) -> frozenset[str]:
    """Every ``_name`` the SDK's source defines (functions, classes, variables, attributes)."""
    found: set[str] = set()
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            found.update(n for n in _defined_names(node) if _private(n))
    return frozenset(found)


def _defined_names(node: ast.AST) -> Iterator[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, (ast.arg, ast.keyword)):
        yield node.arg or ""
    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
        yield node.attr
    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        yield node.id


@dataclass
class Classification:
    """The sorter: what the SDK documents and defines, and each file's analysis (cached)."""

    sdk: Path
    documented: frozenset[str]
    sdk_private: frozenset[str]
    _analyses: dict[Path, Analysis] = field(default_factory=dict)

    @classmethod
    def of(cls, sdk: Path) -> Classification:
        """The sorter for the SDK's source distribution unpacked at ``sdk``."""
        return cls(sdk, documented_modules(sdk), private_names(sdk / "src" / "agents"))

    def test_files(self) -> dict[str, SdkTestFile]:
        """Every ``test_*.py`` under ``tests/``, by its path there."""
        tests = self.sdk / "tests"
        return {
            path.relative_to(tests).as_posix(): self.file(path)
            for path in sorted(tests.rglob("test_*.py"))
        }

    def file(self, path: Path) -> SdkTestFile:
        """``path`` sorted, its helpers followed."""
        reasons: list[str] = []
        uses_agents = False
        seen = {path}
        todo = [path]
        while todo:
            current = todo.pop()
            analysis = self.analyse(current)
            uses_agents = uses_agents or analysis.imports_agents
            where = "" if current == path else f"{current.relative_to(self.sdk).as_posix()}: "
            reasons.extend(where + reason for reason in analysis.reasons)
            for helper in analysis.helpers:
                if helper not in seen:
                    seen.add(helper)
                    todo.append(helper)
        relative = path.relative_to(self.sdk / "tests").as_posix()
        if not uses_agents:
            return SdkTestFile(relative, "repository")
        unique = tuple(dict.fromkeys(reasons))
        return SdkTestFile(relative, "internal" if unique else "public", unique)

    def analyse(self, path: Path) -> Analysis:
        """What ``path`` uses itself (cached)."""
        if path not in self._analyses:
            self._analyses[path] = _Analyser(self, path).run()
        return self._analyses[path]

    def check_module(self, module: str) -> str | None:
        """Why importing ``module`` (an ``agents`` path) is not public, or None."""
        if any(_private(part) for part in module.split(".")):
            return f"private module {module}"
        known = module in self.documented
        if not known and _module_of(self.sdk / "src", module) not in self.documented:
            return f"undocumented module {module}"
        return None

    def helper_path(self, dotted: str, base: Path | None = None) -> Path | None:
        """The SDK's file for a ``tests.``/``examples.`` (or, from ``base``, relative)
        module, or None when it is none of theirs."""
        root = base if base is not None else self.sdk
        target = root.joinpath(*dotted.split(".")) if dotted else root
        for candidate in (target.with_suffix(".py"), target / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None


class _Analyser(ast.NodeVisitor):
    """One file's imports and private uses (see ``Classification.analyse``)."""

    def __init__(self, owner: Classification, path: Path) -> None:
        self.owner = owner
        self.path = path
        self.result = Analysis()
        self.tree = ast.parse(path.read_text(encoding="utf-8"))
        self.own = {n for node in ast.walk(self.tree) for n in _defined_names(node)}

    def run(self) -> Analysis:
        self.visit(self.tree)
        return self.result

    def _agents(self, module: str, names: list[str]) -> None:
        self.result.imports_agents = True
        why = self.owner.check_module(module)
        if why is not None:
            self.result.reasons.append(why)
        self.result.reasons.extend(f"private name {module}.{n}" for n in names if _private(n))

    def _helper(self, path: Path | None) -> None:
        if path is not None:
            self.result.helpers.append(path)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == "agents" or alias.name.startswith("agents."):
                self._agents(alias.name, [])
            elif alias.name.split(".")[0] in ("tests", "examples"):
                self._helper(self.owner.helper_path(alias.name))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        names = [alias.name for alias in node.names]
        if node.level:
            base = self.path.parent
            for _ in range(node.level - 1):
                base = base.parent
            if module:
                self._helper(self.owner.helper_path(module, base))
            for name in names:  # from . import helper
                self._helper(self.owner.helper_path(f"{module}.{name}".strip("."), base))
        elif module == "agents" or module.startswith("agents."):
            self._agents(module, names)
            for name in names:  # from agents import tracing: a module may be imported too
                if self.owner.helper_path(name, self.owner.sdk / "src" / module.replace(".", "/")):
                    self._agents(f"{module}.{name}", [])
        elif module.split(".")[0] in ("tests", "examples"):
            self._helper(self.owner.helper_path(module))
            for name in names:
                self._helper(self.owner.helper_path(f"{module}.{name}"))

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = node.args[0] if node.args else None
        if name == "import_module" and isinstance(first, ast.Constant):
            module = first.value
            if isinstance(module, str) and (module == "agents" or module.startswith("agents.")):
                self._agents(module, [])
        self.generic_visit(node)

    def _sdk_private(self, name: str) -> bool:
        return _private(name) and name in self.owner.sdk_private and name not in self.own

    def visit_Attribute(self, node: ast.Attribute) -> None:
        owner = node.value
        mine = isinstance(owner, ast.Name) and owner.id in ("self", "cls")
        if not mine and self._sdk_private(node.attr):
            self.result.reasons.append(f"private attribute .{node.attr}")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if not isinstance(value, str):
            return
        if _AGENTS_PATH.fullmatch(value) and any(_private(p) for p in value.split(".")):
            self.result.reasons.append(f"patches {value}")
        elif self._sdk_private(value):
            self.result.reasons.append(f"private attribute {value!r}")
