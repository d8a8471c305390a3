"""The build hook that keeps Node.js out of installing: the JupyterLab extension ships prebuilt
(``jupyter_agents/labextension/``, committed, and checked current by CI), so it is built with
``jlpm build:prod`` only when that build is missing or, for an editable install, made from
other sources than the tree holds.

"Other sources" is a matter of content, not of commit order: ``jlpm build:prod`` ends by
writing the SHA-256 of what it read (``labextension/source-digest.mjs``, into
``jupyter_agents/labextension/sources.json``), and :func:`source_digest` computes the same
digest of the tree. A change to files the build does not read (the run widget's JavaScript,
tests) never makes the committed build look stale.

hatch-jupyter-builder's ``skip-if-exists`` does not apply to editable installs, which is why
this hook decides instead and calls its ``npm_builder`` only when a build is due.
``SKIP_JUPYTER_BUILDER=1`` skips the build whatever the state, as with hatch-jupyter-builder.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

__all__ = ["BUILT", "DIGEST", "LabExtensionHook", "build_due", "source_digest"]

BUILT = ("jupyter_agents/labextension/package.json", "jupyter_agents/labextension/static/style.js")
"""Files the build makes; the wheel is not made without them."""

DIGEST = "jupyter_agents/labextension/sources.json"
"""Where the build records the digest of the sources it was made from."""

FILES = ("package.json", "yarn.lock", "tsconfig.json", "webpack.config.js")
TREES = (("src", ".ts"), ("style", ""), ("schema", ""))
"""What ``jlpm build:prod`` reads, in ``labextension/``: these files, and in these folders
the files ending so (tsc compiles ``src/**/*.ts``; the widget's ``.js`` is build:widget's)."""


def source_digest(folder: Path) -> str:
    """The SHA-256 of the sources in ``folder`` (``labextension/``) that the build reads, as
    ``source-digest.mjs`` computes it (paths sorted; each path, its length and its text with
    CRLF read as LF)."""
    paths = [name for name in FILES if (folder / name).is_file()]
    for tree, suffix in TREES:
        base = folder / tree
        if base.is_dir():
            paths += [
                p.relative_to(folder).as_posix()
                for p in base.rglob("*")
                if p.is_file() and p.name.endswith(suffix)
            ]
    digest = hashlib.sha256()
    for path in sorted(paths):
        data = (folder / path).read_bytes().replace(b"\r\n", b"\n")
        digest.update(f"{path}\n{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()


def build_due(root: Path, editable: bool) -> str | None:
    """Why the extension must be built before packaging ``root``, or None when the build
    there is current: it exists and, for an editable install of a tree holding the sources,
    it was made from the sources the tree holds (their digest is the one it recorded)."""
    missing = [name for name in BUILT if not (root / name).is_file()]
    if missing:
        return f"{missing[0]} is missing"
    sources = root / "labextension"
    if not editable or not (sources / "package.json").is_file():
        return None  # a wheel, or a tree without the sources: the shipped build is the build
    try:
        recorded = json.loads((root / DIGEST).read_text(encoding="utf-8"))["sources_sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"{DIGEST} is missing or unreadable"
    if recorded != source_digest(sources):
        return "the sources in labextension/ differ from those the committed build was made from"
    return None


class LabExtensionHook(BuildHookInterface):
    """Builds the JupyterLab extension when :func:`build_due` says so."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Build (or not) before the wheel or sdist is made."""
        if self.target_name not in ("wheel", "sdist") or os.environ.get("SKIP_JUPYTER_BUILDER"):
            return
        root = Path(self.root)
        reason = build_due(root, editable=version == "editable")
        if reason is None:
            self.app.display_info("jupyter_agents: the committed JupyterLab extension is current")
            return
        self.app.display_info(f"jupyter_agents: building the JupyterLab extension ({reason})")
        # Imported here: only a build needs it (and Node.js, through jlpm).
        from hatch_jupyter_builder import npm_builder

        npm_builder(
            self.target_name, version, path="labextension", build_cmd="build:prod", npm="jlpm"
        )
        missing = [name for name in BUILT if not (root / name).is_file()]
        if missing:
            raise RuntimeError(f"jlpm build:prod in labextension/ did not make {missing[0]}.")
