"""The notebook as the agent's workspace: the document comm to the frontend that holds
the notebook (and the headless runner's side of it), the cell tools, the namespace as a
model reads it."""
