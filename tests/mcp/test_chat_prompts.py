"""The chat's slash commands against a real MCP server (the demo server, written with the
``mcp`` SDK): ``/`` lists its prompts with their arguments, and ``/greet Ada`` fetches the
prompt filled in, whose text becomes the turn's message."""

from __future__ import annotations

import pytest

from jupyter_agents.notebook.chat.prompts import PromptRefused, prompt_names, prompt_text

from .test_servers import stdio


async def test_a_servers_prompts_are_listed_and_fetched(demo_command: list[str]) -> None:
    async with stdio(demo_command, name="demo", client_session_timeout_seconds=30) as server:
        servers = {"demo": server}
        [greet] = await prompt_names(servers, "gr")
        assert greet["label"] == "greet" and greet["detail"] == "demo: A greeting prompt."
        assert greet.get("arguments") == [{"name": "name", "required": True}]
        assert await prompt_names(servers, "zz") == []
        assert await prompt_text(servers, "greet", "Ada Lovelace") == (
            "Please greet Ada Lovelace warmly."
        )
        assert await prompt_text(servers, "greet", "name=Bo") == "Please greet Bo warmly."
        with pytest.raises(PromptRefused, match="no MCP server of this notebook has that prompt"):
            await prompt_text(servers, "nope", "")
