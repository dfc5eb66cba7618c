"""The built-in learners, each through the learner protocol (:mod:`mmc.meta.learners`) and each one implementation:

    joat         first-order Reptile over the training tasks (:func:`mmc.meta.meta_train`, ``joat``)
    multitask    the same task batches and games, one network trained on the pooled data (a baseline)
    metafocus    a meta-model of which of JOAT's trunk channels an adaptation trains, by REINFORCE
                 (:func:`mmc.meta.metafocus_train`); it starts from ``joat`` and brings its own adaptation rule
    scratch      a freshly initialised network: no games (the study's floor; no stage of its own)

JOAT and multitask read the study's ``meta`` section (the same budget by construction) and share the ``meta`` stream,
so within a replicate they start from the same network and draw the same task batches. MetaFocus's settings are its
entry under ``learners`` (:class:`mmc.meta.MetaFocusConfig`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from mmc.meta.adapt import Adaptation
from mmc.meta.joat import MetaConfig, MetaGeneration, meta_train, tail_average
from mmc.meta.learners import Learned, Learner, LearnerError, LearnerSetup, LossPoint, Service
from mmc.meta.metafocus import FocusModel, FocusStep, MetaFocusConfig, load_focus, metafocus_train, save_focus

__all__ = ["BUILT_IN", "JOAT", "METAFOCUS", "MULTITASK", "SCRATCH", "Joat", "MetaFocus", "Multitask", "Scratch"]

SAMPLE_GAMES = 4
"""Self-play games of the last meta-generation per task kept as the learner's sample."""
_TRAIN_SHARED = (
    "train.batch_size", "train.learning_rate", "train.momentum", "train.weight_decay", "train.value_loss_weight",
    "train.search_value_weight", "train.value_discount", "train.augment_mirror", "train.lr_schedule",
    "train.lr_floor", "train.policy_surprise", "train.convert_weight", "train.convert_plies",
    "train.moves_left_weight",
)  # fmt: skip
"""The training keys a meta-learner reads (not ``train.epochs``: its own epochs replace it)."""


def _meta_games(meta: MetaConfig) -> int:
    return meta.generations * meta.tasks * meta.games


class _MetaTrained(Learner):
    """JOAT and multitask: :func:`mmc.meta.meta_train` of one kind, settings from the study's ``meta`` section."""

    kind = ""

    def check(self, settings: Any, meta: MetaConfig, budget: int) -> None:
        if _meta_games(meta) > budget:
            raise LearnerError(
                f"learner {self.name!r} plays {_meta_games(meta)} self-play games (meta.generations {meta.generations}"
                f" x meta.tasks {meta.tasks} x meta.games {meta.games}), over the budget of {budget}"
            )

    def learn(self, setup: LearnerSetup, service: Service) -> Learned:
        generations: list[MetaGeneration] = []
        run = meta_train(self.kind, setup.initial_network(), setup.meta, setup.search, setup.train, setup.seed,
                         setup.device, run=service.run)  # fmt: skip
        for generation in run:
            generations.append(generation)
            service.log(generation.index, _generation_metrics(generation))
        last = generations[-1]
        net = tail_average([g.net for g in generations[-setup.meta.average :]])
        plays = Counter(variant for g in generations for variant in g.tasks)
        summary = {
            "generations": len(generations),
            "averaged_generations": setup.meta.average,
            **({"epsilon": setup.meta.epsilon} if self.kind == "joat" else {}),
            "selfplay_games": sum(len(p.records) for g in generations for p in g.self_play.values()),
            "selfplay_examples": sum(len(e) for g in generations for p in g.self_play.values() for e in p.examples),
            "train_variants": list(setup.tasks.variants),
            **({"distribution": setup.tasks.drawn_from} if setup.tasks.drawn_from else {}),
            "tasks_per_variant": dict(sorted(plays.items())),
            "final_loss": {variant: round(epochs[-1].total, 6) for variant, epochs in last.losses.items()},
        }
        steps = [
            {"generation": g.index, "tasks": " ".join(g.tasks),
             "games": sum(len(p.records) for p in g.self_play.values())}
            for g in generations
        ]  # fmt: skip
        sample = [record for played in last.self_play.values() for record in played.records[:SAMPLE_GAMES]]
        return Learned(net, None, self._losses(generations), steps, summary, sample)

    def _losses(self, generations: Sequence[MetaGeneration]) -> list[LossPoint]:
        raise NotImplementedError


class Joat(_MetaTrained):
    name = "joat"
    title = "JOAT"
    description = "the jack of all trades: first-order Reptile over the training tasks (the seed's JOAT)"
    kind = "joat"
    params = ("seed", "device", "network", "search", *_TRAIN_SHARED, "train.threads", "meta")

    def _losses(self, generations: Sequence[MetaGeneration]) -> list[LossPoint]:
        """JOAT's inner update per task (``inner``) and their mean (``meta_train``), the last epoch of each."""
        points = []
        for generation in generations:
            last = {variant: epochs[-1] for variant, epochs in generation.losses.items()}
            g = generation.index
            points += [LossPoint("inner", v, g, e.policy, e.value, e.total) for v, e in last.items()]
            mean = [sum(getattr(e, k) for e in last.values()) / len(last) for k in ("policy", "value", "total")]
            points.append(LossPoint("meta_train", "mean", g, *mean))
        return points


class Multitask(_MetaTrained):
    name = "multitask"
    title = "multitask"
    description = "the same task batches and games as JOAT, one network trained on the pooled data"
    kind = "multitask"
    baseline = True
    params = (
        "seed", "device", "network", "search", *_TRAIN_SHARED, "train.threads", "meta.train_variants", "meta.probs",
        "meta.tasks", "meta.generations", "meta.games", "meta.epochs", "meta.concurrent", "meta.max_plies",
        "meta.average",
    )  # fmt: skip
    """Not ``meta.epsilon``: the baseline has no outer step."""

    def _losses(self, generations: Sequence[MetaGeneration]) -> list[LossPoint]:
        """The pooled training of each meta-generation, its last epoch."""
        return [
            LossPoint("multitask", "pooled", g.index, e.policy, e.value, e.total)
            for g in generations
            for e in [g.losses["pooled"][-1]]
        ]


class MetaFocus(Learner):
    name = "metafocus"
    title = "MetaFocus"
    description = "JOAT adapted with the trunk channels its meta-model picks for the target (REINFORCE)"
    settings = MetaFocusConfig
    starts_from = "joat"
    zero_shot = False
    stream = "metafocus"
    params = ("seed", "device", "search", *_TRAIN_SHARED, "meta.train_variants")
    """Not ``train.epochs`` nor ``train.threads``: its own epochs replace one, its adaptations train side by side."""

    def check(self, settings: Any, meta: MetaConfig, budget: int) -> None:
        if settings.tasks > len(meta.train_variants):
            raise LearnerError(
                f"learner 'metafocus': tasks must be <= the {len(meta.train_variants)} meta.train_variants, got "
                f"{settings.tasks}"
            )
        games = settings.iterations * settings.tasks * (settings.games + settings.reward_games)
        if games > budget:
            raise LearnerError(
                f"learner 'metafocus' plays {games} self-play and reward games (iterations {settings.iterations} x "
                f"tasks {settings.tasks} x (games {settings.games} + reward_games {settings.reward_games})), over "
                f"the budget of {budget}"
            )

    def learn(self, setup: LearnerSetup, service: Service) -> Learned:
        joat, config = setup.start, setup.settings
        if joat is None:
            raise LearnerError("learner 'metafocus' needs joat's network")
        steps: list[FocusStep] = []
        training = config.training(setup.train)
        variants = list(setup.tasks.variants)
        for step in metafocus_train(joat, variants, config, setup.search, training, setup.seed, setup.device,
                                    run=service.run):  # fmt: skip
            steps.append(step)
            service.log(step.index, _focus_metrics(step))
        rewards = [step.rewards[t] for step in steps for t in step.tasks]
        summary = {
            "iterations": len(steps),
            "adaptations": len(rewards),
            "reward_mean": round(float(np.mean(rewards)), 6),
            "reward_last": round(float(np.mean([steps[-1].rewards[t] for t in steps[-1].tasks])), 6),
            "final_baseline": round(float(steps[-1].baseline), 6),
            "kept_mean": round(float(np.mean([np.count_nonzero(m) for s in steps for m in s.masks.values()])), 3),
        }
        return Learned(joat, steps[-1].model, (), _focus_rows(steps), summary)

    def adaptation(self, adaptation: Adaptation, state: Any) -> Adaptation:
        """JOAT's adaptation trains only the trunk channels the meta-model keeps for the target."""
        return replace(adaptation, focus=state)

    def save_state(self, state: Any, folder: Path) -> None:
        save_focus(state, folder / "focus.pt")

    def load_state(self, folder: Path) -> FocusModel:
        return load_focus(folder / "focus.pt")


class Scratch(Learner):
    name = "scratch"
    title = "scratch"
    description = "a freshly initialised network (no games): what a start must beat to have learned"
    baseline = True
    stream = "scratch"
    params = ("seed", "network")

    def learn(self, setup: LearnerSetup, service: Service) -> Learned:
        return Learned(setup.initial_network())


JOAT, MULTITASK, METAFOCUS, SCRATCH = Joat(), Multitask(), MetaFocus(), Scratch()
BUILT_IN: tuple[Learner, ...] = (JOAT, MULTITASK, METAFOCUS, SCRATCH)
"""The built-in learners, in the order the study lists them."""


def _generation_metrics(generation: MetaGeneration) -> dict[str, float]:
    metrics: dict[str, float] = {"meta_generation": generation.index}
    for variant, epochs in generation.losses.items():
        prefix = "pooled" if variant == "pooled" else f"inner.{variant}"
        metrics |= {f"{prefix}.loss_{part}": getattr(epochs[-1], part) for part in ("policy", "value", "total")}
    for variant, played in generation.self_play.items():
        games = max(1, len(played.records))
        metrics[f"selfplay_plies_per_game.{variant}"] = played.plies / games
        metrics[f"selfplay_draw_rate.{variant}"] = sum(r.result == "1/2-1/2" for r in played.records) / games
    return metrics


def _focus_metrics(step: FocusStep) -> dict[str, float]:
    metrics: dict[str, float] = {"iteration": step.index, "baseline": step.baseline}
    metrics["reward_mean"] = float(np.mean([step.rewards[t] for t in step.tasks]))
    for task in step.tasks:
        metrics[f"reward.{task}"] = float(step.rewards[task])
        metrics[f"kept.{task}"] = int(np.count_nonzero(step.masks[task]))
        metrics[f"keep_probability.{task}"] = float(np.mean(step.keep_probabilities[task]))
    return metrics


def _focus_rows(steps: Sequence[FocusStep]) -> list[dict[str, Any]]:
    """One row per masked adaptation of every iteration: its mask, the channels kept, the mean keep-probability,
    its reward and the baseline."""
    return [
        {
            "iteration": step.index,
            "task": task,
            "mask": "".join("1" if kept else "0" for kept in step.masks[task]),
            "kept": int(np.count_nonzero(step.masks[task])),
            "keep_probability": round(float(np.mean(step.keep_probabilities[task])), 6),
            "reward": round(float(step.rewards[task]), 6),
            "baseline": round(float(step.baseline), 6),
        }
        for step in steps
        for task in step.tasks
    ]
