"""The starting models of adaptation on disk: what the study gives a learner (:func:`learner_setup`), where each
start's checkpoint is and how its network is loaded, and its learner's adaptation rule (the starts' rules are
``mmc.evaluation.starts``). Shared by the learners', ``adapt`` and ``evaluate`` stages, which import no stage module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mmc.core.seeding import derive
from mmc.evaluation.starts import Start
from mmc.meta import Adaptation, Learner, LearnerSetup, Service, TrainingTasks, get_learner
from mmc.nn import PolicyValueNet, load_checkpoint
from pipelines.config import StudyConfig
from pipelines.paths import Paths

__all__ = ["adaptation_rule", "has_state", "learner_setup", "load_start", "start_path"]


def has_state(learner: Learner) -> bool:
    """Whether ``learner`` brings an adaptation rule with a state of its own (it implements ``save_state``)."""
    return type(learner).save_state is not Learner.save_state


def learner_setup(study: StudyConfig, paths: Paths, name: str, replicate: int) -> LearnerSetup:
    """What learner ``name`` is given in replicate ``replicate``: the training tasks, the budget, the network
    configuration, the search and training settings, the study's ``meta`` section, its own settings, the seed
    ``(stream,)`` of the replicate's and the network of the learner it starts from (``FileNotFoundError`` naming the
    stage to run first if that is not made yet)."""
    learner = get_learner(name)
    start = None
    if learner.starts_from is not None:
        path = paths.start_model(learner.starts_from, replicate)
        if not path.is_file():
            raise FileNotFoundError(f"{path} does not exist: run {learner.starts_from}@{replicate} first")
        start = load_checkpoint(path)[0]
    drawn = "" if study.distribution is None else study.distribution.describe()
    tasks = TrainingTasks(tuple(study.meta.train_variants), study.meta.probs, drawn)
    settings = study.learners.settings.get(name, learner.settings())
    seed = derive(study.training_seed(replicate), learner.stream)
    return LearnerSetup(name, replicate, tasks, study.learners.budget, study.network, study.search, study.train,
                        study.meta, settings, seed, study.device, start)  # fmt: skip


def start_path(paths: Paths, start: Start | str, replicate: int) -> Path | None:
    """The checkpoint of a starting model (``None`` for ``scratch``, which its learner makes from the seed)."""
    start = Start.parse(start)
    if start.is_scratch:
        return None
    if start.expert is not None:
        return paths.champion(start.expert, replicate)
    return paths.start_model(str(start), replicate)


def load_start(paths: Paths, study: StudyConfig, start: Start | str, replicate: int) -> PolicyValueNet:
    """The starting network of ``start`` in replicate ``replicate`` in eval mode."""
    path = start_path(paths, start, replicate)
    if path is None:
        name = str(start)
        return get_learner(name).learn(learner_setup(study, paths, name, replicate), Service(name, 0)).net
    if not path.is_file():
        raise FileNotFoundError(f"starting model {str(start)!r}: {path} does not exist (run its stage first)")
    return load_checkpoint(path)[0]


def adaptation_rule(paths: Paths, start: Start, replicate: int) -> Any:
    """How ``start``'s adaptations are made: a function of an ``mmc.meta.Adaptation`` to the one its learner's own
    rule makes (``mmc.meta.Learner.adaptation``, given its saved state); the identity for an expert."""
    learner = start.learner
    if learner is None:
        return lambda adaptation: adaptation
    state = learner.load_state(paths.start_state(str(start), replicate)) if has_state(learner) else None

    def rule(adaptation: Adaptation) -> Adaptation:
        return learner.adaptation(adaptation, state)

    return rule
