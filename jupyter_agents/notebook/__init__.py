"""The Jupyter layer: magics, the notebook toolbox, the live run widget and static transcripts.

Nothing is imported here: ``%load_ext jupyter_agents`` loads what it needs, and the runtime never
imports this package. ``cells/`` runs an agent cell, ``magics/`` holds ``%agent``, ``view/`` the
live widget and its state, ``saved/`` what a finished run leaves in the notebook, and
``workspace/`` the notebook as the agent's workspace (docs/architecture.md has the table).
"""
