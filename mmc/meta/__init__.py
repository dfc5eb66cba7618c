"""Meta-learning across variants: the learner protocol (:mod:`mmc.meta.learners`: what makes a start, from this
package or any installed one), JOAT (first-order Reptile) and its multitask baseline, task sampling, few-shot
adaptation, and MetaFocus (which trunk channels adapt to a task, learned with REINFORCE); the built-in learners are
:mod:`mmc.meta.builtin`.

>>> from mmc.core.seeding import root
>>> meta = MetaConfig(train_variants=("gardner", "baby", "rifle", "dark", "atomic", "extinction"))
>>> for step in meta_train("joat", net, meta, SearchConfig(simulations=48), TrainConfig(), root(0)):
...     print(step.index, step.tasks)
>>> adapted = adapt(joat_net, "rifle", 20, SearchConfig(simulations=48), TrainConfig(), root(0))
>>> for step in metafocus_train(joat_net, ["gardner", "rifle"], MetaFocusConfig(), search, TrainConfig(), root(0)):
...     print(step.index, step.rewards)
>>> focused = adapt(joat_net, "rifle", 20, SearchConfig(simulations=48), TrainConfig(), root(0), focus=step.model)
"""

from mmc.meta.adapt import Adaptation, AdaptConfig, Adapted, adapt, adapt_many
from mmc.meta.joat import (
    KINDS,
    MetaConfig,
    MetaGeneration,
    joat_generation,
    meta_train,
    multitask_generation,
    tail_average,
    task_batch,
)
from mmc.meta.learners import (
    BudgetError,
    Learned,
    Learner,
    LearnerError,
    LearnerSetup,
    LossPoint,
    NoSettings,
    Service,
    TrainingTasks,
)
from mmc.meta.metafocus import (
    FocusConfig,
    FocusModel,
    FocusStep,
    MetaFocusConfig,
    focus_mask,
    load_focus,
    log_likelihood,
    masked_trained_copy,
    metafocus_train,
    mode_mask,
    reinforce,
    sample_mask,
    save_focus,
    task_features,
)
from mmc.meta.registry import get_learner, installed_learners, register_learner
from mmc.meta.reptile import meta_aggregate, sample_tasks
from mmc.meta.tasks import TaskDistribution, same_game, study_tasks, task_seed

__all__ = [
    "KINDS",
    "AdaptConfig",
    "Adaptation",
    "Adapted",
    "BudgetError",
    "FocusConfig",
    "FocusModel",
    "FocusStep",
    "Learned",
    "Learner",
    "LearnerError",
    "LearnerSetup",
    "LossPoint",
    "MetaConfig",
    "MetaFocusConfig",
    "MetaGeneration",
    "NoSettings",
    "Service",
    "TaskDistribution",
    "TrainingTasks",
    "adapt",
    "adapt_many",
    "focus_mask",
    "get_learner",
    "installed_learners",
    "joat_generation",
    "load_focus",
    "log_likelihood",
    "masked_trained_copy",
    "meta_aggregate",
    "meta_train",
    "metafocus_train",
    "mode_mask",
    "multitask_generation",
    "register_learner",
    "reinforce",
    "same_game",
    "sample_mask",
    "sample_tasks",
    "save_focus",
    "study_tasks",
    "tail_average",
    "task_batch",
    "task_features",
    "task_seed",
]
