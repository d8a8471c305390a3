"""Import ``agents`` as ``jupyter_agents``: code written for the OpenAI Agents SDK, run here.

``install()`` puts a finder first on ``sys.meta_path`` that answers ``import agents`` with the
module ``jupyter_agents`` and ``import agents.X.Y`` with ``jupyter_agents.X.Y`` (the very module
objects, so ``agents.Agent is jupyter_agents.Agent``). A path this project does not have fails
to import, as a missing module does, even where the real SDK is installed.

The module imports nothing of the project, so a ``sitecustomize.py`` can load it by its file
path (``alias_bootstrap``) and put the alias in place in every interpreter a test starts, before
anything imports ``agents``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

__all__ = ["AgentsAlias", "alias_bootstrap", "install"]

SDK = "agents"
HERE = "jupyter_agents"


class AgentsAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The finder (and loader) behind ``install()``."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != SDK and not fullname.startswith(SDK + "."):
            return None
        try:
            real = importlib.import_module(HERE + fullname[len(SDK) :])
        except ModuleNotFoundError as missing:
            if missing.name is not None and not missing.name.startswith(HERE):
                raise  # the module exists here but needs a package that is not installed
            raise ModuleNotFoundError(
                f"No module named {fullname!r} (agents is jupyter_agents here)", name=fullname
            ) from None
        spec = importlib.util.spec_from_loader(fullname, self, is_package=hasattr(real, "__path__"))
        if spec is not None:
            spec.loader_state = real
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        real: ModuleType = spec.loader_state
        return real

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module is the project's, already imported."""


def install() -> None:
    """Put the alias first on ``sys.meta_path`` (once), forgetting any ``agents`` modules
    already imported."""
    if any(isinstance(finder, AgentsAlias) for finder in sys.meta_path):
        return
    for name in [n for n in sys.modules if n == SDK or n.startswith(SDK + ".")]:
        del sys.modules[name]
    sys.meta_path.insert(0, AgentsAlias())


def alias_bootstrap() -> str:
    """The text of a ``sitecustomize.py`` that installs the alias in a new interpreter."""
    return (
        "import importlib.util as _u\n"
        f"_s = _u.spec_from_file_location('_jupyter_agents_sdk_alias', {str(Path(__file__))!r})\n"
        "_m = _u.module_from_spec(_s)\n"
        "_s.loader.exec_module(_m)\n"
        "_m.install()\n"
    )
