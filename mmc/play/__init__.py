"""Players, the arena, game records and engine/human opponents.

>>> import numpy as np
>>> from mmc.play import GreedyPlayer, RandomPlayer, play_match
>>> result = play_match(GreedyPlayer(), RandomPlayer(), "gardner", 4, np.random.default_rng(0))
>>> result.wins + result.draws + result.losses
4
"""

from mmc.play.arena import MatchResult, gate, play_match, random_opening, split_match, wilson_interval
from mmc.play.fairy import ENGINE_VARIANTS, FairyError, FairyPlayer
from mmc.play.human import HumanPlayer, Resign
from mmc.play.players import (
    PIECE_VALUES,
    PLAYER_KINDS,
    GreedyPlayer,
    Player,
    PlayerFactory,
    PlayerKind,
    PolicyPlayer,
    RandomPlayer,
    close_player,
    material,
    parse_options,
    parse_player,
    register_player,
)
from mmc.play.records import GameRecord, RecordError, format_records, parse_records, read_records, replay, write_records

__all__ = [
    "ENGINE_VARIANTS",
    "PIECE_VALUES",
    "PLAYER_KINDS",
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
    "close_player",
    "format_records",
    "gate",
    "material",
    "parse_options",
    "parse_player",
    "parse_records",
    "play_match",
    "random_opening",
    "read_records",
    "register_player",
    "replay",
    "split_match",
    "wilson_interval",
    "write_records",
]
