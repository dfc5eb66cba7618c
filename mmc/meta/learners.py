"""Learners: what makes the starts of few-shot adaptation, behind one protocol, from this package or any installed one.

A learner is a meta-learning method (or a baseline) that the study trains once per training replicate, under the
same self-play budget as every other learner, and whose network every target then adapts from. JOAT, its multitask
baseline, MetaFocus and scratch are the built-in learners (:mod:`mmc.meta.builtin`); any installed distribution adds
its own through the entry point group ``mmc.learners``::

    [project.entry-points."mmc.learners"]
    my_learner = "my_package:LEARNER"            # a mmc.meta.Learner (an instance, or a subclass made with no args)

The study gives a learner a :class:`LearnerSetup` (the training task distribution and how to draw from it, the
budget, the network configuration, the search and training settings, the learner's own settings, a seed, the
device, and the network of the learner it starts from, if it declares one) and a :class:`Service`, the platform's
way to play self-play games and train: every job the learner runs through it is fanned out and kept by the study
(``mmc.core.fanout``), and every game counts against the budget. ``learn`` returns a :class:`Learned`: the start network
(of the study's network configuration: checked), and optionally the state of its own adaptation rule, its loss
curve, a table of its steps and a summary. By default a start adapts by the study's one AlphaZero iteration
(:func:`mmc.meta.adapt_many`); a learner that brings its own rule overrides :meth:`Learner.adaptation` (MetaFocus
sets the trunk channels that learn) and saves its state with :meth:`Learner.save_state`.

The budget is one number for every learner of a study (``learners.budget`` in the study's params): the self-play
games a learner may play through the service, whatever they are for (MetaFocus's reward games included). A job's
games are its ``games`` argument (``mmc.loops.alphazero.play_games``, ``arena_match``); a batch of jobs that would pass
the budget is refused before it runs, with :class:`BudgetError`, one line naming the learner, its budget and the
count. The adaptation budgets (``adapt.budgets``) are separate and the same for every start.

A plugin that fails to load (it does not import, its object is no learner, its name is malformed or taken) is
reported in one line on the ``mmc.core.plugins`` logger and left out; every other learner keeps working
(:func:`mmc.core.plugins.problems`). A built-in's name stays the built-in's; a name that two installed packages claim is
refused when a study names it.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np

from mmc.core.configs import check_fields, config_from_dict
from mmc.core.fanout import Job, Runner, serial
from mmc.core.seeding import derive, int_seed
from mmc.meta.adapt import Adaptation, Adapted, adapt_many
from mmc.meta.joat import MetaConfig
from mmc.meta.reptile import sample_tasks
from mmc.nn.network import NetworkConfig, PolicyValueNet, build_network
from mmc.play.selfplay import SelfPlayResult
from mmc.search import SearchConfig
from mmc.train import TrainConfig, Trained, trained_copy

if TYPE_CHECKING:
    from importlib.metadata import Distribution

__all__ = [
    "LEARNERS_GROUP",
    "RESERVED",
    "BudgetError",
    "Learned",
    "Learner",
    "LearnerError",
    "LearnerSetup",
    "LossPoint",
    "NoSettings",
    "Service",
    "TrainingTasks",
    "check_name",
    "check_network",
    "job_games",
    "learner_code",
    "learner_distribution",
    "learner_settings",
]

LEARNERS_GROUP = "mmc.learners"
"""Entry points whose object is a :class:`Learner` (or a subclass of it, made with no arguments)."""
NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
"""A learner's name: lower-case letters, digits and ``_``, a letter first, at most 32 characters, so that it is a
label, a file name, a DVC stage name, an MLflow model name and a URL part as it is."""
RESERVED = ("adapt", "budget", "evaluate", "expert", "learn", "pooled", "report", "scratch", "unadapted")
"""Names no plugin may take: the study's stages, params keys and opponent names (``scratch`` is the built-in)."""


class LearnerError(ValueError):
    """A learner that cannot take part: unknown, malformed, or one that broke its contract; one line says why."""


class BudgetError(LearnerError):
    """A learner that asked for more self-play games than its budget."""


@dataclass(frozen=True)
class NoSettings:
    """The settings of a learner that has none of its own (its entry in the study's params is ``{}``)."""


class LossPoint(NamedTuple):
    """One point of a learner's loss curve: the last epoch of one of its trainings."""

    stage: str
    """What trained (JOAT: ``inner`` per task, ``meta_train`` their mean; multitask: ``multitask``)."""
    variant: str
    """The task variant trained on (``pooled``, ``mean``: several)."""
    generation: int
    policy: float
    value: float
    total: float


@dataclass(frozen=True)
class TrainingTasks:
    """The study's training task distribution: the variants a learner may train on (``meta.train_variants``, drawn
    from the study's distribution where it names one) and the probability of each."""

    variants: tuple[str, ...]
    probs: tuple[float, ...] | None = None
    """Sampling probability per variant, in order (``None``: uniform)."""
    drawn_from: str = ""
    """The distribution the variants were drawn from (``mmc.meta.TaskDistribution.describe``), if any."""

    def draw(self, count: int, rng: np.random.Generator) -> list[str]:
        """``count`` distinct variants drawn without replacement by ``probs`` (all of them, in order, when ``count``
        is as many as there are): ``mmc.meta.sample_tasks``, the draw JOAT's task batches use."""
        return sample_tasks(list(self.variants), self.probs, count, rng)


@dataclass(frozen=True)
class LearnerSetup:
    """What the study gives a learner for one training replicate."""

    learner: str
    """The learner's name."""
    replicate: int
    tasks: TrainingTasks
    budget: int
    """The self-play games it may play through the service."""
    network: NetworkConfig
    """The configuration every start network must have (the study's game family and shape)."""
    search: SearchConfig
    """The study's self-play search."""
    train: TrainConfig
    """The study's training settings."""
    meta: MetaConfig
    """The study's meta-training section: JOAT's and multitask's settings (task batch, generations, games per task,
    epochs), and the self-play concurrency and ply cap any learner may use."""
    settings: Any
    """The learner's own settings (an instance of :attr:`Learner.settings`, from the study's params)."""
    seed: np.random.SeedSequence
    """``(stream,)`` of the replicate's seed (:attr:`Learner.stream`): learners on one stream draw alike."""
    device: str = "cpu"
    """Where its jobs run their networks (``mmc.nn.DEVICES``)."""
    start: PolicyValueNet | None = field(default=None, repr=False)
    """The network of the learner it starts from (:attr:`Learner.starts_from`); ``None`` if it declares none."""

    def initial_network(self) -> PolicyValueNet:
        """A freshly initialised network of the study's configuration from ``("network",)`` of the seed (the same
        for every learner on one stream: JOAT's and multitask's)."""
        return build_network(self.network, int_seed(derive(self.seed, "network")))


@dataclass(frozen=True)
class Learned:
    """What a learner made."""

    net: PolicyValueNet = field(repr=False)
    """The start network (of :attr:`LearnerSetup.network`)."""
    state: Any = field(default=None, repr=False)
    """What its own adaptation rule reads (:meth:`Learner.adaptation`; MetaFocus: its focus model), or ``None``."""
    losses: Sequence[LossPoint] = ()
    """Its loss curve (the report plots it per generation)."""
    steps: Sequence[Mapping[str, Any]] = ()
    """One row per step of its loop, its own columns (a CSV beside the loss curve)."""
    summary: Mapping[str, Any] = field(default_factory=dict)
    """Its summary numbers (the stage's metrics JSON, with the games it played)."""
    sample: Sequence[Any] = ()
    """A few of its games (``mmc.play.GameRecord``), kept with its run."""


def job_games(job: Job[Any]) -> int:
    """The self-play games ``job`` plays: its ``games`` argument (0 for a job without one)."""
    games = job.kwargs.get("games", 0)
    return int(games) if isinstance(games, int | np.integer) and not isinstance(games, bool) else 0


class Service:
    """The platform's games and training for one learner: every job goes to the study's runner (fanned out, kept on
    disk; :data:`mmc.core.fanout.serial` in a plain call), and every game counts against the budget."""

    def __init__(
        self, learner: str, budget: int, run: Runner = serial,
        log: Callable[[int, Mapping[str, float]], None] | None = None,
    ) -> None:  # fmt: skip
        self.learner = learner
        self.budget = budget
        self.played = 0
        """Self-play games asked for so far."""
        self._run = run
        self._log = log

    @property
    def left(self) -> int:
        """Games it may still play."""
        return self.budget - self.played

    def run(self, jobs: Sequence[Job[Any]]) -> list[Any]:
        """The results of ``jobs``, in order; :class:`BudgetError` before any of them runs if their games
        (:func:`job_games`) would take the learner past its budget."""
        asked = sum(job_games(job) for job in jobs)
        if self.played + asked > self.budget:
            raise BudgetError(
                f"learner {self.learner!r} asked for {self.played + asked} self-play games, over its budget of "
                f"{self.budget} (learners.budget)"
            )
        self.played += asked
        return self._run(jobs)

    def self_play(
        self, net: PolicyValueNet, variants: Sequence[str], games: int, seed: np.random.SeedSequence, *, tag: str,
        search: SearchConfig, concurrent: int = 64, max_plies: int = 150, device: str = "cpu",
    ) -> list[SelfPlayResult]:  # fmt: skip
        """``games`` self-play games of each of ``variants`` with ``net`` (jobs ``self-play-{variant}-{tag}``, the
        stream ``(variant,)`` of ``seed`` each), side by side."""
        from mmc.loops.alphazero import play_games

        return self.run([
            Job("self-play", (variant, tag), play_games,
                dict(net=net, variant=variant, games=games, search=search, seed=derive(seed, variant),
                     concurrent=concurrent, max_plies=max_plies, device=device))
            for variant in variants
        ])  # fmt: skip

    def train(
        self, items: Sequence[tuple[str, PolicyValueNet, Sequence[Any]]], config: TrainConfig,
        seed: np.random.SeedSequence, *, tag: str, device: str = "cpu",
    ) -> list[Trained]:  # fmt: skip
        """A trained copy of each ``(name, net, examples)`` (jobs ``train-{name}-{tag}``, the stream ``(name,)`` of
        ``seed`` each), side by side; the networks given are not modified."""
        return self.run([
            Job("train", (name, tag), trained_copy,
                dict(net=net, examples=list(examples), config=config, seed=derive(seed, name), device=device))
            for name, net, examples in items
        ])  # fmt: skip

    def adapt(
        self, adaptations: Sequence[Adaptation], search: SearchConfig, training: TrainConfig, *, concurrent: int,
        max_plies: int, device: str = "cpu",
    ) -> list[Adapted]:  # fmt: skip
        """:func:`mmc.meta.adapt_many` through this service: one AlphaZero iteration of each adaptation."""
        return adapt_many(adaptations, search, training, concurrent=concurrent, max_plies=max_plies, device=device,
                          run=self.run)  # fmt: skip

    def log(self, step: int, metrics: Mapping[str, float]) -> None:
        """Record ``metrics`` of step ``step`` (the study logs them to the learner's MLflow run)."""
        if self._log is not None:
            self._log(step, metrics)


class Learner:
    """The learner protocol. Subclass it, set the class attributes, implement :meth:`learn`; register an instance
    under the entry point group ``mmc.learners`` (the module docstring)."""

    name: ClassVar[str] = ""
    """Its name in the study's params, labels, file and stage names (:data:`NAME`)."""
    title: ClassVar[str] = ""
    """How the report's prose names it (``JOAT``); empty: its name."""
    description: ClassVar[str] = ""
    """One line: what it does."""
    settings: ClassVar[type] = NoSettings
    """A frozen dataclass of its own settings, every field with a default; the study's params give every field
    (``learners.NAME``), each checked by its annotation (``mmc.core.configs``)."""
    starts_from: ClassVar[str | None] = None
    """The learner whose network it starts from (:attr:`LearnerSetup.start`; MetaFocus: ``joat``): the study runs
    that one first."""
    zero_shot: ClassVar[bool] = True
    """Whether its network is a model of its own at adaptation budget 0. ``False``: it is the network of the learner
    it starts from, unchanged (MetaFocus), compared with that one after adaptation only."""
    baseline: ClassVar[bool] = False
    """A baseline (multitask): the report compares every other learner with it, and it with none."""
    stream: ClassVar[str] = "meta"
    """Its seed's name under the replicate's. Learners on one stream draw the same random numbers from it (the same
    initial network, the same task batches where they draw alike): the built-in meta-learners share ``meta``."""
    params: ClassVar[tuple[str, ...] | None] = None
    """The params keys its stage depends on (DVC); ``None``: every section a learner is given (``seed``,
    ``device``, ``network``, ``search``, ``train``, ``meta``), the budget and its own entry."""

    def check(self, settings: Any, meta: MetaConfig, budget: int) -> None:
        """Refuse, with :class:`LearnerError`, settings it cannot learn with in this study before any work starts
        (a plan of more games than ``budget``, more tasks than ``meta.train_variants``); the default accepts all."""

    def learn(self, setup: LearnerSetup, service: Service) -> Learned:
        """Make the start network; play and train through ``service``."""
        raise NotImplementedError(f"learner {self.name!r} does not implement learn()")

    def adaptation(self, adaptation: Adaptation, state: Any) -> Adaptation:
        """The study's adaptation of this learner's network (``adaptation``: its start, target, games and seed) as
        its own rule makes it, given its saved ``state``; the default keeps the study's one AlphaZero iteration."""
        return adaptation

    def save_state(self, state: Any, folder: Path) -> None:
        """Write ``state`` (:attr:`Learned.state`) into the empty folder ``folder``, as files of its choosing. A
        learner that brings its own adaptation rule implements it and :meth:`load_state`; the study keeps the folder
        beside its network (``{name}.state``)."""

    def load_state(self, folder: Path) -> Any:
        """The state :meth:`save_state` wrote into ``folder``."""
        return None

    @property
    def label(self) -> str:
        """:attr:`title`, or the name."""
        return self.title or self.name


def check_name(name: str) -> None:
    """:class:`LearnerError` unless ``name`` can name a learner (:data:`NAME`, none of :data:`RESERVED`)."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise LearnerError(
            f"learner name {name!r} must be 1-32 lower-case letters, digits or _, a letter first (it names files, "
            "stages, labels and models)"
        )
    if name in RESERVED:
        raise LearnerError(f"learner name {name!r} is reserved ({', '.join(RESERVED)})")


def check_network(learner: str, net: Any, config: NetworkConfig) -> None:
    """:class:`LearnerError` unless ``net`` is a :class:`~mmc.nn.PolicyValueNet` of ``config`` (the study's family,
    board and shape)."""
    if not isinstance(net, PolicyValueNet):
        raise LearnerError(f"learner {learner!r} returned a {type(net).__name__}, not a mmc.nn.PolicyValueNet")
    if net.config != config:
        got, want = dataclasses.asdict(net.config), dataclasses.asdict(config)
        diff = ", ".join(f"{k} {got[k]!r} (the study's: {want[k]!r})" for k in want if got.get(k) != want[k])
        raise LearnerError(f"learner {learner!r} returned a network of another configuration: {diff}")


def learner_settings(learner: Learner, data: Any, key: str) -> Any:
    """``learner``'s settings from the params mapping ``data`` at ``key`` (``None``: ``{}``); a
    :class:`mmc.core.configs.ConfigError` names the key at fault."""
    from mmc.core.configs import ConfigError

    data = {} if data is None else data
    if not isinstance(data, Mapping):
        raise ConfigError("params", key, f"must be a mapping of {learner.name}'s settings, got {data!r}")
    try:
        settings: Any = config_from_dict(learner.settings, data)
        check_fields(settings)  # each value by its annotation, whether or not the dataclass checks itself
    except ConfigError as error:
        raise ConfigError("params", f"{key}.{error.field}", error.problem) from None
    return settings


def _valid(point_name: str, obj: Any) -> Learner:
    """The learner of an entry point's object (an instance, or a subclass made here); ``TypeError``/``ValueError``
    saying what is wrong with it."""
    if inspect.isclass(obj) and issubclass(obj, Learner):
        obj = obj()
    if not isinstance(obj, Learner):
        raise TypeError(f"the object is a {type(obj).__name__}, not a mmc.meta.Learner")
    if obj.name != point_name:
        raise ValueError(f"the learner is named {obj.name!r}, its entry point {point_name!r}: name both alike")
    check_name(obj.name)
    if not (dataclasses.is_dataclass(obj.settings) and isinstance(obj.settings, type)):
        raise TypeError(f"its settings must be a dataclass, got {obj.settings!r}")
    try:
        obj.settings()
    except TypeError as error:
        raise TypeError(f"its settings must have a default for every field ({error})") from None
    if obj.starts_from is not None:
        check_name(obj.starts_from)
    if type(obj).learn is Learner.learn:
        raise TypeError("it does not implement learn()")
    return obj


def learner_distribution(learner: Learner) -> Distribution | None:
    """The installed distribution that ``learner``'s top-level package comes from; ``None`` for this package's own
    learners and for a module no distribution installed."""
    from importlib.metadata import PackageNotFoundError, distribution, packages_distributions

    top = type(learner).__module__.partition(".")[0]
    names = [] if top == "mmc" else packages_distributions().get(top, [])
    try:
        return distribution(names[0]) if names else None
    except PackageNotFoundError:
        return None


def learner_code(learner: Learner) -> tuple[Path, str]:
    """Where ``learner``'s code lives, its top-level package's folder (or its module's file), and the version of the
    distribution that installed it (``""`` for this package's own learners, or where none did)."""
    module = sys.modules[type(learner).__module__.partition(".")[0]]
    file = Path(module.__file__ or "").resolve()
    dist = learner_distribution(learner)
    return (file.parent if hasattr(module, "__path__") else file), ("" if dist is None else dist.version)
