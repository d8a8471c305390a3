"""One run's side of a ``Cassette``: it records the run, or replays a recording
of it, deciding at the run's first model request (its identity finds the recording).

A recording (JSON) holds ``key`` (the first request's identity), ``first`` (that request's
fields, redacted: what a changed run is compared with), ``calls`` (per model request in order:
``id``, the reply's ``output`` items, ``usage``, ``response_id``), ``tools`` (per call id: the
output item the model got, ``shown`` (the tool's value, as text when it is not plain data),
``display`` (the card: the kind's parts, badge, origin), ``printed`` (what it printed while it
ran), status), ``approvals`` (per call id: the decision, when it was made) and, for a batch's
rows, ``row`` (the row's key: a row replays its own recording first).

While replaying, every request must match the recorded one at its place; the first that does
not ends the replay (the rest of the run goes live and the run is recorded again), or, strict,
raises ``ReplayMismatch``.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from pydantic import TypeAdapter

from ..approvals import ApprovalDecision
from ..errors import InputGuardrailTripwireTriggered
from ..guardrails import GuardrailFunctionOutput
from ..items import ModelResponse, TResponseStreamEvent
from ..models._responses_build import EventSequence, build_response
from ..models.interface import Model, ModelRequest, RequestModel
from ..models.usage import usage_from_openai
from ..tools.capabilities import ToolCapabilities
from ..tools.display import ToolDisplay
from ..tracing.redact import redact_secrets
from ..usage import InputTokensDetails, OutputTokensDetails, Usage
from .cassette import NO_RECORDING, Cassette, ReplayMismatch
from .identity import changes, plain, request_identity, value_identity
from .recorded import PRINTED_CHARS, RecordedOutput, display_from_json, display_to_json

__all__ = ["NO_RECORDING", "RecordedOutput", "ReplayModel", "RunReplay"]


class _Result(Protocol):
    output: GuardrailFunctionOutput


_Checked = TypeVar("_Checked", bound=_Result)
"""A guardrail's result (input or output): its ``output`` is what the function returned."""


@dataclass
class _Provisional:
    """An input guardrail result taken from a recording before the run's was known."""

    digest: str
    source: dict[str, Any]
    check: Callable[[], Awaitable[Any]]
    result: Any


CHUNK = 48
"""Characters per text delta when a recorded reply is streamed again."""


class RunReplay:
    """Records one run into a cassette, or replays its recording."""

    def __init__(self, cassette: Cassette) -> None:
        self.cassette = cassette
        self.recording: dict[str, Any] | None = None
        """The recording being replayed (None: the run is live)."""
        self.live = False
        self.started = False
        self.position = 0
        self.replayed_calls = 0
        self.changed: list[str] = []
        """What differs from the nearest recording, when this run is not replayed."""
        self.differences: list[str] = []
        """Tool outputs that differ from the recording (``replay_tools="run"``)."""
        self.new: dict[str, Any] = {"calls": [], "tools": {}, "approvals": {}}
        self.printed: dict[str, str] = {}
        """What each call printed while it ran, by call id (see ``tee``)."""
        self.journal: Callable[[str, str, Any], None] | None = None
        """Told of each step as it is recorded (``kind``, key, entry): a durable run's journal
        (``runtime/durable``) saves it at once."""
        self.provisional: list[_Provisional] = []
        """Input guardrail results taken from a recording before the run's recording was
        known (input guardrails run before the first model request): checked live at that
        request unless that recording is the one replayed (``settle``)."""

    @property
    def own(self) -> bool:
        """Whether the recording replayed is the person's own (their decisions may be used
        again); someone else's is data, never decisions."""
        return self.recording is not None and self.cassette.owns(self.recording)

    @property
    def replaying(self) -> bool:
        """Whether the run follows its recording now."""
        return self.recording is not None and not self.live

    def model(self, inner: Model) -> Model:
        """``inner`` behind this replay."""
        return ReplayModel(inner, self)

    # -- model requests --------------------------------------------------------------------

    def take(self, digest: str, fields: dict[str, Any]) -> dict[str, Any] | None:
        """The recorded reply to this request, or None to ask the model."""
        if not self.started:
            self._begin(digest, fields)
        if not self.replaying:
            return None
        assert self.recording is not None
        calls = self.recording.get("calls") or []
        call: dict[str, Any] | None = calls[self.position] if self.position < len(calls) else None
        if call is not None and call.get("id") != digest and self.cassette.replay_tools == "run":
            # the tools ran again and answered differently: the replies still replay
            self.differences.append(f"model request {self.position + 1} saw other tool outputs")
        elif call is not None and call.get("id") != digest:
            call = None
        if call is not None:
            self.position += 1
            self.replayed_calls += 1
            self.new["calls"].append({**call, "id": digest})  # a complete recording either way
            self._note("call", digest, {k: v for k, v in call.items() if k != "id"})
            return call
        what = f"model request {self.position + 1} of the run is not the recorded one"
        if self.cassette.mode == "strict":
            raise ReplayMismatch(f"The run no longer matches its recording: {what}.")
        self.live = True
        self.changed.append(what)
        return None

    def _begin(self, digest: str, fields: dict[str, Any]) -> None:
        self.started = True
        self.new.update(key=digest, first=fields, recorded_at=time.time())  # fields: redacted
        self._note("begin", digest, {"first": fields})
        self.recording = self.cassette.find(digest)
        if self.cassette.mode == "record":  # live; its recording replaces the old one
            self.live = True
            return
        if self.recording is not None:
            return
        nearest = self.cassette.nearest()
        first = nearest.get("first") if nearest is not None else None
        self.changed = changes(first, fields) if isinstance(first, dict) else [NO_RECORDING]
        if self.cassette.interrupted is not None:  # live now would run finished calls again
            raise ReplayMismatch(
                "This run cannot be resumed: it starts differently from the run that was cut off ("
                + "; ".join(self.changed or [NO_RECORDING])
                + "). Define its tools, instructions and model as they were, then resume again."
            )
        if self.cassette.mode == "strict":
            raise ReplayMismatch(
                "No recording of this run: it changed since it was recorded ("
                + "; ".join(self.changed or [NO_RECORDING])
                + "). Record it again (mode='record') or let it run live (mode='auto')."
            )
        self.live = True

    def record_call(self, digest: str, response: ModelResponse) -> None:
        entry = {
            "output": redact_secrets([_dump(item) for item in response.output]),
            "usage": response.usage.totals(),
            "response_id": response.response_id,
        }
        self.new["calls"].append({"id": digest, **entry})
        self._note("call", digest, entry)

    def _note(self, kind: str, key: str, entry: Any) -> None:
        if self.journal is not None:
            self.journal(kind, key, entry)

    def call_started(self, call_id: str) -> None:
        """Call ``call_id`` starts running (a durable run's journal marks it)."""
        self._note("started", call_id, None)

    def outcome_unknown(self, call_id: str) -> bool:
        """Whether call ``call_id`` was running when the run this one resumes was cut off: it
        may or may not have done its work, so a person decides whether it runs again."""
        interrupted = self.cassette.interrupted
        return self.replaying and interrupted is not None and call_id in interrupted

    # -- tool calls and approvals ------------------------------------------------------------

    def tee(self, sink: Callable[[str, str], None] | None) -> Callable[[str, str], None]:
        """A ``tool_output_sink`` that keeps what calls print for the recording, then passes
        it on to ``sink``."""

        def keep(call_id: str, text: str) -> None:
            self.printed[call_id] = (self.printed.get(call_id, "") + text)[-PRINTED_CHARS:]
            if sink is not None:
                sink(call_id, text)

        return keep

    def recorded_output(
        self, call_id: str, tool: ToolCapabilities | None = None
    ) -> RecordedOutput | None:
        """A replayed call's recorded output, unless its tool runs again: as the tool says
        (its ``replay``: ``"run"`` or ``"recorded"``), else as the cassette does."""
        if not self.replaying:
            return None
        policy = tool.replay if tool is not None else None
        resuming = self.cassette.interrupted is not None  # a finished call never runs again
        if not resuming and (policy or self.cassette.replay_tools) == "run":
            return None
        entry = self._recorded("tools", call_id)
        if entry is None or not isinstance(entry.get("item"), dict):
            return None
        printed = entry.get("printed")
        return RecordedOutput(
            entry["item"],
            entry.get("shown"),
            display_from_json(entry.get("display")),
            printed[-PRINTED_CHARS:] if isinstance(printed, str) else "",
        )

    def record_output(
        self,
        call_id: str,
        item: dict[str, Any],
        shown: Any,
        status: str,
        display: ToolDisplay | None = None,
    ) -> None:
        """Keep a call's output: the item the model got, what it showed (``display``, the
        card) and printed."""
        shown = shown if isinstance(shown, (str, int, float, bool, type(None))) else repr(shown)
        entry = {"item": redact_secrets(item), "shown": redact_secrets(shown), "status": status}
        if display is not None:
            entry["display"] = redact_secrets(display_to_json(display))
        if self.printed.get(call_id):
            entry["printed"] = redact_secrets(self.printed[call_id])
        self.new["tools"][call_id] = entry
        self._note("tool", call_id, entry)
        recorded = self._recorded("tools", call_id) if self.replaying else None
        if recorded is not None and recorded.get("item") != entry["item"]:
            self.differences.append(f"{call_id}: the tool's output differs from the recording")

    def recorded_decision(self, call_id: str) -> ApprovalDecision | None:
        """The person's own decision recorded for a replayed call, to decide it again as they
        did: None unless the recording replayed is theirs (``own``) and they made that
        decision themselves (not one carried over from someone else's recording)."""
        if not self.replaying or not self.own:
            return None
        entry = self._recorded("approvals", call_id)
        if entry is None or entry.get("foreign") is True:
            return None
        return _decision_of(entry)

    def shown_decision(self, call_id: str) -> ApprovalDecision | None:
        """The decision recorded for a call answered from the recording (it does not run):
        shown on its card as recorded, whoever made it."""
        entry = self._recorded("approvals", call_id) if self.replaying else None
        return None if entry is None else _decision_of(entry)

    def record_decision(
        self, call_id: str, decision: ApprovalDecision, *, shown: bool = False
    ) -> None:
        """Keep a call's decision. ``shown``: taken from the recording replayed, for a call
        that did not run; marked ``foreign`` when that recording is someone else's, so it is
        never used as a decision, even once this run's recording is signed as the person's."""
        entry: dict[str, Any] = {
            "approved": decision.approved,
            "always": decision.always,
            "message": decision.message,
            "arguments": redact_secrets(decision.arguments),
            "at": time.time(),
        }
        if shown and not self.own:
            entry["foreign"] = True
        self.new["approvals"][call_id] = entry
        self._note("approval", call_id, entry)

    def _recorded(self, part: str, call_id: str) -> dict[str, Any] | None:
        entries = (self.recording or {}).get(part)
        entry = entries.get(call_id) if isinstance(entries, dict) else None
        return entry if isinstance(entry, dict) else None

    # -- the end ---------------------------------------------------------------------------

    # -- guardrails ---------------------------------------------------------------------------

    async def guardrail(
        self,
        key: tuple[str, str, str, Any],
        check: Callable[[], Awaitable[_Checked]],
        rebuild: Callable[[GuardrailFunctionOutput], _Checked],
    ) -> _Checked:
        """A guardrail's result: the one the person's own recording of this run holds for a
        check of the same value (kind, name, agent, value: ``key``), else ``check()``'s, kept
        for the recording. Never someone else's, never another run's, none while the run
        records.

        Input guardrails may run before the run's first model request says which recording
        it replays: their result comes provisionally from the person's latest recording that
        holds it, and ``settle`` checks it live at that request unless that recording is
        the one replayed."""
        digest = value_identity(*key)
        source = self._guardrail_source(digest)
        if source is not None:
            entry = source["guardrails"][digest]
            tripped = entry.get("tripwire") is True
            result = rebuild(GuardrailFunctionOutput(entry.get("info"), tripped))
            self.new.setdefault("guardrails", {})[digest] = entry
            if not self.started:
                self.provisional.append(_Provisional(digest, source, check, result))
            return result
        result = await check()
        self._keep_guardrail(digest, result.output)
        return result

    def _guardrail_source(self, digest: str) -> dict[str, Any] | None:
        """The recording whose result for ``digest`` may stand for a live check."""
        if self.cassette.mode == "record":
            return None
        if self.started:
            candidates = [self.recording] if self.replaying and self.own else []
        else:
            candidates = [r for r in reversed(self.cassette.runs) if self.cassette.owns(r)]
        for run in candidates:
            entries = run.get("guardrails") if run is not None else None
            if isinstance(entries, dict) and isinstance(entries.get(digest), dict):
                return run
        return None

    def _keep_guardrail(self, digest: str, output: GuardrailFunctionOutput) -> None:
        info = plain(output.output_info)
        try:
            json.dumps(info)
        except (TypeError, ValueError):
            info = repr(output.output_info)
        entry = {"tripwire": bool(output.tripwire_triggered), "info": redact_secrets(info)}
        self.new.setdefault("guardrails", {})[digest] = entry
        self._note("guardrail", digest, entry)

    async def settle(self) -> None:
        """Check live the input guardrails whose results came from a recording that is not
        the one this run replays (called at each model request; only the first finds any).

        Raises:
            InputGuardrailTripwireTriggered: A guardrail checked now trips.
        """
        pending, self.provisional = self.provisional, []
        for provisional in pending:
            if self.replaying and provisional.source is self.recording:
                continue
            checked = await provisional.check()
            provisional.result.output = checked.output  # the run's results show the live one
            self._keep_guardrail(provisional.digest, checked.output)
            if checked.output.tripwire_triggered:
                raise InputGuardrailTripwireTriggered(checked)

    def finish(self) -> None:
        """Keep this run's recording (a live or diverged run; a full replay keeps the old), and
        say on the cassette what happened (``Cassette.last``)."""
        if not self.started:
            return
        self.cassette.last = {
            "replayed": self.replaying,
            "replayed_calls": self.replayed_calls,
            "changed": list(self.changed),
            "differences": list(self.differences),
        }
        if self.replaying and not self.differences and self.own:
            return  # the person's own recording, followed to the end: it stays as it was
        self.cassette.keep(dict(self.new), replaces=self.recording)


class ReplayModel(RequestModel):
    """A model whose replies come from the recording when the run replays, else from
    ``inner`` (and are recorded)."""

    def __init__(self, inner: Model, replay: RunReplay) -> None:
        self.inner = inner
        self.replay = replay
        self.name = _model_name(inner)

    async def respond(self, request: ModelRequest) -> ModelResponse:
        digest, fields = request_identity(request, self.name)
        recorded = self.replay.take(digest, fields)
        await self.replay.settle()
        if recorded is not None:
            return _response(recorded)
        response = await self.inner.get_response(*_args(request), **_kwargs(request))
        self.replay.record_call(digest, response)
        return response

    async def stream(self, request: ModelRequest) -> AsyncIterator[TResponseStreamEvent]:
        digest, fields = request_identity(request, self.name)
        recorded = self.replay.take(digest, fields)
        await self.replay.settle()
        if recorded is not None:
            response = _response(recorded)
            rid = response.response_id or "resp_replayed"
            seq = EventSequence()
            yield seq.created(build_response(rid, self.name, [], None, "in_progress"))
            yield seq.in_progress(build_response(rid, self.name, [], None, "in_progress"))
            for index, item in enumerate(response.output):
                for event in seq.item_events(index, item, CHUNK):
                    yield event
            yield seq.completed(build_response(rid, self.name, response.output, response.usage))
            return
        final: Any = None
        async for event in self.inner.stream_response(*_args(request), **_kwargs(request)):
            if event.type in ("response.completed", "response.incomplete"):
                final = event.response
            yield event
        if final is not None:
            response = ModelResponse(
                output=list(final.output),
                usage=usage_from_openai(final.usage),
                response_id=final.id,
            )
            self.replay.record_call(digest, response)


_ITEM: TypeAdapter[Any] | None = None


def _response(recorded: dict[str, Any]) -> ModelResponse:
    global _ITEM
    if _ITEM is None:
        from openai.types.responses import ResponseOutputItem

        _ITEM = TypeAdapter(ResponseOutputItem)
    output = [_ITEM.validate_python(raw) for raw in recorded.get("output") or []]
    usage = recorded.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return ModelResponse(
        output=output, usage=_usage_of(usage), response_id=recorded.get("response_id")
    )


def _decision_of(entry: dict[str, Any]) -> ApprovalDecision:
    arguments = entry.get("arguments")
    message = entry.get("message")
    return ApprovalDecision(
        approved=entry.get("approved") is True,
        always=entry.get("always") is True,
        message=message if isinstance(message, str) else None,
        arguments=arguments if isinstance(arguments, dict) else None,
    )


def _dump(item: Any) -> Any:
    if hasattr(item, "model_dump"):
        return item.model_dump(mode="json", exclude_none=True)
    return item


def _usage_of(data: dict[str, Any]) -> Usage:
    def number(name: str) -> int:
        value = data.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return Usage(
        requests=number("requests") or 1,
        input_tokens=number("input_tokens"),
        output_tokens=number("output_tokens"),
        total_tokens=number("total_tokens"),
        input_tokens_details=InputTokensDetails(
            number("cached_tokens"), number("cache_write_tokens")
        ),
        output_tokens_details=OutputTokensDetails(number("reasoning_tokens")),
    )


def _model_name(model: Any) -> str:
    for attribute in ("model", "name"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def _args(request: ModelRequest) -> tuple[Any, ...]:
    return (
        request.system_instructions,
        request.input,
        request.model_settings,
        request.tools,
        request.output_schema,
        request.handoffs,
        request.tracing,
    )


def _kwargs(request: ModelRequest) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "previous_response_id": request.previous_response_id,
        "conversation_id": request.conversation_id,
    }
    if request.prompt is not None:
        kwargs["prompt"] = request.prompt
    return kwargs
