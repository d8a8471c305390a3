"""The build hook that keeps Node.js out of installing: the JupyterLab extension ships prebuilt
(``jupyter_agents/labextension/``, committed, and checked current by CI), so it is built with
``jlpm build:prod`` only when that build is missing or, for an editable install from a git
checkout, older than its sources.

hatch-jupyter-builder's ``skip-if-exists`` does not apply to editable installs, which is why
this hook decides instead and calls its ``npm_builder`` only when a build is due.
``SKIP_JUPYTER_BUILDER=1`` skips the build whatever the state, as with hatch-jupyter-builder.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

__all__ = ["BUILT", "SOURCES", "LabExtensionHook", "build_due"]

BUILT = ("jupyter_agents/labextension/package.json", "jupyter_agents/labextension/static/style.js")
"""Files the build makes; the wheel is not made without them."""

SOURCES = (
    "labextension/src",
    "labextension/style",
    "labextension/schema",
    "labextension/package.json",
    "labextension/yarn.lock",
    "labextension/tsconfig.json",
    "labextension/webpack.config.js",
)
"""What ``jlpm build:prod`` reads (tests and the widget bundle's script are left out)."""


def build_due(root: Path, editable: bool) -> str | None:
    """Why the extension must be built before packaging ``root``, or None when the build
    there is current: it exists and, for an editable install in a git checkout, no source
    changed after the last commit of the build (edited, untracked, or committed later)."""
    missing = [name for name in BUILT if not (root / name).is_file()]
    if missing:
        return f"{missing[0]} is missing"
    if not editable:
        return None
    try:
        edited = _git(root, "status", "--porcelain", "--", *SOURCES)
        # The build's last commit; a build never committed counts as made just now.
        built = _git(root, "log", "-1", "--format=%H", "--", "jupyter_agents/labextension")
        built = built or _git(root, "rev-parse", "HEAD")
        later = _git(root, "log", "-1", "--format=%h %s", f"{built}..HEAD", "--", *SOURCES)
    except (OSError, subprocess.CalledProcessError):
        return None  # no git or not a checkout (an sdist): the shipped build is the build
    if edited:
        return f"sources changed since the build: {edited.splitlines()[0].strip()}"
    if later:
        return f"sources committed after the build, in {later}"
    return None


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


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
