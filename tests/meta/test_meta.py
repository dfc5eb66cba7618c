"""Reptile's meta-aggregate arithmetic, task sampling, and adaptation budgets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import torch

from mmc.core.configs import ConfigError
from mmc.core.fanout import Job
from mmc.core.seeding import derive, root
from mmc.meta import (
    AdaptConfig,
    MetaConfig,
    adapt,
    joat_generation,
    meta_aggregate,
    meta_train,
    multitask_generation,
    sample_tasks,
    tail_average,
    task_batch,
)
from mmc.nn import NetworkConfig, build_network
from mmc.search import SearchConfig
from mmc.train import TrainConfig


def small(seed: int) -> dict[str, torch.Tensor]:
    return {
        "w": torch.full((2, 2), float(seed)),
        "bn.running_mean": torch.tensor([seed, 2.0 * seed]),
        "bn.num_batches_tracked": torch.tensor(10 + seed, dtype=torch.long),
    }


def test_epsilon_one_is_the_mean_and_zero_is_theta() -> None:
    theta, tasks = small(0), [small(2), small(4)]
    mean = meta_aggregate(theta, tasks, 1.0)
    assert torch.equal(mean["w"], torch.full((2, 2), 3.0))
    assert torch.equal(mean["bn.running_mean"], torch.tensor([3.0, 6.0]))
    assert meta_aggregate(theta, tasks, 0.0)["w"].equal(theta["w"])
    assert torch.equal(meta_aggregate(theta, tasks, 0.5)["w"], torch.full((2, 2), 1.5))
    assert int(mean["bn.num_batches_tracked"]) == 13  # theta's 10 plus the tasks' mean increment (2 + 4) / 2
    assert torch.equal(theta["w"], torch.zeros(2, 2)), "theta is not modified"


def test_the_tail_average_is_the_mean_of_the_last_networks_weights() -> None:
    nets = [build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=s) for s in range(3)]
    for net in nets:  # batch norm's running statistics differ too, as after training
        net.train()
        net(torch.randn(4, net.config.in_planes, 5, 5))
    averaged = tail_average(nets)
    assert not averaged.training and averaged is not nets[-1]
    for key, value in averaged.state_dict().items():
        if value.is_floating_point():
            torch.testing.assert_close(value, torch.stack([n.state_dict()[key] for n in nets]).mean(dim=0))
    one = tail_average(nets[-1:])
    assert one is not nets[-1] and all(torch.equal(v, nets[-1].state_dict()[k]) for k, v in one.state_dict().items())
    with pytest.raises(ValueError, match="at least one network"):
        tail_average([])


def test_aggregate_rejects_mismatches() -> None:
    with pytest.raises(ValueError, match="at least one"):
        meta_aggregate(small(0), [], 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        meta_aggregate(small(0), [small(1)], 1.5)
    with pytest.raises(ValueError, match="keys"):
        meta_aggregate(small(0), [{"w": torch.zeros(2, 2)}], 1.0)


def test_aggregate_of_real_networks_loads_back() -> None:
    config = NetworkConfig(game="chess", blocks=1, filters=8)
    theta = build_network(config, seed=0)
    tasks = [build_network(config, seed=s).state_dict() for s in (1, 2, 3)]
    theta.load_state_dict(meta_aggregate(theta.state_dict(), tasks, 1.0))
    expected = torch.stack([t["stem_conv.weight"] for t in tasks]).mean(0)
    assert torch.allclose(theta.state_dict()["stem_conv.weight"], expected, atol=1e-6)


def test_sample_tasks() -> None:
    variants = ["gardner", "atomic", "rifle", "dark"]
    rng = np.random.default_rng(0)
    assert sample_tasks(variants, None, 9, rng) == variants
    draws = [tuple(sample_tasks(variants, None, 2, rng)) for _ in range(50)]
    assert all(len(set(d)) == 2 for d in draws) and len(set(draws)) > 2
    assert all(d == ("gardner", "atomic") for d in (tuple(sample_tasks(variants, [0.5, 0.5, 0, 0], 2, rng)),))
    with pytest.raises(ValueError, match="probs"):
        sample_tasks(variants, [1.0], 2, rng)


def test_budget_zero_returns_the_start_unchanged_and_a_budget_trains_a_copy() -> None:
    start = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    before = {k: v.clone() for k, v in start.state_dict().items()}
    search, training = SearchConfig(simulations=4), TrainConfig(epochs=1)
    same = adapt(start, "rifle", 0, search, training, root(0))
    assert same.net is not start and same.losses == [] and same.self_play is None
    assert all(torch.equal(before[k], v) for k, v in same.net.state_dict().items())
    moved = adapt(start, "rifle", 3, search, training, root(0), max_plies=20)
    assert len(moved.losses) == 1 and moved.self_play is not None and len(moved.self_play.records) == 3
    assert any(not torch.equal(before[k], v) for k, v in moved.net.state_dict().items())
    assert all(torch.equal(before[k], v) for k, v in start.state_dict().items()), "start is never modified"
    with pytest.raises(ValueError, match="budget"):
        adapt(start, "rifle", -1, search, training, root(0))


TINY_META = MetaConfig(train_variants=("gardner", "atomic"), tasks=2, generations=2, games=2, epochs=1, concurrent=2,
                       max_plies=16)  # fmt: skip


def test_joat_generation_with_epsilon_one_is_the_mean_of_the_task_networks() -> None:
    theta = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    search, training = SearchConfig(simulations=4), TrainConfig(epochs=3)
    step = joat_generation(0, theta, ["gardner", "atomic"], TINY_META, search, training, root(0))
    # the inner update is an adaptation with the task's seed and meta.epochs (not train.epochs)
    again = [adapt(theta, task, 2, search, TINY_META.training(training), derive(root(0), "task", 0, task), max_plies=16,
                   concurrent=2) for task in ("gardner", "atomic")]  # fmt: skip
    mean = torch.stack([a.net.state_dict()["stem_conv.weight"] for a in again]).mean(0)
    assert torch.allclose(step.net.state_dict()["stem_conv.weight"], mean, atol=1e-6)
    assert set(step.losses) == {"gardner", "atomic"} and set(step.self_play) == {"gardner", "atomic"}
    assert all(len(losses) == 1 for losses in step.losses.values())


def test_multitask_generation_trains_one_network_on_pooled_boards_of_both_sizes() -> None:
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    config = replace(TINY_META, train_variants=("gardner", "los_alamos"), epochs=2)
    step = multitask_generation(0, net, ["gardner", "los_alamos"], config, SearchConfig(simulations=4),
                                TrainConfig(), root(0))  # fmt: skip
    assert list(step.losses) == ["pooled"] and len(step.losses["pooled"]) == 2
    assert {r.variant for results in step.self_play.values() for r in results.records} == {"gardner", "los_alamos"}
    assert step.net is not net


@pytest.mark.slow  # 3 s
def test_joat_and_multitask_share_task_batches_and_first_games() -> None:
    """Given one seed and network, both kinds draw the same batches and play the same first meta-generation."""
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    config = replace(TINY_META, train_variants=("gardner", "atomic", "rifle"), tasks=2)
    search, training = SearchConfig(simulations=4), TrainConfig(epochs=1)
    joat = list(meta_train("joat", net, config, search, training, root(3)))
    multitask = list(meta_train("multitask", net, config, search, training, root(3)))
    assert [g.tasks for g in joat] == [g.tasks for g in multitask]
    first = joat[0].tasks[0]
    assert joat[0].self_play[first].records == multitask[0].self_play[first].records
    assert [task_batch(config, root(3), g) for g in range(2)] == [g.tasks for g in joat]
    with pytest.raises(ValueError, match="kind"):
        next(meta_train("maml", net, config, search, training, root(3)))


@pytest.mark.parametrize(
    ("change", "field"),
    [({"epsilon": 1.5}, "epsilon"), ({"tasks": 3}, "tasks"), ({"train_variants": ("gardner", "x")}, "train_variants"),
     ({"probs": (1.0, 0.0)}, "probs"), ({"games": 0}, "games"), ({"average": 3}, "average"),
     ({"average": 0}, "average")],
)  # fmt: skip
def test_meta_config_names_the_bad_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        replace(TINY_META, **change)
    assert caught.value.field == field and caught.value.config == "MetaConfig"


def test_only_the_trainings_that_run_alone_use_train_threads() -> None:
    """The multitask network's pooled training runs alone and gets ``train.threads``; JOAT's inner updates and the
    adaptations run side by side, one thread each (the second core is busy with the other jobs)."""
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    search, training = SearchConfig(simulations=2), TrainConfig(epochs=1, threads=2)
    threads: dict[str, int] = {}

    def record(jobs: Sequence[Job[Any]]) -> list[Any]:
        for job in jobs:
            if job.kind == "train":
                (config,) = [a for a in job.kwargs.values() if isinstance(a, TrainConfig)]
                threads[job.name] = config.threads
        return [job() for job in jobs]

    joat_generation(0, net, ["gardner", "atomic"], TINY_META, search, training, root(0), run=record)
    multitask_generation(0, net, ["gardner", "atomic"], TINY_META, search, training, root(0), run=record)
    assert threads == {"train-gardner-gen000": 1, "train-atomic-gen000": 1, "train-pooled-gen000": 2}
    assert AdaptConfig().training(training).threads == 1


@pytest.mark.parametrize("name", ["joat", "multitask"])
def test_a_meta_learner_gives_the_tail_average_of_its_last_generations(name: str) -> None:
    """``meta.average``: the learner's network is the mean of its last generations' weights, from the same run."""
    from mmc.meta import LearnerSetup, NoSettings, Service, TrainingTasks, get_learner

    meta = replace(TINY_META, generations=3, average=2)
    network, search, training = (
        NetworkConfig(game="chess", blocks=1, filters=8),
        SearchConfig(simulations=2),
        TrainConfig(epochs=1),
    )
    setup = LearnerSetup(name, 0, TrainingTasks(meta.train_variants), 100, network, search, training, meta,
                         NoSettings(), root(4))  # fmt: skip
    learned = get_learner(name).learn(setup, Service(name, 100))
    generations = list(meta_train(name, setup.initial_network(), meta, search, training, setup.seed))
    expected = tail_average([g.net for g in generations[-2:]])
    assert learned.summary["averaged_generations"] == 2
    for key, value in expected.state_dict().items():
        torch.testing.assert_close(learned.net.state_dict()[key], value)
    assert not torch.equal(
        learned.net.state_dict()["stem_conv.weight"], generations[-1].net.state_dict()["stem_conv.weight"]
    )
