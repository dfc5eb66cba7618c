"""Meta-learning across variants: JOAT (first-order Reptile) and its multitask baseline, task sampling and
few-shot adaptation.

>>> from mmc.seeding import root
>>> for step in meta_train("joat", net, MetaConfig(), SearchConfig(simulations=48), TrainConfig(), root(0)):
...     print(step.index, step.tasks)
>>> adapted = adapt(joat_net, "rifle", 20, SearchConfig(simulations=48), TrainConfig(), root(0))
"""

from mmc.meta.adapt import Adaptation, AdaptConfig, Adapted, adapt, adapt_many
from mmc.meta.joat import (
    KINDS,
    MetaConfig,
    MetaGeneration,
    joat_generation,
    meta_train,
    multitask_generation,
    task_batch,
)
from mmc.meta.reptile import meta_aggregate, sample_tasks

__all__ = [
    "KINDS",
    "AdaptConfig",
    "Adaptation",
    "Adapted",
    "MetaConfig",
    "MetaGeneration",
    "adapt",
    "adapt_many",
    "joat_generation",
    "meta_aggregate",
    "meta_train",
    "multitask_generation",
    "sample_tasks",
    "task_batch",
]
