"""Inspect a handoff from its exact bytes and report, field by field, what arrived:
bytes -> text -> parsed -> validated -> scanned, each stage once.

Fail closed: every step that cannot vouch for the payload adds a ``block`` finding,
and anything unexpected (a bug here, a contract hook that raises) becomes an
``internal_error`` finding rather than an exception.
"""

from __future__ import annotations

import gc
import hashlib
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from pydantic import BaseModel

from handoff_gate.gates.contracts.json_schema import Contract, ContractsById, JsonSchemaContract
from handoff_gate.gates.inspect import content_scan, parse
from handoff_gate.gates.inspect.refusal import reads_as_refusal
from handoff_gate.gates.inspect.schema_check import check_json_schema
from handoff_gate.gates.inspect.schema_plan import planner_for
from handoff_gate.gates.inspect.secret_patterns import (
    kinds_in,
    mask_secrets,
    secrets_in,
    spans,
)
from handoff_gate.gates.inspect.tool_session import session_findings
from handoff_gate.gates.inspect.validate import Outcome, check_contract, empty_shapes
from handoff_gate.gates.vocab import fieldpaths
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.envelope import LENGTH_STOPS
from handoff_gate.gates.vocab.findings import Code, Finding, Severity
from handoff_gate.gates.vocab.report import NamedField, Report
from handoff_gate.gates.vocab.safe_text import elide, mask, text_may_hold_unsafe

#: Largest payload or handoff file inspected; anything bigger is blocked unread.
DEFAULT_MAX_BYTES = 32 * 1024 * 1024

#: A tuple: a ``|`` union would be built again on every call.
_BYTES = (bytes, bytearray, memoryview)

#: Longest refusal text quoted in a finding message (the reviewer sees it verbatim).
REFUSAL_QUOTE_LIMIT = 4000


@dataclass(slots=True)
class _Draft:
    sha256: str
    size: int
    schema_id: str | None
    findings: list[Finding] = field(default_factory=list)
    raw_text: str = ""
    payload: Any = None
    partial: bool = False
    delivered: dict[str, Any] | None = None
    contract: type[BaseModel] | None = None
    model: BaseModel | None = None
    layout: Mapping[str, tuple[NamedField, ...]] | None = None
    secret: bool = False
    secret_hits: tuple[content_scan.Hit, ...] = ()

    def block(self, code: Code, message: str, path: str = "") -> None:
        self.findings.append(Finding(code, path, Severity.BLOCK, message))

    def report(self) -> Report:
        """Built without the frozen dataclass's ``__init__`` (about 2 µs, a sixth of a
        small tool call's inspection); ``tests/test_inspect_types.py`` holds this to the
        class's fields."""
        if self.secret:
            self._mask()
        report = object.__new__(Report)
        vars(report).update(
            sha256=self.sha256,
            size=self.size,
            findings=tuple(self.findings),
            schema_id=self.schema_id,
            raw_text=self.raw_text,
            payload=self.payload,
            payload_is_partial=self.partial,
            delivered=self.delivered,
            envelope=None,
            contract=self.contract,
            model=self.model,
            layout=self.layout,
        )
        return report

    def _mask(self) -> None:
        """Keep no secret in full anywhere in the report; it is blocked anyway."""
        self.findings = [
            replace(f, path=_mask_path(f.path), message=mask_secrets(f.message))
            for f in self.findings
        ]
        self.raw_text = _masked_text(self.raw_text)
        self.payload = content_scan.mask_at(self.payload, self.secret_hits)
        self.delivered = None
        self.model = None


def _masked_text(text: str) -> str:
    """Secrets spelled with ``\\u`` escapes are masked too, shown decoded: a masked copy
    beats an exact one a reader could decode by eye."""
    masked = mask_secrets(text)
    if "\\u" in masked:
        decoded, _ = content_scan.decode_u_escapes(masked)
        if secrets_in(decoded):
            return mask_secrets(decoded)
    return masked


def _mask_path(path: str) -> str:
    steps = fieldpaths.split(path)
    if steps is None:
        return mask_secrets(path)
    masked = ""
    for step in steps:
        masked = fieldpaths.join(masked, mask_secrets(step) if isinstance(step, str) else step)
    return masked


@dataclass(frozen=True, kw_only=True, slots=True)
class InspectOptions:
    """What a caller knows about a payload beyond its bytes and its contract.

    ``previous``: the previous payload of the contract in the run (append-only fields);
    ``upstream_payload``: a parsed object handed over with the text, which must equal
    what the text strictly parses to. ``tool_call``: a tool's arguments, which a schema
    requiring nothing accepts as ``{}`` (a phase's output naming no field is ``no_fields``).
    """

    previous: object = ABSENT
    finish_reason: str | None = None
    refusal: str | None = None
    upstream_payload: object = ABSENT
    max_bytes: int = DEFAULT_MAX_BYTES
    tool_call: bool = False


#: A bare payload with nothing known beyond its bytes.
PLAIN = InspectOptions()


def inspect(
    data: bytes,
    schema_id: str | None,
    registry: ContractsById,
    options: InspectOptions = PLAIN,
) -> Report:
    """Never raises for bad content; ``TypeError`` for anything but bytes: the hash is
    over the exact bytes, and a ``str`` has no single encoding to hash."""
    if not isinstance(data, _BYTES):
        raise TypeError(f"inspect() needs the payload's bytes, not {type(data).__name__}")
    try:
        draft = _Draft(hashlib.sha256(data).hexdigest(), len(data), schema_id)
    except Exception as exc:
        return failed_report(b"", schema_id, exc)
    try:
        if draft.size < PAUSE_FROM:  # too small for the collector's passes to show
            _inspect(draft, data, registry, options)
            return draft.report()
        # The report is built while paused too: an allocation once the collector is
        # back, with the parsed payload still held, starts a pass over all of it.
        with CollectorPaused():
            _inspect(draft, data, registry, options)
            return draft.report()
    except Exception as exc:
        return failed_report(data, schema_id, exc)


#: Bytes from which ``inspect`` pauses the collector (:class:`CollectorPaused`): below,
#: a parse allocates a few thousand containers at most, and asking how many threads
#: run takes a lock (the 5 MB payload allocates about a million).
PAUSE_FROM = 64 * 1024


class CollectorPaused:
    """Pause the cyclic garbage collector while a large payload is inspected, in a
    process that runs no other thread (the collector is process-wide).

    A 5 MB payload allocates about a million containers, none in cycles, and each
    allocation burst traversed all of them: 583 ms of CPU instead of 342 (issue 18).
    """

    __slots__ = ("enabled",)

    def __enter__(self) -> None:
        self.enabled = gc.isenabled() and threading.active_count() == 1
        if self.enabled:
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            gc.enable()


def failed_report(data: bytes, schema_id: str | None, exc: Exception) -> Report:
    try:
        digest, size = hashlib.sha256(data).hexdigest(), len(data)
    except Exception:
        digest, size = "", 0
    message = f"inspection failed unexpectedly: {type(exc).__name__}: {exc}"
    finding = Finding(Code.INTERNAL_ERROR, "", Severity.BLOCK, elide(message, 500))
    return Report(sha256=digest, size=size, findings=(finding,), schema_id=schema_id)


def _inspect(d: _Draft, data: bytes, registry: ContractsById, options: InspectOptions) -> None:
    """Each stage returns its findings, so the report lists them in one fixed order: the
    bytes and the text, then the content, then the contract."""
    contract = _contract(d, registry)
    text = _readable_text(d, data, options)
    if text is None:
        return
    tool_call = options.tool_call
    parsed = _parsed(data, text, options.upstream_payload)
    validated = _validated(parsed, data, text, contract, options.previous, tool_call)
    scanned = _scanned(parsed, data, text)
    d.payload, d.partial = parsed.value, parsed.partial
    d.secret, d.secret_hits = scanned.secret, scanned.hits
    d.findings += parsed.findings
    d.findings += scanned.findings
    d.findings += validated.findings
    if tool_call and isinstance(contract, JsonSchemaContract) and parsed.tree:
        d.findings += session_findings(parsed.value, contract.document)
    d.model, d.delivered, d.layout = validated.model, validated.delivered, validated.layout


def _contract(d: _Draft, registry: ContractsById) -> Contract | None:
    if d.schema_id is None:
        d.block(Code.UNKNOWN_SCHEMA, "no contract given for this payload")
        return None
    try:
        contract = registry[d.schema_id]
    except KeyError:
        d.block(
            Code.UNKNOWN_SCHEMA,
            f"no contract named {d.schema_id!r} is loaded; load the module that defines it "
            "with --schemas or HANDOFF_GATE_SCHEMAS",
        )
        return None
    if not isinstance(contract, JsonSchemaContract):
        d.contract = contract
    return contract


def _readable_text(d: _Draft, data: bytes, options: InspectOptions) -> str | None:
    """``None`` when there is nothing to read (oversize, empty, not UTF-8)."""
    max_bytes, finish_reason, refusal = options.max_bytes, options.finish_reason, options.refusal
    if d.size > max_bytes:
        d.block(Code.OVERSIZE, f"{d.size} bytes, over the {max_bytes}-byte limit; not read")
        return None
    if isinstance(finish_reason, str) and finish_reason.lower() in LENGTH_STOPS:
        d.block(Code.TRUNCATED, f"the producer stopped at its length limit ({finish_reason})")
    if refusal is not None and refusal.strip():
        quoted = elide(_masked_text(refusal), REFUSAL_QUOTE_LIMIT)
        d.block(Code.REFUSAL, f"the producer refused: {quoted}")
    if not data or data.isspace():
        d.block(Code.EMPTY_INPUT, "the payload is empty" if not data else "only whitespace")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        d.raw_text = data.decode("utf-8", "replace")
        d.block(Code.NOT_UTF8, f"not valid UTF-8 (first bad byte at offset {exc.start})")
        return None
    d.raw_text = text
    return text


class _Parse(NamedTuple):
    """``value``: parsed, the partial value of a cut-off text, or ``None``; ``tree``:
    the scans may walk it; ``complete``: within the depth limit, the one value the
    contract check may look at; ``structure``: the skeleton, if the depth check made it."""

    findings: list[Finding]
    value: Any
    partial: bool
    tree: bool
    complete: bool
    digits: bytes
    structure: bytes | None = None


def _parsed(data: bytes, text: str, upstream: object) -> _Parse:
    digits = parse.digit_view(data)
    result = parse.parse(data)
    if not result.ok:
        findings = [_unparsed(text, result)]
        if upstream is not ABSENT:
            findings.append(_blocked(Code.MODIFIED_UPSTREAM, _UPSTREAM_UNPARSED))
        cut = result.truncated and not result.too_deep and result.duplicate_key is None
        partial = result.partial if cut else None
        return _Parse(findings, partial, cut, cut, False, digits)
    value = result.value
    findings = []
    if upstream is not ABSENT and not parse.same_json(upstream, value):
        findings.append(_blocked(Code.MODIFIED_UPSTREAM, _UPSTREAM_DIFFERS))
    structure = None
    if not parse.too_short_to_nest(data):
        structure = parse.skeleton(data)
        if parse.depth_exceeds(structure):
            message = f"nested more than {parse.MAX_DEPTH} levels deep"
            findings.append(_blocked(Code.TOO_DEEP, message))
            return _Parse(findings, value, False, True, False, digits)
    if parse.may_overflow(digits):
        findings += [
            _blocked(Code.NOT_JSON, "a number too large to represent exactly", path)
            for path in parse.overflowed_paths(value)
        ]
    return _Parse(findings, value, False, True, True, digits, structure)


def _structure(parsed: _Parse, data: bytes) -> bytes:
    """Made by the depth check for a long text, only when asked for a short one."""
    return parsed.structure if parsed.structure is not None else parse.skeleton(data)


_UPSTREAM_UNPARSED = "upstream supplied a parsed payload, but the producer's text does not parse"
_UPSTREAM_DIFFERS = "the parsed payload upstream supplied differs from the producer's text"


def _blocked(code: Code, message: str, path: str = "") -> Finding:
    return Finding(code, path, Severity.BLOCK, message)


def _unparsed(text: str, parsed: parse.Parsed) -> Finding:
    if parsed.too_deep:
        return _blocked(Code.TOO_DEEP, "nested too deep to parse")
    if parsed.duplicate_key is not None:
        message = f"a key appears twice in one object: {parsed.error}"
        return _blocked(Code.DUPLICATE_KEY, message, _duplicate_path(text))
    if parsed.truncated:
        return _blocked(Code.TRUNCATED, f"the text ends mid-value ({parsed.error})")
    if reads_as_refusal(text):
        quoted = elide(text, REFUSAL_QUOTE_LIMIT)
        return _blocked(Code.REFUSAL, f"the producer replied in prose: {quoted}")
    return _blocked(Code.NOT_JSON, f"not strict JSON: {parsed.error}{_hint(text)}")


def _validated(
    parsed: _Parse,
    data: bytes,
    text: str,
    contract: Contract | None,
    previous: object,
    tool_call: bool = False,
) -> Outcome:
    if not parsed.complete:
        return Outcome([])
    value = parsed.value
    if not isinstance(value, dict):
        return Outcome([_not_object(value)])
    if contract is None:
        return Outcome([])
    if isinstance(contract, JsonSchemaContract):
        # Only a contract closed all the way down has a use for the answer (a payload
        # with no empty value then needs no walk): the text is searched for it then only.
        empties = (
            not planner_for(contract).sealed()
            or empty_shapes(text, data, _structure(parsed, data))[0]
        )
        return check_json_schema(value, contract, tool_call=tool_call, empties=empties)
    empties, blanks = empty_shapes(text, data, _structure(parsed, data))
    return check_contract(value, data, contract, previous=previous, empties=empties, blanks=blanks)


class _Duplicate:
    def __init__(self, key: str) -> None:
        self.key = key


def _duplicate_path(text: str) -> str:
    """The field path of the first duplicated key (""), found on this error path only."""

    def pairs(items: list[tuple[str, Any]]) -> Any:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                return _Duplicate(key)
            seen.add(key)
        return dict(items)

    try:
        value = json.loads(text, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return ""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        node, steps = stack.pop()
        if isinstance(node, _Duplicate):
            return fieldpaths.path_of([*steps, node.key])
        if isinstance(node, dict):
            stack.extend((child, [*steps, key]) for key, child in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((child, [*steps, i]) for i, child in reversed(list(enumerate(node))))
    return ""


def _text_secret_finding(text: str) -> Finding:
    found = secrets_in(text)
    shown = ", ".join(f"{kind} {mask(match)}" for kind, match in found[:3])
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return _blocked(Code.SECRET, f"the text contains what looks like a secret: {shown}{more}")


def _hint(text: str) -> str:
    start = text.lstrip()[:1]
    if start == "\ufeff":
        return " (the text starts with a byte-order mark)"
    if start in ("{", "["):
        return ""
    if "{" in text:
        return " (prose around a JSON object is not accepted; the object is not extracted)"
    return ""


def _not_object(value: Any) -> Finding:
    if isinstance(value, str) and reads_as_refusal(value):
        quoted = elide(value, REFUSAL_QUOTE_LIMIT)
        return _blocked(Code.REFUSAL, f"the producer replied with text: {quoted}")
    kind = "null" if value is None else type(value).__name__
    kind = {"str": "a string", "list": "an array", "bool": "a boolean"}.get(kind, kind)
    return _blocked(Code.NOT_OBJECT, f"the payload must be a JSON object, not {kind}")


class _Scan(NamedTuple):
    """``secret``: the report is then masked; ``hits``: where in the tree they are."""

    findings: tuple[Finding, ...]
    secret: bool
    hits: tuple[content_scan.Hit, ...]


#: The scan of a payload with nothing to report, shared: most payloads.
_CLEAN = _Scan((), False, ())


def _scanned(parsed: _Parse, data: bytes, text: str) -> _Scan:
    """The raw text is checked first (cheap), again with ``\\u`` escapes decoded when it
    has any; the tree is walked only when a check trips."""
    found = kinds_in(text, parsed.digits)
    if found:  # markers are a superset: keep the kinds actually present
        found = frozenset(kind for _, _, kind in spans(text, found))
    secret = bool(found)
    if not parsed.tree:
        return _Scan((_text_secret_finding(text),), True, ()) if secret else _CLEAN
    kinds = found
    unsafe = text_may_hold_unsafe(text, data)
    if b"\\" in data and "\\u" in text:
        decoded, spelled_unsafe = content_scan.decode_u_escapes(text)
        kinds = found | {kind for _, _, kind in spans(decoded, kinds_in(decoded))}
        unsafe = unsafe or spelled_unsafe
    if not (kinds or unsafe):  # nothing found in the text: ``kinds`` holds ``found``
        return _CLEAN
    secret_hits, unsafe_hits = content_scan.scan(parsed.value, kinds, unsafe=unsafe)
    findings = [_blocked(Code.SECRET, hit.message, _hit_path(hit)) for hit in secret_hits]
    if not secret_hits and secret:
        findings.append(_text_secret_finding(text))
    findings += [_blocked(Code.UNSAFE_TEXT, hit.message, _hit_path(hit)) for hit in unsafe_hits]
    return _Scan(tuple(findings), secret or bool(secret_hits), tuple(secret_hits))


def _hit_path(hit: content_scan.Hit) -> str:
    return fieldpaths.path_of(fieldpaths.steps_of(hit.trail))
