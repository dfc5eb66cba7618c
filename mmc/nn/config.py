"""The network's configuration: a frozen dataclass that round-trips through a plain dict (and so JSON)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Annotated, Any

from mmc.configs import Range, check_fields, config_from_dict
from mmc.engine.actions import NUM_POLICY_PLANES
from mmc.engine.observe import NUM_PLANES

__all__ = ["NetworkConfig"]


@dataclass(frozen=True)
class NetworkConfig:
    """Shape of a :class:`~mmc.nn.network.PolicyValueNet`; every field is a positive ``int`` (``blocks`` may be 0)."""

    blocks: Annotated[int, Range(0)] = 4
    """Residual blocks in the tower."""
    filters: Annotated[int, Range(1)] = 64
    """Channels of the stem, of every residual block and of the heads' 1x1 convolutions."""
    value_hidden: Annotated[int, Range(1)] = 64
    """Width of the value head's hidden fully-connected layer."""
    in_planes: Annotated[int, Range(1)] = NUM_PLANES
    """Input planes; ``NUM_PLANES`` for networks that read ``mmc.engine.observation_planes``."""
    policy_planes: Annotated[int, Range(1)] = NUM_POLICY_PLANES
    """Policy output planes; ``NUM_POLICY_PLANES``, the engine's shared action layout."""

    def __post_init__(self) -> None:
        check_fields(self)

    def to_dict(self) -> dict[str, int]:
        """The fields as a JSON-ready dict, in declaration order."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NetworkConfig:
        """The config of ``data``; ``ValueError`` naming any unknown, missing or badly typed key."""
        return config_from_dict(cls, data)
