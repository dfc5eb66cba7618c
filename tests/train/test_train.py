"""The training loop on a real (tiny) network: it learns, it is deterministic, it keeps board sizes apart."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
import torch

from mmc.core.seeding import root
from mmc.games.chess import NUM_PLANES, VARIANTS, apply_move, from_fen, legal_moves, outcome
from mmc.games.chess.actions import NUM_POLICY_PLANES
from mmc.games.chess.mirror import mirror
from mmc.games.chess.variants import CaptureRule
from mmc.nn import NetworkConfig, PolicyValueNet, build_network
from mmc.train import (
    EpochLosses,
    ExampleBuilder,
    Examples,
    TrainConfig,
    conversion_weights,
    learning_rate_at,
    replay_window,
    replay_window_positions,
    row_weights,
    surprise_weights,
    train,
    trained_copy,
    value_target,
)
from mmc.train.examples import VARIANT_DTYPE

from . import assert_examples_equal, examples_of, random_policy, random_positions

TINY = NetworkConfig(game="chess", blocks=1, filters=16)


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)


def dataset(variant: str, count: int, seed: int, sharp: bool = True) -> Examples:
    """``count`` random positions with one-hot (``sharp``) or spread policy targets and random +-1 results."""
    rng = np.random.default_rng(seed)
    states = random_positions(variant, count, seed=seed, max_plies=30)
    policies = []
    for state in states:
        if sharp:
            policy = np.zeros(len(legal_moves(state)))
            policy[rng.integers(len(policy))] = 1.0
        else:
            policy = random_policy(state, rng)
        policies.append(policy)
    return examples_of(states, policies, list(rng.choice([-1.0, 1.0], count)))


def weights(net: PolicyValueNet) -> dict[str, torch.Tensor]:
    return {name: tensor.clone() for name, tensor in net.state_dict().items()}


# --- configuration ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("epochs", 0),
        ("epochs", 1.5),
        ("batch_size", 0),
        ("batch_size", True),
        ("learning_rate", 0.0),
        ("learning_rate", -0.1),
        ("learning_rate", math.nan),
        ("momentum", 1.0),
        ("momentum", -0.5),
        ("weight_decay", -1e-4),
        ("weight_decay", math.inf),
        ("value_loss_weight", -1.0),
        ("value_loss_weight", "1"),
        ("augment_mirror", 1),
        ("search_value_weight", -0.1),
        ("search_value_weight", 1.5),
        ("search_value_weight", math.nan),
        ("value_discount", 0.0),
        ("value_discount", 1.01),
        ("value_discount", "0.9"),
        ("threads", 0),
        ("threads", 1.0),
        ("lr_schedule", "linear"),
        ("lr_schedule", 1),
        ("lr_floor", -0.1),
        ("lr_floor", 1.5),
        ("policy_surprise", -0.1),
        ("policy_surprise", 1.5),
        ("convert_weight", 0.5),
        ("convert_weight", math.inf),
        ("convert_plies", 0),
        ("moves_left_weight", -0.5),
    ],
)
def test_config_rejects_bad_values_by_name(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=rf"TrainConfig\.{field} must be"):
        TrainConfig(**{field: value})  # type: ignore[arg-type]


def test_config_round_trips_and_rejects_unknown_or_missing_keys() -> None:
    config = TrainConfig(epochs=3, weight_decay=0)
    assert TrainConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ValueError, match="'epoch'"):
        TrainConfig.from_dict({**config.to_dict(), "epoch": 3})
    with pytest.raises(ValueError, match="'momentum'"):
        TrainConfig.from_dict({k: v for k, v in config.to_dict().items() if k != "momentum"})


# --- replay window ---------------------------------------------------------------------------------------


def test_replay_window_keeps_the_last_generations_by_board_size() -> None:
    gens = [
        [dataset("gardner", 3, seed=0)],
        [dataset("gardner", 4, seed=1), dataset("los_alamos", 2, seed=2)],
        [dataset("los_alamos", 5, seed=3), dataset("baby", 6, seed=4)],
    ]
    small, large = replay_window(gens, window=2)
    assert small.variant.tolist() == ["gardner"] * 4 + ["baby"] * 6
    assert_examples_equal(large.take(np.arange(2)), gens[1][1])
    assert len(large) == 7
    assert [len(e) for e in replay_window(gens, window=10)] == [13, 7]
    assert [len(e) for e in replay_window(gens, window=1)] == [6, 5]
    assert replay_window([], window=3) == []
    with pytest.raises(ValueError, match="replay window must be an int >= 1"):
        replay_window(gens, window=0)


def test_replay_window_in_positions_keeps_the_newest_rows() -> None:
    gens = [[dataset("gardner", 5, seed=0)], [dataset("gardner", 4, seed=1)], [dataset("gardner", 3, seed=2)]]
    (window,) = replay_window_positions(gens, 5)
    assert_examples_equal(window.take(np.arange(2)), gens[1][0].take([2, 3]))  # the newest rows of the oldest reached
    assert_examples_equal(window.take(np.arange(2, 5)), gens[2][0])
    (whole,) = replay_window_positions(gens, 7)
    (by_generations,) = replay_window(gens, window=2)
    assert_examples_equal(whole, by_generations)
    assert [len(e) for e in replay_window_positions(gens, 100)] == [12]
    mixed = [[dataset("gardner", 3, seed=3), dataset("los_alamos", 4, seed=4)]]
    assert [len(e) for e in replay_window_positions(mixed, 5)] == [1, 4], "the largest board size first"
    with pytest.raises(ValueError, match="replay window in positions must be an int >= 1"):
        replay_window_positions(gens, 0)


# --- training --------------------------------------------------------------------------------------------


def test_training_overfits_a_small_dataset() -> None:
    net = build_network(TINY, seed=0)
    config = TrainConfig(epochs=30, batch_size=16, learning_rate=0.05, augment_mirror=False)
    losses = train(net, [dataset("gardner", 64, seed=0)], config, torch.Generator().manual_seed(0))
    assert len(losses) == 30
    assert all(isinstance(epoch, EpochLosses) for epoch in losses)
    assert losses[-1].total < 0.5 * losses[0].total
    assert losses[-1].policy < 0.5 * losses[0].policy and losses[-1].value < 0.5 * losses[0].value
    for epoch in losses:
        assert epoch.total == pytest.approx(epoch.policy + epoch.value)


def test_surprise_weights_move_weight_to_the_rows_the_prior_misses() -> None:
    sharp, spread = dataset("gardner", 30, seed=3), dataset("gardner", 30, seed=3, sharp=False)
    net = build_network(TINY, seed=0).train()
    half = surprise_weights(net, [sharp, spread], 0.5, torch.device("cpu"))
    assert net.training, "the network's mode is given back"
    every = torch.cat(half)
    assert float(every.mean()) == pytest.approx(1.0, abs=1e-5) and float(every.min()) >= 0.5 - 1e-6
    assert float(half[0].mean()) > float(half[1].mean()), "a one-hot target on a random move surprises more"
    whole = surprise_weights(net, [sharp, spread], 1.0, torch.device("cpu"))
    assert torch.allclose((torch.cat(whole) + 1) / 2, every), "the weight is linear in the share"


def with_plies(examples: Examples, plies_left: list[int]) -> Examples:
    return dataclasses.replace(examples, plies_left=np.asarray(plies_left, dtype=np.int32))


def test_conversion_weights_count_the_winners_last_moves_more_with_a_mean_of_one() -> None:
    base = dataset("gardner", 8, seed=5)
    values = base.value.tolist()
    group = with_plies(base, [1, 1, 2, 3, 4, 5, 1, 9])
    chosen = [v > 0 and p <= 3 for v, p in zip(values, group.plies_left.tolist(), strict=True)]
    assert any(chosen) and not all(chosen), "the dataset has rows on both sides of the rule"
    other = with_plies(dataset("gardner", 4, seed=6), [7, 7, 7, 7])
    (first, second) = conversion_weights([group, other], 5.0, 3)
    every = np.concatenate([first, second])
    assert every.dtype == np.float32 and float(every.mean()) == pytest.approx(1.0, abs=1e-6)
    np.testing.assert_allclose(first[chosen], 5.0 * every.min(), rtol=1e-6)
    np.testing.assert_allclose(first[[not c for c in chosen]], every.min(), rtol=1e-6)
    np.testing.assert_allclose(second, every.min(), rtol=1e-6)
    np.testing.assert_array_equal(conversion_weights([group], 1.0, 3)[0], np.ones(8, np.float32))


def test_row_weights_are_none_when_off_and_the_scaled_product_when_both_are_on() -> None:
    data = [with_plies(dataset("gardner", 12, seed=7), [1, 2] * 6)]
    net = build_network(TINY, seed=0)
    cpu = torch.device("cpu")
    assert row_weights(net, data, TrainConfig(), cpu) is None
    (convert,) = row_weights(net, data, TrainConfig(convert_weight=4.0), cpu)
    np.testing.assert_array_equal(convert.numpy(), conversion_weights(data, 4.0, 1)[0])
    (surprise,) = surprise_weights(net, data, 0.5, cpu)
    (alone,) = row_weights(net, data, TrainConfig(policy_surprise=0.5), cpu)
    assert torch.equal(alone, surprise)
    (both,) = row_weights(net, data, TrainConfig(policy_surprise=0.5, convert_weight=4.0), cpu)
    product = surprise * convert
    assert torch.allclose(both, product / product.mean()) and float(both.mean()) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize(("field", "off", "on"), [("policy_surprise", 0.0, 0.5), ("convert_weight", 1.0, 8.0)])
def test_a_row_weighting_changes_the_training_and_off_leaves_it_as_it_was(field: str, off: float, on: float) -> None:
    data = [dataset("gardner", 40, seed=1)]
    assert (data[0].value > 0).any(), "some rows were won with one ply left: the conversion weight has rows to weigh"
    config = TrainConfig(epochs=2, batch_size=8, learning_rate=0.05)
    runs = {}
    for value in (off, on):
        net = build_network(TINY, seed=0)
        losses = train(net, data, dataclasses.replace(config, **{field: value}), torch.Generator().manual_seed(7))
        runs[value] = (losses, weights(net))
    plain = build_network(TINY, seed=0)
    assert train(plain, data, config, torch.Generator().manual_seed(7)) == runs[off][0]
    assert all(torch.equal(t, weights(plain)[name]) for name, t in runs[off][1].items())
    assert any(not torch.equal(t, runs[on][1][name]) for name, t in runs[off][1].items())


def test_the_moves_left_head_learns_the_plies_to_the_end_and_weight_zero_leaves_it_untrained() -> None:
    rng = np.random.default_rng(3)
    data = [with_plies(dataset("gardner", 64, seed=4), rng.integers(1, 40, 64).tolist())]
    config = TrainConfig(epochs=30, batch_size=16, learning_rate=0.05, augment_mirror=False, moves_left_weight=1.0)
    headed = NetworkConfig(game="chess", blocks=1, filters=16, moves_left=True)
    planes, target = torch.from_numpy(data[0].planes), torch.from_numpy(data[0].plies_left.astype(np.float32))

    def miss(net: PolicyValueNet) -> float:
        with torch.no_grad():
            plies = net.eval().heads(planes)[2]
            assert plies is not None
            return float((plies - target).abs().mean())

    net = build_network(headed, seed=0)
    before = miss(net)
    train(net, data, config, torch.Generator().manual_seed(0))
    assert miss(net) < 0.5 * before, "the head fits the rows' plies to the end"

    untrained = build_network(headed, seed=0)
    plain = build_network(TINY, seed=0)
    off = dataclasses.replace(config, epochs=2, moves_left_weight=0.0)
    assert train(untrained, data, off, torch.Generator().manual_seed(0)) == train(
        plain, data, off, torch.Generator().manual_seed(0)
    )
    trained = weights(untrained)
    assert all(torch.equal(t, trained[name]) for name, t in weights(plain).items()), "the other heads as without it"
    fresh = weights(build_network(headed, seed=0))
    assert all(torch.equal(fresh[n], trained[n]) for n in trained if n.startswith("moves_left") and "running" not in n)
    with pytest.raises(ValueError, match=r"moves_left_weight is 1\.0, but the network has no moves-left head"):
        train(build_network(TINY, seed=0), data, config, torch.Generator().manual_seed(0))


def test_training_is_deterministic_given_the_seed() -> None:
    data = [dataset("gardner", 40, seed=1, sharp=False), dataset("los_alamos", 20, seed=2, sharp=False)]
    config = TrainConfig(epochs=2, batch_size=8, learning_rate=0.05)
    runs = []
    for seed in (7, 7, 8):
        net = build_network(TINY, seed=0)
        losses = train(net, data, config, torch.Generator().manual_seed(seed))
        runs.append((losses, weights(net)))
    assert runs[0][0] == runs[1][0]
    for name, tensor in runs[0][1].items():
        assert torch.equal(tensor, runs[1][1][name]), name
    assert any(not torch.equal(t, runs[2][1][name]) for name, t in runs[0][1].items())


def test_mixed_board_sizes_train_in_separate_interleaved_minibatches() -> None:
    small, large = dataset("gardner", 50, seed=3), dataset("los_alamos", 30, seed=4)
    net = build_network(TINY, seed=0)
    shapes: list[tuple[int, ...]] = []
    net.register_forward_pre_hook(lambda module, args: shapes.append(tuple(args[0].shape)))
    net.eval()
    config = TrainConfig(epochs=3, batch_size=8, augment_mirror=False)
    losses = train(net, [large.take(np.arange(10)), small, large.take(np.arange(10, 30))], config, torch.Generator())
    assert not net.training  # the previous mode is restored
    assert len(losses) == 3 and all(math.isfinite(epoch.total) for epoch in losses)
    per_epoch = math.ceil(50 / 8) + math.ceil(30 / 8)
    assert len(shapes) == 3 * per_epoch
    for epoch in range(3):
        seen = shapes[epoch * per_epoch : (epoch + 1) * per_epoch]
        assert sum(s[0] for s in seen if s[2:] == (5, 5)) == 50
        assert sum(s[0] for s in seen if s[2:] == (6, 6)) == 30
    sizes = [s[2] for s in shapes]
    switches = sum(a != b for a, b in itertools.pairwise(sizes))
    assert switches > 6  # interleaved, not one size after the other


def test_mirror_augmentation_feeds_originals_and_mirrors() -> None:
    data = dataset("los_alamos", 24, seed=5)
    originals = {row.tobytes() for row in data.planes}
    mirrors = {row.tobytes() for row in mirror(data.planes, data.policy, data.legal)[0]}
    net = build_network(TINY, seed=0)
    rows: list[bytes] = []
    net.register_forward_pre_hook(lambda module, args: rows.extend(r.numpy().tobytes() for r in args[0]))
    train(net, [data], TrainConfig(epochs=2, batch_size=6, augment_mirror=True), torch.Generator().manual_seed(0))
    assert len(rows) == 48
    assert set(rows) <= originals | mirrors
    flipped = sum(r in mirrors and r not in originals for r in rows)
    assert 8 < flipped < 40


def test_train_refuses_what_it_cannot_use_and_mirrors_only_symmetric_variants(monkeypatch: pytest.MonkeyPatch) -> None:
    data = dataset("gardner", 8, seed=6)
    net = build_network(TINY, seed=0)
    with pytest.raises(ValueError, match="at least one example"):
        train(net, [Examples.empty("gardner")], TrainConfig(), torch.Generator())
    with pytest.raises(ValueError, match=f"the network {NUM_PLANES - 1} and {NUM_POLICY_PLANES}"):
        train(
            build_network(NetworkConfig(game="chess", blocks=0, filters=4, in_planes=NUM_PLANES - 1)),
            [data],
            TrainConfig(),
            torch.Generator(),
        )
    lopsided = dataclasses.replace(VARIANTS["gardner"], name="lopsided", capture=max(CaptureRule) + 1)  # type: ignore[arg-type]
    monkeypatch.setitem(VARIANTS, "lopsided", lopsided)
    relabelled = dataclasses.replace(data, variant=np.full(len(data), "lopsided", dtype=VARIANT_DTYPE))
    before = weights(net)
    twin = build_network(TINY, seed=0)
    train(net, [relabelled], TrainConfig(augment_mirror=True), torch.Generator().manual_seed(1))
    train(twin, [relabelled], TrainConfig(augment_mirror=False), torch.Generator().manual_seed(1))
    assert any(not torch.equal(t, net.state_dict()[name]) for name, t in before.items())
    for name, tensor in twin.state_dict().items():  # a variant that is not symmetric is never mirrored
        assert torch.equal(tensor, net.state_dict()[name]), name


@pytest.mark.parametrize("weight", [0.0, 0.5, 1.0])
def test_value_target_mixes_the_result_with_the_search_value(weight: float) -> None:
    """One minibatch of every row, a step too small to move the weights: the epoch's value loss is the
    network's MSE against (1 - w) * result + w * search value."""
    data = dataset("gardner", 24, seed=5)  # results +-1, search values half of them (tests.train.examples_of)
    net = build_network(TINY, seed=3)
    config = TrainConfig(epochs=1, batch_size=64, learning_rate=1e-12, augment_mirror=False,
                         search_value_weight=weight, value_discount=1.0)  # fmt: skip
    net.train()
    with torch.no_grad():
        _, value = net(torch.from_numpy(data.planes))
    target = (1 - weight) * data.value + weight * data.search_value
    expected = float(torch.mean((value - torch.from_numpy(target)) ** 2))
    (losses,) = train(net, [data], config, torch.Generator().manual_seed(0))
    assert losses.value == pytest.approx(expected, rel=1e-4)
    assert not np.allclose(data.value, data.search_value), "the two targets differ, so the weight matters"


def test_value_target_discounts_the_result_by_the_plies_to_the_end() -> None:
    """z = (1 - w) * result * gamma ** plies_left + w * search value, row by row."""
    data = dataclasses.replace(dataset("gardner", 12, seed=6), plies_left=np.arange(1, 13, dtype=np.int32))
    plain = value_target(data, TrainConfig(value_discount=1.0))
    np.testing.assert_array_equal(plain, data.value)
    discounted = value_target(data, TrainConfig(value_discount=0.9))
    np.testing.assert_allclose(discounted, data.value * 0.9 ** data.plies_left.astype(np.float64), rtol=1e-6)
    assert np.all(np.abs(discounted) < np.abs(data.value))
    both = value_target(data, TrainConfig(value_discount=0.9, search_value_weight=0.25))
    np.testing.assert_allclose(both, 0.75 * discounted + 0.25 * data.search_value, rtol=1e-6, atol=1e-7)


def test_a_stalemate_is_a_draw_and_the_mate_beside_it_a_win_in_the_value_target() -> None:
    """The ending the issue's experts played: mate or stalemate the bare king. The example of the position before
    each has the value target +1 (discounted by one ply) after the mate and 0 after the stalemate."""
    state = from_fen("gardner", "k4/3Q1/1K3/5/5 w - - 0 1")
    targets = {}
    for game_id, uci in enumerate(("d4b4", "d4c4")):  # Qb4#, Qc4 stalemate
        builder = ExampleBuilder()
        policy = np.zeros(len(legal_moves(state)))
        policy[[m.uci() for m in legal_moves(state)].index(uci)] = 1.0
        builder.add(state, policy, game_id, 0.0)
        move = next(m for m in legal_moves(state) if m.uci() == uci)
        ended = outcome(apply_move(state, move))
        assert ended is not None
        builder.finish_game(game_id, ended, state.ply + 1)
        (examples,) = builder.build()
        targets[ended.termination.value] = value_target(examples, TrainConfig(value_discount=0.99))[0]
    assert targets == {"checkmate": pytest.approx(0.99), "stalemate": 0.0}


# --- learning-rate schedule -----------------------------------------------------------------------------------


def test_cosine_schedule_decays_from_the_rate_to_its_floor() -> None:
    config = TrainConfig(learning_rate=0.02, lr_schedule="cosine", lr_floor=0.1)
    rates = [learning_rate_at(step, 11, config) for step in range(11)]
    assert rates[0] == pytest.approx(0.02) and rates[-1] == pytest.approx(0.002)
    assert rates[5] == pytest.approx(0.011) and all(a > b for a, b in itertools.pairwise(rates))
    assert {learning_rate_at(step, 11, TrainConfig(learning_rate=0.02)) for step in range(11)} == {0.02}


def test_cosine_training_steps_with_the_schedule() -> None:
    """A cosine schedule with floor 1 is the constant rate (same weights); with floor 0.1 the steps shrink."""
    data = dataset("gardner", 96, seed=7)
    base = TrainConfig(epochs=2, batch_size=32, augment_mirror=False)
    runs = {}
    for name, config in (("constant", base), ("flat", dataclasses.replace(base, lr_schedule="cosine", lr_floor=1.0)),
                         ("cosine", dataclasses.replace(base, lr_schedule="cosine"))):  # fmt: skip
        net = build_network(TINY, seed=1)
        train(net, [data], config, torch.Generator().manual_seed(0))
        runs[name] = weights(net)
    assert all(torch.equal(runs["constant"][k], runs["flat"][k]) for k in runs["constant"])
    assert not all(torch.equal(runs["constant"][k], runs["cosine"][k]) for k in runs["constant"])


# --- threads ------------------------------------------------------------------------------------------------


def test_a_training_job_runs_with_its_configs_threads_and_gives_the_callers_back() -> None:
    """``trained_copy`` trains with ``config.threads`` torch threads (seen from inside the network's forward pass),
    restores the caller's count, and the same threads give the same weights (the study's 2-thread expert trainings
    stay reproducible)."""
    data = dataset("gardner", 96, seed=3)
    net = build_network(TINY, seed=0)
    seen: list[int] = []
    hook = net.register_forward_pre_hook(lambda *_: seen.append(torch.get_num_threads()))
    torch.set_num_threads(1)
    config = TrainConfig(epochs=1, batch_size=32, threads=2)
    first = trained_copy(net, [data], config, root(4))
    assert set(seen) == {2} and torch.get_num_threads() == 1
    hook.remove()
    again = trained_copy(net, [data], config, root(4))
    assert first.losses == again.losses
    assert all(torch.equal(a, b) for a, b in zip(weights(first.net).values(), weights(again.net).values(), strict=True))
