"""The study as ``params.yaml`` describes it, in frozen, typed records: :class:`StudyConfig` and its sections'
plans, and what each section is (:data:`SECTION_DOCS`, which the parameters' reference page shows).

:mod:`pipelines.config` reads and checks the file into these records (and re-exports them); :mod:`pipelines.study_rules`
holds the rules across their sections. This module checks nothing but a runner's own fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mmc.core import seeding
from mmc.core.configs import ConfigError, Count, check_fields
from mmc.evaluation.evaluate import EvaluateConfig, RateConfig
from mmc.loops.alphazero import AlphaZeroConfig
from mmc.meta import AdaptConfig, MetaConfig, TaskDistribution
from mmc.nn import NetworkConfig
from mmc.play.fairy import plays
from mmc.search import SearchConfig
from mmc.train import TrainConfig

__all__ = [
    "NETWORK_KEYS",
    "RUNNER_KINDS",
    "SECTIONS",
    "SECTION_DOCS",
    "UNADAPTED",
    "AdaptPlan",
    "EvaluatePlan",
    "ExpertConfig",
    "LearnerPlan",
    "RunnerConfig",
    "StudyConfig",
    "flatten",
]

RUNNER_KINDS = ("process", "dask", "thread")
"""``process``: a local process pool; ``dask``: a Dask cluster (``address``) or a local one; ``thread``: in-process."""
NETWORK_KEYS = ("blocks", "filters", "value_hidden", "moves_left")
"""The network's settable shape; its input and output planes are those of the study's game family."""
SECTIONS = (
    "benchmark", "seed", "replicates", "device", "network", "search", "train", "expert", "meta", "learners", "adapt",
    "evaluate", "rate", "runner",
)  # fmt: skip
SECTION_DOCS = {
    "benchmark": "The frozen benchmark the study runs (``python -m pipelines benchmarks`` lists them), or ``null``. "
    "Named, every key but ``device``, ``runner`` and added learners must equal the benchmark's definition.",
    "seed": "The study's seed: the same file on the same kind of CPU gives the same models and games.",
    "replicates": "Training replicates: every training stage runs once for each, from its own seed.",
    "device": "Where self-play, training and evaluation run their networks: ``cpu``, ``cuda`` or ``auto``.",
    "network": "The network's shape (``mmc.nn.NetworkConfig``); its input and output planes are the family's.",
    "search": "The self-play search of the meta stages and the adaptations (``mmc.search.SearchConfig``); the experts "
    "lay ``expert.search`` over it.",
    "train": "The training of the meta stages and the adaptations (``mmc.train.TrainConfig``); the experts lay "
    "``expert.train`` over it.",
    "expert": "One AlphaZero loop per variant (``mmc.loops.alphazero.AlphaZeroConfig``): the experts, the study's "
    "strongest single-variant models.",
    "expert.variants": "One expert stage per key, a variant id; its value (``{}`` or a mapping) overrides keys of "
    "``expert``, ``expert.search`` or ``expert.train`` for that variant alone.",
    "expert.search": "The expert recipe's search: the ``search`` keys every expert stage changes (``{}`` or ``null``: "
    "none).",
    "expert.train": "The expert recipe's training: the ``train`` keys every expert stage changes (``{}`` or ``null``: "
    "none).",
    "meta": "Meta-training (``mmc.meta.MetaConfig``): the variants it trains on and the JOAT and multitask settings.",
    "learners": "The learners that make starts for the adaptation, one stage ``NAME@R`` each, their settings and "
    "their common self-play budget. An installed package's learner is named here like a built-in one.",
    "adapt": "Which starts are adapted to which targets, and how (``mmc.meta.AdaptConfig``).",
    "evaluate": "How every adapted model is played against the opponents (``mmc.evaluation.evaluate.EvaluateConfig``).",
    "rate": "The Elo ladder of every target's models (``mmc.evaluation.evaluate.RateConfig``).",
    "runner": "Where the fanned-out jobs run; it never changes a result.",
}
"""What each section of ``params.yaml`` is (and the expert section's own keys), for the parameters' reference page
that the documentation site generates from this module's definitions (``docs/hooks.py``)."""
UNADAPTED = "unadapted"
"""The evaluation opponent that is the adapted model's own starting model (cells with budget > 0 only)."""


@dataclass(frozen=True)
class ExpertConfig:
    """One variant's expert stage: the AlphaZero loop's settings after that variant's overrides."""

    variant: str
    """The variant the expert learns (``mmc.games.variant_ids``)."""
    loop: AlphaZeroConfig
    """Generations, games and their chunks, replay window, arena and gating."""
    search: SearchConfig
    """Self-play search."""
    train: TrainConfig
    """Training of each generation's candidate."""


@dataclass(frozen=True)
class LearnerPlan:
    """Section ``learners``: the learners the study trains (one stage ``NAME@R`` each), their settings and their
    common budget."""

    budget: int
    """Self-play games each learner may play through the platform's service (``mmc.meta.Service``)."""
    settings: dict[str, Any]
    """Each learner's own settings (an instance of its ``settings`` dataclass), by name, in the file's order."""

    @property
    def names(self) -> list[str]:
        return list(self.settings)


@dataclass(frozen=True)
class AdaptPlan:
    """Section ``adapt``: which starts are adapted to which targets, and how (``mmc.meta.AdaptConfig``)."""

    targets: tuple[str, ...]
    """Target variants (one adapt@ and evaluate@ stage each); the study holds at least one out of meta-training."""
    starts: tuple[str, ...]
    """Starting models: a learner of ``learners`` by its name, ``expert-V`` (V in ``expert.variants``), ``scratch``
    (names of ``mmc.evaluation.starts.Start``; ``mmc.evaluation.starts.check_starts`` holds their rules)."""
    config: AdaptConfig

    @property
    def budgets(self) -> tuple[int, ...]:
        return self.config.budgets


@dataclass(frozen=True)
class EvaluatePlan:
    """Section ``evaluate``: the opponents of every adapted model, and how the cells are played."""

    opponents: tuple[str, ...]
    """``mmc.play.parse_player`` specs, or ``unadapted`` (the model's own start, budgets > 0 only). A ``fairy``
    opponent plays only the targets Fairy-Stockfish knows; the others have no such cell."""
    config: EvaluateConfig


@dataclass(frozen=True)
class RunnerConfig:
    """Where the fanned-out jobs run; results do not depend on it (seeds are keyed by job, not by worker)."""

    kind: str = "process"
    """``process``, ``dask`` or ``thread`` (see :data:`RUNNER_KINDS`)."""
    workers: Count = 2
    """Worker processes (``process``; ``dask`` without ``address``: a LocalCluster of this many) or threads."""
    address: str | None = None
    """Dask scheduler address (``tcp://host:8786``); ``kind: dask`` only."""

    def __post_init__(self) -> None:
        check_fields(self)
        if self.kind not in RUNNER_KINDS:
            raise ConfigError("RunnerConfig", "kind", f"must be one of {', '.join(RUNNER_KINDS)}, got {self.kind!r}")
        if self.address is not None and self.kind != "dask":
            raise ConfigError(
                "RunnerConfig", "address", f"is only used with kind: dask (kind is {self.kind!r}); set it to null"
            )


@dataclass(frozen=True)
class StudyConfig:
    """The whole parameter file, checked."""

    seed: int
    """The root of every random stream of the study (``mmc.core.seeding``): each stage, job and game derives its own."""
    replicates: tuple[int, ...]
    """Training replicates: every training stage (expert, each learner's, adapt) runs once for each, from
    its own seed (:meth:`training_seed`); the evaluation rates them together and pairs them."""
    device: str
    """Where the jobs run their networks (``mmc.nn.DEVICES``: ``auto``, ``cpu``, ``cuda``), as written: each job
    resolves it when it starts. Checked here: ``cuda`` where torch sees none stops the study before any work."""
    network: NetworkConfig
    search: SearchConfig
    """The shared self-play search (meta stages and adaptation; the experts': ``experts[V].search``, with the
    expert recipe and the variant's overrides)."""
    train: TrainConfig
    """The shared training settings (inner updates, multitask, adaptation; the experts': ``experts[V].train``)."""
    experts: dict[str, ExpertConfig]
    """Expert stage per variant, in the file's order."""
    meta: MetaConfig
    learners: LearnerPlan
    """The learners that make starts (``mmc.meta.learners``), their settings and budget."""
    adapt: AdaptPlan
    evaluate: EvaluatePlan
    rate: RateConfig
    """The Elo ladder of every target's models (``mmc.evaluation.evaluate.rate``)."""
    runner: RunnerConfig
    distribution: TaskDistribution | None = None
    """The distribution ``meta.train_variants`` names, when it names one (``meta.train_variants`` is then the
    variants drawn from it: ``mmc.meta.study_tasks``); ``None`` for a list."""
    benchmark: str | None = None
    """The frozen benchmark the study runs (``pipelines.benchmarks``: its definition, checked), or ``None``."""
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The file as parsed, for logging."""

    def training_seed(self, replicate: int) -> np.random.SeedSequence:
        """The root of replicate ``replicate``'s training streams: ``("replicate", r)`` of ``seed``. The stages
        derive theirs from it (``("expert", variant)``, ``("meta",)``, ``("adapt", target)``, ``("scratch",)``);
        the evaluation's seed stays the study's, so every replicate is played on the same openings."""
        return seeding.derive(seeding.root(self.seed), "replicate", replicate)

    @property
    def family(self) -> str:
        """The game family of every variant the study names (``mmc.games``; one network plays them)."""
        return self.network.game

    @property
    def variants(self) -> list[str]:
        """The variants with an expert stage."""
        return list(self.experts)

    @property
    def targets(self) -> list[str]:
        """The adaptation targets (one adapt@ and evaluate@ stage each)."""
        return list(self.adapt.targets)

    def opponents(self, target: str) -> list[str]:
        """The evaluation opponents that play ``target`` (a ``fairy`` spec only where the engine knows it)."""
        return [spec for spec in self.evaluate.opponents if plays(spec, target)]

    def anchors(self, target: str) -> list[str]:
        """The rating anchors that play ``target``."""
        return [spec for spec in self.rate.anchors if plays(spec, target)]


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested mappings as one level of dotted keys (``{"a": {"b": 1}}`` -> ``{"a.b": 1}``); lists stay values."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = value
    return out
