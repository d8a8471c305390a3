"""The Jupyter layer: magics, the notebook toolbox, the live run widget and static transcripts.

Nothing is imported here: ``%load_ext jupyter_agents`` loads what it needs, and the runtime never
imports this package. The widget lives in ``.widget``, the adapter from a run's stream events
to widget state in ``.view``, and the static HTML / markdown transcripts in ``.transcript``.
"""
