"""The network's configuration: a frozen dataclass that round-trips through a plain dict (and so JSON)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from mmc.configs import ConfigError, config_from_dict
from mmc.engine.actions import NUM_POLICY_PLANES
from mmc.engine.observe import NUM_PLANES

__all__ = ["NetworkConfig"]

_MINIMUM = {"blocks": 0, "filters": 1, "value_hidden": 1, "in_planes": 1, "policy_planes": 1}


@dataclass(frozen=True)
class NetworkConfig:
    """Shape of a :class:`~mmc.nn.network.PolicyValueNet`; every field is a positive ``int`` (``blocks`` may be 0)."""

    blocks: int = 4
    """Residual blocks in the tower."""
    filters: int = 64
    """Channels of the stem, of every residual block and of the heads' 1x1 convolutions."""
    value_hidden: int = 64
    """Width of the value head's hidden fully-connected layer."""
    in_planes: int = NUM_PLANES
    """Input planes; ``NUM_PLANES`` for networks that read ``mmc.engine.observation_planes``."""
    policy_planes: int = NUM_POLICY_PLANES
    """Policy output planes; ``NUM_POLICY_PLANES``, the engine's shared action layout."""

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if type(value) is not int:  # bool is an int subclass, and never a layer size
                raise ConfigError(
                    "NetworkConfig", field.name, f"must be an int, got {value!r} ({type(value).__name__})"
                )
            if value < _MINIMUM[field.name]:
                raise ConfigError("NetworkConfig", field.name, f"must be >= {_MINIMUM[field.name]}, got {value}")

    def to_dict(self) -> dict[str, int]:
        """The fields as a JSON-ready dict, in declaration order."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NetworkConfig:
        """The config of ``data``; ``ValueError`` naming any unknown, missing or badly typed key."""
        return config_from_dict(cls, data)
