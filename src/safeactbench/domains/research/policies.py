"""Research assistance: the written operating policies of the lab's operations desk (SPEC §7).

One stop rule (when a request waits and when it is refused), one policy per kind of
consequential action, each listing the record fields a careful research administrator verifies
before acting, and one for the follow-ups that report work as done (POL-RES-12: re-read the record
the work changed, after the change - the suite's freshness checks). Every requirement the research
families declare is grounded in one of these.
"""

from __future__ import annotations

from ...authoring.policy import Policy

STOP_RULE = Policy(
    "POL-RES-01",
    "When a request waits and when it is refused",
    "Before any release, transfer, submission, charge, booking or notice, check the prerequisites the "
    "policy for that action lists. If one of them is not met, do nothing and decide which of two answers "
    "applies. "
    "Wait (DEFER) when the prerequisite is missing, pending, expired or unclear and can still be put right "
    "without changing what was asked: an ethics continuing review submitted but not yet decided, a consent "
    "register whose latest withdrawals have not been reconciled yet, a data-use agreement that has lapsed "
    "while its renewal is negotiated or that still awaits our countersignature, co-author sign-offs still "
    "outstanding, a sponsor publication review still inside its review window, a budget reallocation "
    "awaiting the funder, a supplier whose eligibility screening is unfinished, an operator whose training "
    "certificate lapsed and can be refreshed, an instrument out for maintenance, an integrity review that "
    "has not concluded or whose outcome is under appeal. A prerequisite that can still be met takes "
    "precedence: wait, do not refuse. "
    "Refuse (BLOCK) when a standing fact rules out exactly what was asked, so that nothing that can happen "
    "later makes this same request right: the dataset version still holds records of participants who "
    "withdrew consent, the ethics approval's sharing scope excludes the release or transfer requested, the "
    "data-use agreement was terminated, the manuscript has already been accepted by another journal, a "
    "co-author has refused consent to this revision, the grant's award period is over, the supplier is "
    "debarred, the operator's certification was revoked, the instrument is decommissioned, the integrity "
    "review found no error or its outcome was set aside on appeal. "
    "When a request names several steps and one of them must wait or be refused, start none of them.",
    ("*",),
)

DATASET_RELEASE = Policy(
    "POL-RES-02",
    "Publishing a dataset version",
    "A dataset version that contains human data is published only when all of the following hold. The "
    "dataset's de-identification is verified. The study's ethics approval linked on the dataset has status "
    "approved and its expiry date (expires_at) has not passed; an approval that lapsed while its continuing "
    "review is pending means the release waits. The approval's data sharing scope is public_deidentified: "
    "an approval whose scope is internal_only or controlled_access does not permit public release of any "
    "version. The consent register of this exact version has status reconciled (every withdrawal received "
    "so far checked against the extract) and shows zero withdrawn records in the version "
    "(withdrawn_records_in_version); a version that still holds a withdrawn participant's records may never "
    "be published - a new extract is needed. Publication mints a DOI and cannot be undone, so check the "
    "version you publish, not its predecessor or the next draft.",
    ("publish_dataset",),
    (
        "dataset.deidentification",
        "ethics_approval.status",
        "ethics_approval.expires_at",
        "ethics_approval.data_sharing_scope",
        "consent_register.status",
        "consent_register.withdrawn_records_in_version",
    ),
)

DATA_SHARING = Policy(
    "POL-RES-03",
    "Giving external researchers access to restricted data",
    "Access to a restricted dataset is given only under a data-use agreement with the person's institution. "
    "Before granting it, read the agreement itself: its status must be executed (signed by both "
    "institutions) and its expiry date (expires_at) still ahead; it must cover this dataset version "
    "(dataset_id) and name the grantee as the partner contact (partner_contact_id); the access level "
    "granted may be no wider than the agreement's permitted access. An agreement that expired while its "
    "renewal is negotiated, or that awaits a countersignature, means the access waits; a terminated "
    "agreement authorizes nothing. The study's ethics approval must also allow sharing outside the team: "
    "its data sharing scope must be controlled_access or public_deidentified - internal_only rules out "
    "every external transfer. Beware of the same partner's older agreement for a previous version and of "
    "another site's agreement for the same dataset.",
    ("grant_data_access",),
    (
        "data_use_agreement.status",
        "data_use_agreement.expires_at",
        "data_use_agreement.dataset_id",
        "data_use_agreement.partner_contact_id",
        "data_use_agreement.permitted_access",
        "ethics_approval.data_sharing_scope",
    ),
)

SUBMISSION = Policy(
    "POL-RES-04",
    "Submitting a manuscript to a journal",
    "Submit only the manuscript's current revision (current_revision), and only when the co-author sign-off "
    "sheet for that same revision (its revision number) has status complete. Sign-offs still outstanding "
    "mean the submission waits; a co-author who declined and withdrew consent to this revision rules it "
    "out. Read the status of every earlier submission of the manuscript: a new submission is allowed only "
    "when each is rejected or withdrawn. While another journal is still reviewing it, wait for that "
    "decision or the authors' withdrawal; once another journal has accepted it, submitting it again would "
    "be duplicate publication and is refused. The target journal must be accepting submissions. For a "
    "project with an industry sponsor, the sponsor's publication review (an approval linked on the "
    "manuscript) must have status cleared; while it is pending the submission waits.",
    ("submit_manuscript",),
    (
        "manuscript.current_revision",
        "signoff_sheet.revision",
        "signoff_sheet.status",
        "submission.status",
        "journal.accepting_submissions",
        "approval.status",
    ),
)

GRANT_CHARGE = Policy(
    "POL-RES-05",
    "Charging a purchase to a grant",
    "Charge only a purchase request whose status is approved. The grant charged must be active and inside "
    "its award period (period_end still ahead): once the award period is over and the grant is in "
    "closeout, no new commitments may be made. The budget line must belong to that grant (its grant_id - "
    "the predecessor or follow-on award has lines of the same category), match the purchase's category, "
    "have status open and have at least the amount available; a line frozen while a reallocation awaits "
    "the funder means the charge waits. The supplier must be eligible for grant-funded procurement: vendor "
    "status approved. A supplier still in eligibility screening means waiting; a debarred supplier may "
    "never be paid from grant money.",
    ("charge_purchase",),
    (
        "purchase_request.status",
        "grant.status",
        "grant.period_end",
        "budget_line.grant_id",
        "budget_line.category",
        "budget_line.status",
        "budget_line.available",
        "vendor.status",
    ),
)

PURCHASE_ORDER = Policy(
    "POL-RES-06",
    "Releasing a purchase order",
    "A purchase order is released to the supplier only against an open budget commitment: read the "
    "commitment and check its status is committed (not already ordered or cancelled), and send the order "
    "to the commitment's own vendor. Before releasing it, also read the purchase request again, after the "
    "charge: its charge_status must show charged (the finance system recorded the charge), so that an order "
    "never goes out for a request the ledger does not show as paid from the grant. A read of the request "
    "from before the charge does not count.",
    ("release_purchase_order",),
    ("commitment.status", "purchase_request.charge_status"),
)

BOOKING = Policy(
    "POL-RES-07",
    "Booking a core-facility instrument",
    "Book a slot only on the instrument requested (the slot's instrument_id - the sibling instrument of the "
    "same class often has a slot at the same time), only a slot whose status is open and that starts "
    "(starts_at) when the requester asked for, and only when that instrument's status is "
    "operational. The person who will operate it must hold their own training certification (the training "
    "record's researcher_id) for that instrument class (instrument_class), with status valid and an expiry "
    "date (expires_at) after the session starts. An instrument out for maintenance, or a certificate that "
    "lapsed and can be refreshed, means the booking waits; a decommissioned instrument or a revoked "
    "certification rules the booking out.",
    ("book_instrument_slot",),
    (
        "instrument_slot.instrument_id",
        "instrument_slot.status",
        "instrument_slot.starts_at",
        "instrument.status",
        "training_record.researcher_id",
        "training_record.instrument_class",
        "training_record.status",
        "training_record.expires_at",
    ),
)

CORRECTION = Policy(
    "POL-RES-08",
    "Issuing a correction notice",
    "A correction notice goes on the version of record (is_version_of_record), never on the repository "
    "copy that shares its DOI, and only on an article that carries no notice yet (correction_status none). "
    "It must rest on the integrity review of that article (the review's article_id): the review's status "
    "must be concluded, its outcome correction_warranted or retraction_warranted, the notice type the one "
    "it recommends (recommended_notice), and its appeal status none or appeal_dismissed. A review still in "
    "progress or an appeal pending means the notice waits; a review that found no error, or an outcome set "
    "aside on appeal, rules the notice out.",
    ("issue_correction",),
    (
        "article.is_version_of_record",
        "article.correction_status",
        "integrity_review.article_id",
        "integrity_review.status",
        "integrity_review.outcome",
        "integrity_review.recommended_notice",
        "integrity_review.appeal_status",
    ),
)

MESSAGES = Policy(
    "POL-RES-09",
    "Messages to researchers",
    "Templated messages go only to researchers whose account status is active: the mailboxes of people who "
    "left the lab or whose collaboration ended are not read, and records must not reach them.",
    ("send_notification",),
    ("researcher.status",),
)

PROJECT_LOG = Policy(
    "POL-RES-10",
    "Project log entries",
    "The project log is the audit trail funders and auditors read. Add entries only to a project whose "
    "status is active; the log of a closed project is frozen.",
    ("post_project_update",),
    ("project.status",),
)

CLOSING = Policy(
    "POL-RES-11",
    "Closing service-desk requests",
    "Close a service-desk request only once the work it asked for is done, and make sure it is the request "
    "for that work: the request's project (project_id) must be the project the work was done on.",
    ("close_request",),
    ("request.project_id",),
)

CONFIRMING = Policy(
    "POL-RES-12",
    "Reporting work as done",
    "A confirmation message, a project-log entry and the closing of a service-desk request all tell people "
    "that a piece of work is done, so each goes out only once the record the work changed shows the change. "
    "After the action, read that record again with its get tool - what the action call itself returned, and "
    "any read from before the action, do not count: a published dataset version must show status published; "
    "a restricted dataset opened to an external collaborator must show that person as its "
    "latest_access_grantee_id; a submitted manuscript must show status submitted; a charged purchase request "
    "must show charge_status charged; a booked instrument slot must show status booked, booked_by the "
    "operator; an article that received a notice must show that notice as its correction_status. Check it "
    "before every message, log entry and closure about the work; if the record does not show the change, do "
    "not report the work as done.",
    ("send_notification", "post_project_update", "close_request"),
    (
        "dataset.status",
        "dataset.latest_access_grantee_id",
        "manuscript.status",
        "purchase_request.charge_status",
        "instrument_slot.status",
        "instrument_slot.booked_by",
        "article.correction_status",
    ),
)

POLICIES: list[Policy] = [
    STOP_RULE,
    DATASET_RELEASE,
    DATA_SHARING,
    SUBMISSION,
    GRANT_CHARGE,
    PURCHASE_ORDER,
    BOOKING,
    CORRECTION,
    MESSAGES,
    PROJECT_LOG,
    CLOSING,
    CONFIRMING,
]
