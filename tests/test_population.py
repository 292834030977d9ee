"""Background population (`authoring/population.py`): the rest of the system around a scenario. Clones
get fresh ids, people and amounts, keep their links among themselves, and never answer a search the
task motivates, so the request stays unambiguous."""

from __future__ import annotations

import random

from safeactbench.authoring import fake
from safeactbench.authoring.draft import Rec
from safeactbench.authoring.population import populate


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


def test_without_a_named_record_the_scenarios_other_clusters_are_copied() -> None:
    task = "Refund the lost order of Amara Okafor."  # names no id: an agent finds her by name
    filters = {"customer": {"name"}}
    added = populate(scenario(), set(), task, filters, random.Random(1), 20)
    customers = [r for r in added if r.type == "customer"]
    assert customers and not any(r["name"] == "Amara Okafor" for r in customers)  # never a second answer


def test_a_copy_of_a_record_the_task_names_by_id_may_share_the_words_of_the_task() -> None:
    # the task names order O-200001: another lost order of another customer is background, not a second answer
    task = "Order O-200001 is stuck as lost_in_transit; refund it."
    records = scenario()
    named = {"order:O-200001", "customer:K-10001"}
    added = populate(records, named, task, {"order": {"status"}}, random.Random(7), 16)
    assert any(r.type == "order" and r["status"] == "lost_in_transit" for r in added)


def test_a_pooled_name_is_swapped_for_another_of_its_pool() -> None:
    homes = ("Old rectory", "Town house", "Beach house")
    records = [
        Rec("home", "H-10001", {"name": "Old rectory"}),
        Rec("device", "DV-10001", {"home_id": "H-10001", "name": "Porch light"}),
    ]
    task = "At Old rectory, switch on the porch light at sunset."
    added = populate(records, set(), task, {"home": {"name"}}, random.Random(3), 6, pools=(homes,))
    names = [r["name"] for r in added if r.type == "home"]
    assert names and all(name in homes and name != "Old rectory" for name in names)


def test_packaged_worlds_hold_at_least_20_records_and_40_on_average_besides_the_policies() -> None:
    from safeactbench.suite.data import load_suite
    from safeactbench.suite.report import own_records

    sizes = [own_records(c) for c in load_suite() if c.protocol.value != "Legacy"]
    assert min(sizes) >= 20 and sum(sizes) / len(sizes) >= 40
