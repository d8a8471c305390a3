"""``Cassette``: the recordings of agent runs, to replay them without the model.

A recording is one run: the identity of each model request in order with the model's reply
(output items, usage), each tool call's output as the model got it, and each approval decision
(who decided is the person at the keyboard: when, approved or not, edited arguments). Secrets
never enter it: request headers and keys are not part of a request's identity, and the fields
kept to explain a change pass the tracing redaction.

A recording is data, never a decision: each one this person's runtime makes is signed
(``.signing``); an unsigned or changed one is someone else's, and replay uses it for the
model's replies and tools' outputs only, never for an approval, a rejection, edited arguments
or a guardrail result (``Cassette.owns``).

Modes (``RunConfig(replay=Cassette(path, mode=...))``):

``record``
    every request goes to the model; the runs are recorded (replacing older recordings of the
    same inputs).
``replay`` / ``auto``
    a run whose first request matches a recording replays it: no model call, and tool calls
    answered from the recording (``replay_tools="run"`` runs them again and flags outputs
    that differ); anything else runs live and is recorded. (In notebooks ``auto`` replays only
    when the notebook runs unattended; outside them it is ``replay``.)
``strict``
    as ``replay``, but a request with no matching recording raises ``ReplayMismatch``
    saying what changed, instead of calling the model (for CI).
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import UserError
from ..inflate import inflate_gzip
from . import signing

__all__ = [
    "FORMAT_VERSION",
    "MAX_PACKED_BYTES",
    "NO_RECORDING",
    "Cassette",
    "ReplayMismatch",
    "ReplayMode",
]

FORMAT_VERSION = 1

NO_RECORDING = "no recording"
"""What ``changed`` says when there was no recording to compare with (a first run)."""

MAX_PACKED_BYTES = 8 * 1024 * 1024
"""The most a packed cassette (a notebook cell's) inflates to, as for saved runs: a small
crafted cell can inflate to gigabytes."""

ReplayMode = Literal["record", "replay", "auto", "strict"]
MODES: tuple[str, ...] = ("record", "replay", "auto", "strict")


class ReplayMismatch(UserError):
    """A strict replay met a request it has no recording for (its message says what changed)."""


@dataclass
class Cassette:
    """Recorded runs, in memory and (with ``path``) in a JSON file written when a run ends."""

    path: str | os.PathLike[str] | None = None
    """The file (created when missing; read when it exists)."""

    mode: ReplayMode = "auto"
    """See the module docstring."""

    replay_tools: Literal["recorded", "run"] = "recorded"
    """``recorded``: a replayed run's tool calls are answered from the recording, not run;
    ``run``: they run again, and an output that differs from the recording is reported."""

    runs: list[dict[str, Any]] = field(default_factory=list)
    """The recordings (JSON objects; see ``.run_replay`` for their fields)."""

    last: dict[str, Any] | None = field(default=None, repr=False)
    """What the last finished run did: ``replayed`` (it followed a recording to the end),
    ``replayed_calls``, ``changed`` (what differed from the nearest recording, when it ran
    live) and ``differences`` (tool outputs that differ, with ``replay_tools="run"``)."""

    used: list[dict[str, Any]] = field(default_factory=list, repr=False)
    """The recordings the runs of this cassette replayed or made (a notebook cell keeps only
    these: its latest run's)."""

    interrupted: frozenset[str] | None = None
    """Set on a cassette that resumes a run cut off by a crash (``runtime/durable``): the call
    ids that were running when it stopped. Their outcome is unknown, so they are never
    answered from the recording: the person is asked whether each runs again. Every finished
    call is answered from the recording, whatever its tool's ``replay`` says."""
    trusted: bool = False
    """Whether every recording here counts as the person's own, signed or not (a notebook
    Jupyter's notary says they trust). Otherwise only recordings signed with the person's
    secret are (``.signing``): the others are data, never decisions."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise UserError(f"Cassette mode must be one of {', '.join(MODES)}, not {self.mode!r}.")
        if self.replay_tools not in ("recorded", "run"):
            raise UserError("Cassette replay_tools must be 'recorded' or 'run'.")
        self._taken: dict[str, int] = {}
        self._own: dict[int, tuple[dict[str, Any], bool]] = {}
        """Whether each recording (by ``id``, with the recording itself, so a new object
        at a reused address is checked afresh) is signed by the person."""
        if self.path is not None and not self.runs and Path(self.path).is_file():
            self.runs = _runs_of(json.loads(Path(self.path).read_text(encoding="utf-8")))

    # -- lookup ----------------------------------------------------------------------------

    def find(self, key: str) -> dict[str, Any] | None:
        """The next recording of a run whose first request has identity ``key`` (runs with the
        same inputs replay their recordings in order)."""
        matching = [run for run in self.runs if run.get("key") == key]
        taken = self._taken.get(key, 0)
        if taken >= len(matching):
            return None
        self._taken[key] = taken + 1
        self._use(matching[taken])
        return matching[taken]

    def owns(self, recording: dict[str, Any]) -> bool:
        """Whether ``recording`` is the person's own (their decisions may be used again), not
        someone else's (data only)."""
        if self.trusted:
            return True
        known = self._own.get(id(recording))
        if known is None or known[0] is not recording:
            known = self._own[id(recording)] = (recording, signing.is_signed(recording))
        return known[1]

    def nearest(self) -> dict[str, Any] | None:
        """The recording a changed run most likely stands for (the latest), to say what
        changed."""
        return self.runs[-1] if self.runs else None

    def keep(self, recording: dict[str, Any], replaces: dict[str, Any] | None) -> None:
        """Add a run's recording (in place of ``replaces``, the one it was replaying), signed
        as the person's own."""
        signing.sign(recording)
        self._own[id(recording)] = (recording, True)
        if replaces is not None and any(r is replaces for r in self.runs):
            self.runs[next(i for i, r in enumerate(self.runs) if r is replaces)] = recording
        else:
            self.runs.append(recording)
        self.used = [r for r in self.used if r is not replaces]
        self._use(recording)
        self.save()

    def _use(self, recording: dict[str, Any]) -> None:
        if not any(r is recording for r in self.used):
            self.used.append(recording)

    # -- storage ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"version": FORMAT_VERSION, "runs": self.runs}

    def save(self) -> None:
        """Write the file (atomically), when there is one."""
        if self.path is None:
            return
        target = Path(self.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))
        handle, temporary = tempfile.mkstemp(prefix=".cassette-", dir=target.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def pack(self) -> str:
        """The recordings as gzip + base64 text (what a notebook cell keeps)."""
        raw = json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))
        return base64.b64encode(gzip.compress(raw.encode("utf-8"), mtime=0)).decode("ascii")

    @classmethod
    def unpack(cls, text: str, **options: Any) -> Cassette:
        """A cassette from ``pack``'s text (a malformed one, or one that inflates past
        ``MAX_PACKED_BYTES``, is a ``UserError``)."""
        if not isinstance(text, str) or len(text) > 2 * MAX_PACKED_BYTES:
            raise UserError("Not a packed cassette: not text, or too large.")
        try:
            raw = inflate_gzip(base64.b64decode(text, validate=True), MAX_PACKED_BYTES, "it")
            data = json.loads(raw)
        except (ValueError, binascii.Error, RecursionError) as e:
            raise UserError(f"Not a packed cassette: {e}") from None
        return cls(runs=_runs_of(data), **options)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)


def _runs_of(data: Any) -> list[dict[str, Any]]:
    if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
        raise UserError(f"Not a cassette of version {FORMAT_VERSION}.")
    runs = data.get("runs")
    if not isinstance(runs, list):
        raise UserError("A cassette needs a list of runs.")
    return [r for r in runs if isinstance(r, dict) and isinstance(r.get("key"), str)]
