"""MetaFocus: the focus policy and its REINFORCE step, masked adaptation, task features, the loop and adapt_many."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from mmc.core.configs import ConfigError
from mmc.core.fanout import Job
from mmc.core.seeding import derive, root
from mmc.loops.alphazero import play_games
from mmc.meta import (
    Adaptation,
    FocusConfig,
    FocusModel,
    FocusStep,
    MetaFocusConfig,
    adapt_many,
    focus_mask,
    load_focus,
    masked_trained_copy,
    metafocus_train,
    mode_mask,
    reinforce,
    sample_mask,
    save_focus,
    task_features,
)
from mmc.nn import NetworkConfig, PolicyValueNet, build_network
from mmc.play.selfplay import SelfPlayResult
from mmc.search import SearchConfig
from mmc.train import Examples, TrainConfig, trained_copy

SMALL = NetworkConfig(game="chess", blocks=1, filters=8)
SEARCH = SearchConfig(simulations=2)
MASK = np.array([True, False, True, True, False, False, True, False])
TRUNK = ("stem_conv.", "stem_bn.", "tower.")


@pytest.fixture(scope="module")
def net() -> PolicyValueNet:
    return build_network(SMALL, seed=0)


@pytest.fixture(scope="module")
def played(net: PolicyValueNet) -> SelfPlayResult:
    return play_games(net, "gardner", 2, SEARCH, root(0), 2, 20)


def snapshot(net: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in net.state_dict().items()}


def trunk_tensors(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {k: v for k, v in state.items() if k.startswith(TRUNK) and not k.endswith("num_batches_tracked")}


# -- the focus policy -------------------------------------------------------------------------------------------


def test_every_keep_probability_starts_at_initial_keep_whatever_the_features() -> None:
    features = np.random.default_rng(0).normal(size=8).astype(np.float32)
    for keep in (0.5, 0.3):
        model = FocusModel(8, initial_keep=keep)
        assert torch.allclose(model.keep_probabilities(features), torch.full((8,), keep), atol=1e-6)
        assert model.config == FocusConfig(8, keep, 64)
        assert FocusConfig.from_dict(model.config.to_dict()) == model.config
        assert FocusModel.from_config(model.config.to_dict()).config == FocusModel.from_config(model.config).config
    with pytest.raises(ValueError, match=r"\[8\]"):
        FocusModel(8).keep_probabilities(np.zeros(5, np.float32))


def test_a_saved_focus_model_loads_back_with_its_config(tmp_path: Path) -> None:
    model = FocusModel(8, initial_keep=0.3, positions=16)
    with torch.no_grad():
        model.linear.weight.copy_(torch.arange(64, dtype=torch.float32).reshape(8, 8) / 100)
    path = save_focus(model, tmp_path / "starts" / "metafocus.pt")
    assert path == tmp_path / "starts" / "metafocus.pt"
    assert (
        path.with_suffix(".json").read_text() == '{\n  "channels": 8,\n  "initial_keep": 0.3,\n  "positions": 16\n}\n'
    )
    loaded = load_focus(path)
    assert loaded.config == model.config and not loaded.training
    for name, tensor in model.state_dict().items():
        assert torch.equal(loaded.state_dict()[name], tensor)
    path.unlink()
    with pytest.raises(FileNotFoundError, match=r"metafocus\.pt does not exist"):
        load_focus(path)


def test_sample_and_mode_masks() -> None:
    probs = np.array([0.0, 1.0, 0.5, 0.49, 0.9], np.float32)
    assert mode_mask(probs).tolist() == [False, True, True, False, True]
    draws = np.stack([sample_mask(probs, np.random.default_rng(s)) for s in range(400)])
    assert draws.dtype == np.bool_ and draws.shape == (400, 5)
    assert not draws[:, 0].any() and draws[:, 1].all() and 0.4 < draws[:, 2].mean() < 0.6
    assert np.array_equal(sample_mask(probs, np.random.default_rng(7)), sample_mask(probs, np.random.default_rng(7)))


def test_reinforce_moves_the_keep_probabilities_towards_the_rewarded_mask() -> None:
    """Reward: the fraction of channels where the sampled mask agrees with a target; with a moving baseline, 50
    steps of 4 draws push every channel's probability to the target's side."""
    features = np.random.default_rng(1).normal(size=8).astype(np.float32)
    model, draw = FocusModel(8), np.random.default_rng(2)
    baseline: float | None = None
    for _ in range(50):
        with torch.no_grad():
            probs = model.keep_probabilities(features).numpy()
        masks = [sample_mask(probs, draw) for _ in range(4)]
        rewards = [float(np.mean(m == MASK)) for m in masks]
        used = float(np.mean(rewards)) if baseline is None else baseline
        mean = reinforce(model, [features] * 4, masks, rewards, used, 0.5)
        assert mean == pytest.approx(np.mean(rewards))
        baseline = 0.8 * used + 0.2 * mean
    with torch.no_grad():
        probs = model.keep_probabilities(features).numpy()
    assert (probs[MASK] > 0.8).all() and (probs[~MASK] < 0.2).all(), probs


def test_reinforce_without_advantage_leaves_the_model_alone() -> None:
    model = FocusModel(8)
    before = snapshot(model)
    features = np.arange(8, dtype=np.float32)
    assert reinforce(model, [features, features], [MASK, ~MASK], [0.5, 0.5], 0.5, 1.0) == 0.5
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    with pytest.raises(ValueError, match="as many"):
        reinforce(model, [features], [MASK, MASK], [1.0], 0.0, 1.0)


# -- masked adaptation ------------------------------------------------------------------------------------------


def test_dropped_channels_stay_at_the_start_and_an_all_true_mask_is_trained_copy(
    net: PolicyValueNet, played: SelfPlayResult
) -> None:
    config, seed = TrainConfig(epochs=2, batch_size=16, threads=1), root(5)
    before = snapshot(net)
    masked = masked_trained_copy(net, played.examples, config, seed, "cpu", MASK)
    after = masked.net.state_dict()
    for name, start in trunk_tensors(before).items():
        assert torch.equal(after[name][~MASK], start[~MASK]), name
        assert not torch.equal(after[name][MASK], start[MASK]), name
    assert not torch.equal(after["policy_out.weight"], before["policy_out.weight"]), "the heads learn"
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items()), "the start is never modified"
    assert not masked.net.training and len(masked.losses) == 2

    plain = trained_copy(net, played.examples, config, seed, "cpu")
    full = masked_trained_copy(net, played.examples, config, seed, "cpu", np.ones(8, bool))
    assert plain.losses == full.losses
    assert all(torch.equal(v, full.net.state_dict()[k]) for k, v in plain.net.state_dict().items())
    with pytest.raises(ValueError, match=r"bool\[8\]"):
        masked_trained_copy(net, played.examples, config, seed, "cpu", np.ones(8))


# -- task features ----------------------------------------------------------------------------------------------


def test_task_features_read_the_first_positions_only_and_work_on_6x6(
    net: PolicyValueNet, played: SelfPlayResult
) -> None:
    (examples,) = played.examples
    net.train()
    features = task_features(net, [examples], 8)
    assert net.training, "the network's mode is restored"
    assert features.shape == (8,) and features.dtype == np.float32 and np.isfinite(features).all()
    assert np.array_equal(features, task_features(net, [examples.take(range(8))], 100))
    other_targets = replace(examples, value=np.zeros_like(examples.value), search_value=-examples.search_value)
    assert np.array_equal(features, task_features(net, [other_targets], 8)), "only the planes count"
    assert not np.array_equal(features, task_features(net, [examples.take(range(8, 16))], 8))

    six = play_games(net, "los_alamos", 1, SEARCH, root(1), 1, 12).examples
    assert six[0].board_shape == (6, 6)
    assert np.isfinite(task_features(net, six, 8)).all()
    with pytest.raises(ValueError, match="at least one"):
        task_features(net, [Examples.empty("gardner")], 8)


# -- the loop ---------------------------------------------------------------------------------------------------

TINY = MetaFocusConfig(iterations=2, tasks=2, games=2, positions=16, reward_games=2, reward_simulations=2, epochs=1,
                       concurrent=2, max_plies=20)  # fmt: skip


class Recorder:
    """A serial runner that keeps every job it ran."""

    def __init__(self) -> None:
        self.jobs: list[Job[Any]] = []

    def __call__(self, jobs: Sequence[Job[Any]]) -> list[Any]:
        self.jobs += jobs
        return [job() for job in jobs]


VARIANTS = ["gardner", "atomic", "rifle"]


@pytest.fixture(scope="module")
def trained(net: PolicyValueNet) -> tuple[list[FocusStep], Recorder, dict[str, torch.Tensor]]:
    """The tiny loop's steps, every job it ran, and the JOAT network's weights before it."""
    before, recorder = snapshot(net), Recorder()
    steps = list(metafocus_train(net, VARIANTS, TINY, SEARCH, TrainConfig(), root(3), run=recorder))
    return steps, recorder, before


@pytest.mark.slow  # 3 s
def test_metafocus_train_runs_jobs_leaves_joat_alone_and_reproduces(
    net: PolicyValueNet, trained: tuple[list[FocusStep], Recorder, dict[str, torch.Tensor]]
) -> None:
    steps, recorder, before = trained
    assert [s.index for s in steps] == [0, 1]
    for step in steps:
        assert len(step.tasks) == 2 and set(step.tasks) <= set(VARIANTS)
        assert all(step.masks[t].dtype == np.bool_ and step.masks[t].shape == (8,) for t in step.tasks)
        assert all(0 <= step.rewards[t] <= 1 for t in step.tasks)
        assert all(step.keep_probabilities[t].shape == (8,) for t in step.tasks)
    assert steps[0].baseline == pytest.approx(np.mean(list(steps[0].rewards.values())))
    assert np.allclose(steps[0].keep_probabilities[steps[0].tasks[0]], 0.5), "the model starts at initial_keep"
    assert steps[1].model.config == FocusConfig(8, 0.5, 16)
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items()), "joat is never modified"

    names = [job.name for job in recorder.jobs]
    for step in steps:
        for task in step.tasks:
            tag = f"{task}-gen{step.index:03d}"
            assert {f"self-play-{tag}", f"train-{tag}", f"reward-{tag}"} <= set(names)
    assert len(names) == 12 == len(set(names))
    assert {job.fn for job in recorder.jobs if job.kind == "train"} == {masked_trained_copy}
    assert all(pickle.loads(pickle.dumps(job)).name == job.name for job in recorder.jobs)

    again = list(metafocus_train(net, VARIANTS, TINY, SEARCH, TrainConfig(), root(3)))
    for a, b in zip(steps, again, strict=True):
        assert a.tasks == b.tasks and a.rewards == b.rewards and a.baseline == b.baseline
        assert all(
            np.array_equal(a.masks[t], b.masks[t]) and np.array_equal(a.keep_probabilities[t], b.keep_probabilities[t])
            for t in a.tasks
        )
        assert all(torch.equal(v, b.model.state_dict()[k]) for k, v in a.model.state_dict().items())
    with pytest.raises(ValueError, match="distinct variants"):
        next(metafocus_train(net, ["gardner"], TINY, SEARCH, TrainConfig(), root(3)))


def test_metafocus_jobs_fingerprint(trained: tuple[list[FocusStep], Recorder, dict[str, torch.Tensor]]) -> None:
    """The study's runner keys every job by its arguments (``pipelines.jobs.fingerprint``)."""
    jobs_module = pytest.importorskip("pipelines.jobs")
    _, recorder, _ = trained
    keys = [jobs_module.fingerprint(job, "code") for job in recorder.jobs]
    assert len(set(keys)) == len(keys) == 12


# -- adaptation -------------------------------------------------------------------------------------------------


def test_adapt_many_with_a_focus_model_trains_its_mode_mask_only(net: PolicyValueNet) -> None:
    focus = FocusModel(8, positions=16)
    with torch.no_grad():
        focus.linear.bias.copy_(torch.from_numpy(np.where(MASK, 1.0, -1.0)))
    before = snapshot(net)
    training, seed = TrainConfig(epochs=1), root(4)
    recorder = Recorder()
    items = [Adaptation("rifle-a", net, "rifle", 2, seed, focus), Adaptation("rifle-b", net, "rifle", 2, seed),
             Adaptation("rifle-c", net, "rifle", 0, seed, focus)]  # fmt: skip
    focused, plain, zero = adapt_many(items, SEARCH, training, concurrent=2, max_plies=16, run=recorder)

    assert focused.mask is not None and np.array_equal(focused.mask, MASK)
    assert focused.self_play is not None
    assert np.array_equal(focused.mask, focus_mask(focus, net, focused.self_play.examples))
    after = focused.net.state_dict()
    assert all(torch.equal(after[k][~MASK], v[~MASK]) for k, v in trunk_tensors(before).items())
    assert plain.mask is None and zero.mask is None and zero.losses == []
    assert all(torch.equal(before[k], v) for k, v in zero.net.state_dict().items())

    train_jobs = {job.name: job for job in recorder.jobs if job.kind == "train"}
    assert train_jobs["train-rifle-a"].fn is masked_trained_copy
    assert np.array_equal(train_jobs["train-rifle-a"].kwargs["mask"], MASK)
    job = train_jobs["train-rifle-b"]  # no focus: the job is the one it always was
    assert list(job.kwargs) == ["net", "examples", "config", "seed", "device"]
    start, examples, config, train_seed, device = job.kwargs.values()
    assert job.fn is trained_copy and plain.self_play is not None
    assert start is net and examples is plain.self_play.examples and config == training and device == "cpu"
    assert train_seed.spawn_key == derive(seed, "train").spawn_key


# -- configs ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [({"iterations": 0}, "iterations"), ({"tasks": 0}, "tasks"), ({"games": -1}, "games"),
     ({"positions": 1.5}, "positions"), ({"reward_games": 0}, "reward_games"),
     ({"reward_simulations": True}, "reward_simulations"), ({"learning_rate": 0.0}, "learning_rate"),
     ({"learning_rate": float("inf")}, "learning_rate"), ({"baseline_decay": 1.0}, "baseline_decay"),
     ({"initial_keep": 1.0}, "initial_keep"), ({"initial_keep": float("nan")}, "initial_keep"),
     ({"epochs": 0}, "epochs"), ({"concurrent": 0}, "concurrent"), ({"max_plies": 0}, "max_plies")],
)  # fmt: skip
def test_metafocus_config_names_the_bad_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        replace(MetaFocusConfig(), **change)
    assert caught.value.field == field and caught.value.config == "MetaFocusConfig"
    assert "must" in caught.value.problem


@pytest.mark.parametrize(
    ("change", "field"),
    [({"channels": 0}, "channels"), ({"initial_keep": 0.0}, "initial_keep"), ({"positions": 0}, "positions")],
)
def test_focus_config_names_the_bad_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        replace(FocusConfig(8), **change)
    assert caught.value.field == field and caught.value.config == "FocusConfig"


def test_metafocus_training_replaces_epochs_and_threads() -> None:
    assert MetaFocusConfig(epochs=3).training(TrainConfig(epochs=9, threads=2)) == TrainConfig(epochs=3, threads=1)
