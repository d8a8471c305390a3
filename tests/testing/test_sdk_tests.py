"""The harness that runs the OpenAI Agents SDK's tests here (``jupyter_agents.testing.sdk_tests``):
its sorting of test files, its record of outcomes, its share and report, and its alias. The run
itself (a download and the SDK's suite) is CI's step, not a test here."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents.testing import _sdk_report
from jupyter_agents.testing._sdk_classify import Classification, SdkTestFile
from jupyter_agents.testing._sdk_record import Outcome, crash_line
from jupyter_agents.testing.sdk_alias import alias_bootstrap
from jupyter_agents.testing.sdk_tests import _unpack, read_record


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _sdk(tmp_path: Path) -> Path:
    """A tiny source distribution: two documented modules, one private, and tests of each
    kind."""
    _write(
        tmp_path,
        {
            "src/agents/__init__.py": "",
            "src/agents/tool.py": "def _helper(): ...\n",
            "src/agents/run_config.py": "",
            "src/agents/_debug.py": "",
            "src/agents/run_internal/__init__.py": "",
            "src/agents/run_internal/loop.py": "",
            "docs/ref/tool.md": "::: agents.tool\n",
            "docs/ref/loop.md": "::: agents.run_internal.loop\n",
            "docs/running.md": "```python\nfrom agents.run_config import RunConfig\n```\n",
            "docs/ja/running.md": "```python\nfrom agents._debug import x\n```\n",
            "tests/__init__.py": "",
            "tests/helpers.py": "from agents._debug import FLAG\n",
            "tests/clean.py": "from agents import Agent\n",
            "tests/test_public.py": "from agents.tool import function_tool\n"
            "from agents.run_config import RunConfig\nfrom .clean import Agent\n",
            "tests/test_private_module.py": "import agents._debug\n",
            "tests/test_run_internal.py": "from agents.run_internal.loop import step\n",
            "tests/test_private_name.py": "from agents.tool import _helper\n",
            "tests/test_private_attribute.py": "import agents\n\ndef test(x):\n    x._helper()\n",
            "tests/test_own_attribute.py": "import agents\n\nclass A:\n"
            "    def __init__(self):\n        self._helper = 1\n\ndef test(a):\n"
            "    a._helper\n",
            "tests/test_via_helper.py": "import agents\nfrom .helpers import FLAG\n",
            "tests/test_repository.py": "import yaml\n",
        },
    )
    return tmp_path


def test_test_files_are_sorted_by_what_they_import_and_touch(tmp_path: Path) -> None:
    files = Classification.of(_sdk(tmp_path)).test_files()
    kinds = {path: f.kind for path, f in files.items()}
    assert kinds == {
        "test_public.py": "public",
        "test_own_attribute.py": "public",
        "test_private_module.py": "internal",
        "test_run_internal.py": "internal",
        "test_private_name.py": "internal",
        "test_private_attribute.py": "internal",
        "test_via_helper.py": "internal",
        "test_repository.py": "repository",
    }
    assert files["test_private_module.py"].reasons == ("private module agents._debug",)
    assert files["test_run_internal.py"].reasons == (
        "undocumented module agents.run_internal.loop",
    )
    assert files["test_private_name.py"].reasons == ("private name agents.tool._helper",)
    assert files["test_private_attribute.py"].reasons == ("private attribute ._helper",)
    via = files["test_via_helper.py"].reasons
    assert via == ("tests/helpers.py: private module agents._debug",)


def test_a_record_keeps_the_worse_outcome_of_a_test_reported_twice(tmp_path: Path) -> None:
    record = tmp_path / "record.jsonl"
    lines = [
        {"id": "tests/test_a.py::test_x", "outcome": "passed", "why": ""},
        {"id": "tests/test_a.py::test_x", "outcome": "failed", "why": "teardown broke"},
        {"file": "tests/test_b.py", "outcome": "error", "why": "ImportError: no"},
    ]
    record.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert read_record(record) == {
        "tests/test_a.py::test_x": Outcome("failed", "teardown broke"),
        "tests/test_b.py": Outcome("error", "ImportError: no"),
    }
    assert read_record(tmp_path / "missing.jsonl") == {}


def test_a_crash_line_is_the_first_line_of_the_error() -> None:
    class Crash:
        message = "TypeError: nope\nmore"

    class Report:
        reprcrash = Crash()

    assert crash_line(Report()) == "TypeError: nope"
    assert crash_line(("file.py", 3, "Skipped: no redis")) == "Skipped: no redis"
    assert crash_line("def test():\nE   AssertionError: 1 == 2\n") == "AssertionError: 1 == 2"


def test_the_share_counts_baseline_tests_outside_the_missing_features() -> None:
    files = {
        "test_a.py": SdkTestFile("test_a.py", "public"),
        "test_b.py": SdkTestFile("test_b.py", "public"),
        "voice/test_v.py": SdkTestFile("voice/test_v.py", "public"),
        "test_i.py": SdkTestFile("test_i.py", "internal", ("private module agents._debug",)),
    }
    baseline = {
        "files": ["test_a.py", "test_b.py", "voice/test_v.py"],
        "passed": [
            "tests/test_a.py::test_1",
            "tests/test_a.py::test_2",
            "tests/test_a.py::test_3",
            "tests/test_b.py::test_1",
            "tests/voice/test_v.py::test_1",
        ],
    }
    outcomes = {
        "tests/test_a.py::test_1": Outcome("passed"),
        "tests/test_a.py::test_2": Outcome("failed", "TypeError: at 0x7f00aa"),
        "tests/test_a.py::test_3": Outcome("failed", "TypeError: at 0x7f00bb"),
        "tests/test_b.py": Outcome("error", "ImportError: cannot import name 'X'"),
        "tests/voice/test_v.py": Outcome("error", "ModuleNotFoundError: agents.voice"),
    }
    summary = _sdk_report.summarise(files, baseline, outcomes)
    assert summary.share() == 0.25
    assert summary.headline().startswith("1 of 4 (25.0%)")
    assert summary.stale == []
    report = _sdk_report.markdown(summary, "0.24.0")
    assert "| `test_a.py` | 3 | 1 | TypeError: at … (×2) |" in report
    assert "the file does not import: ImportError: cannot import name 'X'" in report
    assert "missing feature: Voice" in report
    assert "`test_a.py::test_2`: TypeError: at 0x7f00aa" in report
    assert "| `test_i.py` | internal | private module agents._debug |" in report


def test_a_test_needing_a_missing_feature_is_left_out_of_its_files_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_sdk_report.MISSING_FEATURE_TESTS, "tests/test_a.py::test_s*", "Sandbox")
    files = {"test_a.py": SdkTestFile("test_a.py", "public")}
    baseline = {
        "files": ["test_a.py"],
        "passed": ["tests/test_a.py::test_1", "tests/test_a.py::test_2", "tests/test_a.py::test_s"],
    }
    outcomes = {
        "tests/test_a.py::test_1": Outcome("passed"),
        "tests/test_a.py::test_2": Outcome("failed", "AssertionError"),
        "tests/test_a.py::test_s": Outcome("failed", "AttributeError: SandboxRuntime"),
    }
    summary = _sdk_report.summarise(files, baseline, outcomes)
    assert summary.share() == 0.5
    assert summary.headline().startswith("1 of 2 (50.0%)") and "(1 of 3 with them)" in (
        summary.headline()
    )
    report = _sdk_report.markdown(summary, "0.24.0")
    assert "| `test_a.py` | 3 | 1 | " in report and "missing feature: Sandbox" in report
    assert "`test_a.py::test_2`: AssertionError" in report
    assert "`test_a.py::test_s`" not in report  # not among the failures outside the features


def test_the_sandbox_placeholder_raises_when_used() -> None:
    from jupyter_agents.testing import _sdk_conftest

    with pytest.raises(NotImplementedError, match="missing feature"):
        _sdk_conftest.SandboxRuntime()
    placeholder: Any = _sdk_conftest.SandboxRuntime
    assert placeholder[None] is placeholder  # the SDK's SandboxRuntime[None] annotations


def test_the_alias_makes_agents_this_project_in_a_new_interpreter(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(alias_bootstrap())
    script = (
        "import agents, agents.tracing, jupyter_agents\n"
        "assert agents.Agent is jupyter_agents.Agent\n"
        "try:\n    import agents.run_internal\nexcept ModuleNotFoundError as e:\n"
        "    print(e)\n"
    )
    env = {"PYTHONPATH": str(tmp_path), "PATH": ""}
    src = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] += f":{src}"
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == (
        "No module named 'agents.run_internal' (agents is jupyter_agents here)"
    )


def test_a_deliberate_difference_names_the_tests_it_fails_by_pattern(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    test = "tests/test_example.py::test_parametrized"
    monkeypatch.setitem(_sdk_report.DIFFERENCES, f"{test}[[]True-*", "a reason")
    assert _sdk_report.difference(f"{test}[True-replace-run-False]") == (
        "deliberate difference: a reason"
    )
    assert _sdk_report.difference(f"{test}[False-replace-run-False]") is None
    assert _sdk_report.difference("tests/test_other.py::test_x") is None


@pytest.mark.parametrize("filters", [True, False], ids=["data-filter", "checked-by-hand"])
def test_the_sdist_unpacks_files_only_inside_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, filters: bool
) -> None:
    if not filters:
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    good, bad = tmp_path / "good.tar.gz", tmp_path / "bad.tar.gz"
    payload = tmp_path / "payload.txt"
    payload.write_text("ok")
    with tarfile.open(good, "w:gz") as tar:
        tar.add(payload, arcname="pkg/tests/conftest.py")
    with tarfile.open(bad, "w:gz") as tar:
        tar.add(payload, arcname="../escaped.txt")
    _unpack(good, tmp_path / "cache")
    assert (tmp_path / "cache" / "pkg" / "tests" / "conftest.py").read_text() == "ok"
    with pytest.raises((RuntimeError, tarfile.TarError)):
        _unpack(bad, tmp_path / "cache")
    assert not (tmp_path / "escaped.txt").exists()
