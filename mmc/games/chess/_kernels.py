"""Compiled move generation, move making, game-end detection and perft for every variant.

Squares are numbered as in python-chess, eight to a rank whatever the board size, so that a move's
squares and its UCI text do not depend on the variant::

    rank 6 | 40 41 42 43 44 45        a6 .. f6   (6x6 only)
    rank 5 | 32 33 34 35 36 37        a5 .. f5
    rank 4 | 24 25 26 27 28 29
    rank 3 | 16 17 18 19 20 21
    rank 2 |  8  9 10 11 12 13
    rank 1 |  0  1  2  3  4  5        a1 .. f1
             a  b  c  d  e  f         square = 8 * rank + file

A board is ``int8[BOARD_LEN]``: squares 0..63 hold ``+type`` for a White piece, ``-type`` for Black, 0 for
empty (also off the board); byte :data:`CASTLING` holds the castling rights (bits :data:`WHITE_OO`,
:data:`WHITE_OOO`, :data:`BLACK_OO`, :data:`BLACK_OOO`) and byte :data:`EP` the en-passant square, set only when an
en-passant capture is legal (0 for none: a1 never is one). Both stay 0 in variants without castling or double
step, so that comparing two boards compares the positions (repetition) in every variant.
``side`` is +1 for White, -1 for Black. A move is an ``int32``:
``from | to << 6 | promotion << 12`` (promotion is a piece type, 0 for none).

Everything a kernel needs about the variant travels in one ``int16`` table built by
:func:`build_table`: the rule hooks, then for each square and direction the ray of squares
(-1 terminated), then the knight jumps. Directions, in order: N NE E SE S SW W NW (even = orthogonal).

This module is the engine's own; other packages use it through its public face, ``mmc.games.chess.board``.
"""

from __future__ import annotations

import numpy as np

from mmc.games.chess.variants import CaptureRule, CheckRule, EndRule, MoveFilter, Variant
from mmc.games.jit import kernel

# Header slots of the variant table.
H_HEIGHT, H_WIDTH, H_CAPTURE, H_FILTER, H_CHECK, H_END, H_PROMO, H_KING_CAPTURES, H_NSQ = range(9)
H_DOUBLE_STEP, H_CASTLING, H_BISHOPS_DRAW, H_INSUFFICIENT, H_HIDDEN = range(9, 14)
RAY_OFF = 16
KNIGHT_OFF = RAY_OFF + 64 * 8 * 8
SQ_OFF = KNIGHT_OFF + 64 * 8
TABLE_SIZE = SQ_OFF + 64

DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
MAX_MOVES = 1024

BOARD_LEN = 66
"""Bytes of a board: the 64 squares, then the castling rights and the en-passant square."""
CASTLING, EP = 64, 65
WHITE_OO, WHITE_OOO, BLACK_OO, BLACK_OOO = 1, 2, 4, 8

# Status codes returned by `status`, always from the side to move's point of view.
ONGOING, CHECKMATED, STALEMATE, KING_LOST, EXTINCT, OPPONENT_EXTINCT = range(6)
# The further codes of `game_end`: draws that need the game's history, material or clocks.
INSUFFICIENT_MATERIAL, REPETITION, FIFTY_MOVES, PLY_CAP = range(6, 10)
FIFTY_MOVE_PLIES = 100
"""The fifty-move rule: the game is drawn once this many plies pass without a capture or a pawn move."""

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
_REPLACE, _ATOMIC, _RIFLE = int(CaptureRule.REPLACE), int(CaptureRule.ATOMIC), int(CaptureRule.RIFLE)
_SAME, _OPPOSITE = int(MoveFilter.SAME_COLOUR), int(MoveFilter.OPPOSITE_COLOUR)
_ROYAL = int(CheckRule.ROYAL)
_KING_LOST, _EXTINCTION = int(EndRule.KING_LOST), int(EndRule.EXTINCTION)


def build_table(variant: Variant) -> np.ndarray:
    """Pack the variant's hooks and board geometry into the ``int16[TABLE_SIZE]`` the kernels read."""
    h, w = variant.height, variant.width
    tab = np.full(TABLE_SIZE, -1, dtype=np.int16)
    promo_mask = sum(1 << int(p) for p in variant.promotions)
    tab[:H_HIDDEN + 1] = (
        h, w, variant.capture, variant.move_filter, variant.check, variant.end,
        promo_mask, variant.king_captures, h * w, variant.double_step, variant.castling, variant.bishops_draw,
        variant.insufficient_material, variant.hidden_information,
    )  # fmt: skip
    squares = [8 * r + f for r in range(h) for f in range(w)]
    tab[SQ_OFF : SQ_OFF + len(squares)] = squares
    for sq in squares:
        r, f = divmod(sq, 8)
        for d, (df, dr) in enumerate(DIRECTIONS):
            for k in range(1, 8):
                rr, ff = r + k * dr, f + k * df
                if not (0 <= rr < h and 0 <= ff < w):
                    break
                tab[RAY_OFF + (sq * 8 + d) * 8 + k - 1] = 8 * rr + ff
        for j, (df, dr) in enumerate(KNIGHT_JUMPS):
            rr, ff = r + dr, f + df
            if 0 <= rr < h and 0 <= ff < w:
                tab[KNIGHT_OFF + sq * 8 + j] = 8 * rr + ff
    return tab


@kernel(inline="always")
def _allowed(tab, steps):
    """Whether a move whose file + rank displacement is ``steps`` passes the colour filter."""
    flt = tab[H_FILTER]
    if flt == _SAME:
        return steps % 2 == 0
    if flt == _OPPOSITE:
        return steps % 2 == 1
    return True


@kernel(inline="always")
def _encode(frm, to, promo):
    return np.int32(frm | (to << 6) | (promo << 12))


@kernel
def _push_pawn_move(board, tab, frm, to, is_capture, side, out, n):
    """Append a pawn move, expanded into one move per promotion piece on the last rank."""
    last = tab[H_HEIGHT] - 1 if side > 0 else 0
    if to // 8 == last and not (is_capture and tab[H_CAPTURE] == _RIFLE):
        mask = tab[H_PROMO]
        for p in (QUEEN, ROOK, BISHOP, KNIGHT, KING):
            if mask & (1 << p):
                out[n] = _encode(frm, to, p)
                n += 1
        return n
    out[n] = _encode(frm, to, 0)
    return n + 1


@kernel
def pseudo_moves(board, side, tab, out):
    """Write the side's pseudo-legal moves (colour filter applied, king safety not) to ``out``; return the count."""
    n = 0
    for i in range(tab[H_NSQ]):
        frm = tab[SQ_OFF + i]
        piece = board[frm] * side
        if piece <= 0:
            continue
        if piece == PAWN:
            fwd = 0 if side > 0 else 4  # direction index N or S
            to = tab[RAY_OFF + (frm * 8 + fwd) * 8]
            if to >= 0 and board[to] == 0 and _allowed(tab, 1):
                n = _push_pawn_move(board, tab, frm, to, False, side, out, n)
                if tab[H_DOUBLE_STEP] != 0 and frm // 8 == (1 if side > 0 else tab[H_HEIGHT] - 2):
                    to = tab[RAY_OFF + (frm * 8 + fwd) * 8 + 1]
                    if to >= 0 and board[to] == 0:
                        out[n] = _encode(frm, to, 0)
                        n += 1
            if _allowed(tab, 2):
                ep = board[EP]
                for d in (fwd + 1, (fwd + 7) % 8):  # NE and NW for White, SW and SE for Black
                    to = tab[RAY_OFF + (frm * 8 + d) * 8]
                    if to >= 0 and (board[to] * side < 0 or (ep != 0 and to == ep)):
                        n = _push_pawn_move(board, tab, frm, to, True, side, out, n)
        elif piece == KNIGHT:
            if _allowed(tab, 3):
                for j in range(8):
                    to = tab[KNIGHT_OFF + frm * 8 + j]
                    if to >= 0 and board[to] * side <= 0:
                        out[n] = _encode(frm, to, 0)
                        n += 1
        elif piece == KING:
            can_capture = tab[H_KING_CAPTURES] != 0
            for d in range(8):
                to = tab[RAY_OFF + (frm * 8 + d) * 8]
                if to < 0 or not _allowed(tab, 1 + d % 2):
                    continue
                target = board[to] * side
                if target == 0 or (target < 0 and can_capture):
                    out[n] = _encode(frm, to, 0)
                    n += 1
            if tab[H_CASTLING] != 0 and board[CASTLING] != 0:
                n = _castling_moves(board, side, frm, tab, out, n)
        else:
            first, step = (1, 2) if piece == BISHOP else ((0, 2) if piece == ROOK else (0, 1))
            for d in range(first, 8, step):
                base = RAY_OFF + (frm * 8 + d) * 8
                for k in range(7):
                    to = tab[base + k]
                    if to < 0:
                        break
                    target = board[to] * side
                    if target > 0:
                        break
                    if _allowed(tab, (k + 1) * (1 + d % 2)):
                        out[n] = _encode(frm, to, 0)
                        n += 1
                    if target < 0:
                        break
    return n


@kernel
def _castling_moves(board, side, king, tab, out, n):
    """Append the castling moves (the king's two-square step) the rights allow, with the squares between king and
    rook empty and the king neither in check nor passing an attacked square (its landing square is left to the
    legality test)."""
    rights = board[CASTLING] >> (0 if side > 0 else 2)
    if rights & 3 == 0:
        return n
    checked = is_attacked(board, king, -side, tab)
    if checked:
        return n
    if rights & 1 and board[king + 1] == 0 and board[king + 2] == 0 and not is_attacked(board, king + 1, -side, tab):
        out[n] = _encode(king, king + 2, 0)
        n += 1
    if (
        rights & 2 and board[king - 1] == 0 and board[king - 2] == 0 and board[king - 3] == 0
        and not is_attacked(board, king - 1, -side, tab)
    ):  # fmt: skip
        out[n] = _encode(king, king - 2, 0)
        n += 1
    return n


@kernel
def make_move(board, move, tab):
    """Return a new board with ``move`` played; the capture hook decides what a capture removes."""
    b = board.copy()
    play_inplace(b, move, tab)
    return b


@kernel
def play_inplace(b, move, tab):
    """Play ``move`` on board ``b`` in place."""
    frm, to, promo = move & 63, (move >> 6) & 63, move >> 12
    piece = b[frm]
    if tab[H_DOUBLE_STEP] != 0 or tab[H_CASTLING] != 0:
        _play_chess(b, frm, to, promo, piece, tab)
        return
    if b[to] != 0:
        rule = tab[H_CAPTURE]
        if rule == _RIFLE:
            b[to] = 0
            return
        if rule == _ATOMIC:
            b[frm] = 0
            b[to] = 0
            for d in range(8):
                nb = tab[RAY_OFF + (to * 8 + d) * 8]
                if nb >= 0 and b[nb] != PAWN and b[nb] != -PAWN:
                    b[nb] = 0
            return
    b[frm] = 0
    b[to] = piece if promo == 0 else (promo if piece > 0 else -promo)


_RIGHTS_KEPT = np.full(64, 15, dtype=np.int8)
_RIGHTS_KEPT[0], _RIGHTS_KEPT[4], _RIGHTS_KEPT[7] = 15 - WHITE_OOO, 15 - WHITE_OO - WHITE_OOO, 15 - WHITE_OO
_RIGHTS_KEPT[56], _RIGHTS_KEPT[60], _RIGHTS_KEPT[63] = 15 - BLACK_OOO, 15 - BLACK_OO - BLACK_OOO, 15 - BLACK_OO


@kernel
def _play_chess(b, frm, to, promo, piece, tab):
    """:func:`play_inplace` for the variants with castling or the double step (ordinary captures): the rook's
    half of castling, the en-passant capture, the castling rights a move from or to a corner or king square
    loses, and the en-passant square of a double step (kept only when the capture it allows is legal)."""
    ep = b[EP]
    b[EP] = 0
    side = 1 if piece > 0 else -1
    kind = piece * side
    if kind == PAWN and ep != 0 and to == ep:
        b[to - 8 * side] = 0
    elif kind == KING and (to - frm == 2 or frm - to == 2):
        rook_from, rook_to = (frm + 3, frm + 1) if to > frm else (frm - 4, frm - 1)
        b[rook_to] = b[rook_from]
        b[rook_from] = 0
    b[frm] = 0
    b[to] = piece if promo == 0 else promo * side
    if b[CASTLING] != 0:
        b[CASTLING] &= _RIGHTS_KEPT[frm] & _RIGHTS_KEPT[to]
    if kind == PAWN and (to - frm == 16 or frm - to == 16):
        passed = (frm + to) // 2
        for df in (-1, 1):
            f = to % 8 + df
            if 0 <= f < tab[H_WIDTH] and b[to + df] == -piece and _ep_capture_legal(b, to + df, passed, to, -side, tab):
                b[EP] = passed
                break


@kernel
def _ep_capture_legal(b, frm, to, captured, side, tab):
    """Whether ``side``'s pawn on ``frm`` may take en passant on ``to`` (removing ``captured``) without leaving
    its king attacked."""
    after = b.copy()
    after[to] = after[frm]
    after[frm] = 0
    after[captured] = 0
    king = _king_square(after, side, tab)
    return king < 0 or not is_attacked(after, king, -side, tab)


@kernel
def advance(board, move, side, tab, board_out, moves_out):
    """Play ``move`` into ``board_out`` and write the opponent's legal moves to ``moves_out``; return their count.

    One compiled call per ply for the Python API: the new position and its move list together.
    """
    board_out[:] = board
    play_inplace(board_out, move, tab)
    return legal_moves_into(board_out, -side, tab, moves_out)


@kernel
def is_attacked(board, sq, by, tab):
    """Whether side ``by`` could capture on ``sq`` with a move the variant allows (filter, king rule)."""
    for d in range(8):
        base = RAY_OFF + (sq * 8 + d) * 8
        diagonal = d % 2 == 1
        for k in range(7):
            t = tab[base + k]
            if t < 0:
                break
            q = board[t] * by
            if q == 0:
                continue
            if q > 0 and _allowed(tab, (k + 1) * (1 + d % 2)):
                if q == QUEEN or (q == ROOK and not diagonal) or (q == BISHOP and diagonal):
                    return True
                if k == 0:
                    if q == KING and tab[H_KING_CAPTURES] != 0:
                        return True
                    # A pawn of `by` attacks sq from one rank behind it (behind from by's view).
                    rank_step = 1 if d in (1, 7) else (-1 if d in (3, 5) else 0)
                    if q == PAWN and diagonal and rank_step == -by:
                        return True
            break
    if _allowed(tab, 3):
        for j in range(8):
            t = tab[KNIGHT_OFF + sq * 8 + j]
            if t >= 0 and board[t] * by == KNIGHT:
                return True
    return False


@kernel
def _king_square(board, side, tab):
    for i in range(tab[H_NSQ]):
        sq = tab[SQ_OFF + i]
        if board[sq] * side == KING:
            return sq
    return -1


@kernel
def in_check(board, side, tab):
    """Whether the side's king is attacked; always False where kings are not royal or touch in atomic."""
    if tab[H_CHECK] != _ROYAL:
        return False
    king = _king_square(board, side, tab)
    if king < 0:
        return False
    if tab[H_CAPTURE] == _ATOMIC and _kings_touch(board, king, side, tab):
        return False
    return is_attacked(board, king, -side, tab)


@kernel
def _kings_touch(board, king, side, tab):
    for d in range(8):
        nb = tab[RAY_OFF + (king * 8 + d) * 8]
        if nb >= 0 and board[nb] * side == -KING:
            return True
    return False


@kernel
def _is_legal(board, move, side, tab):
    """Whether a pseudo-legal move keeps the mover's royal king safe (atomic: or explodes the enemy king)."""
    if tab[H_CHECK] != _ROYAL:
        return True
    after = make_move(board, move, tab)
    king = _king_square(after, side, tab)
    if king < 0:
        return False
    if tab[H_CAPTURE] == _ATOMIC:
        if _king_square(after, -side, tab) < 0:
            return True
        if _kings_touch(after, king, side, tab):
            return True
    return not is_attacked(after, king, -side, tab)


@kernel
def legal_moves_into(board, side, tab, out):
    """Write the legal moves to ``out`` and return the count (0 once the game has ended by a variant rule)."""
    if _variant_end(board, side, tab) != ONGOING:
        return 0
    n = pseudo_moves(board, side, tab, out)
    if tab[H_CHECK] != _ROYAL:
        return n
    # Shortcut, exact for ordinary captures: out of check, a non-king move from a square on no line
    # through the king cannot expose it, so only the other moves are played out and tested.
    king = _king_square(board, side, tab)
    quick = tab[H_CAPTURE] == _REPLACE and king >= 0 and not in_check(board, side, tab)
    ep = board[EP]
    kept = 0
    for i in range(n):
        move = out[i]
        frm = move & 63
        # An en-passant capture also empties a third square, so it is always played out.
        if quick and frm != king and not (ep != 0 and (move >> 6) & 63 == ep and board[frm] * side == PAWN):
            df = abs(frm % 8 - king % 8)
            dr = abs(frm // 8 - king // 8)
            if df != 0 and dr != 0 and df != dr:
                out[kept] = move
                kept += 1
                continue
        if _is_legal(board, move, side, tab):
            out[kept] = move
            kept += 1
    return kept


@kernel
def legal_moves(board, side, tab):
    """The legal moves as a fresh ``int32`` array."""
    out = np.empty(MAX_MOVES, dtype=np.int32)
    n = legal_moves_into(board, side, tab, out)
    return out[:n].copy()


@kernel
def _variant_end(board, side, tab):
    """The status imposed by the end hook alone, before looking at legal moves."""
    rule = tab[H_END]
    if rule == _KING_LOST:
        if _king_square(board, side, tab) < 0:
            return KING_LOST
    elif rule == _EXTINCTION:
        # The side that just moved is judged first: a move that wipes out one of its own types loses.
        for s in (-side, side):
            counts = np.zeros(7, dtype=np.int32)
            for i in range(tab[H_NSQ]):
                q = board[tab[SQ_OFF + i]] * s
                if q > 0:
                    counts[q] += 1
            for p in range(1, 7):
                if counts[p] == 0:
                    return OPPONENT_EXTINCT if s == -side else EXTINCT
    return ONGOING


@kernel
def status(board, side, tab):
    """The game-end status from the side to move's view (one of the module's status codes)."""
    code = _variant_end(board, side, tab)
    if code != ONGOING:
        return code
    out = np.empty(MAX_MOVES, dtype=np.int32)
    n = pseudo_moves(board, side, tab, out)
    for i in range(n):
        if _is_legal(board, out[i], side, tab):
            return ONGOING
    return CHECKMATED if in_check(board, side, tab) else STALEMATE


@kernel
def perft(board, side, depth, tab):
    """Count leaf nodes of the legal-move tree ``depth`` plies deep; the tree stops where a game ends.

    Iterative (numba cannot cache recursive functions): one board and one move list per ply.
    """
    if depth == 0:
        return np.int64(1)
    boards = np.empty((depth, BOARD_LEN), dtype=np.int8)
    moves = np.empty((depth, MAX_MOVES), dtype=np.int32)
    count = np.zeros(depth, dtype=np.int64)
    nxt = np.zeros(depth, dtype=np.int64)
    boards[0] = board
    count[0] = legal_moves_into(boards[0], side, tab, moves[0])
    if depth == 1:
        return count[0]
    total = np.int64(0)
    ply = 0
    while ply >= 0:
        if nxt[ply] == count[ply]:
            ply -= 1
            continue
        move = moves[ply, nxt[ply]]
        nxt[ply] += 1
        child = ply + 1
        boards[child] = boards[ply]
        play_inplace(boards[child], move, tab)
        mover = side if ply % 2 == 0 else -side
        n = legal_moves_into(boards[child], -mover, tab, moves[child])
        if child == depth - 1:
            total += n
        else:
            count[child] = n
            nxt[child] = 0
            ply = child
    return total


@kernel
def random_playout(board, side, tab, seed, max_plies):
    """Play uniformly random legal moves until the game ends or ``max_plies``; return the plies played.

    The engine-speed reference for benchmarks: the same work as the Python API's playout loop with
    no Python in between (repetition and fifty-move draws are not tracked here).
    """
    np.random.seed(seed)
    out = np.empty(MAX_MOVES, dtype=np.int32)
    for ply in range(max_plies):
        n = legal_moves_into(board, side, tab, out)
        if n == 0:
            return ply
        board = make_move(board, out[np.random.randint(n)], tab)
        side = -side
    return max_plies


@kernel
def visible_squares(board, side, tab):
    """``bool[64]``: the side's own pieces and every square its pieces can move to (dark chess)."""
    seen = np.zeros(64, dtype=np.bool_)
    for i in range(tab[H_NSQ]):
        sq = tab[SQ_OFF + i]
        if board[sq] * side > 0:
            seen[sq] = True
    out = np.empty(MAX_MOVES, dtype=np.int32)
    n = pseudo_moves(board, side, tab, out)
    for i in range(n):
        seen[(out[i] >> 6) & 63] = True
    return seen


@kernel
def insufficient_material(board, tab):
    """K v K or K + one knight or bishop v K (the draw of variants with ``insufficient_material``); where the
    table's ``H_BISHOPS_DRAW`` is set (chess, as Fairy-Stockfish counts it), also kings with any bishops all on
    squares of one colour."""
    if tab[H_BISHOPS_DRAW] != 0:
        return _insufficient_with_bishops(board, tab)
    pieces = 0
    minors = 0
    for i in range(tab[H_NSQ]):
        p = abs(board[tab[SQ_OFF + i]])
        if p == 0:
            continue
        pieces += 1
        if pieces > 3:
            return False
        if p == KNIGHT or p == BISHOP:  # noqa: SIM109 (kept as in the compiled original)
            minors += 1
        elif p != KING:
            return False
    return pieces == 2 or (pieces == 3 and minors == 1)


@kernel
def _insufficient_with_bishops(board, tab):
    knights = 0
    light = 0
    dark = 0
    for i in range(tab[H_NSQ]):
        sq = tab[SQ_OFF + i]
        p = abs(board[sq])
        if p == 0 or p == KING:
            continue
        if p == KNIGHT:
            knights += 1
        elif p == BISHOP:
            if (sq // 8 + sq % 8) % 2 == 1:
                light += 1
            else:
                dark += 1
        else:
            return False
    if knights == 0:
        return light == 0 or dark == 0
    return knights == 1 and light + dark == 0


@kernel
def clock_end(halfmove, ply, max_plies):
    """``FIFTY_MOVES`` once ``halfmove`` reaches :data:`FIFTY_MOVE_PLIES`, else ``PLY_CAP`` once ``ply`` reaches
    ``max_plies``, else ``ONGOING``: the rules that read only the clocks."""
    if halfmove >= FIFTY_MOVE_PLIES:
        return FIFTY_MOVES
    if ply >= max_plies:
        return PLY_CAP
    return ONGOING


@kernel
def game_end(board, side, tab, num_moves, repetitions, halfmove, ply, max_plies):
    """Whether the game is over, and why: ``ONGOING`` or one end code, the first that applies of

    - a side to move without a legal move (``num_moves == 0``): the :func:`status` code (``CHECKMATED``,
      ``STALEMATE``, ``KING_LOST``, ``EXTINCT``, ``OPPONENT_EXTINCT``);
    - ``INSUFFICIENT_MATERIAL`` where the variant draws it (``tab[H_INSUFFICIENT]``) and
      :func:`insufficient_material`;
    - ``REPETITION`` when the position occurred twice before (``repetitions >= 2``: threefold);
    - :func:`clock_end`: ``FIFTY_MOVES``, then ``PLY_CAP``.

    ``num_moves`` is the count :func:`legal_moves_into` gave for this board and side; ``repetitions`` how many
    times the position (board and side to move) occurred before since the last capture or pawn move.
    """
    if num_moves == 0:
        code = status(board, side, tab)
        return STALEMATE if code == ONGOING else code
    if tab[H_INSUFFICIENT] != 0 and insufficient_material(board, tab):
        return INSUFFICIENT_MATERIAL
    if repetitions >= 2:
        return REPETITION
    return clock_end(halfmove, ply, max_plies)


@kernel
def end_value(code):
    """The finished game's value for the side to move (a :func:`game_end` code other than ``ONGOING``):
    +1 if the opponent wiped out a piece type of its own, -1 for the other decisive ends, 0 for a draw."""
    if code == OPPONENT_EXTINCT:
        return 1.0
    if code == CHECKMATED or code == KING_LOST or code == EXTINCT:  # noqa: SIM109 (plain comparisons compile simply)
        return -1.0
    return 0.0


ALTERNATES = True
"""The turn passes after every move (the game protocol's flag: ``mmc.games.protocol``)."""


@kernel(inline="always")
def play(board, side, move, tab):
    """Play the legal ``move`` of ``side`` on ``board`` in place; return ``(next side, irreversible, plies)``: the
    opponent, whether the move was a capture or a pawn move (it restarts the fifty-move and repetition clocks), and
    the plies it counts (1)."""
    frm, to = move & 63, (move >> 6) & 63
    irreversible = board[to] != 0 or board[frm] == PAWN or board[frm] == -PAWN
    play_inplace(board, move, tab)
    return -side, irreversible, 1


@kernel(inline="always")
def cutoff_value(board, side, tab):
    """A random playout stopped before the game's end counts as a draw: 0."""
    return 0.0
