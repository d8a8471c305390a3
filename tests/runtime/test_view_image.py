"""view_image: the model looks at an image in the workspace; nothing outside it is read."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import openai
import pytest

from jupyter_agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    ToolOutputImage,
    UserError,
    view_image_tool,
)
from jupyter_agents.testing import ScriptedModel, tool_call
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall

# A 1x1 PNG, and the first bytes of the other accepted types.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
HEADS = {
    "a.jpg": b"\xff\xd8\xff\xe0" + b"0" * 20,
    "a.gif": b"GIF89a" + b"0" * 20,
    "a.webp": b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"0" * 20,
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "plots").mkdir(parents=True)
    (root / "plots" / "loss.png").write_bytes(PNG)
    for name, head in HEADS.items():
        (root / name).write_bytes(head)
    (root / "notes.txt").write_text("not an image")
    (tmp_path / "secret.png").write_bytes(PNG)
    os.symlink(tmp_path / "secret.png", root / "link.png")
    return root


async def look(tool: Any, path: str) -> Any:
    return await tool.on_invoke_tool(None, json.dumps({"path": path}))


async def test_an_image_in_the_workspace_comes_back_as_an_image(workspace: Path) -> None:
    tool = view_image_tool(workspace)
    out = await look(tool, "plots/loss.png")
    assert isinstance(out, ToolOutputImage)
    assert out.image_url == "data:image/png;base64," + base64.b64encode(PNG).decode()
    for name, mime in (("a.jpg", "jpeg"), ("a.gif", "gif"), ("a.webp", "webp")):
        shown = await look(tool, name)
        assert shown.image_url.startswith(f"data:image/{mime};base64,")


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("../secret.png", "outside the workspace"),
        ("link.png", "symbolic link"),  # a symlink pointing out: not followed
        ("/etc/passwd", "outside the workspace"),
        ("missing.png", "no such file"),
        ("notes.txt", "not a PNG, JPEG, GIF or WebP"),
        ("plots", "a folder"),
        ("", "Give the path"),
    ],
)
async def test_anything_else_is_refused_with_a_reason(workspace: Path, path: str, why: str) -> None:
    out = await look(view_image_tool(workspace), path)
    assert isinstance(out, str) and why in out


async def test_large_files_are_refused(workspace: Path) -> None:
    out = await look(view_image_tool(workspace, max_bytes=10), "plots/loss.png")
    assert isinstance(out, str) and "up to 10 bytes" in out


def test_bad_settings_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not a folder"):
        view_image_tool(tmp_path / "nope")
    with pytest.raises(UserError, match="max_bytes"):
        view_image_tool(tmp_path, max_bytes=0)


async def test_the_model_loop_sends_the_image_back(workspace: Path) -> None:
    model = ScriptedModel([[tool_call("view_image", {"path": "plots/loss.png"})], ["A flat line."]])
    agent = Agent(name="v", model=model, tools=[view_image_tool(workspace)])
    result = await Runner.run(agent, "How does the loss look?")
    assert result.final_output == "A flat line."
    sent = model.requests[1].input[-1]
    assert sent["type"] == "function_call_output"
    (image,) = sent["output"]
    assert image["type"] == "input_image" and image["image_url"].startswith("data:image/png")


@pytest.mark.http
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_over_http_in_both_wire_formats(
    openai_server: FakeOpenAIServer, workspace: Path, kind: str
) -> None:
    openai_server.enqueue(
        Reply([ReplyToolCall("view_image", {"path": "plots/loss.png"}, call_id="c1")]),
        Reply([ReplyText("I see it.")]),
    )
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    agent = Agent(
        name="v", model=cls("gpt-test", openai_client=client), tools=[view_image_tool(workspace)]
    )
    result = await Runner.run(agent, "Look at the plot.")
    assert result.final_output == "I see it."
    body = json.dumps(openai_server.model_requests[1].body)
    assert base64.b64encode(PNG).decode() in body  # the image reached the model
    assert "secret" not in body


@pytest.mark.parametrize("case", ["link inside", "folder link", "fifo"])
async def test_links_and_special_files_are_never_followed_or_opened(
    workspace: Path, case: str
) -> None:
    if case == "link inside":  # even to an image inside: the path a model names is the file
        (workspace / "alias.png").symlink_to(workspace / "plots" / "loss.png")
        path = "alias.png"
    elif case == "folder link":
        (workspace / "view").symlink_to(workspace / "plots")
        path = "view/loss.png"
    else:
        os.mkfifo(workspace / "pipe.png")  # opening it for reading would block forever
        path = "pipe.png"
    out = await look(view_image_tool(workspace), path)
    assert isinstance(out, str) and "not" in out and "image_url" not in out


async def test_a_folder_swapped_for_a_link_after_the_check_leads_nowhere(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A shell call in the same turn swaps plots/ for a link to a folder outside, just before
    # the file is looked at or opened: the read must not follow it out.
    outside = tmp_path / "outside"
    outside.mkdir()
    theirs = PNG[:-1] + b"\x00"  # an image that is not the workspace's
    (outside / "loss.png").write_bytes(theirs)

    def swap() -> None:
        if not (workspace / "plots").is_symlink():
            (workspace / "plots").rename(workspace / "plots-moved")
            (workspace / "plots").symlink_to(outside)

    for name in ("stat", "open"):
        real = getattr(os, name)

        def hooked(path: Any, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            if str(path).endswith("loss.png"):
                swap()
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(os, name, hooked)
    out = await look(view_image_tool(workspace), "plots/loss.png")
    monkeypatch.undo()
    assert (workspace / "plots").is_symlink()  # the swap did happen
    outside_url = "data:image/png;base64," + base64.b64encode(theirs).decode()
    assert not (isinstance(out, ToolOutputImage) and out.image_url == outside_url)
