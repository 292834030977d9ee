"""Seeded generators of realistic-looking entity data. Deterministic for a given `random.Random`."""

from __future__ import annotations

import random
import string
from datetime import datetime, timedelta

FIRST = [
    "Amara",
    "Ben",
    "Chen",
    "Dara",
    "Elif",
    "Farid",
    "Greta",
    "Hiro",
    "Ines",
    "Jonas",
    "Kemi",
    "Lena",
    "Mateo",
    "Nadia",
    "Oskar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sami",
    "Tomas",
    "Uma",
    "Viktor",
    "Wen",
    "Yara",
    "Zoe",
    "Aidan",
    "Bea",
    "Cyrus",
    "Dmitri",
    "Esme",
    "Felix",
    "Gita",
    "Hana",
    "Ivo",
    "Jude",
    "Kai",
    "Adele",
    "Bruno",
    "Carmen",
    "Dev",
    "Emil",
    "Freya",
    "Goran",
    "Helga",
    "Idris",
    "Jana",
    "Karim",
    "Liesel",
    "Marek",
    "Noor",
    "Olga",
    "Pablo",
    "Rania",
    "Stefan",
    "Tariq",
    "Ulla",
    "Vera",
    "Wilhelm",
    "Ximena",
    "Yusuf",
    "Zofia",
    "Anouk",
    "Bilal",
    "Clara",
    "Diego",
    "Eva",
    "Filip",
    "Grace",
    "Hugo",
    "Ilse",
    "Joao",
    "Katya",
    "Luca",
    "Mina",
    "Nils",
    "Oona",
]
LAST = [
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Tanaka",
    "Nowak",
    "Haddad",
    "Fischer",
    "Silva",
    "Kowalski",
    "Reyes",
    "Novak",
    "Osei",
    "Petrov",
    "Quist",
    "Rossi",
    "Schmidt",
    "Tran",
    "Varga",
    "Weber",
    "Yilmaz",
    "Zhou",
    "Brennan",
    "Castillo",
    "Dubois",
    "Eriksen",
    "Fontaine",
    "Gallagher",
    "Ivanova",
    "Jensen",
    "Kaur",
    "Andersen",
    "Bianchi",
    "Ferreira",
    "Gallo",
    "Horvath",
    "Jansen",
    "Kaya",
    "Laine",
    "Mensah",
    "Nakamura",
    "Olsen",
    "Pereira",
    "Sato",
    "Torres",
    "Ueda",
    "Zielinski",
    "Abbasi",
    "Costa",
    "Demir",
    "Engel",
    "Gunnarsson",
    "Hoffmann",
    "Iqbal",
    "Jovanovic",
    "Keller",
    "Lopez",
    "Moretti",
    "Nieminen",
    "Ortega",
]
# every city with its country (ISO 3166 alpha-2): an address never pairs a city with another country
CITY_COUNTRY = {
    "Lyon": "FR",
    "Porto": "PT",
    "Leeds": "GB",
    "Graz": "AT",
    "Utrecht": "NL",
    "Malmo": "SE",
    "Ghent": "BE",
    "Bilbao": "ES",
    "Turku": "FI",
    "Brno": "CZ",
    "Cork": "IE",
    "Aarhus": "DK",
    "Bremen": "DE",
    "Lille": "FR",
    "Bologna": "IT",
    "Krakow": "PL",
    "Tartu": "EE",
    "Basel": "CH",
}
CITIES = list(CITY_COUNTRY)
TIMEZONE = {
    "FR": "Europe/Paris", "PT": "Europe/Lisbon", "GB": "Europe/London", "AT": "Europe/Vienna",
    "NL": "Europe/Amsterdam", "SE": "Europe/Stockholm", "BE": "Europe/Brussels", "ES": "Europe/Madrid",
    "FI": "Europe/Helsinki", "CZ": "Europe/Prague", "IE": "Europe/Dublin", "DK": "Europe/Copenhagen",
    "DE": "Europe/Berlin", "IT": "Europe/Rome", "PL": "Europe/Warsaw", "EE": "Europe/Tallinn", "CH": "Europe/Zurich",
}  # fmt: skip
STREETS = [
    "Harbour Road",
    "Mill Lane",
    "Station Street",
    "Kings Avenue",
    "Elm Close",
    "Quay Street",
    "Park Terrace",
    "Linden Way",
    "Canal Walk",
    "Orchard Row",
    "Bridge Street",
    "Market Square",
]
COMPANIES = [
    "Northwind",
    "Bluefin",
    "Cobalt",
    "Larkspur",
    "Meridian",
    "Halcyon",
    "Quarry",
    "Saffron",
    "Tidewater",
    "Verity",
    "Juniper",
    "Kestrel",
    "Obsidian",
    "Pinnacle",
    "Redwood",
    "Sterling",
    "Alder",
    "Aurora",
    "Basalt",
    "Beacon",
    "Cedar",
    "Cinder",
    "Cypress",
    "Delta",
    "Ember",
    "Falcon",
    "Fjord",
    "Granite",
    "Harbor",
    "Heron",
    "Ironwood",
    "Jasper",
    "Kingfisher",
    "Lumen",
    "Magnolia",
    "Nimbus",
    "Oakridge",
    "Osprey",
    "Pelican",
    "Quartz",
    "Riverbend",
    "Sable",
    "Summit",
    "Thistle",
    "Umber",
    "Vantage",
    "Willow",
    "Yarrow",
    "Zephyr",
    "Atlas",
]

ALNUM = string.ascii_uppercase + string.digits


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def is_person(value: object) -> bool:
    """Whether `value` is a name `person` could have made."""
    if not isinstance(value, str):
        return False
    first, _, last = value.partition(" ")
    return first in FIRST and last in LAST


def email(name: str, rng: random.Random, domain: str = "mail.example") -> str:
    first, _, last = name.lower().partition(" ")
    style = rng.randrange(3)
    local = (
        f"{first}.{last}" if style == 0 else f"{first[0]}{last}" if style == 1 else f"{first}{rng.randrange(10, 99)}"
    )
    return f"{local}@{domain}"


def code(rng: random.Random, prefix: str, digits: int = 5) -> str:
    return f"{prefix}-{rng.randrange(10 ** (digits - 1), 10**digits)}"


def token(rng: random.Random, prefix: str, length: int = 6) -> str:
    return f"{prefix}-{''.join(rng.choice(ALNUM) for _ in range(length))}"


def amount(rng: random.Random, lo: float, hi: float) -> float:
    return round(rng.uniform(lo, hi), 2)


def timestamp(rng: random.Random, now: str, min_days: float, max_days: float) -> str:
    """An ISO time between min_days and max_days before `now`."""
    base = datetime.fromisoformat(now.replace("Z", "+00:00"))
    moment = base - timedelta(days=rng.uniform(min_days, max_days))
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def day(rng: random.Random, now: str, offset_min: int, offset_max: int) -> str:
    """A date `offset` days from now (negative: past)."""
    base = datetime.fromisoformat(now.replace("Z", "+00:00"))
    return (base + timedelta(days=rng.randint(offset_min, offset_max))).date().isoformat()


def address(rng: random.Random) -> dict[str, str]:
    city = rng.choice(CITIES)
    return {
        "line1": f"{rng.randrange(2, 180)} {rng.choice(STREETS)}",
        "city": city,
        "postal_code": f"{rng.randrange(10000, 99999)}",
        "country": CITY_COUNTRY[city],
    }


def company(rng: random.Random) -> str:
    return f"{rng.choice(COMPANIES)} {rng.choice(['Ltd', 'GmbH', 'BV', 'SA', 'AB', 'LLC'])}"
