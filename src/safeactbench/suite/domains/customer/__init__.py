"""Customer & policy operations: refunds, credits, subscriptions, addresses, travel, chargebacks."""

from ...family import Domain
from . import duplicate_charge
from .tools import TOOLS

DOMAIN = Domain(
    name="customer",
    title="Customer & policy operations",
    tools=TOOLS,
    families=[
        duplicate_charge.FAMILY,
    ],
)
