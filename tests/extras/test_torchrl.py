"""TorchRL's own PettingZoo wrapper on the parallel environment: masked sampling over every
agent at once works, because agents not on turn have one legal no-op."""

from __future__ import annotations

import numpy as np
import pytest

import allfives_env

torchrl = pytest.importorskip("torchrl")
pytest.importorskip("torchrl.envs.libs.pettingzoo")


@pytest.mark.parametrize(
    ("players", "preset"), [(2, "pagat"), (3, "pyatyorka"), (4, "pagat"), (4, "five_up")]
)
def test_torchrl_masked_rollout(players: int, preset: str) -> None:
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    raw = allfives_env.parallel_env(rules=preset, num_players=players, episode="hand")
    env = PettingZooWrapper(env=raw, use_mask=True, seed=3)
    data = env.rollout(400, break_when_any_done=False)
    for group in env.group_map:  # every agent always has a legal action to sample
        assert bool(data[group, "action_mask"].any(-1).all())
    assert int(data["next", "done"].sum()) >= 1


def test_waiting_agents_have_the_no_op_alone() -> None:
    env = allfives_env.parallel_env(num_players=3)
    obs, infos = env.reset(seed=5)
    wait = env.wait_mask
    assert int(wait.sum()) == 1
    for _ in range(200):
        if not env.agents:
            break
        acting = env.aec_env.agent_selection
        for agent in env.agents:
            if agent != acting:
                assert np.array_equal(obs[agent]["action_mask"], wait)
                assert np.array_equal(infos[agent]["action_mask"], wait)
        legal = np.flatnonzero(obs[acting]["action_mask"])
        actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
        actions[acting] = int(legal[-1])
        obs, _, _, _, infos = env.step(actions)
