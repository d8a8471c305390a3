"""The Jupyter server extension (``jupyter_agents/server_extension.py``): ``GET
/jupyter-agents/locks`` answers the site's locks, to an authenticated request only, and
installing the package enables it.

The answer for the site file in ``tests/fixtures/locks/`` is that folder's ``answer.json``,
which the lab extension's tests parse too (``labextension/test/locks.test.ts``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import jupyter_agents
from jupyter_agents.runtime.project.settings import FILE_NAME, site_locks
from jupyter_agents.server_extension import LOCKS_PATH, locks_answer

from .e2e.lab import LabServer, lab_server

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "locks"
SHIPPED = ROOT / "jupyter-config"
"""What the wheel installs into ``{sys.prefix}/etc/jupyter`` (pyproject.toml's shared-data)."""


def expected_answer(site: Path) -> Any:
    text = (FIXTURES / "answer.json").read_text().replace("SITE", str(site))
    return json.loads(text)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A site folder holding the fixture's ``jupyter_agents_config.json``."""
    folder = tmp_path / "site"
    folder.mkdir()
    shutil.copy(FIXTURES / "site.json", folder / FILE_NAME)
    return folder


def test_the_answer_names_each_lock_its_file_and_the_values_still_allowed(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(site))
    answer = locks_answer(site_locks())
    # JSON as sent: Decimal dollars as numbers, lists of names as lists, keys in %agent config's
    # order; "model" has a value but no lock, so it is not there.
    assert json.loads(json.dumps(answer)) == expected_answer(site)
    assert list(answer["locks"]) == list(expected_answer(site)["locks"])


def test_without_locks_the_answer_is_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(tmp_path))
    assert locks_answer(site_locks()) == {"locks": {}}


def test_installing_enables_the_extension_and_the_package_names_its_module() -> None:
    # pyproject.toml's shared-data table (read as text: tomllib is Python 3.11's)
    pyproject = (ROOT / "pyproject.toml").read_text()
    shared = pyproject.split("[tool.hatch.build.targets.wheel.shared-data]")[1].split("\n[")[0]
    source = "jupyter-config/jupyter_server_config.d/jupyter_agents.json"
    assert f'"{source}" = "etc/jupyter/jupyter_server_config.d/jupyter_agents.json"' in shared
    config = json.loads((ROOT / source).read_text())
    assert config == {"ServerApp": {"jpserver_extensions": {"jupyter_agents": True}}}
    points = jupyter_agents._jupyter_server_extension_points()
    assert points == [{"module": "jupyter_agents.server_extension"}]


def test_loading_the_package_does_not_import_the_server_extension() -> None:
    # The kernel side (import jupyter_agents, %load_ext's module) never needs jupyter_server.
    code = (
        "import sys, jupyter_agents, jupyter_agents.notebook.extension; "
        "print(sorted(m for m in sys.modules if m.startswith(('jupyter_server', "
        "'jupyter_agents.server_extension'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


# -- a real Jupyter server -----------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LabServer, Path]]:
    """A Jupyter server whose site is the fixture's, with the extension enabled only by the
    configuration file installing ships (not on its command line)."""
    site = tmp_path_factory.mktemp("site")
    shutil.copy(FIXTURES / "site.json", site / FILE_NAME)
    path = f"{site}:{SHIPPED}"
    with lab_server(app="server", env={"JUPYTER_CONFIG_PATH": path}, server_extension=False) as s:
        yield s, site


def get(server: LabServer, headers: dict[str, str]) -> tuple[int, Any]:
    request = urllib.request.Request(f"{server.base}/{LOCKS_PATH}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, None


def test_the_server_answers_the_sites_locks(server: tuple[LabServer, Path]) -> None:
    lab, site = server
    status, answer = get(lab, {"Authorization": f"token {lab.token}"})
    assert status == 200
    assert answer == expected_answer(site)


def test_the_server_refuses_a_request_without_the_token(server: tuple[LabServer, Path]) -> None:
    lab, _ = server
    assert get(lab, {})[0] == 403
    assert get(lab, {"Authorization": "token not-the-token"})[0] == 403
