"""Legal & financial operations: court filings, productions, contracts, payables, treasury, ledger, KYC."""

from ...authoring.family import Domain
from . import (
    contract_signature,
    court_filing,
    document_production,
    dual_control_wire,
    invoice_payment,
    kyc_onboarding,
    period_close_journal,
)
from .policies import POLICIES
from .tools import TOOLS

DOMAIN = Domain(
    name="legal_finance",
    title="Legal & financial operations",
    tools=TOOLS,
    policies=POLICIES,
    families=[
        court_filing.FAMILY,
        invoice_payment.FAMILY,
        dual_control_wire.FAMILY,
        contract_signature.FAMILY,
        period_close_journal.FAMILY,
        kyc_onboarding.FAMILY,
        document_production.FAMILY,
    ],
)
