"""The network's configuration: a frozen dataclass that round-trips through a plain dict (and so JSON)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Annotated, Any

from mmc.core.configs import ConfigError, Range, check_fields, config_from_dict
from mmc.games import Game, get_family, get_game

__all__ = ["NetworkConfig"]


@dataclass(frozen=True)
class NetworkConfig:
    """Shape of a :class:`~mmc.nn.network.PolicyValueNet` and the game family it plays; every shape field is a
    positive ``int`` (``blocks`` may be 0). One network plays every variant and board size of its family; the planes
    left out are the family's (``game``, which every config names; :meth:`for_game` names the family)."""

    blocks: Annotated[int, Range(0)] = 4
    """Residual blocks in the tower."""
    filters: Annotated[int, Range(1)] = 64
    """Channels of the stem, of every residual block and of the heads' 1x1 convolutions."""
    value_hidden: Annotated[int, Range(1)] = 64
    """Width of the value head's hidden fully-connected layer."""
    in_planes: Annotated[int, Range(1)] = None  # type: ignore[assignment]  # None: the family's, set at creation
    """Input planes: the family's ``Game.num_planes`` when left out."""
    policy_planes: Annotated[int, Range(1)] = None  # type: ignore[assignment]
    """Policy output planes: the family's ``Game.num_policy_planes`` when left out."""
    game: str = ""
    """The game family the network plays (``mmc.games``), which must be named: a checkpoint of one family is refused
    by another's."""
    policy_kernel: Annotated[int, Range(1)] = 1
    """Kernel of the policy head's first convolution, odd: 1 is AlphaZero's (a move's logit reads its from-square's
    features alone), 3 lets it read the neighbouring squares too. Not a ``params.yaml`` key: the benchmarks set it."""
    moves_left: bool = False
    """A third head, the plies from the position to the game's end (Lc0's moves-left head): trained on the rows'
    ``plies_left`` with ``TrainConfig.moves_left_weight``, read by the search with ``SearchConfig.moves_left_slope``
    to prefer the shorter win. Off: the two heads of AlphaZero."""

    def __post_init__(self) -> None:
        if self.game == "":
            raise ConfigError("NetworkConfig", "game", "must name the game family the network plays (mmc variants "
                              "lists the families)")  # fmt: skip
        if self.in_planes is None or self.policy_planes is None:  # the planes of the family: looked up, not imported
            family = get_family(self.game) if isinstance(self.game, str) else None
            if family is not None:
                if self.in_planes is None:
                    object.__setattr__(self, "in_planes", family.num_planes)
                if self.policy_planes is None:
                    object.__setattr__(self, "policy_planes", family.num_policy_planes)
        check_fields(self)
        if self.policy_kernel % 2 == 0:
            raise ValueError(
                f"NetworkConfig.policy_kernel must be odd (a 'same' convolution), got {self.policy_kernel}"
            )

    @classmethod
    def for_game(cls, game: Game | str, **shape: Any) -> NetworkConfig:
        """The config of a network for the family ``game`` (a :class:`~mmc.games.Game` or its name), its
        planes the family's and its other fields ``shape`` (``blocks``, ``filters``, ``value_hidden``,
        ``moves_left``, ...)."""
        family = get_family(game) if isinstance(game, str) else game
        return cls(**shape, in_planes=family.num_planes, policy_planes=family.num_policy_planes, game=family.name)

    def check_plays(self, variant: str) -> None:
        """``ValueError`` in one line unless the network's family plays ``variant``."""
        family = get_game(variant).name
        if family != self.game:
            raise ValueError(f"a {self.game} network cannot play {variant}, a variant of {family}")

    def to_dict(self) -> dict[str, int | str | bool]:
        """The fields as a JSON-ready dict, in declaration order."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NetworkConfig:
        """The config of ``data``; ``ValueError`` naming any unknown, missing or badly typed key. A dict without
        ``game`` (written before there were several families) is a chess network's (the one place a family is
        assumed), one without ``policy_kernel``
        (written before it) has the 1x1 policy convolution, one without ``moves_left`` no moves-left head."""
        return config_from_dict(cls, {"game": "chess", "policy_kernel": 1, "moves_left": False, **data})
