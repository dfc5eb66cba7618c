"""The arena: two players play a match of concurrent games from paired random openings; gating on the score.

Games ``2k`` and ``2k + 1`` start from the same random opening (``opening_plies`` uniformly random legal
plies drawn from a per-pair seed), with player ``a`` as the first player (White in chess) in the even game and as
the second in the odd one, so that deterministic players still play different games and each opening is played
from both sides. All unfinished games advance together: each step asks ``a`` for its moves in every game where it
is to move in one batched ``play`` call, then ``b`` likewise. Whose move it is comes from the game after every
move (a player may move twice in a row).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from mmc.games import FIRST, IllegalMoveError, apply_move, game_of, get_game, initial_state, legal_moves, outcome
from mmc.play.players import Player
from mmc.play.records import GameRecord

__all__ = ["MatchResult", "gate", "play_match", "play_matches", "random_opening", "split_match", "wilson_interval"]

_OPENING_TRIES = 100


@dataclass(frozen=True)
class MatchResult:
    """A match's tally from player ``a``'s view and every game's record (game ``i`` is ``records[i]``)."""

    wins: int
    draws: int
    losses: int
    records: list[GameRecord]
    seconds: float = field(default=0.0, compare=False)
    """Wall seconds its players took to move (:func:`play_matches` shares a call's seconds among the matches by the
    positions each gave it); 0 when not measured (a kept result)."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """``(wins + draws / 2) / games``: a draw counts as half a win."""
        return (self.wins + self.draws / 2) / self.games

    @classmethod
    def combine(cls, results: Sequence[MatchResult]) -> MatchResult:
        """One match of the parts ``results`` (tallies summed, records in part order)."""
        return cls(
            sum(r.wins for r in results),
            sum(r.draws for r in results),
            sum(r.losses for r in results),
            [record for r in results for record in r.records],
            sum(r.seconds for r in results),
        )

    def wilson_interval(self, z: float = 1.96) -> tuple[float, float]:
        """:func:`wilson_interval` of :attr:`score` over :attr:`games` (``z = 1.96``: 95 %)."""
        return wilson_interval(self.score, self.games, z)


def wilson_interval(score: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval (Wilson, 1927) of a proportion ``score`` observed over ``games`` trials, clipped to
    [0, 1] (``z = 1.96``: 95 %); (0, 1) for no games.

    A match's score is treated as a binomial proportion, a draw counting as half a win. Draws make the true variance
    smaller than the binomial one, so with many draws the interval is conservative (wider than it needs to be).
    """
    if games <= 0:
        return 0.0, 1.0
    n, p = games, score
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def gate(result: MatchResult, threshold: float) -> bool:
    """Accept the candidate (player ``a`` of the match) when its score is at least ``threshold`` (the seed used
    0.6, the study ``expert.gate_threshold``)."""
    return result.score >= threshold


def split_match(games: int, parts: int) -> list[int]:
    """``games`` split into at most ``parts`` matches of whole opening pairs (even counts; an odd total leaves
    the last one odd), as even as they go; no empty part."""
    pairs, odd = divmod(games, 2)
    parts = max(1, min(parts, pairs))
    base, extra = divmod(pairs, parts)
    counts = [2 * (base + (i < extra)) for i in range(parts)]
    counts[-1] += odd
    return counts


def random_opening(start: Any, plies: int, rng: np.random.Generator) -> tuple[Any, list[Any]]:
    """``plies`` uniformly random legal moves from ``start`` that leave the game going; re-drawn if one ends it.

    Returns the position reached and the moves. ``ValueError`` if ``start`` is over (and ``plies > 0``) or
    no such opening turns up in 100 draws.
    """
    if plies == 0:
        return start, []
    if outcome(start) is not None:
        raise ValueError(f"the {start.variant_name} start position is already over: no {plies}-ply opening")
    for _ in range(_OPENING_TRIES):
        state, moves = start, []
        for _ in range(plies):
            choices = legal_moves(state)
            moves.append(choices[int(rng.integers(len(choices)))])
            state = apply_move(state, moves[-1])
            if outcome(state) is not None:
                break
        if outcome(state) is None:
            return state, moves
    tries = f"in {_OPENING_TRIES} tries"
    raise ValueError(f"no {plies}-ply random opening of {start.variant_name} {tries} left the game going")


@dataclass
class _Game:
    """A game in progress."""

    first: Player
    second: Player
    seed: int
    opening_plies: int
    state: Any
    moves: list[Any]


def _check_arguments(variant: str, games: int, opening_plies: int, max_plies: int) -> None:
    get_game(variant)
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if opening_plies < 0:
        raise ValueError(f"opening_plies must be >= 0, got {opening_plies}")
    if not 0 <= opening_plies < max_plies:
        raise ValueError(f"opening_plies ({opening_plies}) must be below max_plies ({max_plies})")


def _new_games(
    a: Player, b: Player, variant: str, games: int, rng: np.random.Generator, opening_plies: int, max_plies: int
) -> list[_Game]:
    start = initial_state(variant, max_plies=max_plies)
    pair_seeds = rng.integers(2**63, size=(games + 1) // 2)
    out = []
    for i in range(games):
        seed = int(pair_seeds[i // 2])
        state, moves = random_opening(start, opening_plies, np.random.default_rng(seed))
        first, second = (a, b) if i % 2 == 0 else (b, a)
        out.append(_Game(first, second, seed, opening_plies, state, moves))
    return out


def _record(game: _Game, start_fen: str, variant: str) -> GameRecord:
    result = outcome(game.state)
    assert result is not None
    return GameRecord(
        variant=variant,
        first=game.first.name,
        second=game.second.name,
        seed=game.seed,
        start_fen=start_fen,
        moves=tuple(map(game_of(game.state).move_text, game.moves)),
        result=result.result(),
        termination=result.termination.value,
        opening_plies=game.opening_plies,
        max_plies=game.state.max_plies,
    )


def _move_all(player: Player, games: list[_Game], rng: np.random.Generator) -> None:
    """One batched ``player.play`` call for ``games`` (all with ``player`` to move); apply the moves."""
    moves = player.play([g.state for g in games], rng)
    if len(moves) != len(games):
        raise ValueError(f"player {player.name} returned {len(moves)} moves for {len(games)} positions")
    for game, move in zip(games, moves, strict=True):
        try:
            game.state = apply_move(game.state, move)
        except IllegalMoveError as error:
            raise IllegalMoveError(f"player {player.name}: {error}") from None
        game.moves.append(move)


def play_match(
    a: Player,
    b: Player,
    variant: str,
    games: int,
    rng: np.random.Generator,
    *,
    opening_plies: int = 4,
    max_plies: int = 150,
    progress: bool = False,
    first_round: int = 0,
    settled: Callable[[MatchResult], bool] | None = None,
) -> MatchResult:
    """Play ``games`` games of ``variant`` between ``a`` and ``b``, all concurrently; tally them from ``a``'s view.

    ``a`` moves first in even-numbered games and second in odd ones; games ``2k`` and ``2k + 1`` share one
    random opening of ``opening_plies`` plies (its seed is the record's ``seed``). Every random draw comes
    from ``rng``: the per-pair opening seeds, and one child generator per player (``rng.spawn``) passed to
    its ``play`` calls, so the same ``rng`` seed reproduces the same records. ``max_plies`` is the ply cap
    (drawn at that ply). ``progress`` shows a tqdm bar of finished games on stderr.

    With ``first_round`` (0 < ``first_round`` < ``games``) and ``settled``, the match is played in two rounds: the
    first ``first_round`` games together, and the rest together only when ``settled`` of the first round's result is
    false; otherwise the match ends there, with fewer games than ``games``. Game ``i`` starts from the same opening
    whether or not the match is played in rounds (the pair seeds are drawn first, all of them).
    """
    return play_matches(a, [b], variant, [games], [rng], opening_plies=opening_plies, max_plies=max_plies,
                        progress=progress, first_round=first_round, settled=settled)[0]  # fmt: skip


def play_matches(
    a: Player,
    opponents: Sequence[Player],
    variant: str,
    games: Sequence[int],
    rngs: Sequence[np.random.Generator],
    *,
    opening_plies: int = 4,
    max_plies: int = 150,
    progress: bool = False,
    first_round: int = 0,
    settled: Callable[[MatchResult], bool] | None = None,
) -> list[MatchResult]:
    """:func:`play_match` of ``a`` against each of ``opponents`` (``games[j]`` games from ``rngs[j]``), all the
    matches' games together: ``a`` searches every position where it is to move, in every match, in one ``play``
    call (a network's search then evaluates one batch for all of them), then each opponent moves in its own match.

    Match ``j`` plays the openings :func:`play_match` plays from ``rngs[j]``, with the same rounds (each match's
    second round only when its own first round is not ``settled``), and its opponent draws from the same stream;
    ``a``'s draws (a search's ties) all come from the first match's, so a match's games are those it plays alone
    only for an ``a`` that draws nothing; their distribution is the same. The results in the order of
    ``opponents``.
    """
    _check_matches(opponents, variant, games, rngs, opening_plies, max_plies, first_round)
    start_fen = initial_state(variant).fen()
    streams = [rng.spawn(2) for rng in rngs]
    pending = [
        _new_games(a, b, variant, count, rng, opening_plies, max_plies)
        for b, count, rng in zip(opponents, games, rngs, strict=True)
    ]
    rounds = [first_round if settled is not None and 0 < first_round < count else count for count in games]
    desc = f"{a.name} vs {', '.join(b.name for b in opponents)}"
    with tqdm(total=sum(games), desc=desc, file=sys.stderr, disable=not progress, leave=False) as bar:
        table = _Table(a, opponents, streams[0][0], [rng_b for _, rng_b in streams], pending, start_fen, variant, bar)
        table.play([(j, i) for j, first in enumerate(rounds) for i in range(first)])
        rest = [
            (j, i)
            for j, (first, count) in enumerate(zip(rounds, games, strict=True))
            if first < count and (settled is None or not settled(_result(pending[j], table.records[j])))
            for i in range(first, count)
        ]
        table.play(rest)
    return [
        dataclasses.replace(_result(match, match_records), seconds=spent)
        for match, match_records, spent in zip(pending, table.records, table.seconds, strict=True)
    ]


def _check_matches(opponents: Sequence[Player], variant: str, games: Sequence[int],
                   rngs: Sequence[np.random.Generator], opening_plies: int, max_plies: int,
                   first_round: int) -> None:  # fmt: skip
    """:func:`play_matches`'s arguments, checked before any draw."""
    if not len(opponents) == len(games) == len(rngs) > 0:
        raise ValueError(f"expected as many game counts and rngs as opponents (at least one), got "
                         f"{len(opponents)} opponents, {len(games)} counts, {len(rngs)} rngs")  # fmt: skip
    for count in games:
        _check_arguments(variant, count, opening_plies, max_plies)
    if first_round < 0:
        raise ValueError(f"first_round must be >= 0, got {first_round}")


class _Table:
    """The games of :func:`play_matches` in progress: ``pending[j][i]`` is game ``i`` of match ``j`` (``a`` against
    ``opponents[j]``), ``records[j][i]`` its record once it is over, ``seconds[j]`` the seconds match ``j``'s players
    took to move. ``a`` draws from ``rng_a``, opponent ``j`` from ``opponent_rngs[j]``."""

    def __init__(self, a: Player, opponents: Sequence[Player], rng_a: np.random.Generator,
                 opponent_rngs: list[np.random.Generator], pending: list[list[_Game]], start_fen: str, variant: str,
                 bar: tqdm) -> None:  # fmt: skip
        self.a, self.opponents, self.rng_a, self.opponent_rngs = a, opponents, rng_a, opponent_rngs
        self.pending, self.start_fen, self.variant, self.bar = pending, start_fen, variant, bar
        self.records: list[list[GameRecord | None]] = [[None] * len(match) for match in pending]
        self.seconds = [0.0] * len(opponents)

    def to_move(self, active: list[tuple[int, int]], parity: int, match: int | None) -> list[tuple[int, int]]:
        """The games of ``active`` (``(match, game)``; of ``match`` only, unless None) where the player of
        ``parity`` is to move: ``a`` (0) moves first in even games, its opponent (1) in odd ones, so a player moves
        in game i when (the first player is to move) == (i % 2 is its parity). A game that the other player's move
        just ended is skipped."""
        return [
            (j, i)
            for j, i in active
            if (match is None or j == match)
            and (self.pending[j][i].state.turn == FIRST) == (i % 2 == parity)
            and outcome(self.pending[j][i].state) is None
        ]

    def play(self, active: list[tuple[int, int]]) -> None:
        """Play the games ``active`` (``(match, game)``) to their end, all together, and record them: each step
        ``a`` moves in every match in one call, then each opponent in its own match."""
        pending, records, seconds = self.pending, self.records, self.seconds
        while active:
            if mine := self.to_move(active, 0, None):
                since = time.perf_counter()
                _move_all(self.a, [pending[j][i] for j, i in mine], self.rng_a)
                share = (time.perf_counter() - since) / len(mine)
                for j, _ in mine:
                    seconds[j] += share
            for j, b in enumerate(self.opponents):
                if theirs := self.to_move(active, 1, j):
                    since = time.perf_counter()
                    _move_all(b, [pending[j][i] for _, i in theirs], self.opponent_rngs[j])
                    seconds[j] += time.perf_counter() - since
            for j, i in active:
                if outcome(pending[j][i].state) is not None:
                    records[j][i] = _record(pending[j][i], self.start_fen, self.variant)
                    self.bar.update()
            active = [(j, i) for j, i in active if records[j][i] is None]


def _result(games: list[_Game], records: list[GameRecord | None]) -> MatchResult:
    """The tally of the finished games (those with a record) from the view of the first player of game 0."""
    wins = draws = losses = 0
    for i, game in enumerate(games):
        if records[i] is None:
            continue
        result = outcome(game.state)
        assert result is not None
        a_player = FIRST if i % 2 == 0 else -FIRST
        wins += result.winner is not None and result.winner == a_player
        losses += result.winner is not None and result.winner == -a_player
        draws += result.winner is None
    return MatchResult(wins, draws, losses, [r for r in records if r is not None])
