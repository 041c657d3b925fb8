"""The whole game tree of one hand of a small game, built by the core game and kept as flat
arrays for the solver's kernels (:mod:`agents.exact.kernels`).

**The game.** One hand of ``rules`` (from zero scores), as the OpenSpiel game plays
it with ``episode=hand``: the deal is chance (every pair of hands equally likely, then the
leader by lot where the rules draw one), each draw from the boneyard is the player's ``draw``
followed by a chance node over the undrawn tiles (equally likely), and player 0's utility is
its return there, its side's points in the hand (placements and the award, in the rules' unit)
less the mean of all sides': with two players half the difference of their points, a zero-sum
game, player 1's utility its negative. Trees of three and four players are built and counted
(:mod:`agents.exact.solver` solves two-player ones only).

**No second implementation of the rules.** Every node is a position of the core
:class:`~allfives_env.core.game.Game`: the tree is expanded by cloning it and applying each legal
action (and :meth:`~allfives_env.core.game.Game.stack_next_draw` for each possible draw), and a
decision node's information state is :func:`agents.exact.infoset.infoset_key` of the core's view
(grown event by event as the tree is expanded, which a test checks against the views).

**Layout.** Nodes are numbered so that a node's children are contiguous and come after it (a
node is expanded when it is taken off a stack, its children numbered together). Per node:
``kind`` (:data:`CHANCE`, the seat to act, or :data:`TERMINAL`), ``parent``, ``first`` child and
``count`` of children, ``prob`` (the chance probability of the edge from its parent, 0 under a
player), ``slot`` (its index among its parent's children), ``infoset`` (a decision node's
information state, else -1) and ``utility`` (player 0's, at a terminal). Per information state:
its ``player``, its legal engine actions (``actions[offset[i]:offset[i] + width[i]]``, the order
of every node's children in it) and its key. A game too large for ``max_nodes`` is refused
before the tree is built, from an estimate of its size (:func:`estimate_nodes`).
"""

from __future__ import annotations

import itertools
import math
import random
from array import array
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from allfives_env.core.actions import DRAW_ID
from allfives_env.core.deal import Deal, leader_choice, random_deal
from allfives_env.core.errors import RulesError
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules

CHANCE = -1
"""``kind`` of a chance node."""
TERMINAL = 9
"""``kind`` of a terminal node (0 to 3 are the seats)."""

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

BYTES_PER_NODE = 200
"""Memory per node: the tree's arrays twice over while it is built, and the solver's arrays
(reach, values, levels), rounded up."""


class TreeTooLargeError(RulesError):
    """A game whose tree would not fit in the node budget the caller gave."""


@dataclass
class Tree:
    """The game tree (see the module docstring for the layout)."""

    rules: Rules
    kind: npt.NDArray[np.int8]
    parent: I64
    first: I64
    count: I32
    prob: F64
    slot: I32
    infoset: I64
    utility: F64
    player: npt.NDArray[np.int8]
    """Per information state: the seat to act."""
    offset: I64
    """Per information state: where its actions start in :attr:`actions`."""
    width: I32
    """Per information state: how many legal actions it has."""
    actions: I32
    """The legal engine actions of every information state, concatenated."""
    keys: list[bytes] = field(repr=False)
    """Per information state: its :func:`~agents.exact.infoset.infoset_key`."""
    deals: int = 0
    """The number of distinct deals (pairs of hands, and leaders where drawn by lot)."""

    @property
    def num_nodes(self) -> int:
        """Histories: every node of the tree."""
        return len(self.kind)

    @property
    def num_infosets(self) -> int:
        """Information states of both players."""
        return len(self.player)

    def infosets_of(self, player: int) -> int:
        """Information states where ``player`` acts."""
        return int(np.count_nonzero(self.player == player))

    @property
    def utility_range(self) -> float:
        """Player 0's largest utility at a terminal less its smallest."""
        leaves = self.utility[self.kind == TERMINAL]
        return float(leaves.max() - leaves.min())


def path_to(tree: Tree, node: int) -> list[int]:
    """The nodes from the root's child down to ``node`` (the root itself left out)."""
    path = []
    while node > 0:
        path.append(node)
        node = int(tree.parent[node])
    path.reverse()
    return path


def check_rules(rules: Rules) -> None:
    """Refuse rules the solver cannot solve (a tree of any player count can be built and
    counted; only two players have the zero-sum utility the solver's values are of).

    Raises:
        RulesError: for anything but two players.
    """
    if rules.num_players != 2:
        raise RulesError(
            f"the exact solver plays 2-player games only (the 2-player zero-sum utility), "
            f"not {rules.num_players} players"
        )


def deals(rules: Rules) -> list[tuple[Deal, float]]:
    """Every deal of a first hand with its probability: each seat's hand in turn (the
    boneyard in ascending order: its order is drawn at each draw), times each leader where
    the rules draw one by lot."""
    tiles = [int(t) for t in rules.tiles]
    k, n = rules.hand_size, rules.num_players

    def hands(rest: list[int], seats: int) -> list[list[tuple[int, ...]]]:
        if seats == 0:
            return [[]]
        return [
            [hand, *more]
            for hand in itertools.combinations(rest, k)
            for more in hands([t for t in rest if t not in hand], seats - 1)
        ]

    out: list[tuple[Deal, float]] = []
    for dealt in hands(tiles, n):
        held = {t for hand in dealt for t in hand}
        bone = tuple(t for t in tiles if t not in held)
        choice = leader_choice(rules, None, dealt)
        leaders: tuple[int | None, ...] = choice.seats if choice.by_lot else (None,)
        for leader in leaders:
            out.append((Deal.of(dealt, bone, leader), 1.0 / len(leaders)))
    total = math.prod(math.comb(len(tiles) - i * k, k) for i in range(n))
    return [(d, p / total) for d, p in out]


def count_deals(rules: Rules) -> int:
    """How many deals :func:`deals` lists (without listing them): the ways to deal the hands,
    times the seats the lot may choose."""
    tiles, k, n = rules.num_tiles, rules.hand_size, rules.num_players
    hands = math.prod(math.comb(tiles - i * k, k) for i in range(n))
    sample = random_deal(rules, random.Random(0), None).hands
    by_lot = leader_choice(rules, None, sample).by_lot
    return hands * (n if by_lot else 1)


def estimate_nodes(rules: Rules, probes: int = 400, seed: int = 0) -> float:
    """An estimate of the tree's node count (Knuth's: the mean over random root-to-leaf
    walks of the product of the branching factors met, each level's nodes counted), seeded.
    Cheap: ``probes`` walks of one hand each."""
    rng = random.Random(seed)
    count = count_deals(rules)
    total = 0.0
    for _ in range(probes):
        game = Game(rules, deal=random_deal(rules, rng, None))  # one of the deals, uniformly
        nodes, width = 1.0 + count, float(count)
        while not game.is_hand_over:
            legal = game.legal_actions()
            width *= len(legal)
            nodes += width
            a = legal[rng.randrange(len(legal))]
            if a == DRAW_ID:
                bone = game.boneyard
                width *= len(bone)
                nodes += width
                game.stack_next_draw(bone[rng.randrange(len(bone))])
            game.apply(a)
        total += nodes
    return total / probes


DEFAULT_MAX_NODES = 40_000_000
"""The node budget :func:`build_tree` takes by default (about 7.5 GiB at :data:`BYTES_PER_NODE`)."""


def build_tree(rules: Rules, max_nodes: int = DEFAULT_MAX_NODES) -> Tree:
    """The game tree of one hand of ``rules`` (see the module docstring).

    Raises:
        TreeTooLargeError: if the estimate (:func:`estimate_nodes`, with a margin of 2) or the
            tree being built passes ``max_nodes``; checked before anything large is made.
    """
    guess = estimate_nodes(rules, probes=64)
    if guess > max_nodes / 2:
        raise TreeTooLargeError(
            f"the game tree of {rules.describe()} has about {guess:.3g} nodes, more than the "
            f"limit of {max_nodes:,} (about {BYTES_PER_NODE * max_nodes / 2**30:.1f} GiB); "
            "choose a smaller set or hand"
        )
    kind = array("b", [CHANCE])
    parent = array("q", [-1])
    first = array("q", [0])
    count = array("i", [0])
    prob = array("d", [0.0])
    slot = array("i", [0])
    infoset = array("q", [-1])
    utility = array("d", [0.0])
    ids: dict[bytes, int] = {}
    player: list[int] = []
    offset: list[int] = []
    width: list[int] = []
    actions: list[int] = []

    def add(par: int, n: int, p: float) -> int:
        """Number ``n`` children of ``par`` (each with chance probability ``p``); the first
        child's id."""
        start = len(kind)
        kind.extend(bytes(n))
        parent.extend([par] * n)
        first.extend([0] * n)
        count.extend([0] * n)
        prob.extend([p] * n)
        slot.extend(range(n))
        infoset.extend([-1] * n)
        utility.extend([0.0] * n)
        first[par], count[par] = start, n
        return start

    all_deals = deals(rules)
    # each entry: the node, its position, whether it is a draw's chance node, and each
    # seat's information-state key so far (grown event by event, as infoset_key reads a view)
    stack: list[tuple[int, Game, bool, tuple[bytes, ...]]] = []
    start = add(0, len(all_deals), 0.0)
    for k, (deal, chance) in enumerate(all_deals):
        game = Game(rules, deal=deal)
        keys = tuple(
            bytes((seat, game.leader, *sorted(hand), 255)) for seat, hand in enumerate(deal.hands)
        )
        prob[start + k] = chance
        stack.append((start + k, game, False, keys))
    while stack:
        node, game, drawing, keys = stack.pop()
        if len(kind) > max_nodes:
            raise TreeTooLargeError(
                f"the game tree of {rules.describe()} passed the limit of {max_nodes:,} nodes"
            )
        if drawing:  # the player drew: which tile comes is chance
            kind[node] = CHANCE
            bone = game.boneyard
            drawer = game.current_player
            start = add(node, len(bone), 1.0 / len(bone))
            for k, t in enumerate(bone):
                child = game.clone() if k + 1 < len(bone) else game  # the last takes it
                child.stack_next_draw(t)
                child.apply(DRAW_ID)
                seen = tuple(
                    key + bytes((t,)) if seat == drawer else key for seat, key in enumerate(keys)
                )
                stack.append((start + k, child, False, seen))
            continue
        if game.is_hand_over:
            kind[node] = TERMINAL
            s = game.scores
            utility[node] = s[rules.side_of(0)] - sum(s) / len(s)
            continue
        p = game.current_player
        assert p is not None
        kind[node] = p
        legal = game.legal_actions()
        i = ids.get(keys[p])
        if i is None:
            i = ids[keys[p]] = len(player)
            player.append(p)
            offset.append(len(actions))
            width.append(len(legal))
            actions.extend(int(a) for a in legal)
        infoset[node] = i
        start = add(node, len(legal), 0.0)
        shared = False  # whether a draw's chance node holds this position (it clones it)
        for k, a in enumerate(legal):
            event = bytes((p, a >> 8, a & 255))
            grown = tuple(key + event for key in keys)
            if a == DRAW_ID:
                stack.append((start + k, game, True, grown))
                shared = True
            else:
                last = k + 1 == len(legal) and not shared
                child = game if last else game.clone()  # the last child takes the position
                child.apply(a)
                stack.append((start + k, child, False, grown))
    return Tree(
        rules=rules,
        kind=np.frombuffer(kind, np.int8).copy(),
        parent=np.frombuffer(parent, np.int64).copy(),
        first=np.frombuffer(first, np.int64).copy(),
        count=np.frombuffer(count, np.int32).copy(),
        prob=np.frombuffer(prob, np.float64).copy(),
        slot=np.frombuffer(slot, np.int32).copy(),
        infoset=np.frombuffer(infoset, np.int64).copy(),
        utility=np.frombuffer(utility, np.float64).copy(),
        player=np.array(player, np.int8),
        offset=np.array(offset, np.int64),
        width=np.array(width, np.int32),
        actions=np.array(actions, np.int32),
        keys=list(ids),
        deals=len(all_deals),
    )
