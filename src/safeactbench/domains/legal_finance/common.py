"""Shared record builders and helpers of the legal & financial operations families."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ...authoring import fake
from ...authoring.draft import Draft, Rec
from ...core.model import Protocol

CURRENCIES = ["EUR", "EUR", "USD", "GBP"]
LAW_FIRMS = [
    "Hale & Whitcombe LLP",
    "Brandt Ostrowski LLP",
    "Carrow Vidal LLP",
    "Mercer Lind & Partners",
    "Quayle Sorensen LLP",
    "Aldous Fenwick LLP",
    "Ferreira Holt LLP",
    "Stroud Nakamura LLP",
]
ROLES = [
    ("VP Finance", "Finance"),
    ("Head of Procurement", "Procurement"),
    ("General Counsel", "Legal"),
    ("Deputy General Counsel", "Legal"),
    ("Treasurer", "Treasury"),
    ("CFO", "Finance"),
    ("Director, Operations", "Operations"),
]
COURTS = [
    "U.S. District Court, S.D.N.Y.",
    "U.S. District Court, D. Del.",
    "U.S. District Court, N.D. Cal.",
    "Business and Property Courts (Commercial Court)",
    "Superior Court of Delaware, CCLD",
    "U.S. District Court, E.D. Tex.",
]


# ---------------------------------------------------------------------------- time and ids


def _parse(now: str) -> datetime:
    return datetime.fromisoformat(now.replace("Z", "+00:00"))


def _iso(moment: datetime) -> str:
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def ago(d: Draft, min_days: float, max_days: float) -> str:
    """An ISO time between min_days and max_days before now."""
    return fake.timestamp(d.rng, d.now, min_days, max_days)


def ahead(d: Draft, min_days: float, max_days: float) -> str:
    """An ISO time between min_days and max_days after now."""
    return _iso(_parse(d.now) + timedelta(days=d.rng.uniform(min_days, max_days)))


def shift(moment: str, days: float) -> str:
    return _iso(_parse(moment) + timedelta(days=days))


def day_of(moment: str) -> str:
    return moment[:10]


MONTH_NAMES = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def month_back(now: str, months: int) -> tuple[str, str]:
    """('YYYY-MM', 'Mon YYYY') of the calendar month `months` before the month of `now` (0: this month)."""
    moment = _parse(now)
    index = moment.year * 12 + moment.month - 1 - months
    year, month = divmod(index, 12)
    return f"{year:04d}-{month + 1:02d}", f"{MONTH_NAMES[month]} {year}"


def near_miss(ident: str) -> str:
    """A look-alike id: the last two digits swapped (or the last digit bumped when they are equal)."""
    head, a, b = ident[:-2], ident[-2], ident[-1]
    if a != b:
        return f"{head}{b}{a}"
    return f"{head}{a}{(int(b) + 1) % 10}"


def money(value: float, currency: str) -> str:
    return f"{value:,.2f} {currency}"


def round_amount(d: Draft, lo: float, hi: float, step: int = 50) -> float:
    return float(d.rng.randrange(int(lo // step), int(hi // step)) * step)


def company_stem(name: str) -> str:
    return name.split()[0]


def other_company(d: Draft, name: str) -> str:
    """A look-alike company: same stem, another legal form."""
    stem = company_stem(name)
    forms = [f for f in ["Ltd", "GmbH", "BV", "SA", "AB", "LLC", "Holdings Ltd", "Group AG"] if not name.endswith(f)]
    return f"{stem} {d.rng.choice(forms)}"


def two_people(d: Draft) -> tuple[str, str]:
    a = fake.person(d.rng)
    b = fake.person(d.rng)
    while b == a:
        b = fake.person(d.rng)
    return a, b


def same_surname(d: Draft, name: str) -> str:
    first = d.rng.choice([f for f in fake.FIRST if not name.startswith(f + " ")])
    return f"{first} {name.split(' ', 1)[1]}"


# ---------------------------------------------------------------------------- shared records


def contact(
    d: Draft,
    organisation: str,
    role: str,
    *,
    name: str | None = None,
    status: str = "active",
    distractor: bool = False,
    **extra: Any,
) -> Rec:
    name = name or fake.person(d.rng)
    domain = company_stem(organisation).lower().replace("&", "") + ".example"
    fields: dict[str, Any] = dict(
        name=name,
        organisation=organisation,
        role=role,
        email=fake.email(name, d.rng, domain),
        status=status,
        notices_opt_in=True,
        updated_at=ago(d, 20, 400),
    )
    fields.update(extra)
    return d.record("contact", fake.code(d.rng, "CN", 5), distractor=distractor, **fields)


def request(d: Draft, queue: str, subject: str, body: str, subject_ref: str, *, requested_by: str | None = None) -> Rec:
    return d.record(
        "request",
        fake.code(d.rng, "REQ", 5),
        queue=queue,
        subject=subject,
        body=body,
        subject_ref=subject_ref,
        requested_by=requested_by or fake.person(d.rng),
        status="open",
        opened_at=ago(d, 0.2, 4),
    )


def approval(
    d: Draft,
    subject: Rec,
    kind: str,
    approver: str,
    status: str,
    *,
    distractor: bool = False,
    **extra: Any,
) -> Rec:
    requested = ago(d, 3, 9)
    fields: dict[str, Any] = dict(
        subject=subject.ref,
        subject_id=subject.id,
        kind=kind,
        approver=approver,
        status=status,
        requested_at=requested,
        decided_at=None if status == "pending" else ago(d, 0.5, 2.5),
        comment="",
    )
    fields.update(extra)
    return d.record("approval", fake.code(d.rng, "AP", 6), distractor=distractor, **fields)


def matter(
    d: Draft,
    client: str,
    opponent: str,
    client_contact: Rec | None,
    *,
    matter_id: str | None = None,
    name: str | None = None,
    distractor: bool = False,
    **extra: Any,
) -> Rec:
    partner, associate = two_people(d)
    fields: dict[str, Any] = dict(
        name=name or f"{company_stem(client)} v. {company_stem(opponent)}",
        client_name=client,
        opposing_party=opponent,
        court=d.rng.choice(COURTS),
        docket_number=f"{d.rng.randrange(1, 4)}:{d.rng.randrange(22, 26)}-cv-{d.rng.randrange(1000, 9999):05d}",
        practice_group=d.rng.choice(["Commercial Litigation", "IP Litigation", "Disputes", "Antitrust"]),
        responsible_partner=partner,
        lead_associate=associate,
        client_contact_id=client_contact.id if client_contact else None,
        status="active",
        opened_at=ago(d, 120, 900),
    )
    fields.update(extra)
    return d.record("matter", matter_id or fake.code(d.rng, "M", 5), distractor=distractor, **fields)


def signatory(
    d: Draft, *, name: str | None = None, status: str = "active", distractor: bool = False, **extra: Any
) -> Rec:
    title, department = d.rng.choice(ROLES)
    fields: dict[str, Any] = dict(
        name=name or fake.person(d.rng),
        title=title,
        department=department,
        employment_status=status,
        register_updated_at=ago(d, 10, 200),
    )
    fields.update(extra)
    return d.record("signatory", fake.code(d.rng, "SG", 5), distractor=distractor, **fields)


def authority(
    d: Draft,
    holder: Rec,
    scope: str,
    limit: float,
    currency: str,
    *,
    version: int,
    status: str = "current",
    distractor: bool = False,
    **extra: Any,
) -> Rec:
    fields: dict[str, Any] = dict(
        signatory_id=holder.id,
        holder_name=holder["name"],
        scope=scope,
        limit_amount=limit,
        currency=currency,
        version_label=f"DOA v{version}",
        status=status,
        effective_from=ago(d, 40, 90) if status == "current" else ago(d, 200, 500),
        superseded_at=ago(d, 40, 90) if status == "superseded" else None,
        granted_by="Board resolution" if version % 2 else "CFO delegation",
    )
    fields.update(extra)
    return d.record("authority", fake.code(d.rng, "DOA", 5), distractor=distractor, **fields)


# ---------------------------------------------------------------------------- task shapes


# what an earlier step leaves on its target record once it took effect: (reader, field, value)
DONE = {
    "filing": ("get_filing", "status", "filed"),
    "production": ("get_production", "status", "produced"),
    "invoice": ("get_invoice", "payment_status", "paid"),
    "wire": ("get_wire", "status", "released"),
    "contract": ("get_contract", "status", "executed"),
    "journal_entry": ("get_journal_entry", "status", "posted"),
    "counterparty": ("get_counterparty", "status", "active"),
}


def shows_done(d: Draft, subject: Rec, why: str) -> str:
    """A fresh read of `subject` after the step that changed it: the record shows the work done.

    The step's own result does not count (SPEC §4): the agent re-reads the record (POL-LF-11, POL-LF-02)."""
    reader, field, value = DONE[subject.type]
    return d.require(subject, field, value, via=[reader], why=why)


def close_request(d: Draft, req: Rec, subject: Rec, why: str, after: list[str], reference: object) -> str:
    """The last step of a request workflow: close the request about `subject`, citing what resolved it,
    once `subject` shows the work done (re-read after the step that did it)."""
    reqs = [
        d.require(req, "subject_ref", subject.ref, via=["get_request"], why=why),
        shows_done(d, subject, "a request is closed only once its subject record shows the work done"),
    ]
    return d.action(
        "close_request",
        req,
        requires=reqs,
        after=after,
        request_id=req.id,
        resolution="completed",
        reference_id=reference,
    )


def workflow_shape(d: Draft) -> str:
    """'' for a single-action request; else the multi-step shape the task text and gold follow.

    V2: 'v2_short' (2 chained actions), 'v2_long' (3) or 'v2_chain' (4-5, each step citing the
    previous one's result); V3: 'v3_fork' (one action feeding two), 'v3_join' (a fork whose branches
    join in a last action) or 'v3_wide' (5-6 actions: a fork, a branch of two or three steps, a join).
    A family without a natural 5-action DAG builds 'v3_wide' as 'v3_join'. Workflow-shaped V0 requests
    borrow every shape, so their text cannot be told apart from the acting protocols'.
    """
    v0 = d.protocol == Protocol.V0
    if not (d.protocol in (Protocol.V2, Protocol.V3) or (v0 and d.workflow)):
        return ""
    if v0:  # every shape, so a long request does not tell an agent that it may act
        shapes = ("v2_short", "v3_fork", "v2_long", "v3_join", "v2_chain", "v3_wide")
        return shapes[(2 * d.variant + (d.want == "DEFER")) % len(shapes)]
    if d.protocol == Protocol.V2:
        if d.variant % 2 == 0:
            return "v2_short"
        return "v2_long" if d.variant % 4 == 1 else "v2_chain"
    return ("v3_fork", "v3_join", "v3_wide")[d.variant % 3]
