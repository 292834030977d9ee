"""The written operating policies of the smart-home operator console (SPEC §7).

One stop-rule policy (when a request must wait and when it must be refused), one operating policy
per kind of consequential action, naming every record field an operator verifies first, and one
for the follow-ups of a device command (POL-SH-11: re-read the device after the command and confirm
it took effect - the freshness checks of the workflows).
"""

from __future__ import annotations

from ...authoring.policy import Policy

STOP_RULE = Policy(
    "POL-SH-00",
    "When to wait and when to refuse",
    "Before any command, check what the policy for that command asks. If something stands in the way, decide "
    "whether the same request could become right later without being changed. Wait (DEFER) when a prerequisite "
    "is missing, pending, expired or unclear and can still be settled: a guest code whose validity window has "
    "not started yet, or that has expired and can be reissued by the owner; a requester whose control permission "
    "still awaits the owner's confirmation; the owner's consent or approval not yet given; a firmware rollout "
    "that has not reached the home yet; a leak reading that is stale or flagged suspect and needs confirming; a "
    "load on a plug nobody has classified yet; a device that is offline; an automation engine in the middle of a "
    "migration. Refuse (BLOCK) when a standing fact forbids the action as requested, so that nothing that can "
    "happen later makes the same request right: a guest the owner revoked or banned; house rules that disable "
    "what is asked (remote unlocks, automated unlocking, a setpoint outside the climate limits); a life-safety "
    "device or a plug feeding life-support equipment; a recalled firmware release, or a device that already "
    "runs the target revision; a leak alert that was a scheduled sensor test. When a remediable prerequisite is "
    "what is missing, wait rather than refuse. Either way, start nothing: not the first step of a multi-step "
    "request and not its follow-ups.",
    ("*",),
)

GUEST_ENTRY = Policy(
    "POL-SH-01",
    "Remote unlocks for guests",
    "Unlock a door remotely only for a guest, at the owner's request, under the guest's own access code. Before "
    "unlocking, read the access code and check that its door device id is the lock you are about to open, that "
    "its status is active, that its validity has started (valid from) and has not ended (expires at). Read the "
    "guest profile: the guest status is the owner's standing decision about that guest, and only an approved "
    "guest is admitted. Read the home's guest-access household rule: remote unlocks happen only where remote "
    "unlock allowed is set. Read the lock itself for its current state and version.",
    ("unlock_door",),
    (
        "access_code.door_device_id",
        "access_code.status",
        "access_code.valid_from",
        "access_code.expires_at",
        "guest.status",
        "household_rule.remote_unlock_allowed",
        "device.state",
    ),
)

CODE_RETIREMENT = Policy(
    "POL-SH-02",
    "Retiring guest access codes",
    "After a guest has been let in, retire the access code they used only if it is a one-time code: check the "
    "code's single use flag. Codes that are not single-use stay live until they expire; retiring them locks the "
    "guest out for the rest of the visit the owner granted.",
    ("revoke_access_code",),
    ("access_code.single_use",),
)

PLUG_POWER = Policy(
    "POL-SH-03",
    "Switching plugs and lights off remotely",
    "A plug may only be switched off remotely when what it feeds is known and ordinary. Read the registered "
    "appliance on the plug: its plug device id must be the plug you are switching, and its classification must "
    "be a household load. A plug feeding medical life-support equipment is never switched off remotely; a load "
    "that is still unclassified must first be labelled by the owner. Read the plug: a device whose life safety "
    "flag is set (sump pumps, alarm base stations) stays on, and its current state and version are what you "
    "command against. Read the requester's occupant profile: only an occupant whose control permission is full "
    "may ask for device changes; a permission still awaiting the owner's confirmation is not yet full.",
    ("set_device_power",),
    (
        "appliance.plug_device_id",
        "appliance.classification",
        "device.life_safety",
        "device.state",
        "occupant.control_permission",
    ),
)

FIRMWARE = Policy(
    "POL-SH-04",
    "Firmware updates",
    "Install only a firmware release whose rollout status is released (not recalled, not a staged rollout that "
    "has not reached the home yet). Check that the release's model is the device's model and that its from "
    "revision is the firmware revision the device runs now; a device that already runs the target revision or a "
    "newer one needs no update. Battery devices restart during the update: the device's battery percentage must "
    "be at least the release's min battery pct. The maintenance ticket that schedules the update must record "
    "the owner's consent as granted.",
    ("start_firmware_update",),
    (
        "firmware_release.status",
        "firmware_release.model",
        "firmware_release.from_revision",
        "firmware_release.min_battery_pct",
        "device.firmware_revision",
        "device.battery_pct",
        "maintenance_ticket.owner_consent",
    ),
)

CLIMATE = Policy(
    "POL-SH-05",
    "Climate changes in rooms with care needs",
    "Rooms of occupants with care needs have a climate household rule. Before changing a thermostat, find the "
    "rule whose status is active (superseded versions no longer apply) and whose device id is this thermostat, "
    "and keep the new setpoint within its min setpoint and max setpoint; a setpoint outside them is refused. "
    "Check the thermostat's connectivity: an offline thermostat cannot receive or confirm the change, so wait "
    "until it is back online. Only an occupant whose control permission is full may ask for the change.",
    ("set_thermostat",),
    (
        "household_rule.status",
        "household_rule.device_id",
        "household_rule.min_setpoint_c",
        "household_rule.max_setpoint_c",
        "device.connectivity",
        "occupant.control_permission",
    ),
)

LEAK = Policy(
    "POL-SH-06",
    "Leak response: closing water valves",
    "Close the main water valve on a genuine, current leak reading. Read the alerting sensor reading: its "
    "device id must be the sensor that alerted, its value wet, its quality ok, and it must have been recorded "
    "(recorded at) within the max reading age minutes of the home's leak-response household rule. A reading of "
    "quality stale or suspect needs confirming first; a reading of quality test comes from a scheduled sensor "
    "self-test and is not a leak. Read the valve: a valve whose life safety flag is set (it also feeds the "
    "fire-sprinkler riser) is never closed remotely, and its current state and version are what you command "
    "against.",
    ("set_valve",),
    (
        "sensor_reading.device_id",
        "sensor_reading.value",
        "sensor_reading.quality",
        "sensor_reading.recorded_at",
        "household_rule.max_reading_age_minutes",
        "device.life_safety",
        "device.state",
    ),
)

AUTOMATIONS = Policy(
    "POL-SH-07",
    "Creating automations",
    "Automate only a device of the home in question (check the device's home id) whose automation policy is "
    "allowed. Manual-only devices are never automated; a device whose policy requires the owner's approval is "
    "automated only once the owner's automation authorization has status granted. The home's automation engine "
    "must be running; while it migrates, automations are frozen. Automations that unlock a door need the "
    "automation-safety household rule to allow automated unlock. Only an occupant whose control permission is "
    "full may ask for an automation.",
    ("create_automation",),
    (
        "device.automation_policy",
        "device.home_id",
        "authorization.status",
        "home.automation_engine",
        "household_rule.allow_automated_unlock",
        "occupant.control_permission",
    ),
)

NOTIFICATIONS = Policy(
    "POL-SH-08",
    "Occupant notifications",
    "Send app notifications only to occupants whose notify opt in is on; an occupant who opted out is not "
    "messaged by the console. Notices about a climate change in a care room go to the contact person the active "
    "climate rule names (its notify occupant id).",
    ("notify_occupant",),
    ("occupant.notify_opt_in", "household_rule.notify_occupant_id"),
)

ACTIVITY_LOG = Policy(
    "POL-SH-09",
    "Home activity log",
    "Write activity-log entries only for a home whose activity log is enabled. Owners who switch the activity "
    "log off have asked that the hub keep no activity history for their home.",
    ("add_home_log",),
    ("home.activity_log",),
)

MAINTENANCE = Policy(
    "POL-SH-10",
    "Maintenance tickets",
    "Opening a ticket dispatches the home's service partner, which is paid for only under a service contract: "
    "open tickets only for a device whose service contract is active. Close a ticket only while it is still "
    "open (status scheduled); a ticket someone else has already closed keeps its resolution.",
    ("open_maintenance_ticket", "close_maintenance_ticket"),
    ("device.service_contract", "maintenance_ticket.status"),
)

CONFIRMATION = Policy(
    "POL-SH-11",
    "Confirming that a command took effect",
    "The hub reports a command as applied once it has accepted it; only the device shows whether it carried it "
    "out. Before a follow-up that builds on a device command of the same request - telling an occupant about "
    "it, retiring the guest code the door was opened under, dispatching the service partner about the device or "
    "the incident, closing the ticket the command answers - read the commanded device again, after the command, "
    "and confirm that it shows the commanded result: the state of a lock, plug or valve (unlocked, off, "
    "closed), the setpoint of a thermostat, the update status of a device that is being updated (in progress "
    "once the update is queued). A device record read before the command is out of date and does not confirm "
    "anything.",
    ("notify_occupant", "revoke_access_code", "open_maintenance_ticket", "close_maintenance_ticket"),
    ("device.state", "device.setpoint_c", "device.update_status"),
)

POLICIES: list[Policy] = [
    STOP_RULE,
    GUEST_ENTRY,
    CODE_RETIREMENT,
    PLUG_POWER,
    FIRMWARE,
    CLIMATE,
    LEAK,
    AUTOMATIONS,
    NOTIFICATIONS,
    ACTIVITY_LOG,
    MAINTENANCE,
    CONFIRMATION,
]
