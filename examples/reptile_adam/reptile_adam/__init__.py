"""Reptile with an Adam outer step: a meta-learner for meta-minichess's study, written outside ``mmc`` to the
learner protocol (``mmc.meta.learners``).

Each meta-generation draws a batch of training tasks, adapts a copy of theta to each (self-play, one training),
and treats ``theta - mean(theta'_i)``, Reptile's direction (Nichol, Achiam and Schulman 2018), as the gradient of
an Adam step on theta (the "Reptile + Adam" of the paper's section 5). Batch-norm statistics take the tasks' mean.
Every game is played and every network trained through the platform's service, so the study fans the jobs out,
keeps them on disk and counts the games against its budget.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any

import torch

from mmc.core.configs import Count, Range, check_fields
from mmc.core.seeding import derive, rng
from mmc.meta import Learned, Learner, LearnerError, LearnerSetup, LossPoint, MetaConfig, Service

__all__ = ["LEARNER", "ReptileAdam", "Settings"]


@dataclass(frozen=True)
class Settings:
    """The study's ``learners.reptile_adam`` entry."""

    generations: Count = 8
    """Meta-generations (outer steps)."""
    tasks: Count = 4
    """Training tasks per meta-generation, drawn without replacement."""
    games: Count = 48
    """Self-play games per task per meta-generation."""
    epochs: Count = 8
    """Passes over a task's games in its inner training."""
    outer_lr: Annotated[float, Range(0, 10, low_open=True)] = 0.005
    """Adam's step size on the Reptile direction (Adam moves each weight by about this much a step)."""
    beta1: Annotated[float, Range(0, 1, high_open=True)] = 0.9
    beta2: Annotated[float, Range(0, 1, high_open=True)] = 0.999

    def __post_init__(self) -> None:
        check_fields(self)


class ReptileAdam(Learner):
    name = "reptile_adam"
    title = "Reptile-Adam"
    description = "first-order Reptile whose outer step is Adam's on the mean task displacement"
    settings = Settings

    def check(self, settings: Any, meta: MetaConfig, budget: int) -> None:
        games = settings.generations * settings.tasks * settings.games
        if games > budget:
            raise LearnerError(f"learner 'reptile_adam' plays {games} self-play games, over the budget of {budget}")
        if settings.tasks > len(meta.train_variants):
            raise LearnerError(f"learner 'reptile_adam': tasks {settings.tasks} > the training variants")

    def learn(self, setup: LearnerSetup, service: Service) -> Learned:
        config: Settings = setup.settings
        theta = setup.initial_network()
        outer = torch.optim.Adam(theta.parameters(), lr=config.outer_lr, betas=(config.beta1, config.beta2))
        inner = replace(setup.train, epochs=config.epochs, threads=1)  # the tasks train side by side
        losses: list[LossPoint] = []
        steps: list[dict[str, Any]] = []
        for g in range(config.generations):
            tasks = setup.tasks.draw(config.tasks, rng(derive(setup.seed, "tasks", g)))
            tag = f"gen{g:03d}"
            played = service.self_play(theta, tasks, config.games, derive(setup.seed, "self-play", g), tag=tag,
                                       search=setup.search, concurrent=setup.meta.concurrent,
                                       max_plies=setup.meta.max_plies, device=setup.device)  # fmt: skip
            trained = service.train([(t, theta, p.examples) for t, p in zip(tasks, played, strict=True)], inner,
                                    derive(setup.seed, "train", g), tag=tag, device=setup.device)  # fmt: skip
            step = _outer_step(theta, [t.net for t in trained], outer)
            last = [t.losses[-1] for t in trained]
            losses += [LossPoint("inner", t, g, e.policy, e.value, e.total) for t, e in zip(tasks, last, strict=True)]
            mean = [sum(getattr(e, k) for e in last) / len(last) for k in ("policy", "value", "total")]
            losses.append(LossPoint("outer", "mean", g, *mean))
            steps.append({"generation": g, "tasks": " ".join(tasks), "step_norm": round(step, 6)})
            service.log(g, {"outer_step_norm": step, "loss_total": mean[2]})
        theta.eval()
        summary = {"generations": config.generations, "outer_lr": config.outer_lr, "games_played": service.played}
        return Learned(theta, losses=losses, steps=steps, summary=summary)


def _outer_step(theta: torch.nn.Module, adapted: list[torch.nn.Module], outer: torch.optim.Optimizer) -> float:
    """One Adam step on theta along ``theta - mean(adapted)``; the norm of that direction."""
    tasks = [dict(net.named_parameters()) for net in adapted]
    outer.zero_grad()
    squared = 0.0
    with torch.no_grad():
        for name, param in theta.named_parameters():
            direction = param - torch.stack([task[name] for task in tasks]).mean(dim=0)
            param.grad = direction.clone()
            squared += float(direction.pow(2).sum())
    outer.step()
    buffers = [dict(net.named_buffers()) for net in adapted]
    with torch.no_grad():
        for name, buffer in theta.named_buffers():
            if buffer.is_floating_point():
                buffer.copy_(torch.stack([b[name] for b in buffers]).mean(dim=0))
    return squared**0.5


LEARNER = ReptileAdam()
"""The entry point's object."""
