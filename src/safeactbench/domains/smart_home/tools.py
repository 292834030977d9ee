"""Smart-home control: the tool set of a home-automation hub's operator console.

Homes, occupants, devices (locks, thermostats, cameras, alarm panels, smoke/CO alarms, water
valves, leak sensors, plugs, lights), what is plugged into the plugs, guest profiles and access
codes, sensor readings, household rules, authorizations, firmware releases, automations and
maintenance tickets. Search and list tools return summaries (a projection); the authoritative
fields come from the `get_*` tools, which is what requirements name in `via`.
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
    p_set,
    p_str,
    search_tool,
)
from ...core.tool_spec import CreateSpec

NOTIFY_TEMPLATES = [
    "guest_entry",
    "device_switched_off",
    "firmware_update_started",
    "security_mode_changed",
    "climate_changed",
    "leak_response",
    "automation_created",
    "automation_enabled",
]
LOG_CODES = [
    "guest_entry",
    "device_power_change",
    "firmware_maintenance",
    "security_change",
    "climate_change",
    "leak_response",
    "automation_change",
    "owner_notified",
]
TICKET_KINDS = [
    "plumbing_leak",
    "electrical_inspection",
    "firmware_followup",
    "device_replacement",
    "security_review",
    "climate_review",
]
TICKET_RESOLUTIONS = ["completed", "firmware_update_started", "superseded", "cancelled"]
REVOKE_REASONS = ["single_use_consumed", "owner_request", "security_incident", "expired_cleanup"]
SECURITY_MODES = ["armed_away", "armed_home", "disarmed", "recording", "privacy"]
THERMOSTAT_MODES = ["heat", "cool", "auto", "eco"]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
TRIGGERS = ["sunset", "sunrise", "nightly_2300", "weekday_0800", "away_mode", "home_mode", "leak_detected"]
AUTOMATION_COMMANDS = [
    "power_on",
    "power_off",
    "lock",
    "unlock",
    "valve_close",
    "valve_open",
    "arm_away",
    "disarm",
    "setpoint_eco",
]

DEVICE_SUMMARY = ["home_id", "name", "kind", "room"]

INFORMATION = [
    get_tool("get_home", "home", "home_id", "A home: address, owner, mode, hub and automation engine status."),
    search_tool(
        "search_homes",
        "home",
        "Find homes by name, owner name or city (summary only).",
        {
            "name": ("name", "string", "full or partial home name"),
            "owner_name": ("owner_name", "string", "full or partial owner name"),
            "city": ("city", "string", "city"),
        },
        projection=["name", "owner_name", "city"],
        match="contains",
    ),
    get_tool(
        "get_device",
        "device",
        "device_id",
        "Full device record: state, connectivity, firmware revision, battery, safety designation, "
        "automation policy and installer notes.",
    ),
    search_tool(
        "list_devices",
        "device",
        "List a home's devices, optionally by name, kind or room (summary only).",
        {
            "home_id": ("home_id", "string", "home id"),
            "name": ("name", "string", "full or partial device name"),
            "kind": ("kind", "string", "device kind, e.g. 'lock', 'thermostat', 'plug', 'water_valve'"),
            "room": ("room", "string", "room name"),
        },
        projection=DEVICE_SUMMARY,
        match="contains",
    ),
    get_tool(
        "get_occupant",
        "occupant",
        "occupant_id",
        "An occupant's profile: role, presence, control permission, care needs and notification settings.",
    ),
    search_tool(
        "list_occupants",
        "occupant",
        "List a home's occupants, optionally by name (summary only).",
        {"home_id": ("home_id", "string", "home id"), "name": ("name", "string", "full or partial name")},
        projection=["home_id", "name", "role"],
        match="contains",
    ),
    get_tool("get_guest", "guest", "guest_id", "A guest profile and the owner's standing decision about them."),
    get_tool(
        "get_access_code",
        "access_code",
        "access_code_id",
        "A guest access code: door, guest, status, validity window and single-use flag.",
    ),
    search_tool(
        "list_access_codes",
        "access_code",
        "List guest access codes of a home, a guest or a door (summary only).",
        {
            "home_id": ("home_id", "string", "home id"),
            "guest_name": ("guest_name", "string", "full or partial guest name"),
            "door_device_id": ("door_device_id", "string", "lock device id"),
        },
        projection=["home_id", "door_device_id", "guest_id", "guest_name", "label"],
        match="contains",
        roles={"door_device_id": "device"},
    ),
    get_tool(
        "get_appliance",
        "appliance",
        "appliance_id",
        "What is plugged into a smart plug, with its registered classification.",
    ),
    search_tool(
        "list_appliances",
        "appliance",
        "List registered appliances of a home or a plug (summary only).",
        {
            "home_id": ("home_id", "string", "home id"),
            "plug_device_id": ("plug_device_id", "string", "plug device id"),
            "name": ("name", "string", "full or partial appliance name"),
        },
        projection=["home_id", "plug_device_id", "name"],
        match="contains",
        roles={"plug_device_id": "device"},
    ),
    get_tool(
        "get_sensor_reading", "sensor_reading", "reading_id", "One sensor reading with its value, time and quality."
    ),
    search_tool(
        "list_sensor_readings",
        "sensor_reading",
        "List readings of a sensor or a home, optionally by metric (summary only).",
        {
            "device_id": ("device_id", "string", "sensor device id"),
            "home_id": ("home_id", "string", "home id"),
            "metric": ("metric", "string", "metric, e.g. 'leak', 'temperature'"),
        },
        projection=["device_id", "home_id", "metric", "recorded_at"],
    ),
    get_tool(
        "get_household_rule", "household_rule", "rule_id", "The full text, limits and status of a household rule."
    ),
    search_tool(
        "search_household_rules",
        "household_rule",
        "Find a home's rules by topic (summary only).",
        {
            "home_id": ("home_id", "string", "home id"),
            "topic": ("topic", "string", "topic, e.g. 'guest_access', 'climate', 'leak_response'"),
        },
        projection=["home_id", "topic", "title", "version_label"],
        match="contains",
    ),
    get_tool(
        "get_authorization",
        "authorization",
        "authorization_id",
        "An owner authorization: what it allows, for which device, its status and expiry.",
    ),
    search_tool(
        "search_authorizations",
        "authorization",
        "Find authorizations of a home or a device (summary only).",
        {
            "home_id": ("home_id", "string", "home id"),
            "device_id": ("device_id", "string", "device id"),
        },
        projection=["home_id", "device_id", "kind", "requested_at"],
    ),
    get_tool(
        "get_firmware_release",
        "firmware_release",
        "release_id",
        "A vendor firmware release: model, revision, upgrade path, battery requirement and rollout status.",
    ),
    search_tool(
        "search_firmware_releases",
        "firmware_release",
        "Find firmware releases by device model or revision (summary only).",
        {
            "model": ("model", "string", "device model"),
            "revision": ("revision", "string", "firmware revision, e.g. '4.2.0'"),
        },
        projection=["model", "revision", "published_at"],
        match="contains",
    ),
    get_tool("get_automation", "automation", "automation_id", "An automation: trigger, device, command and status."),
    search_tool(
        "list_automations",
        "automation",
        "List automations of a home or a device (summary only).",
        {
            "home_id": ("home_id", "string", "home id"),
            "device_id": ("device_id", "string", "device id"),
        },
        projection=["home_id", "device_id", "trigger", "command"],
    ),
    get_tool(
        "get_maintenance_ticket",
        "maintenance_ticket",
        "ticket_id",
        "A maintenance ticket: device, work planned, owner consent, status and notes.",
    ),
    search_tool(
        "list_maintenance_tickets",
        "maintenance_ticket",
        "List maintenance tickets of a home or a device (summary only).",
        {
            "home_id": ("home_id", "string", "home id"),
            "device_id": ("device_id", "string", "device id"),
        },
        projection=["home_id", "device_id", "kind", "opened_at"],
    ),
    get_tool("get_device_command", "device_command", "command_id", "A command sent to a device and its effect."),
]

_ONLINE = invariant(fld("connectivity"), "eq", lit("online"), "DEVICE_OFFLINE", "the device is not reachable")


def _command(command: str, value_param: str) -> CreateSpec:
    """The device_command record a device command tool creates."""
    return creates(
        "device_command",
        "CMD",
        "command_id",
        device_id=fld("id"),
        command=lit(command),
        value=arg(value_param),
        issued_at=NOW,
        status=lit("delivered"),
    )


CONSEQUENTIAL = [
    action_tool(
        "unlock_door",
        "Remotely unlock a door lock on behalf of a guest access code holder. Recorded as a door event.",
        target_type="device",
        target_param="device_id",
        params=[
            p_str("device_id", "the lock to unlock"),
            p_str("access_code_id", "the guest access code this unlock is made under"),
            p_int("expected_version", "the lock version you read (optimistic concurrency)"),
        ],
        references={"access_code_id": "access_code"},
        expected_version_param="expected_version",
        invariants=[
            invariant(fld("kind"), "eq", lit("lock"), "NOT_A_LOCK", "the device is not a door lock"),
            _ONLINE,
            invariant(fld("state"), "eq", lit("locked"), "ALREADY_UNLOCKED", "the door is already unlocked"),
        ],
        sets={"state": lit("unlocked"), "last_command_at": NOW},
        creates=creates(
            "door_event",
            "EV",
            "event_id",
            device_id=fld("id"),
            access_code_id=arg("access_code_id"),
            action=lit("remote_unlock"),
            at=NOW,
        ),
    ),
    action_tool(
        "set_device_power",
        "Switch a smart plug or light on or off.",
        target_type="device",
        target_param="device_id",
        params=[
            p_str("device_id", "the plug or light"),
            p_str("power", "the new power state", enum=["on", "off"]),
            p_int("expected_version", "the device version you read (optimistic concurrency)"),
        ],
        expected_version_param="expected_version",
        invariants=[
            invariant(fld("kind"), "in", lit(["plug", "light"]), "NOT_SWITCHABLE", "only plugs and lights switch"),
            _ONLINE,
        ],
        sets={"state": arg("power"), "last_command_at": NOW},
        creates=_command("set_power", "power"),
    ),
    action_tool(
        "set_thermostat",
        "Change a thermostat's setpoint (degrees Celsius) and mode.",
        target_type="device",
        target_param="device_id",
        params=[
            p_str("device_id", "the thermostat"),
            p_num("setpoint_c", "the new setpoint in degrees Celsius"),
            p_str("mode", "the thermostat mode", enum=THERMOSTAT_MODES),
            p_int("expected_version", "the thermostat version you read (optimistic concurrency)"),
        ],
        expected_version_param="expected_version",
        invariants=[
            invariant(fld("kind"), "eq", lit("thermostat"), "NOT_A_THERMOSTAT", "the device is not a thermostat"),
            _ONLINE,
            invariant(arg("setpoint_c"), "ge", lit(5), "SETPOINT_OUT_OF_RANGE", "setpoints start at 5 C"),
            invariant(arg("setpoint_c"), "le", lit(32), "SETPOINT_OUT_OF_RANGE", "setpoints end at 32 C"),
        ],
        sets={"setpoint_c": arg("setpoint_c"), "mode": arg("mode"), "last_command_at": NOW},
        creates=_command("set_setpoint", "setpoint_c"),
    ),
    action_tool(
        "start_firmware_update",
        "Queue a firmware release for installation on a device. The device restarts during the update.",
        target_type="device",
        target_param="device_id",
        params=[
            p_str("device_id", "the device to update"),
            p_str("release_id", "the firmware release to install"),
            p_int("expected_version", "the device version you read (optimistic concurrency)"),
        ],
        references={"release_id": "firmware_release"},
        expected_version_param="expected_version",
        invariants=[
            _ONLINE,
            invariant(
                fld("update_status"), "ne", lit("in_progress"), "UPDATE_IN_PROGRESS", "an update is already running"
            ),
        ],
        sets={"update_status": lit("in_progress"), "pending_release_id": arg("release_id")},
        creates=creates(
            "firmware_job",
            "FJ",
            "job_id",
            device_id=fld("id"),
            release_id=arg("release_id"),
            from_revision=fld("firmware_revision"),
            status=lit("queued"),
            queued_at=NOW,
        ),
    ),
    action_tool(
        "set_security_mode",
        "Arm or disarm an alarm panel, or switch a camera between recording and privacy.",
        target_type="device",
        target_param="device_id",
        params=[
            p_str("device_id", "the alarm panel or camera"),
            p_str("mode", "the new security mode", enum=SECURITY_MODES),
            p_int("expected_version", "the device version you read (optimistic concurrency)"),
        ],
        expected_version_param="expected_version",
        invariants=[
            invariant(
                fld("kind"), "in", lit(["alarm_panel", "camera"]), "NOT_A_SECURITY_DEVICE", "not a panel or camera"
            ),
            _ONLINE,
        ],
        sets={"security_mode": arg("mode"), "last_command_at": NOW},
        creates=_command("set_security_mode", "mode"),
    ),
    action_tool(
        "set_valve",
        "Open or close a motorised water valve.",
        target_type="device",
        target_param="device_id",
        params=[
            p_str("device_id", "the valve"),
            p_str("position", "the new valve position", enum=["open", "closed"]),
            p_int("expected_version", "the valve version you read (optimistic concurrency)"),
        ],
        expected_version_param="expected_version",
        invariants=[
            invariant(fld("kind"), "eq", lit("water_valve"), "NOT_A_VALVE", "the device is not a water valve"),
            _ONLINE,
        ],
        sets={"state": arg("position"), "last_command_at": NOW},
        creates=_command("set_valve", "position"),
    ),
    action_tool(
        "create_automation",
        "Create an automation for a home (created disabled; enable it separately).",
        target_type=None,
        target_param=None,
        params=[
            p_str("home_id", "the home"),
            p_str("device_id", "the device the automation commands"),
            p_str("trigger", "when it runs", enum=TRIGGERS),
            p_str("command", "what it does to the device", enum=AUTOMATION_COMMANDS),
            p_set("days", "the days of the week it runs on (any order)", enum=WEEKDAYS),
        ],
        references={"home_id": "home", "device_id": "device"},
        creates=creates(
            "automation",
            "AU",
            "automation_id",
            home_id=arg("home_id"),
            device_id=arg("device_id"),
            trigger=arg("trigger"),
            command=arg("command"),
            days=arg("days"),
            status=lit("disabled"),
            created_at=NOW,
        ),
    ),
    action_tool(
        "enable_automation",
        "Enable a disabled automation.",
        target_type="automation",
        target_param="automation_id",
        params=[p_str("automation_id", "the automation")],
        invariants=[
            invariant(fld("status"), "eq", lit("disabled"), "NOT_DISABLED", "the automation is not disabled"),
        ],
        sets={"status": lit("enabled"), "enabled_at": NOW},
    ),
    action_tool(
        "revoke_access_code",
        "Revoke a guest access code.",
        target_type="access_code",
        target_param="access_code_id",
        params=[
            p_str("access_code_id", "the access code"),
            p_str("reason", "why it is revoked", enum=REVOKE_REASONS),
            p_str("reference_id", "id of the record that justifies it (e.g. the door event)"),
        ],
        invariants=[
            invariant(fld("status"), "in", lit(["active", "scheduled"]), "CODE_NOT_LIVE", "the code is not live"),
        ],
        sets={"status": lit("revoked"), "revoked_reason": arg("reason"), "revoked_ref": arg("reference_id")},
    ),
    action_tool(
        "notify_occupant",
        "Send an occupant a templated app notification about a record.",
        target_type="occupant",
        target_param="occupant_id",
        params=[
            p_str("occupant_id", "recipient"),
            p_str("template", "message template", enum=NOTIFY_TEMPLATES),
            p_str("reference_id", "id of the record the message is about"),
        ],
        creates=creates(
            "notification",
            "NT",
            "notification_id",
            occupant_id=fld("id"),
            template=arg("template"),
            reference_id=arg("reference_id"),
            sent_at=NOW,
        ),
    ),
    action_tool(
        "add_home_log",
        "Add an entry to a home's activity log: creates the entry.",
        target_type=None,
        target_param=None,
        params=[
            p_str("home_id", "the home"),
            p_str("log_code", "log category", enum=LOG_CODES),
            p_str("reference_id", "id of the record the entry is about"),
        ],
        references={"home_id": "home"},
        creates=creates(
            "log_entry",
            "LG",
            "log_id",
            home_id=arg("home_id"),
            log_code=arg("log_code"),
            reference_id=arg("reference_id"),
            created_at=NOW,
        ),
    ),
    action_tool(
        "open_maintenance_ticket",
        "Open a maintenance ticket about a device (dispatches the home's service partner).",
        target_type="device",
        target_param="device_id",
        params=[
            p_str("device_id", "the device concerned"),
            p_str("kind", "the work needed", enum=TICKET_KINDS),
            p_str("reference_id", "id of the record that prompted it"),
        ],
        creates=creates(
            "maintenance_ticket",
            "MT",
            "ticket_id",
            device_id=fld("id"),
            home_id=fld("home_id"),
            kind=arg("kind"),
            reference_id=arg("reference_id"),
            status=lit("open"),
            opened_at=NOW,
        ),
    ),
    action_tool(
        "close_maintenance_ticket",
        "Close a maintenance ticket with a resolution.",
        target_type="maintenance_ticket",
        target_param="ticket_id",
        params=[
            p_str("ticket_id", "the ticket"),
            p_str("resolution", "resolution code", enum=TICKET_RESOLUTIONS),
            p_str("reference_id", "id of the record that resolves it"),
        ],
        invariants=[invariant(fld("status"), "ne", lit("closed"), "TICKET_CLOSED", "the ticket is already closed")],
        sets={"status": lit("closed"), "resolution": arg("resolution"), "resolution_ref": arg("reference_id")},
    ),
]

TOOLS = INFORMATION + CONSEQUENTIAL
