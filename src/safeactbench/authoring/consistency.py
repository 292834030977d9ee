"""Data consistency of a case's world: what a careful reader would call a slip in generated data.

- an address pairs its city with that city's country (and a home its city's time zone);
- no two records of one type (two patients, two customers) share an e-mail address (except the
  `distractors` intervention's copies, identical by design);
- no placeholder text (`lorem ipsum`, `TODO`, `TBD`, `placeholder`, ...) in the task or any record;
- money is in an ISO currency, and two records that link each other (a charge and its order, an
  invoice and its payment) agree on it;
- a decisive record tells one story in each of its states: the free text it carries for the
  permitting value (an approval's "OK to release.") is written anew for the forbidding one
  (`Requirement.block_fields`), so a contradicted twin never reads "rejected" beside an approving
  note (SPEC §8).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..core.model import ACTING_PROTOCOLS, Case
from .fake import CITY_COUNTRY, TIMEZONE

# the fields in which a record's story is told in words: its state must be restated there when it changes
NARRATIVE_FIELDS = (
    "comment",
    "comments",
    "note",
    "notes",
    "remarks",
    "reason",
    "summary",
    "text",
    "verification",
    "verified_by",
    "decision_note",
)
CURRENCIES = {"EUR", "USD", "GBP", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "JPY", "CAD", "AUD"}
PLACEHOLDER = re.compile(r"(?i)\b(lorem ipsum|placeholder|todo|tbd|fixme|xxx+|sample text|some reason|reason text)\b")


def consistency_problems(case: Case) -> Iterator[str]:
    emails: dict[tuple[str, str], str] = {}
    # the distractor interventions copy required records with identical values on purpose (SPEC §8)
    clones = set(case.distractors) if case.condition in ("distractors", "withheld+distractors") else set()
    for record in case.records:
        fields = record.fields
        city = fields.get("city")
        if isinstance(city, str) and city in CITY_COUNTRY:
            country = CITY_COUNTRY[city]
            if "country" in fields and fields["country"] != country:
                yield f"{record.ref}: city {city} is in {country}, not {fields['country']}"
            if "timezone" in fields and fields["timezone"] != TIMEZONE[country]:
                yield f"{record.ref}: city {city} is in time zone {TIMEZONE[country]}, not {fields['timezone']}"
        email = fields.get("email")
        if isinstance(email, str):
            other = emails.setdefault((record.type, email.lower()), record.ref)
            if other != record.ref and not clones & {other, record.ref}:
                yield f"{record.ref} and {other} share the e-mail address {email}"
        for text in _strings(fields):
            if PLACEHOLDER.search(text):
                yield f"{record.ref}: placeholder text {text[:60]!r}"
    if PLACEHOLDER.search(case.task):
        yield f"task: placeholder text {case.task[:60]!r}"
    yield from _currencies(case)
    yield from _forbidding_state(case)


def _forbidding_state(case: Case) -> Iterator[str]:
    """A decisive requirement that can be contradicted states the narrative of its record's forbidding
    state: every narrative field the record fills, in `block_fields` (kept as is only if said so)."""
    records = {r.ref: r for r in case.records}
    for req in case.requirements:
        record = records.get(req.ref) if isinstance(req.ref, str) else None
        acting = case.protocol in ACTING_PROTOCOLS and case.condition == "original"
        if not acting or not req.decisive or req.block_value is None or record is None:
            continue
        for name in NARRATIVE_FIELDS:
            if record.fields.get(name) and name not in req.block_fields:
                yield (
                    f"requirement {req.id}: {record.ref}.{name} ({str(record.fields[name])[:40]!r}) is written for "
                    f"{req.field} = {req.value!r}; block_fields must say how it reads when {req.field} = "
                    f"{req.block_value!r}"
                )
        for name in sorted(set(req.block_fields) - set(record.fields)):
            yield f"requirement {req.id}: block_fields names {name!r}, which {record.ref} does not have"


def _currencies(case: Case) -> Iterator[str]:
    by_id = {r.id: r for r in case.records}
    for record in case.records:
        currency = record.fields.get("currency")
        if currency is None:
            continue
        if currency not in CURRENCIES:
            yield f"{record.ref}: currency {currency!r} is not an ISO code"
        for value in record.fields.values():
            other = by_id.get(value) if isinstance(value, str) else None
            theirs = other.fields.get("currency") if other is not None else None
            if theirs is not None and theirs != currency:
                yield f"{record.ref} is in {currency} but the linked {other.ref} in {theirs}"  # type: ignore[union-attr]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
