"""The AlphaZero loop strings self-play, training and gating together and keeps its promises."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import torch

from mmc.core.configs import ConfigError
from mmc.core.fanout import Job
from mmc.core.seeding import root
from mmc.loops.alphazero import AlphaZeroConfig, alphazero, arena_match, play_games
from mmc.nn import DeviceError, NetworkConfig, build_network
from mmc.play import gate
from mmc.search import SearchConfig
from mmc.train import TrainConfig, trained_copy

TINY = AlphaZeroConfig(generations=2, games=4, chunks=2, concurrent=4, max_plies=30, window=2, arena_games=4,
                       arena_simulations=4)  # fmt: skip


@pytest.mark.slow  # 3-4 s a case
@pytest.mark.parametrize("threshold", [0.0, 1.0])
def test_generations_train_gate_and_leave_the_start_network_alone(threshold: float) -> None:
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    before = {k: v.clone() for k, v in net.state_dict().items()}
    config = replace(TINY, gate_threshold=threshold)
    steps = list(alphazero(net, "gardner", config, SearchConfig(simulations=8), TrainConfig(epochs=2), root(0)))
    assert [s.index for s in steps] == [0, 1]
    champion = net
    for step in steps:
        assert len(step.losses) == 2 and all(np.isfinite(loss.total) for loss in step.losses)
        assert len(step.self_play.records) == 4
        window = steps[max(0, step.index - config.window + 1) : step.index + 1]
        assert step.window_examples == sum(len(part) for g in window for part in g.self_play.examples)
        assert step.arena is not None and step.arena.games == 4
        assert step.accepted == gate(step.arena, threshold)
        assert (step.champion is not champion) == step.accepted
        assert step.champion is (step.candidate if step.accepted else champion)
        assert step.champion_index == (
            step.index if step.accepted else steps[step.index - 1].champion_index if step.index else -1
        )
        champion = step.champion
    if threshold == 0.0:
        assert all(step.accepted for step in steps)
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())


@pytest.mark.slow  # 2.5 s
def test_the_replay_window_in_positions_spans_the_newest_examples() -> None:
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    config = replace(TINY, generations=3, arena_games=0, window_positions=150)
    steps = list(alphazero(net, "gardner", config, SearchConfig(simulations=4), TrainConfig(epochs=1), root(0)))
    for step in steps:
        made = sum(len(part) for s in steps[: step.index + 1] for part in s.self_play.examples)
        assert step.window_examples == min(150, made)
    assert steps[0].self_play.plies < 150 < steps[0].self_play.plies + steps[1].self_play.plies, "spans generations"


def test_config_is_checked() -> None:
    with pytest.raises(ConfigError, match="games") as caught:
        AlphaZeroConfig(games=0)
    assert caught.value.field == "games"
    with pytest.raises(ConfigError, match="gate_threshold"):
        AlphaZeroConfig(gate_threshold=1.5)
    with pytest.raises(ConfigError, match="chunks"):
        AlphaZeroConfig(games=2, chunks=3)
    with pytest.raises(ConfigError, match=r"AlphaZeroConfig\.window_positions must be an int >= 0"):
        AlphaZeroConfig(window_positions=-1)


@pytest.mark.slow  # three loops: 14-18 s
def test_the_runner_sees_every_job_and_the_order_of_execution_changes_nothing() -> None:
    """A runner that runs each call's jobs in reverse order (as a pool may finish them) gives the same generations,
    so the study's runner (Prefect task runs, any order) computes what the serial loop does."""
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    names: list[str] = []

    def backwards(jobs: Sequence[Job[Any]]) -> list[Any]:
        names.extend(job.name for job in jobs)
        return list(reversed([job() for job in reversed(jobs)]))

    args = (net, "gardner", TINY, SearchConfig(simulations=4), TrainConfig(epochs=1), root(5))
    serial_steps = list(alphazero(*args))
    steps = list(alphazero(*args, run=backwards))
    assert names[:4] == [
        "self-play-gardner-gen000-chunk00", "self-play-gardner-gen000-chunk01", "train-gardner-gen000",
        "arena-gardner-gen000-chunk00",
    ]  # fmt: skip
    assert len(names) == len(set(names)) == 2 * (2 + 1 + 2)
    for a, b in zip(serial_steps, steps, strict=True):
        assert a.self_play.records == b.self_play.records and a.arena == b.arena
        assert all(
            torch.equal(x, y)
            for x, y in zip(a.champion.state_dict().values(), b.champion.state_dict().values(), strict=True)
        )
    other = list(alphazero(net, "gardner", TINY, SearchConfig(simulations=4), TrainConfig(epochs=1), root(6)))
    assert other[0].self_play.records != serial_steps[0].self_play.records


@pytest.mark.slow  # 2 s
def test_the_jobs_on_device_cpu_compute_what_they_did_before() -> None:
    """``device="cpu"`` is the default, bit for bit: the same games, the same trained weights, the same arena."""
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    search = SearchConfig(simulations=4)
    played = play_games(net, "gardner", 2, search, root(1), 2, 30)
    assert play_games(net, "gardner", 2, search, root(1), 2, 30, "cpu").records == played.records
    default = trained_copy(net, played.examples, TrainConfig(epochs=1), root(2))
    on_cpu = trained_copy(net, played.examples, TrainConfig(epochs=1), root(2), "cpu")
    assert default.losses == on_cpu.losses
    pairs = zip(default.net.state_dict().values(), on_cpu.net.state_dict().values(), strict=True)
    assert all(torch.equal(a, b) for a, b in pairs)
    arena = arena_match(default.net, net, "gardner", 2, 4, root(3), 30)
    assert arena_match(default.net, net, "gardner", 2, 4, root(3), 30, "fp32", "cpu") == arena


@pytest.mark.skipif(torch.cuda.is_available(), reason="torch sees a CUDA device here")
def test_a_job_on_cuda_without_one_stops_before_it_plays() -> None:
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    with pytest.raises(DeviceError, match="torch sees no CUDA device"):
        play_games(net, "gardner", 2, SearchConfig(simulations=4), root(1), 2, 30, "cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no CUDA device here")
def test_a_generation_on_cuda_hands_back_cpu_networks() -> None:
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    config = replace(TINY, generations=1)
    (step,) = alphazero(net, "gardner", config, SearchConfig(simulations=4), TrainConfig(epochs=1), root(0), "cuda")
    assert len(step.self_play.records) == 4 and step.arena is not None and step.arena.games == 4
    assert not next(step.candidate.parameters()).is_cuda and not next(net.parameters()).is_cuda
