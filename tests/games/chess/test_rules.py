"""Hand-checked FEN scenarios, one per rule of ``docs/rules/chess.md`` and its variant pages.

Rifle, monochromatic and bichromatic have no oracle engine, so every rule of theirs is pinned here by
a position whose full legal-move set (or the position after a move) was worked out by hand, square by
square. The base-game rules that users rely on most (no double step, promotion pieces, atomic
explosions, dark's missing check) get the same treatment. Where a rule differs from the base game the
same FEN is also checked in ``gardner``, so the test shows the difference the variant makes.

Squares: a1..e5 on 5x5 (a1..f6 on Los Alamos); FEN board fields list rank 5 (6) first.
"""

from __future__ import annotations

import pytest

from mmc.games.chess import (
    Color,
    FenError,
    Move,
    PieceType,
    Termination,
    apply_move,
    from_fen,
    get_variant,
    initial_state,
    legal_moves,
    outcome,
)


def ucis(variant: str, fen: str) -> set[str]:
    """The legal moves of a FEN position as UCI strings."""
    return {m.uci() for m in legal_moves(from_fen(variant, fen))}


def play(variant: str, fen: str, *moves: str) -> str:
    """The FEN after playing ``moves`` (UCI) from ``fen``."""
    state = from_fen(variant, fen)
    for text in moves:
        state = apply_move(state, Move.from_uci(text))
    return state.fen()


def promotions(square: str, pieces: str) -> set[str]:
    """UCI moves ``square`` + each promotion letter, e.g. ``promotions("c4c5", "qrbn")``."""
    return {square + p for p in pieces}


# (variant, FEN, the exact legal-move set). Each comment says why every piece has the moves it has.
LEGAL_SETS = [
    # --- base game ---------------------------------------------------------------------------------
    pytest.param(
        "gardner",
        "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1",
        # five single pawn steps (no double step), Nb1 to a3/c3 (d2 is own); nothing else can move.
        {"a2a3", "b2b3", "c2c3", "d2d3", "e2e3", "b1a3", "b1c3"},
        id="gardner-no-pawn-double-step",
    ),
    pytest.param(
        "gardner",
        "k4/2P2/5/5/4K w - - 0 1",
        # c4-c5 promotes to Q, R, B or N (never K); Ke1 to d1, d2, e2.
        promotions("c4c5", "qrbn") | {"e1d1", "e1d2", "e1e2"},
        id="gardner-promotion-QRBN",
    ),
    pytest.param(
        "los_alamos",
        "k5/2P3/6/6/6/5K w - - 0 1",
        # 6x6: c5-c6 promotes to Q, R or N only (no bishops); Kf1 to e1, e2, f2.
        promotions("c5c6", "qrn") | {"f1e1", "f1e2", "f1f2"},
        id="los_alamos-promotion-QRN",
    ),
    # --- atomic -------------------------------------------------------------------------------------
    pytest.param(
        "atomic",
        "k4/5/5/3n1/4K w - - 0 1",
        # Ke1 may not take the knight on d2 (kings cannot capture); d1 and e2 are not attacked.
        {"e1d1", "e1e2"},
        id="atomic-king-cannot-capture",
    ),
    pytest.param(
        "gardner",
        "k4/5/5/3n1/4K w - - 0 1",
        # the same position in the base game: Kxd2 is a normal capture.
        {"e1d1", "e1e2", "e1d2"},
        id="gardner-king-captures-(atomic-contrast)",
    ),
    pytest.param(
        "atomic",
        "5/5/5/2k2/r2K1 w - - 0 1",
        # Kd1 touches Kc2, so the rook on a1 does not check. c1 and d2 keep the kings touching (legal
        # although a1 "attacks" c1); e2 is unattacked; e1 leaves the touch on the rook's rank: illegal.
        # Kxc2 is no move: kings cannot capture.
        {"d1c1", "d1d2", "d1e2"},
        id="atomic-touching-kings-do-not-check",
    ),
    # --- dark ---------------------------------------------------------------------------------------
    pytest.param(
        "dark",
        "k4/5/5/5/r3K w - - 0 1",
        # No check: Ke1 may stay on the rook's rank (d1) as well as step off it (d2, e2).
        {"e1d1", "e1d2", "e1e2"},
        id="dark-may-move-into-check",
    ),
    pytest.param(
        "gardner",
        "k4/5/5/5/r3K w - - 0 1",
        # the base game: in check from a1, Kd1 stays on the rank and is illegal.
        {"e1d2", "e1e2"},
        id="gardner-must-leave-check-(dark-contrast)",
    ),
    # --- rifle --------------------------------------------------------------------------------------
    pytest.param(
        "rifle",
        "3rk/2P2/5/5/4K w - - 0 1",
        # c4xd5 shoots the rook and stays on c4, so it is one move with no promotion; c4-c5 promotes.
        # Ke1: d1 and d2 are shot along the d-file by the rook, e2 is free.
        promotions("c4c5", "qrbn") | {"c4d5", "e1e2"},
        id="rifle-pawn-capture-on-last-rank-does-not-promote",
    ),
    pytest.param(
        "gardner",
        "3rk/2P2/5/5/4K w - - 0 1",
        # the base game: c4xd5 lands on the last rank and promotes.
        promotions("c4c5", "qrbn") | promotions("c4d5", "qrbn") | {"e1e2"},
        id="gardner-pawn-capture-promotes-(rifle-contrast)",
    ),
    pytest.param(
        "rifle",
        "r3k/5/R1n2/5/K4 w - - 0 1",
        # Ra3 is pinned on the a-file by Ra5. Shooting c3 leaves it on a3, still shielding a1: legal.
        # a2, a4 and shooting a5 keep the file; b3 leaves it: illegal. Ka1: a2 and b1 are covered by
        # the knight on c3, b2 is free.
        {"a3a2", "a3a4", "a3a5", "a3c3", "a1b2"},
        id="rifle-pinned-piece-may-shoot-off-the-line",
    ),
    pytest.param(
        "gardner",
        "r3k/5/R1n2/5/K4 w - - 0 1",
        # the base game: Rxc3 would move the pinned rook off the a-file.
        {"a3a2", "a3a4", "a3a5", "a1b2"},
        id="gardner-pinned-piece-cannot-leave-(rifle-contrast)",
    ),
    pytest.param(
        "rifle",
        "4k/1R3/5/5/Kb2r w - - 0 1",
        # The bishop on b1 shields Ka1 from the rook on e1. Shooting it (Rb4xb1 or Ka1xb1, both of which
        # stay put) opens the rank: illegal. Rb4 to b5, a4, c4, d4, e4, b3, b2 are fine; Ka1-a2 is
        # covered by the bishop, Ka1-b2 is free.
        {"b4b5", "b4a4", "b4c4", "b4d4", "b4e4", "b4b3", "b4b2", "a1b2"},
        id="rifle-shooting-the-shield-exposes-the-king",
    ),
    pytest.param(
        "gardner",
        "4k/1R3/5/5/Kb2r w - - 0 1",
        # the base game: Rxb1 puts the rook on b1, where it still shields the king.
        {"b4b5", "b4a4", "b4c4", "b4d4", "b4e4", "b4b3", "b4b2", "b4b1", "a1b2"},
        id="gardner-capturing-the-shield-keeps-it-(rifle-contrast)",
    ),
    pytest.param(
        "rifle",
        "1r2k/5/5/1n3/K4 w - - 0 1",
        # Ka1 may shoot the knight on b2 although the rook on b5 defends it: the king stays on a1,
        # which nothing attacks. a2 and b1 are free too (the knight hits a4, c4, d3, d1).
        {"a1a2", "a1b1", "a1b2"},
        id="rifle-king-shoots-a-defended-piece",
    ),
    pytest.param(
        "gardner",
        "1r2k/5/5/1n3/K4 w - - 0 1",
        # the base game: Kxb2 walks into the rook's file.
        {"a1a2", "a1b1"},
        id="gardner-king-cannot-take-a-defended-piece-(rifle-contrast)",
    ),
    # --- monochromatic ------------------------------------------------------------------------------
    pytest.param(
        "monochromatic",
        "k4/5/2N2/5/4K w - - 0 1",
        # the knight never moves (a jump changes square colour); Ke1 steps diagonally only: d2.
        {"e1d2"},
        id="monochromatic-knight-never-moves",
    ),
    pytest.param(
        "monochromatic",
        "k4/5/2K2/5/5 w - - 0 1",
        # Kc3 steps diagonally only; b4 is attacked by the black king's diagonal step from a5.
        {"c3b2", "c3d2", "c3d4"},
        id="monochromatic-king-diagonal-only",
    ),
    pytest.param(
        "monochromatic",
        "4k/n4/2K2/5/R3r w - - 0 1",
        # Ra1 moves 2 or 4 squares: a3 (a4 is 3 away, so not capturable, and blocks a5), c1, and
        # e1 (a capture 4 away through empty b1, c1, d1). Kc3: b2, d2, b4 (the knight never attacks);
        # d4 touches Ke5 diagonally.
        {"a1a3", "a1c1", "a1e1", "c3b2", "c3d2", "c3b4"},
        id="monochromatic-rook-even-distances",
    ),
    pytest.param(
        "monochromatic",
        "1k3/5/2Q2/5/K4 w - - 0 1",
        # Qc3: every diagonal square (d4 e5, b4 a5, d2 e1, b2 — a1 is own) and orthogonally 2 away
        # (c5, c1, a3, e3); never 1 away. Ka1: b2 only.
        {"c3d4", "c3e5", "c3b4", "c3a5", "c3d2", "c3e1", "c3b2", "c3c5", "c3c1", "c3a3", "c3e3", "a1b2"},
        id="monochromatic-queen-diagonal-or-even-orthogonal",
    ),
    pytest.param(
        "monochromatic",
        "5/2k2/2Q2/5/K4 b - - 0 1",
        # The queen one square away orthogonally does not attack, so Kc4 is not in check and may go to
        # all four diagonal squares (b3 and d3 too: the queen is one square from each). Kxc3 would be
        # an orthogonal step: not allowed.
        {"c4b5", "c4d5", "c4b3", "c4d3"},
        id="monochromatic-attacks-follow-the-colour-filter",
    ),
    pytest.param(
        "monochromatic",
        "3k1/1p3/2B2/5/K4 w - - 0 1",
        # the bishop moves as usual: d4 e5, b4 (capture, stops), d2 e1, b2. Ka1: b2.
        {"c3d4", "c3e5", "c3b4", "c3d2", "c3e1", "c3b2", "a1b2"},
        id="monochromatic-bishop-as-usual",
    ),
    pytest.param(
        "monochromatic",
        "k3n/3P1/n1r2/1P3/4K w - - 0 1",
        # pawns only capture: b2xa3, b2xc3, d4xe5 promoting; b2-b3 and d4-d5 are one-square steps,
        # which change colour. Ke1-d2 (the rook on c3 attacks c1, e3, c5, not d2).
        {"b2a3", "b2c3", "e1d2"} | promotions("d4e5", "qrbn"),
        id="monochromatic-pawns-only-capture",
    ),
    # --- bichromatic --------------------------------------------------------------------------------
    pytest.param(
        "bichromatic",
        "4k/b4/2K2/5/R1b2 w - - 0 1",
        # Ra1 moves 1 or 3 squares with a clear path: a2, a4 (capture 3 away), b1; c1 is 2 away and
        # blocks d1. Kc3 steps orthogonally: c2, c4, b3, d3 (bishops never attack).
        {"a1a2", "a1a4", "a1b1", "c3c2", "c3c4", "c3b3", "c3d3"},
        id="bichromatic-rook-odd-distances",
    ),
    pytest.param(
        "bichromatic",
        "4k/5/5/1Q3/3BK w - - 0 1",
        # Qb2 moves orthogonally 1 or 3: b3, b5, b1, a2, c2, e2 — no diagonal (e5 is therefore not in
        # check). The bishop never moves; Ke1: e2 only (d1 is own).
        {"b2b3", "b2b5", "b2b1", "b2a2", "b2c2", "b2e2", "e1e2"},
        id="bichromatic-queen-odd-orthogonal-bishop-never-moves",
    ),
    pytest.param(
        "bichromatic",
        "2b1b/3P1/b1N1k/1P3/K4 w - - 0 1",
        # Nc3 jumps as usual to all eight squares; b2-b3 and d4-d5 (promoting) step forward; pawns
        # never capture (a3, c5, e5 hold bishops). Ka1: a2, b1.
        {"c3a2", "c3a4", "c3b1", "c3b5", "c3d1", "c3d5", "c3e2", "c3e4", "b2b3", "a1a2", "a1b1"}
        | promotions("d4d5", "qrbn"),
        id="bichromatic-knight-as-usual-pawns-never-capture",
    ),
    pytest.param(
        "bichromatic",
        "k4/5/2K1r/1B3/5 w - - 0 1",
        # Kc3 steps orthogonally. The rook on e3 is 2 away (no check) but attacks d3 (1 away) and,
        # once the king has left c3, b3 (3 away): both illegal. c4 and c2 are free; Bb2 never moves.
        {"c3c4", "c3c2"},
        id="bichromatic-king-orthogonal-attacks-filtered",
    ),
]


@pytest.mark.parametrize(("variant", "fen", "expected"), LEGAL_SETS)
def test_legal_move_set(variant: str, fen: str, expected: set[str]) -> None:
    """The legal moves of a hand-analysed position are exactly the expected ones."""
    got = ucis(variant, fen)
    assert got == expected, f"{variant} {fen}: missing {sorted(expected - got)}, extra {sorted(got - expected)}"


# (variant, FEN, moves played, FEN after them)
AFTER_MOVE = [
    pytest.param("gardner", "k4/2P2/5/5/4K w - - 0 1", "c4c5n", "k1N2/5/5/5/4K b - - 0 1", id="gardner-underpromotion"),
    pytest.param(
        "gardner", "3rk/2P2/5/5/4K w - - 0 1", "c4d5q", "3Qk/5/5/5/4K b - - 0 1", id="gardner-capture-promotes"
    ),
    pytest.param("rifle", "3rk/2P2/5/5/4K w - - 0 1", "c4d5", "4k/2P2/5/5/4K b - - 0 1", id="rifle-pawn-shoots-stays"),
    pytest.param("rifle", "r3k/5/R1n2/5/K4 w - - 0 1", "a3c3", "r3k/5/R4/5/K4 b - - 0 1", id="rifle-rook-shoots-stays"),
    pytest.param("rifle", "1r2k/5/5/1n3/K4 w - - 0 1", "a1b2", "1r2k/5/5/5/K4 b - - 0 1", id="rifle-king-shoots-stays"),
    pytest.param(
        "atomic",
        "k4/1p1b1/2n2/1P1N1/2R1K w - - 0 1",
        "c1c3",
        # Rxc3 explodes: rook and knight gone, Bd4 and Nd2 (non-pawns on neighbours, either colour)
        # gone, the pawns on b4 and b2 survive; Ka5 and Ke1 are not neighbours of c3.
        "k4/1p3/5/1P3/4K b - - 0 1",
        id="atomic-explosion-spares-neighbouring-pawns",
    ),
    pytest.param(
        "atomic", "k4/5/2n2/1P3/4K w - - 0 1", "b2c3", "k4/5/5/5/4K b - - 0 1", id="atomic-capturing-pawn-explodes-too"
    ),
    pytest.param(
        "extinction",
        "r3k/b1P1n/p3q/5/KQRBN w - - 0 1",
        "c4c5k",
        "r1K1k/b3n/p3q/5/KQRBN b - - 0 1",
        id="extinction-promotes-to-king",
    ),
    pytest.param(
        "monochromatic",
        "4k/n4/2K2/5/R3r w - - 0 1",
        "a1e1",
        "4k/n4/2K2/5/4R b - - 0 1",
        id="monochromatic-rook-takes-4-away",
    ),
    pytest.param(
        "bichromatic",
        "2b1b/3P1/b1N1k/1P3/K4 w - - 0 1",
        "d4d5n",
        "2bNb/5/b1N1k/1P3/K4 b - - 0 1",
        id="bichromatic-pawn-steps-and-promotes",
    ),
]


@pytest.mark.parametrize(("variant", "fen", "move", "expected"), AFTER_MOVE)
def test_position_after_move(variant: str, fen: str, move: str, expected: str) -> None:
    """``apply_move`` leaves exactly the hand-derived position (capture effect, promotion, clocks)."""
    assert play(variant, fen, move) == expected


@pytest.mark.parametrize(
    ("variant", "board"),
    [
        ("gardner", "rnbqk/ppppp/5/PPPPP/RNBQK"),
        ("baby", "kqbnr/ppppp/5/PPPPP/RNBQK"),
        ("mallet", "rbkqb/ppppp/5/PPPPP/RNKQN"),
        ("los_alamos", "rnqknr/pppppp/6/6/PPPPPP/RNQKNR"),
        ("atomic", "rnbqk/ppppp/5/PPPPP/RNBQK"),
        ("extinction", "rnbqk/ppppp/5/PPPPP/RNBQK"),
        ("rifle", "rnbqk/ppppp/5/PPPPP/RNBQK"),
        ("dark", "rnbqk/ppppp/5/PPPPP/RNBQK"),
        ("monochromatic", "rnbqk/ppppp/5/PPPPP/RNBQK"),
        ("bichromatic", "rnbqk/ppppp/5/PPPPP/RNBQK"),
    ],
)
def test_start_position_is_the_spec_table(variant: str, board: str) -> None:
    """Each variant starts from the board in the spec's table, White to move, clocks ``0 1``."""
    assert initial_state(variant).fen() == f"{board} w - - 0 1"


def test_extinction_pawn_may_promote_to_king() -> None:
    """Extinction adds K to the promotion pieces (the base game never promotes to a king)."""
    state = from_fen("extinction", "r3k/b1P1n/p3q/5/KQRBN w - - 0 1")
    c4 = 8 * 3 + 2
    pawn_moves = {m.uci() for m in legal_moves(state) if m.from_square == c4}
    assert pawn_moves == promotions("c4c5", "qrbnk")
    assert PieceType.KING not in get_variant("gardner").promotions


def test_atomic_move_exploding_own_king_is_illegal() -> None:
    """Rc5xc2 would explode the rook's own king on b1 (and Black's on d1): illegal in atomic."""
    got = ucis("atomic", "2R2/5/5/2n2/1K1k1 w - - 0 1")
    assert "c5c2" not in got
    assert {"c5c3", "c5c4", "c5b5", "c5a5", "c5d5", "c5e5"} <= got


def test_atomic_touching_kings_position_is_illegal_in_gardner() -> None:
    """The atomic touching-kings FEN has the side not to move in check in the base game: a FenError."""
    with pytest.raises(FenError, match="in check"):
        from_fen("gardner", "5/5/5/2k2/r2K1 w - - 0 1")


def test_rifle_king_escapes_mate_by_shooting_a_defended_checker() -> None:
    """Qb4+ protected by Rb1 mates Ka5 in the base game; in rifle the king shoots b4 and stays on a5."""
    fen = "k4/4Q/5/5/1R2K w - - 0 1"
    mated = apply_move(from_fen("gardner", fen), Move.from_uci("e4b4"))
    assert outcome(mated) == (Color.WHITE, Termination.CHECKMATE)
    shot = apply_move(from_fen("rifle", fen), Move.from_uci("e4b4"))
    assert {m.uci() for m in legal_moves(shot)} == {"a5b4"}
    assert outcome(shot) is None
    assert play("rifle", fen, "e4b4", "a5b4") == "k4/5/5/5/1R2K w - - 0 2"


@pytest.mark.parametrize(
    ("fen", "variant"),
    [
        # Qb2 "sees" e5 on the diagonal: check in the base game, nothing in bichromatic.
        ("4k/5/5/1Q3/3BK w - - 0 1", "bichromatic"),
        # Qc3 next to Kc4 orthogonally: check in the base game, nothing in monochromatic.
        ("5/2k2/2Q2/5/K4 w - - 0 1", "monochromatic"),
    ],
)
def test_colour_filtered_attacks_do_not_check(fen: str, variant: str) -> None:
    """A side "in check" only along a line the colour filter forbids is not in check in the filtered variant."""
    with pytest.raises(FenError, match="in check"):
        from_fen("gardner", fen)
    assert legal_moves(from_fen(variant, fen))


def test_monochromatic_start_is_stalemate_at_ply_zero() -> None:
    """From the Gardner start no White move keeps its square colour: stalemate, a draw, at ply 0."""
    state = initial_state("monochromatic")
    assert state.ply == 0
    assert legal_moves(state) == ()
    out = outcome(state)
    assert out is not None and (out.winner, out.termination) == (None, Termination.STALEMATE)
    assert not get_variant("monochromatic").in_default_study


def test_dark_checkmate_pattern_is_not_the_end() -> None:
    """Dark has no check: the base game's mate position leaves Black free to move (into capture)."""
    state = apply_move(from_fen("dark", "k4/5/4R/1R3/4K w - - 0 1"), Move.from_uci("e3a3"))
    assert outcome(state) is None
    assert {m.uci() for m in legal_moves(state)} == {"a5a4", "a5b5", "a5b4"}
