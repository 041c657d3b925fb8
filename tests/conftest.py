"""Shared helpers for scripted deals, and how the suite shares the machine's cores.

The suite runs on every core (``pytest -n auto``, pytest-xdist with ``--dist loadscope``):

- the tests of a module run on one worker, one after another, so that a module-scoped fixture
  (a trained run, a server, a copy of the source tree) is built once;
- a test marked ``alone`` (it measures time, or needs every core to finish in its budget) runs
  while no other test does: it holds the write side of a reader/writer lock that every other
  test holds the read side of, for its setup, call and teardown
  (:func:`pytest_runtest_protocol`).

Run without ``-n``, nothing of this applies.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import subprocess
import tempfile
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from allfives_env import Deal, Game, Rules, Tile
from allfives_env.core.tiles import PIPS, tiles_of

ROOT = Path(__file__).resolve().parents[1]


def run_trainer(
    cmd: Sequence[str], runs: Path, *args: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run the trainer ``cmd`` with ``--runs runs`` and ``args`` from the repository root;
    its output captured as text."""
    argv = [*cmd, "--runs", str(runs), *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def scripted_deal(
    rules: Rules,
    hands: Sequence[Sequence[str]],
    boneyard: Sequence[str] = (),
    leader: int | None = 0,
) -> Deal:
    """A deal with the given hands and the boneyard starting with ``boneyard``.

    The rest of the boneyard is every tile not named, in ascending id order; hands must have
    the rules' hand size.
    """
    named = {Tile.parse(t) for h in hands for t in h} | {Tile.parse(t) for t in boneyard}
    rest = [str(Tile(t)) for t in range(28) if Tile(t) not in named]
    return Deal.of(hands, [*boneyard, *rest], leader)


def scripted_game(
    preset: str,
    hands: Sequence[Sequence[str]],
    boneyard: Sequence[str] = (),
    leader: int | None = 0,
    **overrides: object,
) -> Game:
    """A game of ``preset`` (player count from ``hands``) dealt as :func:`scripted_deal`."""
    rules = Rules.preset(preset, len(hands), **overrides)
    return Game(rules, deal=scripted_deal(rules, hands, boneyard, leader))


def play(game: Game, *actions: str) -> list[float]:
    """Apply actions given as text; return the points each scored."""
    return [game.apply(a).points for a in actions]


def with_hidden_tiles_reshuffled(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy in which every tile ``seat`` cannot see is dealt anew among the other hands and
    the boneyard (each keeps its size). Only the seat's view must not notice."""
    g = game.clone()
    n = g.rules.num_players
    others = [s for s in range(n) if s != seat]
    hidden = [t for s in others for t in tiles_of(g._hands[s])] + g._bone[g._bpos :]
    rng.shuffle(hidden)
    i = 0
    for s in others:
        k = g._sizes[s]
        part = hidden[i : i + k]
        i += k
        g._hands[s] = sum(1 << t for t in part)
        g._pips[s] = sum(PIPS[t] for t in part)
    g._bone = g._bone[: g._bpos] + [int(t) for t in hidden[i:]]
    if g._drawn >= 0 and g._cur != seat:
        g._drawn = next(iter(tiles_of(g._hands[g._cur])))
    return g


def random_mlp(rules: Rules) -> Any:
    """A sound feed-forward network with random weights for ``rules``' observation (no torch)."""
    import numpy as np

    from agents.numpy_networks import MlpPolicy
    from allfives_env.envs.spaces import Encoding

    enc = Encoding(rules)
    rng = np.random.default_rng(0)
    sizes = [enc.obs_size, 16, enc.num_actions]
    return MlpPolicy(
        [rng.standard_normal((b, a)).astype(np.float32) for a, b in itertools.pairwise(sizes)],
        [np.zeros(b, np.float32) for b in sizes[1:]],
    )


def fake_checkpoint(path: Path, rules: Rules) -> None:
    """A checkpoint with random weights (the two files a learned agent reads; no torch)."""
    import zipfile

    from agents.learned import META_FILE, WEIGHTS_FILE, PolicySpec

    policy = random_mlp(rules)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(META_FILE, json.dumps(PolicySpec(rules, False).to_json()))
        z.writestr(WEIGHTS_FILE, policy.to_npz())


# --- sharing the machine between xdist workers -----------------------------------------------


@contextlib.contextmanager
def _machine(alone: bool) -> Iterator[None]:
    """Hold the run's reader/writer lock: the write side ``alone``, else the read side."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:  # one process: nothing to share
        yield
        return
    from filelock import ReadWriteLock

    lock = ReadWriteLock(Path(tempfile.gettempdir()) / f"allfives-tests-{run}.db")
    with lock.write_lock() if alone else lock.read_lock():
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Run a test marked ``alone`` while no other test runs (see the docstring)."""
    with _machine(item.get_closest_marker("alone") is not None):
        return (yield)
