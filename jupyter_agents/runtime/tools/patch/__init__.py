"""The ``apply_patch`` tool: the patch format, its safety check, and the workspace
files it writes without following links."""
