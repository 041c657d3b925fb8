"""All Fives as an RLlib multi-agent environment (new API stack).

:class:`AllFivesMultiAgentEnv` wraps the PettingZoo AEC environment
(:class:`allfives_env.envs.aec.raw_env`) in RLlib's :class:`~ray.rllib.env.multi_agent_env.
MultiAgentEnv` protocol:

- **Turn based**: each ``reset``/``step`` returns an observation for the agent to act only; the
  action dict must hold exactly that agent's action.
- **Observations** are the dicts RLlib's action-masking modules expect: ``"observations"`` (the
  seat's own observation vector, nothing it cannot see) and ``"action_mask"`` (float32, 1 for a
  legal action). With ``critic_state=True`` they also hold ``"state"``, the global state
  (every hand, the boneyard in draw order) for a centralized critic at training time; the
  policy never reads it (:class:`allfives_rllib.module.MaskedActorCritic`), and agents built
  from a checkpoint are never given it.
- **Rewards** are the AEC environment's (its ``reward`` mode), given to every agent at the step
  they arise (RLlib holds a waiting agent's rewards until its next observation); partners in 4
  players share their side's reward.
- **The end**: every agent gets its final observation, its last reward, and
  ``terminateds``/``truncateds`` set, so a final reward reaches every seat.
- **Illegal actions** raise :class:`~allfives_env.core.errors.IllegalActionError` (state
  unchanged): masks are to be honoured, not learned.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from allfives_env.core.rules import Rules
from allfives_env.envs.aec import raw_env
from allfives_env.envs.settings import EnvConfigError, EnvSettings

ENV_KEYS = (
    "preset",
    "rules",
    "num_players",
    "partnerships",
    "episode",
    "reward",
    "forced_actions",
    "action_features",
    "critic_state",
    "max_cycles",
)
"""The keys of the env config dict (each optional; the AEC environment's defaults)."""


def rules_from_fields(fields: Any) -> Rules:
    """The :class:`Rules` of an env config's ``rules``: a dict of its fields.

    Raises:
        EnvConfigError: for anything else, or fields the rules refuse.
    """
    if not isinstance(fields, dict):
        raise EnvConfigError(f"env config 'rules' must be a dict of Rules fields, not {fields!r}")
    try:
        return Rules(**fields)
    except TypeError as e:
        raise EnvConfigError(f"env config 'rules': {e}") from None


class AllFivesMultiAgentEnv(MultiAgentEnv):  # type: ignore[misc]
    """The AEC environment as an RLlib ``MultiAgentEnv`` (see the module docstring).

    ``config`` holds any of :data:`ENV_KEYS`; ``preset`` is the AEC env's ``rules`` by name,
    ``rules`` the fields of a :class:`~allfives_env.core.rules.Rules` (a smaller set, say);
    the settings (all but ``critic_state``) are :class:`EnvSettings`' fields, held as
    :attr:`settings`.

    Raises:
        EnvConfigError: for an unknown key or a bad value (a ``RulesError``).
    """

    steps_in_process = 0
    """Steps taken by every instance in this process (where an env runner ran, how much)."""

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(ENV_KEYS))
        if unknown:
            raise EnvConfigError(
                f"unknown env config key(s) {', '.join(map(repr, unknown))} "
                f"(known: {', '.join(ENV_KEYS)})"
            )
        self.critic_state = bool(config.pop("critic_state", False))
        if "rules" in config:
            config["rules"] = rules_from_fields(config["rules"])
        if "preset" in config:
            config["rules"] = config.pop("preset")
        self.raw = raw_env(**config)
        self.settings: EnvSettings = self.raw.settings
        """What the environment plays (the AEC environment's :class:`EnvSettings`)."""
        self.rules = self.settings.rules
        enc = self.raw.encoding
        low, high = enc.observation_bounds()
        parts: dict[str, spaces.Space[Any]] = {
            "observations": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (enc.num_actions,), dtype=np.float32),
        }
        if self.critic_state:
            parts["state"] = self.raw.state_space
        space = spaces.Dict(parts)
        self.agents = self.possible_agents = list(self.raw.possible_agents)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        action_space: spaces.Space[Any] = spaces.Discrete(enc.num_actions)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)

    def _obs(self, agent: str) -> dict[str, Any]:
        seen = self.raw.observe(agent)
        out = {
            "observations": seen["observation"],
            "action_mask": seen["action_mask"].astype(np.float32),
        }
        if self.critic_state:
            out["state"] = self.raw.state()
        return out

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode; the observation of the agent to act."""
        self.raw.reset(seed=seed, options=options)
        agent = self.raw.agent_selection
        return {agent: self._obs(agent)}, {}

    def step(
        self, action_dict: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """Apply the acting agent's action; the next agent's observation, or every agent's
        at the end.

        Raises:
            EnvConfigError: if ``action_dict`` does not hold exactly the acting agent.
            IllegalActionError: for an action outside the mask (nothing changes).
        """
        raw = self.raw
        agent = raw.agent_selection
        if set(action_dict) != {agent}:
            raise EnvConfigError(
                f"the action dict must hold exactly the agent to act ({agent!r}), "
                f"not {sorted(action_dict)}"
            )
        raw.step(action_dict[agent])
        AllFivesMultiAgentEnv.steps_in_process += 1
        rewards = {a: float(raw.rewards[a]) for a in self.possible_agents}
        term = any(raw.terminations.values())
        trunc = any(raw.truncations.values()) and not term
        if term or trunc:
            obs = {a: self._obs(a) for a in self.possible_agents}
            terminateds = dict.fromkeys(self.possible_agents, term)
            truncateds = dict.fromkeys(self.possible_agents, trunc)
        else:
            nxt = raw.agent_selection
            obs = {nxt: self._obs(nxt)}
            terminateds = {}
            truncateds = {}
        terminateds["__all__"] = term
        truncateds["__all__"] = trunc
        return obs, rewards, terminateds, truncateds, {}

    def state(self) -> Any:
        """The global state (see :meth:`allfives_env.envs.aec.raw_env.state`)."""
        return self.raw.state()
