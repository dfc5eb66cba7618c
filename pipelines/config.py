"""``params.yaml`` -> frozen, typed configs, checked before any work starts.

The file has one section per component or stage plus the shared seed; each section is the fields of a
config dataclass of ``mmc`` (which owns the defaults and the range checks) plus, for some, the names of what
the study runs::

    seed: 0                       # root of every random stream (mmc.seeding)
    replicates: [0, 1]            # training replicates: expert, meta, multitask and adapt run once for each
    device: cpu                   # where self-play, training and evaluation run their networks (mmc.nn.DEVICES)
    network: {blocks, filters, value_hidden}          # mmc.nn.NetworkConfig
    search: {...every SearchConfig field...}          # self-play search (mmc.search.SearchConfig)
    train: {...every TrainConfig field...}            # mmc.train.TrainConfig
    expert:                       # the AlphaZero loop per variant
      variants: {gardner: {}}     # one expert stage per key; a value overrides keys of expert/search/train
      generations: ...            # ...every mmc.alphazero.AlphaZeroConfig field
    meta: {...every mmc.meta.MetaConfig field...}
    metafocus: {...every mmc.meta.MetaFocusConfig field...}
    adapt: {targets, starts, ...every mmc.meta.AdaptConfig field...}
    evaluate: {opponents, games, search: {...every SearchConfig field...}, opening_plies, max_plies}
    runner: {kind, workers, address}   # where the jobs run; never changes a result

Every key must be present and no other key may be (a variant's override mapping lists only what it
changes). This module checks keys and types; the configs check their values and raise
``mmc.configs.ConfigError``, which names the field. Either way the run stops with :class:`ParamsError`,
whose message is one line naming the file and the key: ``params.yaml: expert.generations: must be an int,
got 'x'``.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import NoneType, UnionType
from typing import Any

import numpy as np
import yaml

from mmc import seeding
from mmc.alphazero import AlphaZeroConfig
from mmc.configs import ConfigError
from mmc.engine import VARIANTS
from mmc.evaluate import EvaluateConfig, RateConfig
from mmc.evaluate import slug as opponent_slug
from mmc.meta import AdaptConfig, MetaConfig, MetaFocusConfig
from mmc.nn import DeviceError, NetworkConfig, resolve_device
from mmc.play import close_player, parse_player
from mmc.search import SearchConfig
from mmc.starts import StartError, check_starts
from mmc.train import TrainConfig

__all__ = [
    "AdaptPlan",
    "EvaluatePlan",
    "ExpertConfig",
    "ParamsError",
    "RunnerConfig",
    "StudyConfig",
    "flatten",
    "load_params",
    "opponent_slug",
    "parse_params",
]

RUNNER_KINDS = ("process", "dask", "thread")
"""``process``: a local process pool; ``dask``: a Dask cluster (``address``) or a local one; ``thread``: in-process."""
NETWORK_KEYS = ("blocks", "filters", "value_hidden")
"""The network's settable shape; its input and output planes are fixed by the engine."""
SECTIONS = (
    "seed", "replicates", "device", "network", "search", "train", "expert", "meta", "metafocus", "adapt", "evaluate",
    "rate", "runner",
)  # fmt: skip
UNADAPTED = "unadapted"
"""The evaluation opponent that is the adapted model's own starting model (cells with budget > 0 only)."""


class ParamsError(ValueError):
    """A parameter file that cannot drive the study; the message is one line naming the file and the key."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        self.source = source
        self.key = key
        self.problem = problem
        super().__init__(f"{source}: {key}: {problem}" if key else f"{source}: {problem}")


@dataclass(frozen=True)
class ExpertConfig:
    """One variant's expert stage: the AlphaZero loop's settings after that variant's overrides."""

    variant: str
    """The variant the expert learns (``mmc.engine.VARIANTS``)."""
    loop: AlphaZeroConfig
    """Generations, games and their chunks, replay window, arena and gating."""
    search: SearchConfig
    """Self-play search."""
    train: TrainConfig
    """Training of each generation's candidate."""


@dataclass(frozen=True)
class AdaptPlan:
    """Section ``adapt``: which starts are adapted to which targets, and how (``mmc.meta.AdaptConfig``)."""

    targets: tuple[str, ...]
    """Target variants (one adapt@ and evaluate@ stage each); the study holds at least one out of meta-training."""
    starts: tuple[str, ...]
    """Starting models: ``joat``, ``multitask``, ``metafocus``, ``expert-V`` (V in ``expert.variants``), ``scratch``
    (names of ``mmc.starts.Start``; ``mmc.starts.check_starts`` holds their rules)."""
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
    workers: int = 2
    """Worker processes (``process``; ``dask`` without ``address``: a LocalCluster of this many) or threads."""
    address: str | None = None
    """Dask scheduler address (``tcp://host:8786``); ``kind: dask`` only."""

    def __post_init__(self) -> None:
        if self.kind not in RUNNER_KINDS:
            raise ConfigError("RunnerConfig", "kind", f"must be one of {', '.join(RUNNER_KINDS)}, got {self.kind!r}")
        if self.workers < 1:
            raise ConfigError("RunnerConfig", "workers", f"must be an int >= 1, got {self.workers}")
        if self.address is not None and self.kind != "dask":
            raise ConfigError(
                "RunnerConfig", "address", f"is only used with kind: dask (kind is {self.kind!r}); set it to null"
            )


@dataclass(frozen=True)
class StudyConfig:
    """The whole parameter file, checked."""

    seed: int
    replicates: tuple[int, ...]
    """Training replicates: every training stage (expert, meta_train, multitask, adapt) runs once for each, from
    its own seed (:meth:`training_seed`); the evaluation rates them together and pairs them."""
    device: str
    """Where the jobs run their networks (``mmc.nn.DEVICES``: ``auto``, ``cpu``, ``cuda``), as written: each job
    resolves it when it starts. Checked here: ``cuda`` where torch sees none stops the study before any work."""
    network: NetworkConfig
    search: SearchConfig
    """The shared self-play search (meta stages and adaptation; an expert's may be overridden per variant)."""
    train: TrainConfig
    """The shared training settings (inner updates, multitask, adaptation)."""
    experts: dict[str, ExpertConfig]
    """Expert stage per variant, in the file's order."""
    meta: MetaConfig
    metafocus: MetaFocusConfig
    """The MetaFocus meta-model's training (stage ``metafocus``; ``mmc.meta.metafocus``)."""
    adapt: AdaptPlan
    evaluate: EvaluatePlan
    rate: RateConfig
    """The Elo ladder of every target's models (``mmc.evaluate.rate``)."""
    runner: RunnerConfig
    raw: dict[str, Any] = field(repr=False, compare=False)
    """The file as parsed, for logging."""

    def training_seed(self, replicate: int) -> np.random.SeedSequence:
        """The root of replicate ``replicate``'s training streams: ``("replicate", r)`` of ``seed``. The stages
        derive theirs from it (``("expert", variant)``, ``("meta",)``, ``("adapt", target)``, ``("scratch",)``);
        the evaluation's seed stays the study's, so every replicate is played on the same openings."""
        return seeding.derive(seeding.root(self.seed), "replicate", replicate)

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


def load_params(path: str | Path = "params.yaml", *, check_players: bool = True) -> StudyConfig:
    """Read and check the parameter file ``path``; :class:`ParamsError` names the key at fault."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise ParamsError(path.name, "", f"cannot be read ({error.strerror})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" at line {where.line + 1}" if where is not None else ""
        raise ParamsError(path.name, "", f"is not valid YAML{line}") from None
    return parse_params(data, path.name, check_players=check_players)


def parse_params(data: Any, source: str = "params.yaml", *, check_players: bool = True) -> StudyConfig:
    """Check the parsed parameter mapping ``data`` (``source`` names it in errors) and build the configs."""
    root = _Checker(source)
    mapping = root.mapping(data, "")
    root.keys(mapping, "", SECTIONS)
    seed = root.typed(mapping["seed"], "seed", int)
    if seed < 0:
        raise root.error("seed", f"must be an int >= 0, got {seed!r}")
    replicates = root.typed(mapping["replicates"], "replicates", tuple[int, ...])
    if not replicates or min(replicates) < 0 or len(set(replicates)) < len(replicates):
        raise root.error("replicates", f"must be a list of distinct ints >= 0, got {list(replicates)}")
    device = root.typed(mapping["device"], "device", str)
    try:
        resolve_device(device)
    except DeviceError as error:
        raise root.error("device", error.problem) from None
    network = root.build(NetworkConfig, root.mapping(mapping["network"], "network"), "network", keys=NETWORK_KEYS)
    experts = _experts(root, mapping)
    search = root.build(SearchConfig, mapping["search"], "search")
    train = root.build(TrainConfig, mapping["train"], "train")
    meta = root.build(MetaConfig, mapping["meta"], "meta")
    _check_playable(root, "meta.train_variants", meta.train_variants)
    metafocus = root.build(MetaFocusConfig, mapping["metafocus"], "metafocus")
    if metafocus.tasks > len(meta.train_variants):
        raise root.error(
            "metafocus.tasks", f"must be <= the {len(meta.train_variants)} meta.train_variants, got {metafocus.tasks}"
        )
    adapt_data = root.split(mapping["adapt"], "adapt", ("targets", "starts"), names=_names(AdaptConfig))
    targets = root.typed(adapt_data.pop("targets"), "adapt.targets", tuple[str, ...])
    starts = root.typed(adapt_data.pop("starts"), "adapt.starts", tuple[str, ...])
    adapt = AdaptPlan(targets, starts, root.build(AdaptConfig, adapt_data, "adapt"))
    _check_adapt(root, adapt, list(experts))
    evaluate_data = root.split(mapping["evaluate"], "evaluate", ("opponents",), names=_names(EvaluateConfig))
    opponents = root.typed(evaluate_data.pop("opponents"), "evaluate.opponents", tuple[str, ...])
    evaluate = EvaluatePlan(opponents, root.build(EvaluateConfig, evaluate_data, "evaluate"))
    _check_opponents(root, evaluate, targets, check_players)
    rate = root.build(RateConfig, mapping["rate"], "rate")
    _check_anchors(root, rate, targets, check_players)
    runner = root.build(RunnerConfig, mapping["runner"], "runner")
    return StudyConfig(
        seed,
        replicates,
        device,
        network,
        search,
        train,
        experts,
        meta,
        metafocus,
        adapt,
        evaluate,
        rate,
        runner,
        raw=mapping,
    )


def _check_adapt(root: _Checker, plan: AdaptPlan, experts: list[str]) -> None:
    if not plan.targets:
        raise root.error("adapt.targets", "must name at least one variant")
    for variant in plan.targets:
        if variant not in VARIANTS:
            raise root.error("adapt.targets", f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    if len(set(plan.targets)) < len(plan.targets):
        raise root.error("adapt.targets", f"names a variant twice: {list(plan.targets)}")
    _check_playable(root, "adapt.targets", plan.targets)
    try:
        check_starts(plan.starts, experts, plan.budgets)
    except StartError as error:
        raise root.error("adapt.starts", str(error)) from None


def _check_playable(root: _Checker, key: str, variants: typing.Iterable[str]) -> None:
    """Monochromatic is in the rule book but cannot be played: White has no legal move at ply 0 (every move
    must keep its square colour, and none of White's first moves does), so it is no task, target or expert."""
    for variant in variants:
        if not VARIANTS[variant].in_default_study:
            raise root.error(key, f"{variant} cannot be played: White has no legal move at ply 0 (the rule book)")


def plays(spec: str, variant: str) -> bool:
    """Whether the opponent ``spec`` has a cell in ``variant``: every opponent does except a ``fairy`` one in a
    variant Fairy-Stockfish does not play."""
    from mmc.play.fairy import ENGINE_VARIANTS

    return not spec.startswith("fairy") or variant in ENGINE_VARIANTS


def _check_opponents(root: _Checker, plan: EvaluatePlan, targets: tuple[str, ...], check_players: bool) -> None:
    if not plan.opponents:
        raise root.error("evaluate.opponents", "must name at least one opponent")
    if len(set(map(opponent_slug, plan.opponents))) < len(plan.opponents):
        raise root.error("evaluate.opponents", f"names an opponent twice: {list(plan.opponents)}")
    if not check_players:
        return
    for spec in plan.opponents:
        for variant in targets:
            if spec == UNADAPTED or not plays(spec, variant):
                continue
            try:
                close_player(parse_player(spec, variant=variant))
            except (ValueError, OSError, RuntimeError) as error:
                raise root.error("evaluate.opponents", f"{spec!r} cannot play {variant}: {error}") from None


def _check_anchors(root: _Checker, config: RateConfig, targets: tuple[str, ...], check_players: bool) -> None:
    for variant in targets:
        if not plays(config.anchor, variant):
            raise root.error("rate.anchor", f"{config.anchor!r} cannot play {variant}: every target needs the anchor")
        if sum(plays(spec, variant) for spec in config.anchors) < 2:
            raise root.error("rate.anchors", f"fewer than two of them play {variant}")
        if not check_players:
            continue
        for spec in config.anchors:
            if plays(spec, variant):
                try:
                    close_player(parse_player(spec, variant=variant))
                except (ValueError, OSError, RuntimeError) as error:
                    raise root.error("rate.anchors", f"{spec!r} cannot play {variant}: {error}") from None


def _experts(root: _Checker, mapping: dict[str, Any]) -> dict[str, ExpertConfig]:
    search = root.mapping(mapping["search"], "search")
    train = root.mapping(mapping["train"], "train")
    expert = root.split(mapping["expert"], "expert", ("variants",), names=_names(AlphaZeroConfig))
    root.keys(search, "search", _names(SearchConfig))
    root.keys(train, "train", _names(TrainConfig))
    variants = root.mapping(expert.pop("variants"), "expert.variants")
    if not variants:
        raise root.error("expert.variants", "must name at least one variant")
    experts = {}
    for variant, override in variants.items():
        if variant not in VARIANTS:
            known = ", ".join(VARIANTS)
            raise root.error("expert.variants", f"unknown variant {variant!r} (known: {known})")
        _check_playable(root, "expert.variants", [variant])
        experts[variant] = _expert(root, variant, override, expert, search, train)
    return experts


def _expert(
    root: _Checker, variant: str, override: Any, expert: dict[str, Any], search: dict[str, Any], train: dict[str, Any]
) -> ExpertConfig:
    """The expert config of ``variant``: the shared sections with its override mapping laid over them."""
    prefix = f"expert.variants.{variant}"
    override = {} if override is None else root.mapping(override, prefix)
    unknown = sorted(set(override) - set(expert) - {"search", "train"})
    if unknown:
        allowed = sorted([*expert, "search", "train"])
        raise root.error(f"{prefix}.{unknown[0]}", f"unknown key (a variant may override {', '.join(allowed)})")
    origin = {k: f"{prefix}.{k}" if k in override else f"expert.{k}" for k in expert}
    merged = {**expert, **{k: v for k, v in override.items() if k not in ("search", "train")}}
    loop = root.build(AlphaZeroConfig, merged, "expert", origin=origin)
    configs = []
    for name, cls, section in (("search", SearchConfig, search), ("train", TrainConfig, train)):
        part = root.mapping(override.get(name, {}), f"{prefix}.{name}")
        stray = sorted(set(part) - set(section))
        if stray:
            raise root.error(f"{prefix}.{name}.{stray[0]}", f"unknown key (expected one of {', '.join(section)})")
        keys = {k: f"{prefix}.{name}.{k}" if k in part else f"{name}.{k}" for k in section}
        configs.append(root.build(cls, {**section, **part}, name, origin=keys))
    return ExpertConfig(variant, loop, configs[0], configs[1])


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


def _names(cls: Any) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


class _Checker:
    """Key and type checks that raise :class:`ParamsError` for one parameter file."""

    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, key: str, problem: str) -> ParamsError:
        return ParamsError(self.source, key, problem)

    def mapping(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            what = "the file" if not key else "the section"
            raise self.error(key, f"{what} must be a mapping of names to values, got {_shown(value)}")
        return value

    def keys(self, mapping: dict[str, Any], key: str, expected: tuple[str, ...]) -> None:
        dot = f"{key}." if key else ""
        unknown = [k for k in mapping if k not in expected]
        if unknown:
            raise self.error(f"{dot}{unknown[0]}", f"unknown key (expected one of {', '.join(expected)})")
        missing = [k for k in expected if k not in mapping]
        if missing:
            raise self.error(f"{dot}{missing[0]}", "missing")

    def split(
        self, value: Any, key: str, own: tuple[str, ...], *, names: tuple[str, ...] | None = None
    ) -> dict[str, Any]:
        """Section ``key`` as a new dict, its keys checked: the study's own keys ``own`` plus a config's fields."""
        section = dict(self.mapping(value, key))
        self.keys(section, key, (*own, *(names or ())))
        return section

    def typed(self, value: Any, key: str, annotation: Any) -> Any:
        """``value`` converted to ``annotation`` (int, float, bool, str, ``X | None``, ``tuple[X, ...]``)."""
        if isinstance(annotation, UnionType) and NoneType in annotation.__args__:
            if value is None:
                return None
            (annotation,) = [a for a in annotation.__args__ if a is not NoneType]
        if typing.get_origin(annotation) is tuple:
            item = typing.get_args(annotation)[0]
            try:
                if not isinstance(value, list):
                    raise TypeError
                return tuple(self.typed(v, key, item) for v in value)
            except (TypeError, ParamsError):
                noun = {str: "strings", int: "ints", float: "numbers"}[item]
                raise self.error(key, f"must be a list of {noun}, got {_shown(value)}") from None
        ok = {
            int: type(value) is int,
            float: type(value) in (int, float),
            bool: type(value) is bool,
            str: type(value) is str,
        }[annotation]
        if not ok:
            article = "an" if annotation is int else "a"
            raise self.error(key, f"must be {article} {annotation.__name__}, got {_shown(value)}")
        return float(value) if annotation is float else value

    def build(
        self, cls: Any, data: Any, section: str, *, origin: dict[str, str] | None = None,
        keys: tuple[str, ...] | None = None,
    ) -> Any:  # fmt: skip
        """``cls(**data)`` after checking the keys (every field of ``cls``, or ``keys``: the others keep their
        defaults) and every field's type; a nested config field is built from its own mapping. The config's
        :class:`ConfigError` becomes a :class:`ParamsError` naming the key (``origin`` maps a field to the key
        it came from, for a variant's overrides)."""
        origin = origin or {}
        data = self.mapping(data, section)
        expected = keys or _names(cls)
        if not origin:
            self.keys(data, section, expected)
        hints = typing.get_type_hints(cls)
        values = {}
        for name in expected:
            key = origin.get(name, f"{section}.{name}")
            if dataclasses.is_dataclass(hints[name]):
                values[name] = self.build(hints[name], data[name], key)
            else:
                values[name] = self.typed(data[name], key, hints[name])
        try:
            return cls(**values)
        except ConfigError as error:
            raise self.error(origin.get(error.field, f"{section}.{error.field}"), error.problem) from None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
