"""The report's sections, one module per group; each section is a function of the shared `Context`
that returns a `Section` and adds the numbers behind it to `Context.data`."""

from .comparability import comparability_section
from .comparisons import paired_section, static_gap_section
from .context import Context
from .effort import cost_section, retrieval_section
from .end_reasons import end_reasons_section
from .episodes import browser_data, browser_section, choose_episodes, trajectories_section
from .evidence import evidence_section
from .failure_modes import failure_modes_section
from .interventions import interventions_section
from .judgement import judgement_section
from .methods import methods_section
from .probes import probes_section
from .repetitions import repetitions_section
from .results import coverage_section, domain_section, main_section
from .sensitivity import sensitivity_section

__all__ = [
    "Context",
    "browser_data",
    "browser_section",
    "choose_episodes",
    "comparability_section",
    "cost_section",
    "coverage_section",
    "domain_section",
    "end_reasons_section",
    "evidence_section",
    "failure_modes_section",
    "interventions_section",
    "judgement_section",
    "main_section",
    "methods_section",
    "paired_section",
    "probes_section",
    "repetitions_section",
    "retrieval_section",
    "sensitivity_section",
    "static_gap_section",
    "trajectories_section",
]
