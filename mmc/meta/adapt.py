"""Few-shot adaptation: at most one AlphaZero iteration of a start network on one variant.

"Self-play with the start network, then train a copy of it on those games" is the seed's inner update:
JOAT's meta-generation adapts theta to every task of its batch this way (``mmc.meta.joat``), and the
study's ``adapt@T`` stage adapts every start to every target with every budget. Both call
:func:`adapt_many`, which hands its self-play jobs and then its training jobs to the runner (``mmc.core.fanout``).
Budgets count self-play games; budget 0 is the start unchanged. The jobs run their networks on the ``device``
argument (``mmc.nn.DEVICES``, default ``cpu``).

An adaptation with a MetaFocus model (``Adaptation.focus``, ``mmc.meta.metafocus``) trains only the trunk channels
its model keeps: after the self-play, the features of the first ``focus.config.positions`` of its own positions
give the mode mask, and its training job is :func:`~mmc.meta.metafocus.masked_trained_copy` with that mask.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from mmc.core.configs import ConfigError, Count, check_fields
from mmc.core.fanout import Job, Runner, serial
from mmc.core.seeding import derive
from mmc.loops.alphazero import play_games
from mmc.meta.metafocus import FocusModel, focus_mask, masked_trained_copy
from mmc.nn.network import PolicyValueNet
from mmc.play.selfplay import SelfPlayResult
from mmc.search import SearchConfig
from mmc.train import EpochLosses, TrainConfig, Trained, trained_copy

__all__ = ["AdaptConfig", "Adaptation", "Adapted", "adapt", "adapt_many"]


@dataclass(frozen=True)
class AdaptConfig:
    """How every start is adapted to a target (the default study's ``params.yaml`` section ``adapt``)."""

    budgets: tuple[int, ...] = (0, 100)
    """Self-play games of the adaptation iteration (0: the start unchanged)."""
    epochs: Count = 8
    """Passes over the adaptation's games when training (replaces ``train.epochs``)."""
    concurrent: Count = 100
    """Self-play games searched together in one job."""
    max_plies: Count = 150
    """Ply cap of the adaptation's self-play games."""

    def __post_init__(self) -> None:
        check_fields(self)
        budgets = self.budgets
        if not budgets or min(budgets) < 0 or len(set(budgets)) < len(budgets):
            raise ConfigError(
                "AdaptConfig", "budgets", f"must be distinct self-play game counts >= 0, got {list(budgets)}"
            )

    def training(self, train: TrainConfig) -> TrainConfig:
        """The adaptation's training settings: ``train`` with these epochs and one thread (the adaptations of a
        target train side by side)."""
        return replace(train, epochs=self.epochs, threads=1)


@dataclass(frozen=True)
class Adaptation:
    """One adaptation to make: ``start`` with ``games`` self-play games of ``variant``."""

    label: str
    """Names its jobs: ``self-play-{label}``, ``train-{label}`` (``joat-b020``, ``rifle-gen003``)."""
    start: PolicyValueNet = field(repr=False)
    variant: str
    games: int
    seed: np.random.SeedSequence
    """Its streams: ``("self-play",)`` and ``("train",)``. Adaptations given the same seed play from the same
    streams (common random numbers: differences between starts come from the starts)."""
    focus: FocusModel | None = field(default=None, repr=False)
    """A MetaFocus model choosing the trunk channels that learn (``None``: all of them, plain training)."""


@dataclass(frozen=True)
class Adapted:
    """A network after (at most) one AlphaZero iteration on one variant."""

    net: PolicyValueNet = field(repr=False)
    losses: list[EpochLosses]
    """Per-epoch training losses (empty for budget 0)."""
    self_play: SelfPlayResult | None
    """The games played (``None`` for budget 0)."""
    mask: np.ndarray | None = None
    """``bool[filters]``: the trunk channels that learned, chosen by the adaptation's focus model (``None`` without
    one, or for budget 0)."""


def adapt_many(
    adaptations: Sequence[Adaptation], search: SearchConfig, training: TrainConfig, *, concurrent: int,
    max_plies: int, device: str = "cpu", run: Runner = serial,
) -> list[Adapted]:  # fmt: skip
    """Every adaptation: all the self-play jobs, then all the training jobs (each a trained copy of its start, masked
    where it has a focus model), their networks on ``device``.

    Budget 0 returns a copy of the start with identical weights. A start is never modified.
    """
    for item in adaptations:
        if item.games < 0:
            raise ValueError(f"adaptation budget must be >= 0 games, got {item.games}")
    playing = [item for item in adaptations if item.games > 0]
    played = run([_self_play_job(item, search, concurrent, max_plies, device) for item in playing])
    masks = [
        None if item.focus is None else focus_mask(item.focus, item.start, games.examples)
        for item, games in zip(playing, played, strict=True)
    ]
    trained = run([_train_job(item, games, mask, training, device) for item, games, mask in
                   zip(playing, played, masks, strict=True)])  # fmt: skip
    done = iter(zip(played, trained, masks, strict=True))
    results = []
    for item in adaptations:
        if item.games == 0:
            results.append(Adapted(copy.deepcopy(item.start), [], None))
        else:
            games, t, mask = next(done)
            results.append(Adapted(t.net, t.losses, games, mask))
    return results


def _self_play_job(
    item: Adaptation, search: SearchConfig, concurrent: int, max_plies: int, device: str
) -> Job[SelfPlayResult]:
    seed = derive(item.seed, "self-play")
    kwargs = dict(net=item.start, variant=item.variant, games=item.games, search=search, seed=seed,
                  concurrent=concurrent, max_plies=max_plies, device=device)  # fmt: skip
    return Job("self-play", (item.label,), play_games, kwargs)


def _train_job(
    item: Adaptation, played: SelfPlayResult, mask: np.ndarray | None, training: TrainConfig, device: str
) -> Job[Trained]:
    kwargs = dict(net=item.start, examples=played.examples, config=training, seed=derive(item.seed, "train"),
                  device=device)  # fmt: skip
    if mask is None:
        return Job("train", (item.label,), trained_copy, kwargs)
    return Job("train", (item.label,), masked_trained_copy, {**kwargs, "mask": mask})


def adapt(
    start: PolicyValueNet, variant: str, games: int, search: SearchConfig, training: TrainConfig,
    seed: np.random.SeedSequence, *, concurrent: int = 100, max_plies: int = 150, device: str = "cpu",
    run: Runner = serial, focus: FocusModel | None = None,
) -> Adapted:  # fmt: skip
    """Self-play ``games`` games of ``variant`` with ``start``, then train a copy of it on them once (only the trunk
    channels that ``focus`` keeps, when given).

    ``games == 0`` returns a copy of ``start`` with identical weights. ``start`` itself is never modified.
    """
    (adapted,) = adapt_many([Adaptation(variant, start, variant, games, seed, focus)], search, training,
                            concurrent=concurrent, max_plies=max_plies, device=device, run=run)  # fmt: skip
    return adapted
