"""Seeded random playouts over all ten variants, checking the API contracts at every ply; FEN and input errors.

What users rely on, checked on every position of 30 random games per variant:

- a game that is not over has legal moves, and every game ends by its ply cap at the latest;
- each legal move has one action (``ChessActions.encode``) that decodes back to it, actions are distinct and
  in range, and their policy-plane indices are distinct and inside the shared ``[NUM_POLICY_PLANES, H, W]`` layout;
- FEN round-trips (``from_fen(v, s.fen())`` has the same board, side and FEN);
- ``observation_planes`` has shape ``[NUM_PLANES, H, W]``, shows every piece of the mover, the castling rights
  and the en-passant square of the position (0 where the variant has none), and in dark hides every opponent
  piece on a square the mover does not see;
- states are hashable values.
"""

from __future__ import annotations

import numpy as np
import pytest

from mmc.games.chess import (
    NUM_PLANES,
    VARIANTS,
    ChessActions,
    Color,
    FenError,
    IllegalMoveError,
    Move,
    State,
    Termination,
    action_space,
    apply_move,
    from_fen,
    get_variant,
    initial_state,
    legal_moves,
    observation_planes,
    outcome,
    visible_squares,
)
from mmc.games.chess.actions import NUM_POLICY_PLANES

GAMES_PER_VARIANT = 30
# Monochromatic's start is stalemate at ply 0; its playouts start with the b- and d-pawns removed.
PLAYOUT_START = {name: v.start_fen for name, v in VARIANTS.items()} | {
    "monochromatic": "rnbqk/p1p1p/5/P1P1P/RNBQK w - - 0 1"
}
# Ends that leave the side to move without a legal move (draw rules keep the move list).
NO_MOVE_ENDS = {
    Termination.CHECKMATE,
    Termination.STALEMATE,
    Termination.KING_EXPLODED,
    Termination.KING_CAPTURED,
    Termination.EXTINCTION,
}


def check_actions(state: State, space: ChessActions) -> None:
    """Every legal move encodes to a distinct in-range action that decodes back to it."""
    moves = legal_moves(state)
    actions = [space.encode(m, state.turn) for m in moves]
    assert all(0 <= a < space.num_actions for a in actions), state
    assert len(set(actions)) == len(actions), f"two moves share an action in {state!r}"
    assert [space.decode(a, state) for a in actions] == list(moves), state
    assert space.legal_actions(state).tolist() == actions
    v = state.variant
    planes = space.policy_index[actions].tolist()
    assert len(set(planes)) == len(planes), f"two actions share a policy index in {state!r}"
    assert all(0 <= p < NUM_POLICY_PLANES * v.height * v.width for p in planes), state


def fen_round_trip_problem(state: State) -> str | None:
    """Why ``from_fen(state.fen())`` is not the same position with the same FEN, or ``None`` if it is."""
    fen = state.fen()
    try:
        back = from_fen(state.variant_name, fen, max_plies=state.max_plies)
    except FenError as err:
        return str(err)
    if back.fen() != fen or (back.board, back.turn) != (state.board, state.turn):
        return f"{fen!r} reads back as {back.fen()!r}"
    return None


def check_planes(state: State) -> None:
    """Planes have the documented shape; the mover's pieces all show; dark hides what the mover cannot see."""
    v = state.variant
    planes = observation_planes(state)
    assert planes.shape == (NUM_PLANES, v.height, v.width)
    board = state.board_array()
    side = int(state.turn)
    assert planes[0:6].sum() == np.count_nonzero(board * side > 0)
    rights = (
        state.castling_rights
        if state.turn is Color.WHITE
        else state.castling_rights >> 2 | (state.castling_rights & 3) << 2
    )
    castling = planes[19:23, 0, 0].tolist() if not v.hidden_information else [0.0] * 4
    assert castling == [float(rights >> bit & 1) for bit in range(4)], f"castling planes wrong in {state!r}"
    assert planes[19:23].min(axis=(1, 2)).tolist() == planes[19:23].max(axis=(1, 2)).tolist()
    ep = state.ep_square
    assert planes[23].sum() == (ep is not None), f"en-passant plane wrong in {state!r}"
    if ep is not None:
        row = ep >> 3 if state.turn is Color.WHITE else v.height - 1 - (ep >> 3)
        assert planes[23, row, ep & 7] == 1.0
    if not v.hidden_information:
        assert planes[6:12].sum() == np.count_nonzero(board * side < 0)
        return
    seen = visible_squares(state, state.turn)
    assert planes[6:12].sum() == np.count_nonzero((board * side < 0) & seen), f"visible opponents missing in {state!r}"
    for rank in range(v.height):
        row = rank if state.turn is Color.WHITE else v.height - 1 - rank
        for file in range(v.width):
            if not seen[8 * rank + file]:
                assert not planes[6:12, row, file].any(), f"hidden square {8 * rank + file} leaks in {state!r}"


def check_position(state: State, space: ChessActions | None, states: set[State], fen_problems: list[str]) -> None:
    """All per-position contracts (FEN round-trip problems are collected, so that the other checks go on)."""
    if space is not None:
        check_actions(state, space)
    check_planes(state)
    problem = fen_round_trip_problem(state)
    if problem is not None:
        fen_problems.append(problem)
    states.add(state)  # hashable: usable in sets and as dict keys
    assert state in states


@pytest.mark.parametrize(
    "variant",
    [pytest.param(v, marks=pytest.mark.slow) if v == "chess" else v for v in sorted(VARIANTS)],  # 2.5 s
)
def test_random_playouts(variant: str) -> None:
    """30 seeded random games: the contracts above hold at every ply, and each game ends within its cap."""
    space = action_space(variant)
    states: set[State] = set()
    fen_problems: list[str] = []
    for game in range(GAMES_PER_VARIANT):
        rng = np.random.default_rng([sorted(VARIANTS).index(variant), game])
        state = from_fen(variant, PLAYOUT_START[variant])
        plies = 0
        while (result := outcome(state)) is None:
            check_position(state, space, states, fen_problems)
            moves = legal_moves(state)
            assert moves, f"{variant}: no legal move but no outcome in {state!r}"
            state = apply_move(state, moves[int(rng.integers(len(moves)))])
            plies += 1
            assert plies <= state.max_plies, f"{variant}: game {game} ran past its ply cap"
        check_position(state, space, states, fen_problems)
        if result.termination in NO_MOVE_ENDS:
            assert legal_moves(state) == ()
        assert result.winner is None or result.termination not in {Termination.STALEMATE, Termination.PLY_CAP}
    assert not fen_problems, (
        f"ENGINE: FEN round trip fails on {len(fen_problems)} position(s) reached by legal play in {variant}, "
        f"e.g. {fen_problems[:3]}"
    )


def test_states_are_hashable_immutable_values() -> None:
    """Equal states are equal dict keys with equal hashes; fields cannot be reassigned; moves make new states."""
    a, b = initial_state("gardner"), from_fen("gardner", "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1")
    assert a == b and hash(a) == hash(b)
    assert {a: "start"}[b] == "start"
    child = apply_move(a, legal_moves(a)[0])
    assert child != a and a.fen() == "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"
    with pytest.raises(AttributeError):
        a.turn = Color.BLACK  # type: ignore[misc]
    with pytest.raises(AttributeError):
        a.board = bytes(64)  # type: ignore[misc]
    assert isinstance(a.board, bytes)


def test_action_space_sizes() -> None:
    """The documented action counts: 25 x 49 on 5x5, 25 x 52 in extinction, 36 x 57 on 6x6, AlphaZero's 64 x 73 on
    8x8, all read from the one shared layout of 76 policy planes."""
    assert action_space("gardner").num_actions == 25 * 49
    assert action_space("extinction").num_actions == 25 * 52
    assert action_space("los_alamos").num_actions == 36 * 57
    assert action_space("chess").num_actions == 64 * 73
    assert NUM_POLICY_PLANES == 76


def test_action_errors_name_the_problem() -> None:
    """A move with no action, and an action that is no legal move, raise ``ValueError``."""
    space = action_space("gardner")
    state = initial_state("gardner")
    with pytest.raises(ValueError, match="a1e2"):
        space.encode(Move.from_uci("a1e2"), state.turn)
    legal = set(space.legal_actions(state).tolist())
    illegal = next(a for a in range(space.num_actions) if a not in legal)
    with pytest.raises(ValueError, match="not a legal move"):
        space.decode(illegal, state)


# --- errors ------------------------------------------------------------------------------------------

START = "rnbqk/ppppp/5/PPPPP/RNBQK"

BAD_FENS = [
    pytest.param("gardner", "rnbqk/ppppp/5/PPPPP w - - 0 1", "5 ranks", id="wrong-rank-count"),
    pytest.param("los_alamos", f"{START} w - - 0 1", "6 ranks", id="5x5-board-for-6x6-variant"),
    pytest.param("gardner", "rnbqkn/ppppp/5/PPPPP/RNBQK w - - 0 1", "more than 5 files", id="too-many-files"),
    pytest.param("gardner", "rnbqk/ppppp/6/PPPPP/RNBQK w - - 0 1", "covers 6 files", id="too-many-empty-files"),
    pytest.param("gardner", "rnbq/ppppp/5/PPPPP/RNBQK w - - 0 1", "covers 4 files", id="too-few-files"),
    pytest.param("gardner", "rnbqx/ppppp/5/PPPPP/RNBQK w - - 0 1", "unknown piece 'x'", id="unknown-piece"),
    pytest.param("gardner", f"{START} x - - 0 1", "side to move", id="bad-side"),
    pytest.param("gardner", f"{START} w KQkq - 0 1", "castling", id="castling-not-dash"),
    pytest.param("gardner", f"{START} w - c3 0 1", "en passant", id="en-passant-not-dash"),
    pytest.param("gardner", "Pnbqk/ppppp/5/1PPPP/RNBQK w - - 0 1", "pawn", id="pawn-on-last-rank"),
    pytest.param("gardner", "rnbqk/ppppp/5/PPPPP/PNBQK w - - 0 1", "pawn", id="pawn-on-first-rank"),
    pytest.param("gardner", "rnbq1/ppppp/5/PPPPP/RNBQK w - - 0 1", "Black has 0 kings", id="missing-king"),
    pytest.param("gardner", "kk3/5/5/5/4K w - - 0 1", "Black has 2 kings", id="two-kings"),
    pytest.param("gardner", "k4/5/5/5/R3K w - - 0 1", "in check", id="side-not-to-move-in-check"),
    pytest.param("gardner", START, "expected 6 fields", id="board-only"),
    pytest.param("gardner", f"{START} w - - x 1", "integers", id="clock-not-integer"),
    pytest.param("gardner", f"{START} w - - -1 1", "halfmove", id="negative-clock"),
]


@pytest.mark.parametrize(("variant", "fen", "problem"), BAD_FENS)
def test_malformed_fen_raises_fen_error_naming_the_problem(variant: str, fen: str, problem: str) -> None:
    """A bad FEN raises ``FenError`` (a ``ValueError``) whose message quotes the FEN and names the problem."""
    with pytest.raises(FenError, match=problem) as err:
        from_fen(variant, fen)
    assert isinstance(err.value, ValueError)
    assert repr(fen) in str(err.value)


def test_fen_round_trip_after_atomic_king_explosion_out_of_check() -> None:
    """A finished atomic game still has a FEN that reads back (a user saves and reloads the final position).

    Black, in check from Qc3, explodes White's king with Rxa2 (legal: exploding the enemy king wins at
    once). The final position has Black's king still on the queen's diagonal; with White's king gone that
    is no check, so the FEN must load.
    """
    final = apply_move(from_fen("atomic", "r3k/5/2Q2/N4/K4 b - - 0 1"), Move.from_uci("a5a2"))
    assert final.fen() == "4k/5/2Q2/5/5 w - - 0 2"
    problem = fen_round_trip_problem(final)
    assert problem is None, f"ENGINE: the final position of a legal atomic game does not load from its FEN: {problem}"


def test_kingless_fen_is_fine_where_kings_are_not_royal() -> None:
    """Dark and extinction have no royal king, so a missing king is no FEN error there."""
    assert from_fen("dark", "rnbq1/ppppp/5/PPPPP/RNBQK w - - 0 1").fen().startswith("rnbq1/")


def test_clocks_may_be_omitted() -> None:
    """A FEN without the two clocks reads them as ``0 1``."""
    assert from_fen("gardner", f"{START} w - -").fen() == f"{START} w - - 0 1"


def test_unknown_variant_is_named() -> None:
    """``get_variant`` (and every entry point taking a variant) names an unknown id."""
    with pytest.raises(ValueError, match="'nope'"):
        get_variant("nope")
    with pytest.raises(ValueError, match="'nope'"):
        initial_state("nope")


def test_illegal_move_raises() -> None:
    """``apply_move`` refuses a move that is not legal, naming the move and the position."""
    state = initial_state("gardner")
    for text in ("a2a4", "a4a3", "b1d2", "e1e2"):
        with pytest.raises(IllegalMoveError, match=text) as err:
            apply_move(state, Move.from_uci(text))
        assert isinstance(err.value, ValueError)
        assert state.fen() in str(err.value)


@pytest.mark.parametrize("text", ["", "a2", "a2a9", "i2i3", "a2a3x", "a7a8p"])
def test_bad_uci_text_raises_value_error(text: str) -> None:
    """``Move.from_uci`` names text that is not a move."""
    with pytest.raises(ValueError, match="not a move"):
        Move.from_uci(text)


def test_max_plies_must_be_positive() -> None:
    """A ply cap below 1 is refused."""
    with pytest.raises(ValueError, match="max_plies"):
        initial_state("gardner", max_plies=0)
