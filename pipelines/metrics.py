"""Every MLflow metric name the study logs, built here and nowhere else (docs/reference/outputs.md lists them).

Names read ``{quantity}`` for a number of the whole run (``loss_policy``, ``selfplay_seconds``), ``{quantity}.{key}``
for one of several variants, players or models of the run (``selfplay_draw_rate.gardner``, ``elo.joat-b100-r0``,
``reward.rifle``), the flattened path of a stage's metrics JSON for the numbers it writes there
(``r0.joat.b100.greedy.score``, ``joat.b100.loss_total``: :func:`from_json`), and a target's name in front on
the study's parent run (``mallet.elo_mean.joat-b100``). The same quantity has the same name in every stage: a
self-play draw rate is ``selfplay_draw_rate``, a job kind's time ``{kind}_seconds``, a training loss ``loss_{part}``.
Keys are made safe for MLflow with ``mmc.evaluation.evaluate.slug`` (``fairy:nodes=1`` -> ``fairy_nodes_1``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mmc.evaluation.evaluate import slug
from pipelines.config import flatten

__all__ = [
    "ACCEPTED",
    "BASELINE",
    "CHAMPION_GENERATION",
    "CPU_CORES_USED",
    "CPU_SECONDS",
    "CPU_UTILISATION",
    "ELO",
    "ELO_HIGH",
    "ELO_LOW",
    "ELO_MEAN",
    "FINAL_STEP",
    "ITERATION",
    "KEEP_PROBABILITY",
    "KEPT",
    "LOSS_PARTS",
    "META_GENERATION",
    "MISTAKES",
    "REWARD",
    "REWARD_MEAN",
    "SECONDS",
    "SELFPLAY_DRAW_RATE",
    "SELFPLAY_EXAMPLES",
    "SELFPLAY_GAMES",
    "SELFPLAY_PLIES_PER_GAME",
    "WALL_SECONDS",
    "arena",
    "comparison",
    "from_json",
    "inner_loss",
    "loss",
    "per",
    "pooled_loss",
    "seconds",
    "target",
    "time_spent",
]

LOSS_PARTS = ("policy", "value", "total")
"""The parts of a training loss, as logged (``loss_policy``, ...)."""
SELFPLAY_GAMES = "selfplay_games"
SELFPLAY_PLIES_PER_GAME = "selfplay_plies_per_game"
SELFPLAY_EXAMPLES = "selfplay_examples"
SELFPLAY_DRAW_RATE = "selfplay_draw_rate"
ACCEPTED = "accepted"
CHAMPION_GENERATION = "champion_generation"
FINAL_STEP = "final_step"
META_GENERATION = "meta_generation"
ITERATION = "iteration"
BASELINE = "baseline"
REWARD_MEAN = "reward_mean"
SECONDS = "seconds"
WALL_SECONDS = "wall_seconds"
REWARD = "reward"
"""MetaFocus, per task: the reward of the masked adaptation."""
KEPT = "kept"
"""MetaFocus, per task: the channels the sampled mask kept."""
KEEP_PROBABILITY = "keep_probability"
"""MetaFocus, per task: the mean keep-probability the focus model gave the task's channels."""
ELO = "elo"
"""Per rated player (a model of one replicate, ``joat-b100-r0``, or an anchor): its Elo."""
ELO_LOW = "elo_low"
"""Per rated player: the low end of its 95 % Elo interval (over games)."""
ELO_HIGH = "elo_high"
"""Per rated player: the high end of its 95 % Elo interval."""
ELO_MEAN = "elo_mean"
"""Per model (``joat-b100``): the start's mean Elo over the replicates."""
MISTAKES = "mistakes"
"""Per rated model: its mistake rate on its target's solver-labelled suite (``mmc.evaluation.mistakes``)."""
CPU_SECONDS = "cpu_seconds"
CPU_CORES_USED = "cpu_cores_used"
CPU_UTILISATION = "cpu_utilisation"


def per(quantity: str, key: str) -> str:
    """``{quantity}.{key}``: ``quantity`` of one variant, player or model ``key`` of the run."""
    return f"{quantity}.{slug(key)}"


def seconds(kind: str) -> str:
    """The summed time of a job kind's jobs: ``self-play`` -> ``selfplay_seconds``, ``train`` -> ``train_seconds``."""
    return f"{kind.replace('-', '')}_seconds"


def time_spent(part: str, clock: str) -> str:
    """Where the time went (:mod:`pipelines.timing`): ``time.{part}.{clock}_seconds`` with ``clock`` ``wall`` or
    ``cpu`` (``time.evaluation_games_vs_fairy.cpu_seconds``); part ``stage`` is a stage's whole."""
    return f"time.{part.replace(' ', '_').replace('-', '_')}.{clock}_seconds"


def loss(part: str) -> str:
    """A training's last-epoch loss: ``loss_policy``, ``loss_value``, ``loss_total``."""
    return f"loss_{part}"


def inner_loss(variant: str, part: str) -> str:
    """JOAT's inner training on ``variant`` in a meta-generation: ``inner.{variant}.loss_{part}``."""
    return f"inner.{variant}.{loss(part)}"


def pooled_loss(part: str) -> str:
    """The multitask network's pooled training in a meta-generation: ``pooled.loss_{part}``."""
    return f"pooled.{loss(part)}"


def arena(field: str) -> str:
    """A field of the expert's gate match (``pipelines.records.MatchSummary``; ``arena_score``) or its time."""
    return f"arena_{field}"


def comparison(a: str, b: str) -> str:
    """The paired difference ``a - b`` in Elo points (``difference.joat-b100.multitask-b100``)."""
    return f"difference.{slug(a)}.{slug(b)}"


def target(variant: str, name: str) -> str:
    """A target's metric on the study's parent run: ``{variant}.{name}`` (``mallet.elo_mean.joat-b100``)."""
    return f"{variant}.{name}"


def from_json(data: Mapping[str, Any]) -> dict[str, float]:
    """The numbers of a stage's metrics JSON by their flattened path (``r0.joat.b100.greedy.score``); text left out."""
    return {k: v for k, v in flatten(data).items() if isinstance(v, int | float)}
