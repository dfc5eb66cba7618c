"""The network package: what search and training rely on.

- one set of weights reads 5x5, 6x6 and 8x8 boards, values lie in [-1, 1], a seed fixes the weights (and never
  touches torch's global RNG);
- checkpoints round-trip exactly, write atomically, and name the file when it is missing or corrupt;
- masked softmaxes put no probability on illegal actions and never produce NaN;
- the evaluator's priors follow ``legal_moves`` order from either side's perspective, batching changes
  nothing, finished games get empty priors and their exact result;
- the network can learn: a few Adam steps fit a fixed batch.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from mmc.games.chess import (
    NUM_PLANES,
    State,
    action_space,
    apply_move,
    from_fen,
    initial_state,
    legal_moves,
    observation_planes,
    outcome,
)
from mmc.games.chess.actions import NUM_POLICY_PLANES
from mmc.nn import (
    CheckpointError,
    NetworkConfig,
    NetworkEvaluator,
    PolicyValueNet,
    build_network,
    config_path,
    inference_copy,
    load_checkpoint,
    masked_log_softmax,
    masked_softmax,
    policy_logits,
    save_checkpoint,
)

SMALL = NetworkConfig(game="chess", blocks=2, filters=16, value_hidden=16)
WHITE_CHECKMATED = "r3k/pb2p/PP3/P2qP/4K w - - 0 17"  # gardner: White to move has no move and is mated


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)


def random_positions(variant: str, count: int, seed: int) -> list[State]:
    """``count`` positions of seeded random games (each from a fresh game, 0 to 20 plies in), all still going on."""
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = initial_state(variant)
        for _ in range(rng.integers(0, 21)):
            moves = legal_moves(state)
            child = apply_move(state, moves[rng.integers(len(moves))])
            if outcome(child) is not None:
                break
            state = child
        positions.append(state)
    return positions


def planes_of(states: list[State]) -> torch.Tensor:
    return torch.from_numpy(np.stack([observation_planes(s) for s in states]))


# --- configuration ---------------------------------------------------------------------------------------


def test_config_round_trips_and_rejects_bad_keys_by_name() -> None:
    config = NetworkConfig(game="chess", blocks=1, filters=8)
    assert NetworkConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    assert NetworkConfig(game="chess").to_dict() == {
        "blocks": 4,
        "filters": 64,
        "value_hidden": 64,
        "in_planes": NUM_PLANES,
        "policy_planes": NUM_POLICY_PLANES,
        "game": "chess",
        "policy_kernel": 1,
        "moves_left": False,
    }
    legacy = {k: v for k, v in config.to_dict().items() if k != "game"}  # a checkpoint from before the families
    assert NetworkConfig.from_dict(legacy) == config
    before = {k: v for k, v in config.to_dict().items() if k != "policy_kernel"}  # before the policy kernel
    assert NetworkConfig.from_dict(before) == config
    no_head = {k: v for k, v in config.to_dict().items() if k != "moves_left"}  # before the moves-left head
    assert NetworkConfig.from_dict(no_head) == config
    with pytest.raises(ValueError, match=r"NetworkConfig\.moves_left must be a bool"):
        NetworkConfig(game="chess", moves_left=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="policy_kernel must be odd"):
        NetworkConfig(game="chess", policy_kernel=2)
    with pytest.raises(ValueError, match="'widht'"):
        NetworkConfig.from_dict({**config.to_dict(), "widht": 3})
    with pytest.raises(ValueError, match="'value_hidden'"):
        NetworkConfig.from_dict({k: v for k, v in config.to_dict().items() if k != "value_hidden"})
    with pytest.raises(ValueError, match=r"NetworkConfig\.filters must be an int"):
        NetworkConfig.from_dict({**config.to_dict(), "filters": "64"})
    with pytest.raises(ValueError, match=r"NetworkConfig\.blocks must be an int"):
        NetworkConfig(game="chess", blocks=True)
    with pytest.raises(ValueError, match=r"NetworkConfig\.filters must be >= 1"):
        NetworkConfig(game="chess", filters=0)


# --- network ---------------------------------------------------------------------------------------------


def test_same_weights_read_5x5_6x6_and_8x8_boards() -> None:
    net = build_network(SMALL, seed=0).eval()
    for variant, size in (("gardner", 5), ("los_alamos", 6), ("chess", 8)):
        policy, value = net(planes_of(random_positions(variant, 3, seed=1)))
        assert policy.shape == (3, NUM_POLICY_PLANES, size, size)
        assert value.shape == (3,)


def test_a_3x3_policy_convolution_reads_neighbouring_squares_and_round_trips(tmp_path: Path) -> None:
    x = planes_of(random_positions("gardner", 2, seed=1))
    nudged = x.clone()
    nudged[:, :, 0, 0] += 1.0  # one corner square changed
    reach = {}
    for kernel in (1, 3):
        net = build_network(
            NetworkConfig(game="chess", blocks=0, filters=8, value_hidden=8, policy_kernel=kernel), seed=0
        ).eval()
        assert net.policy_conv.kernel_size == (kernel, kernel)
        with torch.no_grad():
            moved = ((net(nudged)[0] - net(x)[0]).abs().sum(dim=(0, 1)) > 0).nonzero()
        reach[kernel] = int(moved.max())  # the farthest row or file whose logits moved
    assert reach == {1: 1, 3: 2}  # the stem's 3x3 alone, then one square more through the 3x3 policy convolution
    wide = replace(SMALL, policy_kernel=3)
    net = build_network(wide, seed=0).eval()
    assert net(x)[0].shape == (2, NUM_POLICY_PLANES, 5, 5)
    path = save_checkpoint(net, wide, tmp_path / "wide.pt")
    loaded, config = load_checkpoint(path)
    with torch.no_grad():
        assert config == wide and torch.equal(loaded(x)[0], net(x)[0])


def test_the_moves_left_head_adds_plies_to_the_end_and_leaves_the_other_heads_as_they_were(tmp_path: Path) -> None:
    x = planes_of(random_positions("gardner", 4, seed=1))
    plain = build_network(SMALL, seed=0).eval()
    headed_config = replace(SMALL, moves_left=True)
    headed = build_network(headed_config, seed=0).eval()
    for name, tensor in plain.state_dict().items():
        assert torch.equal(tensor, headed.state_dict()[name]), f"{name}: the head is initialised after the others"
    with torch.no_grad():
        policy, value, plies = headed.heads(x)
        assert plain.heads(x)[2] is None
        assert torch.equal(policy, plain(x)[0]) and torch.equal(value, plain(x)[1])
        assert plies is not None and plies.shape == (4,) and bool((plies >= 0).all())
        fast = inference_copy(headed).heads(x.contiguous(memory_format=torch.channels_last))[2]
        assert fast is not None and torch.allclose(fast, plies, atol=1e-4)
        path = save_checkpoint(headed, headed_config, tmp_path / "headed.pt")
        loaded, config = load_checkpoint(path)
        assert config == headed_config and torch.equal(loaded.heads(x)[2], plies)  # type: ignore[arg-type]


def test_one_evaluator_gives_5x5_6x6_and_8x8_positions_priors_over_their_legal_moves() -> None:
    evaluator = NetworkEvaluator(build_network(SMALL, seed=3))
    states = [s for variant in ("gardner", "los_alamos", "chess") for s in random_positions(variant, 2, seed=4)]
    states.append(from_fen("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"))
    priors, values = evaluator(states)
    for state, prior in zip(states, priors, strict=True):
        assert prior.shape == (len(legal_moves(state)),) and prior.sum() == pytest.approx(1.0, abs=1e-5)
    assert len(priors[-1]) == 48 and np.all(np.abs(values) <= 1)


def test_value_lies_in_minus_one_to_one() -> None:
    net = build_network(SMALL, seed=0).eval()
    with torch.no_grad():
        net.value_out.bias.fill_(50.0)  # saturate the tanh: still inside [-1, 1]
        _, high = net(torch.randn(4, NUM_PLANES, 5, 5) * 10)
        net.value_out.bias.fill_(-50.0)
        _, low = net(torch.randn(4, NUM_PLANES, 6, 6) * 10)
    assert torch.all(high <= 1) and torch.all(high > 0.99)
    assert torch.all(low >= -1) and torch.all(low < -0.99)


def test_build_network_is_deterministic_per_seed_and_leaves_global_rng_alone() -> None:
    before = torch.get_rng_state()
    a, b, c = build_network(SMALL, seed=7), build_network(SMALL, seed=7), build_network(SMALL, seed=8)
    assert torch.equal(before, torch.get_rng_state())
    for name, tensor in a.state_dict().items():
        assert torch.equal(tensor, b.state_dict()[name]), name
    assert not torch.equal(a.stem_conv.weight, c.stem_conv.weight)
    assert not torch.equal(a.value_out.weight, c.value_out.weight)


def test_forward_rejects_wrong_input_planes() -> None:
    with pytest.raises(ValueError, match=rf"\[B, {NUM_PLANES}, H, W\]"):
        build_network(SMALL)(torch.zeros(1, 7, 5, 5))


def test_policy_logits_pick_each_actions_plane_cell() -> None:
    space = action_space("extinction")
    planes = torch.randn(2, NUM_POLICY_PLANES, 5, 5)
    logits = policy_logits(planes, space.policy_index)
    assert logits.shape == (2, space.num_actions)
    plane, rest = np.divmod(space.policy_index, 25)
    row, col = np.divmod(rest, 5)
    assert torch.equal(logits, planes[:, plane, row, col])


# --- masked softmax --------------------------------------------------------------------------------------


def test_masked_softmax_is_zero_on_illegal_actions_and_sums_to_one() -> None:
    logits = torch.randn(3, 10) * 5
    mask = torch.rand(3, 10, generator=torch.Generator().manual_seed(0)) < 0.5
    mask[:, 0] = True
    probs = masked_softmax(logits, mask)
    assert torch.all(probs[~mask] == 0)
    torch.testing.assert_close(probs.sum(-1), torch.ones(3))
    torch.testing.assert_close(masked_log_softmax(logits, mask).exp(), probs)
    legal = torch.softmax(logits[0][mask[0]], -1)
    torch.testing.assert_close(probs[0][mask[0]], legal)


def test_masked_softmax_of_a_row_without_legal_actions_is_zero_not_nan() -> None:
    logits = torch.randn(2, 6, requires_grad=True)
    mask = torch.tensor([[True, False, True, False, False, False], [False] * 6])
    probs = masked_softmax(logits, mask)
    log_p = masked_log_softmax(logits, mask)
    assert torch.equal(probs[1], torch.zeros(6))
    assert torch.all(torch.isfinite(log_p)) and torch.all(log_p[1].exp() == 0)
    target = mask.float() / mask.float().sum(-1, keepdim=True).clamp(min=1)  # zero target on masked entries
    loss = -(target * log_p).sum()
    loss.backward()
    assert torch.isfinite(loss) and logits.grad is not None
    assert torch.all(torch.isfinite(logits.grad)) and torch.all(logits.grad[~mask] == 0)


# --- checkpoints -----------------------------------------------------------------------------------------


def test_checkpoint_round_trip_gives_identical_outputs_and_json_config(tmp_path: Path) -> None:
    net = build_network(SMALL, seed=3)
    net.train()
    net(torch.randn(8, NUM_PLANES, 5, 5))  # move the batch-norm running statistics off their defaults
    net.eval()
    path = save_checkpoint(net, net.config, tmp_path / "models" / "gen_001.pt")
    assert json.loads(config_path(path).read_text()) == SMALL.to_dict()
    loaded, config = load_checkpoint(path)
    assert config == SMALL and not loaded.training
    x = planes_of(random_positions("los_alamos", 4, seed=2))
    with torch.no_grad():
        for expected, actual in zip(net(x), loaded(x), strict=True):
            assert torch.equal(expected, actual)


def test_checkpoint_writes_leave_no_temporary_files_even_when_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "model.pt"
    save_checkpoint(build_network(SMALL, seed=1), SMALL, path)
    save_checkpoint(build_network(SMALL, seed=2), SMALL, path)  # overwrite in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json", "model.pt"]

    def interrupted_save(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(torch, "save", interrupted_save)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(build_network(SMALL, seed=3), SMALL, path)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json", "model.pt"]
    loaded, _ = load_checkpoint(path)  # still the previous, complete checkpoint
    assert torch.equal(loaded.stem_conv.weight, build_network(SMALL, seed=2).stem_conv.weight)


def test_checkpoint_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    with pytest.raises(FileNotFoundError, match=r"model\.json"):
        load_checkpoint(path)
    save_checkpoint(build_network(SMALL), SMALL, path)
    path.write_bytes(b"not a torch file")
    with pytest.raises(CheckpointError, match=r"model\.pt"):
        load_checkpoint(path)
    path.unlink()
    with pytest.raises(FileNotFoundError, match=r"model\.pt"):
        load_checkpoint(path)
    config_path(path).write_text("{ truncated")
    with pytest.raises(CheckpointError, match=r"model\.json"):
        load_checkpoint(path)
    config_path(path).write_text(json.dumps({**SMALL.to_dict(), "filters": 32}))
    save_checkpoint(build_network(SMALL), SMALL, tmp_path / "other.pt")
    (tmp_path / "other.pt").rename(path)  # weights of a 16-filter net beside a 32-filter config
    with pytest.raises(CheckpointError, match=r"model\.pt do not match config .*model\.json"):
        load_checkpoint(path)


def test_save_checkpoint_rejects_a_config_that_is_not_the_networks(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not the network's own config"):
        save_checkpoint(build_network(SMALL), NetworkConfig(game="chess"), tmp_path / "model.pt")
    with pytest.raises(ValueError, match=r"\.pt"):
        save_checkpoint(build_network(SMALL), SMALL, tmp_path / "model.pth")


# --- evaluator -------------------------------------------------------------------------------------------


def manual_evaluation(net: PolicyValueNet, state: State) -> tuple[np.ndarray, float]:
    """The evaluator's answer for one state, computed the slow, obvious way with torch."""
    space = action_space(state.variant_name)
    with torch.no_grad():
        policy, value = net.eval()(planes_of([state]))
        logits = policy_logits(policy, space.policy_index)[0]
        mask = torch.from_numpy(space.legal_mask(state))
        probs = masked_softmax(logits, mask).numpy()
    return probs[space.legal_actions(state)], float(value[0])


MIXED_VARIANTS = ("gardner", "los_alamos", "extinction", "dark", "chess", "los_alamos", "atomic")


def mixed_batch() -> list[State]:
    states = [s for i, v in enumerate(MIXED_VARIANTS) for s in random_positions(v, 3, seed=10 + i)]
    return [*states[:7], from_fen("gardner", WHITE_CHECKMATED), *states[7:]]


def test_evaluator_matches_manual_per_state_computation_in_legal_moves_order() -> None:
    net = build_network(SMALL, seed=5)
    priors, values = NetworkEvaluator(net)(mixed_batch())
    for state, prior, value in zip(mixed_batch(), priors, values, strict=True):
        if outcome(state) is not None:
            continue
        expected_prior, expected_value = manual_evaluation(net, state)
        assert prior.dtype == np.float32 and prior.shape == (len(legal_moves(state)),)
        np.testing.assert_allclose(prior, expected_prior, rtol=1e-5, atol=1e-7)
        assert prior.sum() == pytest.approx(1.0, abs=1e-5)
        assert value == pytest.approx(expected_value, abs=1e-6)


def test_evaluator_batching_equals_one_state_at_a_time() -> None:
    evaluator = NetworkEvaluator(build_network(SMALL, seed=6))
    states = mixed_batch()
    priors, values = evaluator(states)
    assert values.dtype == np.float32 and values.shape == (len(states),)
    for state, prior, value in zip(states, priors, values, strict=True):
        (single_prior,), single_value = evaluator([state])
        np.testing.assert_allclose(prior, single_prior, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(value, single_value[0], atol=1e-6)


def test_evaluator_priors_follow_the_movers_perspective() -> None:
    """A policy bias on plane 0 ("north, one square": a one-step pawn push) makes that the favourite move
    for White (rank up) and, through the mover's coordinates, for Black (rank down) too."""
    net = build_network(SMALL, seed=0)
    with torch.no_grad():
        net.policy_out.bias[0] = 30.0
    white = initial_state("gardner")
    black = apply_move(white, next(m for m in legal_moves(white) if m.to_square - m.from_square == 8))
    priors, _ = NetworkEvaluator(net)([white, black])
    for state, prior, forward in ((white, priors[0], 8), (black, priors[1], -8)):
        pushes = [m.to_square - m.from_square == forward for m in legal_moves(state)]
        assert any(pushes) and prior[np.array(pushes)].sum() > 0.99


def test_evaluator_gives_finished_games_empty_priors_and_their_result() -> None:
    mated = from_fen("gardner", WHITE_CHECKMATED)
    capped = apply_move(initial_state("gardner", max_plies=1), legal_moves(initial_state("gardner"))[0])
    assert outcome(mated) is not None and outcome(capped) is not None and legal_moves(capped)
    net = build_network(SMALL).train()
    priors, values = NetworkEvaluator(net)([mated, capped, initial_state("gardner")])
    assert [len(p) for p in priors] == [0, 0, len(legal_moves(initial_state("gardner")))]
    assert values[:2].tolist() == [-1.0, 0.0]
    assert net.training  # the evaluator restores the mode it found
    no_priors, no_values = NetworkEvaluator(net)([])
    assert no_priors == [] and no_values.shape == (0,)


def test_evaluator_needs_the_engines_plane_layouts() -> None:
    with pytest.raises(ValueError, match=f"in_planes={NUM_PLANES}"):
        NetworkEvaluator(build_network(NetworkConfig(game="chess", blocks=0, filters=4, in_planes=7)))


# --- learning --------------------------------------------------------------------------------------------


def test_a_few_adam_steps_fit_a_fixed_batch() -> None:
    states = random_positions("gardner", 16, seed=20)
    rng = np.random.default_rng(21)
    space = action_space("gardner")
    x = planes_of(states)
    mask = torch.from_numpy(np.stack([space.legal_mask(s) for s in states]))
    target_policy = torch.zeros(len(states), space.num_actions)
    for row, state in enumerate(states):
        target_policy[row, rng.choice(space.legal_actions(state))] = 1.0
    target_value = torch.from_numpy(rng.choice([-1.0, 1.0], size=len(states)).astype(np.float32))
    net = build_network(SMALL, seed=22).train()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)

    def loss() -> torch.Tensor:
        policy, value = net(x)
        log_p = masked_log_softmax(policy_logits(policy, space.policy_index), mask)
        return -(target_policy * log_p).sum(-1).mean() + torch.mean((value - target_value) ** 2)

    first = loss().item()
    for _ in range(50):
        optimizer.zero_grad()
        step_loss = loss()
        step_loss.backward()
        optimizer.step()
    assert loss().item() < 0.3 * first


def test_inference_copy_matches_the_network_and_leaves_it_alone() -> None:
    net = build_network(NetworkConfig(game="chess", blocks=2, filters=16), seed=3)
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):  # trained-looking statistics, so folding matters
                module.running_mean.normal_(generator=generator)
                module.running_var.uniform_(0.5, 2.0, generator=generator)
                module.weight.normal_(generator=generator)
    before = {k: v.clone() for k, v in net.state_dict().items()}
    fast = inference_copy(net)
    net.eval()
    for size in (5, 6):
        x = torch.randn(7, NUM_PLANES, size, size, generator=generator)
        with torch.inference_mode():
            policy, value = net(x)
            fast_policy, fast_value = fast(x.contiguous(memory_format=torch.channels_last))
        assert torch.allclose(policy, fast_policy, atol=1e-4)
        assert torch.allclose(value, fast_value, atol=1e-5)
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())
