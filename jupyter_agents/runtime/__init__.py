"""The engine: agents, the run loop, tools and models. Never imports notebook packages."""
