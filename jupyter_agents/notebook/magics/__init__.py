"""The ``%agent`` line magic and its subcommands (mcp, policy, session, cost)."""
