"""The autouse guard: a test that tries to reach a real model service fails."""

from __future__ import annotations

import socket

import openai
import pytest

from jupyter_agents import Agent, OpenAIResponsesModel, Runner
from jupyter_agents.testing.network_guard import NetworkAccessBlocked
from jupyter_agents.testing.server import FakeOpenAIServer


def test_direct_connections_off_the_machine_are_blocked() -> None:
    with pytest.raises(NetworkAccessBlocked, match=r"api\.openai\.com"):
        socket.create_connection(("api.openai.com", 443), timeout=1)
    with pytest.raises(NetworkAccessBlocked, match=r"8\.8\.8\.8"):
        socket.create_connection(("8.8.8.8", 53), timeout=1)


async def test_a_run_against_the_real_openai_service_is_blocked() -> None:
    client = openai.AsyncOpenAI(api_key="sk-not-real", max_retries=0)
    agent = Agent(name="real", model=OpenAIResponsesModel("gpt-4.1", openai_client=client))
    with pytest.raises(NetworkAccessBlocked, match=r"api\.openai\.com"):
        await Runner.run(agent, "hi")


def test_loopback_stays_reachable(openai_server: FakeOpenAIServer) -> None:
    with socket.create_connection(("127.0.0.1", openai_server.port), timeout=2):
        pass
