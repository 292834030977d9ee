"""Records every engineering-operations scenario starts from: services, engineers, change
requests, approvals, incidents, plus time and id helpers."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ...authoring import fake
from ...authoring.draft import Draft, Rec

BASES = [
    "checkout",
    "payments",
    "inventory",
    "search",
    "notifications",
    "auth",
    "billing",
    "ledger",
    "catalog",
    "shipping",
    "pricing",
    "profile",
    "media",
    "fraud",
    "session",
    "orders",
    "recommendations",
    "geo",
    "invoicing",
    "loyalty",
]
SUFFIXES = ["api", "gateway", "worker", "service", "router", "scheduler"]
TEAMS = ["payments", "platform", "storefront", "identity", "data-infra", "growth", "fulfilment", "core-api"]
REGIONS = ["fra1", "fra2", "ams1", "ams2", "dub1", "iad1", "iad2", "sfo1", "sin1", "lhr1"]


# ---------------------------------------------------------------------------- ids and time
def uid(d: Draft, prefix: str, digits: int = 5) -> str:
    """A code like `CHG-48213`, unique among the draft's records."""
    taken = {r.id for r in d.records}
    while True:
        candidate = fake.code(d.rng, prefix, digits)
        if candidate not in taken:
            return candidate


def at(d: Draft, hours: float) -> str:
    """The ISO time `hours` from now (negative: past)."""
    base = datetime.fromisoformat(d.now.replace("Z", "+00:00"))
    moment = base + timedelta(hours=hours)
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def ago(d: Draft, lo: float, hi: float) -> str:
    """A past time between `lo` and `hi` hours before now, rounded to the minute."""
    return at(d, -round(d.rng.uniform(lo, hi) * 60) / 60)


def ahead(d: Draft, lo: float, hi: float) -> str:
    """A future time between `lo` and `hi` hours after now, rounded to the minute."""
    return at(d, round(d.rng.uniform(lo, hi) * 60) / 60)


# ---------------------------------------------------------------------------- people
def handle(name: str) -> str:
    first, _, last = name.lower().partition(" ")
    return f"{first}.{last}"


def engineer(
    d: Draft,
    *,
    team: str,
    name: str | None = None,
    distractor: bool = False,
    rotation_id: str | None = None,
    status: str = "active",
) -> Rec:
    taken = {r.id for r in d.records if r.type == "engineer"}
    while True:
        full = name or fake.person(d.rng)
        if handle(full) not in taken:
            break
        name = None
    return d.record(
        "engineer",
        handle(full),
        distractor=distractor,
        name=full,
        email=f"{handle(full)}@corp.example",
        team=team,
        title=d.rng.choice(["Site Reliability Engineer", "Software Engineer", "Platform Engineer", "Staff Engineer"]),
        rotation_id=rotation_id,
        status=status,
        timezone=d.rng.choice(["Europe/Berlin", "Europe/Dublin", "America/New_York", "Europe/Lisbon"]),
    )


def namesake(d: Draft, person: Rec, *, team: str) -> Rec:
    """Another engineer with the same first name (a near miss for name searches)."""
    first = str(person["name"]).split(" ")[0]
    taken = {str(r.fields.get("name", "")) for r in d.records if r.type == "engineer"}
    while True:
        full = f"{first} {d.rng.choice(fake.LAST)}"
        if full not in taken:
            return engineer(d, team=team, name=full, distractor=True)


# ---------------------------------------------------------------------------- services
def service(d: Draft, *, base: str | None = None, suffix: str | None = None, distractor: bool = False) -> Rec:
    taken = {r.id for r in d.records if r.type == "service"}
    while True:
        slug = f"{base or d.rng.choice(BASES)}-{suffix or d.rng.choice(SUFFIXES)}"
        if slug not in taken:
            break
        suffix = None
    team = d.rng.choice(TEAMS)
    return d.record(
        "service",
        slug,
        distractor=distractor,
        name=slug,
        team=team,
        tier=d.rng.choice(["tier-1", "tier-1", "tier-2"]),
        status="active",
        change_channel=f"#chg-{slug}",
        # where its change announcements go: its change channel and the team's or company's feeds
        announce_channels=[f"#chg-{slug}", *d.rng.sample([f"#{team}-oncall", "#eng-changes", "statuspage"], 2)],
        pipeline_id=f"pl-{slug}",
        repo=f"git.corp.example/{team}/{slug}",
        runbook=f"https://runbooks.corp.example/{slug}",
    )


def sibling(d: Draft, svc: Rec) -> Rec:
    """A service with the same name stem (checkout-api vs checkout-worker): a near miss."""
    base = str(svc.id).rsplit("-", 1)[0]
    return service(d, base=base, distractor=True)


def release_tag(d: Draft) -> tuple[str, str]:
    """(bad, previous) semantic version tags."""
    major, minor, patch = d.rng.randint(1, 9), d.rng.randint(0, 40), d.rng.randint(1, 12)
    return f"v{major}.{minor}.{patch}", f"v{major}.{minor}.{patch - 1}"


# ---------------------------------------------------------------------------- change management
def change_request(
    d: Draft,
    svc: Rec,
    title: str,
    *,
    requester: Rec,
    approver: Rec,
    status: str = "approved",
    distractor: bool = False,
    **extra: Any,
) -> Rec:
    """A change request. `approved` ones carry the decision time and a future expiry; `expired` ones
    an expiry in the past (re-approval renews them); `rejected` ones the decision and its reason (a
    rejection is final: a retry is a new change request); `pending_approval` ones no decision yet."""
    fields: dict[str, Any] = dict(
        service_id=svc.id,
        title=title,
        risk=d.rng.choice(["low", "medium", "medium", "high"]),
        requested_by=requester.id,
        approver=approver.id,
        status=status,
        created_at=ago(d, 20, 70),
        decided_at=None,
        expires_at=None,
        window_start=ago(d, 0.5, 2),
        window_end=ahead(d, 3, 8),
        notes="",
    )
    if status == "approved":
        fields.update(decided_at=ago(d, 2, 18), expires_at=ahead(d, 6, 40), notes="reviewed in CAB")
    elif status == "expired":
        lapsed = ago(d, 2, 30)
        fields.update(
            created_at=ago(d, 130, 200),
            decided_at=ago(d, 80, 120),
            expires_at=lapsed,
            window_start=ago(d, 40, 70),
            window_end=lapsed,
            notes="approval lapsed before implementation; re-approval required",
        )
    elif status == "pending_approval":
        fields.update(notes=f"waiting for {approver['name']} to review")
    elif status == "rejected":
        fields.update(
            decided_at=ago(d, 2, 18),
            notes=d.rng.choice(
                [
                    "rejected: overlaps the quarterly billing run",
                    "rejected: rollback plan missing",
                    "rejected: risk assessment understated",
                ]
            ),
        )
    fields.update(extra)
    return d.record("change_request", uid(d, "CHG"), distractor=distractor, **fields)


def approval(
    d: Draft,
    subject: str,
    *,
    kind: str,
    approver: Rec,
    status: str = "approved",
    distractor: bool = False,
    **extra: Any,
) -> Rec:
    fields: dict[str, Any] = dict(
        subject=subject,
        kind=kind,
        approver=approver.id,
        status=status,
        requested_at=ago(d, 0.8, 1.5),
        decided_at=None,
        expires_at=None,
        comment="",
    )
    if status == "approved":
        fields.update(
            decided_at=ago(d, 0.1, 0.6), expires_at=ahead(d, 0.5, 3), comment="reviewed on the incident bridge"
        )
    elif status == "expired":
        fields.update(
            requested_at=ago(d, 6, 10),
            decided_at=ago(d, 5, 6),
            expires_at=ago(d, 0.5, 3),
            comment="approved for the first response window",
        )
    elif status == "rejected":
        fields.update(decided_at=ago(d, 0.1, 0.6), comment="use the read-only role")
    fields.update(extra)
    return d.record("approval", uid(d, "APR"), distractor=distractor, **fields)


def incident(d: Draft, svc: Rec, *, commander: Rec, status: str = "open", title: str = "", **extra: Any) -> Rec:
    fields: dict[str, Any] = dict(
        title=title or f"Elevated error rate on {svc.id}",
        service_id=svc.id,
        severity=d.rng.choice(["sev1", "sev2", "sev2"]),
        status=status,
        commander=commander.id,
        opened_at=ago(d, 0.5, 3),
        resolved_at=ago(d, 0.1, 0.4) if status == "resolved" else None,
        summary="",
    )
    fields.update(extra)
    return d.record("incident", uid(d, "INC", 4), **fields)


def channels_known(d: Draft, svc: Rec) -> str:
    """An announcement goes to every announce channel of the service: read them from the service record."""
    return d.require(
        svc,
        "announce_channels",
        list(svc["announce_channels"]),
        via=["get_service"],
        why="the announcement goes to every channel the service lists",
    )


def message_approver(d: Draft, chg: Rec, approver: Rec, svc: Rec, announced: str, template: str) -> str:
    """The last step of a five-action change: forward the announcement to the change request's approver."""
    r_posted = d.require(
        d.created("announcement", announced, "announcement_id"),
        "channel",
        svc["change_channel"],
        result_of=announced,
        why="the announcement went to the service's change channel",
    )
    r_approver = d.require(
        chg,
        "approver",
        approver.id,
        via=["get_change_request"],
        fresh=False,  # closing the change request records its outcome; its approver does not change
        why="the recipient is the change request's approver",
    )
    return d.action(
        "notify_engineer",
        approver,
        requires=[r_posted, r_approver],
        after=[announced],
        engineer_id=approver.id,
        template=template,
        reference_id=d.result(announced, "announcement_id"),
    )
