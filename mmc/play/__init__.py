"""Players, the arena, game records and engine/human opponents.

>>> import numpy as np
>>> from mmc.play import GreedyPlayer, RandomPlayer, play_match
>>> result = play_match(GreedyPlayer(), RandomPlayer(), "gardner", 4, np.random.default_rng(0))
>>> result.wins + result.draws + result.losses
4
"""

from typing import TYPE_CHECKING

from mmc.play.arena import MatchResult, gate, play_match, play_matches, random_opening, split_match, wilson_interval
from mmc.play.baselines import Baseline, BaselineError, get_baseline, list_baselines
from mmc.play.fairy import FairyError, FairyPlayer, engine_variants
from mmc.play.human import HumanPlayer, Resign
from mmc.play.players import (
    PLAYER_KINDS,
    GreedyPlayer,
    Player,
    PlayerFactory,
    PlayerKind,
    PolicyPlayer,
    RandomPlayer,
    close_player,
    parse_options,
    parse_player,
    player_kinds,
    register_player,
)
from mmc.play.records import GameRecord, RecordError, format_records, parse_records, read_records, replay, write_records

__all__ = [
    "PLAYER_KINDS",
    "Baseline",
    "BaselineError",
    "FairyError",
    "FairyPlayer",
    "GameRecord",
    "GreedyPlayer",
    "HumanPlayer",
    "MatchResult",
    "Player",
    "PlayerFactory",
    "PlayerKind",
    "PolicyPlayer",
    "RandomPlayer",
    "RecordError",
    "Resign",
    "SelfPlayResult",
    "close_player",
    "engine_variants",
    "format_records",
    "gate",
    "get_baseline",
    "list_baselines",
    "parse_options",
    "parse_player",
    "parse_records",
    "play_match",
    "play_matches",
    "player_kinds",
    "random_opening",
    "read_records",
    "register_player",
    "replay",
    "self_play",
    "split_match",
    "wilson_interval",
    "write_records",
]

if TYPE_CHECKING:
    from mmc.play.selfplay import SelfPlayResult, self_play


def __getattr__(name: str) -> object:
    """``SelfPlayResult`` and ``self_play``, imported on first use: self-play loads the compiled search and torch,
    which the rest of ``mmc.play`` does not need."""
    if name in ("SelfPlayResult", "self_play"):
        from mmc.play import selfplay

        return getattr(selfplay, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
