"""Meta-learning across variants: Reptile's JOAT aggregate, task sampling and few-shot adaptation.

>>> theta = meta_aggregate(theta, [task_a, task_b], epsilon=1.0)   # the seed's plain average
>>> adapted = adapt(joat_net, "rifle", games=20, search=SearchConfig(simulations=32), training=TrainConfig(), rng=rng)
"""

from mmc.meta.adapt import Adapted, adapt
from mmc.meta.joat import MetaGeneration, joat_generation, multitask_generation
from mmc.meta.reptile import meta_aggregate, sample_tasks

__all__ = [
    "Adapted",
    "MetaGeneration",
    "adapt",
    "joat_generation",
    "meta_aggregate",
    "multitask_generation",
    "sample_tasks",
]
