"""Any player on the study's Elo scale: the games and rating of ``evaluate@T``, and a leaderboard file per variant.

:func:`rate_players` does for player specs what the study's ``evaluate@T`` does for its models, with the same code
(``mmc.evaluation.evaluate.evaluate_and_rate``): each player plays ``opponents`` (the study's evaluation
opponents less ``unadapted``), then the anchors' ladder, the anchors nearest its first estimate and the player
next to it are played and everything is fitted together, ``greedy`` at 0, with bootstrap 95 % intervals
(``mmc.evaluation.rating``). The seeds are the stage's: games from ``("evaluate", variant)`` of the root seed and the
rating from its ``("rate",)``, so a model of the study given as ``net:PATH.pt`` with the study's search plays the very
games it played there. :func:`append_leaderboard` adds the ratings to a CSV file, atomically.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from mmc.core.atomic import atomic_write
from mmc.core.seeding import derive, root
from mmc.evaluation.evaluate import Cell, EvaluateConfig, RateConfig, Rated, evaluate_and_rate
from mmc.play.fairy import plays

__all__ = [
    "LEADERBOARD_FIELDS",
    "OPPONENTS",
    "LeaderboardRow",
    "append_leaderboard",
    "leaderboard_rows",
    "rate_players",
]

OPPONENTS = ("random", "greedy", "fairy:nodes=1")
"""The first opponents of every rated player: the study's ``evaluate.opponents`` without ``unadapted``."""


def rate_players(
    specs: Sequence[str], variant: str, evaluate_config: EvaluateConfig, rate_config: RateConfig, seed: int, *,
    opponents: Sequence[str] = OPPONENTS, device: str = "cpu",
) -> Rated:  # fmt: skip
    """The Elo of every player of ``specs`` (``mmc.play.parse_player`` specs, each rated under its spec) in
    ``variant``, with the anchors of ``rate_config`` that play it (the first games: against those of ``opponents``
    among them); ``seed`` is the root seed (the study's
    ``seed``). Networks run on ``device``. ``ValueError`` if a spec is repeated or is one of the anchors."""
    anchors = [a for a in rate_config.anchors if plays(a, variant)]
    if len(set(specs)) < len(specs) or set(specs) & set(anchors):
        raise ValueError(f"the players must be distinct and not anchors ({', '.join(anchors)}), got {list(specs)}")
    stage_seed = derive(root(seed), "evaluate", variant)
    cells = [Cell(spec, None, opponent) for spec in specs for opponent in opponents if opponent in anchors]
    players = dict.fromkeys(specs)
    return evaluate_and_rate(cells, players, anchors, variant, evaluate_config, rate_config, stage_seed, device)[1]


LEADERBOARD_FIELDS = ("date", "variant", "player", "elo", "low", "high", "games", "anchors", "seed")


@dataclass(frozen=True)
class LeaderboardRow:
    """One rated player in a leaderboard file (Elo points, ``greedy`` = 0; ``anchors`` joined by spaces)."""

    date: str
    variant: str
    player: str
    elo: float
    low: float
    high: float
    games: int
    anchors: str
    seed: int


def leaderboard_rows(rated: Rated, specs: Sequence[str], variant: str, seed: int) -> list[LeaderboardRow]:
    """The rows of ``specs`` in ``rated``, dated now (UTC), Elo rounded to 0.1."""
    r = rated.ratings
    anchors = " ".join(p for p in r.players if p not in specs)
    date = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return [
        LeaderboardRow(
            date,
            variant,
            spec,
            round(r.elo[spec], 1),
            round(r.low[spec], 1),
            round(r.high[spec], 1),
            r.games[spec],
            anchors,
            seed,
        )
        for spec in specs
    ]


def append_leaderboard(path: str | Path, rows: Sequence[LeaderboardRow]) -> Path:
    """Append ``rows`` to the CSV file ``path`` (header :data:`LEADERBOARD_FIELDS`, created with its folders if
    missing), atomically: the file is rewritten whole through a temporary file and a rename. ``ValueError`` if the
    existing file has another header."""
    path = Path(path)
    old = path.read_text() if path.is_file() else ""
    if old and old.splitlines()[0] != ",".join(LEADERBOARD_FIELDS):
        raise ValueError(f"{path} is not a leaderboard file (its header is not {','.join(LEADERBOARD_FIELDS)})")
    buffer = io.StringIO()
    buffer.write(old)
    writer = csv.writer(buffer, lineterminator="\n")
    if not old:
        writer.writerow(LEADERBOARD_FIELDS)
    for row in rows:
        writer.writerow([getattr(row, name) for name in LEADERBOARD_FIELDS])
    return atomic_write(path, lambda f: f.write(buffer.getvalue().encode()))
