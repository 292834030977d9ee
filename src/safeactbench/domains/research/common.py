"""Records every research-operations scenario starts from, and the shared follow-up steps.

The lab is a university research group whose operations assistant works the service desk. People,
projects and requests are built here; each family adds the records of its own situation. The
follow-up helpers declare the closing steps most workflows share (notify someone, log the event on
the project, close the request), each with a requirement of its own.

Freshness (SPEC §4, POL-RES-12): a follow-up reports the work as done, so it also requires the
record the work changed to show the change - read *after* the action (`done`). Every follow-up of a
workflow passes that requirement in `also`; one re-read after the first action satisfies them all,
while a read from before the action is stale (the action bumped the record's version).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from ...authoring import fake
from ...authoring.draft import Draft, Rec
from ...core.model import ArgRef

TOPICS = {
    "Adolescent Sleep and Memory Consolidation": "Psychology",
    "Coastal Sediment Transport": "Earth Sciences",
    "Gut Microbiome Diversity in Older Adults": "Biology",
    "Urban Heat Islands and Cardiovascular Admissions": "Public Health",
    "Reading Fluency Interventions": "Education",
    "Soil Carbon under Cover Crops": "Environmental Science",
    "Loneliness and Social Media Use": "Sociology",
    "Air Pollution and Asthma in Children": "Public Health",
    "Bilingual Language Acquisition": "Linguistics",
    "Wearable Gait Monitoring after Stroke": "Rehabilitation Sciences",
    "Pollinator Decline in Alpine Meadows": "Biology",
    "Shift Work and Metabolic Health": "Public Health",
    "Mindfulness Training for Nurses": "Psychology",
    "Household Energy Poverty": "Sociology",
    "Antibiotic Resistance in Wastewater": "Environmental Science",
    "Early Numeracy in Preschoolers": "Education",
    "Chronic Pain and Physical Activity": "Rehabilitation Sciences",
    "Microplastics in Freshwater Fish": "Environmental Science",
    "Migraine Triggers in Working Adults": "Neuroscience",
    "Voter Turnout and Local News": "Political Science",
    "Neural Markers of Decision Fatigue": "Neuroscience",
    "Glacier Melt and River Chemistry": "Earth Sciences",
    "Peer Tutoring in Secondary Schools": "Education",
    "Dietary Sodium and Blood Pressure": "Public Health",
}
COHORTS = ["Cohort", "Panel Study", "Field Survey", "Trial", "Registry Study", "Longitudinal Study"]
LAB_ROLES = ["postdoc", "PhD student", "research technician", "research associate", "data manager"]
PARTNER_SUFFIX = ["University", "Medical Center", "Institute of Technology", "School of Public Health"]


def at(d: Draft, lo_days: float, hi_days: float) -> str:
    """An ISO time between lo_days and hi_days from now (negative: in the past)."""
    base = datetime.fromisoformat(d.now.replace("Z", "+00:00"))
    moment = base + timedelta(days=d.rng.uniform(lo_days, hi_days))
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def topic(d: Draft) -> str:
    return d.pick(list(TOPICS))


def in_year(d: Draft, year: int) -> str:
    """An ISO time inside `year` (and before now)."""
    start = datetime(year, 1, 1, tzinfo=UTC)
    stop = min(datetime(year + 1, 1, 1, tzinfo=UTC), datetime.fromisoformat(d.now.replace("Z", "+00:00")))
    moment = start + (stop - start) * d.rng.uniform(0.05, 0.95)
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def home_institution(d: Draft) -> str:
    return f"University of {d.rng.choice(fake.CITIES)}"


def partner_institution(d: Draft, *avoid: str) -> str:
    while True:
        name = f"{d.rng.choice(fake.CITIES)} {d.rng.choice(PARTNER_SUFFIX)}"
        if all(name.split()[0] not in other for other in avoid):
            return name


def other_person(d: Draft, *taken: str) -> str:
    while True:
        name = fake.person(d.rng)
        if name not in taken:
            return name


def researcher(
    d: Draft,
    *,
    role: str | None = None,
    institution: str,
    name: str | None = None,
    status: str = "active",
    distractor: bool = False,
    **extra: Any,
) -> Rec:
    name = name or fake.person(d.rng)
    mail_domain = institution.lower().replace("university of ", "uni-").replace(" ", "-") + ".example"
    return d.record(
        "researcher",
        fake.code(d.rng, "R", 5),
        distractor=distractor,
        name=name,
        email=fake.email(name, d.rng, mail_domain),
        institution=institution,
        role=role or d.rng.choice(LAB_ROLES),
        status=status,
        orcid=f"0000-000{d.rng.randrange(1, 9)}-{d.rng.randrange(1000, 9999)}-{d.rng.randrange(1000, 9999)}",
        joined_at=fake.timestamp(d.rng, d.now, *((1800, 5000) if role == "principal investigator" else (120, 1700))),
        **extra,
    )


def project(d: Draft, pi: Rec, title: str, *, members: list[Rec] | None = None, **extra: Any) -> Rec:
    return d.record(
        "project",
        fake.code(d.rng, "PRJ", 4),
        title=title,
        pi_id=pi.id,
        pi_name=pi["name"],
        department=TOPICS.get(title, "Psychology"),
        status="active",
        member_ids=[m.id for m in members or []],
        cost_center=f"CC-{d.rng.randrange(1000, 9999)}",
        started_at=fake.timestamp(d.rng, d.now, 1100, 3000),
        **extra,
    )


def request(d: Draft, requester: Rec, proj: Rec, subject: str, body: str) -> Rec:
    return d.record(
        "request",
        fake.code(d.rng, "REQ", 5),
        requester_id=requester.id,
        requester_name=requester["name"],
        project_id=proj.id,
        subject=subject,
        body=body,
        status="open",
        channel=d.pick(["service desk", "email", "lab chat"]),
        opened_at=fake.timestamp(d.rng, d.now, 0.1, 4),
    )


# ---------------------------------------------------------------------------- follow-up steps


def done(d: Draft, rec: Rec | ArgRef, field: str, value: Any, via: str, why: str) -> str:
    """The record an earlier action changed shows the change (POL-RES-12): a fresh requirement with
    no `result_of`, so only a read after that action establishes it."""
    return d.require(rec, field, value, via=[via], why=why)


def notify(d: Draft, recipient: Rec, template: str, reference: Any, after: list[str], also: Sequence[str] = ()) -> str:
    """send_notification, gated on the recipient still being an active account."""
    r_active = d.require(
        recipient, "status", "active", via=["get_researcher"], why="messages go to active accounts only"
    )
    return d.action(
        "send_notification",
        recipient,
        requires=[r_active, *also],
        after=after,
        recipient_id=recipient.id,
        template=template,
        reference_id=reference,
    )


def log_update(
    d: Draft, proj: Rec, update_type: str, reference: Any, after: list[str], also: Sequence[str] = ()
) -> str:
    """post_project_update, gated on the project being active (closed projects are read-only)."""
    r_open = d.require(proj, "status", "active", via=["get_project"], why="closed projects take no new entries")
    return d.action(
        "post_project_update",
        proj,
        requires=[r_open, *also],
        after=after,
        project_id=proj.id,
        update_type=update_type,
        reference_id=reference,
    )


def close(d: Draft, req: Rec, proj: Rec, reference: Any, after: list[str], also: Sequence[str] = ()) -> str:
    """close_request, gated on the request really belonging to this project."""
    r_mine = d.require(req, "project_id", proj.id, via=["get_request"], why="the request is about this project")
    return d.action(
        "close_request",
        req,
        requires=[r_mine, *also],
        after=after,
        request_id=req.id,
        resolution="completed",
        reference_id=reference,
    )
