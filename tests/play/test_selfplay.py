"""Self-play: distinct seeded games, examples that match the games, records a person can replay."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mmc.evaluation.evaluate import EvaluateConfig
from mmc.games import get_game
from mmc.games.chess import Move, Termination, apply_move, from_fen, initial_state, legal_moves, outcome
from mmc.nn import NetworkConfig, build_network, save_checkpoint
from mmc.play import RandomPlayer, parse_player, play_match, replay
from mmc.play.search_players import MCTSPlayer
from mmc.play.selfplay import self_play
from mmc.search import NetworkLeafEvaluator, SearchConfig


@pytest.fixture(scope="module")
def evaluator() -> NetworkLeafEvaluator:
    return NetworkLeafEvaluator(build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0))


@pytest.mark.parametrize("variant", ["gardner", "dark", "los_alamos", "chess"])
@pytest.mark.parametrize("gumbel", [False, True])
def test_examples_match_the_games(evaluator: NetworkLeafEvaluator, variant: str, gumbel: bool) -> None:
    config = SearchConfig(simulations=8, gumbel=gumbel, gumbel_considered=4, determinizations=2)
    result = self_play(evaluator, variant, 6, config, np.random.default_rng(0), concurrent=4, max_plies=30,
                       first_game_id=100, seed_label="s")  # fmt: skip
    (examples,) = result.examples
    assert len(result.records) == 6
    assert len(examples) == result.plies == sum(len(r.moves) for r in result.records)
    assert sorted(set(examples.game_id.tolist())) == list(range(100, 106))
    assert np.allclose(examples.policy.sum(axis=(1, 2, 3)), 1.0, atol=1e-5)
    assert not (examples.policy * ~examples.legal).any()
    for record in result.records:
        states = replay(record)  # raises if a move is illegal or the result disagrees
        game = int(record.seed.split("/")[1]) + 100  # type: ignore[union-attr]
        rows = np.flatnonzero(examples.game_id == game)
        assert examples.ply[rows].tolist() == list(range(len(record.moves)))
        final = states[-1]
        winner = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}[record.result]
        turns = [int(s.turn) for s in states[:-1]]
        assert examples.value[rows].tolist() == [float(winner * t) for t in turns]
        assert examples.plies_left[rows].tolist() == [len(record.moves) - p for p in range(len(record.moves))]
        assert final.variant_name == variant


@pytest.mark.slow  # 2 s
def test_games_are_distinct_and_seeded(evaluator: NetworkLeafEvaluator) -> None:
    config = SearchConfig(simulations=8)
    a = self_play(evaluator, "gardner", 8, config, np.random.default_rng(1), concurrent=8, max_plies=40)
    b = self_play(evaluator, "gardner", 8, config, np.random.default_rng(1), concurrent=3, max_plies=40)
    c = self_play(evaluator, "gardner", 8, config, np.random.default_rng(2), concurrent=8, max_plies=40)
    games = {r.moves for r in a.records}
    assert len(games) == 8, "every game differs from the others"
    key = sorted((r.seed, r.moves) for r in a.records)
    assert key == sorted((r.seed, r.moves) for r in b.records), "same seed, same games, however many run together"
    assert games != {r.moves for r in c.records}


def test_search_players_play_legal_moves_in_batches(tmp_path: Path) -> None:
    config = NetworkConfig(game="chess", blocks=1, filters=8)
    path = save_checkpoint(build_network(config, seed=0), config, tmp_path / "net.pt")
    states = [initial_state("gardner"), initial_state("atomic"), initial_state("dark")]
    for spec in ["mcts:16", f"net:{path}:sims=8", f"net:{path}:sims=8:gumbel=1", f"net:{path}:sims=8:solver=1"]:
        player = parse_player(spec, variant="gardner")
        assert isinstance(player, MCTSPlayer)
        assert player.name == spec
        moves = player.play(states, np.random.default_rng(0))
        assert all(isinstance(m, Move) and m in legal_moves(s) for s, m in zip(states, moves, strict=True))


def test_a_fresh_network_searches_a_few_plies_of_chess(tmp_path: Path) -> None:
    """The network of the 5x5 studies plays 8x8 chess through the same search: ``mcts`` and ``net`` players."""
    config = NetworkConfig(game="chess", blocks=1, filters=8)
    path = save_checkpoint(build_network(config, seed=0), config, tmp_path / "net.pt")
    net = parse_player(f"net:{path}:sims=8", variant="chess")
    result = play_match(net, parse_player("mcts:8", variant="chess"), "chess", 2, np.random.default_rng(0),
                        opening_plies=0, max_plies=6)  # fmt: skip
    assert [len(record.moves) for record in result.records] == [6, 6]
    for record in result.records:
        assert replay(record)[-1].variant_name == "chess"  # every move legal


def test_the_net_players_solver_option_plays_a_mate_in_one_an_untrained_network_misses(tmp_path: Path) -> None:
    """``net:PATH:solver=1`` searches with MCTS-Solver (``SearchConfig.solver``): a fresh network at 8 simulations
    finds the queen's mate only with it."""
    config = NetworkConfig(game="chess", blocks=1, filters=8)
    path = save_checkpoint(build_network(config, seed=0), config, tmp_path / "net.pt")
    state = from_fen("gardner", "k4/3Q1/1K3/5/5 w - - 0 1")
    ends = {m: outcome(apply_move(state, m)) for m in legal_moves(state)}
    mates = {m for m, end in ends.items() if end and end.termination is Termination.CHECKMATE}
    plain, solver = (parse_player(f"net:{path}:sims=8:solver={flag}", variant="gardner") for flag in (0, 1))
    assert isinstance(solver, MCTSPlayer) and solver.config.solver and not plain.config.solver
    assert solver.play([state] * 4, np.random.default_rng(0))[0] in mates
    assert plain.play([state], np.random.default_rng(0))[0] not in mates


def test_the_net_players_moves_left_option_searches_with_the_head_and_needs_one(tmp_path: Path) -> None:
    plain_config = NetworkConfig(game="chess", blocks=1, filters=8)
    headed_config = NetworkConfig(game="chess", blocks=1, filters=8, moves_left=True)
    plain = save_checkpoint(build_network(plain_config, seed=0), plain_config, tmp_path / "plain.pt")
    headed = save_checkpoint(build_network(headed_config, seed=0), headed_config, tmp_path / "headed.pt")
    player = parse_player(f"net:{headed}:sims=8:moves_left=0.02", variant="gardner")
    assert isinstance(player, MCTSPlayer) and player.config.moves_left_slope == 0.02
    state = initial_state("gardner")
    assert player.play([state], np.random.default_rng(0))[0] in legal_moves(state)
    with pytest.raises(ValueError, match=r"moves_left=0\.02 needs a network with the moves-left head"):
        parse_player(f"net:{plain}:sims=8:moves_left=0.02", variant="gardner")
    for bad in ("x", "-0.1", "2"):
        with pytest.raises(ValueError, match="moves_left must be a number in"):
            parse_player(f"net:{headed}:moves_left={bad}", variant="gardner")


@pytest.mark.parametrize(
    "spec", ["mcts", "mcts:0", "mcts:x", "net", "net:p.pt:sims=0", "net:p.pt:depth=3", "net:p.pt:solver=2"]
)
def test_search_player_specs_are_checked(spec: str) -> None:
    with pytest.raises(ValueError, match="player"):
        parse_player(spec, variant="gardner")


@pytest.mark.slow  # 2 s
def test_pure_mcts_beats_random() -> None:
    result = play_match(parse_player("mcts:64", variant="gardner"), RandomPlayer(), "gardner", 10,
                        np.random.default_rng(3))  # fmt: skip
    assert result.wins >= 9, result


def test_examples_carry_the_root_search_value(evaluator: NetworkLeafEvaluator) -> None:
    """Each row's search value is the root value of the search that chose its move: a mate in one is +1."""
    config = SearchConfig(simulations=16)
    result = self_play(evaluator, "gardner", 4, config, np.random.default_rng(3), concurrent=4, max_plies=40)
    (examples,) = result.examples
    assert np.all(np.abs(examples.search_value) <= 1)
    assert np.std(examples.search_value) > 0
    assert not np.array_equal(examples.search_value, examples.value)


@pytest.mark.slow  # 2-4 s a case
@pytest.mark.parametrize("variant", ["gardner", "dark"])
def test_playout_cap_randomisation_keeps_only_fully_searched_positions(
    evaluator: NetworkLeafEvaluator, variant: str
) -> None:
    """With fast searches on about half the moves, every game is still played and recorded, but only the
    positions searched fully (``simulations`` visits at the root) become examples."""
    config = SearchConfig(simulations=12, fast_simulations=5, full_search_fraction=0.5, reuse_tree=False,
                          determinizations=1)  # fmt: skip
    result = self_play(evaluator, variant, 8, config, np.random.default_rng(4), concurrent=4, max_plies=40)
    rows = sum(len(e) for e in result.examples)
    assert len(result.records) == 8 and result.plies == sum(len(r.moves) for r in result.records)
    assert 0.3 * result.plies < rows < 0.7 * result.plies
    (examples,) = result.examples
    for record in result.records:
        game = int(record.seed.split("/")[1])  # type: ignore[union-attr]
        plies = examples.ply[examples.game_id == game]
        assert np.all(np.diff(plies) > 0) and np.all(plies < len(record.moves))
        np.testing.assert_array_equal(examples.plies_left[examples.game_id == game], len(record.moves) - plies)
    # a full search's target is its visit counts / 12 (a fast one's, counts / 5, seldom all multiples of 1/12)
    visits = examples.policy.reshape(len(examples), -1) * 12
    assert np.allclose(visits, np.round(visits), atol=1e-4)
    off = self_play(evaluator, variant, 8, SearchConfig(simulations=12, reuse_tree=False, determinizations=1),
                    np.random.default_rng(4), concurrent=4, max_plies=40)  # fmt: skip
    assert sum(len(e) for e in off.examples) == off.plies


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"fast_simulations": 12}, r"fast_simulations must be < simulations=12"),
        ({"fast_simulations": 4, "gumbel": True}, r"fast_simulations playout caps are randomised for PUCT"),
        ({"full_search_fraction": 0.0}, r"full_search_fraction must be in \(0, 1\]"),
        ({"full_search_fraction": 1.5}, r"full_search_fraction must be in \(0, 1\]"),
    ],
)
def test_playout_cap_settings_are_checked(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchConfig(simulations=12, **changes)  # type: ignore[arg-type]


@pytest.mark.slow  # 3-4 s a case
@pytest.mark.parametrize("variant", ["gardner", "jump_6x6"])
def test_a_weak_defence_plays_at_random_once_the_search_sees_a_win(variant: str) -> None:
    """Issue 34: in a weak-defence game, from the first full search that values its position at
    ``weak_defence_value`` or more, the mover's opponent plays at random: its moves are neither searched nor
    examples, the searching side's rows go on to the end with the game's result, and the record names the
    defender (the jump game's hop chains: a player may move several plies in a row)."""
    game = get_game(variant).name
    evaluator = NetworkLeafEvaluator(build_network(NetworkConfig.for_game(game, blocks=1, filters=8), seed=0))
    config = SearchConfig(simulations=8, solver=True, weak_defence=1.0, weak_defence_value=0.05)
    result = self_play(evaluator, variant, 12, config, np.random.default_rng(5), concurrent=6, max_plies=60)
    (examples,) = result.examples
    assert len(examples) == result.plies < sum(len(r.moves) for r in result.records), "the defence is not searched"
    defended = 0
    for record in result.records:
        states = replay(record)
        rows = np.flatnonzero(examples.game_id == int(record.seed.split("/")[1]))  # type: ignore[union-attr]
        values = examples.search_value[rows]
        if not (values >= 0.05).any():
            assert (record.first, record.second) == ("self", "self"), "no search saw a win: both sides searched"
            assert len(rows) == len(record.moves)
            continue
        defended += 1
        switch = int(np.argmax(values >= 0.05))  # the first search at the threshold hands the defence to random
        searcher = int(states[switch].turn)  # (rows and positions agree up to it: both sides searched until then)
        assert (record.first, record.second) == (("self", "self/random") if searcher == 1 else ("self/random", "self"))
        later = [i for i in range(switch + 1, len(record.moves)) if int(states[i].turn) == searcher]
        searched = list(range(switch + 1)) + later
        assert examples.ply[rows].tolist() == [states[i].ply for i in searched]
        winner = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}[record.result]
        assert examples.value[rows].tolist() == [float(winner * int(states[i].turn)) for i in searched]
    assert defended >= 3, "the low threshold hands most games to the weak defence"


def test_the_weak_defence_is_self_play_only() -> None:
    with pytest.raises(ValueError, match=r"search\.weak_defence is self-play only"):
        EvaluateConfig(search=SearchConfig(weak_defence=0.5))
    with pytest.raises(ValueError, match=r"SearchConfig\.weak_defence_value must be in \(0, 1\]"):
        SearchConfig(weak_defence_value=0.0)
