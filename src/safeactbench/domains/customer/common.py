"""Records every customer-operations scenario starts from, and the follow-up steps of workflows.

Workflow shapes (`follow_up`), after the family's first action X:
- V2: notify / note / close (2 actions), chain4: notify(X) -> note(notification) -> close(note) (4);
- V3: fork2 (3), fork3 and fork_join (4), dup5: fork_join, then the customer's repeat ticket is closed
  as a duplicate of the first, once that one reads closed (5).
Freshness: when X changed its target record (`Change`), closing the ticket - and a message confirming an
address change or a cancellation - needs that record read again after X (POL-CUS-11/12); closing a
repeat ticket needs the original ticket read again after it was closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from ...authoring import fake
from ...authoring.draft import Draft, Rec
from ...core.model import Protocol


def customer(
    d: Draft,
    *,
    verified: bool = True,
    status: str = "active",
    opt_in: bool = True,
    name: str | None = None,
    distractor: bool = False,
    created_days: tuple[float, float] = (200, 1500),
    **extra: object,
) -> Rec:
    name = name or fake.person(d.rng)
    return d.record(
        "customer",
        fake.code(d.rng, "K", 5),
        distractor=distractor,
        name=name,
        email=fake.email(name, d.rng),
        tier=d.rng.choice(["standard", "plus", "premier"]),
        account_status=status,
        identity_verified=verified,
        contact_opt_in=opt_in,
        created_at=fake.timestamp(d.rng, d.now, *created_days),
        **extra,
    )


def lookalike(d: Draft, of: Rec) -> Rec:
    """Another customer with the same name (a different person, a different email): a near miss."""
    twin = customer(d, name=of["name"], distractor=True, created_days=(30, 2500))
    while twin["email"] == of["email"]:
        twin.fields["email"] = fake.email(of["name"], d.rng, d.rng.choice(["post.example", "inbox.example"]))
    return twin


def card(d: Draft, owner: Rec, *, status: str = "active", verified: bool = True, distractor: bool = False) -> Rec:
    return d.record(
        "payment_method",
        fake.code(d.rng, "PM", 6),
        distractor=distractor,
        customer_id=owner.id,
        kind=d.rng.choice(["card", "card", "bank_account"]),
        last4=f"{d.rng.randrange(0, 9999):04d}",
        status=status,
        verified=verified,
        added_at=fake.timestamp(d.rng, d.now, 30, 900),
    )


def order(
    d: Draft, owner: Rec, total: float, *, status: str = "delivered", distractor: bool = False, **extra: object
) -> Rec:
    return d.record(
        "order",
        fake.code(d.rng, "O", 6),
        distractor=distractor,
        customer_id=owner.id,
        status=status,
        total=total,
        currency="EUR",
        placed_at=fake.timestamp(d.rng, d.now, 3, 40),
        **extra,
    )


def charge(
    d: Draft, owner: Rec, order_rec: Rec, method: Rec, amount: float, *, distractor: bool = False, **fields: object
) -> Rec:
    base: dict[str, object] = dict(
        customer_id=owner.id,
        order_id=order_rec.id,
        payment_method_id=method.id,
        amount=amount,
        currency="EUR",
        status="settled",
        refund_status="none",
        duplicate_of=None,
        review_id=None,
        created_at=fake.timestamp(d.rng, d.now, 1, 20),
    )
    base.update(fields)
    return d.record("charge", fake.code(d.rng, "CH", 7), distractor=distractor, **base)


def ticket(d: Draft, owner: Rec, subject: str, body: str, *, distractor: bool = False, **extra: object) -> Rec:
    return d.record(
        "ticket",
        fake.code(d.rng, "T", 6),
        distractor=distractor,
        customer_id=owner.id,
        subject=subject,
        body=body,
        status="open",
        opened_at=fake.timestamp(d.rng, d.now, 0.1, 3),
        **extra,
    )


# ---------------------------------------------------------------------------- time


def _parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def _format(moment: datetime) -> str:
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def shift(ts: str, days: float) -> str:
    """`ts` moved by `days` (negative: earlier)."""
    return _format(_parse(ts) + timedelta(days=days))


def days_until(d: Draft, ts: str) -> float:
    """Days from `now` to `ts` (negative: in the past)."""
    return (_parse(ts) - _parse(d.now)).total_seconds() / 86400


def ago(d: Draft, min_days: float, max_days: float) -> str:
    return fake.timestamp(d.rng, d.now, min_days, max_days)


def after(d: Draft, ts: str, min_days: float, max_days: float) -> str:
    """A time between min_days and max_days after `ts`."""
    return shift(ts, d.rng.uniform(min_days, max_days))


def staff(d: Draft) -> str:
    """A back-office colleague (agent or supervisor) by name."""
    return fake.person(d.rng)


# ---------------------------------------------------------------------------- workflows


@dataclass(frozen=True)
class FollowUps:
    """How a family's first action is followed up in V2/V3 (and in workflow-shaped V0 tasks).

    The first action creates `created_type` under `key`; `proof_field` = `proof_value` is a field of
    the created record that the action's own result establishes (so the follow-ups are gated on the
    first action really having produced that record).
    """

    thing: str  # how the task calls the created record, e.g. "refund"
    created_type: str
    key: str
    proof_field: str
    proof_value: object
    template: str  # notify_customer template
    note_code: str  # add_account_note code (the task quotes it verbatim)
    v2_kinds: tuple[str, ...] = ("notify", "note")
    v3_kinds: tuple[str, ...] = ("fork_join", "fork3", "fork2")


@dataclass(frozen=True)
class Change:
    """What the first action changes on the record it acts on: afterwards `field` reads `value`.

    The operating policies ask for that record to be read again after the action, before the ticket
    is closed (POL-CUS-12) or a message confirms the change (POL-CUS-11): a read from before the
    action is out of date (the record's version moved on).
    """

    rec: Rec
    field: str
    value: object
    via: str  # the get tool of the record
    why: str


# messages that confirm a change to a record: POL-CUS-11 asks for the changed record to be re-read first
CONFIRMS_CHANGE = ("address_updated", "cancellation_confirmed")

V2_TEXT = {
    "notify": [
        " Then send {name} the confirmation message quoting the new {thing} id.",
        " Once the {thing} exists, notify the customer with its reference.",
        " Afterwards let {name} know by message, referencing the {thing}.",
    ],
    "note": [
        " Then log an account note with code {code} that references the {thing}.",
        " Once that is done, record it on the account with an account note (code {code}) quoting the {thing} id.",
    ],
    "close": [
        " Then close ticket {tid} as resolved, with the {thing} as its resolution reference.",
        " When the {thing} is in place, resolve ticket {tid} and reference the {thing} on it.",
    ],
    "chain4": [
        " Then send {name} the confirmation quoting the {thing} id, log that message on the account with an "
        "account note (code {code}) quoting the message's notification id, and finally close ticket {tid} as "
        "resolved with that account note as its resolution reference.",
        " Once the {thing} exists: first notify the customer with its reference; next add an account note with "
        "code {code} that quotes the id of that notification; last, resolve ticket {tid}, referencing the "
        "account note.",
        " After that, message {name} about the {thing}, then record the message in an account note (code {code}, "
        "referencing the notification id), and then close ticket {tid} as resolved with the note id as the "
        "reference.",
    ],
}
V3_TEXT = {
    "fork_join": [
        " After that, send {name} the confirmation and add an account note with code {code}, both referencing "
        "the {thing}; when both are done, close ticket {tid} with the {thing} as the resolution.",
        " Then notify the customer and log an account note with code {code} (each quoting the {thing} id), and "
        "only after those two close ticket {tid} as resolved, referencing the {thing}.",
    ],
    "fork3": [
        " Once the {thing} exists: message the customer about it, add an account note with code {code} referencing "
        "it, and close ticket {tid} as resolved with it as the reference - in any order.",
        " Then, each referencing the {thing}: notify {name}, log an account note with code {code} and close "
        "ticket {tid} as resolved.",
    ],
    "fork2": [
        " Then send {name} the confirmation and, separately, log an account note with code {code} - both "
        "quoting the {thing} id.",
        " Afterwards notify the customer and add an account note with code {code}, each referencing the {thing}.",
    ],
    "dup5": [
        " After that, send {name} the confirmation and add an account note with code {code}, both referencing "
        "the {thing}; when both are done, close ticket {tid} as resolved with the {thing} as the resolution. The "
        "customer also opened ticket {dup} about the same matter: once ticket {tid} is closed, close ticket {dup} "
        "as a duplicate, referencing ticket {tid}.",
        " Then notify the customer and log an account note with code {code} (each quoting the {thing} id); after "
        "those two, resolve ticket {tid} referencing the {thing}. {name} wrote in twice - when ticket {tid} is "
        "closed, close the second ticket, {dup}, as a duplicate of ticket {tid}.",
        " Once the {thing} exists, message {name} about it and add an account note with code {code} quoting it. "
        "With both done, close ticket {tid} as resolved, the {thing} as its reference; then close ticket {dup}, "
        "the customer's repeat of the same request, as a duplicate with ticket {tid} as its reference.",
    ],
}
V3_SHAPES = ("fork_join", "fork3", "fork2", "dup5")


def _workflow_draft(d: Draft) -> bool:
    return d.protocol in (Protocol.V2, Protocol.V3) or (d.protocol == Protocol.V0 and d.workflow)


def workflow_kind(d: Draft, fu: FollowUps) -> tuple[Protocol, str]:
    """The workflow protocol and shape this draft uses (a V0 workflow task borrows one of them)."""
    if d.protocol == Protocol.V2:
        return Protocol.V2, fu.v2_kinds[d.variant % len(fu.v2_kinds)]
    if d.protocol == Protocol.V3:
        return Protocol.V3, fu.v3_kinds[d.variant % len(fu.v3_kinds)]
    # V0: a BLOCK and a DEFER request of the same variant borrow different workflow shapes
    if (d.variant + (d.want == "DEFER")) % 2 == 0:
        return Protocol.V3, fu.v3_kinds[d.variant % len(fu.v3_kinds)]
    return Protocol.V2, fu.v2_kinds[d.variant % len(fu.v2_kinds)]


def second_ticket(d: Draft, fu: FollowUps, cust: Rec, tkt: Rec) -> Rec | None:
    """The customer's repeat ticket about the same matter, when the workflow closes it as a duplicate."""
    if not _workflow_draft(d) or workflow_kind(d, fu)[1] != "dup5":
        return None
    since = -days_until(d, tkt["opened_at"])
    repeat = ticket(
        d,
        cust,
        f"Re: {tkt['subject']}",
        d.pick(
            [
                f"Writing again about ticket {tkt.id}: {tkt['body']}",
                f"I already reported this in ticket {tkt.id} and have not heard back. {tkt['body']}",
                f"Second message, same issue as ticket {tkt.id}. {tkt['body']}",
            ]
        ),
    )
    repeat.fields["opened_at"] = after(d, tkt["opened_at"], since * 0.2, since * 0.8)
    repeat.fields["channel"] = d.pick(["email", "chat", "phone"])
    return repeat


def workflow_text(d: Draft, fu: FollowUps, name: str, tid: str, dup: Rec | None = None) -> str:
    protocol, kind = workflow_kind(d, fu)
    options = V2_TEXT[kind] if protocol == Protocol.V2 else V3_TEXT[kind]
    # the note code is quoted exactly as add_account_note's note_code enum spells it
    return d.pick(options).format(
        name=name, thing=fu.thing, code=fu.note_code, tid=tid, dup=dup.id if dup is not None else ""
    )


def follow_up(
    d: Draft,
    first: str,
    fu: FollowUps,
    cust: Rec,
    tkt: Rec,
    change: Change | None = None,
    dup: Rec | None = None,
) -> None:
    """Declare the V2 / V3 actions after `first` (the shape `workflow_kind` chose).

    `change`: what `first` changed on its target record; the ticket is closed (and a message that
    confirms the change is sent) only after that record was read again and shows the change.
    `dup`: the repeat ticket (`second_ticket`) of a "dup5" workflow.
    """
    protocol, kind = workflow_kind(d, fu)
    result = d.result(first, fu.key)
    proof = d.require(
        d.created(fu.created_type, first, fu.key),
        fu.proof_field,
        fu.proof_value,
        via=[f"get_{fu.created_type}"],
        result_of=first,
        why=f"the {fu.thing} must really exist before anything refers to it",
    )
    shown: list[str] = []

    def shows_change() -> list[str]:
        if change is None:
            return []
        if not shown:
            shown.append(d.require(change.rec, change.field, change.value, via=[change.via], why=change.why))
        return shown

    def notify(after: list[str] | None = None) -> str:
        r_opt = d.require(
            cust, "contact_opt_in", True, via=["get_customer"], why="messages need the customer's consent"
        )
        confirms = shows_change() if fu.template in CONFIRMS_CHANGE else []
        return d.action(
            "notify_customer",
            cust,
            requires=[r_opt, proof, *confirms],
            after=after or [first],
            customer_id=cust.id,
            template=fu.template,
            reference_id=result,
        )

    def note(reference: object = result, after: list[str] | None = None, extra: list[str] | None = None) -> str:
        r_acct = d.require(cust, "account_status", "active", via=["get_customer"], why="notes go on a live account")
        return d.action(
            "add_account_note",
            None,
            requires=[r_acct, *(extra if extra is not None else [proof])],
            after=after or [first],
            customer_id=cust.id,
            note_code=fu.note_code,
            reference_id=reference,  # type: ignore[arg-type]
        )

    def close(after: list[str], reference: object = result, extra: list[str] | None = None) -> str:
        r_tkt = d.require(tkt, "customer_id", cust.id, via=["get_ticket"], why="the ticket is this customer's")
        return d.action(
            "close_ticket",
            tkt,
            requires=[r_tkt, *(extra if extra is not None else [proof]), *shows_change()],
            after=after,
            ticket_id=tkt.id,
            resolution="resolved",
            reference_id=reference,  # type: ignore[arg-type]
        )

    def close_repeat(after: list[str]) -> str:
        assert dup is not None, "a dup5 workflow needs the repeat ticket (second_ticket)"
        r_own = d.require(dup, "customer_id", cust.id, via=["get_ticket"], why="the repeat ticket is this customer's")
        r_closed = d.require(
            tkt,
            "status",
            "closed",
            via=["get_ticket"],
            why="a ticket is closed as a duplicate only of a ticket that is closed itself (read after closing it)",
        )
        return d.action(
            "close_ticket",
            dup,
            requires=[r_own, r_closed],
            after=after,
            ticket_id=dup.id,
            resolution="duplicate",
            reference_id=tkt.id,
        )

    if protocol == Protocol.V2:
        if kind == "chain4":
            sent = notify()
            r_sent = d.require(
                d.created("notification", sent, "notification_id"),
                "template",
                fu.template,
                result_of=sent,
                why="the note records a message that was really sent",
            )
            logged = note(d.result(sent, "notification_id"), [sent], [r_sent])
            r_logged = d.require(
                d.created("note", logged, "note_id"),
                "note_code",
                fu.note_code,
                result_of=logged,
                why="the ticket's resolution references a note that was really logged",
            )
            close([logged], d.result(logged, "note_id"), [r_logged])
            return
        if kind == "notify":
            notify()
        elif kind == "note":
            note()
        else:
            close([first])
        return
    if kind == "fork_join":
        close([notify(), note()])
    elif kind == "dup5":
        close_repeat([close([notify(), note()])])
    elif kind == "fork3":
        notify()
        note()
        close([first])
    else:
        notify()
        note()


def mentions_ticket(d: Draft, fu: FollowUps) -> bool:
    """Whether the workflow text names the ticket (so the ticket id becomes a context fact)."""
    _, kind = workflow_kind(d, fu)
    return kind in ("close", "chain4", "fork_join", "fork3", "dup5")
