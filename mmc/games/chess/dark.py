"""Dark chess without cheating: full boards sampled to agree with what the side to move can know.

The searcher sees a :class:`DarkObservation`: its own pieces, the squares it sees and what stands on them,
the opponent's material by piece type (the "known material": dark chess shows no captures, so a player
keeps count of what the opponent still has; we take those counts as known, which leaks only an unseen
promotion), and the public clocks. :func:`sample_boards` places the opponent's unseen pieces on unseen
squares until the result shows the mover exactly the same view (visibility is recomputed on the sample:
for instance an unseen square right in front of the mover's pawn must be occupied, or the pawn would see
it). Search then runs on each sample with the mover's observation as the network's input, and the samples'
root visit counts are summed. Nothing here reads a square the mover does not see.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mmc.games.chess import board as K
from mmc.games.chess.state import State
from mmc.games.protocol import KernelState

__all__ = ["DarkObservation", "determinize", "observe", "sample_boards"]


class DarkObservation(NamedTuple):
    """What the side to move knows in dark chess."""

    variant: str
    side: int
    """+1 White to move, -1 Black."""
    visible: np.ndarray
    """``bool[64]``: squares the mover sees (its own pieces and every square they can move to)."""
    seen_board: np.ndarray
    """``int8[BOARD_LEN]``: the board on visible squares, 0 elsewhere (dark chess has no castling or en passant)."""
    opponent_material: np.ndarray
    """``int32[7]``: the opponent's pieces by type (index = piece type; 0 unused)."""
    halfmove: int
    ply: int


def observe(state: State) -> DarkObservation:
    """The side to move's observation of ``state`` (the only function here that touches the true board)."""
    board = K.kernel_board(state)
    side = int(state.turn)
    visible = K.visible_squares(board, side, K.table(state.variant_name))
    material = np.zeros(7, dtype=np.int32)
    for piece in board[:64]:
        if piece * side < 0:
            material[abs(int(piece))] += 1
    seen = np.zeros(K.BOARD_LEN, dtype=np.int8)
    seen[:64] = np.where(visible, board[:64], 0)
    return DarkObservation(state.variant_name, side, visible, seen, material, state.halfmove_clock, state.ply)


def sample_boards(obs: DarkObservation, count: int, rng: np.random.Generator, *, tries: int = 200) -> np.ndarray:
    """``int8[count, BOARD_LEN]`` boards consistent with ``obs``; ``RuntimeError`` if ``tries`` draws per board fail."""
    tab = K.table(obs.variant)
    height = int(tab[K.H_HEIGHT])
    squares = tab[K.SQ_OFF : K.SQ_OFF + tab[K.H_NSQ]].astype(np.int64)
    hidden = squares[~obs.visible[squares]]
    missing = obs.opponent_material.copy()
    for piece in obs.seen_board[obs.seen_board * obs.side < 0]:
        missing[abs(int(piece))] -= 1
    pieces = np.repeat(np.arange(7), np.maximum(missing, 0))
    pawn_rank_ok = (hidden // 8 > 0) & (hidden // 8 < height - 1)
    # Unseen squares straight in front of the mover's pawns are occupied, or the pawn would see them; those
    # diagonally in front are empty, or the pawn would see a capture there.
    pawns = [int(sq) for sq in squares if obs.seen_board[sq] == K.PAWN * obs.side]
    ahead = {sq + 8 * obs.side for sq in pawns}
    diagonal = {sq + 8 * obs.side + df for sq in pawns for df in (-1, 1) if 0 <= sq % 8 + df < 8}
    forced = np.array([sq for sq in hidden.tolist() if sq in ahead], dtype=np.int64)
    open_square = np.array([sq not in diagonal for sq in hidden.tolist()], dtype=bool)
    boards = np.empty((count, K.BOARD_LEN), dtype=np.int8)
    for i in range(count):
        for _ in range(tries):
            board = _draw(obs, hidden, pawn_rank_ok & open_square, open_square, pieces, forced, rng)
            if board is not None and np.array_equal(K.visible_squares(board, obs.side, tab), obs.visible):
                boards[i] = board
                break
        else:
            raise RuntimeError(f"no {obs.variant} board consistent with the observation after {tries} draws")
    return boards


def determinize(state: State, count: int, rng: np.random.Generator) -> list[KernelState]:
    """``count`` full positions consistent with what ``state``'s player to move sees (:func:`sample_boards` of its
    :func:`observe`), as the search takes them (the chess game's ``determinize`` hook): no history, since the
    mover never saw the earlier positions whole."""
    obs = observe(state)
    return [KernelState(board, obs.side, obs.halfmove, obs.ply, ()) for board in sample_boards(obs, count, rng)]


def _draw(obs: DarkObservation, hidden: np.ndarray, pawn_ok: np.ndarray, piece_ok: np.ndarray, pieces: np.ndarray,
          forced: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:  # fmt: skip
    """One random placement of the unseen opponent pieces; ``None`` if there is none.

    Pawns may stand only on ``pawn_ok`` squares (never on a first or last rank), the other pieces on any
    ``piece_ok`` square, and every forced square must be filled. The forced squares are filled first, in a random
    order, each with a random piece of a kind (pawn or not) that leaves the rest placeable (:func:`_placeable`);
    then the other pawns and then the other pieces go to random free squares they may stand on. Drawing the
    pieces in a random order instead gave up after 200 draws on positions where only one assignment of kinds
    works (three pawns that must fill the three unseen squares in front of the mover's pawns; the study's
    evaluation of dark chess stopped on one).
    """
    forced_spots = [int(j) for j in np.flatnonzero(np.isin(hidden, forced))]
    if len(forced_spots) != len(forced) or not all(piece_ok[j] for j in forced_spots):
        return None
    board = obs.seen_board.copy()
    pawns = [int(p) for p in pieces if p == K.PAWN]
    others = [int(p) for p in rng.permutation(pieces[pieces != K.PAWN])]
    free = np.ones(len(hidden), dtype=bool)
    unfilled = set(forced_spots)

    def place(spot: int, piece: int) -> None:
        free[spot] = False
        unfilled.discard(spot)
        board[hidden[spot]] = -obs.side * piece

    for spot in rng.permutation(forced_spots).tolist():
        kinds = []
        if pawns and pawn_ok[spot] and _placeable(len(pawns) - 1, len(others), spot, unfilled, free, pawn_ok, piece_ok):
            kinds += [K.PAWN] * len(pawns)
        if others and _placeable(len(pawns), len(others) - 1, spot, unfilled, free, pawn_ok, piece_ok):
            kinds += [0] * len(others)
        if not kinds:
            return None
        if kinds[int(rng.integers(len(kinds)))] == K.PAWN:
            place(spot, pawns.pop())
        else:
            place(spot, others.pop())
    for piece in pawns + others:  # pawns first: they have the fewer squares
        options = np.flatnonzero(free & (pawn_ok if piece == K.PAWN else piece_ok))
        if len(options) == 0:
            return None
        place(int(options[rng.integers(len(options))]), piece)
    return board


def _placeable(pawns: int, others: int, taken: int, unfilled: set[int], free: np.ndarray, pawn_ok: np.ndarray,
               piece_ok: np.ndarray) -> bool:  # fmt: skip
    """Whether ``pawns`` pawns and ``others`` other pieces can still be placed, filling every unfilled forced
    square, once square ``taken`` is filled too: some ``x`` pawns fill forced squares, the other forced squares
    take other pieces, and what is left fits on the free squares that are not forced."""
    forced = unfilled - {taken}
    open_spots = free.copy()
    open_spots[taken] = False
    for spot in forced:
        open_spots[spot] = False
    pawn_forced = sum(1 for spot in forced if pawn_ok[spot])
    pawn_room = int(np.count_nonzero(open_spots & pawn_ok))
    room = int(np.count_nonzero(open_spots & piece_ok))
    low = max(0, len(forced) - others, pawns - pawn_room)
    high = min(pawns, pawn_forced)
    return low <= high and pawns + others - len(forced) <= room
