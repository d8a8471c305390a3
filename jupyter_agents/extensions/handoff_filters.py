"""Ready-made handoff input filters, at the SDK's path (``agents.extensions.handoff_filters``).

``remove_all_tools`` is also ``jupyter_agents.handoff_filters.remove_all_tools``;
``nest_handoff_history`` and ``default_handoff_history_mapper`` are top-level names too.
"""

from __future__ import annotations

from ..runtime.handoff_history import default_handoff_history_mapper, nest_handoff_history
from ..runtime.handoffs import handoff_filters as _filters

__all__ = ["default_handoff_history_mapper", "nest_handoff_history", "remove_all_tools"]

remove_all_tools = _filters.remove_all_tools
