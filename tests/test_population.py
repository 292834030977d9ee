"""Background population (`suite/population.py`): the rest of the system around a scenario. Clones
get fresh ids, people and amounts, keep their links among themselves, and never answer a search the
task motivates, so the request stays unambiguous."""

from __future__ import annotations

import random

from safeactbench.suite import fake
from safeactbench.suite.draft import Rec
from safeactbench.suite.population import populate


def scenario() -> list[Rec]:
    return [
        Rec("customer", "K-10001", {"name": "Amara Okafor", "email": "amara.okafor@mail.example", "tier": "plus"}),
        Rec("order", "O-200001", {"customer_id": "K-10001", "total": 120.0, "status": "lost_in_transit"}),
        Rec("ticket", "T-300001", {"customer_id": "K-10001", "body": "Order O-200001 never came."}),
        Rec("carrier", "CA-1", {"name": "Parcelwise"}),  # shared: the clones keep linking to it
    ]


def test_clones_are_other_customers_with_their_own_records() -> None:
    records = scenario()
    records[1].fields["carrier_id"] = "CA-1"
    task = "Amara Okafor (K-10001) never received order O-200001; refund it."
    added = populate(records, {"customer:K-10001"}, task, {"customer": {"name"}}, random.Random(7), 16)
    assert 16 - len(records) <= len(added) < 16 - len(records) + 3  # whole clusters until the size is reached
    ids = {r.id for r in records}
    customers = [r for r in added if r.type == "customer"]
    assert customers and all(c.id not in ids for c in customers)
    assert all(fake.is_person(c["name"]) and c["name"] != "Amara Okafor" for c in customers)
    emails = [c["email"] for c in customers] + ["amara.okafor@mail.example"]
    assert len(set(emails)) == len(emails)
    by_id = {r.id: r for r in added}
    for order in (r for r in added if r.type == "order"):
        owner = by_id[order["customer_id"]]  # the clone's order belongs to the clone, not to K-10001
        assert owner.type == "customer" and order["carrier_id"] == "CA-1"
    for ticket in (r for r in added if r.type == "ticket"):
        [order_id] = [r.id for r in added if r.type == "order" and r["customer_id"] == ticket["customer_id"]]
        assert ticket["body"] == f"Order {order_id} never came."
    assert not any(r.type == "carrier" for r in added)


def test_a_clone_a_task_motivated_search_would_return_is_left_out() -> None:
    # the task searches orders by status; a cloned order with the same status would be a second answer
    task = "Amara Okafor (K-10001) has an order stuck as lost_in_transit; refund it."
    filters = {"order": {"status"}}
    added = populate(scenario(), {"customer:K-10001"}, task, filters, random.Random(7), 16)
    assert added and not any(r.type == "order" for r in added)
    # and what hangs off a left-out record goes with it - by link or by mention (the ticket quoting it)
    assert all(r.type == "customer" for r in added)


def test_no_named_record_means_no_background() -> None:
    assert populate(scenario(), set(), "Refund it.", {}, random.Random(1), 40) == []
