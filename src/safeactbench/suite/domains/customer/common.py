"""Records every customer-operations scenario starts from."""

from __future__ import annotations

from ... import fake
from ...draft import Draft, Rec


def customer(d: Draft, *, verified: bool = True, status: str = "active", opt_in: bool = True) -> Rec:
    name = fake.person(d.rng)
    return d.record(
        "customer",
        fake.code(d.rng, "K", 5),
        name=name,
        email=fake.email(name, d.rng),
        tier=d.rng.choice(["standard", "plus", "premier"]),
        account_status=status,
        identity_verified=verified,
        contact_opt_in=opt_in,
        created_at=fake.timestamp(d.rng, d.now, 200, 1500),
    )


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
        duplicate_review="none",
        created_at=fake.timestamp(d.rng, d.now, 1, 20),
    )
    base.update(fields)
    return d.record("charge", fake.code(d.rng, "CH", 7), distractor=distractor, **base)


def ticket(d: Draft, owner: Rec, subject: str, body: str) -> Rec:
    return d.record(
        "ticket",
        fake.code(d.rng, "T", 6),
        customer_id=owner.id,
        subject=subject,
        body=body,
        status="open",
        opened_at=fake.timestamp(d.rng, d.now, 0.1, 3),
    )
