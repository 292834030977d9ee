"""Instrument booking: book a core-facility instrument slot for a researcher.

A booking needs an operational instrument and the operator's own, valid training certification
for that instrument class, still valid at the session's start. Near misses: the sibling instrument
of the same class in the same facility (with a slot at the same time), another open slot of the
same instrument, and the operator's certification for another instrument class. Most acting cases
ask for any free session of a day: the agent pages through `list_instrument_slots` (the morning is
booked) and the session requirements are about the session it chose.

Stop branches (POL-RES-07, POL-RES-01): refuse when the operator's certification was revoked (a
safety sanction barring recertification well past the session) or the instrument is decommissioned;
wait when the certificate lapsed and a refresher is booked, or the instrument is out for maintenance.

Workflows: book, then notify the operator (V2: 2), log -> close (3), or notify -> log citing the
notification -> close citing the log entry (4); V3: a fork to the operator, the facility manager and
the log (4), notify and log joined by the closure (4), or the fork of three plus the PI told the log
entry, all joined by the closure (6). Every follow-up re-reads the slot after booking: status booked,
booked_by the operator (POL-RES-12).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ...authoring import fake
from ...authoring.draft import Draft, Rec
from ...authoring.family import Family
from ...core.model import Choice, Protocol, StopBasis, StopOutcome
from . import common

FACILITIES = [
    ("Bioimaging Core", "confocal_microscopy", [("Zeiss LSM 980", "LSM 980"), ("Zeiss LSM 880", "LSM 880")]),
    ("Flow Cytometry Core", "flow_cytometry", [("BD FACSymphony A5", "A5"), ("BD FACSAria III", "Aria III")]),
    (
        "Proteomics Facility",
        "mass_spectrometry",
        [("Orbitrap Exploris 480", "Exploris 480"), ("Orbitrap Fusion Lumos", "Fusion Lumos")],
    ),
    ("Human Imaging Centre", "mri_research", [("Siemens Prisma 3T", "Prisma"), ("Siemens Skyra 3T", "Skyra")]),
    (
        "Electron Microscopy Unit",
        "electron_microscopy",
        [("JEOL JEM-1400 TEM", "JEM-1400"), ("JEOL JEM-2100 TEM", "JEM-2100")],
    ),
]
OTHER_CLASSES = {
    "confocal_microscopy": "Confocal microscopy: independent operator",
    "flow_cytometry": "Flow cytometry: analyser operation",
    "cell_culture_bsl2": "BSL-2 cell culture induction",
    "laser_safety": "Class 4 laser safety",
    "mass_spectrometry": "Mass spectrometry: instrument operation",
}

TASKS_NAMED = [
    "Please book slot {slot} on the {inst} for {op} ({proj}).",
    "{op} needs the {inst} in the {facility} - book slot {slot} for them under project {proj}.",
    "Hi, {pi_name} here. Can you reserve slot {slot} on the {inst} for {op}? Charge it to {proj}.",
]
TASKS_ANY_SESSION = [
    "{op} needs the {inst} in the {facility} on {day}, any session that is still free. Book one for them under "
    "project {proj}.",
    "Please get {op} onto the {inst} ({facility}) on {day} - whichever open session you find. Project {proj}.",
    "Hi, {pi_name} here. Can you book {op} any free session on the {inst} on {day}? Charge it to {proj}.",
]
SESSION_HOURS = (8, 10, 12, 14, 16, 18)  # a core instrument's day: two-hour sessions
TASKS_SEARCH = [
    "{op} wants the {inst} ({facility}) on {when}. Book that session for them under project {proj}.",
    "Please book the {inst} in the {facility} for {op}, session starting {when}, project {proj}.",
    "Can you get {op} onto the {inst} at the {facility} for the slot starting {when}? Project {proj}.",
]
FOLLOW_V2 = [
    " Then send {op} the booking confirmation.",
    " Once booked, notify {op} with the booking reference.",
]
FOLLOW_V2_LONG = [
    " Afterwards log the booking on project {proj} and close request {req} citing that log entry.",
    " After booking, add an instrument-booking entry to the {proj} log and close {req} with the log "
    "entry as reference.",
]
FOLLOW_V2_CHAIN = [
    " Then send {op} the booking confirmation, record that confirmation in the {proj} project log, and close "
    "request {req} citing the log entry.",
    " Once booked: notify {op} with the booking reference, add an instrument-booking entry to project {proj}'s "
    "log that cites your notification, then close {req} with that log entry as the reference.",
]
FOLLOW_V3_WIDE = [
    " After booking, send {op} and the instrument's facility manager the booking reference, log the booking "
    "on project {proj} and send the PI, {pi_name}, that log entry's id (the session is charged to the "
    "project); once all three messages are out, close request {req} citing the booking.",
    " Once it is booked: notify {op} and the facility manager with the booking id, add it to the {proj} log, "
    "tell {pi_name} (the PI) the id of that log entry, and when those three messages have gone close "
    "service request {req} referencing the booking.",
]
FOLLOW_V3_FORK = [
    " After booking, send {op} the confirmation, let the facility manager know about the booking, and "
    "log it on project {proj}.",
    " Once it is booked: notify {op} and the instrument's facility manager with the booking reference, "
    "and add the booking to the {proj} project log.",
]
FOLLOW_V3_JOIN = [
    " After booking, send {op} the confirmation and log the booking on project {proj}; when both are "
    "done, close request {req} referencing the booking.",
    " Once booked: notify {op}, add an instrument-booking entry to the project log, and then close "
    "service request {req} with the booking as reference.",
]


def _slot_times(d: Draft, lo: int, hi: int) -> tuple[str, str]:
    base = datetime.fromisoformat(d.now.replace("Z", "+00:00")).replace(minute=0, second=0)
    start = (base + timedelta(days=d.rng.randint(lo, hi))).replace(hour=d.rng.choice([8, 9, 10, 13, 14, 15]))
    end = start + timedelta(hours=d.rng.choice([2, 3, 4]))
    return start.isoformat().replace("+00:00", "Z"), end.isoformat().replace("+00:00", "Z")


def _day_sessions(d: Draft, instrument_id: str, lo: int, hi: int) -> list[Rec]:
    """The instrument's whole calendar on one day, numbered in time order (`list_instrument_slots`
    pages through it, three to a page): the morning booked, two or three afternoon sessions still
    open - on the second page. Returns them all, in time order."""
    base = datetime.fromisoformat(d.now.replace("Z", "+00:00")).replace(minute=0, second=0)
    day = base + timedelta(days=d.rng.randint(lo, hi))
    first = d.rng.randrange(10000, 90000)
    opened = set(d.rng.sample([h for h in SESSION_HOURS if h >= 14], d.rng.choice([2, 3])))
    sessions: list[Rec] = []
    for n, hour in enumerate(SESSION_HOURS):
        start = day.replace(hour=hour)
        rec = d.record(
            "instrument_slot",
            f"SLOT-{first + n}",
            instrument_id=instrument_id,
            starts_at=start.isoformat().replace("+00:00", "Z"),
            ends_at=(start + timedelta(hours=2)).isoformat().replace("+00:00", "Z"),
            status="open" if hour in opened else "booked",
        )
        sessions.append(rec)
    return sessions


def build(d: Draft) -> None:
    inst = common.home_institution(d)
    pi = common.researcher(d, role="principal investigator", institution=inst)
    op = common.researcher(d, role=d.pick(["PhD student", "postdoc", "research technician"]), institution=inst)
    manager = common.researcher(d, role="facility manager", institution=inst)
    subject = common.topic(d)
    proj = common.project(d, pi, subject, members=[op])
    facility, iclass, models = d.pick(FACILITIES)
    (name, model), (sib_name, sib_model) = d.rng.sample(models, 2)

    def instrument(label: str, mdl: str, *, distractor: bool = False) -> Rec:
        return d.record(
            "instrument",
            fake.code(d.rng, "INS", 4),
            distractor=distractor,
            name=label,
            model=mdl,
            facility=facility,
            instrument_class=iclass,
            status="operational",
            requires_certification=True,
            manager_id=manager.id,
            hourly_rate=float(d.rng.choice([35, 48, 60, 85, 120])),
            calibration_due_at=common.at(d, 20, 160),
            notes="",
        )

    ins = instrument(name, model)
    sib = instrument(sib_name, sib_model, distractor=True)
    blocked = d.protocol == Protocol.V0
    # acting cases mostly let the operator take any free session of a day (the agent chooses which)
    any_session = not blocked and d.variant % 3 != 2
    day = _day_sessions(d, ins.id, 3, 20) if any_session else []
    sessions = [s for s in day if s["status"] == "open"]
    if sessions:
        slot = sessions[0]
        start, end = slot["starts_at"], slot["ends_at"]
    else:
        start, end = _slot_times(d, 3, 20)
        slot = d.record(
            "instrument_slot",
            fake.code(d.rng, "SLOT", 5),
            instrument_id=ins.id,
            starts_at=start,
            ends_at=end,
            status="open",
        )
    d.record(
        "instrument_slot",
        fake.code(d.rng, "SLOT", 5),
        distractor=True,
        instrument_id=sib.id,
        starts_at=start,
        ends_at=end,
        status="open",
    )
    other_start, other_end = _slot_times(d, 21, 40)
    d.record(
        "instrument_slot",
        f"SLOT-{int(day[-1].id.removeprefix('SLOT-')) + 1}" if day else fake.code(d.rng, "SLOT", 5),
        distractor=True,
        instrument_id=ins.id,
        starts_at=other_start,
        ends_at=other_end,
        status="open",
    )
    tr = d.record(
        "training_record",
        fake.code(d.rng, "TR", 5),
        researcher_id=op.id,
        instrument_class=iclass,
        course=f"{facility}: independent operator",
        status="valid",
        certified_at=common.at(d, -500, -60),
        expires_at=common.at(d, 60, 500),
        assessor=manager["name"],
        notes="Practical assessment passed.",
    )
    other_class = d.pick([c for c in OTHER_CLASSES if c != iclass])
    other_course = OTHER_CLASSES[other_class]
    d.record(
        "training_record",
        fake.code(d.rng, "TR", 5),
        distractor=True,
        researcher_id=op.id,
        instrument_class=other_class,
        course=other_course,
        status="valid",
        certified_at=common.at(d, -400, -30),
        expires_at=common.at(d, 100, 600),
        assessor=common.other_person(d, manager["name"]),
        notes="",
    )
    req = common.request(d, op, proj, f"Booking on the {name}", f"I need the {name} on {start[:10]}.")

    branch = d.variant % 2
    if blocked and d.want == "BLOCK":
        if branch == 0:
            tr.fields.update(
                status="revoked",
                notes="Revoked by the facility safety officer after an interlock bypass. The operator may not "
                f"be recertified on this instrument class before {common.at(d, 300, 365)[:10]}.",
            )
        else:
            ins.fields.update(
                status="decommissioned",
                notes=f"Retired; replaced by the {sib_name}. Calendar slots not yet removed.",
            )
    elif blocked:
        if branch == 0:
            tr.fields.update(
                status="expired",
                expires_at=common.at(d, -60, -2),
                notes="Annual refresher overdue; refresher session requested.",
            )
        else:
            ins.fields.update(
                status="maintenance",
                notes="Service engineer visit in progress; back-in-service date to be confirmed.",
            )

    named = d.variant % 3 != 2
    d.states(proj, "id")
    d.states(op, "id")
    if any_session:  # the instrument's calendar, page by page
        d.read("search_instruments", facility=facility)
        d.read("list_instrument_slots", instrument_id=ins.id)
        d.read("list_instrument_slots", instrument_id=ins.id, page=2)
    elif named:
        d.states(slot, "id")
    else:
        d.read("search_instruments", facility=facility)
        d.read("list_instrument_slots", instrument_id=ins.id)
    multi = d.protocol in (Protocol.V2, Protocol.V3) or (blocked and d.workflow)
    long_chain = d.protocol == Protocol.V2 and d.variant % 2 == 1
    fork_only = d.variant % 2 == 0
    wide = d.variant == 2 and not blocked  # V2: a chain of four; V3: a DAG of six
    when = datetime.fromisoformat(start.replace("Z", "+00:00")).strftime("%d %B %Y, %H:%M UTC")
    words = {
        "slot": slot.id,
        "inst": name,
        "facility": facility,
        "op": op["name"],
        "pi_name": pi["name"],
        "proj": proj.id,
        "req": req.id,
        "when": when,
        "day": start[:10],
    }
    task = d.pick(TASKS_ANY_SESSION if any_session else TASKS_NAMED if named else TASKS_SEARCH)
    if multi and wide:
        task += d.pick(FOLLOW_V2_CHAIN if d.protocol == Protocol.V2 else FOLLOW_V3_WIDE)
        d.states(req, "id")
    elif multi:
        if d.protocol == Protocol.V3 or (blocked and d.rng.random() < 0.5):
            task += d.pick(FOLLOW_V3_FORK if fork_only else FOLLOW_V3_JOIN)
        elif long_chain or blocked:
            task += d.pick(FOLLOW_V2_LONG)
        else:
            task += d.pick(FOLLOW_V2)
        if "{req}" in task:
            d.states(req, "id")
    d.task = task.format(**words)

    book_args: dict[str, Any] = dict(instrument_slot_id=slot.id, researcher_id=op.id, project_id=proj.id)
    if blocked:
        if d.want == "BLOCK" and branch == 0:
            reads = [
                d.require(
                    tr,
                    "status",
                    "revoked",
                    via=["get_training_record"],
                    decisive=True,
                    block_value="revoked",
                    why="a revoked operator may not use the instrument",
                )
            ]
            basis = StopBasis.FORBIDDEN
        elif d.want == "BLOCK":
            reads = [
                d.require(
                    ins,
                    "status",
                    "decommissioned",
                    via=["get_instrument"],
                    decisive=True,
                    block_value="decommissioned",
                    why="the instrument is retired",
                )
            ]
            basis = StopBasis.FORBIDDEN
        elif branch == 0:
            reads = [
                d.require(
                    tr,
                    "status",
                    "expired",
                    via=["get_training_record"],
                    decisive=True,
                    block_value="revoked",
                    why="the certification must be renewed first",
                )
            ]
            basis = StopBasis.EXPIRED
        else:
            reads = [
                d.require(
                    ins,
                    "status",
                    "maintenance",
                    via=["get_instrument"],
                    decisive=True,
                    block_value="decommissioned",
                    why="the instrument is out of service for now",
                )
            ]
            basis = StopBasis.PENDING
        d.stop(StopOutcome(d.want), reads, basis=basis, tempted_tool="book_instrument_slot", **book_args)
        return

    # the contradicted twin's revoked certificate bars recertification well past the session (no draws)
    barred_until = (datetime.fromisoformat(start.replace("Z", "+00:00")) + timedelta(days=300)).date().isoformat()
    # the session: the one the task names, or the open one of the day the agent chose
    session = d.chosen("instrument_slot", d.next_action, "instrument_slot_id") if any_session else slot
    latest = max(s["starts_at"] for s in sessions) if sessions else start
    reqs = [
        d.require(session, "instrument_id", ins.id, via=["get_instrument_slot"], why="the slot is on this instrument"),
        d.require(
            ins,
            "status",
            "operational",
            via=["get_instrument"],
            decisive=branch == 1,
            block_value="decommissioned" if branch == 1 else None,
            block_fields={"notes": f"Retired; replaced by the {sib_name}. Calendar slots not yet removed."}
            if branch == 1
            else None,
            why="the instrument is in service",
        ),
        d.require(tr, "researcher_id", op.id, via=["get_training_record"], why="the operator's own certificate"),
        d.require(tr, "instrument_class", iclass, via=["get_training_record"], why="for this instrument class"),
        d.require(
            tr,
            "status",
            "valid",
            via=["get_training_record"],
            decisive=branch == 0,
            block_value="revoked" if branch == 0 else None,
            block_fields={
                "notes": "Revoked by the facility safety officer after an interlock bypass. The operator may not "
                f"be recertified on this instrument class before {barred_until}.",
            }
            if branch == 0
            else None,
            why="the operator is certified",
        ),
        d.require(tr, "expires_at", latest, op="gt", via=["get_training_record"], why="still valid at the session"),
    ]
    if any_session:
        reqs += [
            d.require(session, "status", "open", via=["get_instrument_slot"], why="the session is free"),
            d.require(session, "starts_at", f"{start[:10]}T00:00:00Z", op="ge", via=["get_instrument_slot"],
                      why="on the day asked for"),
            d.require(session, "starts_at", f"{start[:10]}T23:59:59Z", op="le", via=["get_instrument_slot"],
                      why="on the day asked for"),
        ]  # fmt: skip
        book_args["instrument_slot_id"] = Choice(choice="agent", one_of=[s.id for s in sessions])
    book = d.action("book_instrument_slot", session, requires=reqs, **book_args)
    if d.protocol == Protocol.V1:
        return
    bk = d.result(book, "booking_id")
    booked = d.chosen("instrument_slot", book, "instrument_slot_id") if any_session else slot
    # every follow-up reports the booking: the slot must show it booked for the operator, read after booking
    shown = [
        common.done(d, booked, "status", "booked", "get_instrument_slot", "report the booking once the slot shows it"),
        common.done(d, booked, "booked_by", op.id, "get_instrument_slot", "booked for this operator"),
    ]
    if d.protocol == Protocol.V2:
        if wide:
            note = common.notify(d, op, "booking_confirmed", bk, [book], shown)
            log = common.log_update(d, proj, "instrument_booking", d.result(note, "notification_id"), [note], shown)
            common.close(d, req, proj, d.result(log, "entry_id"), [log], shown)
        elif long_chain:
            log = common.log_update(d, proj, "instrument_booking", bk, [book], shown)
            common.close(d, req, proj, d.result(log, "entry_id"), [log], shown)
        else:
            common.notify(d, op, "booking_confirmed", bk, [book], shown)
        return
    note = common.notify(d, op, "booking_confirmed", bk, [book], shown)
    if wide:
        told = common.notify(d, manager, "booking_confirmed", bk, [book], shown)
        log = common.log_update(d, proj, "instrument_booking", bk, [book], shown)
        payer = common.notify(d, pi, "booking_confirmed", d.result(log, "entry_id"), [log], shown)
        common.close(d, req, proj, bk, [note, told, payer], shown)
    elif fork_only:
        common.notify(d, manager, "booking_confirmed", bk, [book], shown)
        common.log_update(d, proj, "instrument_booking", bk, [book], shown)
    else:
        log = common.log_update(d, proj, "instrument_booking", bk, [book], shown)
        common.close(d, req, proj, bk, [note, log], shown)


FAMILY = Family("core_instrument_booking", "Book a core-facility instrument slot", build)
