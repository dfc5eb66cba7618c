"""Learning efficiency: a Gardner expert's Elo against the CPU-minutes of its training, recipes side by side.

    python benchmarks/learning.py [--recipes previous,current] [--seeds 0,1] [--generations 6] [--every 2]
        [--workers 2] [--variant gardner] [--budget CPU_MINUTES] [--ksims THOUSANDS] [--params params.yaml]
        [--out DIR]

A recipe is the study's expert loop -- ``pipelines.calls.expert_inputs``: ``params.yaml``'s network, search, train and
expert sections and a replicate's seed, exactly what ``expert@gardner-R`` runs -- with some keys changed
(:data:`RECIPES`; ``previous`` pins the recipe before issue 12, ``before-21`` the one before issue 21,
``current`` is ``params.yaml`` as it is). For each recipe and seed (a replicate) the benchmark runs
``--generations`` generations of ``mmc.loops.alphazero.alphazero`` on a pool of ``--workers`` processes of one torch
thread each, a training job taking its ``train.threads`` (as the study's process runner), and keeps the champion
every ``--every`` generations together with the CPU time spent so far (the jobs' own process time plus this
process's). Then every kept champion is rated in one pool with the study's rating (``mmc.evaluation.evaluate.rate``:
each model first plays greedy, then the anchors' ladder and the games nearest its estimate; greedy = 0, bootstrap 95 %
intervals). Every kept champion also plays ``--greedy-games`` against greedy at the evaluation's settings (the
study's "beats greedy" measure) and ``--policy-games`` with its raw policy (most probable move, no search)
against random: issue 12's targets are 95 % wins and a 0.95 score, so a long ``--generations`` run shows the
training budget that reaches them. The raw policy's stalemates in those games and its share of the mate suite's
mates in one of the variant (``benchmarks/data/mates.csv``: gardner, baby, mallet) are issue 34's targets (at
most 5 in 100; 0.9). ``--opponents`` adds players each kept champion also plays at the evaluation's
settings (a family's strength targets: ``fairy:nodes=100``, ``mcts:100``).

It prints one row per kept champion, the anchors' ratings and a summary per recipe -- its final champions, and
its Elo at a common ``--budget`` of CPU-minutes per replicate (interpolated on each replicate's curve between
its kept champions; default: the least any replicate spent), so that recipes of unequal cost compare at equal
CPU, and at a common ``--ksims`` thousand self-play simulations (the moves searched times the recipe's
simulations a move), a comparison the machine's speed does not move -- and writes them as
``curves.csv``, ``anchors.csv`` and ``summary.csv`` under ``--out`` (default: a new temporary directory), the
numbers BENCHMARKS.md quotes.
"""

from __future__ import annotations

import argparse
import copy
import csv
import multiprocessing as mp
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from diagnosis import solved

from mmc.core.fanout import Job, Runner
from mmc.core.seeding import derive, rng
from mmc.evaluation.evaluate import Cell, Rated, evaluate, rate
from mmc.evaluation.rating import pairing
from mmc.games import get_game
from mmc.games.chess.puzzles import read_puzzles
from mmc.loops.alphazero import alphazero
from mmc.nn import NetworkEvaluator, PolicyValueNet, save_checkpoint
from mmc.play import MatchResult, PolicyPlayer, RandomPlayer, close_player, parse_player, play_match
from mmc.search import SearchConfig
from pipelines.calls import expert_inputs, keywords
from pipelines.config import StudyConfig, parse_params

REPO = Path(__file__).resolve().parent.parent
SUITE = REPO / "benchmarks" / "data" / "mates.csv"
"""The mate suite (``python benchmarks/diagnose.py --make-suite``): mates in 1-3 and stalemate traps of gardner, baby
and mallet."""

BEFORE_34: dict[str, Any] = {
    "expert.search.endgame_starts": 0.0,
    "expert.train.convert_weight": 1.0,
    "expert.train.convert_plies": 1,
}
"""The expert recipe before issue 34 adopted ``convert-4x5-endgame`` (the solver and the 0.97 discount alone): issue
34's screen ran from it, and ``current`` before that adoption is this recipe."""
BEFORE_21: dict[str, Any] = {**BEFORE_34, "expert.search.solver": False, "expert.train.value_discount": 0.99}
"""The expert recipe before issue 21 adopted ``solver-d97`` (as of abdc5d6, the last commit before the adoption):
the shared search and train sections as they are (the meta stages' and the adaptations' recipe). Issue 21's
screen ran from it, and ``current`` before the adoption is this recipe."""
PREVIOUS: dict[str, Any] = {
    **BEFORE_21,
    "search.fast_simulations": 0,
    "train.epochs": 2,
    "train.search_value_weight": 0.0,
    "expert.train.value_discount": 1.0,
    "expert.generations": 6,
    "expert.arena_games": 40,
}
"""The expert recipe of the study before issue 12 (commit b34563e): the keys whose defaults changed since."""

RECIPES: dict[str, dict[str, Any]] = {
    "previous": PREVIOUS,
    "current": {},
    "before-21": BEFORE_21,
    # the ablations measured from the previous recipe (BENCHMARKS.md), one change at a time, then combined
    "q-mix": {**PREVIOUS, "train.search_value_weight": 0.5},
    "pcr": {**PREVIOUS, "search.simulations": 96, "search.fast_simulations": 16, "search.full_search_fraction": 0.25},
    "no-arena": {**PREVIOUS, "expert.arena_games": 0},
    "epochs-4": {**PREVIOUS, "train.epochs": 4},
    "na-e4": {**PREVIOUS, "expert.arena_games": 0, "train.epochs": 4},
    "na-e4-q": {**PREVIOUS, "expert.arena_games": 0, "train.epochs": 4, "train.search_value_weight": 0.5},
    "na-e4-pcr": {
        **PREVIOUS,
        "expert.arena_games": 0,
        "train.epochs": 4,
        "search.simulations": 96,
        "search.fast_simulations": 16,
        "search.full_search_fraction": 0.25,
    },
    "na-e4-lr05": {**PREVIOUS, "expert.arena_games": 0, "train.epochs": 4, "train.learning_rate": 0.05},
    # from the recipe of their time (issue 12's, BEFORE_21)
    "no-discount": {**BEFORE_21, "expert.train.value_discount": 1.0},
    "current-pcr": {
        **BEFORE_21,
        "search.simulations": 96,
        "search.fast_simulations": 16,
        "search.full_search_fraction": 0.25,
    },
    "one-thread": {**BEFORE_21, "train.threads": 1},  # the training numerics before train.threads (2 by default since)
    "window-6": {**BEFORE_21, "expert.window": 6},
    "sims32-games192": {**BEFORE_21, "search.simulations": 32, "expert.games": 192},  # equal simulations a generation
    # issue 21's screen, each from the recipe it had then (BEFORE_21; one option at a time, then combined)
    "open-8": {**BEFORE_21, "search.random_opening_plies": 8},  # self-play starts after 8 random plies
    # a quarter from material odds / thinned boards
    "endgame-0.25": {**BEFORE_21, "expert.search.endgame_starts": 0.25},
    "open8-endgame": {**BEFORE_21, "search.random_opening_plies": 8, "expert.search.endgame_starts": 0.25},
    "cosine-lr": {**BEFORE_21, "train.lr_schedule": "cosine", "train.lr_floor": 0.1},
    # a generation at the study's settings holds about 4,700 examples (an untrained net, 37 plies a game): 12,000
    # is about window 3 early on, and fewer generations as the games grow longer
    "window-positions": {**BEFORE_21, "expert.window_positions": 12000},
    # Gumbel at 16 simulations with its move sampled from the improved policy for temperature_plies plies, from
    # random openings, and 3x the games: the same simulations per generation as current (16 x 384 = 48 x 128)
    "gumbel-16": {
        **BEFORE_21,
        "search.simulations": 16,
        "search.gumbel": True,
        "search.gumbel_sampling": True,
        "search.random_opening_plies": 8,
        "expert.games": 384,
    },
    # bigger networks, with simulations x games lowered by their cost per simulation in self-play (measured:
    # 2x32 0.107 ms, 4x48 0.183 ms, 4x64 0.299 ms per simulation on one AMD EPYC core), so that a generation's
    # self-play costs about what current's does (48 x 128 x 0.107 = 657; 32 x 112 x 0.183 = 656;
    # 24 x 96 x 0.299 = 689 ms-units); their training costs more per example (the curve's CPU-minutes count it)
    "net-4x48": {
        **BEFORE_21,
        "network.blocks": 4,
        "network.filters": 48,
        "search.simulations": 32,
        "expert.games": 112,
    },
    "net-4x64": {**BEFORE_21, "network.blocks": 4, "network.filters": 64, "search.simulations": 24, "expert.games": 96},
    "bf16": {**BEFORE_21, "search.precision": "bf16"},  # leaf evaluation in bfloat16 (AVX-512 BF16), training float32
    # MCTS-Solver in self-play only: a proven mate takes every later visit, so the policy target holds the mate
    # (the evaluation's search plays as before; with it too, the played strength would change with the player)
    "solver": {**BEFORE_21, "expert.search.solver": True},
    "solver-curriculum": {
        **BEFORE_21,
        "expert.search.solver": True,
        "search.random_opening_plies": 8,
        "expert.search.endgame_starts": 0.25,
    },
    # a stronger value discount: the diagnosis found the best non-mating move's value +0.84 beside the mate, so
    # the search cannot tell a win now from a win later (a 40-ply gardner win: 0.99 ** 40 = 0.67, 0.97 ** 40 = 0.30)
    "discount-0.97": {**BEFORE_21, "expert.train.value_discount": 0.97},
    # both: the expert recipe since issue 21 (= current)
    "solver-d97": {**BEFORE_21, "expert.search.solver": True, "expert.train.value_discount": 0.97},
    # the board's symmetries off (issue 32): each position once, as played, instead of a random one of the board's
    # symmetries a pass (all 8 of a square gomoku board, the left-right mirror in chess, jump and with gravity)
    "no-symmetry": {"train.augment_mirror": False},
    # issue 34's screen, each from the recipe before its adoption (BEFORE_34): KataGo's policy-surprise weighting,
    # half of the rows' weight by KL(target || prior)
    "before-34": BEFORE_34,
    "surprise-0.5": {**BEFORE_34, "train.policy_surprise": 0.5},
    # endgame starts on top of the solver and the 0.97 discount (issue 21 screened them without it): a quarter of
    # self-play's games from thinned-out boards, where the mates are
    "endgame-d97": {**BEFORE_34, "expert.search.endgame_starts": 0.25},
    # the winner's last moves of a won game weighted more (the mate, about 2.5 % of the rows; the last three moves,
    # the conversion without a stalemate)
    "convert-8": {**BEFORE_34, "expert.train.convert_weight": 8.0},
    "convert-4x5": {**BEFORE_34, "expert.train.convert_weight": 4.0, "expert.train.convert_plies": 5},
    # the same weight spread over more of the winner's moves (the stalemates come before the last three), and
    # on top of endgame starts (the lone-king positions self-play between equals seldom reaches): adopted
    "convert-3x9": {**BEFORE_34, "expert.train.convert_weight": 3.0, "expert.train.convert_plies": 9},
    "convert-2x15": {**BEFORE_34, "expert.train.convert_weight": 2.0, "expert.train.convert_plies": 15},
    "convert-4x5-endgame": {
        **BEFORE_34,
        "expert.train.convert_weight": 4.0,
        "expert.train.convert_plies": 5,
        "expert.search.endgame_starts": 0.25,
    },
    # half of self-play's games end against a random defence once a search values the position at 0.5 for its
    # mover (a win about 23 plies away under the 0.97 discount; the bare-king positions the raw policy meets
    # against random and stalemates in), alone and with the conversion weight and endgame starts (the adopted
    # recipe)
    "defence": {**BEFORE_34, "search.weak_defence": 0.5, "search.weak_defence_value": 0.5},
    "defence-convert-endgame": {"search.weak_defence": 0.5, "search.weak_defence_value": 0.5},
    # issue 34: Lc0's moves-left head, trained with a small loss weight and read by self-play's search (a winning
    # side prefers the shorter way to the end, about 0.01 a ply up to 0.05)
    "moves-left": {
        **BEFORE_34,
        "network.moves_left": True,
        "train.moves_left_weight": 0.25,
        "search.moves_left_slope": 0.01,
        "search.moves_left_cap": 0.05,
    },
}
"""Recipes by name: dotted ``params.yaml`` keys and their values, applied to the file's mapping."""


def aimed_at(params: Mapping[str, Any], variant: str) -> dict[str, Any]:
    """``params`` (a parsed ``params.yaml``) with an expert of ``variant``: the study's expert recipe on it. A variant
    of another game family than the study's (``jump_6x6_moves``, the jump game's other encoding, from the example
    package ``examples/jump_moves`` once installed, under the jump study's params) becomes the study's only variant
    too (its meta-training task and target, its expert start), since a study plays one family."""
    data = copy.deepcopy(dict(params))
    experts = data["expert"]["variants"]
    if get_game(variant).name != get_game(next(iter(experts))).name:
        data["expert"]["variants"] = {variant: {}}
        data["meta"]["train_variants"], data["meta"]["probs"], data["meta"]["tasks"] = [variant], None, 1
        data["learners"]["metafocus"]["tasks"] = 1
        data["adapt"]["targets"] = [variant]
        starts = data["adapt"]["starts"]
        data["adapt"]["starts"] = [f"expert-{variant}" if s.startswith("expert-") else s for s in starts]
    elif variant not in experts:
        data["expert"]["variants"] = {**experts, variant: {}}
    return data


def study_of(params: Mapping[str, Any], changes: Mapping[str, Any]) -> StudyConfig:
    """The study of ``params`` (a parsed ``params.yaml``) with the dotted keys of ``changes`` set."""
    data = copy.deepcopy(dict(params))
    for key, value in changes.items():
        *parents, last = key.split(".")
        node = data
        for part in parents:
            node = node[part]
        if last not in node:
            raise SystemExit(f"benchmarks/learning.py: recipe key {key} is not in params.yaml")
        node[last] = value
    return parse_params(data)


def check_recipe(params: Mapping[str, Any], name: str, changes: Mapping[str, Any]) -> None:
    """That recipe ``name`` (its dotted keys ``changes``) changes no key of the shared ``search`` or ``train``
    section that the expert recipe (``expert.search``, ``expert.train``) replaces, since the expert would not see
    it: ``SystemExit`` naming the key to set instead (before any work starts)."""
    for key in changes:
        section, _, field = key.partition(".")
        if section in ("search", "train") and field in (params["expert"][section] or {}):
            raise SystemExit(
                f"benchmarks/learning.py: recipe {name}: {key} does not reach the expert, whose recipe sets"
                f" expert.{key}: change that key"
            )


def chosen(text: str, known: Iterable[str], script: str, option: str) -> list[str]:
    """The comma-separated names of ``text``, each one of ``known``: ``SystemExit`` naming the unknown ones and
    ``option`` (before any work starts)."""
    names, known = text.split(","), list(known)
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SystemExit(f"{script}: {option}: unknown {unknown}; known: {', '.join(known)}")
    return names


def check_players(specs: Iterable[str], variant: str, what: str) -> None:
    """That every player spec of ``specs`` can play ``variant`` (a ``fairy`` spec starts Fairy-Stockfish), before
    any training: ``SystemExit`` naming the first that cannot after ``what`` (the script and the option)."""
    for spec in specs:
        try:
            close_player(parse_player(spec, variant=variant))
        except (ValueError, OSError, RuntimeError) as error:
            raise SystemExit(f"{what} {spec!r} cannot play {variant}: {error}") from None


def check_anchors(study: StudyConfig, variants: Sequence[str], script: str) -> None:
    """That every rating anchor of ``study`` can play each of ``variants``: :func:`check_players`."""
    for variant in variants:
        check_players(study.anchors(variant), variant, f"{script}: rating anchor")


def _one_thread() -> None:
    torch.set_num_threads(1)


def _timed(fn: Callable[..., Any], kwargs: Mapping[str, Any]) -> tuple[Any, float]:
    """``fn(**kwargs)`` and the CPU seconds this process spent on it."""
    start = time.process_time()
    result = fn(**kwargs)
    return result, time.process_time() - start


class PoolRunner:
    """A ``mmc.core.fanout.Runner`` on a process pool that adds up the CPU time of the jobs it runs."""

    def __init__(self, workers: int) -> None:
        context = mp.get_context("spawn")
        self.pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_one_thread)
        self.cpu_seconds = 0.0

    def __call__(self, jobs: Sequence[Job[Any]]) -> list[Any]:
        futures = [self.pool.submit(_timed, job.fn, job.kwargs) for job in jobs]
        results = []
        for future in futures:
            result, seconds = future.result()
            self.cpu_seconds += seconds
            results.append(result)
        return results

    def close(self) -> None:
        self.pool.shutdown()


@dataclass(frozen=True)
class Checkpoint:
    recipe: str
    seed: int
    generation: int
    """Generations played (1 = after the first)."""
    cpu_minutes: float
    wall_minutes: float
    accepted: int
    """Candidates accepted so far."""
    simulations: float
    """Self-play's simulations so far: the moves it searched times the recipe's mean simulations a move
    (:func:`mean_simulations`), the machine-free count of its search work."""
    net: PolicyValueNet

    @property
    def name(self) -> str:
        return f"{self.recipe}-s{self.seed}-g{self.generation}"


def train_recipe(
    study: StudyConfig, variant: str, recipe: str, seed: int, every: int, workers: int, minutes: float | None = None
) -> list[Checkpoint]:
    """The expert loop of ``study`` for ``variant`` in replicate ``seed``; the champion every ``every``
    generations (and after the last) with the CPU and wall time spent so far. With ``minutes``, the loop also
    stops after the first generation that ends past that many wall-clock minutes (a lent machine's time)."""
    runner = PoolRunner(workers)
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    kept, accepted, simulations = [], 0, 0.0
    try:
        loop = study.experts[variant].loop
        per_move = mean_simulations(study.experts[variant].search)
        for step in alphazero(**keywords(expert_inputs(study, variant, seed)), run=runner):
            accepted += step.accepted
            simulations += step.self_play.plies * per_move
            done = step.index + 1
            late = minutes is not None and time.perf_counter() - start_wall > minutes * 60
            if done % every == 0 or done == loop.generations or late:
                cpu = runner.cpu_seconds + time.process_time() - start_cpu
                wall = time.perf_counter() - start_wall
                kept.append(Checkpoint(recipe, seed, done, cpu / 60, wall / 60, accepted, simulations, step.champion))
                print(f"  {recipe} seed {seed} generation {done}: {cpu / 60:.1f} CPU-min, {wall / 60:.1f} min, "
                      f"{accepted} accepted", flush=True)  # fmt: skip
            if late:
                break
    finally:
        runner.close()
    return kept


def mean_simulations(config: SearchConfig) -> float:
    """The simulations self-play spends on a move with ``config``: ``simulations``, or with playout-cap
    randomisation (``fast_simulations`` > 0) the mean of the full and the fast search at ``full_search_fraction``."""
    if config.fast_simulations == 0:
        return float(config.simulations)
    fraction = config.full_search_fraction
    return fraction * config.simulations + (1 - fraction) * config.fast_simulations


def rate_pool(
    models: Mapping[str, PolicyValueNet], variant: str, study: StudyConfig, seed: np.random.SeedSequence, runner: Runner
) -> Rated:
    """Every model of ``models`` rated in one pool on ``variant`` with the study's rating
    (``mmc.evaluation.evaluate.rate``, its anchors and settings): each first plays the rating's first opponent, then the
    ladder."""
    config = study.evaluate.config
    first = [Cell(name, net, study.rate.anchor) for name, net in models.items()]
    games = evaluate(first, variant, replace(config, games=study.rate.games), derive(seed, "first"), run=runner)
    played = [pairing(c.player, c.opponent, r) for c, r in zip(first, games, strict=True)]
    return rate(dict(models), played, study.anchors(variant), variant, config, study.rate, derive(seed, "rate"),
                run=runner)  # fmt: skip


@dataclass(frozen=True)
class RawPolicy:
    """A champion's raw policy (most probable move, no search): issue 12's and issue 34's measures."""

    versus_random: MatchResult
    """Against random."""
    stalemates: int
    """Those games that ended in a stalemate (issue 34's target: at most 5 in 100)."""
    mates_in_one: float | None
    """The share of the mate suite's mates in one of the variant it plays (``benchmarks/data/mates.csv``; issue
    34's target: 0.9); None for a variant the suite has none of."""


def _raw_policy(net: PolicyValueNet, variant: str, games: int, seed: np.random.SeedSequence) -> RawPolicy:
    """:class:`RawPolicy` of ``net`` on ``variant``: ``games`` games against random, then the suite's mates in one."""
    torch.set_num_threads(1)
    player = PolicyPlayer(NetworkEvaluator(net))
    result = play_match(player, RandomPlayer(), variant, games, rng(seed))
    stalemates = sum(record.termination == "stalemate" for record in result.records)
    puzzles = [p for p in read_puzzles(SUITE) if (p.variant, p.kind, p.mate_in) == (variant, "mate", 1)]
    marks = solved(puzzles, player, rng(derive(seed, "suite"))) if puzzles else []
    return RawPolicy(result, stalemates, float(np.mean([s for s, _ in marks])) if marks else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipes", default="previous,current", help=f"comma-separated, of {', '.join(RECIPES)}")
    parser.add_argument("--seeds", default="0", help="replicates to train each recipe from (comma-separated)")
    parser.add_argument("--generations", type=int, default=None,
                        help="for every recipe (default: each recipe's expert.generations)")  # fmt: skip
    parser.add_argument("--every", type=int, default=2, help="keep the champion every this many generations")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--variant", default="gardner")
    parser.add_argument("--policy-games", type=int, default=100, help="raw policy vs random, per kept champion")
    parser.add_argument("--opponents", default="",
                        help="comma-separated mmc.play specs each kept champion also plays, --greedy-games games "
                        "each at the evaluation's settings (strength targets: fairy:nodes=100, mcts:100)")  # fmt: skip
    parser.add_argument("--greedy-games", type=int, default=60,
                        help="against greedy at the evaluation's settings, per kept champion")  # fmt: skip
    parser.add_argument("--budget", type=float, default=None,
                        help="CPU-minutes per replicate at which the summary compares the recipes (default: the "
                             "least any replicate spent)")  # fmt: skip
    parser.add_argument("--ksims", type=float, default=None,
                        help="thousands of self-play simulations per replicate at which the summary also compares "
                             "the recipes (default: the least any replicate ran)")  # fmt: skip
    parser.add_argument("--params", type=Path, default=REPO / "params.yaml", help="the study's parameter file")
    parser.add_argument("--minutes", type=float, default=None,
                        help="also stop each training after the first generation past this many wall-clock minutes "
                        "(the generations it ran are printed: rerun with --generations to repeat it)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--save", action="store_true",
                        help="save each kept champion as OUT/NAME.pt (mmc match net:OUT/NAME.pt plays it)")  # fmt: skip
    args = parser.parse_args()
    recipes = chosen(args.recipes, RECIPES, "benchmarks/learning.py", "--recipes")
    seeds = [int(s) for s in args.seeds.split(",")]
    params = yaml.safe_load(args.params.read_text())
    params = aimed_at(params, args.variant)
    for name in recipes:
        check_recipe(params, name, RECIPES[name])
    studies = {r: study_of(params, RECIPES[r]) for r in recipes}
    check_anchors(study_of(params, {}), [args.variant], "benchmarks/learning.py")
    opponents = [spec for spec in args.opponents.split(",") if spec]
    check_players(opponents, args.variant, "benchmarks/learning.py: --opponents:")
    if args.generations is not None:
        for name, study in studies.items():
            loop = replace(study.experts[args.variant].loop, generations=args.generations)
            studies[name] = replace(study, experts={args.variant: replace(study.experts[args.variant], loop=loop)})
    out = args.out or Path(tempfile.mkdtemp(prefix="learning-"))
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)

    checkpoints: list[Checkpoint] = []
    for recipe in recipes:
        for seed in seeds:
            print(f"training {recipe}, seed {seed}: {RECIPES[recipe] or 'params.yaml'}", flush=True)
            checkpoints += train_recipe(studies[recipe], args.variant, recipe, seed, args.every, args.workers,
                                        args.minutes)  # fmt: skip

    if args.save:
        for c in checkpoints:
            save_checkpoint(c.net, c.net.config, out / f"{c.name}.pt")
    base = study_of(params, {})
    models = {c.name: c.net for c in checkpoints}
    runner = PoolRunner(args.workers)
    start = time.perf_counter()
    try:
        config = base.evaluate.config
        seed = derive(np.random.SeedSequence(base.seed), "learning-benchmark")
        rated = rate_pool(models, args.variant, base, seed, runner)
        against_greedy = [Cell(c.name, c.net, "greedy") for c in checkpoints]
        greedy = evaluate(against_greedy, args.variant, replace(config, games=args.greedy_games),
                          derive(seed, "greedy"), run=runner)  # fmt: skip
        extra = {
            spec: evaluate([Cell(c.name, c.net, spec) for c in checkpoints], args.variant,
                           replace(config, games=args.greedy_games), derive(seed, "versus", spec), run=runner)
            for spec in opponents
        }  # fmt: skip
        jobs = [Job("policy", (c.name,), _raw_policy,
                    dict(net=c.net, variant=args.variant, games=args.policy_games,
                         seed=derive(seed, "policy", c.name)))
                for c in checkpoints]  # fmt: skip
        policy = runner(jobs)
    finally:
        runner.close()
    print(f"rated {len(models)} champions in {(time.perf_counter() - start) / 60:.1f} min")
    ratings = rated.ratings
    anchors = [{"anchor": a, "elo": round(ratings.elo[a]), "low": round(ratings.low[a]), "high": round(ratings.high[a])}
               for a in base.anchors(args.variant)]  # fmt: skip
    write_csv(out / "anchors.csv", anchors)
    print("anchors: " + ", ".join(f"{a['anchor']} {a['elo']:+d} [{a['low']:+d}, {a['high']:+d}]" for a in anchors))

    rows = []
    for i, (c, versus, raw) in enumerate(zip(checkpoints, greedy, policy, strict=True)):
        mates = "" if raw.mates_in_one is None else round(raw.mates_in_one, 3)
        low, high = ratings.low[c.name], ratings.high[c.name]
        rows.append({"recipe": c.recipe, "seed": c.seed, "generation": c.generation,
                     "cpu_minutes": round(c.cpu_minutes, 3), "wall_minutes": round(c.wall_minutes, 3),
                     "ksims": round(c.simulations / 1000, 1),
                     "accepted": c.accepted, "elo": round(ratings.elo[c.name]), "low": round(low),
                     "high": round(high), "greedy_wins": versus.wins, "greedy_draws": versus.draws,
                     "greedy_losses": versus.losses, "greedy_win_rate": round(versus.wins / versus.games, 3),
                     "policy_vs_random": round(raw.versus_random.score, 3), "policy_stalemates": raw.stalemates,
                     "policy_mates_in_one": mates,
                     **{f"vs {spec}": _wdl(results[i]) for spec, results in extra.items()}})  # fmt: skip
    write_csv(out / "curves.csv", rows)
    print(f"\n{args.variant} experts, Elo (greedy = 0) by CPU-minutes of training; against greedy at the evaluation's "
          f"settings ({args.greedy_games} games); raw policy against random ({args.policy_games} games):")  # fmt: skip
    print("| recipe | seed | generation | CPU-min | wall min | accepted | Elo [95 %] | vs greedy W/D/L (wins) "
          "| raw policy vs random | its stalemates | its mates in one (suite) |"
          + "".join(f" vs {spec} W/D/L (score) |" for spec in opponents))  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|" + "---|" * len(opponents))
    for r in rows:
        print(f"| {r['recipe']} | {r['seed']} | {r['generation']} | {r['cpu_minutes']:.1f} | {r['wall_minutes']:.1f} "
              f"| {r['accepted']} | {r['elo']:+d} [{r['low']:+d}, {r['high']:+d}] "
              f"| {r['greedy_wins']}/{r['greedy_draws']}/{r['greedy_losses']} ({r['greedy_win_rate']:.0%}) "
              f"| {r['policy_vs_random']:.2f} | {r['policy_stalemates']} | {_share(r['policy_mates_in_one'])} |"
              + "".join(f" {r[f'vs {spec}']} |" for spec in opponents))  # fmt: skip

    summary = summarise(rows, recipes, args.budget, args.ksims)
    write_csv(out / "summary.csv", summary)
    budget = summary[0]["budget_cpu_minutes"]
    print(
        f"\nAt a common budget of {budget:.2f} CPU-minutes per replicate (--budget; default: the least any "
        "replicate spent), each replicate's Elo interpolated linearly in CPU-minutes between its kept "
        "champions (held at the first or last one outside them: 'clamped' counts those), averaged over seeds:"
    )
    print("| recipe | seeds | CPU-min (mean) | final Elo (mean) | Elo at budget [95 %] | vs current at budget "
          "| clamped | raw policy vs random | its stalemates | its mates in one |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for s in summary:
        versus = "" if s["vs_current"] == "" else f"{s['vs_current']:+d}"
        print(f"| {s['recipe']} | {s['seeds']} | {s['cpu_minutes']:.1f} | {s['elo_mean']:+d} "
              f"| {s['elo_at_budget']:+d} [{s['low_at_budget']:+d}, {s['high_at_budget']:+d}] | {versus} "
              f"| {s['clamped']} | {s['policy_vs_random']:.3f} | {s['policy_stalemates']:.1f} "
              f"| {_share(s['policy_mates_in_one'])} |")  # fmt: skip
    print(f"\nAt a common {summary[0]['budget_ksims']:.1f} thousand self-play simulations per replicate (--ksims; "
          "default: the least any replicate ran; the machine's speed does not enter, training's work is not "
          "counted), interpolated the same way:")  # fmt: skip
    print("| recipe | thousand simulations (mean) | Elo at equal simulations [95 %] | vs current | clamped |")
    print("|---|---|---|---|---|")
    for s in summary:
        versus = "" if s["vs_current_at_ksims"] == "" else f"{s['vs_current_at_ksims']:+d}"
        print(f"| {s['recipe']} | {s['ksims']:.1f} | {s['elo_at_ksims']:+d} [{s['low_at_ksims']:+d}, "
              f"{s['high_at_ksims']:+d}] | {versus} | {s['clamped_at_ksims']} |")  # fmt: skip
    print(f"\nwritten: {out / 'curves.csv'}, {out / 'anchors.csv'}, {out / 'summary.csv'}")


def _share(value: float | str) -> str:
    """A share for the tables, blank where not measured."""
    return "" if value == "" else f"{value:.2f}"


def _mean_share(values: Sequence[float | str]) -> float | str:
    """The mean of the measured shares; blank if none was measured."""
    measured = [float(v) for v in values if v != ""]
    return round(float(np.mean(measured)), 3) if measured else ""


def _wdl(result: MatchResult) -> str:
    """``W/D/L (score)`` of a champion's match, its score as a fraction of the games."""
    return f"{result.wins}/{result.draws}/{result.losses} ({result.score:.2f})"


def at_budget(cpu_minutes: Sequence[float], values: Sequence[float], budget: float) -> float:
    """A curve's value at ``budget`` CPU-minutes (or any other measure of work): linear between its kept champions
    (``cpu_minutes`` with their ``values``), the first one's value below them and the last one's above (no
    extrapolation)."""
    order = np.argsort(cpu_minutes)
    return float(np.interp(budget, np.asarray(cpu_minutes)[order], np.asarray(values, dtype=float)[order]))


def summarise(
    rows: Sequence[Mapping[str, Any]], recipes: Sequence[str], budget: float | None, ksims: float | None = None
) -> list[dict[str, Any]]:
    """One row per recipe from ``curves.csv``'s rows: its final champions (mean over seeds), and every replicate's
    Elo (and interval ends) at a common ``budget`` of CPU-minutes (:func:`at_budget`; ``None``: the least CPU any
    replicate spent, which every curve reaches), averaged over the seeds, with the difference to ``current``'s
    (when it ran), so that recipes of unequal cost compare at equal CPU. The same at a common ``ksims`` thousand
    self-play simulations (``None``: the least any replicate ran), where rows carry them: a comparison the
    machine's speed does not move (CPU-minutes drift by a fifth from one hour to the next), which counts search
    work only (not training's)."""
    curves: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    for row in rows:
        curves.setdefault((row["recipe"], row["seed"]), []).append(row)
    by_sims = all("ksims" in row for row in rows)
    if budget is None:
        budget = min(max(r["cpu_minutes"] for r in curve) for curve in curves.values())
    if ksims is None and by_sims:
        ksims = min(max(r["ksims"] for r in curve) for curve in curves.values())

    def at(mine: list[list[Mapping[str, Any]]], axis: str, where: float) -> dict[str, float]:
        ends = {
            k: [at_budget([r[axis] for r in c], [r[k] for r in c], where) for c in mine] for k in ("elo", "low", "high")
        }
        clamped = sum(not min(r[axis] for r in c) <= where <= max(r[axis] for r in c) for c in mine)
        return {**{k: round(float(np.mean(v))) for k, v in ends.items()}, "clamped": clamped}

    summary = []
    for recipe in recipes:
        mine = [curve for (name, _), curve in curves.items() if name == recipe]
        finals = [max(curve, key=lambda r: r["generation"]) for curve in mine]
        cpu = at(mine, "cpu_minutes", budget)
        summary.append({
            "recipe": recipe, "seeds": len(mine),
            "cpu_minutes": round(float(np.mean([r["cpu_minutes"] for r in finals])), 2),
            "elo_mean": round(float(np.mean([r["elo"] for r in finals]))),
            "budget_cpu_minutes": round(budget, 3),
            "elo_at_budget": cpu["elo"], "low_at_budget": cpu["low"], "high_at_budget": cpu["high"],
            "vs_current": "", "clamped": cpu["clamped"],
            "policy_vs_random": round(float(np.mean([r["policy_vs_random"] for r in finals])), 3),
            "policy_stalemates": round(float(np.mean([r.get("policy_stalemates", 0) for r in finals])), 2),
            "policy_mates_in_one": _mean_share([r.get("policy_mates_in_one", "") for r in finals]),
            "changes": ";".join(f"{k}={v}" for k, v in RECIPES[recipe].items()) or "params.yaml",
        })  # fmt: skip
        if by_sims:
            assert ksims is not None
            sims = at(mine, "ksims", ksims)
            summary[-1].update({
                "ksims": round(float(np.mean([r["ksims"] for r in finals])), 1), "budget_ksims": round(ksims, 1),
                "elo_at_ksims": sims["elo"], "low_at_ksims": sims["low"], "high_at_ksims": sims["high"],
                "vs_current_at_ksims": "", "clamped_at_ksims": sims["clamped"],
            })  # fmt: skip
    base = next((s for s in summary if s["recipe"] == "current"), None)
    if base is not None:
        for s in summary:
            s["vs_current"] = s["elo_at_budget"] - base["elo_at_budget"]
            if by_sims:
                s["vs_current_at_ksims"] = s["elo_at_ksims"] - base["elo_at_ksims"]
    return summary


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """``rows`` (mappings with the same keys) as a CSV file with a header."""
    with path.open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
