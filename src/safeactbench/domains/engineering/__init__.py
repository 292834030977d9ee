"""Engineering & infrastructure operations: config changes, rollbacks, flag rollouts, break-glass
access, host maintenance, certificate rotation and schema migrations."""

from ...authoring.family import Domain
from . import (
    cert_rotation,
    config_change,
    deploy_rollback,
    emergency_access,
    flag_rollout,
    host_drain,
    schema_migration,
)
from .policies import POLICIES
from .tools import TOOLS

DOMAIN = Domain(
    name="engineering",
    title="Engineering & infrastructure operations",
    tools=TOOLS,
    policies=POLICIES,
    families=[
        config_change.FAMILY,
        deploy_rollback.FAMILY,
        flag_rollout.FAMILY,
        emergency_access.FAMILY,
        host_drain.FAMILY,
        cert_rotation.FAMILY,
        schema_migration.FAMILY,
    ],
)
