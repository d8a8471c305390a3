"""The SDK's tests run here, summed up: the share that passes, and the report
(docs/sdk-tests-report.md) saying per test file how many pass and why the rest do not.

Two tables say what a failing test means, each entry pointing at docs/sdk-compatibility.md:
``MISSING_FEATURES`` (test files about a feature this project does not have: they are
reported, and left out of the share) and ``DIFFERENCES`` (tests that fail because the project
deliberately behaves otherwise: they stay in the share, named with the reason).
"""

from __future__ import annotations

import datetime
import fnmatch
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._sdk_classify import SdkTestFile
from ._sdk_record import Outcome

__all__ = [
    "DIFFERENCES",
    "MISSING_FEATURES",
    "MISSING_FEATURE_TESTS",
    "FileResult",
    "Summary",
    "difference",
    "markdown",
    "summarise",
]

MISSING_FEATURES: dict[str, str] = {
    "realtime/": "Realtime",
    "voice/": "Voice",
    "sandbox/": "the SDK's sandbox agents",
    "extensions/sandbox/": "the SDK's sandbox agents",
    "test_scripted_sandbox.py": "the SDK's sandbox agents",
    "test_daytona_usaspending_example.py": "the SDK's sandbox agents",
    "extensions/experiemental/codex/": "the Codex CLI as a tool (agents.extensions.experimental)",
    "extensions/experimental/": "the hosted multi-agent model (agents.extensions.experimental)",
    "test_dapr_session_example.py": "the Dapr session",
}
"""A test file, or a folder of them (ending in ``/``), -> the feature it tests, one that
docs/sdk-compatibility.md lists among the SDK's features not here."""

_MEMORY_IMPORTS = "tests/extensions/memory/test_memory_imports.py"

MISSING_FEATURE_TESTS: dict[str, str] = {
    # the install hints and names of the SDK's Dapr and MongoDB sessions (not here)
    f"{_MEMORY_IMPORTS}::*[[]*-agents.extensions.memory.dapr_session-*": "the Dapr session",
    f"{_MEMORY_IMPORTS}::*[[]*-agents.extensions.memory.mongodb_session-*": "the MongoDB session",
    # it replaces a method of the SDK's SandboxRuntime (a placeholder here: _sdk_conftest)
    "tests/test_agent_tracing.py::test_task_span_resets_current_span_if_run_setup_fails": (
        "the SDK's sandbox agents"
    ),
}
"""A test id (``fnmatch`` wildcards allowed) in a file otherwise counted -> the missing feature
it needs. Such a test, when it fails, is reported as that feature and left out of the share."""

_INSTRUCTIONS = (
    "Instructions: a function taking other than two arguments is refused when the agent is "
    "made (a UserError that is also a TypeError), not when its prompt is built"
)
_SIGNATURE = "TestInstructionsSignatureValidation"

_RESPONSES_CONVERTER = "tests/models/test_openai_responses_converter.py::"

_COMPUTER = (
    "The computer tool on the Responses API: always the preview form, and no computer factories"
)

_SHELL_CONTAINERS = (
    "ShellTool(environment=...): hosted containers are refused (it runs commands here)"
)

DIFFERENCES: dict[str, str] = {
    **{
        f"{_RESPONSES_CONVERTER}{name}": _COMPUTER
        for name in (
            "test_convert_tool_choice_computer_variants_follow_effective_model",
            "test_convert_tools_accepts_unresolved_computer_initializer[[]*",
            "test_resolve_computer_tool_model_returns_none_when_request_model_is_omitted",
            "test_convert_tools_preview_tool_choice_uses_ga_payload_for_ga_model[[]*",
            "test_convert_tools_prompt_managed_computer_respects_explicit_ga_tool_choice",
        )
    },
    **{
        f"{_RESPONSES_CONVERTER}test_convert_tools_{name}": _SHELL_CONTAINERS
        for name in (
            "shell_container_reference_environment",
            "shell_container_auto_environment",
            "shell_environment_passes_through_unknown_fields",
        )
    },
    f"{_RESPONSES_CONVERTER}test_convert_tool_choice_builtin_shell_and_apply_patch": (
        "ApplyPatchTool: an editor without create_file, update_file and delete_file is refused "
        "when the tool is made"
    ),
    **{
        f"tests/test_agent_instructions_signature.py::{_SIGNATURE}::{name}": _INSTRUCTIONS
        for name in (
            "test_one_parameter_raises_error",
            "test_three_parameters_raises_error",
            "test_zero_parameters_raises_error",
        )
    },
    f"tests/test_agent_instructions_signature.py::{_SIGNATURE}::"
    "test_function_with_args_kwargs_fails": (
        "Instructions: a function taking *args (or **kwargs) can take the two arguments, and is "
        "accepted"
    ),
    "tests/test_tool_output_conversion.py::test_tool_call_output_item_image_with_extra_fields": (
        "ToolOutputImage: a dict with keys beyond the shape is a plain value (str()), not an image"
    ),
    "tests/test_function_tool_decorator.py::"
    "test_tool_exposes_original_callable_without_mutating_it": (
        "FunctionTool: calling the tool calls its function (to try a tool by hand)"
    ),
    "tests/test_strict_schema_oneof.py::test_oneof_merged_with_existing_anyof": (
        "Strict schemas: a schema with both anyOf and oneOf is refused, not merged into one "
        "anyOf (which would accept values the schema does not)"
    ),
    "tests/test_agent_tracing.py::test_not_starting_streaming_creates_trace": (
        "Runner.run_streamed: the run advances as stream_events() is consumed, so a streamed "
        "run nobody iterates does not run (the test waits for is_complete without iterating)"
    ),
    **{
        f"tests/test_runner_model_provider_lifecycle.py::test_run_streamed_{name}": (
            "Runner.run_streamed: the run advances as stream_events() is consumed, so a streamed "
            "run nobody iterates does not start its model call (the test waits for it)"
        )
        for name in (
            "closes_provider_after_cancellation",
            "closes_provider_only_after_run_settles",
            "repeated_cancellation_waits_for_provider_cleanup",
        )
    },
    "tests/test_stream_input_guardrail_timing.py::"
    "test_max_turns_does_not_clobber_input_guardrail_tripwire": (
        "Parallel input guardrails: no tool runs before every input guardrail has answered, "
        "streamed or not (the test's guardrail waits for what only the tools lead to)"
    ),
    "tests/test_agent_as_tool_output_guardrails.py::"
    "test_default_agent_tool_exports_guarded_final_output[[]agent-tool-refusal-False-*": (
        "ModelRefusalError: a plain-text agent's refusal is its answer (raised only for an "
        "agent with an output_type)"
    ),
    "tests/test_agent_runner_sync.py::test_run_sync_errors_when_loop_already_running": (
        "run_sync inside a running event loop (a notebook cell): the run happens on a worker "
        "thread while the caller waits, not a RuntimeError"
    ),
    "tests/tracing/test_logger.py::test_tracing_logger_is_configured": (
        "Logging: the tracing logger is jupyter_agents.tracing, under the project's logger"
    ),
    "tests/test_disabled_trace_provider_flush.py::*": (
        "flush_traces: replacing the module attribute agents.tracing.get_trace_provider does "
        "not change the provider it asks (set_trace_provider does)"
    ),
}
"""A test id (``tests/test_x.py::test_y``, ``fnmatch`` wildcards allowed) -> the deliberate
difference, a row of docs/sdk-compatibility.md's table, that makes it fail here."""


def difference(test_id: str) -> str | None:
    """The deliberate difference that fails ``test_id``, or None."""
    for pattern, reason in DIFFERENCES.items():
        if fnmatch.fnmatchcase(test_id, pattern):
            return f"deliberate difference: {reason}"
    return None


def missing_feature_test(test_id: str) -> str | None:
    """The missing feature the test ``test_id`` of a counted file needs, or None."""
    for pattern, feature in MISSING_FEATURE_TESTS.items():
        if fnmatch.fnmatchcase(test_id, pattern):
            return feature
    return None


def missing_feature(path: str) -> str | None:
    """The missing feature the test file ``path`` (under ``tests/``) is about, or None."""
    for key, feature in MISSING_FEATURES.items():
        if path == key or (key.endswith("/") and path.startswith(key)):
            return feature
    return None


@dataclass
class FileResult:
    """One public test file: its baseline tests and how they did here."""

    path: str
    """Its path under ``tests/``."""
    feature: str | None
    """The missing feature it is about (left out of the share), or None."""
    baseline: int = 0
    """Its tests that pass on the SDK."""
    passed: int = 0
    """Those that pass here too."""
    failures: dict[str, str] = field(default_factory=dict)
    """Each of the others -> why (a ``DIFFERENCES`` reason, or the error it ended with)."""
    missing: int = 0
    """Of its failing baseline tests, those needing a missing feature
    (``MISSING_FEATURE_TESTS``): left out of the share."""

    @property
    def counted_baseline(self) -> int:
        """Its baseline tests that count in the share."""
        return 0 if self.feature is not None else self.baseline - self.missing


@dataclass
class Summary:
    """Every test file sorted, and the public ones' results."""

    files: Mapping[str, SdkTestFile]
    results: list[FileResult]
    stale: list[str] = field(default_factory=list)
    """Public files the baseline does not cover (run ``--baseline`` again)."""

    def counted(self) -> list[FileResult]:
        """The results in the share (not about a missing feature)."""
        return [r for r in self.results if r.feature is None]

    def share(self) -> float:
        """Of the baseline's tests outside the missing features, the share passing here."""
        base = sum(r.counted_baseline for r in self.counted())
        return sum(r.passed for r in self.counted()) / base if base else 0.0

    def headline(self) -> str:
        """One line: the share, and the counts behind it."""
        counted = self.counted()
        passed, base = sum(r.passed for r in counted), sum(r.counted_baseline for r in counted)
        every = sum(r.passed for r in self.results), sum(r.baseline for r in self.results)
        return (
            f"{passed} of {base} ({self.share():.1%}) of the SDK's passing public-API tests pass "
            f"here, outside the missing features ({every[0]} of {every[1]} with them)"
        )


def _test_file(test_id: str) -> str:
    return test_id.split("::", 1)[0].removeprefix("tests/")


def summarise(
    files: Mapping[str, SdkTestFile], baseline: Mapping[str, Any], outcomes: Mapping[str, Outcome]
) -> Summary:
    """Compare the run's ``outcomes`` with the ``baseline`` for every public file."""
    results: dict[str, FileResult] = {
        path: FileResult(path, missing_feature(path))
        for path, test_file in files.items()
        if test_file.kind == "public"
    }
    covered = {f.removeprefix("tests/") for f in baseline.get("files", [])}
    for test_id in baseline.get("passed", []):
        result = results.get(_test_file(test_id))
        if result is None:
            continue
        result.baseline += 1
        outcome = outcomes.get(test_id) or outcomes.get(f"tests/{result.path}")
        if outcome is not None and outcome.outcome == "passed":
            result.passed += 1
        elif (feature := missing_feature_test(test_id)) is not None:
            result.missing += 1
            result.failures[test_id] = f"missing feature: {feature}"
        else:
            result.failures[test_id] = difference(test_id) or _why(outcome)
    stale = sorted(p for p in results if p not in covered)
    return Summary(files, sorted(results.values(), key=lambda r: r.path), stale)


_CHECKOUT = str(Path(__file__).resolve().parents[2]) + "/"
"""This checkout's folder, left out of the report's messages (they name the project's files)."""


def _why(outcome: Outcome | None) -> str:
    if outcome is None:
        return "not run (not collected here)"
    if outcome.outcome == "error":
        return f"the file does not import: {outcome.why}".replace(_CHECKOUT, "")
    return (outcome.why or outcome.outcome).replace(_CHECKOUT, "")


_ADDRESS = re.compile(r"0x[0-9a-f]+|\b\d{3,}\b")


def _group(failures: Mapping[str, str]) -> list[tuple[str, int]]:
    """The reasons of a file's failures, most frequent first (addresses and numbers folded)."""
    counts = Counter(_ADDRESS.sub("…", why) for why in failures.values())
    return counts.most_common()


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _file_rows(summary: Summary) -> list[str]:
    rows = [
        "| Test file | Pass on the SDK | Pass here | Why the rest do not |",
        "| --- | ---: | ---: | --- |",
    ]
    for result in summary.results:
        reasons = "; ".join(
            f"{_cell(why)} (×{n})" if n > 1 else _cell(why) for why, n in _group(result.failures)
        )
        if result.feature is not None:
            reasons = f"missing feature: {result.feature}" + (f". {reasons}" if reasons else "")
        rows.append(f"| `{result.path}` | {result.baseline} | {result.passed} | {reasons} |")
    return rows


def _failure_rows(summary: Summary) -> list[str]:
    rows = []
    for result in summary.counted():
        for test_id, why in sorted(result.failures.items()):
            if missing_feature_test(test_id) is not None:
                continue
            rows.append(f"- `{test_id.removeprefix('tests/')}`: {_cell(why)}")
    return rows or ["None."]


def _other_rows(summary: Summary) -> list[str]:
    rows = ["| Test file | Kind | Why |", "| --- | --- | --- |"]
    for path, test_file in sorted(summary.files.items()):
        if test_file.kind == "public":
            continue
        why = "; ".join(test_file.reasons[:3]) + ("; …" if len(test_file.reasons) > 3 else "")
        if test_file.kind == "repository":
            why = "tests the SDK's repository (scripts, workflows, docs tooling), not its API"
        rows.append(f"| `{path}` | {test_file.kind} | {_cell(why)} |")
    return rows


def _counts(summary: Summary) -> str:
    kinds = Counter(f.kind for f in summary.files.values())
    return (
        f"The SDK's `tests/` has {len(summary.files)} test files: {kinds['public']} public-API, "
        f"{kinds['internal']} internal and {kinds['repository']} about its repository."
    )


def markdown(summary: Summary, version: str) -> str:
    """The report, as Markdown."""
    today = datetime.date.today().isoformat()
    lines = [
        "# The SDK's own tests, run here",
        "",
        f"Generated on {today} by `python -m jupyter_agents.testing.sdk_tests --report "
        f"docs/sdk-tests-report.md` from the tests of `openai-agents` {version}, with `agents` "
        "imported as `jupyter_agents`. See [Compatibility with the OpenAI Agents "
        "SDK](sdk-compatibility.md#the-sdks-own-tests) for how the files are sorted and counted.",
        "",
        f"**{summary.headline()}.**",
        "",
        _counts(summary),
        "",
        "## Public-API test files",
        "",
        *_file_rows(summary),
        "",
        "## Each test that does not pass (outside the missing features)",
        "",
        *_failure_rows(summary),
        "",
        "## Internal and repository test files (not run)",
        "",
        *_other_rows(summary),
        "",
    ]
    if summary.stale:
        lines += ["Not in the baseline (run `--baseline`): " + ", ".join(summary.stale), ""]
    return "\n".join(lines)
