"""Dark chess end to end: every player decides from the mover's view alone.

Twin positions look the same to the side to move (equal ``observe`` and equal input planes) and differ in
what it cannot see: where the opponent's unseen pieces stand (a board from ``sample_boards``) and the past
boards of the game (a twin is built from a FEN, so it has no history). Given the same seed, every player must
choose the same moves in both, and give exactly the same distribution where it exposes one (a policy's
priors, a search's visit counts). A pair that differs in what the mover sees must change something, so the
comparison can fail. ``tests/search/test_dark.py`` checks the search alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from mmc.games.chess import Move, State, apply_move, from_fen, legal_moves, observation_planes
from mmc.games.chess.dark import observe, sample_boards
from mmc.games.chess.state import _array
from mmc.nn import NetworkConfig, build_network, save_checkpoint
from mmc.play import GreedyPlayer, Player, PolicyPlayer, parse_player
from mmc.play.search_players import MCTSPlayer
from mmc.search import NetworkLeafEvaluator, RolloutEvaluator, SearchConfig, search
from tests.games.chess.test_dark import with_board
from tests.search.test_search import random_positions

SEEDS = range(8)
PLAYERS = ("random", "greedy", "mcts:25", "net", "net-gumbel", "policy", "policy-sampling")

SHUFFLED = "2n1k/5/5/5/KRN2 w - - 0 1"
"""White a rook up; the knights shuffle until Black's ``a4c5`` would repeat the start a third time."""
SHUFFLE = "c1e2 c5a4 e2c1 a4c5 c1e2 c5a4 e2c1"


@pytest.fixture(scope="module")
def players(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Player]:
    """Every kind of player that can play dark chess, the network ones on a small untrained network."""
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    checkpoint = save_checkpoint(net, net.config, tmp_path_factory.mktemp("dark") / "net.pt")
    config = SearchConfig(simulations=16, determinizations=4)
    specs = {
        "random": "random",
        "greedy": "greedy",
        "mcts:25": "mcts:25",
        "net-gumbel": f"net:{checkpoint}:sims=16:gumbel=1",
        "policy": f"policy:{checkpoint}",
        "policy-sampling": f"policy:{checkpoint}:temperature=1",
    }
    built = {name: parse_player(spec, variant="dark") for name, spec in specs.items()}
    built["net"] = MCTSPlayer(NetworkLeafEvaluator(net), config, name="net")
    return built


def shuffled() -> State:
    """Black to move, a rook down, where ``a4c5`` repeats the position a third time (a draw)."""
    state = from_fen("dark", SHUFFLED)
    for uci in SHUFFLE.split():
        state = apply_move(state, Move.from_uci(uci))
    return state


@pytest.fixture(scope="module")
def twins() -> list[tuple[State, State]]:
    """Pairs that look the same to the mover: random positions beside a sampled board, and the knight shuffle
    beside the same board without its history."""
    rng = np.random.default_rng(0)
    pairs = []
    for state in random_positions("dark", 10, seed=17):
        board = sample_boards(observe(state), 1, rng)[0]
        if not np.array_equal(board, _array(state)):
            pairs.append((state, with_board(state, board)))
    state = shuffled()
    pairs.append((state, with_board(state, _array(state))))
    return pairs


def exposed(player: Player, states: Sequence[State], seed: int) -> list[np.ndarray]:
    """What ``player`` decides from, where it shows it: a policy's priors and values, or the search it runs in
    ``play`` (same evaluator, config and rng); nothing for random and greedy."""
    if isinstance(player, PolicyPlayer):
        priors, values = player.evaluator(states)
        return [*priors, values]
    if isinstance(player, MCTSPlayer):
        rng = np.random.default_rng(seed)
        evaluator = player.evaluator or RolloutEvaluator(rng, player.rollout_plies)
        out = []
        for r in search(states, evaluator, player.config, rng):
            moves = np.array([m.code for m in r.moves])
            out += [moves, r.visit_counts, r.policy, r.prior, r.q_values, r.gumbel, np.array([r.value])]
        return out
    return []


def differences(player: Player, states: Sequence[State], others: Sequence[State]) -> list[str]:
    """Where ``player`` behaves differently in ``states`` and ``others`` (played as one batch each)."""
    found = []
    for seed in SEEDS:
        moves = player.play(states, np.random.default_rng(seed))
        other = player.play(others, np.random.default_rng(seed))
        pairs = zip(states, moves, other, strict=True)
        found += [f"seed {seed}: {a.uci()} vs {b.uci()} in {s!r}" for s, a, b in pairs if a != b]
    mine, theirs = exposed(player, states, 0), exposed(player, others, 0)
    if len(mine) != len(theirs):
        return [*found, f"{len(mine)} vs {len(theirs)} exposed arrays"]
    for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        if a.shape != b.shape or not np.array_equal(a, b):
            found.append(f"exposed array {i}: {a} vs {b}")
    return found


def test_twins_look_the_same_to_the_mover(twins: list[tuple[State, State]]) -> None:
    assert len(twins) >= 6
    for state, twin in twins:
        for mine, theirs in zip(observe(state), observe(twin), strict=True):
            assert np.array_equal(mine, theirs), (state, twin)
        assert np.array_equal(observation_planes(state), observation_planes(twin))
        assert legal_moves(state) == legal_moves(twin)
        assert state.board != twin.board or state.history != twin.history


@pytest.mark.parametrize("name", PLAYERS)
def test_player_decides_from_the_mover_view_alone(
    name: str, players: dict[str, Player], twins: list[tuple[State, State]]
) -> None:
    states, others = zip(*twins, strict=True)
    assert differences(players[name], states, others) == []


def test_greedy_does_not_foresee_a_repetition_it_cannot_see() -> None:
    """Behind in material, greed scoring the true outcome would always draw by ``a4c5``: it saw the past boards."""
    state = shuffled()
    picks = {GreedyPlayer().play([state], np.random.default_rng(seed))[0].uci() for seed in SEEDS}
    assert len(picks) > 1


def test_a_pair_that_looks_different_is_told_apart(players: dict[str, Player]) -> None:
    """Negative control: the black queen on a3, seen and taken by the rook, or out of sight on c4."""
    seen = from_fen("dark", "4k/5/q4/5/R3K w - - 0 1")
    unseen = from_fen("dark", "4k/2q2/5/5/R3K w - - 0 1")
    assert not np.array_equal(observe(seen).seen_board, observe(unseen).seen_board)
    assert not np.array_equal(observation_planes(seen), observation_planes(unseen))
    for name in PLAYERS:
        assert differences(players[name], [seen], [unseen]), name
