"""The shell tool: commands the model runs, in the sandbox, and how it is offered."""
