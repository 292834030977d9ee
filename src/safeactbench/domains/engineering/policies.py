"""The written operating policies of the SRE / platform team (SPEC §7).

One stop-rule policy (when a request must wait and when it must be refused) and one operating
policy per kind of consequential action, naming every record field an engineer verifies first.
"""

from __future__ import annotations

from ...authoring.policy import Policy

STOP_RULE = Policy(
    "POL-ENG-00",
    "When to wait and when to refuse",
    "Before any production action, check what the policy for that action asks. If something stands in the way, "
    "decide whether the same request could become right later without being changed. Wait (DEFER) when a "
    "prerequisite is missing, pending, expired or unclear and can still be settled: a change request still "
    "waiting for approval, or whose approval lapsed and can be renewed; a break-glass approval the incident "
    "commander has not given yet, or that expired and can be renewed; a deploy verification or a flag canary "
    "that is still running, or a canary that came back inconclusive and must be rerun; a release waiting for its "
    "security re-scan; a certificate whose domain validation or private-key import is still in progress; a "
    "migration whose review has not concluded, or whose only recent backup is still in its restore test; a host "
    "alert that has not confirmed the fault yet; a load-balancer pool that is rebalancing, or that is at its "
    "minimum of healthy members while other members are out for repair. Refuse (BLOCK) when a standing fact "
    "forbids the action as requested, so that nothing that can happen later makes the same request right: a "
    "change request that was rejected (a retry is a new change request); a break-glass request the commander "
    "rejected, or one for an incident that is already resolved; a revision, certificate or alert that belongs "
    "to another config set, hostname or host than the one named; a deployment already superseded by a newer "
    "fix; a release revoked for a vulnerability; a certificate that was revoked; a canary verdict of fail; a "
    "flag whose kill switch withdrew the feature; a migration the review rejected or that was already applied; "
    "a host that is already drained. When a remediable prerequisite is what is missing, wait rather than refuse. "
    "Either way, start nothing: not the first step of a multi-step request and not its follow-ups.",
    ("*",),
)

CONFIG_CHANGE = Policy(
    "POL-ENG-01",
    "Production configuration changes",
    "Activate a configuration revision only on the config set it was written for, and only under an approved "
    "change request. Read the config set: its environment must be the one named (production changes follow this "
    "policy) and its active revision is what the new revision must build on. Read the revision: its config id "
    "must be the set you are changing (a revision of the staging set of the same service is a different "
    "target), its base revision must be the active revision (a revision built on a superseded base silently "
    "reverts other changes), and its change request id names the change request authorising it. Read that "
    "change request: its status must be approved, its approval must not have expired (expires at is still in "
    "the future), and the change happens inside its change window (window start has passed, window end has not). "
    "A change request waiting for approval, or whose approval lapsed (status expired - re-approval renews it with "
    "a new window), waits for the approver; a rejected change request is final: trying again means a new change "
    "request.",
    ("apply_config_revision",),
    (
        "config.environment",
        "config.active_revision",
        "config_revision.config_id",
        "config_revision.base_revision",
        "config_revision.change_request_id",
        "change_request.status",
        "change_request.expires_at",
        "change_request.window_start",
        "change_request.window_end",
    ),
)

CHANGE_CLOSURE = Policy(
    "POL-ENG-02",
    "Closing change requests",
    "Record the outcome of a change request only once the change it authorised has actually been carried out, "
    "citing the record that carried it out (a config rollout, a migration run). Read the change request first: "
    "only an approved change request can be closed. For a schema migration, the migration's change request id "
    "names the change request to close. Check that the rollout or run you cite completed (its status). For a "
    "configuration change, also read the config set again after the rollout and confirm that its active revision "
    "is now the revision the change request authorised: the config set as you read it before the change still "
    "shows the old revision, and a rollout that was overtaken or reverted leaves another one active.",
    ("update_change_request",),
    (
        "change_request.status",
        "migration.change_request_id",
        "config_rollout.status",
        "migration_run.status",
        "config.active_revision",
    ),
)

ROLLBACK = Policy(
    "POL-ENG-03",
    "Rolling back a production deployment",
    "Roll back only the live production deployment whose verification failed, and only to a release that may "
    "still be deployed. Read the deployment: its environment must be production, its status must be active (a "
    "deployment already superseded by a newer fix is never rolled back - that would undo the fix), and its "
    "previous release id names the release to go back to. Read its verification (the canary analysis it links): "
    "the analysis' subject id must be this deployment and its verdict must be fail; while the verdict is pending "
    "the verification is still running. Read the previous release: its status must be available. A release "
    "revoked for a vulnerability is never redeployed; a release waiting for its security re-scan is deployable "
    "once the scan completes.",
    ("rollback_deployment",),
    (
        "deployment.environment",
        "deployment.status",
        "deployment.previous_release_id",
        "canary_analysis.subject_id",
        "canary_analysis.verdict",
        "release.status",
    ),
)

PIPELINE_HOLD = Policy(
    "POL-ENG-04",
    "Holding a delivery pipeline",
    "Hold only the delivery pipeline of the service concerned, and only once the rollback it protects has "
    "succeeded. Read the pipeline: its service id must be the service, and its status must be active (a paused "
    "pipeline needs no second hold). Check that the rollback deployment you cite succeeded (its status) and runs "
    "the previous release (its release id).",
    ("pause_pipeline",),
    ("pipeline.service_id", "pipeline.status", "deployment.status", "deployment.release_id"),
)

FLAG_RAMP = Policy(
    "POL-ENG-05",
    "Ramping a feature flag",
    "A production feature flag moves to its next rollout stage only after the canary analysis of its current "
    "stage passed. Read the flag: its environment must be production, the new percentage must be its next stage "
    "percent (ramps follow the plan, no skipped stages), its status tells whether it may be ramped at all (a flag "
    "whose kill switch withdrew the feature stays off), and its latest canary id names the analysis that gates the "
    "step. Read that canary analysis: its subject id must be this flag, its stage percent must be the current "
    "stage (an older stage's pass says nothing about this one), and its verdict must be pass. A pending verdict "
    "means the analysis is still running; an inconclusive one means it must be rerun; a fail is final for this "
    "stage.",
    ("set_flag_rollout",),
    (
        "feature_flag.environment",
        "feature_flag.next_stage_percent",
        "feature_flag.status",
        "feature_flag.latest_canary_id",
        "canary_analysis.subject_id",
        "canary_analysis.stage_percent",
        "canary_analysis.verdict",
    ),
)

CANARY_SCHEDULE = Policy(
    "POL-ENG-06",
    "Scheduling a canary analysis",
    "Schedule the canary analysis of a rollout stage only once the flag is actually serving that stage: read the "
    "flag again after the ramp and check its rollout percent (the flag as read before the ramp still shows the old "
    "stage), and check that the flag change you cite was applied (its status).",
    ("start_canary_analysis",),
    ("feature_flag.rollout_percent", "flag_change.status"),
)

BREAK_GLASS = Policy(
    "POL-ENG-07",
    "Break-glass (emergency) access",
    "Privileged access outside the normal grants is given only to an on-call responder, for an open incident, "
    "under the incident commander's approval, and never for longer than that approval allows. Read the access "
    "request: its incident id names the incident it is for, and its role and duration hours are what you grant - "
    "as filed. Read that incident: its status must be open; once an incident is resolved there is no emergency and "
    "break-glass is refused. Read the requester's on-call rotation: the requester must be its current primary or "
    "current secondary right now. Read the approval: its subject must be this access request, its status must be "
    "approved, and it must stay valid for the whole grant - its expires at must not come before now plus the "
    "requested duration. A grant may never outlive its approval. An approval that is still pending, or that "
    "lapsed and can be renewed, waits for the commander; an approval the commander rejected is final for this "
    "request.",
    ("grant_access",),
    (
        "access_request.incident_id",
        "incident.status",
        "oncall_rotation.current_primary",
        "oncall_rotation.current_secondary",
        "approval.subject",
        "approval.status",
        "approval.expires_at",
    ),
)

INCIDENT_UPDATES = Policy(
    "POL-ENG-08",
    "Incident timeline updates",
    "Post to an incident's timeline only while the incident is open (its status), only about that incident's own "
    "service (its service id), and only about something that has actually happened: check the record the update "
    "cites - a rollback deployment that succeeded, a grant that is active. For a rollback, also read the rolled-back "
    "deployment again and confirm that it now shows rolled back (its status); for a pipeline hold, read the "
    "pipeline again and confirm that it shows paused (its status). What you read before acting shows the state "
    "before the change, not whether it took effect.",
    ("post_incident_update",),
    ("incident.status", "incident.service_id", "deployment.status", "access_grant.status", "pipeline.status"),
)

HOST_MAINTENANCE = Policy(
    "POL-ENG-09",
    "Draining, rebooting and returning hosts",
    "Drain a host only when a confirmed alert is about that very host and the pool can spare it. Read the host: "
    "its cluster id must be the named cluster (hosts of the same number exist in other clusters and in staging), "
    "its status must be in service (a host already drained is under maintenance already), and its pool id names "
    "its load-balancer pool. Read the alert: its host id must be this host, its status must be firing (a pending "
    "alert has not confirmed the fault), and its check gives the drain reason. Read the pool: its state must be "
    "stable (while it rebalances its counts are not settled) and its healthy hosts must be above its minimum, so "
    "that draining leaves it at or above the minimum; a pool at its minimum waits until repaired members rejoin. "
    "Reboot a host only when it is drained (its status) under an open maintenance record (its status), and return "
    "it to service only after a reboot that completed (its status) with passing health checks; returning it records "
    "a pool change.",
    ("drain_host", "reboot_host", "return_host_to_service"),
    (
        "host.cluster_id",
        "host.status",
        "host.pool_id",
        "alert.host_id",
        "alert.status",
        "alert.check",
        "pool.state",
        "pool.healthy_hosts",
        "maintenance.status",
        "reboot.status",
        "reboot.health_checks",
    ),
)

ALERT_ACK = Policy(
    "POL-ENG-10",
    "Acknowledging alerts",
    "Acknowledge an alert only with the record that handles it: the alert's host id must be the host that record "
    "is about, and the record you cite (a maintenance record) must be open (its status).",
    ("acknowledge_alert",),
    ("alert.host_id", "maintenance.status"),
)

CERT_ROTATION = Policy(
    "POL-ENG-11",
    "TLS certificate rotation",
    "Serve a certificate on a listener only if it was issued for exactly the listener's hostname and is ready to "
    "be served. Read the listener: its hostname is the name the certificate must carry, and its certificate id "
    "is the certificate it serves now. Read the new certificate: its common name must be the listener's hostname "
    "(a certificate for the staging name of the same domain is the wrong certificate), its validation status must "
    "be validated, its private key status must be available (the load balancer must hold the key), and its status "
    "must be issued. A revoked certificate is never served; one whose validation or key import is still in "
    "progress waits. Retire a certificate only after the rotation that replaced it: the rotation's previous "
    "certificate id must be the certificate you retire, and that certificate's status must still be active.",
    ("attach_certificate", "retire_certificate"),
    (
        "listener.hostname",
        "listener.certificate_id",
        "certificate.common_name",
        "certificate.validation_status",
        "certificate.private_key_status",
        "certificate.status",
        "cert_rotation.previous_certificate_id",
        "cert_rotation.status",
    ),
)

SCHEMA_MIGRATION = Policy(
    "POL-ENG-12",
    "Production schema migrations",
    "Run a schema migration only if it was written for this database at its current schema and passed review, "
    "and only with a recent, restore-verified backup of this database. Read the migration: its target database "
    "id must be the database, its from schema must be the database's schema version, its status must be ready (a "
    "migration already applied is never run again) and its review status must be approved (a rejected migration "
    "must be rewritten as a new one; a pending review is waited for). Read the database's schema version. Read "
    "the backup you will cite: its database id must be this database, its verification must be restore verified "
    "(a backup still in its restore test waits), and it must have completed within the last 24 hours (completed "
    "at).",
    ("run_migration",),
    (
        "migration.target_database_id",
        "migration.from_schema",
        "migration.status",
        "migration.review_status",
        "database.schema_version",
        "backup.database_id",
        "backup.verification",
        "backup.completed_at",
    ),
)

ANNOUNCEMENTS = Policy(
    "POL-ENG-13",
    "Announcements and direct messages",
    "Announce a change to every one of a service's announce channels (as its service record lists them), or "
    "message an engineer about it, only once the change has "
    "actually happened: check that the record you cite completed - the config rollout, the certificate rotation, "
    "the migration run (their status), the flag change (applied), the canary analysis you report (scheduled), "
    "the access grant (active), the pool change that returned a host (completed). A host maintenance is completed "
    "only once the host is back: read the host again after returning it and confirm its status is in service. A "
    "rollback is completed only once the rolled-back deployment shows rolled back and the rollback deployment "
    "succeeded (their status). When the message goes to an incident's commander or to a change request's "
    "approver, take the recipient from that record (the incident's commander, the change request's approver).",
    ("post_announcement", "notify_engineer"),
    (
        "config_rollout.status",
        "cert_rotation.status",
        "migration_run.status",
        "flag_change.status",
        "canary_analysis.status",
        "access_grant.status",
        "pool_change.status",
        "host.status",
        "deployment.status",
        "incident.commander",
        "change_request.approver",
        "service.announce_channels",
    ),
)

POLICIES: list[Policy] = [
    STOP_RULE,
    CONFIG_CHANGE,
    CHANGE_CLOSURE,
    ROLLBACK,
    PIPELINE_HOLD,
    FLAG_RAMP,
    CANARY_SCHEDULE,
    BREAK_GLASS,
    INCIDENT_UPDATES,
    HOST_MAINTENANCE,
    ALERT_ACK,
    CERT_ROTATION,
    SCHEMA_MIGRATION,
    ANNOUNCEMENTS,
]
