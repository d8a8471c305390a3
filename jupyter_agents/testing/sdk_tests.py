"""Run the OpenAI Agents SDK's own unit tests on jupyter_agents: the compatibility measure of
docs/sdk-compatibility.md.

``python -m jupyter_agents.testing.sdk_tests`` downloads the SDK's source distribution of the
pinned release (``pip download``, checked against its SHA-256), sorts its test files into
public-API, internal and repository tests (``_sdk_classify``), and runs the public ones with
pytest, ``agents`` imported as ``jupyter_agents`` (``sdk_alias``, in every interpreter the
tests start) and the SDK's ``tests/conftest.py`` replaced by ``_sdk_conftest``. Each test's
outcome is compared with the baseline: the tests that pass on the SDK itself
(``sdk_tests_baseline.json``, made by ``--baseline`` with the real SDK installed).

``--report docs/sdk-tests-report.md`` writes the report; ``--check`` fails (exit status 1) when
the share of the baseline's tests that pass here, outside the features the project does not
have, is below ``MIN_SHARE``. The packages the SDK's tests use and this project's test extra
does not bring (``SDK_TEST_PACKAGES``) are installed into the cache folder, not the
environment. Nothing else is downloaded, and the tests run offline (``network_guard``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from . import _sdk_report
from ._sdk_classify import Classification, SdkTestFile
from ._sdk_record import RECORD_ENV, Outcome
from .sdk_alias import alias_bootstrap

__all__ = [
    "MIN_SHARE",
    "SDK_VERSION",
    "Outcome",
    "fetch_sdk",
    "load_baseline",
    "main",
    "read_record",
    "run_tests",
]

SDK_VERSION = "0.24.0"
"""The SDK release whose tests are run (the one docs/sdk-compatibility.md follows)."""

SDIST_SHA256 = "4b4b285f4fed81fdf1b4ac426a9101658d9cd29b4fb1aaeee18f639b77e704e3"
"""The SHA-256 of ``openai_agents-0.24.0.tar.gz`` as PyPI serves it."""

SDK_TEST_PACKAGES = (
    "inline-snapshot==0.36.1",
    "pytest-mock==3.17.0",
    "fakeredis==2.41.0",
    "graphviz==0.21",
    "fastapi==0.165.0",
    "annotated-doc==0.0.7",
)
"""What the SDK's tests import beyond this project's test extra (installed without their
dependencies, which the test extra brings)."""

MIN_SHARE = 0.94
"""The share of the baseline's tests (outside the missing features) that must pass here:
``--check`` fails below it. Raise it as the share grows; never lower it to pass."""

BASELINE = Path(__file__).with_name("sdk_tests_baseline.json")

TEST_TIMEOUT = 60
"""Seconds a single SDK test may run (pytest-timeout) before it counts as failed."""


def cache_dir() -> Path:
    """Where the download and the extra packages are kept (``JUPYTER_AGENTS_SDK_CACHE``)."""
    default = Path.home() / ".cache" / "jupyter_agents" / "sdk-tests"
    return Path(os.environ.get("JUPYTER_AGENTS_SDK_CACHE") or default)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as data:
        for block in iter(lambda: data.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_sdk(cache: Path) -> Path:
    """The SDK's source distribution, unpacked under ``cache`` (downloaded once, checked)."""
    name = f"openai_agents-{SDK_VERSION}"
    unpacked = cache / name
    if (unpacked / "tests" / "conftest.py").is_file():
        return unpacked
    cache.mkdir(parents=True, exist_ok=True)
    archive = cache / f"{name}.tar.gz"
    if not archive.is_file():
        pip = [sys.executable, "-m", "pip", "download", f"openai-agents=={SDK_VERSION}"]
        options = ["--no-binary", ":all:", "--no-deps", "--dest", str(cache)]
        subprocess.run([*pip, *options], check=True)
    if _sha256(archive) != SDIST_SHA256:
        archive.unlink()
        raise RuntimeError(f"{archive.name} does not have the expected SHA-256; removed it")
    _unpack(archive, cache)
    return unpacked


def _unpack(archive: Path, into: Path) -> None:
    """Extract ``archive``: regular files and folders only, each inside ``into`` (the
    ``data`` filter where this Python has it, the same check by hand where it does not)."""
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
            return
        root = into.resolve()
        for member in tar.getmembers():
            target = (into / member.name).resolve()
            if not (member.isfile() or member.isdir()) or not target.is_relative_to(root):
                raise RuntimeError(f"{archive.name}: refusing to extract {member.name!r}")
        tar.extractall(into)  # every member checked just above


def install_test_packages(cache: Path) -> Path:
    """A folder holding ``SDK_TEST_PACKAGES`` (installed there once)."""
    target = cache / "packages"
    stamp = target / ".installed"
    wanted = "\n".join(SDK_TEST_PACKAGES)
    if stamp.is_file() and stamp.read_text() == wanted:
        return target
    shutil.rmtree(target, ignore_errors=True)
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target"]
    subprocess.run([*pip, str(target), *SDK_TEST_PACKAGES], check=True)
    stamp.write_text(wanted)
    return target


def _workspace(sdk: Path, work: Path, alias: bool) -> None:
    """A copy of the SDK's tests, examples and docs (never its source) in ``work``; with the
    alias, its conftest replaced and a ``sitecustomize`` that installs the alias."""
    for part in ("tests", "examples", "docs"):
        shutil.copytree(sdk / part, work / part, symlinks=True)
    shutil.copy2(sdk / "pyproject.toml", work / "pyproject.toml")
    if alias:
        (work / "tests" / "conftest.py").write_text(
            '"""Replaced: jupyter_agents.testing._sdk_conftest does its work."""\n'
        )
        (work / "_alias").mkdir()
        (work / "_alias" / "sitecustomize.py").write_text(alias_bootstrap())


def _command(files: list[str], alias: bool, workers: int) -> list[str]:
    plugins = ["-p", "jupyter_agents.testing._sdk_record"]
    if alias:
        plugins += ["-p", "jupyter_agents.testing._sdk_conftest"]
    parallel = ["-n", str(workers)] if workers > 1 else ["-p", "no:xdist"]
    # a file that does not import is a result to report, not a reason to stop (xdist goes on
    # by itself; one process needs telling)
    options = ["-q", "-p", "no:cacheprovider", "--continue-on-collection-errors"]
    options += [f"--timeout={TEST_TIMEOUT}"]
    options += ["--inline-snapshot=disable", "-W", "ignore::DeprecationWarning"]
    return [sys.executable, "-m", "pytest", *plugins, *parallel, *options, *files]


def run_tests(
    sdk: Path, files: list[str], *, alias: bool, packages: Path, workers: int = 2
) -> dict[str, Outcome]:
    """Run the SDK's test files ``files`` (paths under ``tests/``); with ``alias``, on this
    project, else on the SDK installed. Each test id -> its outcome; a file that did not
    import is one id, the file's path, with outcome ``error``."""
    with tempfile.TemporaryDirectory(prefix="sdk-tests-") as temporary:
        work = Path(temporary)
        _workspace(sdk, work, alias)
        record = work / "record.jsonl"
        # The alias first, so that it is in place before anything imports agents.
        paths = [str(work / "_alias")] if alias else []
        paths += [str(packages), os.environ.get("PYTHONPATH", "")]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
        env[RECORD_ENV] = str(record)
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PYTEST_ADDOPTS"):
            env.pop(name, None)
        targets = [f"tests/{f}" for f in files]
        subprocess.run(_command(targets, alias, workers), cwd=work, env=env, check=False)
        return read_record(record)


_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}


def read_record(record: Path) -> dict[str, Outcome]:
    """The outcomes a ``_sdk_record`` file holds (a test reported twice keeps the worse)."""
    outcomes: dict[str, Outcome] = {}
    if not record.is_file():
        return outcomes
    for line in record.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        key = entry.get("id") or entry["file"]
        new = Outcome(entry["outcome"], entry.get("why", ""))
        old = outcomes.get(key)
        if old is None or _RANK.get(new.outcome, 3) > _RANK.get(old.outcome, 3):
            outcomes[key] = new
    return outcomes


def load_baseline(path: Path = BASELINE) -> dict[str, list[str]]:
    """The baseline: ``{"files": [...], "passed": [...]}``, the public files run on the SDK
    and the test ids that passed there."""
    if not path.is_file():
        return {"files": [], "passed": []}
    data: dict[str, list[str]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def save_baseline(files: list[str], outcomes: dict[str, Outcome], path: Path = BASELINE) -> None:
    """Write the baseline from a run on the SDK itself."""
    passed = sorted(k for k, o in outcomes.items() if o.outcome == "passed")
    data = {"sdk": [SDK_VERSION], "files": sorted(files), "passed": passed}
    path.write_text(json.dumps(data, indent=0) + "\n", encoding="utf-8")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m jupyter_agents.testing.sdk_tests")
    parser.add_argument("--sdk", type=Path, help="an unpacked sdist (default: download it)")
    parser.add_argument("--baseline", action="store_true", help="run on the real SDK instead")
    parser.add_argument("--report", type=Path, help="write the Markdown report there")
    parser.add_argument("--check", action="store_true", help="fail below MIN_SHARE")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers")
    parser.add_argument("files", nargs="*", help="only these test files (under tests/)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    cache = cache_dir()
    sdk: Path = args.sdk or fetch_sdk(cache)
    packages = install_test_packages(cache)
    sorted_files = Classification.of(sdk).test_files()
    public = [p for p, f in sorted_files.items() if f.kind == "public"]
    chosen = args.files or public
    if args.baseline:
        outcomes = run_tests(sdk, chosen, alias=False, packages=packages, workers=args.workers)
        save_baseline(chosen, outcomes)
        print(f"baseline: {sum(o.outcome == 'passed' for o in outcomes.values())} passed")
        return 0
    outcomes = run_tests(sdk, chosen, alias=True, packages=packages, workers=args.workers)
    return _conclude(args, sorted_files, outcomes)


def _conclude(
    args: argparse.Namespace, sorted_files: dict[str, SdkTestFile], outcomes: dict[str, Outcome]
) -> int:
    summary = _sdk_report.summarise(sorted_files, load_baseline(), outcomes)
    print(summary.headline())
    if args.report is not None:
        args.report.write_text(_sdk_report.markdown(summary, SDK_VERSION), encoding="utf-8")
    if args.check and summary.share() < MIN_SHARE:
        print(f"below the pinned minimum share {MIN_SHARE:.1%}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
