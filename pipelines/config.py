"""``params.yaml`` -> frozen, typed configs, checked before any work starts.

The file has one section per component or stage plus the shared seed::

    seed: 0                       # root of every SeedSequence (pipelines.seeds)
    network: {blocks, filters, value_hidden}          # mmc.nn.NetworkConfig
    search: {...every SearchConfig field...}          # self-play search (mmc.search.SearchConfig)
    train: {...every TrainConfig field...}            # mmc.train.TrainConfig
    expert:                       # the AlphaZero loop per variant (mmc.alphazero.AlphaZeroConfig) + fan-out
      variants: {gardner: {}}     # one expert stage per key; a value overrides keys of expert/search/train
      chunks: 2                   # self-play tasks per generation
      generations: ...            # ...every AlphaZeroConfig field
    meta: {train_variants, probs, tasks, generations, games, epsilon, epochs, concurrent, max_plies}
    adapt: {targets, budgets, epochs, starts, concurrent, max_plies}  # adaptation of every start to every target
    evaluate: {games, opponents, simulations, gumbel, opening_plies, max_plies}   # every adapted model
    runner: {kind, workers, address}   # where self-play and evaluation tasks run; never changes a result

Every key must be present and no other key may be (a variant's override mapping lists only what it
changes). A problem stops the run with :class:`ParamsError`, whose message is one line naming the file and
the key: ``params.yaml: expert.generations: must be an int, got 'x'``.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from types import NoneType, UnionType
from typing import Any

import yaml

from mmc.alphazero import AlphaZeroConfig
from mmc.engine import VARIANTS
from mmc.nn import NetworkConfig
from mmc.play import close_player, parse_player
from mmc.search import SearchConfig
from mmc.train import TrainConfig

__all__ = [
    "AdaptConfig",
    "EvaluateConfig",
    "ExpertConfig",
    "MetaConfig",
    "ParamsError",
    "RunnerConfig",
    "StudyConfig",
    "expert_fingerprint_data",
    "flatten",
    "load_params",
    "opponent_slug",
    "parse_params",
]

RUNNER_KINDS = ("process", "dask", "thread")
"""``process``: a local process pool; ``dask``: a Dask cluster (``address``) or a local one; ``thread``: in-process."""
NETWORK_KEYS = ("blocks", "filters", "value_hidden")
"""The network's settable shape; its input and output planes are fixed by the engine."""
SECTIONS = ("seed", "network", "search", "train", "expert", "meta", "adapt", "evaluate", "runner")
UNADAPTED = "unadapted"
"""The evaluation opponent that is the adapted model's own starting model (cells with budget > 0 only)."""
SCRATCH = "scratch"
"""The adaptation start that is a freshly initialised network."""
META_STARTS = ("joat", "multitask")
"""Starts made by the meta stages (``meta_train`` and ``multitask``)."""


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
    """Generations, games, replay window, arena and gating."""
    chunks: int
    """Self-play tasks per generation; the games are split between them as evenly as they go."""
    search: SearchConfig
    """Self-play search."""
    train: TrainConfig
    """Training of each generation's candidate."""

    def chunk_games(self) -> list[int]:
        """Games of each self-play chunk (the first ``games % chunks`` chunks get one more)."""
        base, extra = divmod(self.loop.games, self.chunks)
        return [base + (c < extra) for c in range(self.chunks)]


@dataclass(frozen=True)
class MetaConfig:
    """JOAT meta-training (first-order Reptile across variants) and the multitask baseline's equal budget."""

    train_variants: tuple[str, ...] = ("gardner", "baby", "rifle", "atomic")
    """The variants tasks are drawn from."""
    probs: tuple[float, ...] | None = None
    """Sampling probability of each train variant, in order (``None``: uniform)."""
    tasks: int = 4
    """Variants in each meta-generation's task batch (drawn without replacement)."""
    generations: int = 8
    """Meta-generations (outer updates)."""
    games: int = 96
    """Self-play games per task per meta-generation; the multitask baseline plays the same games."""
    epsilon: float = 1.0
    """Meta step size: ``theta <- theta + epsilon * (mean theta'_i - theta)``; 1 is the seed's plain average."""
    epochs: int = 8
    """Passes over the data of JOAT's inner update and of the multitask network's training (replaces
    ``train.epochs`` there: the same passes over the same examples, so both spend the same compute)."""
    concurrent: int = 96
    """Self-play games searched together in one task."""
    max_plies: int = 150
    """Ply cap of self-play games."""

    def training(self, train: TrainConfig) -> TrainConfig:
        """The training settings of the inner update (and of the multitask network): ``train`` with these epochs."""
        return replace(train, epochs=self.epochs)


@dataclass(frozen=True)
class AdaptConfig:
    """Few-shot adaptation: at most one AlphaZero iteration of every start on every target, per budget."""

    targets: tuple[str, ...] = ("gardner", "baby", "mallet", "rifle", "atomic")
    """Target variants (one adapt@ and evaluate@ stage each); the study holds at least one out of meta-training."""
    budgets: tuple[int, ...] = (0, 20, 100)
    """Self-play games of the adaptation iteration (0: the start unchanged)."""
    epochs: int = 8
    """Passes over the adaptation's games when training (replaces ``train.epochs``; JOAT's inner update uses
    ``meta.epochs``, and adaptation is that inner update on the target)."""
    starts: tuple[str, ...] = ("joat", "multitask", "expert-gardner", "scratch")
    """Starting models: ``joat``, ``multitask``, ``expert-V`` (V in ``expert.variants``), ``scratch``."""
    concurrent: int = 100
    """Self-play games searched together."""
    max_plies: int = 150
    """Ply cap of self-play games."""

    def training(self, train: TrainConfig) -> TrainConfig:
        """The adaptation's training settings: ``train`` with these epochs."""
        return replace(train, epochs=self.epochs)


@dataclass(frozen=True)
class EvaluateConfig:
    """Evaluation of every adapted model of a target against the opponents."""

    games: int = 100
    """Games per cell (half with each colour, in pairs sharing a random opening)."""
    opponents: tuple[str, ...] = ("random", "greedy", UNADAPTED, "fairy:nodes=1")
    """Opponents as ``mmc.play.parse_player`` specs, or ``unadapted`` (the starting model, budgets > 0 only).
    A ``fairy`` opponent plays only the targets Fairy-Stockfish knows; the others have no such cell."""
    simulations: int = 64
    """The model's MCTS simulations per move."""
    gumbel: bool = False
    """Search with Gumbel root selection instead of PUCT."""
    opening_plies: int = 4
    """Random plies before each pair of games (varied openings)."""
    max_plies: int = 150
    """Ply cap (drawn there)."""


@dataclass(frozen=True)
class RunnerConfig:
    """Where the fanned-out tasks run; results do not depend on it (seeds are keyed by chunk, not by worker)."""

    kind: str = "process"
    """``process``, ``dask`` or ``thread`` (see :data:`RUNNER_KINDS`)."""
    workers: int = 2
    """Worker processes (``process``; ``dask`` without ``address``: a LocalCluster of this many) or threads."""
    address: str | None = None
    """Dask scheduler address (``tcp://host:8786``); ``kind: dask`` only."""


@dataclass(frozen=True)
class StudyConfig:
    """The whole parameter file, checked."""

    seed: int
    network: NetworkConfig
    search: SearchConfig
    """The shared self-play search (meta stages and adaptation; an expert's may be overridden per variant)."""
    train: TrainConfig
    """The shared training settings (inner updates, multitask, adaptation)."""
    experts: dict[str, ExpertConfig]
    """Expert stage per variant, in the file's order."""
    meta: MetaConfig
    adapt: AdaptConfig
    evaluate: EvaluateConfig
    runner: RunnerConfig
    raw: dict[str, Any] = field(repr=False, compare=False)
    """The file as parsed, for logging."""

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
    network_data = root.mapping(mapping["network"], "network")
    root.keys(network_data, "network", NETWORK_KEYS)
    network = root.build(NetworkConfig, network_data, "network", defaults=True)
    experts = _experts(root, mapping)
    search = root.build(SearchConfig, mapping["search"], "search")
    train = root.build(TrainConfig, mapping["train"], "train")
    meta = _section(root, mapping, "meta", MetaConfig)
    _check_meta(root, meta)
    adapt = _section(root, mapping, "adapt", AdaptConfig)
    _check_adapt(root, adapt, list(experts))
    evaluate = _section(root, mapping, "evaluate", EvaluateConfig)
    _check_evaluate(root, evaluate, list(adapt.targets), check_players)
    runner_data = root.mapping(mapping["runner"], "runner")
    root.keys(runner_data, "runner", tuple(f.name for f in fields(RunnerConfig)))
    runner = root.build(RunnerConfig, runner_data, "runner")
    _check_runner(root, runner)
    return StudyConfig(seed, network, search, train, experts, meta, adapt, evaluate, runner, raw=mapping)


def _section(root: _Checker, mapping: dict[str, Any], name: str, cls: Any) -> Any:
    data = root.mapping(mapping[name], name)
    root.keys(data, name, tuple(f.name for f in fields(cls)))
    return root.build(cls, data, name)


def _variant_list(root: _Checker, key: str, variants: tuple[str, ...]) -> None:
    if not variants:
        raise root.error(key, "must name at least one variant")
    for variant in variants:
        if variant not in VARIANTS:
            raise root.error(key, f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    if len(set(variants)) < len(variants):
        raise root.error(key, f"names a variant twice: {list(variants)}")


def _check_meta(root: _Checker, config: MetaConfig) -> None:
    _variant_list(root, "meta.train_variants", config.train_variants)
    for name in ("tasks", "generations", "games", "epochs", "concurrent", "max_plies"):
        if getattr(config, name) < 1:
            raise root.error(f"meta.{name}", f"must be an int >= 1, got {getattr(config, name)}")
    if config.tasks > len(config.train_variants):
        raise root.error(
            "meta.tasks", f"must be <= the {len(config.train_variants)} train_variants, got {config.tasks}"
        )
    if not 0 <= config.epsilon <= 1:
        raise root.error("meta.epsilon", f"must be in [0, 1], got {config.epsilon}")
    if config.probs is not None:
        probs = config.probs
        if len(probs) != len(config.train_variants) or min(probs) < 0 or abs(sum(probs) - 1) > 1e-6:
            raise root.error(
                "meta.probs",
                f"must be null or {len(config.train_variants)} numbers >= 0 summing to 1 (one per train variant), "
                f"got {list(probs)}",
            )
        if sum(p > 0 for p in probs) < config.tasks:
            raise root.error("meta.probs", f"gives fewer than meta.tasks={config.tasks} variants a chance")


def _check_adapt(root: _Checker, config: AdaptConfig, experts: list[str]) -> None:
    _variant_list(root, "adapt.targets", config.targets)
    if not config.budgets or min(config.budgets) < 0 or len(set(config.budgets)) < len(config.budgets):
        raise root.error("adapt.budgets", f"must be distinct self-play game counts >= 0, got {list(config.budgets)}")
    known = [*META_STARTS, *(f"expert-{v}" for v in experts), SCRATCH]
    if not config.starts or len(set(config.starts)) < len(config.starts):
        raise root.error("adapt.starts", f"must name distinct starting models, got {list(config.starts)}")
    for start in config.starts:
        if start not in known:
            raise root.error("adapt.starts", f"unknown start {start!r} (known: {', '.join(known)})")
    for name in ("epochs", "concurrent", "max_plies"):
        if getattr(config, name) < 1:
            raise root.error(f"adapt.{name}", f"must be an int >= 1, got {getattr(config, name)}")


def plays(spec: str, variant: str) -> bool:
    """Whether the opponent ``spec`` has a cell in ``variant``: every opponent does except a ``fairy`` one in a
    variant Fairy-Stockfish does not play."""
    from mmc.play.fairy import ENGINE_VARIANTS

    return not spec.startswith("fairy") or variant in ENGINE_VARIANTS


def _experts(root: _Checker, mapping: dict[str, Any]) -> dict[str, ExpertConfig]:
    search = root.mapping(mapping["search"], "search")
    train = root.mapping(mapping["train"], "train")
    expert = root.mapping(mapping["expert"], "expert")
    loop_keys = tuple(f.name for f in fields(AlphaZeroConfig))
    root.keys(expert, "expert", ("variants", "chunks", *loop_keys))
    root.keys(search, "search", tuple(f.name for f in fields(SearchConfig)))
    root.keys(train, "train", tuple(f.name for f in fields(TrainConfig)))
    variants = root.mapping(expert["variants"], "expert.variants")
    if not variants:
        raise root.error("expert.variants", "must name at least one variant")
    experts = {}
    for variant, override in variants.items():
        if variant not in VARIANTS:
            known = ", ".join(VARIANTS)
            raise root.error("expert.variants", f"unknown variant {variant!r} (known: {known})")
        experts[variant] = _expert(root, variant, override, expert, search, train)
    return experts


def _expert(
    root: _Checker, variant: str, override: Any, expert: dict[str, Any], search: dict[str, Any], train: dict[str, Any]
) -> ExpertConfig:
    """The expert config of ``variant``: the shared sections with its override mapping laid over them."""
    prefix = f"expert.variants.{variant}"
    override = {} if override is None else root.mapping(override, prefix)
    shared = {k: v for k, v in expert.items() if k != "variants"}
    unknown = sorted(set(override) - set(shared) - {"search", "train"})
    if unknown:
        allowed = sorted([*shared, "search", "train"])
        raise root.error(f"{prefix}.{unknown[0]}", f"unknown key (a variant may override {', '.join(allowed)})")
    origin = {k: f"{prefix}.{k}" if k in override else f"expert.{k}" for k in shared}
    merged = {**shared, **{k: v for k, v in override.items() if k not in ("search", "train")}}
    chunks_key = origin.pop("chunks")
    chunks = root.typed(merged.pop("chunks"), chunks_key, int)
    threshold = root.typed(merged["gate_threshold"], origin["gate_threshold"], float)
    if not 0 <= threshold <= 1:
        raise root.error(origin["gate_threshold"], f"must be in [0, 1], got {threshold}")
    loop = root.build(AlphaZeroConfig, merged, "expert", origin=origin)
    if not 1 <= chunks <= loop.games:
        raise root.error(chunks_key, f"must be an int in [1, games={loop.games}], got {chunks}")
    configs = []
    for name, cls, section in (("search", SearchConfig, search), ("train", TrainConfig, train)):
        part = root.mapping(override.get(name, {}), f"{prefix}.{name}")
        stray = sorted(set(part) - set(section))
        if stray:
            raise root.error(f"{prefix}.{name}.{stray[0]}", f"unknown key (expected one of {', '.join(section)})")
        keys = {k: f"{prefix}.{name}.{k}" if k in part else f"{name}.{k}" for k in section}
        configs.append(root.build(cls, {**section, **part}, name, origin=keys))
    return ExpertConfig(variant, loop, chunks, configs[0], configs[1])


def _check_evaluate(root: _Checker, config: EvaluateConfig, variants: list[str], check_players: bool) -> None:
    for name in ("games", "simulations", "max_plies"):
        if getattr(config, name) < 1:
            raise root.error(f"evaluate.{name}", f"must be an int >= 1, got {getattr(config, name)}")
    if not 0 <= config.opening_plies < config.max_plies:
        raise root.error("evaluate.opening_plies", f"must be in [0, max_plies), got {config.opening_plies}")
    if not config.opponents:
        raise root.error("evaluate.opponents", "must name at least one opponent")
    if len(set(map(opponent_slug, config.opponents))) < len(config.opponents):
        raise root.error("evaluate.opponents", f"names an opponent twice: {list(config.opponents)}")
    if not check_players:
        return
    for spec in config.opponents:
        for variant in variants:
            if spec == UNADAPTED or not plays(spec, variant):
                continue
            try:
                close_player(parse_player(spec, variant=variant))
            except (ValueError, OSError, RuntimeError) as error:
                raise root.error("evaluate.opponents", f"{spec!r} cannot play {variant}: {error}") from None


def _check_runner(root: _Checker, config: RunnerConfig) -> None:
    if config.kind not in RUNNER_KINDS:
        raise root.error("runner.kind", f"must be one of {', '.join(RUNNER_KINDS)}, got {config.kind!r}")
    if config.workers < 1:
        raise root.error("runner.workers", f"must be an int >= 1, got {config.workers}")
    if config.address is not None and config.kind != "dask":
        raise root.error("runner.address", f"is only used with kind: dask (kind is {config.kind!r}); set it to null")


def opponent_slug(spec: str) -> str:
    """A name for an opponent spec that is safe in file names and metric keys: ``mcts:200`` -> ``mcts_200``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", spec).strip("_") or "player"


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


def expert_fingerprint_data(study: StudyConfig, variant: str) -> dict[str, Any]:
    """What an expert's generations depend on, except how many there are (so adding generations resumes)."""
    expert = study.experts[variant]
    return {
        "seed": study.seed,
        "network": study.network.to_dict(),
        "variant": variant,
        "loop": asdict(replace(expert.loop, generations=1)),
        "chunks": expert.chunks,
        "search": asdict(expert.search),
        "train": asdict(expert.train),
    }


_MMC_ERROR = re.compile(r"^\w+\.(\w+) (.*)$")


class _Checker:
    """Type and key checks that raise :class:`ParamsError` for one parameter file."""

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
        self,
        cls: Any,
        data: dict[str, Any],
        section: str,
        *,
        origin: dict[str, str] | None = None,
        defaults: bool = False,
    ) -> Any:
        """``cls(**data)`` after checking every field's type (the caller has checked the keys); the class's own
        ``ValueError`` becomes a :class:`ParamsError` naming the key. ``defaults``: fields absent from ``data``
        keep their defaults."""
        origin = origin or {}
        hints = typing.get_type_hints(cls)
        names = [f.name for f in fields(cls) if f.name in data or not defaults]
        values = {n: self.typed(data[n], origin.get(n, f"{section}.{n}"), hints[n]) for n in names}
        try:
            return cls(**values)
        except ValueError as error:
            match = _MMC_ERROR.match(str(error).splitlines()[0])
            if match and match.group(1) in values:
                raise self.error(origin.get(match.group(1), f"{section}.{match.group(1)}"), match.group(2)) from None
            raise self.error(section, str(error).splitlines()[0]) from None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
