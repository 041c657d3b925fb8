"""Determinized worlds: the unseen tiles dealt out consistently with one seat's view.

:func:`sample_world` places every tile the viewer cannot see into the other hands and the
boneyard, honouring everything the view makes public:

* the unseen tiles exactly, each seat's hand size and the boneyard size;
* each seat's known voids (a seat void in value ``v`` holds no tile with a half ``v``);
* a named lead (``highest_double``): while the leader is still to lead, he holds the tile he
  must lead, and no unseen tile that outranks it was in any hand at the deal, so such a tile
  lies in the boneyard, or in the hand of a seat that has drawn this hand.

The worlds are drawn **uniformly** among all consistent ones (the standard determinization
prior: it ignores what the other players' choices may hint at). A few plain shuffles are tried
first; each accepted shuffle is a uniform draw. When they all fail (heavily constrained hands),
an exact method takes over: tiles are grouped by the set of seats that may hold them, the
number of consistent worlds is counted by a small dynamic program over those groups (cached,
since a search asks the same question hundreds of times per move), and the split is drawn with
probabilities proportional to those counts. Both routes are uniform, so their mixture is too,
and the exact route never fails while a consistent world exists.

Only the view is read: no hidden tile can leak into a world.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import lru_cache
from math import comb

from allfives_env.core.actions import DRAW_ID, TILE_OF
from allfives_env.core.deal import leader_choice
from allfives_env.core.events import Phase
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import NUM_TILES, TILES, VALUES_MASK, Tile, mask_of, tiles_of
from allfives_env.core.view import PlayerView

REJECTION_TRIES = 6
"""Plain shuffles tried before the exact method (each costs a few microseconds)."""


class NoConsistentWorldError(ValueError):
    """No deal of the unseen tiles agrees with the view (the view contradicts itself)."""


def allowed_masks(view: PlayerView) -> dict[int, int]:
    """Per other seat, the unseen tiles it may hold (a tile mask), from public facts only."""
    n = view.rules.num_players
    unseen = view.unseen_mask
    outranking = _outranking_lead(view)
    drew = 0  # seats that have drawn this hand, as a bit set
    if outranking:
        for event in view.events:
            if event.action == DRAW_ID:
                drew |= 1 << event.seat
    out: dict[int, int] = {}
    for s in range(n):
        if s == view.seat:
            continue
        allowed = unseen & ~VALUES_MASK[view.known_voids[s]]
        if not drew >> s & 1:
            allowed &= ~outranking
        out[s] = allowed
    return out


def _outranking_lead(view: PlayerView) -> int:
    """Unseen tiles no hand held at the deal because they outrank the named lead (a mask)."""
    if view.rules.leader != "highest_double":
        return 0
    if view.phase == Phase.LEAD and view.required_lead is not None:
        lead = int(view.required_lead)
    elif view.events:
        lead = TILE_OF[view.events[0].action]  # the first event of the hand is its lead
    else:
        return 0
    return _outranks(view.rules, lead) & view.unseen_mask


@lru_cache(maxsize=256)
def _outranks(rules: Rules, lead: int) -> int:
    """The tiles that the rules would have had lead instead of ``lead`` (a tile mask)."""
    mask = 0
    for t in range(NUM_TILES):
        if t != lead and leader_choice(rules, None, [[lead], [t]]).tile != lead:
            mask |= 1 << t
    return mask


def sample_world(
    view: PlayerView, rng: random.Random, *, tries: int = REJECTION_TRIES
) -> tuple[dict[int, list[Tile]], list[Tile]]:
    """Deal the tiles ``view``'s seat cannot see: every other seat's hand, and the boneyard.

    Returns ``(hands, boneyard)``: ``hands`` maps each other seat to its tiles (id order),
    ``boneyard`` is in draw order. They fit :meth:`Game.from_view`. Randomness comes from
    ``rng`` only, so a seeded ``rng`` gives the same world. ``tries`` plain shuffles are tried
    before the exact method (0: the exact method only).

    Raises:
        NoConsistentWorldError: if no world agrees with the view.
    """
    n = view.rules.num_players
    me = view.seat
    others = [s for s in range(n) if s != me]
    allowed = allowed_masks(view)
    need = {s: view.hand_sizes[s] for s in others}
    pool = tiles_of(view.unseen_mask)
    if sum(need.values()) + view.boneyard_size != len(pool):
        raise NoConsistentWorldError(
            f"seat {me}'s view is inconsistent: {len(pool)} unseen tiles for hands of "
            f"{[need[s] for s in others]} and a boneyard of {view.boneyard_size}"
        )
    hands: dict[int, list[Tile]] = {s: [] for s in others}
    lead = view.required_lead
    leader = view.current_player
    if view.phase == Phase.LEAD and lead is not None and leader is not None and leader != me:
        if not (allowed[leader] >> lead & 1 and need[leader]):
            raise NoConsistentWorldError(f"seat {leader} cannot hold the lead {lead}")
        hands[leader].append(lead)  # he must lead it, so he holds it
        need[leader] -= 1
        pool.remove(lead)
    anyone = 0
    for s in others:
        anyone |= allowed[s]
    free = [t for t in pool if anyone >> t & 1]  # the rest can only lie in the boneyard
    free_mask = mask_of(free)
    constrained = [s for s in others if need[s] and free_mask & ~allowed[s]]
    if len(free) < sum(need.values()):
        tries = 0
    for _ in range(tries):
        rng.shuffle(free)
        i = 0
        ok = True
        dealt: dict[int, list[Tile]] = {}
        for s in others:
            part = free[i : i + need[s]]
            i += need[s]
            if s in constrained and mask_of(part) & ~allowed[s]:
                ok = False
                break
            dealt[s] = part
        if ok:
            for s in others:
                hands[s] = sorted(hands[s] + dealt[s])
            bone = free[i:]
            if len(free) < len(pool):
                bone += [t for t in pool if not anyone >> t & 1]
                rng.shuffle(bone)
            return hands, bone
    return _exact(others, allowed, need, hands, pool, rng)


def _exact(
    others: list[int],
    allowed: dict[int, int],
    need: dict[int, int],
    hands: dict[int, list[Tile]],
    pool: list[Tile],
    rng: random.Random,
) -> tuple[dict[int, list[Tile]], list[Tile]]:
    """A uniform consistent world, drawn through the counting table (see the module doc)."""
    groups: dict[int, list[Tile]] = {}  # seats that may hold a tile (bits over ``others``)
    for t in sorted(pool):
        key = sum(1 << i for i, s in enumerate(others) if allowed[s] >> t & 1)
        groups.setdefault(key, []).append(t)
    bone = groups.pop(0, [])  # tiles no seat may hold
    keys = tuple(sorted(groups))
    sizes = tuple(len(groups[k]) for k in keys)
    caps = tuple(need[s] for s in others)
    table = _table(keys, sizes, len(others))
    if not table.ways(0, caps):
        raise NoConsistentWorldError("no deal of the unseen tiles respects every known void")
    for j, key in enumerate(keys):
        split = table.pick(j, caps, rng)
        tiles = groups[key][:]
        rng.shuffle(tiles)
        at = 0
        for i, x in enumerate(split):
            hands[others[i]].extend(tiles[at : at + x])
            at += x
        bone.extend(tiles[at:])
        caps = tuple(c - x for c, x in zip(caps, split, strict=True))
    rng.shuffle(bone)
    return {s: sorted(h) for s, h in hands.items()}, [TILES[t] for t in bone]


class _Table:
    """Counts the consistent worlds: ``ways(j, caps)`` fills hands of ``caps`` tiles from the
    groups ``j…`` (each group's tiles go to its allowed seats or to the boneyard)."""

    def __init__(self, keys: tuple[int, ...], sizes: tuple[int, ...], seats: int):
        self.keys = keys
        self.sizes = sizes
        self.seats = seats
        self.left = [sum(sizes[j:]) for j in range(len(sizes) + 1)]
        self.memo: dict[tuple[int, tuple[int, ...]], int] = {}

    def ways(self, j: int, caps: tuple[int, ...]) -> int:
        if j == len(self.keys):
            return 0 if any(caps) else 1
        if sum(caps) > self.left[j]:
            return 0
        key = (j, caps)
        got = self.memo.get(key)
        if got is None:
            got = sum(w for _, w in self.splits(j, caps))
            self.memo[key] = got
        return got

    def pick(self, j: int, caps: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
        """A split of group ``j``, drawn in proportion to the worlds it leads to."""
        r = rng.randrange(self.ways(j, caps))
        for split, w in self.splits(j, caps):
            if r < w:
                return split
            r -= w
        raise AssertionError("the split weights add up to the count")  # pragma: no cover

    def splits(self, j: int, caps: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], int]]:
        """Each way to share group ``j`` among its seats, with the worlds it leads to."""
        size = self.sizes[j]
        seats = [i for i in range(self.seats) if self.keys[j] >> i & 1]
        split = [0] * self.seats

        def rec(k: int, left: int, mult: int) -> Iterator[tuple[tuple[int, ...], int]]:
            if k == len(seats):
                rest = tuple(c - x for c, x in zip(caps, split, strict=True))
                w = self.ways(j + 1, rest)
                if w:
                    yield tuple(split), mult * w
                return
            i = seats[k]
            for x in range(min(left, caps[i]) + 1):
                split[i] = x
                yield from rec(k + 1, left - x, mult * comb(left, x))
            split[i] = 0

        yield from rec(0, size, 1)


@lru_cache(maxsize=64)
def _table(keys: tuple[int, ...], sizes: tuple[int, ...], seats: int) -> _Table:
    return _Table(keys, sizes, seats)
