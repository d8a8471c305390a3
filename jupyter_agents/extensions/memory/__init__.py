"""Session stores at the SDK's path (``agents.extensions.memory``).

The same classes are importable from ``jupyter_agents``.
"""

from __future__ import annotations

from ..runtime.sessions import AdvancedSQLiteSession

__all__ = ["AdvancedSQLiteSession"]
