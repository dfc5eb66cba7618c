"""Self-play: many games searched together, training examples and replayable game records out.

``concurrent`` games share one :class:`~mmc.search.Forest` (one evaluator call per search step for all of
them); when a game ends its tree starts the next game until ``games`` have been played. Every game has its
own generator, spawned from the ``rng`` argument (its noise and its move choices), and its record names
``seed_label/index`` so a person can tell games and runs apart. A variant with hidden information (dark chess)
searches determinizations (``Game.determinize``) and so cannot reuse subtrees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from tqdm import tqdm

from mmc.games import Game, Outcome, get_game
from mmc.play.curriculum import self_play_start
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
    """Moves searched and played in total (random opening plies and a weak defence's moves excluded)."""


@dataclass
class _Game:
    index: int
    state: Any
    rng: np.random.Generator
    start_fen: str
    moves: list[str]
    opening_plies: int = 0
    """Random plies at the start of ``moves`` (``SearchConfig.random_opening_plies``), neither searched nor examples."""
    examples: int = 0
    """Positions recorded as training examples (all of them, unless playout caps are randomised)."""
    weak: bool = False
    """A weak-defence game (``SearchConfig.weak_defence``): once a search values the position at
    ``weak_defence_value`` for its mover, the other side plays at random."""
    defender: int = 0
    """The player who plays at random from now on (+1 the first, -1 the second), 0 while both search."""


def self_play(
    evaluator: LeafEvaluator, variant: str, games: int, config: SearchConfig, rng: np.random.Generator, *,
    concurrent: int = 128, max_plies: int = 150, first_game_id: int = 0, player_name: str = "self",
    seed_label: str = "0", progress: bool = False,
) -> SelfPlayResult:  # fmt: skip
    """Play ``games`` games of ``variant`` with search on both sides, ``concurrent`` at a time.

    Each searched position becomes a training example (observation planes, the search's policy target, the
    final result and the search's value, both from the side to move's view, the plies to the end) -- each
    fully searched one, when ``config.fast_simulations`` randomises the playout cap (KataGo); games get ids
    ``first_game_id + i``, so that chunks played in different processes stay distinct. Root noise is on
    (Dirichlet, or Gumbel draws). With PUCT, moves are sampled with ``config.temperature`` for
    ``config.temperature_plies`` plies; Gumbel search plays its own choice (:func:`mmc.search.select_move`), its
    exploration being the Gumbel draws, or with ``config.gumbel_sampling`` a sample of its improved policy.
    A game begins where ``mmc.play.curriculum.self_play_start`` says: after ``config.random_opening_plies``
    random plies (in its record, not in its examples), or from an endgame (``config.endgame_starts``; the record
    starts from its FEN). In a fraction ``config.weak_defence`` of the games (a draw from the game's generator,
    only while that is on), once a full search values its position at ``config.weak_defence_value`` or more, the
    mover's opponent plays uniformly random legal moves to the end: unsearched, no examples, named
    ``{player_name}/random`` in the record.
    """
    _check_arguments(games, concurrent, config, max_plies)
    game = get_game(variant)
    rngs = rng.spawn(games)
    builder = ExampleBuilder()
    records: list[GameRecord] = []
    width = min(concurrent, games)
    start = game.initial_state(variant, max_plies=max_plies)
    dark = game.variants[variant].hidden_information
    forest = None if dark else Forest(variant, width, config, max_plies)
    queue = iter(range(games))
    plies = 0
    bar = tqdm(total=games, desc=f"self-play {variant}", unit="game", disable=not progress, leave=False)

    def begin(t: int) -> _Game | None:
        """The next game, on tree ``t``; None once every game has begun."""
        index = next(queue, None)
        if index is None:
            return None
        playing = _start_game(game, start, config, index, rngs[index])
        if forest is not None:
            forest.set_root(t, playing.state)
        return playing

    slots = [begin(t) for t in range(width)]
    while any(slots):
        live = {t: g for t, g in enumerate(slots) if g is not None}
        searched = _search_step(forest, live, evaluator, config)
        for t, playing in live.items():
            if t not in searched:  # the weak defence's move
                choices = game.legal_moves(playing.state)
                move = choices[int(playing.rng.integers(len(choices)))]
            else:
                move = _searched_move(playing, *searched[t], config, builder, first_game_id)
                plies += 1
            child = game.apply_move(playing.state, move)
            playing.moves.append(game.move_text(move))
            playing.state = child
            ended = game.outcome(child)
            if ended is None:
                _advance(forest, t, move, child)
                continue
            if playing.examples:
                builder.finish_game(first_game_id + playing.index, ended, child.ply)
            records.append(_record(playing, ended, variant, player_name, seed_label, max_plies))
            bar.update(1)
            slots[t] = begin(t)
    bar.close()
    return SelfPlayResult(builder.build(), records, plies)


def _check_arguments(games: int, concurrent: int, config: SearchConfig, max_plies: int) -> None:
    if games < 1 or concurrent < 1:
        raise ValueError(f"games and concurrent must be >= 1, got games={games}, concurrent={concurrent}")
    if config.random_opening_plies >= max_plies:
        raise ValueError(
            f"SearchConfig.random_opening_plies must be < max_plies={max_plies}, got {config.random_opening_plies}"
        )


def _start_game(game: Game, start: Any, config: SearchConfig, index: int, rng: np.random.Generator) -> _Game:
    """Game ``index`` from where ``self_play_start`` says, and whether it is a weak-defence game: both drawn from
    the game's own generator ``rng``, in that order."""
    state, opening = self_play_start(start, config, rng)
    first_fen = start.fen() if opening else state.fen()
    weak = bool(config.weak_defence) and bool(rng.random() < config.weak_defence)
    return _Game(index, state, rng, first_fen, list(map(game.move_text, opening)), len(opening), weak=weak)


def _search_step(forest: Forest | None, live: dict[int, _Game], evaluator: LeafEvaluator,
                 config: SearchConfig) -> dict[int, tuple[SearchResult, bool]]:  # fmt: skip
    """One search of every game in play (``live``, by tree) whose mover searches (not a weak defence's): by tree,
    its result and whether it was a full search (each game's coin flip drawn first, in tree order)."""
    searching = [t for t, playing in live.items() if not _defends(playing)]
    games_now = [live[t] for t in searching]
    full = [_full_search(g, config) for g in games_now]
    found = _search(forest, games_now, searching, full, evaluator, config) if searching else []
    return dict(zip(searching, zip(found, full, strict=True), strict=True))


def _searched_move(playing: _Game, result: SearchResult, searched_fully: bool, config: SearchConfig,
                   builder: ExampleBuilder, first_game_id: int) -> Any:  # fmt: skip
    """The move a search chose (``select_move``); a full search's position becomes a training example first, and
    may start the weak defence (its value at ``config.weak_defence_value`` or more for the mover)."""
    if searched_fully:
        playing.examples += 1
        value = min(max(result.value, -1.0), 1.0)
        builder.add(playing.state, result.policy, first_game_id + playing.index, value)
        if playing.weak and not playing.defender and value >= config.weak_defence_value:
            playing.defender = -int(playing.state.turn)
    return select_move(result, config, playing.state.ply, playing.rng)


def _record(playing: _Game, ended: Outcome, variant: str, player_name: str, seed_label: str,
            max_plies: int) -> GameRecord:  # fmt: skip
    """A finished game's record: its players ``player_name`` (``{player_name}/random`` for a weak defender), its
    seed ``seed_label/index``."""
    first, second = (f"{player_name}/random" if playing.defender == side else player_name for side in (1, -1))
    return GameRecord(
        variant, first, second, f"{seed_label}/{playing.index}", playing.start_fen, tuple(playing.moves),
        ended.result(), ended.termination.value, playing.opening_plies, max_plies,
    )  # fmt: skip


def _defends(playing: _Game) -> bool:
    """Whether ``playing``'s next move is its weak defence's: uniformly random, unsearched."""
    return playing.defender != 0 and int(playing.state.turn) == playing.defender


def _full_search(game: _Game, config: SearchConfig) -> bool:
    """Whether this move gets the full search (always, unless playout caps are randomised: then a coin flip
    from the game's generator)."""
    return config.fast_simulations == 0 or bool(game.rng.random() < config.full_search_fraction)


def _search(forest: Forest | None, games: Sequence[_Game], trees: list[int], full: list[bool],
            evaluator: LeafEvaluator, config: SearchConfig) -> list[SearchResult]:  # fmt: skip
    """One search per active game: in the shared forest, or (dark chess) on fresh determinizations. A full
    search has ``config.simulations`` and root noise, a fast one ``config.fast_simulations`` and none."""
    if forest is None:
        results: dict[int, SearchResult] = {}
        for fully in (True, False):
            part = [i for i, f in enumerate(full) if f == fully]
            if not part:
                continue
            # search() takes one generator: seed it from every game's own, so the draws stay the games'.
            seed = np.random.default_rng([int(games[i].rng.integers(2**63)) for i in part])
            part_config = config if fully else replace(config, simulations=config.fast_simulations, fast_simulations=0)
            found = search([games[i].state for i in part], evaluator, part_config, seed, add_noise=fully)
            results.update(zip(part, found, strict=True))
        return [results[i] for i in range(len(games))]
    rngs: dict[int, np.random.Generator] = {t: g.rng for t, g in zip(trees, games, strict=True)}
    full_mask = np.asarray(full, dtype=np.bool_)
    simulations = np.where(full_mask, config.simulations, config.fast_simulations)
    forest.search(np.asarray(trees), evaluator, rngs, add_noise=full_mask, simulations=simulations)
    return [result_of(forest.root(t), config) for t in trees]


def _advance(forest: Forest | None, t: int, move: Any, child: Any) -> None:
    if forest is not None:
        forest.advance(t, move, child)
