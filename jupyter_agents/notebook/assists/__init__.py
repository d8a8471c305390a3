"""The assists' kernel side: **Fix** on a cell's error and **Ctrl/Cmd+I** in a cell, each a run
of the notebook's agent on that one cell, asked to propose an ``edit_cell`` of it (and, for a
fix, to run it again). The lab executes ``await assist(REQUEST)`` of ``run.py`` through
``labextension/src/kernelrun/`` (the request typed in ``contract.py``, validated in
``request.py``); ``prompt.py`` builds the model's prompt from the cell the page holds, its
error and the variables its traceback names, all of it fenced as untrusted data."""

__all__: list[str] = []
