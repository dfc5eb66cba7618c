"""JOAT meta-training (first-order Reptile over variants) and its multitask baseline, meta-generation by
meta-generation.

JOAT (the seed's multi-variant architecture): every task of the batch adapts a copy of theta with one
AlphaZero iteration (:func:`mmc.meta.adapt_many`), then ``theta <- theta + epsilon * (mean theta'_i - theta)``
(:func:`mmc.meta.meta_aggregate`). Multitask: the same task batches, the same self-play budget, but one
network trained once on the pooled data (no inner/outer split). This is the one implementation: the built-in
learners ``joat`` and ``multitask`` (:mod:`mmc.meta.builtin`) call :func:`meta_train` with the platform's service,
whose runner (in the study) fans the jobs out and keeps them on disk.

Random streams, from the ``seed`` argument (``mmc.core.seeding``): the task batch of meta-generation ``g`` from
``("tasks", g)``; task ``t``'s self-play from ``("task", g, t, "self-play")`` and its inner update from
``("task", g, t, "train")``; multitask's training from ``("pooled", g, "train")``. Given the same seed and
starting network, both kinds draw the same batches and play the same first meta-generation's games. Every job
runs its network on the ``device`` argument (``mmc.nn.DEVICES``, default ``cpu``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Annotated

import numpy as np

from mmc.core.configs import ConfigError, Count, Range, check_fields
from mmc.core.fanout import Job, Runner, serial
from mmc.core.seeding import derive, rng
from mmc.games import get_game
from mmc.loops.alphazero import play_games
from mmc.meta.adapt import Adaptation, adapt_many
from mmc.meta.reptile import meta_aggregate, sample_tasks
from mmc.nn.network import PolicyValueNet
from mmc.play.selfplay import SelfPlayResult
from mmc.search import SearchConfig
from mmc.train import EpochLosses, TrainConfig, Trained, trained_copy

__all__ = [
    "KINDS",
    "MetaConfig",
    "MetaGeneration",
    "joat_generation",
    "meta_train",
    "multitask_generation",
    "tail_average",
    "task_batch",
]

KINDS = ("joat", "multitask")
"""What :func:`meta_train` makes: JOAT's theta, or the multitask baseline's network."""


@dataclass(frozen=True)
class MetaConfig:
    """JOAT meta-training and the multitask baseline's equal budget (the default study's ``params.yaml``
    section ``meta``)."""

    train_variants: tuple[str, ...] = ()
    """The variants tasks are drawn from, of one game family; a config names them (none is refused)."""
    probs: tuple[float, ...] | None = None
    """Sampling probability of each train variant, in order (``None``: uniform)."""
    tasks: Count = 4
    """Variants in each meta-generation's task batch (drawn without replacement)."""
    generations: Count = 8
    """Meta-generations (outer updates)."""
    games: Count = 48
    """Self-play games per task per meta-generation; the multitask baseline plays the same games."""
    epsilon: Annotated[float, Range(0, 1)] = 1.0
    """Meta step size: ``theta <- theta + epsilon * (mean theta'_i - theta)``; 1 is the seed's plain average."""
    epochs: Count = 8
    """Passes over the data of JOAT's inner update and of the multitask network's training (replaces
    ``train.epochs`` there: the same passes over the same examples, so both spend the same compute)."""
    concurrent: Count = 64
    """Self-play games searched together in one job."""
    max_plies: Count = 150
    """Ply cap of self-play games."""
    average: Count = 1
    """The learner's network is the mean of the weights of its last ``average`` meta-generations
    (:func:`tail_average`: tail averaging, as stochastic weight averaging, so that where training stops moves the
    start less); 1 is the last generation's network. At most ``generations``."""

    def __post_init__(self) -> None:
        check_fields(self)
        variants = self.train_variants
        if not variants:
            raise ConfigError("MetaConfig", "train_variants", "must name at least one variant")
        families = set()
        for variant in variants:
            try:
                families.add(get_game(variant).name)
            except ValueError as error:
                raise ConfigError("MetaConfig", "train_variants", str(error)) from None
        if len(families) > 1:
            found = ", ".join(sorted(families))
            raise ConfigError("MetaConfig", "train_variants", f"must be variants of one game family, got {found}")
        if len(set(variants)) < len(variants):
            raise ConfigError("MetaConfig", "train_variants", f"names a variant twice: {list(variants)}")
        if self.average > self.generations:
            raise ConfigError("MetaConfig", "average", f"must be <= generations={self.generations}, got {self.average}")
        if self.tasks > len(variants):
            raise ConfigError("MetaConfig", "tasks", f"must be <= the {len(variants)} train_variants, got {self.tasks}")
        if self.probs is not None:
            probs = self.probs
            if len(probs) != len(variants) or min(probs) < 0 or abs(sum(probs) - 1) > 1e-6:
                raise ConfigError(
                    "MetaConfig", "probs",
                    f"must be null or {len(variants)} numbers >= 0 summing to 1 (one per train variant), "
                    f"got {list(probs)}",
                )  # fmt: skip
            if sum(p > 0 for p in probs) < self.tasks:
                raise ConfigError("MetaConfig", "probs", f"gives fewer than tasks={self.tasks} variants a chance")

    def training(self, train: TrainConfig) -> TrainConfig:
        """The training settings of the inner update (and of the multitask network): ``train`` with these epochs."""
        return replace(train, epochs=self.epochs)


@dataclass(frozen=True)
class MetaGeneration:
    """What one meta-generation produced."""

    index: int
    tasks: list[str]
    """The task batch, in order."""
    net: PolicyValueNet = field(repr=False)
    """The new meta-parameters (JOAT's theta, or the multitask network)."""
    losses: dict[str, list[EpochLosses]]
    """JOAT: each task's inner-update losses by variant; multitask: ``{"pooled": losses}``."""
    self_play: dict[str, SelfPlayResult]
    """The games played, by variant."""


def task_batch(config: MetaConfig, seed: np.random.SeedSequence, index: int) -> list[str]:
    """The task batch of meta-generation ``index`` (the same for JOAT and multitask given the same seed)."""
    return sample_tasks(list(config.train_variants), config.probs, config.tasks, rng(derive(seed, "tasks", index)))


def _tag(index: int) -> str:
    return f"gen{index:03d}"


def joat_generation(
    index: int, theta: PolicyValueNet, tasks: Sequence[str], config: MetaConfig, search: SearchConfig,
    training: TrainConfig, seed: np.random.SeedSequence, device: str = "cpu", *, run: Runner = serial,
) -> MetaGeneration:  # fmt: skip
    """Adapt a copy of ``theta`` to each task with ``config.games`` self-play games (jobs ``self-play-{task}-genNNN``,
    ``train-{task}-genNNN``, on ``device``), then Reptile-aggregate them with ``config.epsilon``."""
    adaptations = [
        Adaptation(f"{task}-{_tag(index)}", theta, task, config.games, derive(seed, "task", index, task))
        for task in tasks
    ]
    inner = replace(config.training(training), threads=1)  # the tasks' inner updates train side by side
    adapted = adapt_many(adaptations, search, inner, concurrent=config.concurrent,
                         max_plies=config.max_plies, device=device, run=run)  # fmt: skip
    net = copy.deepcopy(theta)
    net.load_state_dict(meta_aggregate(theta.state_dict(), [a.net.state_dict() for a in adapted], config.epsilon))
    net.eval()
    played = {task: a.self_play for task, a in zip(tasks, adapted, strict=True) if a.self_play is not None}
    return MetaGeneration(index, list(tasks), net, {t: a.losses for t, a in zip(tasks, adapted, strict=True)}, played)


def multitask_generation(
    index: int, net: PolicyValueNet, tasks: Sequence[str], config: MetaConfig, search: SearchConfig,
    training: TrainConfig, seed: np.random.SeedSequence, device: str = "cpu", *, run: Runner = serial,
) -> MetaGeneration:  # fmt: skip
    """Self-play ``config.games`` games of each task with ``net``, then train a copy once on all of it pooled
    (jobs ``self-play-{task}-genNNN``, ``train-pooled-genNNN``, on ``device``)."""
    jobs = [
        Job(
            "self-play",
            (f"{task}-{_tag(index)}",),
            play_games,
            dict(
                net=net,
                variant=task,
                games=config.games,
                search=search,
                seed=derive(seed, "task", index, task, "self-play"),
                concurrent=config.concurrent,
                max_plies=config.max_plies,
                device=device,
            ),
        )
        for task in tasks
    ]
    played: dict[str, SelfPlayResult] = dict(zip(tasks, run(jobs), strict=True))
    pooled = [part for result in played.values() for part in result.examples]
    train = Job("train", (f"pooled-{_tag(index)}",), trained_copy,
                dict(net=net, examples=pooled, config=config.training(training),
                     seed=derive(seed, "pooled", index, "train"), device=device))  # fmt: skip
    (trained,) = run([train])
    assert isinstance(trained, Trained)
    return MetaGeneration(index, list(tasks), trained.net, {"pooled": trained.losses}, played)


def meta_train(
    kind: str, net: PolicyValueNet, config: MetaConfig, search: SearchConfig, training: TrainConfig,
    seed: np.random.SeedSequence, device: str = "cpu", *, run: Runner = serial,
) -> Iterator[MetaGeneration]:  # fmt: skip
    """``config.generations`` meta-generations of ``kind`` (``joat`` or ``multitask``) from ``net`` (left
    untouched) with every job on ``device`` (``mmc.nn.DEVICES``), yielding each as it finishes."""
    if kind not in KINDS:
        raise ValueError(f"meta-training kind must be one of {', '.join(KINDS)}, got {kind!r}")
    step = joat_generation if kind == "joat" else multitask_generation
    for index in range(config.generations):
        generation = step(index, net, task_batch(config, seed, index), config, search, training, seed, device, run=run)
        net = generation.net
        yield generation


def tail_average(nets: Sequence[PolicyValueNet]) -> PolicyValueNet:
    """The mean of the weights of ``nets`` (the last meta-generations' networks, oldest first) as a new network in
    eval mode: :func:`mmc.meta.meta_aggregate` with ``epsilon = 1`` onto the last one, so batch norm's running
    statistics are averaged with the weights they describe. One network is returned as a copy of itself."""
    if not nets:
        raise ValueError("tail_average needs at least one network")
    last = nets[-1]
    net = copy.deepcopy(last)
    if len(nets) > 1:
        net.load_state_dict(meta_aggregate(last.state_dict(), [n.state_dict() for n in nets], 1.0))
    return net.eval()
