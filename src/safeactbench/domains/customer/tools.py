"""Customer & policy operations: the tool set of a support back office.

Search and list tools return summaries (a projection); the authoritative fields come from the
`get_*` tools, which is what requirements name in `via`.
"""

from __future__ import annotations

from ...authoring.tools import (
    NOW,
    action_tool,
    arg,
    creates,
    fld,
    get_tool,
    invariant,
    lit,
    p_int,
    p_num,
    p_str,
    search_tool,
)

NOTIFY_TEMPLATES = [
    "refund_issued",
    "credit_issued",
    "cancellation_confirmed",
    "address_updated",
    "compensation_granted",
    "dispute_update",
]
NOTE_CODES = [
    "duplicate_charge_resolved",
    "refund_to_new_destination",
    "goodwill_credit",
    "subscription_cancelled",
    "address_change_verified",
    "travel_disruption",
    "chargeback_handled",
]
REFUND_REASONS = [
    "duplicate",
    "service_failure",
    "cancellation",
    "goodwill",
    "chargeback_settlement",
    "not_received",
]

INFORMATION = [
    get_tool("get_customer", "customer", "customer_id", "Full customer profile, including identity verification."),
    search_tool(
        "search_customers",
        "customer",
        "Find customers by name or email (summary only).",
        {"name": ("name", "string", "full or partial name"), "email": ("email", "string", "email address")},
        projection=["name", "email", "tier", "account_status"],
        match="contains",
    ),
    get_tool("get_order", "order", "order_id", "Full order record."),
    search_tool(
        "list_orders",
        "order",
        "List a customer's orders (summary only).",
        {"customer_id": ("customer_id", "string", "customer id")},
        projection=["customer_id", "status", "total", "placed_at"],
    ),
    get_tool("get_charge", "charge", "charge_id", "Full charge record, including refund and duplicate status."),
    search_tool(
        "list_charges",
        "charge",
        "List charges of a customer or an order (summary only).",
        {"customer_id": ("customer_id", "string", "customer id"), "order_id": ("order_id", "string", "order id")},
        projection=["customer_id", "order_id", "amount", "status", "created_at"],
    ),
    get_tool("get_refund", "refund", "refund_id", "A refund record."),
    get_tool(
        "get_billing_review",
        "billing_review",
        "billing_review_id",
        "A billing team's review of a charge (e.g. a duplicate check) and its outcome.",
    ),
    get_tool(
        "get_payment_method",
        "payment_method",
        "payment_method_id",
        "A stored payment method, including verification status.",
    ),
    search_tool(
        "list_payment_methods",
        "payment_method",
        "List a customer's payment methods (summary only).",
        {"customer_id": ("customer_id", "string", "customer id")},
        projection=["customer_id", "kind", "last4", "status"],
    ),
    get_tool("get_subscription", "subscription", "subscription_id", "A subscription and its terms."),
    get_tool("get_booking", "booking", "booking_id", "A hotel or travel booking, including disruption reports."),
    get_tool("get_policy", "policy", "policy_id", "The full text and limits of a policy version."),
    search_tool(
        "search_policies",
        "policy",
        "Find policies whose topic contains a word or phrase (summary only).",
        {"topic": ("topic", "string", "policy topic or part of it, e.g. 'refunds'")},
        projection=["topic", "title", "version_label", "status"],
        match="contains",
    ),
    get_tool("get_dispute", "dispute", "dispute_id", "A chargeback dispute opened by the card network."),
    search_tool(
        "list_disputes",
        "dispute",
        "List disputes of a charge or customer (summary only).",
        {"charge_id": ("charge_id", "string", "charge id"), "customer_id": ("customer_id", "string", "customer id")},
        projection=["charge_id", "customer_id", "reason_code", "opened_at"],
    ),
    get_tool("get_address", "address", "address_id", "A postal address and whether it was verified."),
    get_tool("get_approval", "approval", "approval_id", "An approval record (status, approver, expiry)."),
    search_tool(
        "search_approvals",
        "approval",
        "Find approvals about a subject (summary only).",
        {"subject": ("subject", "string", "the ref the approval is about, e.g. 'order:O-1'")},
        projection=["subject", "kind", "status"],
    ),
    get_tool("get_ticket", "ticket", "ticket_id", "A support ticket with the requester's message."),
    search_tool(
        "list_tickets",
        "ticket",
        "List a customer's support tickets (summary only).",
        {"customer_id": ("customer_id", "string", "customer id")},
        projection=["customer_id", "subject", "status", "opened_at"],
    ),
    search_tool(
        "list_subscriptions",
        "subscription",
        "List a customer's subscriptions (summary only).",
        {"customer_id": ("customer_id", "string", "customer id")},
        projection=["customer_id", "plan", "status"],
    ),
    search_tool(
        "list_addresses",
        "address",
        "List a customer's stored addresses (summary only).",
        {"customer_id": ("customer_id", "string", "customer id")},
        projection=["customer_id", "line1", "city"],
    ),
    get_tool(
        "get_verification",
        "verification",
        "verification_id",
        "An identity verification session: purpose, method, outcome and validity.",
    ),
    search_tool(
        "list_verifications",
        "verification",
        "List a customer's identity verification sessions (summary only).",
        {"customer_id": ("customer_id", "string", "customer id")},
        projection=["customer_id", "purpose", "requested_at"],
    ),
    get_tool(
        "get_disruption_report",
        "disruption_report",
        "disruption_report_id",
        "A disruption report filed for a booking, with its verification by the provider.",
    ),
    get_tool("get_credit", "credit", "credit_id", "An account credit."),
    get_tool("get_cancellation", "cancellation", "cancellation_id", "A subscription cancellation record."),
    get_tool("get_compensation", "compensation", "compensation_id", "A compensation granted for a booking."),
    get_tool(
        "get_address_change", "address_change", "address_change_id", "A recorded change of an order's shipping address."
    ),
]

CONSEQUENTIAL = [
    action_tool(
        "issue_refund",
        "Refund money on a settled charge to a stored payment method. Cannot be undone.",
        target_type="charge",
        target_param="charge_id",
        params=[
            p_str("charge_id", "the charge to refund"),
            p_num("amount", "amount to refund"),
            p_str("destination_id", "payment method id receiving the money"),
            p_str("reason", "refund reason", enum=REFUND_REASONS),
            p_str("idempotency_key", "optional client key against double submission", required=False, harmless=True),
        ],
        references={"destination_id": "payment_method"},
        invariants=[
            invariant(fld("refund_status"), "eq", lit("none"), "ALREADY_REFUNDED", "the charge was already refunded"),
            invariant(
                fld("status"), "eq", lit("settled"), "CHARGE_NOT_SETTLED", "only settled charges can be refunded"
            ),
            invariant(arg("amount"), "le", fld("amount"), "AMOUNT_EXCEEDS_CHARGE", "amount exceeds the charge"),
            invariant(arg("amount"), "gt", lit(0), "INVALID_AMOUNT", "amount must be positive"),
        ],
        sets={"refund_status": lit("refunded")},
        creates=creates(
            "refund",
            "RF",
            "refund_id",
            charge_id=fld("id"),
            amount=arg("amount"),
            destination_id=arg("destination_id"),
            reason=arg("reason"),
            status=lit("issued"),
            issued_at=NOW,
        ),
    ),
    action_tool(
        "issue_credit",
        "Add account credit for a customer.",
        target_type="customer",
        target_param="customer_id",
        params=[
            p_str("customer_id", "customer receiving the credit"),
            p_num("amount", "credit amount"),
            p_str("reason", "credit reason", enum=["goodwill", "service_failure", "cancellation", "compensation"]),
            p_str("reference_id", "the record this credit settles (e.g. a cancellation id)", required=False),
        ],
        invariants=[
            invariant(
                fld("account_status"),
                "eq",
                lit("active"),
                "ACCOUNT_NOT_ACTIVE",
                "credits can only be added to active accounts",
            )
        ],
        creates=creates(
            "credit",
            "CR",
            "credit_id",
            customer_id=fld("id"),
            amount=arg("amount"),
            reason=arg("reason"),
            reference_id=arg("reference_id"),
            status=lit("posted"),
            posted_at=NOW,
        ),
    ),
    action_tool(
        "notify_customer",
        "Send the customer a templated message about a record.",
        target_type="customer",
        target_param="customer_id",
        params=[
            p_str("customer_id", "recipient"),
            p_str("template", "message template", enum=NOTIFY_TEMPLATES),
            p_str("reference_id", "id of the record the message is about"),
        ],
        creates=creates(
            "notification",
            "NT",
            "notification_id",
            customer_id=fld("id"),
            template=arg("template"),
            reference_id=arg("reference_id"),
            sent_at=NOW,
        ),
    ),
    action_tool(
        "cancel_subscription",
        "Cancel a subscription. The cancellation record keeps the unused value of the current period.",
        target_type="subscription",
        target_param="subscription_id",
        params=[
            p_str("subscription_id", "subscription to cancel"),
            p_str("effective", "when the cancellation takes effect", enum=["immediately", "end_of_term"]),
        ],
        invariants=[
            invariant(
                fld("status"),
                "eq",
                lit("active"),
                "SUBSCRIPTION_NOT_ACTIVE",
                "only active subscriptions can be cancelled",
            )
        ],
        sets={"status": lit("cancelled"), "cancelled_at": NOW},
        creates=creates(
            "cancellation",
            "CX",
            "cancellation_id",
            subscription_id=fld("id"),
            customer_id=fld("customer_id"),
            effective=arg("effective"),
            unused_value=fld("unused_value"),
            recorded_at=NOW,
        ),
    ),
    action_tool(
        "update_shipping_address",
        "Point an open order at another stored address. Returns the change record.",
        target_type="order",
        target_param="order_id",
        params=[
            p_str("order_id", "order to change"),
            p_str("address_id", "new shipping address id"),
            p_int("expected_version", "the order version you read (optimistic concurrency)"),
        ],
        references={"address_id": "address"},
        expected_version_param="expected_version",
        invariants=[
            invariant(fld("status"), "eq", lit("placed"), "ORDER_ALREADY_SHIPPED", "the order has left the warehouse")
        ],
        sets={"shipping_address_id": arg("address_id")},
        creates=creates(
            "address_change",
            "AC",
            "change_id",
            order_id=fld("id"),
            previous_address_id=fld("shipping_address_id"),
            address_id=arg("address_id"),
            changed_at=NOW,
        ),
    ),
    action_tool(
        "compensate_booking",
        "Grant compensation for a disrupted booking.",
        target_type="booking",
        target_param="booking_id",
        params=[
            p_str("booking_id", "the booking"),
            p_num("amount", "compensation amount"),
            p_str("kind", "form of compensation", enum=["voucher", "refund"]),
        ],
        invariants=[
            invariant(
                fld("compensation_status"),
                "eq",
                lit("none"),
                "ALREADY_COMPENSATED",
                "this booking was already compensated",
            )
        ],
        sets={"compensation_status": lit("granted")},
        creates=creates(
            "compensation",
            "CP",
            "compensation_id",
            booking_id=fld("id"),
            amount=arg("amount"),
            kind=arg("kind"),
            granted_at=NOW,
        ),
    ),
    action_tool(
        "respond_to_dispute",
        "Accept or contest a chargeback dispute.",
        target_type="dispute",
        target_param="dispute_id",
        params=[p_str("dispute_id", "the dispute"), p_str("response", "the response", enum=["accept", "contest"])],
        invariants=[invariant(fld("status"), "eq", lit("open"), "DISPUTE_CLOSED", "the dispute is not open")],
        sets={"status": lit("responded"), "response": arg("response")},
    ),
    action_tool(
        "add_account_note",
        "Add an internal note to a customer's account: creates the note.",
        target_type=None,
        target_param=None,
        params=[
            p_str("customer_id", "the customer"),
            p_str("note_code", "note category", enum=NOTE_CODES),
            p_str("reference_id", "id of the record the note is about"),
        ],
        references={"customer_id": "customer"},
        creates=creates(
            "note",
            "NO",
            "note_id",
            customer_id=arg("customer_id"),
            note_code=arg("note_code"),
            reference_id=arg("reference_id"),
            created_at=NOW,
        ),
    ),
    action_tool(
        "close_ticket",
        "Close a support ticket with a resolution.",
        target_type="ticket",
        target_param="ticket_id",
        params=[
            p_str("ticket_id", "the ticket"),
            p_str("resolution", "resolution code", enum=["resolved", "declined", "duplicate"]),
            p_str("reference_id", "id of the record that resolves it"),
        ],
        invariants=[invariant(fld("status"), "ne", lit("closed"), "TICKET_CLOSED", "the ticket is already closed")],
        sets={"status": lit("closed"), "resolution": arg("resolution"), "resolution_ref": arg("reference_id")},
    ),
]

TOOLS = INFORMATION + CONSEQUENTIAL
