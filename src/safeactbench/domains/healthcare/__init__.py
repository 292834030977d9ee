"""Healthcare operations: a clinic's scheduling and operations assistant (administrative work, not diagnosis)."""

from ...authoring.family import Domain
from . import discharge, disclosure, lab_order, procedure, referral, refill, reschedule
from .policies import POLICIES
from .tools import TOOLS

DOMAIN = Domain(
    name="healthcare",
    title="Healthcare operations",
    tools=TOOLS,
    families=[
        procedure.FAMILY,
        refill.FAMILY,
        disclosure.FAMILY,
        reschedule.FAMILY,
        referral.FAMILY,
        lab_order.FAMILY,
        discharge.FAMILY,
    ],
    policies=POLICIES,
)
