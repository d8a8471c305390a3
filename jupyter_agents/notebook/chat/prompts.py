"""The notebook's MCP servers' prompts as the chat's slash commands: ``/name args`` fetches
the prompt (MCP ``prompts/get``) and its text becomes the turn's message.

A prompt's text is a server's words: control characters and bidi marks are removed
(``printable``) and it is capped; it is sent as the person's message, never run."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from ...runtime.mcp.untrusted import cap_text, printable
from .contract import Completion, PromptArgument
from .mentions import MAX_LISTED
from .request import MAX_MESSAGE

__all__ = ["PromptRefused", "prompt_names", "prompt_text"]


class PromptRefused(ValueError):
    """No server has that prompt, or it could not be fetched (one line saying why)."""


async def _listed(servers: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    """(server, prompt) for every prompt of every server that lists them; a server that
    fails to list is left out."""
    found: list[tuple[Any, Any]] = []
    for server in servers.values():
        try:
            listed = await server.list_prompts()
        except Exception:  # a server without prompts, or down: the others still list
            continue
        found.extend((server, prompt) for prompt in listed.prompts)
    return found


async def prompt_names(servers: Mapping[str, Any], prefix: str) -> list[Completion]:
    """The prompts whose names start with ``prefix``, with their descriptions and arguments."""
    items: list[Completion] = []
    for server, prompt in await _listed(servers):
        name = printable(str(prompt.name), keep_newlines=False)
        if not name.startswith(prefix):
            continue
        description = printable(str(prompt.description or ""), keep_newlines=False)
        arguments: list[PromptArgument] = [
            {
                "name": printable(str(a.name), keep_newlines=False)[:100],
                "required": bool(a.required),
            }
            for a in (prompt.arguments or [])[:20]
        ]
        detail = f"{server.name}: {description}" if description else str(server.name)
        items.append({"label": name[:100], "detail": detail[:160], "arguments": arguments})
        if len(items) >= MAX_LISTED:
            break
    return items


def _arguments(declared: list[Any], args: str) -> dict[str, str]:
    """``args`` as the prompt's arguments: ``key=value`` words, else the words in the declared
    order, the last argument taking the rest of the text."""
    names = [str(a.name) for a in declared]
    if not names or not args.strip():
        return {}
    try:
        words = shlex.split(args)
    except ValueError:
        words = args.split()
    if words and all("=" in w and w.split("=", 1)[0] in names for w in words):
        return dict(w.split("=", 1) for w in words)
    if len(names) == 1:
        return {names[0]: args.strip()}
    given = dict(zip(names, words, strict=False))
    if len(words) > len(names):
        given[names[-1]] = " ".join(words[len(names) - 1 :])
    return given


async def prompt_text(servers: Mapping[str, Any], name: str, args: str) -> str:
    """The text of prompt ``name`` filled with ``args``: its messages' text, joined.

    Raises:
        PromptRefused: No server has it, or the server failed.
    """
    for server, prompt in await _listed(servers):
        if str(prompt.name) != name:
            continue
        try:
            result = await server.get_prompt(name, _arguments(prompt.arguments or [], args))
        except Exception as e:
            raise PromptRefused(f"/{name}: the server could not give the prompt ({e})") from None
        texts = []
        for message in result.messages:
            text = getattr(message.content, "text", None)
            texts.append(text if isinstance(text, str) else "[content that is not text: left out]")
        return cap_text(printable("\n\n".join(texts)), MAX_MESSAGE)
    raise PromptRefused(f"/{name[:100]}: no MCP server of this notebook has that prompt")
