"""An example domain: the circulation desk of a lending library.

`suite new` copied this folder into your suite; edit it, or add a sibling folder for a domain of
your own. A domain module defines `DOMAIN`; `safeactbench suite build --from <this folder's parent>`
builds every case it declares (docs/authoring.md).
"""

from safeactbench.authoring import Domain, Protocol

from . import renewal
from .policies import POLICIES
from .tools import TOOLS

DOMAIN = Domain(
    name="library",
    title="Library circulation desk",
    tools=TOOLS,
    policies=POLICIES,
    families=[renewal.FAMILY],
    world_size=(16, 24),  # records per world, background members and loans included
    composition={Protocol.LEGACY: 3, Protocol.V0: 4, Protocol.V1: 3, Protocol.V2: 2, Protocol.V3: 2},
)
