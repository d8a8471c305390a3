"""Hosted tools: run by the model provider (Responses API only), not by this process."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "CodeInterpreterTool",
    "FileSearchTool",
    "HostedTool",
    "ImageGenerationTool",
    "WebSearchTool",
]


class HostedTool:
    """Base class of tools the provider runs. Subclasses build their Responses API parameter."""

    name: str

    def to_tool_param(self) -> dict[str, Any]:
        """The tool as a Responses API ``tools`` entry."""
        raise NotImplementedError


@dataclass
class WebSearchTool(HostedTool):
    """Lets the model search the web."""

    search_context_size: Literal["low", "medium", "high"] = "medium"
    """How much context to retrieve."""

    user_location: dict[str, Any] | None = None
    """Approximate user location, to localise results."""

    name = "web_search"

    def to_tool_param(self) -> dict[str, Any]:
        param: dict[str, Any] = {
            "type": "web_search",
            "search_context_size": self.search_context_size,
        }
        if self.user_location:
            param["user_location"] = self.user_location
        return param


@dataclass
class FileSearchTool(HostedTool):
    """Lets the model search the provider's vector stores."""

    vector_store_ids: list[str]
    """Vector stores to search."""

    max_num_results: int | None = None
    """Upper bound on results."""

    include_search_results: bool = False
    """Include the search results in the response."""

    filters: dict[str, Any] | None = None
    """Attribute filters."""

    name = "file_search"

    def to_tool_param(self) -> dict[str, Any]:
        param: dict[str, Any] = {"type": "file_search", "vector_store_ids": self.vector_store_ids}
        if self.max_num_results is not None:
            param["max_num_results"] = self.max_num_results
        if self.filters:
            param["filters"] = self.filters
        return param


@dataclass
class CodeInterpreterTool(HostedTool):
    """Lets the model run code in the provider's sandbox."""

    tool_config: dict[str, Any] = field(
        default_factory=lambda: {"type": "code_interpreter", "container": {"type": "auto"}}
    )
    """The Responses API tool parameter."""

    name = "code_interpreter"

    def to_tool_param(self) -> dict[str, Any]:
        return dict(self.tool_config)


@dataclass
class ImageGenerationTool(HostedTool):
    """Lets the model generate images."""

    tool_config: dict[str, Any] = field(default_factory=lambda: {"type": "image_generation"})
    """The Responses API tool parameter."""

    name = "image_generation"

    def to_tool_param(self) -> dict[str, Any]:
        return dict(self.tool_config)
