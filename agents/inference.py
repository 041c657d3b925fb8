"""Inference over the hidden tiles: how likely each sampled world makes the other players'
moves so far.

:func:`agents.sampler.sample_world` draws the worlds uniformly among those the public facts
allow. But a player's choices say more than his voids: one who had a 10-point placement and
scored nothing probably did not hold the tile. Following PIMC with inference (Solinas, Rebstock
& Buro, *Improving Search with Supervised Learning in Trick-Based Card Games*, 2019), a world is
weighed by the probability of the other players' past choices this hand under a model of their
play, given the hands the world gives them.

**The model of play** (:class:`PlayModel`): a player placing from hand ``H`` on a layout
chooses placement ``(t, s)`` with probability proportional to ``exp(θ · f(t, s))``, over every
placement his hand offers, where ``f`` is the points it scores, the pips it sheds and whether it
is a double. :data:`DEFAULT_MODEL`'s ``θ`` is fitted by maximum likelihood on the choices of
search players (``tools/fit_play_model.py``); ``scale`` softens it (0: every choice equally
likely, which weighs every world alike).

**Which choices count** (:func:`decisions`). A choice of seat ``p`` at time ``τ`` was made from
the hand ``H_τ = H_now ∪ P_τ``: the world's hand now and the tiles ``p`` has placed since
(public), as long as ``p`` drew no tile after ``τ`` (the drawn tiles are hidden). So only the
choices after a seat's last draw of the hand count; the placement of a tile just drawn, and a
lead the rules name, were forced and say nothing.

**The weight.** ``exp(θ · f(chosen))`` is the same in every world, so a world's weight is
``Π_τ 1 / Z_τ``, with ``Z_τ = Σ_{t ∈ H_τ} e_τ[t]`` and ``e_τ[t]`` the sum of
``exp(θ · f(t, s))`` over the slots ``t`` fits at ``τ``: one dot product per choice and world
(:func:`log_weights`).

Only the view is read (its public events and the viewer's own hand): the weights leak nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from allfives_env.core.actions import DRAW_ID, MAX_SLOTS
from allfives_env.core.layout import NUM_SLOTS, Layout
from allfives_env.core.rules import Rules
from allfives_env.core.scoring import count_points
from allfives_env.core.tiles import IS_DOUBLE, NUM_TILES, PIPS
from allfives_env.core.view import PlayerView

F64 = npt.NDArray[np.float64]

FEATURES = ("points", "pips", "double")
"""What the model reads of a placement: the points it scores (over 5), the pips it sheds (over
12), and 1 for a double."""


@dataclass(frozen=True)
class PlayModel:
    """A softmax model of a player's placement: ``p(t, s) ∝ exp(θ · f(t, s))`` over the
    placements his hand offers, ``θ`` the weights of :data:`FEATURES` times ``scale``."""

    points: float
    pips: float
    double: float
    scale: float = 1.0

    def theta(self) -> F64:
        """``θ``, scaled."""
        return self.scale * np.array([self.points, self.pips, self.double], np.float64)

    def softened(self, scale: float) -> PlayModel:
        """The same model with weights times ``scale`` (0: uniform)."""
        return PlayModel(self.points, self.pips, self.double, scale)


DEFAULT_MODEL = PlayModel(points=1.06, pips=0.08, double=0.87)
"""The model of play that search agents use: fitted to ``batchsearch:worlds=64``'s choices
(``python tools/fit_play_model.py --agents batchsearch:worlds=64 --hands 200``: 3,110 choices;
θ = 1.058 ± 0.038 per 5 points, 0.076 ± 0.116 per 12 pips, 0.867 ± 0.067 for a double; mean log
likelihood per held-out choice -1.116, uniform -1.326)."""


def placement_features(rules: Rules, layout: Layout, tile: int, slot: int) -> F64:
    """:data:`FEATURES` of placing ``tile`` on ``slot`` (a lead on an empty table)."""
    count = layout.count_after(tile, slot)
    points = float(count_points(count, rules.unit))
    return np.array([points / 5.0, PIPS[tile] / 12.0, float(IS_DOUBLE[tile])], np.float64)


def offered(layout: Layout, tile: int) -> list[int]:
    """The slots ``tile`` may be placed on (slot 0 alone for a lead)."""
    if layout.is_empty:
        return [0]
    return [s for s in range(NUM_SLOTS) if layout.fits(tile, s)]


def tile_sums(rules: Rules, layout: Layout, theta: F64) -> F64:
    """``e[t]``: the sum of ``exp(θ · f(t, s))`` over the slots ``t`` fits on ``layout``
    (0 where it fits none)."""
    w_points, w_pips, w_double = (float(x) for x in theta)
    e = np.zeros(NUM_TILES, np.float64)
    for t in range(NUM_TILES):
        if layout.on_table >> t & 1:
            continue
        base = w_pips * PIPS[t] / 12.0 + (w_double if IS_DOUBLE[t] else 0.0)
        total = 0.0
        for s in offered(layout, t):
            points = count_points(layout.count_after(t, s), rules.unit)
            total += math.exp(base + w_points * points / 5.0)
        e[t] = total
    return e


@dataclass(frozen=True)
class Decision:
    """One informative choice of another seat this hand.

    Attributes:
        seat: who chose.
        placed_since: the tiles that seat has placed from this choice on, it included (a mask).
        sums: ``e_τ`` (:func:`tile_sums`) on the layout the seat chose on.
    """

    seat: int
    placed_since: int
    sums: F64


def decisions(view: PlayerView, model: PlayModel) -> list[Decision]:
    """The other seats' choices this hand that tell something about their hands now (see the
    module docstring), replayed from ``view``'s public events."""
    rules = view.rules
    theta = model.theta()
    if not theta.any():
        return []
    events = [(e.seat, int(e.action)) for e in view.events]
    layout = Layout(rules.spinners == "every", rules.branches == "at_once")
    found: list[tuple[int, int, F64]] = []  # (event index, seat, sums)
    for i, (seat, a) in enumerate(events):
        if a >= DRAW_ID:
            if a == DRAW_ID:  # what the seat held before this draw is no longer known
                found = [d for d in found if d[1] != seat]
            continue
        tile, slot = a // MAX_SLOTS, a % MAX_SLOTS
        after_draw = i > 0 and events[i - 1] == (seat, DRAW_ID)  # the tile just drawn
        named = i == 0 and rules.leader == "highest_double"  # the lead the rules name
        if seat != view.seat and not after_draw and not named:
            found.append((i, seat, tile_sums(rules, layout, theta)))
        if layout.is_empty:
            layout.lead(tile, slot == 1)
        else:
            layout.place(tile, slot)
    out = []
    for i, seat, sums in found:
        since = 0
        for seat2, a in events[i:]:
            if seat2 == seat and a < DRAW_ID:
                since |= 1 << (a // MAX_SLOTS)
        out.append(Decision(seat, since, sums))
    return out


def log_weights(found: list[Decision], hands: npt.NDArray[np.int64]) -> F64:
    """Each world's log weight, ``-Σ_τ log Z_τ``: ``hands[w, seat]`` is the tile mask world
    ``w`` deals ``seat`` now. 0 for every world when nothing was found."""
    worlds = hands.shape[0]
    out = np.zeros(worlds, np.float64)
    bits = np.arange(NUM_TILES, dtype=np.int64)
    for d in found:
        held = (hands[:, d.seat, None] | d.placed_since) >> bits & 1
        z = held @ d.sums
        out -= np.log(np.maximum(z, 1e-300))
    return out


def world_weights(found: list[Decision], hands: npt.NDArray[np.int64]) -> F64:
    """Each world's weight, scaled to sum to the number of worlds (all 1 without inference)."""
    lw = log_weights(found, hands)
    w = np.exp(lw - lw.max()) if lw.size else lw
    total = float(w.sum())
    result: F64 = w * (w.size / total) if total > 0 else np.ones_like(lw)
    return result
