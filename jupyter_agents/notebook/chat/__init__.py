"""The chat panel's kernel side: one chat turn runs the notebook's agent as a ``%%agent`` cell
does (``turn.py``), with the message taken literally and the person's mentions and selection as
context (``mentions.py``); the ``jupyter_agents.chat`` comm completes mentions and lists the MCP
servers' prompts (``comm.py``). The request and the comm's messages are typed in
``contract.py``, from which ``labextension/src/chat/contract.ts`` is generated."""

__all__: list[str] = []
