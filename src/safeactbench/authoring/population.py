"""The rest of the system: other customers, patients, services … around a scenario (SPEC §7).

A scenario writes only the records its story needs. A real system holds many more, and a search
returns them too. `populate` adds background entities by re-instantiating the scenario's largest
cluster - a record the task names and the records that hang off it (a customer and their orders,
charges, tickets …) - under fresh ids, people (names and e-mail addresses) and amounts. A clone
keeps its links to shared records (a policy, a carrier) and never matches a search the task
motivates: a cloned record whose searchable text appears in the task is left out with what hangs
off it, so background never makes the request ambiguous - unless the task names its original by id
(the agent knows which one is meant; the copy is another entry of the same ledger, period, home).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from . import fake
from .reach import in_text
from .rec import Rec

MAX_CLONES = 12


def _ids(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [v for v in items if isinstance(v, str)]


def cluster(records: Sequence[Rec], root: Rec) -> list[Rec]:
    """`root` and every record that links to it, directly or through another member."""
    members = [root]
    ids = {root.id}
    grew = True
    while grew:
        grew = False
        for rec in records:
            if rec not in members and any(v in ids for f in rec.fields.values() for v in _ids(f)):
                members.append(rec)
                ids.add(rec.id)
                grew = True
    return members


def clusters(records: Sequence[Rec], named: set[str]) -> list[list[Rec]]:
    """The clusters rooted at the records the task names, largest first; then those rooted at the
    scenario's other records (another vendor, another home's devices), largest first."""
    found = [cluster(records, r) for r in records if r.ref in named]
    others = [cluster(records, r) for r in records if r.ref not in named]
    return sorted(found, key=len, reverse=True) + sorted(others, key=len, reverse=True)


def _fresh_id(rng: random.Random, old: str, taken: set[str]) -> str:
    """An id of the same shape (its digits redrawn); a suffix once the shape runs out of room."""
    for attempt in range(200):
        if re.search(r"\d", old) and attempt < 100:
            new = re.sub(r"\d", lambda _: str(rng.randrange(10)), old)
        else:
            new = f"{old}-{rng.randrange(2, 10_000)}"
        if new not in taken:
            taken.add(new)
            return new
    raise RuntimeError(f"no fresh id like {old!r}")


def _replace(value: Any, swaps: dict[str, str], scale: float, key: str) -> Any:
    if isinstance(value, list):
        return [_replace(v, swaps, scale, key) for v in value]
    if isinstance(value, str):
        if value in swaps:
            return swaps[value]
        for old, new in swaps.items():
            if len(old) >= 4 and old in value:
                value = re.sub(rf"(?<![A-Za-z0-9]){re.escape(old)}(?![A-Za-z0-9])", new, value)
        return value
    if isinstance(value, float) and ("amount" in key or key in ("total", "price", "balance")):
        return round(value * scale, 2)
    return value


def clone(
    members: Sequence[Rec],
    rng: random.Random,
    taken: set[str],
    people: set[str],
    pools: Sequence[Sequence[str]] = (),
) -> list[Rec]:
    """One re-instantiation of a cluster: new ids everywhere, a new person wherever one is named,
    another company wherever one is named (its stem, in a name or a caption), another name of its
    pool wherever a pooled name is (another home for a home's name)."""
    swaps = {m.id: _fresh_id(rng, m.id, taken) for m in members}
    for m in members:
        for value in m.fields.values():
            if fake.is_person(value) and value not in swaps:
                swaps[value] = _new_person(rng, people)
            pool = next((p for p in pools if value in p), None) if isinstance(value, str) else None
            if pool is not None and value not in swaps:
                free = [name for name in pool if name not in people]
                if free:
                    swaps[value] = rng.choice(free)
                    people.add(swaps[value])
            for stem in _stems(value):
                if stem not in swaps:
                    swaps[stem] = _new_stem(rng, people)
    scale = rng.uniform(0.55, 1.6)
    out = []
    for m in members:
        fields = {k: _replace(v, swaps, scale, k) for k, v in m.fields.items()}
        if "email" in fields:
            owner = fields.get("name") if fake.is_person(fields.get("name")) else _new_person(rng, people)
            fields["email"] = _new_email(str(owner), rng, taken)
        out.append(Rec(m.type, swaps[m.id], fields, m.version))
    return out


def _stems(value: object) -> list[str]:
    return [w for w in re.findall(r"[A-Z][a-z]+", value) if w in fake.COMPANIES] if isinstance(value, str) else []


def _new_stem(rng: random.Random, used: set[str]) -> str:
    free = [c for c in fake.COMPANIES if c not in used]
    stem = rng.choice(free) if free else rng.choice(fake.COMPANIES)
    used.add(stem)
    return stem


def _new_person(rng: random.Random, people: set[str]) -> str:
    name = fake.person(rng)
    while name in people:
        name = fake.person(rng)
    people.add(name)
    return name


def _new_email(name: str, rng: random.Random, taken: set[str]) -> str:
    email = fake.email(name, rng)
    while email in taken:
        email = fake.email(name, rng, rng.choice(["post.example", "inbox.example", "mail.example"]))
        email = email.replace("@", f"{rng.randrange(2, 99)}@", 1) if email in taken else email
    taken.add(email)
    return email


def _searchable(rec: Rec, filters: dict[str, set[str]]) -> list[str]:
    """The values of `rec` that some search tool filters on."""
    values: list[str] = []
    for field in filters.get(rec.type, set()):
        value = rec.fields.get(field)
        values += [str(v).lower() for v in (value if isinstance(value, list) else [value]) if v is not None]
    return values


def _unambiguous(
    copy: list[Rec], originals: Sequence[Rec], task: str, filters: dict[str, set[str]], named: set[str]
) -> list[Rec]:
    """`copy` (`originals` re-instantiated, in order) without the records a search the task motivates
    would return in place of their original (and what hangs off them). A copy of a record the task
    names by id stays, whatever else it shares with the task: the agent is told which one it means."""
    dropped = {
        r.id
        for r, original in zip(copy, originals, strict=True)
        if original.ref not in named and any(in_text(task, text) for text in _searchable(r, filters))
    }
    grew = True
    while grew:
        grew = False
        for r in copy:
            if r.id not in dropped and any(_mentions(v, dropped) for f in r.fields.values() for v in _ids(f)):
                dropped.add(r.id)
                grew = True
    return [r for r in copy if r.id not in dropped]


def _mentions(text: str, ids: set[str]) -> bool:
    """`text` is one of `ids` or names one of them (a ticket's body quoting an order)."""
    return text in ids or any(len(i) >= 4 and i in text for i in ids)


def populate(
    records: list[Rec],
    named: set[str],
    task: str,
    filters: dict[str, set[str]],
    rng: random.Random,
    size: int,
    pools: Sequence[Sequence[str]] = (),
) -> list[Rec]:
    """Background records for a world of `records`, until it holds about `size` records (`pools`:
    interchangeable names, see `clone`)."""
    candidates = [c for c in clusters(records, named) if len(c) > 1]
    if not candidates:
        return []
    taken = {r.id for r in records} | {str(r.fields["email"]) for r in records if "email" in r.fields}
    # people and company stems already in the world are never given to a clone
    people = {str(v) for r in records for v in r.fields.values() if fake.is_person(v)}
    people |= {stem for r in records for v in r.fields.values() for stem in _stems(v)}
    people |= {v for r in records for v in r.fields.values() if isinstance(v, str) and any(v in p for p in pools)}
    lowered = task.lower()
    added: list[Rec] = []
    for _ in range(MAX_CLONES):
        if len(records) + len(added) >= size or not candidates:
            break
        members = candidates[0]
        copy = _unambiguous(clone(members, rng, taken, people, pools), members, lowered, filters, named)
        if copy and copy[0].type == members[0].type:  # the root survived: another customer, patient, home …
            added += copy
        else:  # this cluster cannot be copied without matching the request: try the next one
            candidates.pop(0)
    return added
