"""The scorer network's choice for a batch of games at the engine's speed (mirrors
:meth:`agents.numpy_networks.ScorerPolicy.logits` and ``LearnedAgent.act_batch``).

``ScorerPolicy.logits`` reads whole observations: every game's 1,790 entries (``pagat``, 2
players, outlook features) are written, then every one of the 112 placements' features goes
through ``φ``, legal or not. A rollout step asks for one action per live game, so most of that
is waste. :func:`scorer_actions` computes the same logits for the legal actions only:

1. a kernel lists each game's legal actions (:func:`write_mask`); a game with one legal action
   (a forced draw or pass, a lone placement) takes it without the network, and one with none
   gets -1;
2. for the others, a kernel writes the observation's global part (the engine's own writer,
   :func:`write_global`) as the trunk's input, and each legal placement's features (the
   engine's per-placement writers, in :meth:`ScorerLayout.features`' order) into one flat
   array, never the entries of the placements that are not legal;
3. the trunk, the context ``c`` and ``φ`` run as a few float32 matrix products over those
   rows (BLAS); a kernel (:func:`head`) then adds, for each legal action only, its per-action
   term ``u[a]`` and, for a placement, its score ``φ(f_a) · c``;
4. a kernel picks each game's action from its legal logits: the highest (ties: the lowest id),
   or, given a uniform number, the one the masked softmax samples, as ``LearnedAgent.act_batch``
   picks from the full rows.

The logits equal ``ScorerPolicy.logits``' up to float32 rounding (the products are summed in
another order): ``tests/agents/test_compiled_scorer.py`` pins them, and the choices, to it.

This module imports numba (through :mod:`allfives_env.vector`); ``LearnedAgent.act_batch``
imports it on first use, so ``import agents`` stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from agents.numpy_networks import TILE_PIPS, ScorerLayout, ScorerPolicy
from allfives_env.envs.blocks import LOOKAHEAD_SIZE, OUTLOOK_SIZE, SLOT_FEATURES
from allfives_env.vector._jit import batch_kernel, cache_with_package, fast_batch_kernel, prange
from allfives_env.vector.engine import VectorGame
from allfives_env.vector.kernels.encode import write_global
from allfives_env.vector.kernels.features import placement_features, prepare_features
from allfives_env.vector.kernels.legal import write_mask
from allfives_env.vector.kernels.outlook import outlook_entries, placement_lookahead
from allfives_env.vector.state import C_S, C_SIDE_OF, CUR, F32, F64, I8, I32, I64

# The kernels below call the package's helpers: stamp their cache with the package's sources.
cache_with_package(__file__)

_T_PIPS: F32 = np.ascontiguousarray(TILE_PIPS, np.float32)


@batch_kernel
def legal_counts(games: I64, st: I32, cfg: I64, masks: I8, counts: I64, only: I64) -> None:
    """``masks[k]``: the legal env actions of game ``games[k]``'s acting seat (0/1);
    ``counts[k]``: how many; ``only[k]``: the one legal action where there is one, else -1."""
    for k in prange(games.shape[0]):
        m = masks[k]
        n = write_mask(st[games[k]], cfg, m)
        counts[k] = n
        only[k] = -1
        if n == 1:
            for a in range(m.shape[0]):
                if m[a]:
                    only[k] = a


@batch_kernel
def gather_inputs(
    games: I64,
    st: I32,
    cfg: I64,
    scores: F64,
    scratch: I32,
    fscratch: F64,
    masks: I8,
    offsets: I64,
    lay: I64,
    pips: F32,
    x: F32,
    feats: F32,
    acts: I64,
) -> None:
    """For each game ``games[k]`` (its acting seat's view): its trunk input ``x[k]`` (the
    observation's global part) and, from ``offsets[k]`` on, one entry of ``acts`` per legal
    action of ``masks[k]`` (ascending ids) with, for a placement, its features in ``feats``
    (the entries the observation would hold, then the tile features). ``lay``: the
    placements, and the first index of the outlook, lookahead and slots blocks (-1: absent;
    slots -1: no tile features)."""
    places, outlook, lookahead, slots = lay[0], lay[1], lay[2], lay[3]
    s_count = cfg[C_S]
    for k in prange(games.shape[0]):
        i = games[k]
        r = st[i]
        scr = scratch[i]
        seat = r[CUR]
        o = x[k]
        write_global(r, cfg, scores[i], seat, o)
        score = scores[i, cfg[C_SIDE_OF + seat]]
        prepare_features(r, cfg, seat, scr)
        at = offsets[k]
        m = masks[k]
        for a in range(m.shape[0]):
            if not m[a]:
                continue
            acts[at] = a
            f = feats[at]
            at += 1
            if a >= places:
                for e in range(f.shape[0]):
                    f[e] = 0.0
                continue
            t = a // s_count
            s = a % s_count
            points, reply = placement_features(r, cfg, scr, score, t, s)
            f[0] = np.float32(points)
            f[1] = np.float32(reply)
            q = 2
            if outlook >= 0:
                outlook_entries(r, cfg, scores[i], seat, t, s, f, q, scr, fscratch[i])
                q += OUTLOOK_SIZE
            if lookahead >= 0:
                wins, out = placement_lookahead(r, cfg, scores[i], seat, t, s, scr)
                f[q] = np.float32(wins)
                f[q + 1] = np.float32(out)
                q += LOOKAHEAD_SIZE
            if slots >= 0:
                base = slots + s * SLOT_FEATURES
                for v in range(7):
                    f[q + v] = pips[t, v]
                    f[q + 7 + v] = max(pips[t, v] - o[base + 1 + v], np.float32(0.0))
                q += 14
                for e in range(s_count):
                    f[q + e] = 1.0 if e == s else 0.0
                q += s_count
                for e in range(SLOT_FEATURES):
                    f[q + e] = o[base + e]


@fast_batch_kernel
def head(
    offsets: I64, h: F32, c: F32, phi: F32, wa: F32, ba: F32, acts: I64, places: int, out: F32
) -> None:
    """``out[e]`` for the entries ``offsets[k]:offsets[k + 1]`` of game ``k``: the logit of
    action ``a = acts[e]``, ``u[a] = wa[a] · h[k] + ba[a]`` (for the legal actions only), plus
    for a placement its score ``phi[e] · c[k]``."""
    for k in prange(offsets.shape[0] - 1):
        hk = h[k]
        ck = c[k]
        for e in range(offsets[k], offsets[k + 1]):
            a = acts[e]
            w = wa[a]
            z = ba[a]
            for q in range(hk.shape[0]):
                z += w[q] * hk[q]
            if a < places:
                f = phi[e]
                for q in range(ck.shape[0]):
                    z += f[q] * ck[q]
            out[e] = z


@batch_kernel
def pick(offsets: I64, logits: F64, acts: I64, uniforms: F64, out: I64) -> None:
    """``out[k]``: among entries ``offsets[k]:offsets[k + 1]`` (legal actions, ascending ids),
    the action of the highest logit (ties: the first), or, where ``uniforms[k]`` is in
    [0, 1), the one the softmax samples with it (``LearnedAgent.act_batch``'s rule)."""
    for k in prange(offsets.shape[0] - 1):
        lo, hi = offsets[k], offsets[k + 1]
        best = lo
        for e in range(lo + 1, hi):
            if logits[e] > logits[best]:
                best = e
        u = uniforms[k]
        if u < 0.0:
            out[k] = acts[best]
            continue
        top = logits[best]
        total = 0.0
        for e in range(lo, hi):
            total += np.exp(logits[e] - top)
        threshold = u * total
        c = 0.0
        chosen = hi - 1
        for e in range(lo, hi):
            c += np.exp(logits[e] - top)
            if not c < threshold:
                chosen = e
                break
        out[k] = acts[chosen]


def layout_vector(lay: ScorerLayout) -> I64:
    """``lay`` as :func:`gather_inputs` reads it."""
    return np.array([lay.placements, lay.outlook, lay.lookahead, lay.slots], np.int64)


@dataclass(frozen=True)
class Prepared:
    """A scorer's weights as the kernels read them, C-contiguous float32 (the trunk's
    transposed, for row-major products)."""

    trunk: list[tuple[F32, F32]]
    context: tuple[F32, F32]
    action: tuple[F32, F32]

    @classmethod
    def of(cls, policy: ScorerPolicy) -> Prepared:
        def f32(a: npt.ArrayLike) -> F32:
            return np.ascontiguousarray(a, np.float32)

        return cls(
            [(f32(w.T), f32(b)) for w, b in policy.trunk],
            (f32(policy.context[0]), f32(policy.context[1])),
            (f32(policy.action[0]), f32(policy.action[1])),
        )  # fmt: skip


_PREPARED: dict[int, tuple[ScorerPolicy, Prepared]] = {}


def prepared(policy: ScorerPolicy) -> Prepared:
    """``policy``'s :class:`Prepared` weights (kept for the last few policies: a rollout asks
    for the same network's choice dozens of times a move)."""
    hit = _PREPARED.get(id(policy))
    if hit is not None and hit[0] is policy:
        return hit[1]
    if len(_PREPARED) >= 8:
        _PREPARED.clear()
    ready = Prepared.of(policy)
    _PREPARED[id(policy)] = (policy, ready)
    return ready


def scorer_logits(
    policy: ScorerPolicy, x: F32, feats: F32, offsets: I64, acts: I64
) -> npt.NDArray[np.float32]:
    """The logits of the listed legal actions: the entries ``offsets[k]:offsets[k + 1]`` are
    the actions ``acts`` of the game whose trunk input is ``x[k]``, with placement features
    ``feats``."""
    ready = prepared(policy)
    h = x
    for wt, b in ready.trunk:
        h = np.tanh(h @ wt + b)
    c = np.ascontiguousarray(h @ ready.context[0].T + ready.context[1])
    phi = feats
    for i, (wf, bf) in enumerate(policy.feature):
        z = phi @ wf.T + bf
        if i == 0 and policy.fuse is not None:
            fused = h @ policy.fuse[0].T + policy.fuse[1]
            z += np.repeat(fused, np.diff(offsets), axis=0)
        phi = np.maximum(z, 0)
    out = np.empty(acts.size, np.float32)
    head(
        offsets, np.ascontiguousarray(h), c, np.ascontiguousarray(phi, np.float32),
        ready.action[0], ready.action[1], acts, policy.layout.placements, out,
    )  # fmt: skip
    return out


def legal_logits(
    vg: VectorGame, games: I64, policy: ScorerPolicy
) -> tuple[I64, I8, I64, I64, I64, I64, npt.NDArray[np.float32]]:
    """The scorer's logits of the legal actions of each game in ``games`` with a choice to make.

    Returns:
        ``counts`` (each game's legal actions), ``masks`` (its legal env actions, 0/1),
        ``only`` (its one legal action where it has one, else -1), ``need`` (the positions
        in ``games`` of the games with more than one), ``offsets`` (game ``games[need[j]]``'s
        entries are ``offsets[j]:offsets[j + 1]``), and per entry the action ``acts``
        (ascending within a game) and its ``logits``.
    """
    idx = np.ascontiguousarray(games, np.int64)
    k = idx.size
    masks = np.empty((k, vg.num_actions), np.int8)
    counts = np.empty(k, np.int64)
    only = np.empty(k, np.int64)
    legal_counts(idx, vg.st, vg.cfg, masks, counts, only)
    need = np.flatnonzero(counts > 1)
    offsets = np.zeros(need.size + 1, np.int64)
    np.cumsum(counts[need], out=offsets[1:])
    lay = policy.layout
    total = int(offsets[-1])
    x = np.empty((need.size, lay.global_size), np.float32)
    feats = np.empty((total, lay.feature_size), np.float32)
    acts = np.empty(total, np.int64)
    if need.size:
        gather_inputs(
            idx[need], vg.st, vg.cfg, vg.scores_, vg.scratch, vg.fscratch, masks[need],
            offsets, layout_vector(lay), _T_PIPS, x, feats, acts,
        )  # fmt: skip
    logits = scorer_logits(policy, x, feats, offsets, acts)
    return counts, masks, only, need, offsets, acts, logits


def scorer_actions(
    vg: VectorGame, games: I64, policy: ScorerPolicy, uniforms: F64 | None = None
) -> I64:
    """The env action the scorer picks for the acting seat of each game in ``games`` (indices
    into ``vg``, each listed once): the legal action of highest logit (ties: the lowest id), or,
    with ``uniforms`` (one in [0, 1) per game), the one its masked softmax samples; the only
    legal action without asking the network; -1 in a game with none (its hand over).

    ``vg`` must play the policy's rules with its observation (``LearnedAgent.act_batch``
    checks)."""
    _, _, out, need, offsets, acts, logits = legal_logits(vg, games, policy)
    if need.size:
        u = np.full(need.size, -1.0) if uniforms is None else uniforms[need]
        chosen = np.empty(need.size, np.int64)
        z = logits.astype(np.float64)
        pick(offsets, z, acts, np.ascontiguousarray(u, np.float64), chosen)
        out[need] = chosen
    return out
