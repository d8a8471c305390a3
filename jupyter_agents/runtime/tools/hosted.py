"""Hosted tools: run by the model provider (Responses API only), not by this process."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, Union

from typing_extensions import NotRequired, Required, TypedDict

from ..errors import UserError
from .capabilities import ToolCapabilities

__all__ = [
    "CodeInterpreterTool",
    "FileSearchTool",
    "HostedTool",
    "ImageGenerationTool",
    "ImageGenerationToolConfig",
    "ProgrammaticToolCallingTool",
    "ToolSearchTool",
    "WebSearchTool",
    "WebSearchToolImageSettings",
]


class HostedTool(ToolCapabilities):
    """Base class of tools the provider runs. Subclasses build their Responses API parameter."""

    name: str

    def to_tool_param(self) -> dict[str, Any]:
        """The tool as a Responses API ``tools`` entry."""
        raise NotImplementedError


class WebSearchToolImageSettings(TypedDict, total=False):
    """``WebSearchTool(image_settings=...)``: image results, when ``search_content_types``
    includes ``"image"``."""

    max_results: int
    """How many image results to return."""

    caption: bool
    """Whether each image comes with a short caption, when there is one."""


@dataclass
class WebSearchTool(HostedTool):
    """Lets the model search the web (the SDK's fields, in its order)."""

    user_location: dict[str, Any] | None = None
    """Approximate user location, to localise results."""

    filters: Any = None
    """Which sites to search: openai's web search ``Filters`` (a dict of its fields is made
    one, keys newer than the installed ``openai`` package kept)."""

    search_context_size: Literal["low", "medium", "high"] = "medium"
    """How much context to retrieve."""

    external_web_access: bool | None = None
    """False: cached or indexed results only, where the provider supports it."""

    search_content_types: list[Literal["text", "image"]] | None = None
    """What the search returns (``["text", "image"]``); image results come back through the
    ``web_search_call.results`` include, which is then asked for."""

    image_settings: WebSearchToolImageSettings | None = None
    """Image results' settings, when ``search_content_types`` includes ``"image"``."""

    name = "web_search"
    read_only = True  # a search changes nothing: offered in ask and plan modes

    def __post_init__(self) -> None:
        if isinstance(self.filters, dict):
            from openai.types.responses.web_search_tool import Filters

            self.filters = Filters.model_validate(self.filters)

    def to_tool_param(self) -> dict[str, Any]:
        """The Responses API ``tools`` entry, as the SDK sends it (``filters`` and
        ``user_location`` always, None when unset)."""
        dump = getattr(self.filters, "model_dump", None)
        param: dict[str, Any] = {
            "type": "web_search",
            "filters": dump() if callable(dump) else self.filters,
            "user_location": self.user_location,
            "search_context_size": self.search_context_size,
        }
        if self.external_web_access is not None:
            param["external_web_access"] = self.external_web_access
        if self.search_content_types is not None:
            param["search_content_types"] = list(self.search_content_types)
        if self.image_settings is not None:
            param["image_settings"] = dict(self.image_settings)
        return param

    @property
    def include(self) -> str | None:
        """The ``include`` value the search's results need (image results), if any."""
        if self.search_content_types is not None and "image" in self.search_content_types:
            return "web_search_call.results"
        return None


@dataclass
class FileSearchTool(HostedTool):
    """Lets the model search the provider's vector stores."""

    vector_store_ids: list[str]
    """Vector stores to search."""

    max_num_results: int | None = None
    """Upper bound on results."""

    include_search_results: bool = False
    """Include the search results in the response (the request then asks for
    ``file_search_call.results``)."""

    ranking_options: dict[str, Any] | None = None
    """How results are ranked (openai's ``RankingOptions``)."""

    filters: dict[str, Any] | None = None
    """Attribute filters."""

    name = "file_search"
    read_only = True

    def to_tool_param(self) -> dict[str, Any]:
        """The Responses API ``tools`` entry; ``max_num_results`` 0 or None leaves the
        provider's default, and anything but those or 1 to 50 is a ``UserError``."""
        param: dict[str, Any] = {"type": "file_search", "vector_store_ids": self.vector_store_ids}
        limit = self.max_num_results
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= 50:
                raise UserError(
                    "FileSearchTool max_num_results must be zero, an integer between 1 and 50, "
                    f"or None; got {limit!r}."
                )
            if limit > 0:
                param["max_num_results"] = limit
        if self.ranking_options:
            param["ranking_options"] = self.ranking_options
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


class _InputImageMask(TypedDict, total=False):
    file_id: str
    image_url: str


class ImageGenerationToolConfig(TypedDict, total=False):
    """``ImageGenerationTool``'s Responses API settings (sent as they are: the API checks
    which model takes which option)."""

    type: Required[Literal["image_generation"]]
    action: Literal["generate", "edit", "auto"]
    background: Literal["transparent", "opaque", "auto"]
    input_fidelity: Literal["high", "low"] | None
    input_image_mask: _InputImageMask
    model: str
    moderation: Literal["auto", "low"]
    output_compression: int
    output_format: Literal["png", "webp", "jpeg"]
    partial_images: int
    quality: Literal["low", "medium", "high", "xhigh", "max", "auto"]
    size: str


@dataclass
class ImageGenerationTool(HostedTool):
    """Lets the model generate images: ``ImageGenerationTool({"type": "image_generation"})``."""

    tool_config: ImageGenerationToolConfig
    """The Responses API tool parameter (an ``ImageGenerationToolConfig``, or openai's
    ``ImageGeneration`` dict)."""

    name = "image_generation"

    def to_tool_param(self) -> dict[str, Any]:
        return dict(self.tool_config)


@dataclass
class ToolSearchTool(HostedTool):
    """Lets the model search tools that are loaded only when needed (the Responses API's
    ``tool_search``); the provider runs the search (``execution="server"``)."""

    description: str | None = None
    """What the search is for, as the model reads it."""

    execution: Literal["server", "client"] | None = None
    """Who runs the search; ``"client"`` searches are not run by this runtime (as in the SDK)."""

    parameters: object | None = None
    """The search's parameters schema, when not the provider's default."""

    name = "tool_search"

    def to_tool_param(self) -> dict[str, Any]:
        param: dict[str, Any] = {"type": "tool_search"}
        if isinstance(self.description, str):
            param["description"] = self.description
        if self.execution is not None:
            param["execution"] = self.execution
        if self.parameters is not None:
            param["parameters"] = self.parameters
        return param


@dataclass
class ProgrammaticToolCallingTool(HostedTool):
    """Lets the model write code, run at the provider, that calls its other tools (the
    Responses API's ``programmatic_tool_calling``)."""

    name = "programmatic_tool_calling"

    def to_tool_param(self) -> dict[str, Any]:
        return {"type": "programmatic_tool_calling"}


@dataclass(frozen=True)
class MCPToolApprovalRequest:
    """A hosted MCP server's request to approve a call, given to ``on_approval_request``."""

    ctx_wrapper: Any
    """The run context."""

    data: Any
    """The ``mcp_approval_request`` item (``server_label``, ``name``, ``arguments``, ``id``)."""


class MCPToolApprovalFunctionResult(TypedDict):
    """What ``on_approval_request`` returns."""

    approve: bool
    reason: NotRequired[str]


MCPToolApprovalFunction: TypeAlias = Callable[
    [MCPToolApprovalRequest],
    Union[
        MCPToolApprovalFunctionResult, bool, Awaitable[Union[MCPToolApprovalFunctionResult, bool]]
    ],
]
"""Decides on a hosted MCP call: sync or async, returning ``{"approve": ..., "reason": ...}``."""


@dataclass
class HostedMCPTool(HostedTool):
    """A remote MCP server the provider calls for the model (Responses API).

    When the server needs approval (``"require_approval"`` in ``tool_config``), each request
    goes to ``on_approval_request``; without it the run pauses with an interruption that
    ``RunState.approve`` / ``reject`` answers.
    """

    tool_config: dict[str, Any]
    """The Responses API ``mcp`` tool (``server_label``, ``server_url``, ``require_approval``)."""

    on_approval_request: MCPToolApprovalFunction | None = None
    """Decides approval requests live; None pauses the run instead."""

    def __post_init__(self) -> None:
        if self.tool_config.get("type", "mcp") != "mcp" or not self.tool_config.get("server_label"):
            raise UserError("HostedMCPTool needs tool_config={'type': 'mcp', 'server_label': ...}")

    @property
    def name(self) -> str:  # type: ignore[override]
        """``hosted_mcp_<server_label>``."""
        return f"hosted_mcp_{self.tool_config['server_label']}"

    @property
    def server_label(self) -> str:
        """The server's label in the Responses API."""
        return str(self.tool_config["server_label"])

    def to_tool_param(self) -> dict[str, Any]:
        return {"type": "mcp", **self.tool_config}
