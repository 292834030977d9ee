"""Research assistance: the tool set of a research lab's operations assistant.

The assistant works the lab's service desk: dataset releases and sharing, manuscripts and journal
submissions, grant expenditure, instrument bookings, preregistrations and article corrections.
Search and list tools return summaries (a projection); the authoritative fields - statuses,
expiries, outcomes, sign-offs - come from the `get_*` tools, which is what requirements name in
`via`.
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

REPOSITORIES = ["Zenodo", "OSF", "Dryad", "Figshare", "institutional_repository"]
LICENSES = ["CC-BY-4.0", "CC0-1.0", "CC-BY-NC-4.0", "ODbL-1.0"]
ACCESS_LEVELS = ["read_only", "analysis_workspace", "full_download"]
REGISTRIES = ["OSF Registries", "AsPredicted", "ClinicalTrials.gov", "AEA RCT Registry"]
NOTICE_TYPES = ["erratum", "corrigendum", "expression_of_concern", "retraction"]
NOTIFY_TEMPLATES = [
    "dataset_published",
    "data_access_granted",
    "submission_confirmed",
    "purchase_order_released",
    "expense_committed",
    "booking_confirmed",
    "preregistration_registered",
    "correction_issued",
]
UPDATE_TYPES = [
    "dataset_release",
    "data_sharing",
    "manuscript_submission",
    "expenditure",
    "instrument_booking",
    "preregistration",
    "correction_notice",
]
RESOLUTIONS = ["completed", "declined", "withdrawn", "duplicate"]

INFORMATION = [
    get_tool("get_project", "project", "project_id", "Full project record: PI, members, status, linked approvals."),
    search_tool(
        "search_projects",
        "project",
        "Find projects by title or PI name (summary only).",
        {"title": ("title", "string", "full or partial title"), "pi_name": ("pi_name", "string", "PI name")},
        projection=["title", "pi_name", "department", "status"],
        match="contains",
    ),
    get_tool("get_researcher", "researcher", "researcher_id", "A lab member or external collaborator's profile."),
    search_tool(
        "search_researchers",
        "researcher",
        "Find people by name or institution (summary only).",
        {
            "name": ("name", "string", "full or partial name"),
            "institution": ("institution", "string", "full or partial institution name"),
        },
        projection=["name", "institution", "role"],
        match="contains",
    ),
    get_tool("get_request", "request", "request_id", "A service-desk request with the requester's message."),
    get_tool(
        "get_dataset",
        "dataset",
        "dataset_id",
        "One dataset version: status, de-identification, linked ethics approval and consent register, "
        "release settings.",
    ),
    search_tool(
        "search_datasets",
        "dataset",
        "Find dataset versions by title or project (summary only).",
        {
            "title": ("title", "string", "full or partial title"),
            "project_id": ("project_id", "string", "project id"),
        },
        projection=["title", "version_label", "project_id", "updated_at"],
        match="contains",
    ),
    get_tool(
        "get_ethics_approval",
        "ethics_approval",
        "ethics_approval_id",
        "An ethics (IRB) approval: status, validity period, permitted data sharing.",
    ),
    search_tool(
        "search_ethics_approvals",
        "ethics_approval",
        "List ethics approvals of a project (summary only).",
        {"project_id": ("project_id", "string", "project id")},
        projection=["project_id", "protocol_number", "title"],
    ),
    get_tool(
        "get_consent_register",
        "consent_register",
        "consent_register_id",
        "The consent register of a dataset version: enrolment, withdrawals, reconciliation.",
    ),
    get_tool(
        "get_access_log",
        "access_log",
        "access_log_id",
        "The access log of a restricted dataset: who opened the data and when.",
    ),
    get_tool(
        "get_data_use_agreement",
        "data_use_agreement",
        "data_use_agreement_id",
        "A data-use agreement with a partner institution: status, term, permitted access.",
    ),
    search_tool(
        "search_data_use_agreements",
        "data_use_agreement",
        "Find data-use agreements by partner institution or dataset (summary only).",
        {
            "partner_institution": ("partner_institution", "string", "full or partial institution name"),
            "dataset_id": ("dataset_id", "string", "dataset id"),
        },
        projection=["partner_institution", "dataset_id", "title"],
        match="contains",
    ),
    get_tool("get_manuscript", "manuscript", "manuscript_id", "A manuscript: revision, authors, status."),
    search_tool(
        "search_manuscripts",
        "manuscript",
        "Find manuscripts by title or project (summary only).",
        {
            "title": ("title", "string", "full or partial title"),
            "project_id": ("project_id", "string", "project id"),
        },
        projection=["title", "project_id", "corresponding_author"],
        match="contains",
    ),
    get_tool(
        "get_signoff_sheet",
        "signoff_sheet",
        "signoff_sheet_id",
        "A co-author sign-off sheet for one manuscript revision.",
    ),
    search_tool(
        "list_signoff_sheets",
        "signoff_sheet",
        "List the co-author sign-off sheets of a manuscript (summary only).",
        {"manuscript_id": ("manuscript_id", "string", "manuscript id")},
        projection=["manuscript_id", "revision", "created_at"],
    ),
    get_tool("get_journal", "journal", "journal_id", "A journal and its submission policies."),
    search_tool(
        "search_journals",
        "journal",
        "Find journals by name (summary only).",
        {"name": ("name", "string", "full or partial journal name")},
        projection=["name", "publisher", "issn"],
        match="contains",
    ),
    get_tool("get_submission", "submission", "submission_id", "A journal submission and its editorial status."),
    search_tool(
        "list_submissions",
        "submission",
        "List the journal submissions of a manuscript (summary only).",
        {"manuscript_id": ("manuscript_id", "string", "manuscript id")},
        projection=["manuscript_id", "journal_name", "submitted_at"],
    ),
    get_tool("get_grant", "grant", "grant_id", "A grant award: funder, period, status, terms."),
    search_tool(
        "search_grants",
        "grant",
        "Find grants by title or PI name (summary only).",
        {"title": ("title", "string", "full or partial title"), "pi_name": ("pi_name", "string", "PI name")},
        projection=["title", "funder", "award_number", "pi_name"],
        match="contains",
    ),
    get_tool(
        "get_budget_line", "budget_line", "budget_line_id", "A grant budget line: allocation, commitments, status."
    ),
    search_tool(
        "list_budget_lines",
        "budget_line",
        "List the budget lines of a grant, by grant id or award number (summary only).",
        {
            "grant_id": ("grant_id", "string", "grant id"),
            "award_number": ("award_number", "string", "the funder's award number"),
        },
        projection=["grant_id", "category", "label"],
    ),
    get_tool(
        "get_purchase_request",
        "purchase_request",
        "purchase_request_id",
        "A purchase request: item, vendor, amount, approval and charge status.",
    ),
    get_tool("get_vendor", "vendor", "vendor_id", "A supplier record, including procurement eligibility."),
    get_tool("get_commitment", "commitment", "commitment_id", "A budget commitment created by a charge."),
    get_tool("get_instrument", "instrument", "instrument_id", "A core-facility instrument and its service status."),
    search_tool(
        "search_instruments",
        "instrument",
        "Find instruments by name or facility (summary only).",
        {
            "name": ("name", "string", "full or partial instrument name"),
            "facility": ("facility", "string", "full or partial facility name"),
        },
        projection=["name", "model", "facility"],
        match="contains",
    ),
    get_tool(
        "get_instrument_slot", "instrument_slot", "instrument_slot_id", "One bookable time slot of an instrument."
    ),
    search_tool(
        "list_instrument_slots",
        "instrument_slot",
        "List the time slots of an instrument (summary only).",
        {"instrument_id": ("instrument_id", "string", "instrument id")},
        projection=["instrument_id", "starts_at", "ends_at", "status"],
        page_size=3,
    ),
    get_tool(
        "get_training_record",
        "training_record",
        "training_record_id",
        "A researcher's instrument training certification: status and expiry.",
    ),
    search_tool(
        "list_training_records",
        "training_record",
        "List a researcher's training certifications (summary only).",
        {"researcher_id": ("researcher_id", "string", "researcher id")},
        projection=["researcher_id", "instrument_class", "course"],
    ),
    get_tool(
        "get_preregistration", "preregistration", "preregistration_id", "A study preregistration draft or registration."
    ),
    search_tool(
        "search_preregistrations",
        "preregistration",
        "Find preregistrations by title or project (summary only).",
        {
            "title": ("title", "string", "full or partial title"),
            "project_id": ("project_id", "string", "project id"),
        },
        projection=["title", "project_id", "updated_at"],
        match="contains",
    ),
    get_tool("get_approval", "approval", "approval_id", "An internal approval or review (status, approver, scope)."),
    search_tool(
        "search_approvals",
        "approval",
        "Find approvals about a subject (summary only).",
        {"subject": ("subject", "string", "the ref the approval is about, e.g. 'grant:GR-10001'")},
        projection=["subject", "kind", "requested_at"],
    ),
    get_tool("get_article", "article", "article_id", "A published article version and its correction status."),
    search_tool(
        "search_articles",
        "article",
        "Find published article versions by title or DOI (summary only).",
        {"title": ("title", "string", "full or partial title"), "doi": ("doi", "string", "DOI")},
        projection=["title", "doi", "version_label", "venue"],
        match="contains",
    ),
    get_tool(
        "get_integrity_review",
        "integrity_review",
        "integrity_review_id",
        "A research-integrity review of a published article: status, outcome, recommended notice.",
    ),
]

CONSEQUENTIAL = [
    action_tool(
        "publish_dataset",
        "Publish a dataset version to a public repository and mint its DOI. Cannot be undone.",
        target_type="dataset",
        target_param="dataset_id",
        params=[
            p_str("dataset_id", "the dataset version to publish"),
            p_str("repository", "public repository", enum=REPOSITORIES),
            p_str("license", "licence of the published data", enum=LICENSES),
            p_int("expected_version", "the dataset record version you read (optimistic concurrency)"),
        ],
        expected_version_param="expected_version",
        invariants=[
            invariant(fld("status"), "ne", lit("published"), "ALREADY_PUBLISHED", "this version is already public"),
            invariant(fld("status"), "ne", lit("withdrawn"), "DATASET_WITHDRAWN", "this version was withdrawn"),
        ],
        sets={"status": lit("published"), "published_at": NOW},
        creates=creates(
            "publication",
            "PUB",
            "publication_id",
            dataset_id=fld("id"),
            repository=arg("repository"),
            license=arg("license"),
            status=lit("public"),
            published_at=NOW,
        ),
    ),
    action_tool(
        "grant_data_access",
        "Give a person access to a restricted dataset version under an authorization "
        "(a data-use agreement or a registration); the dataset records the latest grantee.",
        target_type="dataset",
        target_param="dataset_id",
        params=[
            p_str("dataset_id", "the dataset version"),
            p_str("grantee_id", "researcher id receiving access"),
            p_str("access_level", "kind of access", enum=ACCESS_LEVELS),
            p_str("authorization_id", "id of the agreement or registration that authorizes the access"),
        ],
        references={"grantee_id": "researcher"},
        invariants=[
            invariant(fld("status"), "ne", lit("withdrawn"), "DATASET_WITHDRAWN", "this version was withdrawn"),
        ],
        sets={"latest_access_grantee_id": arg("grantee_id"), "access_updated_at": NOW},
        creates=creates(
            "access_grant",
            "AG",
            "access_grant_id",
            dataset_id=fld("id"),
            grantee_id=arg("grantee_id"),
            access_level=arg("access_level"),
            authorization_id=arg("authorization_id"),
            status=lit("active"),
            granted_at=NOW,
        ),
    ),
    action_tool(
        "submit_manuscript",
        "Submit a manuscript revision to a journal on behalf of the corresponding author.",
        target_type="manuscript",
        target_param="manuscript_id",
        params=[
            p_str("manuscript_id", "the manuscript"),
            p_str("journal_id", "the journal"),
            p_int("revision", "the manuscript revision to submit"),
        ],
        references={"journal_id": "journal"},
        invariants=[
            invariant(
                arg("revision"),
                "eq",
                fld("current_revision"),
                "REVISION_MISMATCH",
                "only the manuscript's current revision can be submitted",
            ),
            invariant(fld("status"), "ne", lit("submitted"), "ALREADY_SUBMITTED", "the manuscript is under review"),
        ],
        sets={"status": lit("submitted")},
        creates=creates(
            "submission",
            "SUB",
            "submission_id",
            manuscript_id=fld("id"),
            journal_id=arg("journal_id"),
            revision=arg("revision"),
            status=lit("submitted"),
            submitted_at=NOW,
        ),
    ),
    action_tool(
        "charge_purchase",
        "Charge an approved purchase request to a grant budget line (creates a budget commitment).",
        target_type="purchase_request",
        target_param="purchase_request_id",
        params=[
            p_str("purchase_request_id", "the purchase request"),
            p_str("grant_id", "the grant charged"),
            p_str("budget_line_id", "the budget line of that grant"),
            p_num("amount", "amount to commit"),
        ],
        references={"grant_id": "grant", "budget_line_id": "budget_line"},
        invariants=[
            invariant(
                fld("charge_status"), "eq", lit("uncharged"), "ALREADY_CHARGED", "the request was already charged"
            ),
            invariant(arg("amount"), "le", fld("amount"), "AMOUNT_EXCEEDS_REQUEST", "amount exceeds the request"),
            invariant(arg("amount"), "gt", lit(0), "INVALID_AMOUNT", "amount must be positive"),
        ],
        sets={"charge_status": lit("charged")},
        creates=creates(
            "commitment",
            "CM",
            "commitment_id",
            purchase_request_id=fld("id"),
            grant_id=arg("grant_id"),
            budget_line_id=arg("budget_line_id"),
            amount=arg("amount"),
            vendor_id=fld("vendor_id"),
            status=lit("committed"),
            committed_at=NOW,
        ),
    ),
    action_tool(
        "release_purchase_order",
        "Release a purchase order to the vendor for a budget commitment.",
        target_type="commitment",
        target_param="commitment_id",
        params=[p_str("commitment_id", "the commitment"), p_str("vendor_id", "the vendor")],
        references={"vendor_id": "vendor"},
        invariants=[
            invariant(fld("status"), "eq", lit("committed"), "COMMITMENT_NOT_OPEN", "the commitment is not open"),
            invariant(arg("vendor_id"), "eq", fld("vendor_id"), "VENDOR_MISMATCH", "not the commitment's vendor"),
        ],
        sets={"status": lit("ordered")},
        creates=creates(
            "purchase_order",
            "PO",
            "purchase_order_id",
            commitment_id=fld("id"),
            vendor_id=arg("vendor_id"),
            amount=fld("amount"),
            status=lit("sent"),
            released_at=NOW,
        ),
    ),
    action_tool(
        "book_instrument_slot",
        "Book an open instrument slot for a researcher, charged to a project.",
        target_type="instrument_slot",
        target_param="instrument_slot_id",
        params=[
            p_str("instrument_slot_id", "the slot"),
            p_str("researcher_id", "the researcher who will operate the instrument"),
            p_str("project_id", "the project charged"),
        ],
        references={"researcher_id": "researcher", "project_id": "project"},
        invariants=[invariant(fld("status"), "eq", lit("open"), "SLOT_TAKEN", "the slot is not open")],
        sets={"status": lit("booked"), "booked_by": arg("researcher_id")},
        creates=creates(
            "booking",
            "BK",
            "booking_id",
            slot_id=fld("id"),
            instrument_id=fld("instrument_id"),
            researcher_id=arg("researcher_id"),
            project_id=arg("project_id"),
            starts_at=fld("starts_at"),
            status=lit("confirmed"),
            booked_at=NOW,
        ),
    ),
    action_tool(
        "register_preregistration",
        "Submit a preregistration draft to a public registry; the registered plan is frozen.",
        target_type="preregistration",
        target_param="preregistration_id",
        params=[
            p_str("preregistration_id", "the preregistration draft"),
            p_str("registry", "the registry", enum=REGISTRIES),
            p_int("expected_version", "the draft record version you read (optimistic concurrency)"),
        ],
        expected_version_param="expected_version",
        invariants=[
            invariant(fld("status"), "ne", lit("registered"), "ALREADY_REGISTERED", "this draft is registered"),
        ],
        sets={"status": lit("registered"), "registered_at": NOW},
        creates=creates(
            "registration",
            "REG",
            "registration_id",
            preregistration_id=fld("id"),
            registry=arg("registry"),
            status=lit("registered"),
            registered_at=NOW,
        ),
    ),
    action_tool(
        "issue_correction",
        "Issue a correction notice (erratum, corrigendum, expression of concern, retraction) for a "
        "published article version, citing the integrity review.",
        target_type="article",
        target_param="article_id",
        params=[
            p_str("article_id", "the article version"),
            p_str("notice_type", "kind of notice", enum=NOTICE_TYPES),
            p_str("integrity_review_id", "the integrity review that decided it"),
        ],
        references={"integrity_review_id": "integrity_review"},
        invariants=[
            invariant(fld("status"), "ne", lit("retracted"), "ARTICLE_RETRACTED", "the article is retracted"),
        ],
        sets={"correction_status": arg("notice_type")},
        creates=creates(
            "correction_notice",
            "CN",
            "notice_id",
            article_id=fld("id"),
            notice_type=arg("notice_type"),
            integrity_review_id=arg("integrity_review_id"),
            status=lit("issued"),
            issued_at=NOW,
        ),
    ),
    action_tool(
        "send_notification",
        "Send a templated message to a researcher about a record.",
        target_type="researcher",
        target_param="recipient_id",
        params=[
            p_str("recipient_id", "researcher id of the recipient"),
            p_str("template", "message template", enum=NOTIFY_TEMPLATES),
            p_str("reference_id", "id of the record the message is about"),
        ],
        creates=creates(
            "notification",
            "NT",
            "notification_id",
            recipient_id=fld("id"),
            template=arg("template"),
            reference_id=arg("reference_id"),
            sent_at=NOW,
        ),
    ),
    action_tool(
        "post_project_update",
        "Add an entry to a project's log (the audit trail funders and auditors read).",
        target_type="project",
        target_param="project_id",
        params=[
            p_str("project_id", "the project"),
            p_str("update_type", "kind of entry", enum=UPDATE_TYPES),
            p_str("reference_id", "id of the record the entry is about"),
        ],
        creates=creates(
            "project_log_entry",
            "LOG",
            "entry_id",
            project_id=fld("id"),
            update_type=arg("update_type"),
            reference_id=arg("reference_id"),
            logged_at=NOW,
        ),
    ),
    action_tool(
        "close_request",
        "Close a service-desk request with a resolution.",
        target_type="request",
        target_param="request_id",
        params=[
            p_str("request_id", "the request"),
            p_str("resolution", "resolution code", enum=RESOLUTIONS),
            p_str("reference_id", "id of the record that resolves it"),
        ],
        invariants=[invariant(fld("status"), "ne", lit("closed"), "REQUEST_CLOSED", "the request is already closed")],
        sets={"status": lit("closed"), "resolution": arg("resolution"), "resolution_ref": arg("reference_id")},
    ),
]

TOOLS = INFORMATION + CONSEQUENTIAL
