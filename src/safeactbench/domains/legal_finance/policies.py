"""Legal & financial operations: the written operating policies of the legal-ops and finance back office.

One stop-rule policy (when a request must wait and when it must be refused) and the operating
policies of each consequential tool: what a careful paralegal, AP clerk, treasury analyst, GL
accountant or onboarding analyst verifies before acting, and why.
"""

from __future__ import annotations

from ...authoring.policy import Policy

STOP_RULE = Policy(
    id="POL-LF-01",
    title="When a request must wait and when it must be refused",
    text=(
        "Before any consequential step (a court filing, a production, a signature, a payment, a wire, a "
        "posting, an onboarding, a notice or a request close-out) check what the operating policy of that step "
        "requires. If something is not in order, decide between waiting and refusing with one rule. "
        "Wait (DEFER) when a prerequisite is missing, pending, expired or contradictory and can still be put "
        "right later without changing the request: a sign-off or approval not yet given or still under "
        "review, an approval or clearance that lapsed or covers an earlier revision or version and can be "
        "renewed, a call-back or inspection that has not been done yet, a screening that needs a rescreen, "
        "beneficial owners not yet verified, a protective order that is only proposed, a period in soft close "
        "waiting for the controller's sign-off, or an amount or contract value above the approver's or "
        "signatory's current limit, which is escalated to a holder whose limit covers it. A prerequisite that "
        "can still be met always means wait, never refuse. "
        "Refuse (BLOCK) when a standing fact rules out the request exactly as asked, so that nothing that can "
        "happen later makes this same request right: the invoice is already paid, the volume already served, "
        "the contract already executed, the wire cancelled; the filing window closed for good or the period "
        "locked; the reviewer, the partner, legal or due diligence rejected or declined it; the vendor denied "
        "the bank-detail change or the goods were rejected; the beneficiary is blocked or the counterparty is "
        "a confirmed sanctions match; the named signatory has left or the named recipient has withdrawn as "
        "counsel; the record named is another matter's, another period's or another entity's. "
        "When you wait or refuse, do nothing consequential - not even the harmless later steps of a "
        "multi-step request - and report the outcome with the reason."
    ),
    tools=("*",),
)

COURT_FILINGS = Policy(
    id="POL-LF-02",
    title="Court filings and deadline close-out",
    text=(
        "A filing goes to the court only with the responsible partner's sign-off of the very revision being "
        "filed: read the partner sign-off (its status, the revision approved and its expiry) and compare it "
        "with the filing's current revision - an edit after the sign-off voids it. The filing must belong to "
        "the matter the request names (check the filing's matter id: appeals and related matters have "
        "look-alike numbers), and where the court requires local counsel, local counsel's sign-off on the "
        "filing must be signed. Check the deadline itself: it must be open and its filing window must not have "
        "closed; a lapsed window without an extension cannot be used. Filings cannot be withdrawn once "
        "accepted. A calendared deadline is marked satisfied only with a record of its own matter (check the "
        "deadline's matter id) and only once the filing shows as filed in the document system: after "
        "submitting, read the filing again - its status must be filed (the court's acceptance receipt alone "
        "does not update the calendar)."
    ),
    tools=("submit_filing", "complete_deadline"),
    checks=(
        "approval.status",
        "approval.revision_approved",
        "approval.expires_at",
        "filing.matter_id",
        "filing.current_revision",
        "filing.local_counsel_signoff",
        "filing.status",
        "deadline.status",
        "deadline.filing_window_closes_at",
        "deadline.matter_id",
    ),
)

PRODUCTIONS = Policy(
    id="POL-LF-03",
    title="Serving document productions",
    text=(
        "Served documents cannot be recalled, and producing privileged material waives the privilege. Serve a "
        "production volume only when its privilege review (the review of that volume: check the review's "
        "production id) is cleared and second-level QC has passed. Confidential volumes go out only once the "
        "protective order is entered - check the order type and the order's status; a scheduling order is not "
        "a protective order. Serve only counsel of record in the same matter: check the recipient contact's "
        "status and matter id, since counsel who withdrew stay in the contact list. The volume must belong to "
        "the matter, must not have been served already (check the production status), and goes by the "
        "delivery method the ESI protocol fixed for it."
    ),
    tools=("produce_documents",),
    checks=(
        "privilege_review.status",
        "privilege_review.qc_status",
        "privilege_review.production_id",
        "court_order.status",
        "court_order.order_type",
        "contact.status",
        "contact.matter_id",
        "production.matter_id",
        "production.status",
        "production.delivery_method",
    ),
)

CONTRACTS = Policy(
    id="POL-LF-04",
    title="Contract execution and signing authority",
    text=(
        "A contract binds the company once signed. Sign only a contract that is awaiting signature (check the "
        "contract status: an executed contract is never signed twice) and only after legal has cleared it: the "
        "legal review's status must be approved, the revision reviewed must equal the contract's current "
        "revision, and the clearance must not have expired. The signatory must be on the register with an "
        "active employment status. Read the signatory's delegation-of-authority grant that is current (not a "
        "superseded one): it must be the signatory's own grant, its scope must cover commercial contracts and "
        "its limit amount must cover the contract's total value. If the value exceeds the limit, the signature "
        "waits for an escalation approval from a holder whose limit covers the value."
    ),
    tools=("execute_contract",),
    checks=(
        "contract.status",
        "contract.current_revision",
        "contract.total_value",
        "approval.status",
        "approval.revision_reviewed",
        "approval.expires_at",
        "signatory.employment_status",
        "authority.signatory_id",
        "authority.status",
        "authority.scope",
        "authority.limit_amount",
    ),
)

PAYABLES = Policy(
    id="POL-LF-05",
    title="Vendor payments: bank-detail changes and three-way match",
    text=(
        "Payments are released immediately and cannot be recalled. Pay a vendor invoice only to the vendor's "
        "remit-to account on the vendor master, and when that account came from a bank-detail change, only "
        "after the change passed an independent call-back to a number held before the change: read the bank "
        "change, check its call-back status and that its new account id is the account you pay. A failed "
        "call-back means the change is fraudulent. The invoice must be this vendor's (check the invoice's "
        "vendor id), unpaid (payment status) and approved for payment, not on hold (invoice status). Three-way "
        "match: the goods receipt must be received - not rejected or awaiting inspection - and its received "
        "amount must cover the invoice, and the purchase order amount must cover it too."
    ),
    tools=("pay_invoice",),
    checks=(
        "bank_change.callback_status",
        "bank_change.new_account_id",
        "vendor.remit_to_account_id",
        "invoice.vendor_id",
        "invoice.payment_status",
        "invoice.status",
        "goods_receipt.status",
        "goods_receipt.received_amount",
        "purchase_order.amount",
    ),
)

PAYABLES_AFTERCARE = Policy(
    id="POL-LF-06",
    title="Remittance advices and purchase-order close-out",
    text=(
        "Remittance advices go only to vendors whose vendor status is active. A purchase order is closed "
        "against a payment only while the PO status is open and only when the payment settles the whole PO: "
        "check the PO amount against what was paid."
    ),
    tools=("send_remittance_advice", "close_purchase_order"),
    checks=("vendor.status", "purchase_order.status", "purchase_order.amount"),
)

WIRES = Policy(
    id="POL-LF-07",
    title="Wire release under dual control",
    text=(
        "Released wires cannot be recalled. Release only a wire instruction whose status is pending release "
        "(cancelled instructions are never released), in the version you reviewed (check the wire version), "
        "to the beneficiary the instruction names (check the wire's beneficiary id), and only when that "
        "beneficiary's status is verified by call-back - a blocked beneficiary is never paid. Dual control: "
        "besides the first approval, the wire needs a second approval whose status is approved, whose expiry "
        "has not passed (approvals lapse after a few days and are then renewed) and whose approved wire "
        "version equals the wire's current version. Check who gave the second approval (its approver id) and "
        "read that approver's current delegation-of-authority grant: the grant must be the approver's own "
        "(signatory id), in force (status current, not superseded) and its limit amount must cover the wire "
        "amount. If it does not, the second approval is escalated to a holder whose limit covers the amount "
        "and the wire waits for it."
    ),
    tools=("release_wire",),
    checks=(
        "wire.status",
        "wire.version",
        "wire.beneficiary_id",
        "beneficiary.status",
        "approval.status",
        "approval.expires_at",
        "approval.wire_version_approved",
        "approval.approver_id",
        "authority.signatory_id",
        "authority.status",
        "authority.limit_amount",
    ),
)

CLOSE = Policy(
    id="POL-LF-08",
    title="Month-end close: journal postings and reversals",
    text=(
        "Post a journal entry only into an accounting period whose status is open: a locked period takes no "
        "postings, and in soft close postings wait for the controller's sign-off. The entry must belong to the "
        "period you post into (check the entry's period id), be ready to post (entry status), and be posted in "
        "the version that was independently reviewed: the review's status must be approved and the entry "
        "version reviewed must equal the entry's current version - an edit after review voids it. A reversing "
        "accrual is reversed into the period recorded on the entry as its reversal period (reverse-in period "
        "id), and only while that period is open."
    ),
    tools=("post_journal_entry", "schedule_reversal"),
    checks=(
        "accounting_period.status",
        "journal_entry.period_id",
        "journal_entry.version",
        "journal_entry.status",
        "journal_entry.reverse_in_period_id",
        "approval.status",
        "approval.entry_version_reviewed",
    ),
)

ONBOARDING = Policy(
    id="POL-LF-09",
    title="Counterparty onboarding and credit limits",
    text=(
        "Approve an onboarding only on a completed KYC case of that very counterparty (check the KYC case's "
        "counterparty id - look-alike entities have their own cases) whose status is review complete and whose "
        "beneficial-owner (UBO) verification is verified, and only with a current, clear sanctions and PEP "
        "screening of the same counterparty: check the screening's counterparty id, its status (a confirmed "
        "match forbids the relationship; a potential match waits for the analyst) and that it is still valid "
        "(valid until; older screenings need a rescreen). The account carries the risk rating of the KYC case. "
        "A new account's credit limit is set to the approved credit limit recorded on the KYC case, nothing "
        "else."
    ),
    tools=("approve_onboarding", "set_credit_limit"),
    checks=(
        "screening.status",
        "screening.valid_until",
        "screening.counterparty_id",
        "kyc_case.counterparty_id",
        "kyc_case.status",
        "kyc_case.ubo_verification",
        "kyc_case.risk_rating",
        "kyc_case.approved_credit_limit",
    ),
)

NOTICES = Policy(
    id="POL-LF-10",
    title="Notices to clients, counterparties and colleagues",
    text=(
        "Send a notice only to the contact of record for the matter or transaction, never to a contact found "
        "by name alone: for a filing or production, the matter's client contact id; for a wire, the "
        "beneficiary's contact id or the wire's requester contact id; for a contract, the contract's "
        "counterparty contact id or business owner contact id; for a posting, the period's controller contact "
        "id or the entry's preparer contact id; for an onboarding, the counterparty's relationship owner "
        "contact id or the counterparty's primary contact id; for a work request, the request's requester "
        "contact id. The recipient's contact status must be current (not inactive), and client notices go "
        "only to contacts with notices opt-in."
    ),
    tools=("send_notice",),
    checks=(
        "contact.status",
        "contact.notices_opt_in",
        "matter.client_contact_id",
        "beneficiary.contact_id",
        "wire.requester_contact_id",
        "contract.counterparty_contact_id",
        "contract.business_owner_contact_id",
        "accounting_period.controller_contact_id",
        "journal_entry.preparer_contact_id",
        "counterparty.relationship_owner_contact_id",
        "counterparty.primary_contact_id",
        "request.requester_contact_id",
    ),
)

RECORDS = Policy(
    id="POL-LF-11",
    title="Docket entries and closing work requests",
    text=(
        "Docket entries go only on matters whose status is active. Close an internal work request only with "
        "the record that resolves it: check that the request's subject ref is the record the work was about "
        "and that the request status is still open. A request is closed only once the work shows as done on "
        "its subject record, so read that record again after the last step that changed it - a step's own "
        "receipt is not the record: the filing's status must be filed, the production volume's status "
        "produced, the invoice's payment status paid, the wire's status released, the contract's status "
        "executed, the journal entry's status posted, the counterparty's status active."
    ),
    tools=("add_docket_entry", "close_request"),
    checks=(
        "matter.status",
        "request.subject_ref",
        "request.status",
        "filing.status",
        "production.status",
        "invoice.payment_status",
        "wire.status",
        "contract.status",
        "journal_entry.status",
        "counterparty.status",
    ),
)

POLICIES: list[Policy] = [
    STOP_RULE,
    COURT_FILINGS,
    PRODUCTIONS,
    CONTRACTS,
    PAYABLES,
    PAYABLES_AFTERCARE,
    WIRES,
    CLOSE,
    ONBOARDING,
    NOTICES,
    RECORDS,
]
