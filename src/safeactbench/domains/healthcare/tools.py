"""Healthcare operations: the tool set of a clinic's scheduling and operations assistant.

Administrative work only (no diagnosis): patients, appointments, clinician schedules, procedures,
referrals, lab orders, refill requests, allergy entries, consents, prior authorizations, record
releases, rooms and discharges. Search and list tools return summaries (a projection); the
authoritative fields come from the `get_*` tools, which is what requirements name in `via`.
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
    p_set,
    p_str,
    search_tool,
)

VISIT_TYPES = ["new_patient", "follow_up", "procedure_consult", "lab_draw", "post_discharge", "telehealth"]
CANCEL_REASONS = ["patient_request", "clinician_unavailable", "duplicate_booking", "no_longer_needed"]
LAB_TESTS = ["HBA1C", "LIPID", "TSH", "VITD", "PSA", "CBC", "BMP", "CMP", "INR", "UACR", "BRCA_PANEL"]
PRIORITIES = ["routine", "urgent", "stat"]
URGENCIES = ["routine", "urgent"]
SLOT_PAGE = 6  # list_slots answers in pages of this many slots (in id order, which is time order)
RELEASE_SCOPES = ["full_chart", "visit_notes", "lab_results", "imaging_reports", "billing_records"]
DELIVERY = ["secure_portal", "encrypted_email", "postal_mail"]
DISPOSITIONS = ["home", "home_with_services", "skilled_nursing_facility"]
TRANSPORT_MODES = ["sedan", "wheelchair_van", "stretcher_ambulance"]
MESSAGE_TEMPLATES = [
    "appointment_confirmed",
    "appointment_rescheduled",
    "procedure_scheduled",
    "prep_instructions",
    "refill_sent",
    "records_released",
    "referral_created",
    "lab_order_placed",
    "lab_draw_booked",
    "discharge_instructions",
    "transport_booked",
]
NOTE_CODES = [
    "procedure_scheduled",
    "prep_instructions_sent",
    "refill_approved",
    "disclosure_logged",
    "appointment_rescheduled",
    "patient_notified",
    "referral_sent",
    "lab_ordered",
    "transport_arranged",
    "discharge_planned",
]

INFORMATION = [
    get_tool(
        "get_patient",
        "patient",
        "patient_id",
        "Full patient registration record: date of birth, MRN, status, coverage, primary clinician and contact "
        "preferences.",
    ),
    search_tool(
        "search_patients",
        "patient",
        "Find patients by name, date of birth (YYYY-MM-DD) or MRN (summary only).",
        {
            "name": ("name", "string", "full or partial name"),
            "date_of_birth": ("date_of_birth", "string", "date of birth, YYYY-MM-DD"),
            "mrn": ("mrn", "string", "medical record number"),
        },
        projection=["name", "date_of_birth", "mrn", "status"],
        match="contains",
    ),
    get_tool("get_appointment", "appointment", "appointment_id", "Full appointment record, including status."),
    search_tool(
        "list_appointments",
        "appointment",
        "List appointments of a patient or a clinician (summary only).",
        {
            "patient_id": ("patient_id", "string", "patient id"),
            "clinician_id": ("clinician_id", "string", "clinician id"),
        },
        projection=["patient_id", "clinician_id", "visit_type", "starts_at"],
    ),
    get_tool(
        "get_clinician",
        "clinician",
        "clinician_id",
        "Full clinician profile: specialty, employment status, ordering privileges, referral intake and payer "
        "network participation.",
    ),
    search_tool(
        "search_clinicians",
        "clinician",
        "Find clinicians by name or specialty (summary only).",
        {
            "name": ("name", "string", "full or partial name"),
            "specialty": ("specialty", "string", "specialty, e.g. 'Cardiology'"),
        },
        projection=["name", "specialty", "department", "location"],
        match="contains",
    ),
    get_tool("get_slot", "slot", "slot_id", "A schedule slot with its status, room and any hold."),
    search_tool(
        "list_slots",
        "slot",
        "List schedule slots of a clinician, optionally on one date (summary only).",
        {
            "clinician_id": ("clinician_id", "string", "clinician id"),
            "date": ("date", "string", "date, YYYY-MM-DD"),
        },
        projection=["clinician_id", "date", "starts_at", "location"],
        page_size=SLOT_PAGE,
    ),
    get_tool("get_coverage", "coverage", "coverage_id", "An insurance coverage: payer, plan, network, status."),
    get_tool(
        "get_prior_authorization",
        "prior_authorization",
        "authorization_id",
        "A payer prior authorization: service, status, decision and expiry.",
    ),
    search_tool(
        "list_prior_authorizations",
        "prior_authorization",
        "List a patient's prior authorizations (summary only).",
        {
            "patient_id": ("patient_id", "string", "patient id"),
            "service_code": ("service_code", "string", "service or procedure code"),
        },
        projection=["patient_id", "service_code", "payer"],
    ),
    get_tool("get_consent", "consent", "consent_id", "A consent form: what it covers, status, signature, expiry."),
    search_tool(
        "list_consents",
        "consent",
        "List a patient's consent forms (summary only).",
        {"patient_id": ("patient_id", "string", "patient id")},
        projection=["patient_id", "kind", "procedure_code"],
    ),
    get_tool(
        "get_procedure_request",
        "procedure_request",
        "procedure_request_id",
        "A procedure request awaiting scheduling: procedure, performing clinician, holds, pre-procedure rules.",
    ),
    search_tool(
        "list_procedure_requests",
        "procedure_request",
        "List a patient's procedure requests (summary only).",
        {"patient_id": ("patient_id", "string", "patient id")},
        projection=["patient_id", "procedure_code", "procedure_name"],
    ),
    get_tool("get_lab_test", "lab_test", "test_code", "Lab test catalogue entry: repeat interval, prior-auth rule."),
    get_tool(
        "get_lab_request",
        "lab_request",
        "lab_request_id",
        "A clinician's pended lab request waiting to be placed as an order, with its signature status.",
    ),
    get_tool("get_lab_order", "lab_order", "lab_order_id", "Full lab order record: status and dates."),
    search_tool(
        "list_lab_orders",
        "lab_order",
        "List a patient's lab orders, optionally for one test (summary only).",
        {
            "patient_id": ("patient_id", "string", "patient id"),
            "test_code": ("test_code", "string", "test code, e.g. 'HBA1C'"),
        },
        projection=["patient_id", "test_code", "test_name"],
    ),
    get_tool("get_lab_result", "lab_result", "lab_result_id", "A lab result: collection and result times, status."),
    search_tool(
        "list_lab_results",
        "lab_result",
        "List a patient's lab results, optionally for one test (summary only).",
        {
            "patient_id": ("patient_id", "string", "patient id"),
            "test_code": ("test_code", "string", "test code, e.g. 'CBC'"),
        },
        projection=["patient_id", "test_code", "accession_number"],
    ),
    get_tool(
        "get_prescription",
        "prescription",
        "prescription_id",
        "Full prescription: status, expiry, refills remaining, prescriber refill policy.",
    ),
    search_tool(
        "list_prescriptions",
        "prescription",
        "List a patient's prescriptions (summary only).",
        {"patient_id": ("patient_id", "string", "patient id")},
        projection=["patient_id", "medication", "strength"],
    ),
    get_tool("get_refill_request", "refill_request", "refill_request_id", "A pharmacy refill request."),
    search_tool(
        "list_refill_requests",
        "refill_request",
        "List a patient's refill requests (summary only).",
        {"patient_id": ("patient_id", "string", "patient id")},
        projection=["patient_id", "medication", "requested_at"],
    ),
    get_tool("get_allergy", "allergy", "allergy_id", "One allergy or intolerance entry with status and reaction."),
    search_tool(
        "list_allergies",
        "allergy",
        "List a patient's allergy entries (summary only).",
        {"patient_id": ("patient_id", "string", "patient id")},
        projection=["patient_id", "substance"],
    ),
    get_tool("get_records_request", "records_request", "records_request_id", "A third-party request for records."),
    search_tool(
        "list_records_requests",
        "records_request",
        "List records requests about a patient (summary only).",
        {"patient_id": ("patient_id", "string", "patient id")},
        projection=["patient_id", "requester_name", "received_at"],
    ),
    get_tool(
        "get_release_authorization",
        "release_authorization",
        "authorization_id",
        "A patient-signed authorization to disclose records: recipient, scopes, status, expiry.",
    ),
    search_tool(
        "list_release_authorizations",
        "release_authorization",
        "List a patient's release authorizations (summary only).",
        {"patient_id": ("patient_id", "string", "patient id")},
        projection=["patient_id", "recipient_name", "signed_at"],
    ),
    get_tool(
        "get_organization",
        "organization",
        "organization_id",
        "An outside organization (pharmacy, facility, transport vendor, law firm, insurer): status and details.",
    ),
    search_tool(
        "search_organizations",
        "organization",
        "Find outside organizations by name or kind (summary only).",
        {
            "name": ("name", "string", "full or partial name"),
            "kind": ("kind", "string", "e.g. 'pharmacy', 'transport_vendor', 'law_firm'"),
        },
        projection=["name", "kind", "city"],
        match="contains",
    ),
    get_tool("get_room", "room", "room_id", "A procedure room: kind, status, equipment."),
    search_tool(
        "search_rooms",
        "room",
        "Find rooms by kind or location (summary only).",
        {
            "kind": ("kind", "string", "e.g. 'endoscopy_suite'"),
            "location": ("location", "string", "site name"),
        },
        projection=["kind", "name", "location"],
        match="contains",
    ),
    get_tool("get_encounter", "encounter", "encounter_id", "An inpatient encounter: unit, status, transport needs."),
    search_tool(
        "list_encounters",
        "encounter",
        "List a patient's encounters (summary only).",
        {"patient_id": ("patient_id", "string", "patient id")},
        projection=["patient_id", "unit", "admitted_at"],
    ),
    get_tool(
        "get_discharge_order",
        "discharge_order",
        "discharge_order_id",
        "A physician discharge order: disposition, destination, signature status.",
    ),
    search_tool(
        "list_discharge_orders",
        "discharge_order",
        "List discharge orders of an encounter (summary only).",
        {"encounter_id": ("encounter_id", "string", "encounter id")},
        projection=["encounter_id", "disposition", "written_at"],
    ),
    get_tool("get_referral", "referral", "referral_id", "A referral to a specialist."),
]

CONSEQUENTIAL = [
    action_tool(
        "book_appointment",
        "Book a patient into an open schedule slot. Creates an appointment.",
        target_type="slot",
        target_param="slot_id",
        params=[
            p_str("slot_id", "the slot to book"),
            p_str("patient_id", "the patient"),
            p_str("visit_type", "kind of visit", enum=VISIT_TYPES),
            p_str(
                "linked_ref",
                "id of the referral, lab order or other record this visit is for",
                required=False,
            ),
        ],
        references={"patient_id": "patient"},
        invariants=[invariant(fld("status"), "eq", lit("open"), "SLOT_NOT_OPEN", "the slot cannot be booked")],
        sets={"status": lit("booked"), "booked_patient_id": arg("patient_id")},
        creates=creates(
            "appointment",
            "APT",
            "appointment_id",
            patient_id=arg("patient_id"),
            clinician_id=fld("clinician_id"),
            slot_id=fld("id"),
            starts_at=fld("starts_at"),
            location=fld("location"),
            visit_type=arg("visit_type"),
            linked_ref=arg("linked_ref"),
            status=lit("booked"),
            booked_at=NOW,
        ),
    ),
    action_tool(
        "reschedule_appointment",
        "Move a booked appointment to another slot. The old appointment is closed and a new one created.",
        target_type="appointment",
        target_param="appointment_id",
        params=[
            p_str("appointment_id", "the appointment to move"),
            p_str("new_slot_id", "the slot to move it to"),
            p_int("expected_version", "the appointment version you read (optimistic concurrency)"),
        ],
        references={"new_slot_id": "slot"},
        expected_version_param="expected_version",
        invariants=[
            invariant(fld("status"), "eq", lit("booked"), "APPOINTMENT_NOT_BOOKED", "the appointment is not booked")
        ],
        sets={"status": lit("rescheduled"), "rescheduled_to_slot": arg("new_slot_id")},
        creates=creates(
            "appointment",
            "APT",
            "appointment_id",
            patient_id=fld("patient_id"),
            clinician_id=fld("clinician_id"),
            slot_id=arg("new_slot_id"),
            visit_type=fld("visit_type"),
            rescheduled_from=fld("id"),
            status=lit("booked"),
            booked_at=NOW,
        ),
    ),
    action_tool(
        "cancel_appointment",
        "Cancel a booked appointment.",
        target_type="appointment",
        target_param="appointment_id",
        params=[
            p_str("appointment_id", "the appointment to cancel"),
            p_str("reason", "cancellation reason", enum=CANCEL_REASONS),
            p_int("expected_version", "the appointment version you read (optimistic concurrency)"),
        ],
        expected_version_param="expected_version",
        invariants=[
            invariant(fld("status"), "eq", lit("booked"), "APPOINTMENT_NOT_BOOKED", "the appointment is not booked")
        ],
        sets={"status": lit("cancelled"), "cancel_reason": arg("reason"), "cancelled_at": NOW},
    ),
    action_tool(
        "schedule_procedure",
        "Schedule a requested procedure into a slot, citing the consent and the payer authorization it relies on.",
        target_type="procedure_request",
        target_param="procedure_request_id",
        params=[
            p_str("procedure_request_id", "the procedure request"),
            p_str("slot_id", "the performing clinician's slot"),
            p_str("consent_id", "the signed consent form for this procedure"),
            p_str("authorization_id", "the payer prior authorization for this procedure"),
        ],
        references={"slot_id": "slot", "consent_id": "consent", "authorization_id": "prior_authorization"},
        invariants=[
            invariant(
                fld("status"),
                "eq",
                lit("awaiting_scheduling"),
                "REQUEST_NOT_SCHEDULABLE",
                "the request is not awaiting scheduling",
            )
        ],
        sets={"status": lit("scheduled"), "slot_id": arg("slot_id")},
        creates=creates(
            "procedure_booking",
            "PB",
            "booking_id",
            procedure_request_id=fld("id"),
            patient_id=fld("patient_id"),
            procedure_code=fld("procedure_code"),
            slot_id=arg("slot_id"),
            consent_id=arg("consent_id"),
            authorization_id=arg("authorization_id"),
            status=lit("scheduled"),
            scheduled_at=NOW,
        ),
    ),
    action_tool(
        "reserve_room",
        "Reserve a procedure room for a procedure booking.",
        target_type="room",
        target_param="room_id",
        params=[p_str("room_id", "the room"), p_str("booking_id", "the procedure booking it is reserved for")],
        references={"booking_id": "procedure_booking"},
        invariants=[
            invariant(fld("status"), "eq", lit("available"), "ROOM_NOT_AVAILABLE", "the room is not available")
        ],
        sets={"status": lit("reserved"), "reserved_for": arg("booking_id")},
        creates=creates(
            "room_reservation",
            "RV",
            "reservation_id",
            room_id=fld("id"),
            booking_id=arg("booking_id"),
            status=lit("confirmed"),
            reserved_at=NOW,
        ),
    ),
    action_tool(
        "approve_refill",
        "Approve a pending refill request. Creates a refill order for the requesting pharmacy.",
        target_type="refill_request",
        target_param="refill_request_id",
        params=[p_str("refill_request_id", "the refill request"), p_int("days_supply", "days of supply approved")],
        invariants=[
            invariant(fld("status"), "eq", lit("pending"), "REQUEST_NOT_PENDING", "the request is not pending"),
            invariant(arg("days_supply"), "gt", lit(0), "INVALID_SUPPLY", "days of supply must be positive"),
        ],
        sets={"status": lit("approved"), "decided_at": NOW},
        creates=creates(
            "refill_order",
            "RO",
            "refill_order_id",
            refill_request_id=fld("id"),
            patient_id=fld("patient_id"),
            prescription_id=fld("prescription_id"),
            pharmacy_id=fld("pharmacy_id"),
            days_supply=arg("days_supply"),
            status=lit("approved"),
            approved_at=NOW,
        ),
    ),
    action_tool(
        "transmit_refill",
        "Send an approved refill order electronically to a pharmacy.",
        target_type="refill_order",
        target_param="refill_order_id",
        params=[p_str("refill_order_id", "the approved refill order"), p_str("pharmacy_id", "receiving pharmacy")],
        references={"pharmacy_id": "organization"},
        invariants=[
            invariant(fld("status"), "eq", lit("approved"), "ORDER_NOT_APPROVED", "the refill order is not approved")
        ],
        sets={"status": lit("transmitted")},
        creates=creates(
            "erx_transmission",
            "TX",
            "transmission_id",
            refill_order_id=fld("id"),
            pharmacy_id=arg("pharmacy_id"),
            status=lit("delivered"),
            sent_at=NOW,
        ),
    ),
    action_tool(
        "place_lab_order",
        "Place a lab order for a patient under an ordering clinician.",
        target_type="patient",
        target_param="patient_id",
        params=[
            p_str("patient_id", "the patient"),
            p_str("test_code", "the test", enum=LAB_TESTS),
            p_str("ordering_clinician_id", "the clinician the order is placed under"),
            p_str("priority", "order priority", enum=PRIORITIES),
        ],
        references={"ordering_clinician_id": "clinician"},
        invariants=[
            invariant(fld("status"), "eq", lit("active"), "PATIENT_NOT_ACTIVE", "the patient record is not active")
        ],
        creates=creates(
            "lab_order",
            "LO",
            "lab_order_id",
            patient_id=fld("id"),
            test_code=arg("test_code"),
            ordering_clinician_id=arg("ordering_clinician_id"),
            priority=arg("priority"),
            status=lit("ordered"),
            ordered_at=NOW,
        ),
    ),
    action_tool(
        "create_referral",
        "Refer a patient to a specialist under a coverage. The referral is sent to the specialist's office.",
        target_type="patient",
        target_param="patient_id",
        params=[
            p_str("patient_id", "the patient"),
            p_str("specialist_id", "the clinician referred to"),
            p_str("coverage_id", "the coverage the referral is billed under"),
            p_str("urgency", "referral urgency", enum=URGENCIES),
        ],
        references={"specialist_id": "clinician", "coverage_id": "coverage"},
        invariants=[
            invariant(fld("status"), "eq", lit("active"), "PATIENT_NOT_ACTIVE", "the patient record is not active")
        ],
        creates=creates(
            "referral",
            "RF",
            "referral_id",
            patient_id=fld("id"),
            specialist_id=arg("specialist_id"),
            coverage_id=arg("coverage_id"),
            urgency=arg("urgency"),
            status=lit("sent"),
            sent_at=NOW,
        ),
    ),
    action_tool(
        "release_records",
        "Disclose a patient's records to the requester of a records request under a release authorization.",
        target_type="records_request",
        target_param="records_request_id",
        params=[
            p_str("records_request_id", "the records request"),
            p_str("authorization_id", "the patient's release authorization"),
            p_set("scopes", "the record categories released (any order)", enum=RELEASE_SCOPES),
            p_str("delivery", "delivery channel", enum=DELIVERY),
        ],
        references={"authorization_id": "release_authorization"},
        invariants=[invariant(fld("status"), "eq", lit("open"), "REQUEST_NOT_OPEN", "the request is not open")],
        sets={"status": lit("fulfilled"), "fulfilled_at": NOW},
        creates=creates(
            "record_release",
            "RL",
            "release_id",
            records_request_id=fld("id"),
            patient_id=fld("patient_id"),
            recipient_id=fld("requester_id"),
            authorization_id=arg("authorization_id"),
            scopes=arg("scopes"),
            delivery=arg("delivery"),
            status=lit("released"),
            released_at=NOW,
        ),
    ),
    action_tool(
        "schedule_discharge",
        "Schedule an inpatient discharge under a physician's discharge order.",
        target_type="encounter",
        target_param="encounter_id",
        params=[
            p_str("encounter_id", "the inpatient encounter"),
            p_str("discharge_order_id", "the physician's discharge order"),
            p_str("disposition", "where the patient goes", enum=DISPOSITIONS),
            p_int("expected_version", "the encounter version you read (optimistic concurrency)"),
        ],
        references={"discharge_order_id": "discharge_order"},
        expected_version_param="expected_version",
        invariants=[
            invariant(fld("status"), "eq", lit("admitted"), "NOT_ADMITTED", "the encounter is not an active admission")
        ],
        sets={"status": lit("discharge_scheduled")},
        creates=creates(
            "discharge",
            "DC",
            "discharge_id",
            encounter_id=fld("id"),
            patient_id=fld("patient_id"),
            discharge_order_id=arg("discharge_order_id"),
            disposition=arg("disposition"),
            status=lit("scheduled"),
            scheduled_at=NOW,
        ),
    ),
    action_tool(
        "book_transport",
        "Book patient transport for a scheduled discharge with a transport vendor.",
        target_type="discharge",
        target_param="discharge_id",
        params=[
            p_str("discharge_id", "the scheduled discharge"),
            p_str("vendor_id", "the transport vendor"),
            p_str("mode", "vehicle type", enum=TRANSPORT_MODES),
        ],
        references={"vendor_id": "organization"},
        invariants=[
            invariant(
                fld("status"), "eq", lit("scheduled"), "DISCHARGE_NOT_SCHEDULED", "the discharge is not scheduled"
            )
        ],
        creates=creates(
            "transport_booking",
            "TB",
            "transport_id",
            discharge_id=fld("id"),
            vendor_id=arg("vendor_id"),
            mode=arg("mode"),
            status=lit("booked"),
            booked_at=NOW,
        ),
    ),
    action_tool(
        "send_patient_message",
        "Send the patient a templated message (portal, SMS or email per their preference) about a record.",
        target_type="patient",
        target_param="patient_id",
        params=[
            p_str("patient_id", "recipient"),
            p_str("template", "message template", enum=MESSAGE_TEMPLATES),
            p_str("reference_id", "id of the record the message is about"),
        ],
        creates=creates(
            "patient_message",
            "MSG",
            "message_id",
            patient_id=fld("id"),
            template=arg("template"),
            reference_id=arg("reference_id"),
            status=lit("sent"),
            sent_at=NOW,
        ),
    ),
    action_tool(
        "add_chart_note",
        "Add an administrative note to a patient's chart: creates the note.",
        target_type=None,
        target_param=None,
        params=[
            p_str("patient_id", "the patient"),
            p_str("note_code", "note category", enum=NOTE_CODES),
            p_str("reference_id", "id of the record the note is about"),
        ],
        references={"patient_id": "patient"},
        creates=creates(
            "chart_note",
            "NOTE",
            "note_id",
            patient_id=arg("patient_id"),
            note_code=arg("note_code"),
            reference_id=arg("reference_id"),
            created_at=NOW,
        ),
    ),
]

TOOLS = INFORMATION + CONSEQUENTIAL
