"""Every termination reason, in every variant where it can happen, reached through ``apply_move``.

Users read ``outcome(state)`` to end games and to score them, so each case asserts the winner and the
reason. The decisive cases start from a hand-analysed FEN one move before the end; the draw rules
(repetition, fifty-move, ply cap) are reached by shuffling pieces back and forth.
"""

from __future__ import annotations

import pytest

from mmc.games.chess import (
    VARIANTS,
    Color,
    Move,
    Outcome,
    State,
    Termination,
    apply_move,
    from_fen,
    initial_state,
    legal_moves,
    outcome,
)

WHITE, BLACK = Color.WHITE, Color.BLACK

# A reversible four-ply shuffle per variant that returns to the start (mono: to its FEN, where the
# start position has no move). Knights jump out and back; mono kings step diagonally out and back.
SHUFFLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "gardner": ("", ("b1c3", "b5a3", "c3b1", "a3b5")),
    "baby": ("", ("b1a3", "d5e3", "a3b1", "e3d5")),
    # Mallett's Black has no reversible move at the start; here its a-pawn has advanced, freeing the rook.
    "mallet": ("rbkqb/1pppp/p4/PPPPP/RNKQN w - - 0 1", ("b1c3", "a5a4", "c3b1", "a4a5")),
    "los_alamos": ("", ("b1a3", "b6a4", "a3b1", "a4b6")),
    "atomic": ("", ("b1c3", "b5a3", "c3b1", "a3b5")),
    "extinction": ("", ("b1c3", "b5a3", "c3b1", "a3b5")),
    "rifle": ("", ("b1c3", "b5a3", "c3b1", "a3b5")),
    "dark": ("", ("b1c3", "b5a3", "c3b1", "a3b5")),
    "monochromatic": ("kn3/5/5/5/3NK w - - 0 1", ("e1d2", "a5b4", "d2e1", "b4a5")),
    "bichromatic": ("", ("b1c3", "b5a3", "c3b1", "a3b5")),
    "chess": ("", ("g1f3", "g8f6", "f3g1", "f6g8")),
}


def start(variant: str, *, max_plies: int = 150) -> State:
    """The variant's shuffle start: its initial position or the FEN in ``SHUFFLES``."""
    fen = SHUFFLES[variant][0]
    if fen:
        return from_fen(variant, fen, max_plies=max_plies)
    return initial_state(variant, max_plies=max_plies)


def play(state: State, *moves: str) -> State:
    """Play UCI moves through the public API."""
    for text in moves:
        state = apply_move(state, Move.from_uci(text))
    return state


def ended(state: State) -> Outcome:
    """The outcome, asserting that the game is over."""
    out = outcome(state)
    assert out is not None, f"{state!r} should be over"
    return out


def test_shuffles_cover_every_variant() -> None:
    """The draw-rule scenarios below run for all ten variants."""
    assert set(SHUFFLES) == set(VARIANTS)


# --- checkmate and stalemate (royal-king variants) ---------------------------------------------------

MATE_5X5 = ("k4/5/4R/1R3/4K w - - 0 1", "e3a3")  # Ra3#: b-file rook covers b5 and b4
STALEMATE_5X5 = ("k4/5/5/5/2Q1K w - - 0 1", "c1c4")  # Qc4 covers a4, b4, b5 without checking a5

CHECKMATES = [
    *[pytest.param(v, *MATE_5X5, id=v) for v in ("gardner", "baby", "mallet", "atomic", "rifle")],
    pytest.param("los_alamos", "k5/6/5R/6/1R4/5K w - - 0 1", "f4a4", id="los_alamos"),
    # Bc3+ along the b4-a5 diagonal; a diagonal-only king on a5 has b4 alone, which the bishop covers.
    pytest.param("monochromatic", "k3B/5/5/5/1N2K w - - 0 1", "e5c3", id="monochromatic"),
    # Nc4+; an orthogonal-only king has a4 (Ra1, 3 away) and b5 (Rb2, 3 away), both covered.
    pytest.param("bichromatic", "k4/5/4N/1R3/R3K w - - 0 1", "e3c4", id="bichromatic"),
]


@pytest.mark.parametrize(("variant", "fen", "move"), CHECKMATES)
def test_checkmate_wins(variant: str, fen: str, move: str) -> None:
    """A mating move ends the game: no legal move, the mover wins by checkmate."""
    state = play(from_fen(variant, fen), move)
    assert legal_moves(state) == ()
    assert ended(state) == Outcome(WHITE, Termination.CHECKMATE)


def test_rifle_checkmate_when_shooting_the_checker_opens_a_line() -> None:
    """Qb4+ backed by Bc3: Ka5 may shoot b4 but stays on a5, now on the bishop's diagonal; a4, b5 are covered."""
    state = from_fen("rifle", "k4/1Q3/2B2/5/4K b - - 0 1")
    assert legal_moves(state) == ()
    assert ended(state) == Outcome(WHITE, Termination.CHECKMATE)


STALEMATES = [
    *[pytest.param(v, *STALEMATE_5X5, id=v) for v in ("gardner", "baby", "mallet", "atomic", "rifle")],
    pytest.param("los_alamos", "k5/6/6/6/6/2Q2K w - - 0 1", "c1c5", id="los_alamos"),
    # Rb2 and Ra1 cover b5 and a4 from 3 away; a5 is 4 from a1, not attacked.
    pytest.param("bichromatic", "k4/5/5/1R3/3RK w - - 0 1", "d1a1", id="bichromatic"),
]


@pytest.mark.parametrize(("variant", "fen", "move"), STALEMATES)
def test_stalemate_draws(variant: str, fen: str, move: str) -> None:
    """A move that leaves the opponent no legal move and not in check is a stalemate draw."""
    state = play(from_fen(variant, fen), move)
    assert legal_moves(state) == ()
    assert ended(state) == Outcome(None, Termination.STALEMATE)


def test_monochromatic_stalemate_at_the_start() -> None:
    """Monochromatic's start position is already stalemate (spec: a draw at ply 0)."""
    assert ended(initial_state("monochromatic")) == Outcome(None, Termination.STALEMATE)


# --- draw rules, all ten variants --------------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(SHUFFLES))
def test_threefold_repetition(variant: str) -> None:
    """The same position with the same side to move a third time is a draw (not earlier)."""
    moves = SHUFFLES[variant][1]
    state = start(variant)
    for ply in range(7):
        state = play(state, moves[ply % 4])
        assert outcome(state) is None, f"{variant}: over too early at {state!r}"
    state = play(state, moves[3])
    assert ended(state) == Outcome(None, Termination.REPETITION)
    assert legal_moves(state), "a repetition draw does not empty the move list"


@pytest.mark.parametrize("variant", sorted(SHUFFLES))
def test_fifty_move_rule(variant: str) -> None:
    """With the halfmove clock at 99, one more quiet move draws; a pawn move instead resets the clock."""
    base = start(variant).fen().split()
    fen = " ".join([*base[:4], "99", "50"])
    quiet = SHUFFLES[variant][1][0]
    state = play(from_fen(variant, fen), quiet)
    assert state.halfmove_clock == 100
    assert ended(state) == Outcome(None, Termination.FIFTY_MOVES)
    at_98 = play(from_fen(variant, " ".join([*base[:4], "98", "50"])), quiet)
    assert outcome(at_98) is None


def test_fifty_move_clock_resets_on_pawn_move() -> None:
    """A pawn move at clock 99 resets the clock to 0: no draw."""
    state = play(from_fen("gardner", "rnbqk/ppppp/5/PPPPP/RNBQK w - - 99 50"), "a2a3")
    assert state.halfmove_clock == 0
    assert outcome(state) is None


@pytest.mark.parametrize("variant", sorted(SHUFFLES))
def test_ply_cap(variant: str) -> None:
    """A game with ``max_plies=4`` is drawn by the ply cap after its fourth ply, not before."""
    state = start(variant, max_plies=4)
    moves = SHUFFLES[variant][1]
    state = play(state, *moves[:3])
    assert outcome(state) is None
    state = play(state, moves[3])
    assert ended(state) == Outcome(None, Termination.PLY_CAP)


INSUFFICIENT_5X5 = [
    ("K-v-K", "k4/5/5/5/4K w - - 0 1"),
    ("KN-v-K", "k4/5/5/5/3NK w - - 0 1"),
    ("KB-v-K", "k4/5/5/5/3BK w - - 0 1"),
    ("K-v-KN", "kn3/5/5/5/4K w - - 0 1"),
    ("K-v-KB", "kb3/5/5/5/4K b - - 0 1"),
]
INSUFFICIENT_6X6 = [
    ("K-v-K", "k5/6/6/6/6/5K w - - 0 1"),
    ("KN-v-K", "k5/6/6/6/6/4NK w - - 0 1"),
]
# Chess counts as Fairy-Stockfish does: also kings with bishops all on squares of one colour.
INSUFFICIENT_8X8 = [
    ("K-v-K", "k7/8/8/8/8/8/8/7K w - - 0 1"),
    ("KN-v-K", "k7/8/8/8/8/8/8/6NK w - - 0 1"),
    ("KB-v-KB-same-colour", "k1b5/8/8/8/8/8/8/5B1K w - - 0 1"),
    ("KBB-v-K-same-colour", "k7/8/8/8/8/3B4/8/5B1K w - - 0 1"),
]
WITH_INSUFFICIENT = [v for v in sorted(VARIANTS) if VARIANTS[v].insufficient_material]


@pytest.mark.parametrize(
    ("variant", "fen"),
    [
        pytest.param(v, fen, id=f"{v}-{name}")
        for v in WITH_INSUFFICIENT
        for name, fen in {5: INSUFFICIENT_5X5, 6: INSUFFICIENT_6X6, 8: INSUFFICIENT_8X8}[VARIANTS[v].height]
    ],
)
def test_insufficient_material(variant: str, fen: str) -> None:
    """K v K and K + one minor v K are drawn at once, though moves remain."""
    state = from_fen(variant, fen)
    assert legal_moves(state)
    assert ended(state) == Outcome(None, Termination.INSUFFICIENT_MATERIAL)


def test_insufficient_material_reached_by_capture() -> None:
    """Nxb5 takes Black's last rook, leaving K+N v K: drawn at once."""
    state = from_fen("gardner", "kr3/5/2N2/5/4K w - - 0 1")
    assert outcome(state) is None
    assert ended(play(state, "c3b5")) == Outcome(None, Termination.INSUFFICIENT_MATERIAL)


@pytest.mark.parametrize(
    "fen",
    [
        "kb6/8/8/8/8/8/8/5B1K w - - 0 1",  # bishops on both colours
        "kn6/8/8/8/8/8/8/6NK w - - 0 1",  # a knight each
        "kb6/8/8/8/8/8/8/6NK w - - 0 1",  # knight against bishop
        "k7/8/8/8/8/8/8/5NNK w - - 0 1",  # two knights
        "k7/8/8/8/8/8/P7/7K w - - 0 1",  # a pawn
    ],
)
def test_sufficient_material_in_chess(fen: str) -> None:
    """What Fairy-Stockfish does not count as insufficient in chess plays on."""
    assert outcome(from_fen("chess", fen)) is None


def test_insufficient_material_is_off_in_dark_and_extinction() -> None:
    """Where a king can be taken, a bare king is not a draw: dark plays on, extinction has already ended."""
    assert {v for v in VARIANTS if not VARIANTS[v].insufficient_material} == {"extinction", "dark"}
    assert outcome(from_fen("dark", "k4/5/5/5/3NK w - - 0 1")) is None
    assert outcome(from_fen("dark", "k4/5/5/5/4K w - - 0 1")) is None
    # Both sides lack five types; the side that just moved (Black) is judged first.
    assert ended(from_fen("extinction", "k4/5/5/5/4K w - - 0 1")) == Outcome(WHITE, Termination.EXTINCTION)


# --- variant-specific ends ---------------------------------------------------------------------------


def test_atomic_king_exploded() -> None:
    """Rxa4 explodes the knight and its neighbours, Black's king on b5 among them: White wins at once."""
    state = play(from_fen("atomic", "1k3/n4/5/5/R3K w - - 0 1"), "a1a4")
    assert state.fen() == "5/5/5/5/4K b - - 0 1"
    assert legal_moves(state) == ()
    assert ended(state) == Outcome(WHITE, Termination.KING_EXPLODED)


def test_dark_king_captured() -> None:
    """Black may step into the rook's file (no check in dark); Rxa5 takes the king and wins."""
    state = play(from_fen("dark", "1k3/5/5/5/R3K b - - 0 1"), "b5a5")
    assert outcome(state) is None
    state = play(state, "a1a5")
    assert legal_moves(state) == ()
    assert ended(state) == Outcome(WHITE, Termination.KING_CAPTURED)


def test_extinction_capturing_the_last_queen_wins() -> None:
    """Nxd5 removes Black's only queen: Black's queens are extinct, White wins."""
    state = play(from_fen("extinction", "rnbqk/ppppp/2N2/PPPPP/R1BQK w - - 0 1"), "c3d5")
    assert legal_moves(state) == ()
    assert ended(state) == Outcome(WHITE, Termination.EXTINCTION)


def test_extinction_first_non_pawn_capture_ends_the_game_from_the_start() -> None:
    """Spec: with one piece per type on 5x5, the first capture of a non-pawn ends the game (here Nc3xd5)."""
    state = play(initial_state("extinction"), "b1c3", "a4a3")
    assert outcome(state) is None
    state = play(state, "c3d5")
    assert legal_moves(state) == ()
    assert ended(state) == Outcome(WHITE, Termination.EXTINCTION)


def test_extinction_promoting_the_last_pawn_loses() -> None:
    """White promotes its only pawn: White's pawns are extinct, so Black wins."""
    state = play(from_fen("extinction", "r3k/b1P1n/p3q/5/KQRBN w - - 0 1"), "c4c5q")
    assert legal_moves(state) == ()
    assert ended(state) == Outcome(BLACK, Termination.EXTINCTION)


def test_extinction_promoting_to_a_king_still_loses_the_pawns() -> None:
    """Promotion to a king (allowed in extinction) also wipes out White's last pawn."""
    state = play(from_fen("extinction", "r3k/b1P1n/p3q/5/KQRBN w - - 0 1"), "c4c5k")
    assert ended(state) == Outcome(BLACK, Termination.EXTINCTION)


def test_extinction_mover_is_judged_first() -> None:
    """cxd5=Q takes Black's only queen but also White's only pawn: the mover's own extinction counts first."""
    state = play(from_fen("extinction", "r2qk/b1P1n/p4/5/KQRBN w - - 0 1"), "c4d5q")
    assert ended(state) == Outcome(BLACK, Termination.EXTINCTION)


def test_atomic_exploding_the_enemy_king_wins_even_in_check() -> None:
    """Black, in check from Qc3, may still play Rxa2, whose explosion takes White's king on a1: Black wins."""
    state = from_fen("atomic", "r3k/5/2Q2/N4/K4 b - - 0 1")
    # Rook moves other than the explosion leave the check; Kd4 stays on the queen's diagonal.
    assert {m.uci() for m in legal_moves(state)} == {"a5a2", "e5e4", "e5d5"}
    state = play(state, "a5a2")
    assert ended(state) == Outcome(BLACK, Termination.KING_EXPLODED)
