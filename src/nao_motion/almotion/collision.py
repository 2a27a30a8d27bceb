"""ALMotion's self-collision protection: setCollisionProtectionEnabled and
getCollisionProtectionEnabled, over the collision filter's services and parameter.

Chain names are NAOqi's: "LArm", "RArm" or "Arms" (both). An unknown name raises
:class:`ALMotionError` with the reason, as NAOqi refuses it.
"""

from __future__ import annotations


from rcl_interfaces.srv import GetParameters
from std_srvs.srv import SetBool

from ..collision.pairs import PROTECTION_CHAINS, protected_arms
from .client_base import ALMotionError

FILTER_NODE = "collision_filter"


class CollisionMethods:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._protection_clients = {chain: self.node.create_client(SetBool, f"{FILTER_NODE}/set_protection/{chain}")
                                    for chain in PROTECTION_CHAINS}
        self._parameters_client = self.node.create_client(GetParameters, f"{FILTER_NODE}/get_parameters")

    def setCollisionProtectionEnabled(self, pChainName: str, pEnable: bool) -> bool:
        """Protect (or stop protecting) "LArm", "RArm" or "Arms" against the rest of the body."""
        self._check_chain(pChainName)
        response = self.call_service(self._protection_clients[pChainName], SetBool.Request(data=bool(pEnable)),
                                     "collision filter")
        if not response.success:
            self.node.get_logger().warning(f"setCollisionProtectionEnabled refused: {response.message}")
        return bool(response.success)

    def getCollisionProtectionEnabled(self, pChainName: str) -> bool:
        """Whether the chain is protected ("Arms": both arms)."""
        self._check_chain(pChainName)
        response = self.call_service(self._parameters_client, GetParameters.Request(names=["protected_chains"]),
                                     "collision filter")
        chains = list(response.values[0].string_array_value)
        protected = {arm for chain in chains for arm in protected_arms(chain)}
        return set(protected_arms(pChainName)) <= protected

    def _check_chain(self, name: str) -> None:
        try:
            protected_arms(name)
        except ValueError as err:
            raise ALMotionError(str(err)) from None
