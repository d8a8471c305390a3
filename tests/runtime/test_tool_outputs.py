"""Tool return values as the model receives them."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    Runner,
    ToolCallOutputItem,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
    tool,
)
from jupyter_agents.runtime.tools import to_model_output
from jupyter_agents.testing import ScriptedModel, text, tool_call

IMAGE = "data:image/png;base64,iVBORw0KGgo="


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain", "plain"),
        (42, "42"),
        ({"a": 1}, "{'a': 1}"),
        ([1, 2], "[1, 2]"),
        (None, "None"),
        (ToolOutputText(text="hi"), [{"type": "input_text", "text": "hi"}]),
        ({"type": "text", "text": "hi"}, [{"type": "input_text", "text": "hi"}]),
        (
            ToolOutputImage(image_url=IMAGE, detail="low"),
            [{"type": "input_image", "image_url": IMAGE, "detail": "low"}],
        ),
        (
            {"type": "image", "file_id": "file_1"},
            [{"type": "input_image", "file_id": "file_1", "detail": "auto"}],
        ),
        (
            ToolOutputFileContent(file_data="ZGF0YQ==", filename="a.txt"),
            [{"type": "input_file", "file_data": "ZGF0YQ==", "filename": "a.txt"}],
        ),
        (
            {"type": "file", "file_url": "https://example.com/a.pdf"},
            [{"type": "input_file", "file_url": "https://example.com/a.pdf"}],
        ),
        (
            [ToolOutputText(text="see"), {"type": "image", "image_url": IMAGE}],
            [
                {"type": "input_text", "text": "see"},
                {"type": "input_image", "image_url": IMAGE, "detail": "auto"},
            ],
        ),
        # Not a structured output: unknown keys or mixed lists fall back to str().
        ({"type": "text", "text": "x", "extra": 1}, "{'type': 'text', 'text': 'x', 'extra': 1}"),
        ([ToolOutputText(text="a"), 3], "[ToolOutputText(text='a', type='text'), 3]"),
        ({"type": "image"}, "{'type': 'image'}"),
    ],
)
def test_to_model_output(value: Any, expected: Any) -> None:
    assert to_model_output(value) == expected


def test_structured_outputs_need_content() -> None:
    with pytest.raises(ValueError, match="image_url or file_id"):
        ToolOutputImage()
    with pytest.raises(ValueError, match="file_data, file_url or file_id"):
        ToolOutputFileContent(filename="a.txt")


async def test_image_output_reaches_the_model_as_content_parts() -> None:
    @tool
    def snapshot() -> ToolOutputImage:
        """Take a picture."""
        return ToolOutputImage(image_url=IMAGE)

    model = ScriptedModel([[tool_call("snapshot", call_id="c1")], [text("a cat")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[snapshot]), "look")
    sent = model.requests[1].input[-1]
    assert sent == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": [{"type": "input_image", "image_url": IMAGE, "detail": "auto"}],
    }
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem) and isinstance(output.output, ToolOutputImage)
