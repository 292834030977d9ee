"""Records every healthcare-operations scenario starts from (all synthetic).

Times are ISO-8601 UTC strings of one format (`YYYY-MM-DDTHH:MM:SSZ`), so requirements can compare
them as strings against the case's virtual now (`d.now`) or a cutoff derived from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from ...authoring import fake
from ...authoring.draft import Draft, Rec
from ...core.model import ArgRef, Protocol

PAYERS = [
    ("Northwind Health", "Northwind Select"),
    ("Bluefin Mutual", "Bluefin Core"),
    ("Larkspur Care", "Larkspur Community"),
    ("Halcyon Assurance", "Halcyon Prime"),
    ("Meridian Health Plan", "Meridian Direct"),
    ("Verity Health", "Verity Choice"),
]
SITES = [
    "Riverside Campus",
    "Northgate Clinic",
    "Harbour Medical Centre",
    "Linden Way Health Centre",
    "Station Street Surgery Centre",
    "Orchard Row Outpatients",
]
SLOT_TIMES = [
    "08:00",
    "08:30",
    "09:00",
    "09:30",
    "10:00",
    "10:30",
    "11:00",
    "13:00",
    "13:30",
    "14:00",
    "15:00",
    "15:30",
]
STAFF = ["front desk", "scheduling", "HIM", "care coordination", "pharmacy liaison", "case management"]


# ---------------------------------------------------------------------------- time


def _base(d: Draft) -> datetime:
    return datetime.fromisoformat(d.now.replace("Z", "+00:00"))


def iso(moment: datetime) -> str:
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def shift(d: Draft, days: float) -> str:
    """The instant `days` from now (negative: in the past)."""
    return iso(_base(d) + timedelta(days=days))


def shift_from(stamp: str, days: float) -> str:
    return iso(datetime.fromisoformat(stamp.replace("Z", "+00:00")) + timedelta(days=days))


def past(d: Draft, lo: float, hi: float) -> str:
    return fake.timestamp(d.rng, d.now, lo, hi)


def future(d: Draft, lo: float, hi: float) -> str:
    return shift(d, d.rng.uniform(lo, hi))


def age_days(d: Draft, stamp: str) -> float:
    """How many days before now `stamp` lies (negative: in the future)."""
    return (_base(d) - datetime.fromisoformat(stamp.replace("Z", "+00:00"))).total_seconds() / 86400


def date_of(stamp: str) -> str:
    return stamp[:10]


def slot_start(d: Draft, lo_days: int, hi_days: int) -> str:
    """A clinic start time on a weekday `lo_days`..`hi_days` from now."""
    base = _base(d)
    for _ in range(20):
        day = base + timedelta(days=d.rng.randint(lo_days, hi_days))
        if day.weekday() < 5:
            break
    hour, minute = d.rng.choice(SLOT_TIMES).split(":")
    return iso(day.replace(hour=int(hour), minute=int(minute), second=0))


def birth_date(d: Draft, lo_year: int = 1941, hi_year: int = 2004) -> str:
    return f"{d.rng.randint(lo_year, hi_year)}-{d.rng.randint(1, 12):02d}-{d.rng.randint(1, 28):02d}"


def other_birth_date(d: Draft, dob: str) -> str:
    """A different date of birth, close enough to be confused (same year or month shuffled)."""
    year, month, day = dob.split("-")
    while True:
        candidate = (
            f"{year}-{d.rng.randint(1, 12):02d}-{day}"
            if d.rng.random() < 0.5
            else f"{int(year) + d.rng.choice([-11, -3, -1, 1, 2, 9])}-{month}-{day}"
        )
        if candidate != dob:
            return candidate


# ---------------------------------------------------------------------------- ids


def similar_id(record_id: str) -> str:
    """A near-miss id: the last two digits swapped (or the last one changed)."""
    head, tail = record_id[:-2], record_id[-2:]
    if tail[0] != tail[1]:
        return head + tail[::-1]
    return head + tail[0] + str((int(tail[1]) + 3) % 10)


def surname(name: str) -> str:
    return name.split()[-1]


# ---------------------------------------------------------------------------- people


def patient(
    d: Draft,
    *,
    name: str | None = None,
    dob: str | None = None,
    record_id: str | None = None,
    distractor: bool = False,
    **over: Any,
) -> Rec:
    name = name or fresh_person(d)
    fields: dict[str, Any] = dict(
        name=name,
        date_of_birth=dob or birth_date(d),
        mrn=fake.code(d.rng, "MRN", 7),
        status="active",
        identity_verified=True,
        primary_clinician_id=None,
        coverage_id=None,
        contact_opt_in=True,
        preferred_channel=d.rng.choice(["portal", "sms", "email"]),
        phone=f"555-01{d.rng.randrange(0, 100):02d}",
        email=fake.email(name, d.rng, "mail.example"),
        registered_at=past(d, 300, 4000),
        updated_at=past(d, 2, 200),
    )
    fields.update(over)
    return d.record("patient", record_id or fake.code(d.rng, "P", 6), distractor=distractor, **fields)


def namesake(d: Draft, pat: Rec, **over: Any) -> Rec:
    """Another patient with the same name, a different date of birth and a similar id."""
    return patient(
        d,
        name=pat["name"],
        dob=other_birth_date(d, pat["date_of_birth"]),
        record_id=similar_id(pat.id),
        distractor=True,
        **over,
    )


def fresh_person(d: Draft) -> str:
    """A name whose surname no person already in the draft has (so 'Dr. X' is never ambiguous by accident)."""
    taken = {surname(str(r.fields["name"])) for r in d.records if r.type in ("patient", "clinician")}
    name = fake.person(d.rng)
    for _ in range(30):
        if surname(name) not in taken:
            break
        name = fake.person(d.rng)
    return name


def clinician(d: Draft, specialty: str, *, name: str | None = None, distractor: bool = False, **over: Any) -> Rec:
    name = name or fresh_person(d)
    _payer, network = d.rng.choice(PAYERS)
    fields: dict[str, Any] = dict(
        name=name,
        credentials=d.rng.choice(["MD", "MD", "DO"]),
        specialty=specialty,
        department=f"{specialty} clinic",
        location=d.rng.choice(SITES),
        status="active",
        ordering_privileges="active",
        accepting_referrals=True,
        network=network,
        network_status="participating",
        provider_number=fake.code(d.rng, "PRV", 6),
    )
    fields.update(over)
    return d.record("clinician", fake.code(d.rng, "CL", 4), distractor=distractor, **fields)


def doctor(rec: Rec) -> str:
    return f"Dr. {surname(rec['name'])}"


def article(word: str) -> str:
    return f"an {word}" if word[:1].lower() in "aeiou" else f"a {word}"


def coverage(d: Draft, pat: Rec, *, payer: tuple[str, str] | None = None, **over: Any) -> Rec:
    payer_name, network = payer or d.rng.choice(PAYERS)
    plan_type = d.rng.choice(["HMO", "PPO", "EPO"])
    fields: dict[str, Any] = dict(
        patient_id=pat.id,
        payer=payer_name,
        plan_name=f"{network} {plan_type}",
        plan_type=plan_type,
        network=network,
        member_id=fake.token(d.rng, "MBR", 8),
        status="active",
        effective_from=past(d, 60, 700),
        effective_to=future(d, 90, 400),
        out_of_network_benefits=plan_type == "PPO",
        eligibility_checked_at=past(d, 1, 20),
    )
    fields.update(over)
    rec = d.record("coverage", fake.code(d.rng, "COV", 6), **fields)
    pat.fields["coverage_id"] = rec.id
    return rec


def organization(d: Draft, kind: str, name: str, *, distractor: bool = False, **over: Any) -> Rec:
    fields: dict[str, Any] = dict(
        name=name,
        kind=kind,
        city=d.rng.choice(fake.CITIES),
        status="active",
        phone=f"555-02{d.rng.randrange(0, 100):02d}",
        onboarded_at=past(d, 200, 2500),
    )
    fields.update(over)
    return d.record("organization", fake.code(d.rng, "ORG", 5), distractor=distractor, **fields)


# ---------------------------------------------------------------------------- scheduling


def slot(
    d: Draft,
    clin: Rec,
    lo_days: int,
    hi_days: int,
    *,
    status: str = "open",
    minutes: int = 30,
    distractor: bool = False,
    avoid_dates: tuple[str, ...] = (),
    **over: Any,
) -> Rec:
    for _ in range(30):
        start = slot_start(d, lo_days, hi_days)
        if date_of(start) not in avoid_dates:
            break
    fields = _slot_fields(d, clin, start, minutes, status)
    fields.update(over)
    return d.record("slot", fake.code(d.rng, "SL", 6), distractor=distractor, **fields)


def _slot_fields(d: Draft, clin: Rec, start: str, minutes: int, status: str, **more: Any) -> dict[str, Any]:
    """A slot of `clin` starting at `start`; `more` (a hold note, the booked patient) before its update time."""
    return dict(
        clinician_id=clin.id,
        date=date_of(start),
        starts_at=start,
        ends_at=shift_from(start, minutes / 1440),
        location=clin["location"],
        room_id=None,
        status=status,
        **{"hold_note": None, **more},
        updated_at=past(d, 0.5, 10),
    )


def clinic_day(
    d: Draft,
    clin: Rec,
    lo_days: int,
    hi_days: int,
    *,
    avoid_dates: tuple[str, ...] = (),
    booked_for: Sequence[str],
    minutes: int = 30,
) -> tuple[str, list[Rec]]:
    """A clinician's whole schedule on one weekday (its date, and its open slots): slots at every clinic
    time, numbered in time order (so `list_slots` pages through the day in time order). The morning is
    fully booked or blocked, filling the first page of `list_slots`; two or three afternoon slots are
    still open, one held for triage - the caller may take any open one (a choice the agent makes)."""
    for _ in range(30):
        day = date_of(slot_start(d, lo_days, hi_days))
        if day not in avoid_dates:
            break
    first = d.rng.randrange(100000, 900000)
    morning = [t for t in SLOT_TIMES if t < "12:00"]
    afternoon = [t for t in SLOT_TIMES if t >= "12:00"]
    opened = set(d.rng.sample(afternoon, d.rng.choice([2, 3])))
    held = d.rng.choice([t for t in afternoon if t not in opened])
    open_slots: list[Rec] = []
    for n, time in enumerate(morning + afternoon):
        start = f"{day}T{time}:00Z"
        status = "open" if time in opened else "held" if time == held else d.rng.choice(["booked", "booked", "blocked"])
        note = {
            "held": "Held for an urgent add-on pending triage.",
            "blocked": "Admin block: clinic meeting.",
        }.get(status)
        booked = d.rng.choice(booked_for) if status == "booked" else None
        fields = _slot_fields(d, clin, start, minutes, status, hold_note=note, booked_patient_id=booked)
        rec = d.record("slot", f"SL-{first + n}", **fields)
        if status == "open":
            open_slots.append(rec)
    return day, open_slots


def prior_auth(
    d: Draft,
    pat: Rec,
    cov: Rec,
    service_code: str,
    service_name: str,
    *,
    status: str = "approved",
    distractor: bool = False,
    **over: Any,
) -> Rec:
    decided = status in ("approved", "denied", "expired")
    fields: dict[str, Any] = dict(
        patient_id=pat.id,
        coverage_id=cov.id,
        payer=cov["payer"],
        service_code=service_code,
        service_name=service_name,
        status=status,
        reference_number=fake.token(d.rng, "AUTH", 8),
        requested_at=past(d, 12, 40),
        decision_at=past(d, 1, 10) if decided else None,
        expires_at=future(d, 30, 150) if status == "approved" else None,
        reviewer_note=None,
    )
    fields.update(over)
    return d.record("prior_authorization", fake.code(d.rng, "PA", 6), distractor=distractor, **fields)


# ---------------------------------------------------------------------------- task shape


def request_shape(d: Draft, chains: tuple[str, ...] = ("chain",), dags: tuple[str, ...] = ("dag",)) -> str:
    """What the request asks for: 'single' (V1, most V0), one of `chains` (V2, by variant) or one of `dags`
    (V3, by variant; longer DAGs are variants of their own).

    A workflow-shaped V0 request takes a chain or DAG wording at random, so its shape gives nothing away.
    """
    if d.protocol == Protocol.V3:
        return dags[d.variant % len(dags)]
    if d.protocol == Protocol.V2:
        return chains[d.variant % len(chains)]
    if d.protocol == Protocol.V0 and d.workflow:
        return d.rng.choice([*dags, *chains])
    return "single"


# ---------------------------------------------------------------------------- requirements


def contact_ok(d: Draft, pat: Rec) -> str:
    return d.require(pat, "contact_opt_in", True, via=["get_patient"], why="messages go only to patients who opted in")


def slot_taken(d: Draft, slot: Rec | ArgRef, pat: Rec) -> list[str]:
    """Before confirming a booked visit to the patient: the slot, read again after the booking (which changes
    it), shows it booked for this patient (POL-HC-10) - a read from before the booking is stale."""
    return [
        d.require(slot, "status", "booked", via=["get_slot"], why="the slot now shows the booking"),
        d.require(slot, "booked_patient_id", pat.id, via=["get_slot"], why="booked for this patient, not another"),
    ]


def note_message(d: Draft, pat: Rec, msg: str, note_code: str) -> str:
    """A chart note documenting the message `msg` sent the patient, citing the message's id."""
    return d.action(
        "add_chart_note",
        None,
        requires=[message_sent(d, msg)],
        after=[msg],
        patient_id=pat.id,
        note_code=note_code,
        reference_id=d.result(msg, "message_id"),
    )


def message_sent(d: Draft, msg: str) -> str:
    """A chart note that documents a notification cites the message the notification returned."""
    return d.require(
        d.created("patient_message", msg, "message_id"), "status", "sent", result_of=msg,
        why="the message actually went out",
    )  # fmt: skip
