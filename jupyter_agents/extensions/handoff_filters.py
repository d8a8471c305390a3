"""Ready-made handoff input filters, at the SDK's path (``agents.extensions.handoff_filters``).

The same functions are ``jupyter_agents.handoff_filters.<name>``.
"""

from __future__ import annotations

from ..runtime.handoffs import handoff_filters as _filters

__all__ = ["remove_all_tools"]

remove_all_tools = _filters.remove_all_tools
