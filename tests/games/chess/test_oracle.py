"""Differential test against Fairy-Stockfish (``pyffish``) on seeded random games.

What a user relies on, checked at every ply of at least 200 random games per variant that the oracle
covers (``docs/rules/chess.md``, "How the rules are checked"):

- the legal move set equals Fairy-Stockfish's for our own FEN of the position;
- when no move is left, the game ends as Fairy-Stockfish says: checkmate, stalemate or the variant's
  own end (king exploded in atomic, king captured in dark, a piece type extinct in extinction), with
  the same winner;
- draws by threefold repetition and the fifty-move rule are declared exactly where Fairy-Stockfish
  (given the game's move list) would allow the claim;
- insufficient material follows the spec (K v K, K + minor v K), and Fairy-Stockfish agrees except in
  the two documented places where its notion differs (see :func:`check_insufficient_material`);
- after the game, replaying its moves in Fairy-Stockfish gives our FEN (board, side and clocks).

The ply cap is the engine's own rule (Fairy-Stockfish has none), so it only ends the games here.
Each pyffish call costs about 2 ms (it re-initialises its bitboards), so the oracle is asked about
repetition only when a position recurs or the fifty-move clock is due, and about insufficient
material once per material signature (its answer depends only on the material and on the square
colours of bishops). The legal moves of every position, a call per ply, come from the Fairy-Stockfish
binary instead (``go perft 1``, every position of a test's games in one engine process: 5-8 times
faster), for the variants the binary plays for ``mmc`` (:data:`BINARY_VARIANTS`); pyffish lists the others'.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyffish
import pytest

from mmc.games.chess import (
    Color,
    Outcome,
    PieceType,
    State,
    Termination,
    apply_move,
    initial_state,
    legal_moves,
    outcome,
)
from mmc.games.chess.game import ENGINE

pytestmark = pytest.mark.slow  # the differential suite: 200 random games a variant, minutes in all

ENGINE_NAMES = {
    "gardner": "gardner",
    "baby": "baby",
    "mallet": "mallet",
    "los_alamos": "losalamos",
    "atomic": "atomic5",
    "extinction": "extinction5",
    "dark": "gardnerkc",
    "chess": "chess",
}
"""Project id -> Fairy-Stockfish variant (``shared/oracle/variants.ini`` defines the custom ones)."""

GAMES_PER_VARIANT = 200
GAMES = {"chess": 40}
"""Fewer games where a game costs more (chess: 8x8, 150 plies, more oracle calls per ply)."""
CHUNKS = 4
"""Seeds of a variant are split into this many test items so that xdist can spread them."""

VARIANT_ENDS = {
    "atomic": Termination.KING_EXPLODED,
    "extinction": Termination.EXTINCTION,
    "dark": Termination.KING_CAPTURED,
}
"""What Fairy-Stockfish's ``is_immediate_game_end`` means in each variant that has one."""

SPEC_INSUFFICIENT_VARIANTS = {"gardner", "baby", "mallet", "los_alamos", "atomic"}
"""Variants where the spec's K v K and K + minor v K draw applies. Not in extinction (such material has
already lost a piece type) nor in dark, where a king can simply be captured; Fairy-Stockfish agrees
(``has_insufficient_material`` is never true in ``extinction5`` or ``gardnerkc``)."""

CLAIMABLE_DRAWS = {Termination.REPETITION, Termination.FIFTY_MOVES}
KING, BISHOP, KNIGHT = PieceType.KING, PieceType.BISHOP, PieceType.KNIGHT


VARIANTS_INI = Path(__file__).resolve().parents[2] / "oracle" / "variants.ini"
"""The repository's copy of ``shared/oracle/variants.ini`` (Fairy-Stockfish definitions of the custom variants)."""


@pytest.fixture(autouse=True, scope="module")
def oracle_variants() -> None:
    """Every test here needs the custom variants loaded into pyffish."""
    pyffish.load_variant_config(VARIANTS_INI.read_text())


@dataclass
class Game:
    """One seeded random game as it is played: what the checks need to know and to name in a failure."""

    variant: str
    seed: int
    start_fen: str
    moves: list[str] = field(default_factory=list)
    seen: Counter[str] = field(default_factory=Counter)
    """Occurrences of each (board, side to move, castling rights, en passant) since the last capture or pawn move."""

    @property
    def engine(self) -> str:
        return ENGINE_NAMES[self.variant]

    def where(self, state: State) -> str:
        """The coordinates of a failure: variant, seed, ply and FEN."""
        return f"{self.variant} seed {self.seed} ply {state.ply} FEN {state.fen()}"


def random_game(variant: str, seed: int) -> Iterator[tuple[Game, State]]:
    """Play uniformly random legal moves with ``random.Random(seed)`` until :func:`outcome` ends the game.

    Yields the game record and every state, the last one included; the default ply cap ends long games.
    """
    rng = random.Random(seed)
    state = initial_state(variant)
    game = Game(variant, seed, state.fen())
    while True:
        if state.halfmove_clock == 0:
            game.seen.clear()
        game.seen[" ".join(state.fen().split()[:4])] += 1  # board, side, castling rights, en passant
        yield game, state
        if outcome(state) is not None:
            return
        move = rng.choice(legal_moves(state))
        game.moves.append(move.uci())
        state = apply_move(state, move)


def winner_from_value(value: int, turn: Color) -> Color | None:
    """Fairy-Stockfish values are from the side to move's view: > 0 it wins, < 0 it loses, 0 a draw."""
    if value == 0:
        return None
    return turn if value > 0 else turn.other


def oracle_final_outcome(game: Game, state: State) -> Outcome:
    """How Fairy-Stockfish ends a position without legal moves: a variant end, checkmate or stalemate."""
    fen = state.fen()
    variant_end, _ = pyffish.is_immediate_game_end(game.engine, fen, [])
    value = pyffish.game_result(game.engine, fen, [])
    winner = winner_from_value(value, state.turn)
    if variant_end:
        return Outcome(winner, VARIANT_ENDS[game.variant])
    return Outcome(winner, Termination.STALEMATE if value == 0 else Termination.CHECKMATE)


BINARY = shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish"
BINARY_VARIANTS = frozenset(ENGINE.variants.values())
"""The engine variants whose legal moves the binary lists: those it plays for ``mmc`` (``mmc.games.chess.game.ENGINE``,
Debian's 11.1). ``variants.ini``'s atomic and extinction need a newer engine (the binary misreads atomic5 and has
extinction5 promote to nothing), and dark is kept with them: pyffish lists theirs."""


def binary_moves(engine: str, fens: Sequence[str]) -> list[set[str]]:
    """The legal moves (UCI) of each FEN by the binary's ``go perft 1``, in one engine process."""
    script = [f"uci\nsetoption name VariantPath value {VARIANTS_INI}\nsetoption name UCI_Variant value {engine}"]
    script += [f"position fen {fen}\ngo perft 1" for fen in fens]
    out = subprocess.run([BINARY], input="\n".join([*script, "quit\n"]), capture_output=True, text=True, check=True)
    found: list[set[str]] = []
    moves: set[str] = set()
    for line in out.stdout.splitlines():
        if line.startswith("Nodes searched"):
            found.append(moves)
            moves = set()
        elif ": " in line and line.split(": ", 1)[1].strip().isdigit():
            moves.add(line.split(": ", 1)[0])
    assert len(found) == len(fens), f"{BINARY} answered {len(found)} of {len(fens)} positions of {engine}"
    return found


def oracle_moves(engine: str, fens: Sequence[str]) -> dict[str, set[str]]:
    """Fairy-Stockfish's legal moves of each FEN: the binary's for :data:`BINARY_VARIANTS` (where it is installed),
    pyffish's otherwise."""
    unique = list(dict.fromkeys(fens))
    if engine in BINARY_VARIANTS and shutil.which(BINARY):
        return dict(zip(unique, binary_moves(engine, unique), strict=True))
    return {fen: set(pyffish.legal_moves(engine, fen, [])) for fen in unique}


def check_legal_moves(game: Game, state: State, oracle: dict[str, set[str]]) -> None:
    """Our legal moves are exactly Fairy-Stockfish's for our FEN (promotions included)."""
    ours = {m.uci() for m in legal_moves(state)}
    theirs = oracle[state.fen()]
    assert ours == theirs, (
        f"{game.where(state)}: legal moves differ; only ours: {sorted(ours - theirs)}, "
        f"only Fairy-Stockfish: {sorted(theirs - ours)}"
    )


def check_end_without_moves(game: Game, state: State, result: Outcome | None) -> None:
    """With no legal move the game is over, with Fairy-Stockfish's winner and kind of end."""
    expected = oracle_final_outcome(game, state)
    assert result == expected, f"{game.where(state)}: no legal moves; outcome {result}, Fairy-Stockfish {expected}"


def material(state: State) -> list[tuple[int, int]]:
    """Sorted ``(signed piece, square colour)`` pairs; the colour is kept for bishops only (0 otherwise)."""
    board = state.board_array()
    return sorted((int(p), (sq % 8 + sq // 8) % 2 + 1 if abs(p) == BISHOP else 0) for sq, p in enumerate(board) if p)


_DEAD: dict[tuple[str, tuple[tuple[int, int], ...]], bool] = {}


def oracle_dead_position(engine: str, pieces: list[tuple[int, int]], fen: str) -> bool:
    """Fairy-Stockfish says neither side can mate. It reads only material and bishop colours, hence the cache."""
    key = (engine, tuple(pieces))
    if key not in _DEAD:
        _DEAD[key] = all(pyffish.has_insufficient_material(engine, fen, []))
    return _DEAD[key]


def spec_insufficient(variant: str, pieces: list[tuple[int, int]]) -> bool:
    """The spec's draw: K v K or K + one knight or bishop v K."""
    kinds = sorted(abs(p) for p, _ in pieces)
    return variant in SPEC_INSUFFICIENT_VARIANTS and kinds in ([KING, KING], [KNIGHT, KING, KING], [BISHOP, KING, KING])


def same_coloured_bishops_only(pieces: list[tuple[int, int]]) -> bool:
    """Kings plus bishops that all stand on one square colour."""
    bishops = {colour for p, colour in pieces if abs(p) == BISHOP}
    return len(bishops) == 1 and all(abs(p) in (KING, BISHOP) for p, _ in pieces)


def check_insufficient_material(game: Game, state: State, result: Outcome | None) -> None:
    """The spec's insufficient-material draw, compared with Fairy-Stockfish's dead-position test.

    Where the two notions agree the comparison is exact. They differ in two places, both kept as the
    spec says: Fairy-Stockfish also calls kings plus same-coloured bishops dead (e.g. K+B v K+B with
    both bishops on one colour; the spec lists only K v K and K + minor v K, so the game goes on), and
    in atomic it does not call K + minor v K dead (it assumes a knight or bishop might still mate; the
    spec's base draw rule applies to atomic, and the minor really cannot mate a lone king there,
    because kings that touch cannot be checked).
    """
    pieces = material(state)
    ours = result is not None and result.termination is Termination.INSUFFICIENT_MATERIAL
    if game.variant == "chess":  # the spec counts as Fairy-Stockfish does: exact
        dead = oracle_dead_position(game.engine, pieces, state.fen())
        assert ours == dead, f"{game.where(state)}: insufficient material {ours}, Fairy-Stockfish {dead}"
        return
    spec = spec_insufficient(game.variant, pieces)
    assert ours == spec, f"{game.where(state)}: insufficient material per spec {spec}, outcome {result}"
    dead = oracle_dead_position(game.engine, pieces, state.fen())
    if spec and not dead:
        assert game.variant == "atomic", f"{game.where(state)}: K v K or K + minor v K, Fairy-Stockfish plays on"
    if dead and not spec:
        assert same_coloured_bishops_only(pieces), f"{game.where(state)}: Fairy-Stockfish calls this position dead"


def check_claimable_draws(game: Game, state: State, result: Outcome | None) -> None:
    """Threefold repetition and the fifty-move rule end the game exactly when Fairy-Stockfish allows the claim.

    The oracle replays the whole game, so it sees the history. It is asked when the position has
    occurred before, when the fifty-move clock is due, and at the end of every game. Insufficient
    material takes precedence in our outcome and is not part of Fairy-Stockfish's notion, so it is
    skipped here (see :func:`check_insufficient_material`).
    """
    repeated = game.seen[" ".join(state.fen().split()[:4])] >= 2
    if not (repeated or state.halfmove_clock >= 99 or result is not None):
        return
    if result is not None and result.termination is Termination.INSUFFICIENT_MATERIAL:
        return
    claimable, _ = pyffish.is_optional_game_end(game.engine, game.start_fen, game.moves)
    ours = result is not None and result.termination in CLAIMABLE_DRAWS
    assert ours == claimable, f"{game.where(state)}: outcome {result}, Fairy-Stockfish claimable draw {claimable}"


def check_ply(game: Game, state: State, oracle: dict[str, set[str]]) -> Outcome | None:
    """Every per-position comparison (``oracle``: Fairy-Stockfish's legal moves by FEN); returns our outcome."""
    result = outcome(state)
    check_legal_moves(game, state, oracle)
    if not legal_moves(state):
        check_end_without_moves(game, state, result)
        return result
    assert result is None or result.winner is None, f"{game.where(state)}: decisive {result} with legal moves left"
    check_insufficient_material(game, state, result)
    check_claimable_draws(game, state, result)
    return result


def check_replay(game: Game, state: State) -> None:
    """Fairy-Stockfish, replaying the game's moves from the start, reaches our final FEN (board, side, clocks)."""
    theirs = pyffish.get_fen(game.engine, game.start_fen, game.moves)
    assert theirs == state.fen(), f"{game.where(state)}: after {' '.join(game.moves)} Fairy-Stockfish has {theirs}"


def play_and_check(variant: str, seed: int, oracle: dict[str, set[str]]) -> None:
    """One random game, checked at every ply and replayed in Fairy-Stockfish at the end."""
    for game, state in random_game(variant, seed):
        result = check_ply(game, state, oracle)
    assert result is not None, f"{game.where(state)}: the game stopped before it ended"
    check_replay(game, state)


def seed_chunks() -> list[object]:
    """``pytest.param(variant, seeds)`` items: each variant's seeds split into :data:`CHUNKS` ranges."""
    params = []
    for variant in ENGINE_NAMES:
        games = GAMES.get(variant, GAMES_PER_VARIANT)
        size = -(-games // CHUNKS)
        params += [
            pytest.param(variant, range(start, min(start + size, games)), id=f"{variant}-{start}")
            for start in range(0, games, size)
        ]
    return params


@pytest.mark.parametrize(("variant", "seeds"), seed_chunks())
def test_random_games_match_the_oracle(variant: str, seeds: range) -> None:
    """Legal moves, game ends and draws agree with Fairy-Stockfish at every ply of seeded random games (their
    positions' legal moves asked of the engine in one batch first: the games are seeded)."""
    fens = [state.fen() for seed in seeds for _, state in random_game(variant, seed)]
    oracle = oracle_moves(ENGINE_NAMES[variant], fens)
    for seed in seeds:
        play_and_check(variant, seed, oracle)


def test_start_positions_match_the_oracle() -> None:
    """Each covered variant starts from the position Fairy-Stockfish has for it."""
    for variant, engine in ENGINE_NAMES.items():
        assert initial_state(variant).fen() == pyffish.start_fen(engine), variant


@pytest.mark.parametrize("variant", list(ENGINE_NAMES))
def test_fen_output_is_valid_for_the_oracle(variant: str) -> None:
    """Our FEN of every position along 50 random games is a valid FEN for Fairy-Stockfish."""
    for seed in range(50):
        for game, state in random_game(variant, seed):
            fen = state.fen()
            code = pyffish.validate_fen(fen, game.engine)
            assert code == pyffish.FEN_OK, f"{game.where(state)}: pyffish.validate_fen returned {code}"
