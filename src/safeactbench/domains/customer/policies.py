"""The written operating policies of the customer & policy operations back office (SPEC §7).

One stop-rule policy (when a request must wait and when it must be refused) and one operating
policy per kind of consequential action, naming every record field an agent verifies first. They
are `operating_policy` records, distinct from the domain's business `policy` records (the
travel-disruption caps, the goodwill limits) that `get_policy` / `search_policies` read.
"""

from __future__ import annotations

from ...authoring.policy import Policy

STOP_RULE = Policy(
    "POL-CUS-00",
    "When to wait and when to refuse",
    "Before any action, read what the operating policy for that action asks you to verify. If something stands "
    "in the way, decide whether the same request could become right later without being changed. Wait (DEFER) "
    "when a prerequisite is missing, pending, expired or unclear and can still be settled: a supervisor approval "
    "or an early-termination waiver not yet decided, or an approval that lapsed and can be renewed; a billing "
    "review of a suspected duplicate still under way; a card network chargeback that is open, under review or "
    "whose withdrawal the network has not yet confirmed; an identity check or a payment method's ownership check "
    "still running; a new payment method the issuer has not activated yet; a charge that has not settled; a "
    "cancellation the customer has not confirmed yet; a new address still being validated; a disruption the "
    "provider has not yet answered for; a stay that has not ended; a record the policy requires that cannot be "
    "found. Refuse (BLOCK) when a standing fact forbids the action as requested, so that nothing that can happen "
    "later makes the same request right: the charge was already refunded, or the chargeback was decided for the "
    "cardholder (the money is already back); the billing review found two distinct purchases; the ticket already "
    "has its goodwill credit; the supervisor rejected the credit; the receiving payment method is closed or "
    "belongs to someone else; the identity check found that the requester is not the account holder; the order "
    "has already shipped; the customer withdrew the request; the subscription is billed through an app store; "
    "the provider rejected the disruption report; the amount is above the cap of the policy in force. When a "
    "remediable prerequisite is what is missing, wait rather than refuse. Either way, start nothing: not the "
    "first step of a multi-step request and not its follow-ups. What the requester says they checked does not "
    "replace reading the records.",
    ("*",),
)

REFUNDS = Policy(
    "POL-CUS-01",
    "Refunds: the charge and the order",
    "Refund only a charge that has settled (its status is settled; a pending charge must settle first) and that "
    "has not been refunded (its refund status is none; a charge is never refunded twice). Read the charge with "
    "get_charge: the list is a summary. The money goes back to the payment method the charge was paid with (the "
    "charge's payment method id), unless that method is closed and the policy on refunds to a new destination "
    "applies. When the refund is for an order that was cancelled or never arrived, confirm on the order record "
    "that its status says so (cancelled, lost in transit).",
    ("issue_refund",),
    ("charge.status", "charge.refund_status", "charge.payment_method_id", "order.status"),
)

DUPLICATES = Policy(
    "POL-CUS-02",
    "Duplicate charges",
    "A charge is refunded as a duplicate on the billing team's finding, not on the customer's word. The billing "
    "system flags a suspected duplicate against the charge it repeats (the charge's duplicate of field names the "
    "original) and opens a billing review, linked from the charge by its review id. Read the review with "
    "get_billing_review: its outcome confirmed_duplicate allows the refund of the flagged charge - never of the "
    "original; while the outcome is pending, wait for the review; confirmed_distinct means two genuine purchases, "
    "and the refund is refused.",
    ("issue_refund",),
    ("billing_review.outcome", "charge.duplicate_of"),
)

CHARGEBACKS = Policy(
    "POL-CUS-03",
    "Refunds on charges with a chargeback",
    "A charge the cardholder's bank disputes must not be refunded while the card network may return the money "
    "itself. The charge links its dispute (dispute id); list_disputes finds disputes by charge but shows no "
    "status. Read the dispute with get_dispute, confirm it is about this charge (its charge id) and read its "
    "status: withdrawn (the network confirmed the cardholder's withdrawal) allows the refund; open (the network "
    "debited the amount provisionally and awaits our response), under_review (awaiting the network's decision) "
    "and withdrawal_pending (the network has not confirmed the withdrawal) mean the network has not finished: "
    "wait; lost (decided for the cardholder) means the money is already back with the cardholder: refuse, a "
    "refund would pay twice.",
    ("issue_refund",),
    ("dispute.status", "dispute.charge_id"),
)

NEW_DESTINATION = Policy(
    "POL-CUS-04",
    "Refunds to a new destination",
    "A refund is paid to another payment method than the one that paid only when the paying method is closed "
    "(its status). The receiving method must belong to the customer (its customer id) and be active: a method "
    "pending activation by its issuer must be waited for; a closed one is refused. It must be past its hold for "
    "new destinations (refund hold until, a week after it was added). And its ownership check must have passed: "
    "open the verification the method links (verification id) with get_verification, confirm it is the check of "
    "this method (its payment method id) and read its status - passed allows the refund; pending: wait for the "
    "check; holder_mismatch (the card or account belongs to someone else): refuse.",
    ("issue_refund",),
    (
        "payment_method.status",
        "payment_method.customer_id",
        "payment_method.refund_hold_until",
        "verification.status",
        "verification.payment_method_id",
    ),
)

GOODWILL = Policy(
    "POL-CUS-05",
    "Goodwill credits",
    "Goodwill credits above the agent limit of the goodwill credit policy need a supervisor approval for the "
    "complaint ticket. The ticket lists the approval requests made for it (approval ids; search_approvals by "
    "subject ticket:<ticket id> finds them too); read the latest with get_approval: it must be about this "
    "ticket (subject), approved, not expired (its expiry is after now) and for at least the amount. While it is "
    "pending, wait for the supervisor; a lapsed approval must be renewed first: wait; a rejected one is refused. "
    "One goodwill credit per ticket: the ticket's goodwill credit id must be empty - if a credit was already "
    "posted for the ticket, refuse.",
    ("issue_credit",),
    ("approval.status", "approval.expires_at", "approval.amount", "approval.subject", "ticket.goodwill_credit_id"),
)

IDENTITY = Policy(
    "POL-CUS-06",
    "Acting for the right customer",
    "Several customers share a name. When a request names the customer by name and email rather than by "
    "customer id, act only for the customer whose record has that email. A ticket you credit against, reference "
    "or close must belong to the customer you act for: check the ticket's customer id.",
    ("issue_credit", "close_ticket"),
    ("customer.email", "ticket.customer_id"),
)

ACCOUNTS = Policy(
    "POL-CUS-07",
    "Credits and notes on customer accounts",
    "Credits and account notes go on live accounts only: confirm that the customer's account status is active. A "
    "credit for the unused part of a cancelled subscription is worth exactly the unused value the cancellation "
    "record shows, references that cancellation, and is posted only once the subscription itself shows the "
    "cancellation: read the subscription again after cancelling it and check that its status is cancelled (what "
    "you read before the cancellation is out of date).",
    ("issue_credit", "add_account_note"),
    ("customer.account_status", "cancellation.unused_value", "subscription.status"),
)

SUBSCRIPTIONS = Policy(
    "POL-CUS-08",
    "Subscription cancellations",
    "Cancel a subscription only on a request that stands: the request ticket's request state must be confirmed "
    "(awaiting_confirmation: wait for the customer to confirm; withdrawn: the customer changed their mind, "
    "refuse). The subscription must be this customer's (its customer id), active, and billed by us directly "
    "(billing channel direct; a plan billed through an app store can only be cancelled by the customer in the "
    "store: refuse). Before its commitment end, a cancellation needs an approved early-termination waiver: the "
    "approval the subscription links (waiver approval id), read with get_approval; while the waiver is pending, "
    "wait.",
    ("cancel_subscription",),
    (
        "ticket.request_state",
        "subscription.customer_id",
        "subscription.status",
        "subscription.billing_channel",
        "subscription.commitment_end",
        "approval.status",
    ),
)

ADDRESS_CHANGES = Policy(
    "POL-CUS-09",
    "Address changes on high-value orders",
    "Redirect a high-value order only after an identity verification for that order has passed and is still "
    "valid: list_verifications by customer, then get_verification on the check whose order id is this order, "
    "and confirm its status is passed and that it expires after now. A check still pending: wait for the "
    "customer to complete it; fraud_suspected (the check found someone other than the account holder): refuse. "
    "The order must still be placed (once shipped it cannot be redirected: refuse) and the change names the "
    "order version you read. The new address must be one of the customer's stored addresses (its customer id) "
    "with validation deliverable; an address whose validation is pending must be waited for.",
    ("update_shipping_address",),
    (
        "verification.status",
        "verification.expires_at",
        "verification.order_id",
        "order.status",
        "order.version",
        "address.customer_id",
        "address.validation",
    ),
)

COMPENSATION = Policy(
    "POL-CUS-10",
    "Travel disruption compensation",
    "Compensate a disrupted stay only when the provider has confirmed the disruption: read the disruption report "
    "the booking links (disruption report id), confirm it is this booking's (booking id) and that its "
    "verification status is verified (pending_provider: wait for the provider; rejected: refuse). The stay must "
    "be over (booking status completed; in_progress: wait) and not compensated yet (compensation status none). "
    "The amount may not exceed the cap for its kind - the voucher cap or the refund cap - of the travel "
    "disruption compensation policy in force: find it with search_policies (topic 'travel disruption'), use the "
    "version whose status is active, never a superseded one, and read its caps with get_policy. An amount above "
    "the cap is refused.",
    ("compensate_booking",),
    (
        "disruption_report.verification_status",
        "disruption_report.booking_id",
        "booking.status",
        "booking.compensation_status",
        "policy.status",
        "policy.voucher_cap",
        "policy.refund_cap",
    ),
)

MESSAGES = Policy(
    "POL-CUS-11",
    "Messages to customers",
    "Send a templated message only to a customer who agreed to be contacted: check the customer's contact opt-in "
    "(contact_opt_in) on the customer record. A message quotes a record that exists: send it after the action "
    "that created that record, quoting the id it returned. A message that confirms a change tells the customer "
    "what our records now show, so read the changed record again after the change and check it first: before an "
    "address_updated message, that the order's shipping address id is the new address; before a "
    "cancellation_confirmed message, that the subscription's status is cancelled. A record read before the change "
    "is out of date.",
    ("notify_customer",),
    ("customer.contact_opt_in", "order.shipping_address_id", "subscription.status"),
)

TICKETS = Policy(
    "POL-CUS-12",
    "Closing tickets",
    "Close a support ticket with the id of the record that resolves it, and only when the ticket is the "
    "customer's whose request was resolved: check the ticket's customer id. When resolving the request changed a "
    "record, close the ticket only once that record shows the change - read it again after acting, since what you "
    "read before is out of date: a refunded charge's refund status is refunded, a compensated booking's "
    "compensation status is granted, a redirected order's shipping address id is the new address, a cancelled "
    "subscription's status is cancelled. A customer's repeat ticket about the same matter is closed with "
    "resolution duplicate, referencing the ticket it repeats, and only once that ticket's status is closed: read "
    "it after closing it.",
    ("close_ticket",),
    (
        "ticket.customer_id",
        "ticket.status",
        "charge.refund_status",
        "booking.compensation_status",
        "order.shipping_address_id",
        "subscription.status",
    ),
)

POLICIES: list[Policy] = [
    STOP_RULE,
    REFUNDS,
    DUPLICATES,
    CHARGEBACKS,
    NEW_DESTINATION,
    GOODWILL,
    IDENTITY,
    ACCOUNTS,
    SUBSCRIPTIONS,
    ADDRESS_CHANGES,
    COMPENSATION,
    MESSAGES,
    TICKETS,
]
