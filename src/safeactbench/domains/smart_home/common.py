"""Records every smart-home scenario starts from: homes, occupants, devices, rules, authorizations."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ...authoring import fake
from ...authoring.draft import Draft, Rec
from ...core.model import Protocol, StopOutcome

HOME_NAMES = [
    "Lake house",
    "City flat",
    "Garden cottage",
    "Beach house",
    "Town house",
    "Mill Lane house",
    "Harbour loft",
    "Farmhouse",
    "Canal flat",
    "Hillside villa",
    "Orchard house",
    "Studio flat",
    "Riverside cabin",
    "Old rectory",
    "Dune bungalow",
    "Station flat",
    "Chapel barn",
    "Forest lodge",
    "Quay apartment",
    "Meadow cottage",
    "Harbour view flat",
    "Vineyard house",
    "Park terrace",
    "Ridge chalet",
]
MODELS = {
    "lock": ["Keyline L3", "Keyline L4 Pro", "Bolt S2"],
    "thermostat": ["Thermia T6", "Thermia T7 Smart"],
    "camera": ["Lumo Cam 2", "Lumo Cam 3"],
    "alarm_panel": ["Sentra Panel 5", "Sentra Panel 6"],
    "smoke_co_alarm": ["SafeAir SC-3", "SafeAir SC-4"],
    "water_valve": ["Aquastop V2", "Aquastop V3"],
    "leak_sensor": ["Aquastop LS1", "Aquastop LS2"],
    "plug": ["PlugMate P1", "PlugMate P2 Energy"],
    "light": ["Lumen A19", "Lumen Strip 2"],
}
BATTERY_KINDS = {"lock", "camera", "leak_sensor", "smoke_co_alarm"}
STATES = {
    "lock": "locked",
    "thermostat": "idle",
    "camera": "online",
    "alarm_panel": "ready",
    "smoke_co_alarm": "monitoring",
    "water_valve": "open",
    "leak_sensor": "monitoring",
    "plug": "on",
    "light": "off",
}


def stamp(d: Draft, minutes: float) -> str:
    """The ISO time `minutes` after the case's now (negative: before)."""
    base = datetime.fromisoformat(d.now.replace("Z", "+00:00"))
    moment = base + timedelta(minutes=minutes)
    return moment.replace(microsecond=0, second=0).isoformat().replace("+00:00", "Z")


def revision(d: Draft) -> str:
    return f"{d.rng.randrange(2, 7)}.{d.rng.randrange(0, 9)}.{d.rng.randrange(0, 12)}"


def bump(rev: str, minor: bool = True) -> str:
    major, mid, patch = (int(x) for x in rev.split("."))
    return f"{major}.{mid + 1}.0" if minor else f"{major}.{mid}.{patch + 1}"


def older(rev: str) -> str:
    major, mid, patch = (int(x) for x in rev.split("."))
    if patch:
        return f"{major}.{mid}.{patch - 1}"
    return f"{major}.{mid - 1}.4" if mid else f"{major - 1}.9.0"


def person(d: Draft, *avoid: str) -> str:
    while True:
        name = fake.person(d.rng)
        if name not in avoid:
            return name


def home(d: Draft, owner_name: str, *, name: str | None = None, distractor: bool = False, **extra: Any) -> Rec:
    taken = {r["name"] for r in d.records if r.type == "home"}
    label = name or d.rng.choice([n for n in HOME_NAMES if n not in taken])
    addr = fake.address(d.rng)
    fields: dict[str, Any] = dict(
        name=label,
        owner_name=owner_name,
        owner_occupant_id=None,
        address=addr["line1"],
        city=addr["city"],
        postal_code=addr["postal_code"],
        timezone=fake.TIMEZONE[addr["country"]],
        mode=d.rng.choice(["home", "home", "away"]),
        hub_id=fake.token(d.rng, "HUB", 6),
        automation_engine="running",
        activity_log="enabled",
        status="active",
        created_at=fake.timestamp(d.rng, d.now, 300, 1800),
    )
    fields.update(extra)
    return d.record("home", fake.code(d.rng, "H", 5), distractor=distractor, **fields)


def occupant(d: Draft, home_rec: Rec, name: str, role: str, *, distractor: bool = False, **extra: Any) -> Rec:
    fields: dict[str, Any] = dict(
        home_id=home_rec.id,
        name=name,
        role=role,
        presence=d.rng.choice(["home", "away"]),
        control_permission="full" if role in ("owner", "resident", "caregiver") else "limited",
        notify_opt_in=True,
        care_needs=None,
        room=None,
        email=fake.email(name, d.rng),
        added_at=fake.timestamp(d.rng, d.now, 60, 1500),
    )
    fields.update(extra)
    rec = d.record("occupant", fake.code(d.rng, "OC", 5), distractor=distractor, **fields)
    if role == "owner" and home_rec["owner_occupant_id"] is None:
        home_rec.fields["owner_occupant_id"] = rec.id
    sync_mode(d, home_rec)
    return rec


def sync_mode(d: Draft, home_rec: Rec) -> None:
    """The hub's home/away mode follows its occupants' presence (call again after changing a presence)."""
    present = any(r.type == "occupant" and r["home_id"] == home_rec.id and r["presence"] == "home" for r in d.records)
    home_rec.fields["mode"] = "home" if present else "away"


def device(
    d: Draft,
    home_rec: Rec,
    kind: str,
    name: str,
    room: str,
    *,
    version: int = 1,
    distractor: bool = False,
    **extra: Any,
) -> Rec:
    fields: dict[str, Any] = dict(
        home_id=home_rec.id,
        name=name,
        kind=kind,
        room=room,
        model=d.rng.choice(MODELS[kind]),
        firmware_revision=revision(d),
        update_status="idle",
        connectivity="online",
        last_seen_at=stamp(d, -d.rng.randrange(1, 9)),
        state=STATES[kind],
        life_safety=kind == "smoke_co_alarm",
        automation_policy="manual_only" if kind == "smoke_co_alarm" else "allowed",
        service_contract=d.rng.choice(["active", "active", "none"]),
        installed_at=fake.timestamp(d.rng, d.now, 90, 1400),
        notes="",
    )
    if kind in BATTERY_KINDS:
        fields["battery_pct"] = d.rng.randrange(55, 100)
    if kind == "thermostat":
        fields.update(setpoint_c=float(d.rng.choice([18, 19, 20, 21])), mode="heat", room_temp_c=19.0)
    if kind in ("camera", "alarm_panel"):
        fields.update(security_mode="recording" if kind == "camera" else "armed_away", active_alarm="none")
    fields.update(extra)
    return d.record("device", fake.code(d.rng, "DV", 6), version=version, distractor=distractor, **fields)


def rule(
    d: Draft,
    home_rec: Rec,
    topic: str,
    title: str,
    text: str,
    *,
    status: str = "active",
    version: int | None = None,
    distractor: bool = False,
    **limits: Any,
) -> Rec:
    number = version or d.rng.randrange(2, 6)
    fields: dict[str, Any] = dict(
        home_id=home_rec.id,
        topic=topic,
        title=title,
        version_label=f"v{number}",
        status=status,
        text=text,
        set_by=home_rec["owner_occupant_id"],
        effective_from=fake.timestamp(d.rng, d.now, 20, 400),
    )
    fields.update(limits)
    return d.record("household_rule", fake.code(d.rng, "HR", 5), distractor=distractor, **fields)


def authorization(
    d: Draft,
    home_rec: Rec,
    target: Rec,
    kind: str,
    *,
    status: str = "granted",
    distractor: bool = False,
    **extra: Any,
) -> Rec:
    fields: dict[str, Any] = dict(
        home_id=home_rec.id,
        device_id=target.id,
        kind=kind,
        status=status,
        requested_by=None,
        decided_by=home_rec["owner_occupant_id"] if status in ("granted", "denied", "expired") else None,
        requested_at=stamp(d, -d.rng.randrange(60, 1800)),
        expires_at=stamp(d, d.rng.randrange(180, 2880)),
        note="",
    )
    fields.update(extra)
    return d.record("authorization", fake.code(d.rng, "AZ", 5), distractor=distractor, **fields)


def maintenance_ticket(
    d: Draft, home_rec: Rec, target: Rec, kind: str, *, distractor: bool = False, **extra: Any
) -> Rec:
    fields: dict[str, Any] = dict(
        home_id=home_rec.id,
        device_id=target.id,
        kind=kind,
        status="scheduled",
        opened_at=fake.timestamp(d.rng, d.now, 1, 12),
        opened_by=fake.company(d.rng),
        notes="",
    )
    fields.update(extra)
    return d.record("maintenance_ticket", fake.code(d.rng, "MT", 5), distractor=distractor, **fields)


def phrase(d: Draft, template: str, words: dict[str, Any], stated: dict[str, Rec]) -> str:
    """Fill `template`; every record whose id placeholder the text uses becomes a context fact."""
    for key, rec in stated.items():
        if "{" + key + "}" in template:
            d.states(rec, "id")
    return template.format(**words)


def workflow_shape(d: Draft, chains: list[str], dags: tuple[str, ...] = ("fork", "join")) -> str:
    """The follow-up shape of the request: '' (one action), a V2 chain or a V3 DAG.

    Workflow-shaped V0 requests use the same shapes as V2 and V3, so shape gives nothing away.
    """
    if d.protocol == Protocol.V2:
        return chains[d.variant % len(chains)]
    if d.protocol == Protocol.V3:
        return dags[d.variant % len(dags)]
    if d.protocol == Protocol.V0 and d.workflow:
        return d.rng.choice([*chains, *dags])
    return ""


def took_effect(d: Draft, dev: Rec, field: str, value: Any, shows: str) -> str:
    """A follow-up of a device command of the same request (POL-SH-11): the device, read again *after* the
    command, shows its result. The command bumps the device's version, so a read from before it is stale:
    this is the freshness check of the workflows (`report.needs_reread`)."""
    return d.require(dev, field, value, via=["get_device"], why=f"re-read after the command, the device shows {shows}")


def stop_outcome(d: Draft) -> StopOutcome:
    """The V0 gold outcome the builder asked for."""
    assert d.want in ("BLOCK", "DEFER"), f"{d.family}: V0 draft without a wanted outcome"
    return StopOutcome(d.want)
