"""The handoff prompt, at the SDK's path (``agents.extensions.handoff_prompt``).

Everything here is also importable from ``jupyter_agents``.
"""

from __future__ import annotations

from ..runtime.handoff_prompt import RECOMMENDED_PROMPT_PREFIX, prompt_with_handoff_instructions

__all__ = ["RECOMMENDED_PROMPT_PREFIX", "prompt_with_handoff_instructions"]
