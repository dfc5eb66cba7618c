"""Players: one legal move per state in a batch, greed, policy argmax/sampling, the human prompt, player specs."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from mmc.games.chess import State, apply_move, from_fen, initial_state, legal_moves, outcome
from mmc.nn import NetworkConfig, NetworkEvaluator, build_network, save_checkpoint
from mmc.play import (
    PLAYER_KINDS,
    GreedyPlayer,
    HumanPlayer,
    Player,
    PlayerKind,
    PolicyPlayer,
    RandomPlayer,
    Resign,
    parse_player,
    register_player,
)

VARIANTS = ("gardner", "los_alamos", "atomic", "extinction", "rifle", "dark", "bichromatic")


def positions(seed: int = 0) -> list[State]:
    """A few positions per variant, reached by random play (games not over)."""
    rng = np.random.default_rng(seed)
    out = []
    for variant in VARIANTS:
        for plies in (0, 3, 8):
            state = initial_state(variant)
            for _ in range(plies):
                moves = legal_moves(state)
                after = apply_move(state, moves[int(rng.integers(len(moves)))])
                if outcome(after) is not None:
                    break
                state = after
            out.append(state)
    return out


def tiny_evaluator() -> NetworkEvaluator:
    return NetworkEvaluator(build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0))


def scripted(answers: list[str]) -> HumanPlayer:
    replies = iter(answers)
    return HumanPlayer(input_fn=lambda prompt: next(replies), output=io.StringIO())


def test_every_player_returns_one_legal_move_per_state_in_a_batch() -> None:
    states = positions()
    evaluator = tiny_evaluator()
    players: list[Player] = [RandomPlayer(), GreedyPlayer(), PolicyPlayer(evaluator), PolicyPlayer(evaluator, 1.0)]
    players.append(scripted([legal_moves(s)[-1].uci() for s in states]))
    for player in players:
        moves = player.play(states, np.random.default_rng(0))
        assert len(moves) == len(states), player.name
        assert all(m in legal_moves(s) for s, m in zip(states, moves, strict=True)), player.name
        assert player.play([], np.random.default_rng(0)) == []


def test_random_differs_across_seeds_and_repeats_with_a_seed() -> None:
    states = positions()
    by_seed = [tuple(RandomPlayer().play(states, np.random.default_rng(seed))) for seed in range(3)]
    assert len(set(by_seed)) == 3
    assert tuple(RandomPlayer().play(states, np.random.default_rng(1))) == by_seed[1]


def test_greedy_takes_the_queen_whatever_the_rng() -> None:
    # White may take a pawn with the rook (a1xa2) or the queen with the pawn (c3xd4).
    state = from_fen("gardner", "k4/3q1/2P2/p4/R3K w - - 0 1")
    picks = {GreedyPlayer().play([state], np.random.default_rng(seed))[0].uci() for seed in range(20)}
    assert picks == {"c3d4"}


def test_greedy_in_atomic_counts_what_the_explosion_costs_its_own_side() -> None:
    # c2xd3 takes the queen but its blast also removes White's queen on e2 (net -1 against a quiet move);
    # c2xb3 takes the rook and loses only the pawn (net +4).
    state = from_fen("atomic", "k4/5/1rpq1/2P1Q/4K w - - 0 1")
    picks = {GreedyPlayer().play([state], np.random.default_rng(seed))[0].uci() for seed in range(20)}
    assert picks == {"c2b3"}


def test_greedy_takes_a_mate_in_one_over_material() -> None:
    # Re1-e5 mates on the back rank; Kd1xc2 would win a knight.
    state = from_fen("gardner", "k4/pp3/5/2n2/3KR w - - 0 1")
    picks = {GreedyPlayer().play([state], np.random.default_rng(seed))[0].uci() for seed in range(10)}
    assert picks == {"e1e5"}


def test_greedy_varies_quiet_moves_with_the_rng() -> None:
    start = initial_state("gardner")  # no capture is possible: every move gains 0
    picks = {GreedyPlayer().play([start], np.random.default_rng(seed))[0] for seed in range(30)}
    assert len(picks) >= 4


class KnownPriors:
    """An evaluator whose answer is known: all prior mass on the move ``favourite`` (uniform if it is absent)."""

    def __init__(self, favourite: str | None) -> None:
        self.favourite = favourite
        self.calls: list[int] = []

    def __call__(self, states: Sequence[State]) -> tuple[list[np.ndarray], np.ndarray]:
        self.calls.append(len(states))
        priors = []
        for state in states:
            ucis = [m.uci() for m in legal_moves(state)]
            p = np.array([u == self.favourite for u in ucis], dtype=np.float32)
            priors.append(p if p.sum() else np.full(len(ucis), 1 / len(ucis), dtype=np.float32))
        return priors, np.zeros(len(states), dtype=np.float32)


def test_policy_player_plays_the_argmax_in_one_batched_call() -> None:
    evaluator = KnownPriors("c2c3")
    states = [initial_state("gardner")] * 5
    moves = PolicyPlayer(evaluator).play(states, np.random.default_rng(0))
    assert [m.uci() for m in moves] == ["c2c3"] * 5
    assert evaluator.calls == [5]


def test_policy_player_breaks_ties_at_random_and_samples_at_temperature() -> None:
    start = initial_state("gardner")
    uniform = PolicyPlayer(KnownPriors(None))
    assert len({uniform.play([start], np.random.default_rng(s))[0] for s in range(30)}) >= 4
    warm = PolicyPlayer(KnownPriors("c2c3"), temperature=1.0)
    assert {warm.play([start], np.random.default_rng(s))[0].uci() for s in range(10)} == {"c2c3"}
    for temperature in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="temperature"):
            PolicyPlayer(KnownPriors(None), temperature=temperature)


def test_human_reprompts_on_bad_input_then_plays_the_legal_move() -> None:
    out = io.StringIO()
    replies = iter(["hello", "e2e4", "e2e3"])
    human = HumanPlayer(input_fn=lambda prompt: next(replies), output=out)
    move = human.play([initial_state("gardner")], np.random.default_rng(0))[0]
    text = out.getvalue()
    assert move.uci() == "e2e3"
    assert "1 ♖ ♘ ♗ ♕ ♔" in text and "a b c d e" in text
    assert "legal moves: a2a3 b1a3 b1c3 b2b3 c2c3 d2d3 e2e3" in text
    assert "not a move in UCI notation: 'hello'" in text
    assert "e2e4 is not legal here" in text


def test_human_names_the_opponents_reply() -> None:
    out = io.StringIO()
    human = HumanPlayer(input_fn=lambda prompt: "e2e3", output=out)
    after = apply_move(initial_state("gardner"), human.play([initial_state("gardner")], np.random.default_rng(0))[0])
    reply = next(m for m in legal_moves(after) if m.uci() == "d4e3")
    human.input_fn = lambda prompt: "d2e3"
    human.play([apply_move(after, reply)], np.random.default_rng(0))
    assert "opponent played d4e3" in out.getvalue()


@pytest.mark.parametrize("answer", ["quit", "resign"])
def test_human_quit_resigns(answer: str) -> None:
    with pytest.raises(Resign):
        scripted([answer]).play([initial_state("gardner")], np.random.default_rng(0))


def test_human_end_of_input_resigns() -> None:
    def closed(prompt: str) -> str:
        raise EOFError

    with pytest.raises(Resign):
        HumanPlayer(input_fn=closed, output=io.StringIO()).play([initial_state("gardner")], np.random.default_rng(0))


def test_parse_player_builds_each_kind(tmp_path: Path) -> None:
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    checkpoint = save_checkpoint(net, net.config, tmp_path / "gen_000.pt")
    assert isinstance(parse_player("random", variant="gardner"), RandomPlayer)
    assert isinstance(parse_player("greedy", variant="atomic"), GreedyPlayer)
    assert isinstance(parse_player("human", variant="dark"), HumanPlayer)
    policy = parse_player(f"policy:{checkpoint}:temperature=0.5", variant="los_alamos")
    assert isinstance(policy, PolicyPlayer)
    assert policy.name == f"policy:{checkpoint}:temperature=0.5" and policy.temperature == 0.5
    assert policy.play([initial_state("los_alamos")], np.random.default_rng(0))[0] in legal_moves(
        initial_state("los_alamos")
    )


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("mtcs:200", "unknown player 'mtcs:200' (known kinds: random, greedy, policy:PATH.pt"),
        ("random:3", "player 'random' takes no options"),
        ("policy:", "expected policy:PATH.pt"),
        ("policy:x.pt:temp=1", "the only option is temperature=T"),
        ("policy:x.pt:temperature=hot", "temperature must be a number"),
        ("fairy:nodes", "expected distinct key=value options"),
        ("fairy:nodes=0", "nodes must be a positive integer"),
        ("fairy:nodes=99999999999999999999", "nodes must be a positive integer up to 1000000000"),
        ("fairy:depth=101", "depth must be a positive integer up to 100"),
        ("policy:x.pt:temperature=nan", "temperature must be a finite number >= 0"),
        ("policy:x.pt:temperature=-1", "temperature must be a finite number >= 0"),
        ("mcts:0", "simulations must be a positive integer up to 10000, got '0'"),
        ("mcts:10001", "simulations must be a positive integer up to 10000, got '10001'"),
        ("mcts:²", "simulations must be a positive integer"),
        ("mcts:1:2", "expected mcts:N"),
        ("net:x.pt:sims=99999999999", "sims must be a positive integer up to 10000"),
        ("fairy:speed=3", "expected fairy:nodes=N and/or fairy:depth=N"),
    ],
)
def test_parse_player_rejects_bad_specs_naming_them(spec: str, needle: str) -> None:
    with pytest.raises(ValueError) as error:
        parse_player(spec, variant="gardner")
    assert needle in str(error.value)


def test_parse_player_missing_checkpoint_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"missing\.json"):
        parse_player(f"policy:{tmp_path / 'missing.pt'}", variant="gardner")


def test_register_player_adds_a_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mmc.play.players.PLAYER_KINDS", dict(PLAYER_KINDS))
    register_player("lazy", "lazy:N", lambda fields, variant: RandomPlayer())
    assert isinstance(parse_player("lazy:3", variant="gardner"), RandomPlayer)
    with pytest.raises(ValueError, match="lazy:N"):
        parse_player("nobody", variant="gardner")
    with pytest.raises(ValueError, match="without ':'"):
        register_player("a:b", "a:b", lambda fields, variant: RandomPlayer())
    assert isinstance(PLAYER_KINDS["random"], PlayerKind)
