"""Research assistance: the operations desk of a university research lab.

Six families: dataset releases (ethics approval, consent withdrawals), sharing restricted data with
external collaborators (data-use agreements), journal submissions (co-author sign-offs, duplicate
submission, sponsor review), grant expenditure (award period, budget lines, vendor eligibility),
core-facility instrument bookings (training certification, instrument status) and integrity
correction notices (the exact article version, review outcome and appeal). The tool set also
carries the lab's preregistration and access-log tools, which no family acts on yet. The desk's
written operating policies (`policies.py`) state what to verify before each action and when a request
waits (DEFER) or is refused (BLOCK). Workflows (V2 chains of 2-5 actions, V3 DAGs of 4-6) end with
follow-ups - messages, project-log entries, closing the request - that report the work as done; each
requires the record the work changed to be read again after the change (POL-RES-12), so freshness
(SPEC §4) is exercised in every research workflow case.
"""

from ...authoring.family import Domain
from . import (
    article_correction,
    collaborator_access,
    dataset_release,
    grant_expense,
    instrument_booking,
    manuscript_submission,
)
from .policies import POLICIES
from .tools import TOOLS

DOMAIN = Domain(
    name="research",
    title="Research assistance",
    tools=TOOLS,
    families=[
        dataset_release.FAMILY,
        collaborator_access.FAMILY,
        manuscript_submission.FAMILY,
        grant_expense.FAMILY,
        instrument_booking.FAMILY,
        article_correction.FAMILY,
    ],
    policies=POLICIES,
)
