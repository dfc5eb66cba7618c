"""Search configuration: one frozen dataclass, every field named as in the papers it comes from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from mmc.core.configs import POSITIVE, ConfigError, Range, check_fields

__all__ = ["PRECISIONS", "SearchConfig"]

PRECISIONS = ("fp32", "bf16")
"""How a network evaluates the search's leaves: float32, or bfloat16 (about twice the positions per second on a
CPU with AVX-512 BF16; outputs equal to float32's within ``mmc.search.evaluators.BF16_TOLERANCE``)."""


@dataclass(frozen=True)
class SearchConfig:
    """How MCTS searches (Silver et al. 2018 for PUCT and noise; Danihelka et al. 2022 for Gumbel)."""

    simulations: Annotated[int, POSITIVE] = 200
    """Simulations per move: descents from the root, each ending in one leaf evaluation or at a finished game (the
    root's own evaluation is extra). Dark chess splits them between its determinizations, rounding up."""
    c_puct: Annotated[float, POSITIVE] = 1.25
    """PUCT exploration constant ``c_init`` (AlphaZero pseudocode ``pb_c_init``)."""
    c_puct_base: Annotated[float, POSITIVE] = 19652.0
    """PUCT growth base ``c_base`` (``pb_c_base``): exploration grows as ``log((1 + N + c_base) / c_base)``."""
    dirichlet_alpha: Annotated[float, Range(0)] = 0.3
    """Root noise concentration (AlphaZero: 0.3 for chess)."""
    dirichlet_fraction: Annotated[float, Range(0, 1)] = 0.25
    """Root noise weight: prior = (1 - fraction) * prior + fraction * Dirichlet(alpha). 0 disables it."""
    temperature: Annotated[float, Range(0)] = 1.0
    """PUCT's move sampling temperature for the first ``temperature_plies`` plies: p(a) ~ N(a) ** (1 / temperature).
    Gumbel search ignores it (and ``temperature_plies``) unless ``gumbel_sampling``: its exploration is then the
    Gumbel draws alone."""
    temperature_plies: Annotated[int, Range(0)] = 10
    """Plies played with ``temperature``; afterwards the most visited move (temperature 0)."""
    reuse_tree: bool = True
    """Keep the chosen child's subtree for the next move and top its visits up to ``simulations`` (PUCT only:
    Gumbel's sequential halving needs unvisited root children, so it starts every move afresh)."""
    gumbel: bool = False
    """Gumbel root selection with sequential halving instead of PUCT and Dirichlet noise at the root."""
    gumbel_considered: Annotated[int, POSITIVE] = 16
    """Gumbel: actions sampled without replacement (``max_num_considered_actions``)."""
    gumbel_c_visit: Annotated[float, Range(0)] = 50.0
    """Gumbel: ``c_visit`` of the monotone transform sigma(q) = (c_visit + max N) * c_scale * q."""
    gumbel_c_scale: Annotated[float, Range(0)] = 0.1
    """Gumbel: ``c_scale`` of that transform, q completed and min-max rescaled to [0, 1] (mctx's defaults)."""
    gumbel_sampling: bool = False
    """Gumbel, self-play: for the first ``temperature_plies`` plies play a move sampled from the improved policy
    ``softmax((log prior + sigma(completed Q)) / temperature)`` (a fresh Gumbel-max draw over every legal move)
    instead of the search's own choice, whose Gumbel draw alone let gardner self-play collapse to repeated games.
    False: the search's choice on every ply (Danihelka et al. 2022, Algorithm 2)."""
    determinizations: Annotated[int, POSITIVE] = 4
    """Dark chess: full boards sampled per move, consistent with the mover's observation; the simulations are
    split between them and their root visit counts summed."""
    fast_simulations: Annotated[int, Range(0)] = 0
    """Playout-cap randomisation (Wu 2019, KataGo), self-play only: a move is searched with ``simulations`` with
    probability ``full_search_fraction``, otherwise with ``fast_simulations`` and no root noise, and only the
    fully searched positions become training examples (more games for the same simulations, each example's
    target from a full search). 0 turns it off: every move is searched fully."""
    full_search_fraction: Annotated[float, Range(0, 1, low_open=True)] = 0.25
    """Playout-cap randomisation: the probability, in (0, 1], that a self-play move gets the full search (unused
    while ``fast_simulations`` is 0)."""
    random_opening_plies: Annotated[int, Range(0)] = 0
    """Self-play only (a curriculum; evaluation has its own ``opening_plies``): every game starts with this many
    uniformly random legal plies (``mmc.play.arena.random_opening``), which are not searched and are no training
    examples. 0: from the variant's start position."""
    endgame_starts: Annotated[float, Range(0, 1)] = 0.0
    """Self-play only: the fraction of games that start from an endgame, the start (or random-opening) position
    with random non-king pieces taken off one side (material odds) or both (``mmc.play.curriculum``), so that won
    positions and mates are common in the data. 0: none."""
    weak_defence: Annotated[float, Range(0, 1)] = 0.0
    """Self-play only: the fraction of games in which, once a full search values the position at
    ``weak_defence_value`` or more for its mover, the other side plays uniformly random legal moves to the end
    (neither searched nor examples; ``mmc.play.selfplay``), so that the winning side meets, and must convert, the
    positions a weak defence leaves it (a bare king in chess), which self-play between two equal sides seldom
    reaches: issue 34's raw policy stalemated there against a random player. The winner's rows keep the game's
    result as their value target. 0: none."""
    weak_defence_value: Annotated[float, Range(0, 1, low_open=True)] = 0.8
    """The search's value of a position for its mover, in (0, 1], from which a weak-defence game's other side plays
    at random (``weak_defence``)."""
    solver: bool = False
    """MCTS-Solver (Winands, Bjornsson & Saito 2008), light: a move into a finished game won for its mover (a
    checkmate, a king captured or exploded, an extinction) proves its parent won; from then on the search always
    takes that move there (the root's visits, the policy target, concentrate on it and the backed-up value is the
    exact win) and at the root it is the move played. A node whose every move is proven lost is proven lost. Draws
    prove nothing. False: plain MCTS."""
    moves_left_slope: Annotated[float, Range(0)] = 0.0
    """Lc0's moves-left utility, per ply, in PUCT below the root and at it (not Gumbel's root), with a network that
    has the moves-left head (``NetworkConfig.moves_left``): each visited child's score gains
    ``-sign(q) * clamp(slope * (M_child - M_node), -cap, cap) * max(0, |q| - threshold) / (1 - threshold)``, ``q``
    the child's mean value for the node's mover and ``M`` a node's mean plies to the end, backed up through its
    subtree from the head's estimates at the leaves (0 at a finished game): a side that is winning prefers the
    shorter way to the end, one that is losing the longer. 0: off, AlphaZero's PUCT."""
    moves_left_cap: Annotated[float, Range(0, 1, low_open=True)] = 0.1
    """The moves-left utility's largest size (``cap`` above), in (0, 1]."""
    moves_left_threshold: Annotated[float, Range(0, 1, high_open=True)] = 0.5
    """The size of a child's mean value below which the moves-left utility is 0 (``threshold`` above), in [0, 1):
    it grows linearly from there to its full size at a sure result."""
    precision: str = "fp32"
    """The network's arithmetic when it evaluates leaves (:data:`PRECISIONS`; ``mmc.search.NetworkLeafEvaluator``).
    Training is always float32."""

    def __post_init__(self) -> None:
        check_fields(self)
        if self.precision not in PRECISIONS:
            raise ConfigError(
                "SearchConfig", "precision", f"must be one of {', '.join(PRECISIONS)}, got {self.precision!r}"
            )
        if self.fast_simulations >= self.simulations:
            raise ConfigError(
                "SearchConfig", "fast_simulations",
                f"must be < simulations={self.simulations} (0: off), got {self.fast_simulations}",
            )  # fmt: skip
        if self.fast_simulations and self.gumbel:
            raise ConfigError("SearchConfig", "fast_simulations", "playout caps are randomised for PUCT: 0 with gumbel")
