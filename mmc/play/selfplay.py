"""Self-play: many games searched together, training examples and replayable game records out.

``concurrent`` games share one :class:`~mmc.search.Forest` (one evaluator call per search step for all of
them); when a game ends its tree starts the next game until ``games`` have been played. Every game has its
own generator, spawned from the ``rng`` argument (its noise and its move choices), and its record names
``seed_label/index`` so a person can tell games and runs apart. Dark chess searches determinizations
(``mmc.search.dark``) and so cannot reuse subtrees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from mmc.engine import Move, State, apply_move, initial_state, outcome
from mmc.play.records import GameRecord
from mmc.search import Forest, LeafEvaluator, SearchConfig, SearchResult, result_of, search, select_move
from mmc.train.examples import ExampleBuilder, Examples

__all__ = ["SelfPlayResult", "self_play"]


@dataclass(frozen=True)
class SelfPlayResult:
    """What a batch of self-play games produced."""

    examples: list[Examples]
    """One :class:`Examples` per board size (a single one for one variant)."""
    records: list[GameRecord]
    """The games, in the order they finished."""
    plies: int
    """Moves played in total."""


@dataclass
class _Game:
    index: int
    state: State
    rng: np.random.Generator
    start_fen: str
    moves: list[str]


def self_play(
    evaluator: LeafEvaluator, variant: str, games: int, config: SearchConfig, rng: np.random.Generator, *,
    concurrent: int = 128, max_plies: int = 150, first_game_id: int = 0, player_name: str = "self",
    seed_label: str = "0", progress: bool = False,
) -> SelfPlayResult:  # fmt: skip
    """Play ``games`` games of ``variant`` with search on both sides, ``concurrent`` at a time.

    Each searched position becomes a training example (observation planes, the search's policy target, the
    final result from the side to move's view); games get ids ``first_game_id + i``, so that chunks played
    in different processes stay distinct. Root noise is on (Dirichlet, or Gumbel draws). With PUCT, moves are
    sampled with ``config.temperature`` for ``config.temperature_plies`` plies; Gumbel search plays its own
    choice (:func:`mmc.search.select_move`), its exploration being the Gumbel draws.
    """
    if games < 1 or concurrent < 1:
        raise ValueError(f"games and concurrent must be >= 1, got games={games}, concurrent={concurrent}")
    rngs = rng.spawn(games)
    builder = ExampleBuilder()
    records: list[GameRecord] = []
    slots: list[_Game | None] = []
    width = min(concurrent, games)
    start = initial_state(variant, max_plies=max_plies)
    dark = start.variant.hidden_information
    forest = None if dark else Forest(variant, width, config, max_plies)
    next_game = 0
    plies = 0
    bar = tqdm(total=games, desc=f"self-play {variant}", unit="game", disable=not progress, leave=False)

    def begin(t: int) -> _Game | None:
        nonlocal next_game
        if next_game == games:
            return None
        game = _Game(next_game, start, rngs[next_game], start.fen(), [])
        next_game += 1
        if forest is not None:
            forest.set_root(t, start)
        return game

    slots = [begin(t) for t in range(width)]
    while any(slots):
        active = [t for t, game in enumerate(slots) if game is not None]
        results = _search(forest, [slots[t] for t in active], active, evaluator, config)  # type: ignore[misc]
        for t, result in zip(active, results, strict=True):
            game = slots[t]
            assert game is not None
            builder.add(game.state, result.policy, first_game_id + game.index)
            move = select_move(result, config, game.state.ply, game.rng)
            child = apply_move(game.state, move)
            game.moves.append(move.uci())
            game.state = child
            plies += 1
            ended = outcome(child)
            if ended is None:
                _advance(forest, t, move, child)
                continue
            builder.finish_game(first_game_id + game.index, ended)
            records.append(GameRecord(
                variant, player_name, player_name, f"{seed_label}/{game.index}", game.start_fen,
                tuple(game.moves), ended.result(), ended.termination.value, 0, max_plies,
            ))  # fmt: skip
            bar.update(1)
            slots[t] = begin(t)
    bar.close()
    return SelfPlayResult(builder.build(), records, plies)


def _search(forest: Forest | None, games: Sequence[_Game], trees: list[int], evaluator: LeafEvaluator,
            config: SearchConfig) -> list[SearchResult]:  # fmt: skip
    """One search per active game: in the shared forest, or (dark chess) on fresh determinizations."""
    if forest is None:
        # search() takes one generator: seed it from every game's own, so the draws stay the games'.
        seed = np.random.default_rng([int(g.rng.integers(2**63)) for g in games])
        return search([g.state for g in games], evaluator, config, seed, add_noise=True)
    rngs: dict[int, np.random.Generator] = {t: g.rng for t, g in zip(trees, games, strict=True)}
    forest.search(np.asarray(trees), evaluator, rngs, add_noise=True)
    return [result_of(forest.root(t), config) for t in trees]


def _advance(forest: Forest | None, t: int, move: Move, child: State) -> None:
    if forest is not None:
        forest.advance(t, move, child)
