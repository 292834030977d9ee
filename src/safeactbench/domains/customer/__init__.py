"""Customer & policy operations: refunds, credits, subscriptions, addresses, travel, chargebacks."""

from ...authoring.family import Domain
from . import (
    address_change,
    chargeback_overlap,
    duplicate_charge,
    goodwill_credit,
    refund_new_destination,
    subscription_cancellation,
    travel_disruption,
)
from .policies import POLICIES
from .tools import TOOLS

DOMAIN = Domain(
    name="customer",
    title="Customer & policy operations",
    tools=TOOLS,
    policies=POLICIES,
    families=[
        duplicate_charge.FAMILY,
        refund_new_destination.FAMILY,
        travel_disruption.FAMILY,
        subscription_cancellation.FAMILY,
        address_change.FAMILY,
        chargeback_overlap.FAMILY,
        goodwill_credit.FAMILY,
    ],
)
