"""The study's rules across fields and sections of ``params.yaml``, which no single config can check.

Each rule raises :class:`RuleError` naming the key at fault; :func:`pipelines.config.parse_params` calls them
and names the file. None of them starts a process: :func:`check_players`, the one check that does (it starts
every engine opponent once), is an explicit step of ``python -m pipelines check``, ``study`` and ``evaluate``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mmc.evaluation.evaluate import RateConfig
from mmc.evaluation.evaluate import slug as opponent_slug
from mmc.evaluation.starts import StartError, check_starts
from mmc.games import get_game, get_variant, initial_state, legal_moves
from mmc.meta import TaskDistribution, same_game
from mmc.nn import NetworkConfig
from mmc.play import close_player, parse_player
from mmc.play.fairy import plays
from pipelines.study_config import UNADAPTED, StudyConfig

__all__ = [
    "RuleError",
    "check_adapt",
    "check_anchors",
    "check_family",
    "check_full_games",
    "check_learners",
    "check_moves_left",
    "check_opponents",
    "check_playable",
    "check_players",
    "check_replicates",
    "check_variant",
]


class RuleError(ValueError):
    """A broken study rule: ``key`` is the dotted key at fault (``adapt.starts``), ``problem`` says why."""

    def __init__(self, key: str, problem: str) -> None:
        self.key, self.problem = key, problem
        super().__init__(f"{key}: {problem}")


def check_replicates(seed: int, replicates: Sequence[int]) -> None:
    if seed < 0:
        raise RuleError("seed", f"must be an int >= 0, got {seed!r}")
    if not replicates or min(replicates) < 0 or len(set(replicates)) < len(replicates):
        raise RuleError("replicates", f"must be a list of distinct ints >= 0, got {list(replicates)}")


def check_playable(key: str, variants: Iterable[str]) -> None:
    """A variant whose start position has no legal move is no task, target or expert. Monochromatic is in the chess
    rule book but cannot be played: White has no legal move at ply 0 (every move must keep its square colour, and
    none of White's first moves does). Every other variant is, 8x8 chess included (the larger profile's held-out
    target)."""
    for variant in variants:
        if not legal_moves(initial_state(variant)):
            first = get_game(variant).players[0].capitalize()
            raise RuleError(key, f"{variant} cannot be played: {first} has no legal move at ply 0 (the rule book)")


def check_held_out(
    train_variants: Sequence[str], distribution: TaskDistribution | None, targets: Sequence[str]
) -> None:
    """A target is either a meta-training variant (by its own id) or held out, and a held-out target lies outside
    meta-training: it is not the same game as a training variant under another id (``gomoku_6x6`` is
    ``mnk_6x6_k4``), nor, where ``meta.train_variants`` is a distribution, a variant of the distribution that the draw
    left out. ``RuleError`` naming the target otherwise."""
    for target in targets:
        if target in train_variants:
            continue
        twin = next((v for v in train_variants if same_game(v, target)), None)
        if twin is not None:
            raise RuleError("adapt.targets", f"{target} is the same game as the meta-training variant {twin}: a "
                            "target is held out under no other id (name it as meta.train_variants does)")  # fmt: skip
        member = None if distribution is None else distribution.member(target)
        if member is not None:
            also = "" if member == target else f" (as {member})"
            raise RuleError("adapt.targets", f"{target} lies inside meta.train_variants' distribution{also} though "
                            "the draw left it out: a held-out target lies outside the distribution")  # fmt: skip


def check_variant(key: str, variant: str) -> None:
    """``variant`` is a variant id of some family, named or generated (``mnk_7x5_k4``); ``RuleError`` naming ``key``
    and what is wrong (an unknown id, a malformed generated one) otherwise."""
    try:
        get_variant(variant)
    except ValueError as error:
        raise RuleError(key, str(error)) from None


def check_family(named: Sequence[tuple[str, Iterable[str]]]) -> str:
    """Every variant a study names (``(key, variants)`` pairs: the experts, the meta-training tasks, the targets)
    is of one game family, whose name is returned: one network plays one family's variants. ``RuleError`` names the
    first key with a variant of another family."""
    family = None
    for key, variants in named:
        for variant in variants:
            name = get_game(variant).name
            if family is None:
                family = name
            elif name != family:
                raise RuleError(key, f"{variant} is a {name} variant, the study's are {family} variants")
    if family is None:
        raise RuleError("adapt.targets", "must name at least one variant")
    return family


def check_full_games(key: str, max_plies: int, targets: Sequence[str]) -> None:
    """The evaluation plays each target's games to their end by its rule book: a ``max_plies`` below the ply by
    which the rule book ends every game (``Game.game_plies``: the jump game's cap, a k-in-a-row board's cells) would
    rate a game cut short under the full game's name. ``RuleError`` naming ``key``, the target and the variant that
    is the shorter game (the jump family's ``jump_p100``), where the family generates one."""
    for target in targets:
        game = get_game(target)
        plies = None if game.game_plies is None else game.game_plies(target)
        if plies is not None and max_plies < plies:
            shorter = f"{target}_p{max_plies}"
            named = f"rate {shorter}, the game scored at ply {max_plies}, or " if shorter in game.variants else ""
            raise RuleError(key, f"{max_plies} cuts {target}'s games short of the rule book's end (ply {plies}): "
                            f"{named}raise it to {plies}")  # fmt: skip


def _check_trained(learners: Sequence[str], starts: Sequence[str]) -> None:
    """Every start of ``adapt.starts`` that is a learner's is one the study trains (``learners``): ``RuleError``
    saying so, or naming an unknown one with the installed ones."""
    from mmc.meta import LearnerError, get_learner

    for name in starts:
        if name not in learners and not name.startswith("expert-") and name != "scratch":
            try:
                get_learner(name)
            except LearnerError as error:
                raise RuleError("adapt.starts", str(error)) from None
            raise RuleError("adapt.starts", f"{name} is a learner the study does not train: name it under learners")


def check_learners(learners: Sequence[str], starts: Sequence[str]) -> None:
    """Each learner makes a start of ``adapt.starts`` or the network one of them starts from, and the one a learner
    starts from is among the learners; ``RuleError`` naming the learner otherwise."""
    from mmc.meta import get_learner

    needed = set(starts) | {p for s in starts if s in learners and (p := get_learner(s).starts_from)}
    for name in learners:
        parent = get_learner(name).starts_from
        if parent is not None and parent not in learners:
            raise RuleError(f"learners.{name}", f"starts from {parent}'s network: name {parent} under learners too")
        if name not in needed:
            raise RuleError(f"learners.{name}", "makes no start of adapt.starts: add it there, or remove it here")


def check_adapt(
    targets: Sequence[str], starts: Sequence[str], budgets: Sequence[int], experts: list[str], learners: list[str]
) -> None:
    if not targets:
        raise RuleError("adapt.targets", "must name at least one variant")
    for variant in targets:
        check_variant("adapt.targets", variant)
    if len(set(targets)) < len(targets):
        raise RuleError("adapt.targets", f"names a variant twice: {list(targets)}")
    check_playable("adapt.targets", targets)
    _check_trained(learners, starts)
    try:
        check_starts(starts, experts, budgets, learners)
    except StartError as error:
        raise RuleError("adapt.starts", str(error)) from None


def check_moves_left(network: NetworkConfig, settings: Sequence[tuple[str, float]]) -> None:
    """Every ``(key, value)`` of ``settings`` (``train.moves_left_weight``, ``search.moves_left_slope``, ...) that is on
    needs the network's moves-left head (``network.moves_left``)."""
    if network.moves_left:
        return
    for key, value in settings:
        if value > 0:
            raise RuleError(key, f"is {value}, but network.moves_left is false: the network has no moves-left head")


def check_opponents(opponents: Sequence[str]) -> None:
    if not opponents:
        raise RuleError("evaluate.opponents", "must name at least one opponent")
    if len(set(map(opponent_slug, opponents))) < len(opponents):
        raise RuleError("evaluate.opponents", f"names an opponent twice: {list(opponents)}")


def check_anchors(config: RateConfig, targets: Sequence[str]) -> None:
    for variant in targets:
        if not plays(config.anchor, variant):
            raise RuleError("rate.anchor", f"{config.anchor!r} cannot play {variant}: every target needs the anchor")
        if sum(plays(spec, variant) for spec in config.anchors) < 2:
            raise RuleError("rate.anchors", f"fewer than two of them play {variant}")


def check_players(study: StudyConfig) -> None:
    """That every evaluation opponent and rating anchor can play each target it has a cell in: each is built once
    and closed (a ``fairy`` spec starts Fairy-Stockfish). :class:`RuleError` names the first that cannot."""
    for key, specs in (("evaluate.opponents", study.evaluate.opponents), ("rate.anchors", study.rate.anchors)):
        for spec in specs:
            for variant in study.targets:
                if spec == UNADAPTED or not plays(spec, variant):
                    continue
                try:
                    close_player(parse_player(spec, variant=variant))
                except (ValueError, OSError, RuntimeError) as error:
                    raise RuleError(key, f"{spec!r} cannot play {variant}: {error}") from None
