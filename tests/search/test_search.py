"""Search on positions with a known answer, its bookkeeping, and the in-tree rules against the engine's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mmc.games.chess import (
    Move,
    State,
    Termination,
    apply_move,
    from_fen,
    initial_state,
    legal_moves,
    observation_planes,
    outcome,
)
from mmc.games.chess.actions import NUM_POLICY_PLANES
from mmc.nn import NetworkConfig, build_network
from mmc.search import (
    Forest,
    LeafBatch,
    NetworkLeafEvaluator,
    RolloutEvaluator,
    RootStats,
    SearchConfig,
    _tree,
    search,
    select_move,
)

PIECE_VALUES = np.array([0, 1, 3, 3, 5, 9, 0], dtype=np.float32)


def uniform(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """Equal priors, value 0: search is then guided by finished games alone."""
    n, _, h, w = batch.planes.shape
    return np.zeros((n, NUM_POLICY_PLANES * h * w), dtype=np.float32), np.zeros(n, dtype=np.float32)


def material(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """Equal priors; value = tanh(material balance / 5) for the side to move."""
    logits, _ = uniform(batch)
    signed = np.sign(batch.boards) * PIECE_VALUES[np.abs(batch.boards)]
    balance = signed.sum(axis=1) * batch.sides
    return logits, np.tanh(balance / 5).astype(np.float32)


MATE_IN_ONE = [
    ("gardner", "2R2/p2k1/PpN2/4K/q1B2 w - - 0 20", "c1e3"),
    ("los_alamos", "r4r/p3k1/2p1Pp/N4P/PPP1nK/R2Q1R w - - 1 19", "d1d5"),
    ("atomic", "r1bqk/ppppp/n1P2/PP1PP/RNBQK w - - 1 2", "c3d4"),
]


@pytest.mark.parametrize(("variant", "fen", "mate"), MATE_IN_ONE)
@pytest.mark.parametrize("gumbel", [False, True])
def test_finds_mate_in_one(variant: str, fen: str, mate: str, gumbel: bool) -> None:
    # Gumbel considers a random subset of the moves: let it consider them all, so the answer is certain.
    config = SearchConfig(simulations=200, gumbel=gumbel, gumbel_considered=32)
    rng = np.random.default_rng(0)
    (result,) = search([from_fen(variant, fen)], uniform, config, rng)
    assert select_move(result, config, ply=99, rng=rng).uci() == mate
    assert result.q_values[[m.uci() for m in result.moves].index(mate)] == pytest.approx(1.0)


def test_pure_mcts_with_rollouts_finds_mate_in_one() -> None:
    rng = np.random.default_rng(1)
    variant, fen, mate = MATE_IN_ONE[0]
    (result,) = search([from_fen(variant, fen)], RolloutEvaluator(rng), SearchConfig(simulations=300), rng)
    assert result.moves[int(np.argmax(result.visit_counts))].uci() == mate


@pytest.mark.parametrize("gumbel", [False, True])
def test_wins_the_hanging_queen(gumbel: bool) -> None:
    state = from_fen("gardner", "k4/5/1q3/P4/4K w - - 0 1")
    config = SearchConfig(simulations=100, gumbel=gumbel)
    rng = np.random.default_rng(2)
    (result,) = search([state], material, config, rng)
    assert select_move(result, config, ply=99, rng=rng) == Move.from_uci("a2b3")


@pytest.mark.parametrize(
    "config",
    [SearchConfig(simulations=64), SearchConfig(simulations=37, gumbel=True), SearchConfig(simulations=1)],
    ids=["puct", "gumbel", "one"],
)
@pytest.mark.parametrize("variant", ["gardner", "los_alamos", "dark", "extinction"])
def test_visit_counts_sum_to_simulations(config: SearchConfig, variant: str) -> None:
    states = [initial_state(variant), apply_move(initial_state(variant), legal_moves(initial_state(variant))[0])]
    d = config.determinizations if variant == "dark" else 1
    expected = -(-config.simulations // d) * d
    for result in search(states, uniform, config, np.random.default_rng(3), add_noise=True):
        assert result.visit_counts.sum() == expected
        assert result.policy.sum() == pytest.approx(1.0, abs=1e-5)
        assert len(result.moves) == len(result.visit_counts) == len(result.policy)


def test_results_follow_legal_move_order_and_mixed_variants() -> None:
    states = [initial_state("gardner"), initial_state("los_alamos"), initial_state("atomic")]
    results = search(states, uniform, SearchConfig(simulations=16), np.random.default_rng(4))
    for state, result in zip(states, results, strict=True):
        assert result.moves == legal_moves(state)


def test_same_seed_same_search_and_noise_changes_it() -> None:
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    evaluator = NetworkLeafEvaluator(net)
    state = initial_state("gardner")
    config = SearchConfig(simulations=48)

    def run(seed: int) -> np.ndarray:
        return search([state], evaluator, config, np.random.default_rng(seed), add_noise=True)[0].visit_counts

    assert np.array_equal(run(5), run(5))
    assert any(not np.array_equal(run(5), run(s)) for s in range(6, 10))


def test_finished_game_is_refused() -> None:
    state = from_fen("gardner", "k4/1Q3/1K3/5/5 b - - 0 1")
    assert outcome(state) is not None
    with pytest.raises(ValueError, match="finished game"):
        search([state], uniform, SearchConfig(simulations=8), np.random.default_rng(0))


class Counting:
    """``material``, counting the positions it evaluates."""

    def __init__(self) -> None:
        self.positions = 0

    def __call__(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        self.positions += len(batch.planes)
        return material(batch)


def searched(state: State, config: SearchConfig, simulations: int) -> tuple[RootStats, int]:
    """A fresh tree at ``state`` after ``simulations`` simulations (no noise): its root and the positions evaluated."""
    forest = Forest(state.variant_name, 1, config, state.max_plies)
    forest.set_root(0, state)
    evaluator = Counting()
    forest.search(np.arange(1), evaluator, np.random.default_rng(0), add_noise=False, simulations=simulations)
    return forest.root(0), evaluator.positions


def test_subtree_reuse_keeps_the_chosen_child_and_tops_up() -> None:
    """After a move the chosen child's subtree is the new root's, statistics and all; the next search runs only
    the missing simulations and, with a deterministic evaluator and no noise, ends where a fresh search ends."""
    config = SearchConfig(simulations=60, dirichlet_fraction=0.0)
    state = initial_state("gardner")
    forest = Forest("gardner", 1, config, state.max_plies)
    forest.set_root(0, state)
    forest.search(np.arange(1), material, np.random.default_rng(6), add_noise=False)
    stats = forest.root(0)
    best = int(np.argmax(stats.visit_counts))
    kept = int(stats.visit_counts[best])
    assert 2 < kept < config.simulations
    n = forest.nodes
    node = n.first_child[0, 0] + best
    grandchildren = slice(n.first_child[0, node], n.first_child[0, node] + n.num_children[0, node])
    kept_visits = n.visits[0, grandchildren].copy()
    kept_values = n.value_sum[0, grandchildren].copy()
    kept_prior = n.prior[0, grandchildren].copy()
    child = apply_move(state, stats.moves[best])
    forest.advance(0, stats.moves[best], child)

    reused = forest.root(0)
    assert n.visits[0, 0] == kept
    assert reused.moves == legal_moves(child)
    assert np.array_equal(reused.visit_counts, kept_visits) and kept_visits.sum() == kept - 1
    start = n.first_child[0, 0]
    assert np.array_equal(n.value_sum[0, start : start + len(reused.moves)], kept_values)
    assert np.array_equal(reused.prior, kept_prior)
    # The kept subtree is the one a fresh search of the child with as many simulations builds.
    partial, partial_positions = searched(child, config, kept - 1)
    assert np.array_equal(reused.visit_counts, partial.visit_counts)
    assert np.allclose(reused.q_values, partial.q_values) and reused.value == pytest.approx(partial.value)

    evaluator = Counting()
    forest.search(np.arange(1), evaluator, np.random.default_rng(7), add_noise=False)
    after = forest.root(0)
    assert after.visit_counts.sum() == config.simulations
    assert np.all(after.visit_counts >= reused.visit_counts)
    # The reused tree searches on exactly as a fresh one given the same counts would allow: the top-up
    # evaluates only the positions the kept subtree lacked, and ends with the full search's statistics.
    full, full_positions = searched(child, config, config.simulations)
    assert evaluator.positions == full_positions - partial_positions
    assert np.array_equal(after.visit_counts, full.visit_counts)
    assert np.allclose(after.q_values, full.q_values) and after.value == pytest.approx(full.value)


def random_positions(variant: str, count: int, seed: int, max_plies: int = 150) -> list[State]:
    """Positions from seeded random games (skipping finished ones), repetitions included by knight shuffles."""
    rng = np.random.default_rng(seed)
    found: list[State] = []
    while len(found) < count:
        state = initial_state(variant, max_plies=max_plies)
        while outcome(state) is None and len(found) < count:
            if rng.random() < 0.3:
                found.append(state)
            moves = legal_moves(state)
            knights = [m for m in moves if abs(state.piece_at(m.from_square)) == 2 and state.piece_at(m.to_square) == 0]
            pool = knights if knights and rng.random() < 0.5 else moves
            state = apply_move(state, pool[int(rng.integers(len(pool)))])
    return found


@pytest.mark.parametrize(
    "variant", ["gardner", "baby", "mallet", "los_alamos", "atomic", "extinction", "rifle", "dark", "bichromatic"]
)
def test_tree_rules_and_planes_match_the_engine(variant: str) -> None:
    """Every child the search reaches ends (or not) exactly as ``outcome`` says, with the same value, and the
    planes the evaluator receives equal ``observation_planes`` of the engine's state."""
    states = random_positions(variant, 40, seed=11, max_plies=40)
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    def recording(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        seen.extend(zip(batch.planes.copy(), batch.boards.copy(), strict=True))
        return uniform(batch)

    config = SearchConfig(simulations=1, c_puct=1e6)  # exploration dominates: each child is visited once
    for state in states:
        forest = Forest(variant, 1, config, state.max_plies)
        forest.set_root(0, state)
        seen.clear()
        moves = legal_moves(state)
        forest.search(np.arange(1), recording, np.random.default_rng(0), add_noise=False, simulations=len(moves))
        assert np.array_equal(seen[0][0], observation_planes(state)), state
        children = {bytes(board.tobytes()): planes for planes, board in seen[1:]}
        n, s = forest.nodes, forest.slots
        start = n.first_child[0, 0]
        for j, move in enumerate(moves):
            child = apply_move(state, move)
            slot = n.slot[0, start + j]
            assert slot >= 0, f"child {move.uci()} never visited"
            result = outcome(child)
            if result is None:
                assert s.terminal[0, slot] == _tree.ONGOING, (child, move.uci())
                assert np.array_equal(children[child.board], observation_planes(child)), (child, move.uci())
            else:
                assert s.terminal[0, slot] == _tree.TERMINAL, (child, result)
                expected = 0.0 if result.winner is None else (1.0 if result.winner == child.turn else -1.0)
                assert s.terminal_value[0, slot] == expected, (child, result)


def test_completed_q_mixes_unvisited_actions_and_rescales() -> None:
    """mctx's completed Q: unvisited actions take the mixed value, then min-max to [0, 1]."""
    visits = np.array([2, 0, 1], dtype=np.int32)
    q = np.array([0.5, 0.0, -0.5])
    prior = np.array([0.5, 0.25, 0.25], dtype=np.float32)
    # mixed = (raw + 3 * (0.5 * 0.5 + 0.25 * -0.5) / 0.75) / 4 = 0.125
    assert np.allclose(_tree.completed_q(visits, q, prior, 0.0), [1.0, 0.625, 0.0])


def test_gumbel_sampling_draws_self_play_moves_from_the_improved_policy() -> None:
    config = SearchConfig(simulations=16, gumbel=True, gumbel_considered=4, temperature_plies=4)
    (result,) = search([initial_state("gardner")], material, config, np.random.default_rng(0), add_noise=True)
    own = {select_move(result, config, ply=0, rng=np.random.default_rng(s)).uci() for s in range(50)}
    assert len(own) == 1, "without gumbel_sampling the search's own choice is played"
    sampling = replace(config, gumbel_sampling=True)
    draws = [select_move(result, sampling, ply=0, rng=np.random.default_rng(s)).uci() for s in range(4000)]
    names = [m.uci() for m in result.moves]
    counts = np.array([draws.count(n) for n in names])
    np.testing.assert_allclose(counts / len(draws), result.policy, atol=0.03)  # improved policy at temperature 1
    late = {select_move(result, sampling, ply=4, rng=np.random.default_rng(s)).uci() for s in range(50)}
    assert late == own, "after temperature_plies the search's choice again"
    cold = replace(sampling, temperature=0.25)
    sharp = [select_move(result, cold, ply=0, rng=np.random.default_rng(s)).uci() for s in range(2000)]
    best = names[int(np.argmax(result.policy))]
    assert sharp.count(best) > draws.count(best) * 2000 / 4000, "a lower temperature sharpens the sample"


def test_a_stalemate_is_a_draw_to_the_search_and_the_mate_beside_it_a_win() -> None:
    # White to move: Qb4 mates, Qc4 stalemates the bare king (the ending the experts fell into).
    state = from_fen("gardner", "k4/3Q1/1K3/5/5 w - - 0 1")
    config = SearchConfig(simulations=400, gumbel=True, gumbel_considered=64)  # every move visited
    (result,) = search([state], uniform, config, np.random.default_rng(0))
    q = dict(zip([m.uci() for m in result.moves], result.q_values.tolist(), strict=True))
    visits = dict(zip([m.uci() for m in result.moves], result.visit_counts.tolist(), strict=True))
    assert visits["d4c4"] > 0 and visits["d4b4"] > 0
    assert q["d4b4"] == pytest.approx(1.0) and q["d4c4"] == pytest.approx(0.0)
    puct = SearchConfig(simulations=400)
    (result,) = search([state], uniform, puct, np.random.default_rng(0))
    played = select_move(result, puct, ply=99, rng=np.random.default_rng(0))
    assert outcome(apply_move(state, played)).termination is Termination.CHECKMATE  # type: ignore[union-attr]
