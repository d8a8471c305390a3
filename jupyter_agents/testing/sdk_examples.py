"""Run the OpenAI Agents SDK's example programs on jupyter_agents, offline: the compatibility
check of docs/sdk-compatibility.md.

``python -m jupyter_agents.testing.sdk_examples EXAMPLES_DIR [SUBDIR ...]`` runs every
``*.py`` program under the chosen folders of a checkout of the SDK's ``examples/`` with
``agents`` imported as ``jupyter_agents`` (``agents.X`` as ``jupyter_agents.X``), against a
local OpenAI-compatible server that answers every model request generically: a structured
output gets a minimal instance of its schema, a first turn that offers function tools calls the
first one with arguments made from its schema, and anything else gets a short text. Programs
that wait for input get empty lines. Each program runs in its own process with a time limit;
the report lists each one's result and the last line of what went wrong. Nothing leaves the
machine (the examples' own web requests fail).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall, ScriptedReply

__all__ = ["example_instance", "generic_reply", "main"]

ALIAS = """
import importlib, importlib.abc, importlib.util, sys

class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name != "agents" and not name.startswith("agents."):
            return None
        try:
            real = importlib.import_module("jupyter_agents" + name[len("agents"):])
        except ImportError:
            return None
        spec = importlib.util.spec_from_loader(name, self, is_package=hasattr(real, "__path__"))
        spec.real = real
        return spec

    def create_module(self, spec):
        return spec.real

    def exec_module(self, module):
        pass

sys.meta_path.insert(0, _Alias())
"""


def example_instance(schema: Any, defs: dict[str, Any] | None = None, depth: int = 0) -> Any:
    """A small value that fits ``schema`` (JSON schema: objects with their required fields,
    the first of enums and unions, one item per array)."""
    if not isinstance(schema, dict) or depth > 12:
        return None
    defs = {**(defs or {}), **schema.get("$defs", {}), **schema.get("definitions", {})}
    if "$ref" in schema:
        return example_instance(defs.get(schema["$ref"].rsplit("/", 1)[-1]), defs, depth + 1)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key, []) if o.get("type") != "null"]
        if options:
            return example_instance(options[0], defs, depth + 1)
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    props = schema.get("properties", {})
    if kind == "object" or props:
        required = schema.get("required", list(props))
        return {k: example_instance(props[k], defs, depth + 1) for k in required if k in props}
    if kind == "array":
        return [example_instance(schema.get("items", {"type": "string"}), defs, depth + 1)]
    return {"integer": 1, "number": 1.5, "boolean": True, "null": None}.get(str(kind), "example")


def _output_schema(body: dict[str, Any]) -> Any:
    text = body.get("text") or {}
    fmt = text.get("format") if isinstance(text, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        return fmt.get("schema")
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return (response_format.get("json_schema") or {}).get("schema")
    return None


def generic_reply(body: dict[str, Any]) -> ScriptedReply:
    """A reply to any model request (see the module)."""
    items = body.get("input") if isinstance(body.get("input"), list) else body.get("messages")
    items = items if isinstance(items, list) else []
    answered = any(
        isinstance(i, dict) and (i.get("type") == "function_call_output" or i.get("role") == "tool")
        for i in items
    )
    functions = [
        t.get("function", t) for t in body.get("tools") or [] if t.get("type") == "function"
    ]
    if functions and not answered:
        first = functions[0]
        return Reply(
            [ReplyToolCall(first["name"], example_instance(first.get("parameters")) or {})]
        )
    schema = _output_schema(body)
    if schema is not None:
        return Reply([ReplyText(json.dumps(example_instance(schema)))])
    return Reply([ReplyText("OK.")])


def _run(program: Path, root: Path, server: FakeOpenAIServer, timeout: float) -> tuple[str, str]:
    env = {
        **os.environ,
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": server.api_key,
        "EXAMPLES_INTERACTIVE_MODE": "auto",  # the SDK's examples answer their own prompts
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(root.parent), os.environ.get("PYTHONPATH")])
        ),
    }
    with tempfile.TemporaryDirectory() as work:
        boot = Path(work) / "sitecustomize.py"
        boot.write_text(ALIAS)
        env["PYTHONPATH"] = os.pathsep.join([work, env["PYTHONPATH"]])
        module = ".".join(program.relative_to(root.parent).with_suffix("").parts)
        try:
            done = subprocess.run(
                [sys.executable, "-m", module],
                cwd=root.parent,
                env=env,
                input="\n" * 20,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return "timeout", f"still running after {timeout:g} s"
    if done.returncode == 0:
        return "ok", ""
    lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
    return "failed", lines[-1] if lines else f"exit status {done.returncode}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jupyter_agents.testing.sdk_examples")
    parser.add_argument("examples", type=Path, help="the SDK's examples/ folder")
    parser.add_argument("folders", nargs="*", help="its subfolders to run (default: all)")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    root: Path = args.examples.resolve()
    folders = [root / f for f in args.folders] or [p for p in root.iterdir() if p.is_dir()]
    programs = sorted(
        p for folder in folders for p in folder.rglob("*.py") if p.name != "__init__.py"
    )
    results: list[tuple[Path, str, str]] = []
    with FakeOpenAIServer(
        require_api_key=False, validate_tool_schemas=False, responder=generic_reply
    ) as server:
        for program in programs:
            status, why = _run(program, root, server, args.timeout)
            results.append((program, status, why))
            print(f"{status:8} {program.relative_to(root)}  {why}"[:300], flush=True)
    ok = sum(1 for _, status, _ in results if status == "ok")
    print(f"\n{ok} of {len(results)} ran to the end.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
