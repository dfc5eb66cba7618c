"""The library calls a stage makes, built from the study's config alone: no Prefect, MLflow or DVC here.

A stage's inputs are a small frozen dataclass whose fields are its library call's keyword arguments;
:func:`keywords` hands them over (``alphazero(**keywords(expert_inputs(...)), run=runner)``), so a reordered
signature fails loudly instead of running with wrong values. The expert's inputs live here rather than in
``pipelines.expert`` so that the benchmarks (``benchmarks/learning.py``, ``benchmarks/diagnose.py``) train exactly
the study's expert on a machine that has the library but not the study's servers (a lent GPU machine).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from mmc.core.seeding import derive, int_seed
from mmc.loops.alphazero import AlphaZeroConfig
from mmc.nn import PolicyValueNet, build_network
from mmc.search import SearchConfig
from mmc.train import TrainConfig
from pipelines.config import StudyConfig

__all__ = ["EXPERT", "ExpertInputs", "expert_inputs", "keywords"]

EXPERT = "expert"
"""The expert stage's name: its seeds are ``(EXPERT, variant)`` of the replicate's."""


def keywords(inputs: Any) -> dict[str, Any]:
    """A stage's inputs (a dataclass whose fields are its library call's parameters) as keyword arguments, the
    values themselves (``dataclasses.asdict`` would copy the networks and turn the configs into dicts)."""
    return {item.name: getattr(inputs, item.name) for item in fields(inputs)}


@dataclass(frozen=True)
class ExpertInputs:
    """The keyword arguments of ``mmc.loops.alphazero.alphazero`` for one expert (:func:`expert_inputs`)."""

    net: PolicyValueNet = field(repr=False)
    """The initial network."""
    variant: str
    config: AlphaZeroConfig
    """The variant's loop."""
    search: SearchConfig
    training: TrainConfig
    seed: np.random.SeedSequence
    """``("expert", variant)`` of the replicate's seed."""
    device: str


def expert_inputs(study: StudyConfig, variant: str, replicate: int) -> ExpertInputs:
    """The arguments of ``mmc.loops.alphazero.alphazero`` for ``variant``'s expert in replicate ``replicate``: the
    initial network, the variant, its loop, search and training configs, its seed (``("expert", variant)`` of
    the replicate's) and the device."""
    config = study.experts[variant]
    seed = derive(study.training_seed(replicate), EXPERT, variant)
    net = build_network(study.network, int_seed(derive(seed, "network")))
    return ExpertInputs(net, variant, config.loop, config.search, config.train, seed, study.device)
