"""Reports, fields and decisions as styled ``Text``: the only way payload reaches paint.

Every untrusted string goes through ``safe`` into a plain ``Text`` span, never markup, so
brackets stay brackets and escape characters arrive as visible tokens. Each state has a
colour *and* a word, so a monochrome terminal loses nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from rich.text import Text

from handoff_gate.gates.view.masking import refusal_said
from handoff_gate.gates.view.tool_line import tool_call_line
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.caller import CALLER_GAVE_UP, caller_gone
from handoff_gate.gates.vocab.deadline import left, short
from handoff_gate.gates.vocab.findings import Code, Finding, Severity
from handoff_gate.gates.vocab.report import FieldRow, FieldState, Report
from handoff_gate.gates.vocab.safe_text import elide, preview, visible
from handoff_gate.gates.vocab.states import ENDED, HandoffState
from handoff_gate.tui.model import Entry

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Decision

STATE_BADGES: dict[HandoffState | None, tuple[str, str]] = {
    HandoffState.PENDING: ("● PENDING ", "bold black on yellow"),
    HandoffState.BLOCKED: ("■ BLOCKED ", "bold white on red"),
    HandoffState.APPROVED: ("✓ APPROVED", "bold black on green"),
    HandoffState.REJECTED: ("✗ REJECTED", "bold white on magenta"),
    HandoffState.CHANGED: ("△ CHANGED ", "bold black on bright_yellow"),
    HandoffState.UNUSABLE: ("⊘ UNUSABLE", "bold white on dark_red"),
    HandoffState.WITHDRAWN: ("↩ WITHDRWN", "grey50"),
    HandoffState.EXPIRED: ("⌛ EXPIRED ", "grey50"),
    None: ("… checking", "dim"),
}
#: A row marked for a batch decision (only a decidable, so pending, one can be).
MARKED_BADGE = ("✔ MARKED  ", "bold black on cyan")

FIELD_BADGES: dict[FieldState, tuple[str, str]] = {
    FieldState.OK: ("ok", "green"),
    FieldState.EMPTY: ("EMPTY", "bold black on yellow"),
    FieldState.DEFAULTED: ("DEFAULTED", "bold black on bright_cyan"),
    FieldState.MISSING: ("MISSING", "bold white on red"),
    FieldState.INVALID: ("INVALID", "bold white on red"),
    FieldState.DROPPED: ("DROPPED", "bold black on bright_magenta"),
    FieldState.UNNAMED: ("NOT IN CONTRACT", "bold black on bright_magenta"),
    FieldState.SECRET: ("SECRET", "bold white on dark_orange3"),
    FieldState.UNSAFE: ("UNSAFE TEXT", "bold white on purple"),
}

#: A row with problems further down: its worst, with how many it holds.
INSIDE_BADGES: dict[Severity, tuple[str, str]] = {
    Severity.BLOCK: ("✗ {n} inside", "bold white on red"),
    Severity.WARN: ("⚠ {n} inside", "bold black on yellow"),
}
#: Said after a dropped key's name, before its value: the contract does not allow it.
DROPPED_NOTE = " (never delivered)"

#: A string field's value is shown whole up to this many characters.
FULL_VALUE = 2000
#: A list of scalars is shown item by item on its row when it renders in this many.
INLINE_LIST = 600
_DETAIL_LIMIT = 1500
_MESSAGE_LIMIT = 160


def safe(text: str, limit: int, *, multiline: bool = False) -> str:
    """Unsafe characters as visible tokens, elided; outside multi-line blocks line feeds
    and tabs are spelled out, so a value can never push text onto another row."""
    shown = visible(text)
    if not multiline:
        shown = shown.replace("\n", "\\n").replace("\t", "\\t")
    return elide(shown, limit)


def state_badge(state: HandoffState | None) -> Text:
    label, style = STATE_BADGES[state]
    return Text(label, style=style)


def column(text: str, width: int) -> str:
    """``text`` made safe and fitted to exactly ``width`` cells (cut with "…")."""
    shown = safe(text, width * 4)
    if cell_len(shown) > width:
        shown = set_cell_size(shown, width - 1) + "…"
    return set_cell_size(shown, width)


#: Cells a state badge and its gap take at the start of a list row.
BADGE_WIDTH = 11


def fit(text: Text, width: int) -> Text:
    """``text`` cut to ``width`` cells with a visible "…" when it is longer."""
    if text.cell_len <= width or width < 1:
        return text
    cut = text.copy()
    cut.truncate(width - 1)
    cut.append("…")
    return cut


def list_row(
    entry: Entry,
    run_width: int = 16,
    id_width: int = 12,
    width: int = 200,
    *,
    decision: bool = False,
    marked: bool = False,
) -> Text:
    """One line of the handoff list fitted to ``width`` cells; with ``decision`` the
    decision's columns replace the roles and contract."""
    badge = MARKED_BADGE if marked else state_badge(entry.state)
    row = Text.assemble(badge, " ")
    row.append(column(entry.run, run_width), style="bold")
    row.append(" ")
    row.append(column(entry.ref.id, id_width), style="cyan")
    made = entry.decision
    if decision and made is not None:
        row.append(f" {column(made.reviewer, 8)}", style="bold")
        row.append(f" {column(made.decided_at[5:16].replace('T', ' '), 11)}", style="dim")
        category = made.category.value.replace("_", " ") if made.category else "-"
        row.append(f" {column(category, 10)}", style="italic")
        row.append(f" {safe(made.reason or '', 200)}")
        return fit(row, width)
    label = entry.label
    if label is not None and label.tool_call is not None:
        row.append(f" {safe(label.tool_call, 120)}")
    elif label is not None:
        roles = f"{label.from_role or '?'} → {label.to_role or '?'}"
        row.append(f" {safe(roles, 40)}", style="dim")
        row.append(f"  {safe(label.schema_id or '?', 32)}", style="italic")
    if entry.state in ENDED:
        row.append(f"  {safe(entry.ended.removeprefix(entry.ref.id + ' '), 200)}")
        row.stylize("grey50", BADGE_WIDTH)
    elif label is not None and label.expires_at and entry.state is HandoffState.PENDING:
        row.append(f"  ⌛ {time_left(label.expires_at)}", style="yellow")
    return fit(row, width)


def time_left(expires_at: str) -> str:
    """``12m left``, or ``expired``."""
    try:
        delta = left(expires_at)
    except ValueError:
        return "expired"
    return "expired" if delta.total_seconds() <= 0 else f"{short(delta)} left"


def field_text(row: FieldRow) -> Text:
    """A field as the field view wraps it. Badges come first so a state is never out of
    view; a list of scalars that fits in ``INLINE_LIST`` characters shows its items, so a
    plan's short lists read without opening them."""
    label = Text()
    for text, style in _badges(row):
        label.append(f" {text} ", style=style)
        label.append(" ")
    label.append(safe(row.path or row.key, 300), style="bold")
    states = row.states or (FieldState.OK,)
    if FieldState.DROPPED in states:
        label.append(DROPPED_NOTE, style="bold magenta")
    label.append(": ")
    label.append_text(_value(row, states, FULL_VALUE, inline=INLINE_LIST))
    if row.message:
        label.append(f"  {safe(row.message, _DETAIL_LIMIT)}", style="italic red")
    if row.description:  # what the contract says the field is for (untrusted text too)
        label.append(f"  · {safe(row.description, _DETAIL_LIMIT)}", style="dim")
    value = row.value
    if isinstance(value, str) and len(value) > FULL_VALUE and FieldState.MISSING not in states:
        label.append("\n")
        rest = len(value) - FULL_VALUE
        label.append(f"+{rest:,} chars not shown: v for the raw text", style="dim italic")
    return label


def _badges(row: FieldRow) -> list[tuple[str, str]]:
    """A row's state badges, then the worst problem inside it; "ok" only when neither the
    row nor anything below it has a problem."""
    states = [s for s in row.states if s is not FieldState.OK]
    badges = [FIELD_BADGES[state] for state in states]
    worst = row.worst_inside
    if worst is not None:
        text, style = INSIDE_BADGES[worst]
        badges.append((text.format(n=row.blocking_inside + row.warnings_inside), style))
    return badges or [FIELD_BADGES[FieldState.OK]]


def _value(row: FieldRow, states: tuple[FieldState, ...], limit: int, *, inline: int = 0) -> Text:
    if FieldState.MISSING in states:
        return Text("(absent)", style="dim italic")
    value = row.value
    items = _inline(value, inline) if row.child_count else None
    if items is not None:
        shown = Text(items)
    elif row.child_count:
        listed = isinstance(value, list)
        kind = ("item" if listed else "key") + ("" if row.child_count == 1 else "s")
        shown = Text(f"{'[…]' if listed else '{…}'} {row.child_count} {kind}")
        shown.stylize("dim")
    elif isinstance(value, str) and len(value) > limit:
        shown = Text(preview(value[:limit], limit + 2) + "…")
    else:
        shown = Text(preview(value, limit))
    if FieldState.DEFAULTED in states and not row.message:
        return Text.assemble(("absent, default used: ", "italic"), shown)
    return shown


def _inline(value: object, limit: int) -> str | None:
    if not isinstance(value, list) or limit <= 0:
        return None
    if any(isinstance(item, dict | list) for item in value):
        return None
    shown = preview(value, limit + 1)
    return shown if len(shown) <= limit else None


def entry_title(entry: Entry) -> Text:
    """run / id, as the dialogs name a handoff."""
    return Text.assemble((safe(entry.run, 40), "bold"), " / ", (entry.ref.id, "bold cyan"))


def header(entry: Entry) -> Text:
    report = entry.report
    text = entry_title(entry)
    if report is None:
        text.append("   inspecting…", style="dim")
        return text
    envelope = report.envelope
    call = tool_call_line(report)
    if call is not None:
        _labelled(text, "\ntool call ", safe(call, 200), "bold")
        tool = envelope.tool if envelope is not None else None
        if tool is not None and tool.description:
            text.append("\n")
            text.append(safe(tool.description, 200), style="italic")
    elif envelope is not None:
        roles = f"{envelope.from_role or '?'} → {envelope.to_role or '?'}"
        text.append(f"   {safe(roles, 60)}")
    if envelope is not None:
        _labelled(text, "\ncreated ", safe(envelope.created, 40))
        if envelope.producer.model:
            _labelled(text, "   model ", safe(envelope.producer.model, 40))
    stop = envelope.producer.finish_reason if envelope is not None else None
    text.append("   stop reason " if envelope is not None else "\nstop reason ", style="dim")
    text.append(safe(stop, 30) if stop else "-")
    schema = report.schema_id or (envelope.schema_id if envelope else None) or "?"
    _labelled(text, "\nschema ", safe(schema, 40), "italic")
    _labelled(text, "   sha256 ", report.sha256[:12] or "-")
    _labelled(text, "   size ", _size(report.size))
    _labelled(text, "   ~tokens ", f"{report.approx_tokens:,}")
    return text


def _labelled(text: Text, label: str, value: str, style: str = "") -> None:
    text.append(label, style="dim")
    text.append(value, style=style)


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _has(report: Report, code: Code) -> bool:
    return any(f.code is code for f in report.findings)


def banners(report: Report) -> list[tuple[Text, str]]:
    """(text, css class) pairs: the verdict banner, after one each for truncation and
    for a refusal (its text verbatim, made safe)."""
    out: list[tuple[Text, str]] = []
    if _has(report, Code.TRUNCATED):
        out.append(
            (
                Text.assemble(
                    (" TRUNCATED ", "bold reverse"),
                    "  The reply was cut off before it ended; whatever parsed is only a "
                    "partial view and cannot be approved.",
                ),
                "truncated",
            )
        )
    if _has(report, Code.REFUSAL):
        said = refusal_said(report)
        out.append(
            (
                Text.assemble(
                    (" REFUSAL ", "bold reverse"),
                    "  The model did not produce the handoff. It said:\n",
                    (safe(said, 2000, multiline=True), "italic"),
                ),
                "refusal",
            )
        )
    bannered = {code for code in (Code.TRUNCATED, Code.REFUSAL) if _has(report, code)}
    if report.approvable:
        warned = len(report.warnings)
        note = f"  {warned} warning{'s' if warned != 1 else ''} to review" if warned else ""
        out.append((Text.assemble((" APPROVABLE ", "bold reverse"), note), "approvable"))
    else:
        reasons = Text.assemble((" BLOCKED ", "bold reverse"), "  cannot be approved")
        if bannered:
            reasons.append(f" ({', '.join(sorted(bannered))}, see above)")
        others = [f for f in report.blocking if f.code not in bannered]
        for finding in others[:6]:
            reasons.append("\n  • ")
            reasons.append_text(finding_text(finding))
        if len(others) > 6:
            reasons.append(f"\n  …and {len(others) - 6} more blocking findings")
        out.append((reasons, "blocked"))
    return out


def finding_text(finding: Finding) -> Text:
    text = Text(finding.code.value, style="bold")
    if finding.path:
        text.append(f" at {safe(finding.path, 60)}")
    text.append(f": {safe(finding.message, _MESSAGE_LIMIT)}")
    return text


def warnings_text(report: Report) -> Text:
    """One summary line by code (each is also shown on its field row)."""
    counts: dict[str, int] = {}
    for finding in report.warnings:
        counts[finding.code.value] = counts.get(finding.code.value, 0) + 1
    if not counts:
        return Text()
    text = Text("⚠ ", style="yellow")
    text.append(", ".join(f"{code} ×{n}" for code, n in counts.items()))
    for finding in report.warnings:
        if not finding.path:
            text.append("\n⚠ ", style="yellow")
            text.append_text(finding_text(finding))
    return text


def decision_text(entry: Entry) -> Text:
    """The decision in full (``i``), then the trust and waiter lines."""
    text = _decided_text(entry)
    lines = trust_lines(entry, waiter_line(entry))
    for line in lines:
        if line:
            if text:
                text.append("\n")
            text.append_text(line)
    return text


def no_decision_text(entry: Entry) -> Text | None:
    """Why a handoff ended without a usable decision (withdrawn, expired, an unusable
    record); else ``None``."""
    if entry.state in ENDED:
        word = " WITHDRAWN " if entry.state is HandoffState.WITHDRAWN else " EXPIRED "
        return Text.assemble((word, "bold reverse"), "  ", safe(entry.ended, 300))
    if entry.state is HandoffState.UNUSABLE or entry.decision_error:
        return Text.assemble(
            (" DECISION UNUSABLE ", "bold reverse"), "  ", safe(entry.decision_error, 300)
        )
    return None


def _decided_text(entry: Entry) -> Text:
    ended = no_decision_text(entry)
    if ended is not None:
        return ended
    decision = entry.decision
    if decision is None:
        return Text()
    text = Text()
    if entry.state is HandoffState.CHANGED:
        text.append("The file changed after this decision: it no longer applies.\n", "bold red")
    text.append_text(decision_word(decision))
    text.append("  by ")
    text.append(safe(decision.reviewer, 60), style="bold")
    text.append(f"  at {safe(decision.decided_at, 40)}")
    if decision.category is not None:
        _labelled(text, "\ncategory ", decision.category.value.replace("_", " "))
    if decision.reason:
        _labelled(text, "\nreason ", safe(decision.reason, 1000, multiline=True))
    _labelled(text, "\nreviewed sha256 ", decision.sha256[:12])
    if decision.edited_sha256 is not None:
        _labelled(text, "\nedited by ", safe(decision.reviewer, 60), "bold")
        _labelled(text, ": delivers the edit, sha256 ", decision.edited_sha256[:12], "bold green")
    if entry.delivered and decision.action is Action.APPROVE:
        text.append("\ndelivered ", style="dim")
        text.append(f"to the pipeline at {safe(entry.delivered, 40)}; it runs once")
    return text


def approvals_text(entry: Entry) -> str:
    """``1 of 2: alice`` under a policy; empty without one."""
    trust = entry.trust
    if trust is None or not trust.required:
        return ""
    names = ", ".join(trust.approvals)
    return f"{len(trust.approvals)} of {trust.required}" + (f": {names}" if names else "")


def trust_lines(entry: Entry, waiter: Text) -> list[Text]:
    """The approvals come first: on 24 lines the summary shows only its top."""
    trust = entry.trust
    if trust is None:
        return [waiter] if waiter else []
    lines = []
    if trust.rule_problem:
        lines.append(Text.assemble(("policy ", "dim"), (safe(trust.rule_problem, 300), "red")))
    approvals = approvals_text(entry)
    if approvals and entry.state is not HandoffState.REJECTED:
        line = Text.assemble(("approvals ", "dim"), (safe(approvals, 200), "bold"))
        if trust.approvers:
            line.append(f"   approvers {safe(', '.join(trust.approvers), 120)}", style="dim")
        lines.append(line)
    producer = Text.assemble(("producer ", "dim"), safe(trust.signer, 120))
    if waiter:
        producer.append("   ")
        producer.append_text(waiter)
    lines.append(producer)
    for refused in trust.refused[:3]:
        lines.append(Text.assemble(("ignored ", "dim"), safe(refused, 200)))
    if len(trust.refused) > 3:
        lines.append(Text(f"…and {len(trust.refused) - 3} more ignored records", style="dim"))
    return lines


def waiter_line(entry: Entry) -> Text:
    """Whether a pipeline's ``wait`` is blocked on an undecided handoff now; for a call
    only its hook would run, that its hook is gone (``vocab.caller``)."""
    if not entry.waiting:
        return Text()
    envelope = entry.report.envelope if entry.report is not None else None
    if caller_gone(envelope, entry.waiters):
        return Text.assemble(
            ("waiter ", "dim"),
            (f"gone: {CALLER_GAVE_UP}", "bold red"),
            " (approving it is refused)",
        )
    if entry.waiters is None:
        return Text()
    if not entry.waiters:
        return Text.assemble(("waiter ", "dim"), ("none (nobody is waiting)", "yellow"))
    count = len(entry.waiters)
    who = "a pipeline is" if count == 1 else f"{count} pipelines are"
    return Text.assemble(
        ("waiter ", "dim"),
        (f"{who} waiting", "bold green"),
        f" (since {safe(entry.waiters[0], 40)})",
    )


def decision_word(decision: Decision) -> Text:
    if decision.action is Action.APPROVE:
        return Text(" APPROVED ", style="bold black on green")
    return Text(" REJECTED ", style="bold white on magenta")
