"""What a sandboxed command may not read, asked of one path: tools that read files in this
process (``load_skill``) keep out of the same places, so none hands the model what a command
could not read.

A sandboxed command reads the whole disk (read-only) except the places the sandbox hides: the
credential stores of the home folder, the runtime folders (service sockets, server tokens,
kernel connection files), Jupyter's secrets, and ``/tmp``. ``/tmp`` is hidden only so that each
command gets a private one, not for what it holds, so it is not one of the ``secret_place``s.
"""

from __future__ import annotations

import os
from pathlib import Path

from ._mounts import hidden_places

__all__ = ["secret_place"]


def secret_place(path: str | os.PathLike[str]) -> Path | None:
    """The place hidden from sandboxed commands for the secrets it holds that holds ``path``
    (resolved, links followed), or None when commands may read it."""
    real = Path(os.path.realpath(path))
    tmp = Path(os.path.realpath("/tmp"))
    for place in hidden_places():
        if place != tmp and real.is_relative_to(place):
            return place
    return None
