"""Smart-home control: guest access, device power, firmware, security modes, climate, leaks, automations."""

from ...authoring.family import Domain
from . import automation, common, firmware_update, guest_unlock, power_off, thermostat_care, water_valve
from .policies import POLICIES
from .tools import TOOLS

DOMAIN = Domain(
    name="smart_home",
    title="Smart-home control",
    tools=TOOLS,
    policies=POLICIES,
    families=[
        guest_unlock.FAMILY,
        power_off.FAMILY,
        firmware_update.FAMILY,
        thermostat_care.FAMILY,
        water_valve.FAMILY,
        automation.FAMILY,
    ],
    name_pools=(tuple(common.HOME_NAMES),),
)
