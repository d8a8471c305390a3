"""``MultiProvider``: the run's default provider, choosing one by a model name's prefix.

``"litellm/anthropic/claude-sonnet-4-5"`` goes to ``LitellmProvider`` (as
``"anthropic/claude-sonnet-4-5"``), ``"openai/gpt-4.1"`` and ``"gpt-4.1"`` to the OpenAI
provider. A name with another prefix (``"meta-llama/Llama-3.1-8B"`` on vLLM) goes to the OpenAI
provider whole, as before there were prefixes; ``unknown_prefix_mode="error"`` refuses it as
the OpenAI Agents SDK does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ..errors import UserError
from .interface import Model, ModelProvider
from .provider import OpenAIProvider, default_model_name, default_provider

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from .litellm_model import LitellmProvider

__all__ = ["MultiProvider", "MultiProviderMap"]

OpenAIPrefixMode = Literal["alias", "model_id"]
UnknownPrefixMode = Literal["error", "model_id"]


class MultiProviderMap:
    """Model name prefixes mapped to providers (they take precedence over the built-in
    ``openai`` and ``litellm`` prefixes)."""

    def __init__(self) -> None:
        self._mapping: dict[str, ModelProvider] = {}

    def has_prefix(self, prefix: str) -> bool:
        """Whether ``prefix`` is mapped."""
        return prefix in self._mapping

    def get_mapping(self) -> dict[str, ModelProvider]:
        """A copy of the mapping."""
        return dict(self._mapping)

    def set_mapping(self, mapping: dict[str, ModelProvider]) -> None:
        """Replace the mapping."""
        self._mapping = dict(mapping)

    def get_provider(self, prefix: str) -> ModelProvider | None:
        """The provider of ``prefix``, if mapped."""
        return self._mapping.get(prefix)

    def add_provider(self, prefix: str, provider: ModelProvider) -> None:
        """Map ``prefix`` (``"my_prefix"`` for names ``"my_prefix/model"``) to ``provider``."""
        self._mapping[prefix] = provider

    def remove_provider(self, prefix: str) -> None:
        """Unmap ``prefix``."""
        del self._mapping[prefix]


class MultiProvider(ModelProvider):
    """Picks the provider of a model name by its prefix (the default ``model_provider``)."""

    def __init__(
        self,
        *,
        provider_map: MultiProviderMap | None = None,
        openai_api_key: str | None = None,
        openai_base_url: str | None = None,
        openai_client: AsyncOpenAI | None = None,
        openai_use_responses: bool | None = None,
        openai_prefix_mode: OpenAIPrefixMode = "alias",
        unknown_prefix_mode: UnknownPrefixMode = "model_id",
    ) -> None:
        """Create the provider.

        Args:
            provider_map: Prefixes of your own, checked first.
            openai_api_key: The OpenAI provider's key (default: the default client's).
            openai_base_url: The OpenAI provider's server.
            openai_client: The OpenAI provider's client.
            openai_use_responses: Force the Responses API (True) or Chat Completions (False).
            openai_prefix_mode: ``"alias"``: ``openai/gpt-4.1`` is ``gpt-4.1``;
                ``"model_id"``: the whole name is sent (servers with namespaced ids).
            unknown_prefix_mode: ``"model_id"``: a name with an unknown prefix goes to the
                OpenAI provider whole; ``"error"``: it is a ``UserError``.
        """
        if openai_prefix_mode not in ("alias", "model_id"):
            raise UserError("MultiProvider openai_prefix_mode must be 'alias' or 'model_id'.")
        if unknown_prefix_mode not in ("error", "model_id"):
            raise UserError("MultiProvider unknown_prefix_mode must be 'error' or 'model_id'.")
        self.provider_map = provider_map
        own = (openai_api_key, openai_base_url, openai_client, openai_use_responses)
        self.openai_provider: OpenAIProvider | None = (
            OpenAIProvider(
                api_key=openai_api_key,
                base_url=openai_base_url,
                openai_client=openai_client,
                use_responses=openai_use_responses,
            )
            if any(value is not None for value in own)
            else None
        )
        """The OpenAI provider (None: the default one, which follows
        ``set_default_openai_client`` and the environment)."""
        self._openai_prefix_mode = openai_prefix_mode
        self._unknown_prefix_mode = unknown_prefix_mode
        self._litellm: LitellmProvider | None = None

    async def aclose(self) -> None:
        """Close the providers it holds (its own OpenAI provider, the mapped ones, LiteLLM's),
        each once; the first failure is raised after all were tried. The shared default
        OpenAI provider stays open: other runs use it."""
        seen: set[int] = set()
        first: Exception | None = None
        for provider in self._held():
            if provider is self or id(provider) in seen:
                continue
            seen.add(id(provider))
            try:
                await provider.aclose()
            except Exception as error:  # the others are still closed
                first = first or error
        if first is not None:
            raise first

    def _held(self) -> list[ModelProvider]:
        """The providers it holds (and closes): its own OpenAI provider, the mapped ones and
        LiteLLM's once used; never the shared default OpenAI provider."""
        providers: list[ModelProvider] = [self.openai_provider] if self.openai_provider else []
        if self.provider_map is not None:
            providers += self.provider_map.get_mapping().values()
        if self._litellm is not None:
            providers.append(self._litellm)
        return providers

    def get_model(self, model_name: str | None) -> Model:
        """The model for ``model_name`` from the provider its prefix names."""
        name = model_name or default_model_name()
        prefix, _, rest = name.partition("/")
        openai = self.openai_provider or default_provider()
        if not rest:
            return openai.get_model(name)
        mapped = self.provider_map.get_provider(prefix) if self.provider_map else None
        if mapped is not None:
            return mapped.get_model(rest)
        if prefix == "litellm":
            if self._litellm is None:
                # Imported here so that `import jupyter_agents` does not load the openai package.
                from .litellm_model import LitellmProvider

                self._litellm = LitellmProvider()
            return self._litellm.get_model(rest)
        if prefix == "openai":
            return openai.get_model(rest if self._openai_prefix_mode == "alias" else name)
        if self._unknown_prefix_mode == "error":
            raise UserError(
                f"Unknown model name prefix {prefix!r} in {name!r}: use litellm/..., openai/... "
                "or a prefix of MultiProviderMap."
            )
        return openai.get_model(name)
