"""What a seat sees, for OpenSpiel: the observer behind ``observation_*`` and
``information_state_*`` (and ``game.make_observer(iig_obs_type)``).

The observer honours the :class:`pyspiel.IIGObservationType` it is given: ``public_info``
(the table, sizes, scores, voids, moves), ``private_info`` (``SINGLE_PLAYER``: the seat's own
tiles; ``NONE``: none; ``ALL_PLAYERS``: every hand, as for a referee) and ``perfect_recall``.
Nothing shown to a seat reveals another hand, the boneyard or its order (tests reshuffle every
hidden tile and compare).

**Tensor** (``observer.dict`` names the blocks, in this order; ``r`` a relative seat, 0 = the
observer; S = 4 slots, 16 with every double a spinner; n players; T = 28 tiles, the double-six
set's, and P = 168, its pips):

==================  ===========  =======================================================
``observation``     obs_size     public and ``SINGLE_PLAYER``: the environment's observation
                                 vector of the seat (:class:`Encoding`; ``docs/spaces.md``)
``public``          obs_size−2T  other public settings: that vector without ``hand`` and
                                 ``drawn``, a drawn tile's phase shown as plain play
``private``         2T           ``SINGLE_PLAYER`` without public: ``hand`` and ``drawn``
``hands``           T·n + T      ``ALL_PLAYERS``: each relative seat's hand, then the tile
                                 the seat to act must place
*perfect recall only:*
``pending``         3            public: tiles dealt so far / T while a hand is being dealt;
                                 1 while a lot for the leader is pending; 1 while a draw
                                 awaits its tile
``placements``      T + T·S      public, this hand: per tile, (its place in the order of
                                 placements) / T, else 0; then per tile the slot it was
                                 placed on, one-hot
``draws``           (T+1)·n      public, this hand: per run of moves ending in placement
                                 ``k`` (k = 1…T, then the run after the last placement),
                                 tiles each relative seat drew / T
``match``           1 + n + 2    public, ``episode=match``: hand number / 200; the last
                                 finished hand's pips per relative seat / P; it ended in a
                                 domino, it was blocked
``my_deal``         T            ``SINGLE_PLAYER``: the tiles dealt to the seat so far while a
                                 hand is being dealt (else 0)
``my_draws``        T            ``SINGLE_PLAYER``: per tile the seat drew this hand, (its
                                 place among the seat's draws) / T
``deals``           T·n          ``ALL_PLAYERS``: ``my_deal`` of each relative seat
``draws_of``        T·n          ``ALL_PLAYERS``: ``my_draws`` of each relative seat
==================  ===========  =======================================================

**A smaller set** (``max_pip`` N below 6) shrinks every tile block as the environment's
observation does (:mod:`allfives_env.envs.blocks`): T is the set's (N + 1)(N + 2) / 2 tiles, a
tile's entry is its rank in the set (:attr:`Encoding.tile_index`), and P is the set's pips,
N(N + 1)(N + 2) / 2. For double-six every block is the one of earlier versions.

**Perfect recall.** Within a hand the information-state tensor determines everything the seat
has seen, in order, and so its whole history: the public moves are the placements in order
(``placements``, and the observation's ``played_by`` for who placed each), and between two
placements each seat in turn draws some tiles and passes, the last one places (the turn
order, the draws per seat in ``draws`` and the placer fix that run; passes need an empty
boneyard, so no seat draws after one); the seat's tiles are its hand, its placed tiles and
its draws, in the order of ``my_draws`` (the rest was dealt: the deal is seen as a set, no
seat acting during it). A hand is at most T placements, T draws and 3 passes around each
placement (:func:`~allfives_openspiel.game.moves_per_hand` bounds it), whence the fixed sizes
above.

A match keeps the current hand in full and each earlier hand by what every seat saw at its
end: the scores (in the observation) and, of the last finished hand, its pips and how it
ended (``match``). That keeps all a later hand's chance and payoffs depend on (each hand is
dealt afresh; the leader rule reads only the last hand's end), but it is not perfect recall
in the strict sense: two match histories that differ only inside an earlier hand and reach
the same scores and last hand end share a tensor. The full history would take 200 hands'
worth of the blocks above. The information-state *string* keeps every hand in full.

**Strings.** The observation string is the seat's view now (its hand, the layout, the sizes,
the boneyard, the scores, the known voids and this hand's public moves). With perfect recall
it adds the seat's private history (the tiles dealt to it each hand and those it drew, in
order) and every finished hand: its public moves, how it ended, the pips shown and the award.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel

from allfives_env.core.actions import ACTIONS, DRAW_ID
from allfives_env.core.events import Event, HandEnd, HandResult
from allfives_env.core.render import render_layout
from allfives_env.core.tiles import PIPS, TILES
from allfives_env.core.view import PlayerView
from allfives_openspiel.state import AllFivesState, GameParts, Private

_NONE = pyspiel.PrivateInfoType.NONE
_SINGLE = pyspiel.PrivateInfoType.SINGLE_PLAYER
_ALL = pyspiel.PrivateInfoType.ALL_PLAYERS


class AllFivesObserver:
    """OpenSpiel's observer for one :class:`pyspiel.IIGObservationType` (``None``: the
    default observation, public and the seat's own tiles, no recall): the tensor and dict of
    the module docstring's table, and the strings."""

    def __init__(self, game: GameParts, iig_obs_type: Any = None):
        iig = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        self.game = game
        self.recall = bool(iig.perfect_recall)
        self.public = bool(iig.public_info)
        self.private = iig.private_info
        enc = game.encoding
        n, s = enc.num_players, enc.num_slots
        t = self.num_tiles = enc.num_tiles
        self.num_slots = s
        self.rank = enc.tile_index
        # the divisors of the module docstring's table, as floats (28.0 and 168.0 for double-six)
        self.per_tile = float(t)
        self.per_pip = float(sum(PIPS[u] for u in enc.index_tile))
        blocks: list[tuple[str, int]] = []
        if self.public and self.private == _SINGLE:
            blocks.append(("observation", enc.obs_size))
        else:
            if self.public:
                blocks.append(("public", enc.obs_size - 2 * t))
            if self.private == _SINGLE:
                blocks.append(("private", 2 * t))
            elif self.private == _ALL:
                blocks.append(("hands", t * n + t))
        if self.recall:
            if self.public:
                # draws: the runs of moves ending in placement 1…T, and the run after the last
                blocks += [("pending", 3), ("placements", t + t * s), ("draws", (t + 1) * n)]
                if game.table.match:
                    blocks.append(("match", 1 + n + 2))
            if self.private == _SINGLE:
                blocks += [("my_deal", t), ("my_draws", t)]
            elif self.private == _ALL:
                blocks += [("deals", t * n), ("draws_of", t * n)]
        self.tensor = np.zeros(sum(size for _, size in blocks), np.float32)
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        at = 0
        for name, size in blocks:
            self.dict[name] = self.tensor[at : at + size]
            at += size
        hand, drawn, phase = (enc.block_range(b) for b in ("hand", "drawn", "phase"))
        keep = np.ones(enc.obs_size, bool)
        keep[hand[0] : hand[1]] = keep[drawn[0] : drawn[1]] = False
        self._public_index = np.flatnonzero(keep)
        self._private_index = np.r_[hand[0] : hand[1], drawn[0] : drawn[1]]
        self._drawn_phase = phase[0] + 2  # "must place the drawn tile" (the seat's own only)

    # ------------------------------------------------------------------ tensor

    def set_from(self, state: AllFivesState, player: int) -> None:
        """Fill :attr:`tensor` with what ``player`` sees of ``state``.

        Raises:
            pyspiel.SpielError: if ``player`` is not one of the game's seats (the tensor is
                left as it was).
        """
        player = state.check_seat(player)
        self.tensor.fill(0.0)
        d = self.dict
        g = state.engine
        n = state.rules.num_players
        seats = [(player + r) % n for r in range(n)]
        if g is not None:
            if "observation" in d or "public" in d or "private" in d:
                obs = state.encoding.observe(g, player)
                if "observation" in d:
                    d["observation"][:] = obs
                if "public" in d:
                    if obs[self._drawn_phase]:  # the seat's own drawn tile: plain play
                        obs[self._drawn_phase - 1], obs[self._drawn_phase] = 1.0, 0.0
                    d["public"][:] = obs[self._public_index]
                if "private" in d:
                    d["private"][:] = obs[self._private_index]
            if "hands" in d:
                t = self.num_tiles
                for r, seat in enumerate(seats):
                    _put_tiles(d["hands"], t * r, g.hand_mask(seat), self.rank)
                if g.drawn_tile is not None:
                    d["hands"][t * n + self.rank[g.drawn_tile]] = 1.0
        if not self.recall:
            return
        if "pending" in d:
            pending = d["pending"]
            if state.dealt is not None:
                pending[0] = sum(len(h) for h in state.dealt) / self.per_tile
            pending[1] = float(bool(state.lot))
            pending[2] = float(state.drawing)
            if g is not None:
                self._public_history(state, player, d["placements"], d["draws"])
        if "match" in d:
            m = d["match"]
            m[0] = state.seen.hands / state.table.max_hands
            last = state.seen.last
            if last is not None:
                for r, seat in enumerate(seats):
                    m[1 + r] = last.pips[seat] / self.per_pip
                m[1 + n] = float(last.end == HandEnd.DOMINO)
                m[2 + n] = float(last.end == HandEnd.BLOCKED)
        if "my_deal" in d:
            self._private_history(state, player, d["my_deal"], d["my_draws"], 0)
        if "deals" in d:
            for r, seat in enumerate(seats):
                self._private_history(state, seat, d["deals"], d["draws_of"], self.num_tiles * r)

    def _public_history(
        self,
        state: AllFivesState,
        player: int,
        placements: npt.NDArray[np.float32],
        draws: npt.NDArray[np.float32],
    ) -> None:
        """This hand's public moves: the placements in order, with their slots, and the draws
        of each relative seat in each run of moves."""
        g = state.engine
        assert g is not None
        n = state.rules.num_players
        s = self.num_slots
        t, per_tile, rank = self.num_tiles, self.per_tile, self.rank
        k = 0  # placements so far
        for e in g.events:
            a = e.action
            if a < DRAW_ID:
                k += 1
                tile = rank[a >> 4]
                placements[tile] = k / per_tile
                placements[t + tile * s + (a & 15)] = 1.0
            elif a == DRAW_ID:
                draws[k * n + (e.seat - player) % n] += 1 / per_tile

    def _private_history(
        self,
        state: AllFivesState,
        seat: int,
        deal: npt.NDArray[np.float32],
        draws: npt.NDArray[np.float32],
        at: int,
    ) -> None:
        """``seat``'s tiles dealt so far in a deal in progress, and its draws this hand."""
        rank = self.rank
        if state.dealt is not None:
            for t in state.dealt[seat]:
                deal[at + rank[t]] = 1.0
        for j, t in enumerate(state.drew(seat)):
            draws[at + rank[t]] = (j + 1) / self.per_tile

    # ------------------------------------------------------------------ strings

    def string_from(self, state: AllFivesState, player: int) -> str:
        """What ``player`` sees of ``state`` as text; with perfect recall, with its history.

        Raises:
            pyspiel.SpielError: if ``player`` is not one of the game's seats.
        """
        player = state.check_seat(player)
        g = state.engine
        parts = [f"seat {player}"]
        if self.public:
            if g is not None:
                parts.append(public_text(g.view(player), state.seen.hands, self.private))
            if state.dealt is not None:
                dealt = sum(len(h) for h in state.dealt)
                parts.append(f"dealing hand {state.seen.hands + 1}: {dealt} tiles dealt")
            if state.lot:
                parts.append(f"a lot among seats {','.join(map(str, state.lot))}")
            if state.drawing:
                parts.append("a draw awaits its tile")
        if self.private != _NONE:
            shown = [player] if self.private == _SINGLE else range(state.rules.num_players)
            for seat in shown:
                parts.append(private_text(state, seat, g.view(seat) if g else None))
        if not self.recall:
            return " | ".join(parts)
        history: list[str] = []
        if self.private != _NONE:
            shown = [player] if self.private == _SINGLE else range(state.rules.num_players)
            for seat in shown:
                history += [private_entry(seat, x) for x in state.private_history(seat)]
        if self.public:
            history += [past_text(k, events, result) for k, events, result in state.seen.past]
        return " || ".join([" | ".join(parts), *history])


def _put_tiles(out: npt.NDArray[np.float32], at: int, mask: int, rank: Sequence[int]) -> None:
    """Set ``out[at + rank[t]]`` for each tile ``t`` of ``mask`` (``rank``: the set's
    :attr:`Encoding.tile_index`)."""
    while mask:
        low = mask & -mask
        out[at + rank[low.bit_length() - 1]] = 1.0
        mask ^= low


def private_entry(seat: int, entry: Private) -> str:
    """One entry of ``seat``'s private history as text (``"0: hand 1 dealt 1-2 3-4"``)."""
    kind, hand, tiles = entry
    return f"{seat}: hand {hand} {kind} {' '.join(str(TILES[t]) for t in tiles)}"


def moves_text(events: Sequence[Event]) -> str:
    """A hand's public moves: ``seat:move`` in order (draws without their tiles)."""
    return " ".join(f"{e.seat}:{ACTIONS[e.action]}" for e in events)


def past_text(number: int, events: Sequence[Event], result: HandResult) -> str:
    """A finished hand as one line: its moves, how it ended, the pips shown, the award."""
    return (
        f"hand {number}: {moves_text(events)} | end {result.end} | pips "
        f"{'/'.join(map(str, result.pips))} | award {':'.join(map(str, result.award))}"
    )


def public_text(view: PlayerView, hand_number: int, private: Any) -> str:
    """The public part of a seat's view as one line (a drawn tile's phase shows as plain
    play unless the seat's own tiles are shown)."""
    voids = ",".join(
        "".join(map(str, view.voids_of(s))) or "-" for s in range(len(view.hand_sizes))
    )
    phase = view.phase.name if private != _NONE or view.drawn_tile is None else "PLAY"
    return (
        f"hand {hand_number} | layout {' / '.join(render_layout(view.layout))} "
        f"({view.layout.describe()}) | sizes {'/'.join(map(str, view.hand_sizes))}"
        f" | boneyard {view.boneyard_size} | scores {':'.join(map(str, view.scores))}"
        f" | to act {view.current_player} | phase {phase} | draws {view.draws_this_turn}"
        f" | voids {voids} | moves {moves_text(view.events)}"
    )


def private_text(state: AllFivesState, seat: int, view: PlayerView | None) -> str:
    """``seat``'s own tiles as text: its hand, a drawn tile to place, a deal in progress."""
    parts = []
    if view is not None:
        drawn = f" (drew {view.drawn_tile}, to place)" if view.drawn_tile is not None else ""
        parts.append(f"seat {seat} holds {' '.join(map(str, view.hand))}{drawn}")
    if state.dealt is not None:
        tiles = " ".join(str(TILES[t]) for t in sorted(state.dealt[seat]))
        parts.append(f"seat {seat} is dealt {tiles}")
    return " | ".join(parts)
